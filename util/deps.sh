#!/bin/sh
# Install the Debian packages league builds against (and python3-numpy, for
# the collector benchmark's Python peer, which a test runs; protoc and
# python3-protobuf for the Python game package, python/), or print the
# exact command when not root. Called by the Makefile when pkg-config cannot find
# a dependency, and by .ci/run.
PKGS="build-essential pkg-config libevent-dev liblmdb-dev libyaml-dev libopenblas-dev check libprotobuf-c-dev protobuf-c-compiler protobuf-compiler python3-numpy python3-protobuf python3-prometheus-client"
if [ "$(id -u)" != 0 ]; then
	echo "league: missing build dependencies; install them with:" >&2
	echo "  sudo apt-get install -y $PKGS" >&2
	exit 1
fi
echo "league: installing build dependencies: $PKGS" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || exit 1
apt-get install -y -qq --no-install-recommends $PKGS >&2
