#!/usr/bin/env bash
# Source this file (`. scripts/use-node.sh`) to get a Node.js the project supports (22 or newer) on
# PATH. When the machine's own Node is older, Node 24 is installed once from the npm registry (the
# `node` package carries the official binaries) into ~/.node24 and put first on PATH.
# Nothing else is changed; a machine that already has Node 22+ is left alone.

followup_node_major() {
  command -v node >/dev/null 2>&1 || { echo 0; return; }
  node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

if [ "$(followup_node_major)" -lt 22 ]; then
  followup_node_prefix="${FOLLOWUP_NODE_PREFIX:-$HOME/.node24}"
  if [ ! -x "$followup_node_prefix/node_modules/.bin/node" ]; then
    echo "use-node: Node $(node -v 2>/dev/null || echo none) is older than 22; installing Node 24 into $followup_node_prefix" >&2
    npm install --prefix "$followup_node_prefix" --no-save node@24 >&2 || return 1 2>/dev/null || exit 1
  fi
  export PATH="$followup_node_prefix/node_modules/.bin:$PATH"
  hash -r
  if [ "$(followup_node_major)" -lt 22 ]; then
    echo "use-node: could not provision Node 22+ (found $(node -v))" >&2
    return 1 2>/dev/null || exit 1
  fi
fi
unset -f followup_node_major
echo "use-node: using Node $(node -v) from $(command -v node)" >&2
