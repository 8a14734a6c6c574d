#!/bin/sh
# Browser tests drive Debian's Chromium (never a downloaded build). CI and fresh machines run this
# once before the tests; it needs root (or sudo) only when the package is missing.
set -eu
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
