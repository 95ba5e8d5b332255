#!/usr/bin/env bash
# The HTTP edge (tests/edge/run.py): a hostile page's Origin, the
# DNS-rebinding shape, a stolen 2025 session id and a user's 17th session
# are refused; plain loopback and same-origin requests keep working. Each server runs with its
# defaults (the loopback policy) and throwaway keys.
#
#   bash scripts/test-edge.sh [KIND...]
#
# KIND: python, python-sdk, fastmcp, node, node-sdk, rust-sdk (the contract servers, the
# default) or python-example, node-example (the examples; scripts/test-examples.sh
# runs those). SNODO_EDGE_SKIP_SETUP=1 skips the builds (for a caller that
# has set things up, or a rerun).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh

KINDS=("$@")
[ "${#KINDS[@]}" -gt 0 ] || KINDS=(python python-sdk fastmcp node node-sdk rust-sdk)
if [ "${SNODO_EDGE_SKIP_SETUP:-0}" != 1 ]; then
  interop_setup_node_server
  interop_setup_node_servers
  interop_setup_python_server
  cargo build --locked --release -p snodo-rmcp --example contract_server
fi
PY="${SNODO_INTEROP_PYTHON:-$PWD/target/interop/venv/bin/python}"
export SNODO_KEYS="edge:$(printf '37%.0s' $(seq 1 32))"

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Starts one server on a free port and records its port. One command line
# per kind, the same as interop/lib/servers.mjs.
start() {
  local kind=$1 log="$WORK/$1.log" port="" i
  : >"$log"
  case "$kind" in
    python) "$PY" interop/servers/python/server.py --http 0 2>"$log" & ;;
    python-sdk) "$PY" interop/servers/python/sdk_server.py --http 0 2>"$log" & ;;
    fastmcp) "$PY" interop/servers/python/fastmcp_server.py --http 0 2>"$log" & ;;
    rust-sdk) target/release/examples/contract_server --http 0 2>"$log" & ;;
    node) node interop/servers/node/server.mjs --http 0 2>"$log" & ;;
    node-sdk) node interop/servers/node/sdk_server.mjs --http 0 2>"$log" & ;;
    python-example) "$PY" bindings-python/examples/server.py --http 0 2>"$log" & ;;
    node-example) node bindings-node/examples/server.mjs --http 0 2>"$log" & ;;
    *) echo "edge: unknown server kind $kind" >&2; exit 2 ;;
  esac
  PIDS+=($!)
  for i in $(seq 1 400); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$log" | head -n1)
    [ -n "$port" ] && break
    sleep 0.05
  done
  if [ -z "$port" ]; then
    echo "edge: FAIL: the $kind server did not start; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
  PORTS[$kind]=$port
}

declare -A PORTS
status=0
: >"$WORK/summary.txt"
for kind in "${KINDS[@]}"; do start "$kind"; done
for kind in "${KINDS[@]}"; do
  interop_log "edge: $kind on port ${PORTS[$kind]}"
  timeout 120 "$PY" tests/edge/run.py "$kind" "${PORTS[$kind]}" | tee -a "$WORK/summary.txt" || status=1
done
passed=$(grep -c '^edge: .*: ok: ' "$WORK/summary.txt" || true)
if [ "$status" -ne 0 ]; then
  echo "edge: server logs:" >&2
  tail -n 20 "$WORK"/*.log >&2
fi
[ "$passed" -eq "${#KINDS[@]}" ] || status=1
echo "edge: $passed of ${#KINDS[@]} servers passed"
exit "$status"
