#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests (playwright-core drives it through
# executablePath; no browser is downloaded). Does nothing when /usr/bin/chromium is there.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
echo "install-chromium: installing Debian's chromium for the browser tests" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
