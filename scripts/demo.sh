#!/usr/bin/env bash
# `make demo`: builds what it needs (the snodo Node addon, or the Python wheel
# and the example's requirements with `--server python`), installs the
# official MCP TypeScript client from interop/official_client/package-lock.json,
# starts the example server (bindings-node/examples/server.mjs, or
# bindings-python/examples/server.py) over stdio and walks the client through
# its tools, printing every round: the request, the input_required result, the
# answers, the final result.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh

server=node
if [ "${1:-}" = "--server" ] && [ -n "${2:-}" ]; then server=$2; fi
case "$server" in
  node) interop_setup_node_server ;;
  python) interop_setup_python_server ;;
  *) echo "usage: scripts/demo.sh [--server node|python]" >&2; exit 2 ;;
esac
interop_setup_npm official_client
echo
node interop/official_client/demo.mjs --server "$server"
