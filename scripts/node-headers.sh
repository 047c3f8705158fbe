#!/bin/sh
# Node.js headers to compile better-sqlite3 12 against, for Node 24.19 and later.
#
#   scripts/node-headers.sh NODE_PREFIX OUT_DIR
#   npm_config_nodedir=OUT_DIR npm rebuild better-sqlite3 --build-from-source
#
# Copies NODE_PREFIX/include/node (the headers shipped with every official Node.js build, e.g.
# /usr/local in the node images) to OUT_DIR/include/node and takes the environment cleanup hook out
# of node::ObjectWrap. Node 24.19 added that hook to node_object_wrap.h, a header-only class that is
# compiled into each addon: the destructor then calls RemoveEnvironmentCleanupHook, which aborts the
# process (`Assertion failed: (env) != nullptr`) when the garbage collector frees a wrapped object
# outside any context, as it does with better-sqlite3 12's statements (nodejs/node#65446). Without
# the two calls the class is the one of Node 24.18 and every earlier release, which the same runtimes
# load and run cleanly; the ABI (NODE_MODULE_VERSION) is unchanged. Headers without the hook (Node 20,
# 22, 24.18 and older) are copied unchanged. See docs/deployment.md.
set -eu
prefix=${1:?usage: node-headers.sh NODE_PREFIX OUT_DIR}
out=${2:?usage: node-headers.sh NODE_PREFIX OUT_DIR}
src="$prefix/include/node"
[ -f "$src/node_object_wrap.h" ] || { echo "node-headers: no $src/node_object_wrap.h" >&2; exit 1; }
rm -rf "$out/include/node"
mkdir -p "$out/include"
cp -R "$src" "$out/include/node"
header="$out/include/node/node_object_wrap.h"
if grep -q 'AddCleanupHook();' "$header"; then
  sed -i -e '/^ *AddCleanupHook();$/d' -e '/^ *RemoveCleanupHook();$/d' "$header"
  if grep -qE '^ *(Add|Remove)CleanupHook\(\);' "$header"; then
    echo "node-headers: could not take the cleanup hook out of $header" >&2
    exit 1
  fi
  echo "node-headers: $out/include/node (ObjectWrap without the environment cleanup hook)"
else
  echo "node-headers: $out/include/node (unchanged: this ObjectWrap has no cleanup hook)"
fi
