#!/bin/sh
# Install the Debian packages league builds against (and python3-numpy, for
# the collector benchmark's Python peer, which a test runs; python3-scipy,
# for the meta-solvers' reference in tests/ref/meta_ref.py; protoc and
# python3-protobuf for the Python game package, python/;
# python3-prometheus-client, whose parser reads /metrics in a test;
# universal-ctags, which tests/sizes.py reads function extents with;
# libcairo2-dev, libfontconfig-dev and fonts-dejavu-core for `league plot`,
# whose text is DejaVu Sans through fontconfig), or print the exact command
# when not root. Called by the Makefile when pkg-config cannot find a
# dependency (or the font is missing), and by .ci/run.
#
#   util/deps.sh           the build and test dependencies
#   util/deps.sh browser   what `make browser-test` needs: Debian's
#                          chromium, a font, curl
#   util/deps.sh cluster   what `make test-cluster` needs: ip, curl
#   util/deps.sh deploy    what `make test-deploy` needs: systemd-analyze,
#                          Slurm and munge, kubectl, python3-kubernetes
#   util/deps.sh play      what `make test-play` needs: tmux
case "${1:-}" in # what to install for which target, one row each
browser) WHAT="the browser test's packages" PKGS="chromium fonts-dejavu-core curl" ;;
cluster) WHAT="the cluster test's packages" PKGS="iproute2 curl" ;;
play) WHAT="the human game test's terminal" PKGS="tmux" ;;
deploy) WHAT="the deployment checks' tools"
	PKGS="systemd slurm-wlm munge python3-kubernetes python3-yaml"
	command -v kubectl >/dev/null || PKGS="$PKGS kubernetes-client" ;;
*) WHAT="build dependencies"
	PKGS="build-essential pkg-config libevent-dev libssl-dev openssl liblmdb-dev libyaml-dev libopenblas-dev check libprotobuf-c-dev protobuf-c-compiler protobuf-compiler python3-numpy python3-scipy python3-protobuf python3-prometheus-client universal-ctags libcairo2-dev libfontconfig-dev fonts-dejavu-core" ;;
esac
if [ "$(id -u)" != 0 ]; then
	echo "league: missing $WHAT; install them with:" >&2
	echo "  sudo apt-get install -y $PKGS" >&2
	exit 1
fi
echo "league: installing $WHAT: $PKGS" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || exit 1
apt-get install -y -qq --no-install-recommends $PKGS >&2
