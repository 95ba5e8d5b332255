#!/usr/bin/env bash
# tsc --strict over JavaScript: checks each FILE (default: the SDK server and
# the Node example) as the TypeScript compiler pinned in
# bindings-node/package-lock.json sees it, with JSDoc types, against the
# typings snodo-mrtr ships (index.d.ts, mcp.d.ts, once.d.ts). A file's
# imports resolve from its own folder: put a checked snippet where
# 'snodo-mrtr' and '@modelcontextprotocol/server' resolve (e.g.
# interop/servers/node/, after interop/setup.sh's interop_setup_node_servers).
#
#   bash scripts/tsc-check.sh [FILE.mjs ...]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TSC="$ROOT/bindings-node/node_modules/.bin/tsc"
if [ ! -x "$TSC" ]; then
  (cd "$ROOT/bindings-node" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
if [ $# -eq 0 ]; then
  set -- "$ROOT/interop/servers/node/sdk_server.mjs" "$ROOT/bindings-node/examples/server.mjs"
fi
# skipLibCheck: the SDK's own .d.ts files are not ours to check; ours are
# checked where the checked code uses them.
exec "$TSC" --strict --noEmit --allowJs --checkJs --module nodenext --moduleResolution nodenext \
  --target es2022 --skipLibCheck --types node --typeRoots "$ROOT/bindings-node/node_modules/@types" \
  --pretty false "$@"
