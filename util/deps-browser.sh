#!/bin/sh
# Install what the browser test needs (tests/browser/page_test.sh):
# Debian's chromium and a font, or print the exact command when not root.
# Called by `make browser-test` when no chromium is on the PATH.
PKGS="chromium fonts-dejavu-core curl"
if [ "$(id -u)" != 0 ]; then
	echo "league: the browser test needs: sudo apt-get install -y $PKGS" >&2
	exit 1
fi
echo "league: installing the browser test's packages: $PKGS" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || exit 1
apt-get install -y -qq --no-install-recommends $PKGS >&2
