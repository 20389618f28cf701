#!/usr/bin/env bash
# Source this file (`. scripts/use-node.sh`) to get a Node.js the project supports (22 or newer) on
# PATH. When the machine's own Node is older, Node 24 is installed once from the npm registry (the
# `node` package carries the official binaries) into ~/.node24 (or FOLLOWUP_NODE_PREFIX) and put
# first on PATH. The installer is scripts/testing/on-node.mjs, the one the test suite uses for
# Node 22: it runs on the old Node and installs into a folder of its own before renaming it into
# place, so two shells provisioning at once never see half a Node.
# Nothing else is changed; a machine that already has Node 22+ is left alone.

followup_node_major() {
  command -v node >/dev/null 2>&1 || { echo 0; return; }
  node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

if [ "$(followup_node_major)" -lt 22 ]; then
  followup_node_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
  if ! command -v node >/dev/null 2>&1; then
    echo "use-node: no Node.js on PATH; install any Node.js with npm (the machine's package manager's will do), then source this again" >&2
    return 1 2>/dev/null || exit 1
  fi
  echo "use-node: Node $(node -v) is older than 22; using Node 24 from ${FOLLOWUP_NODE_PREFIX:-$HOME/.node24}" >&2
  followup_node_bin="$(FOLLOWUP_NODE24_PREFIX="${FOLLOWUP_NODE_PREFIX:-${FOLLOWUP_NODE24_PREFIX:-}}" \
    node "$followup_node_root/scripts/testing/on-node.mjs" 24 --print-bin)" || return 1 2>/dev/null || exit 1
  export PATH="$followup_node_bin:$PATH"
  hash -r
  unset followup_node_root followup_node_bin
  if [ "$(followup_node_major)" -lt 22 ]; then
    echo "use-node: could not provision Node 22+ (found $(node -v))" >&2
    return 1 2>/dev/null || exit 1
  fi
fi
unset -f followup_node_major
echo "use-node: using Node $(node -v) from $(command -v node)" >&2
