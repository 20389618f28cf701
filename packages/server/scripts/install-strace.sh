#!/usr/bin/env bash
# Installs Debian's strace for the server's durability test (test/durable-writes.test.ts traces
# the server's fsync calls). Does nothing when strace is there. In CI that test must run: it
# fails rather than skips without a working strace.
set -euo pipefail
if command -v strace >/dev/null 2>&1; then exit 0; fi
echo "install-strace: installing Debian's strace for the server's durability test" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq strace >&2
