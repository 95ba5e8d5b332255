#!/usr/bin/env bash
# The HTTP edge on every example server (tests/edge/run.py): a hostile page's
# Origin, the DNS-rebinding shape and a stolen 2025 session id are refused by
# the two plain servers and the two on the official SDKs; plain loopback and
# same-origin requests keep working. Each server runs with its defaults (the
# loopback policy) and the same throwaway keys as the interop suites.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh

interop_setup_node_server
interop_setup_python_server
PY="$SNODO_INTEROP_PYTHON"
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

# Starts one server on a free port and prints the port.
start() {
  local kind=$1 log="$WORK/$1.log" port="" i
  : >"$log"
  case "$kind" in
    python) "$PY" bindings-python/examples/server.py --http 0 2>"$log" & ;;
    python-sdk) "$PY" bindings-python/examples/sdk_server.py --http 0 2>"$log" & ;;
    node) node bindings-node/examples/server.mjs --http 0 2>"$log" & ;;
    node-sdk) node bindings-node/examples/sdk_server.mjs --http 0 2>"$log" & ;;
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
for kind in python python-sdk node node-sdk; do start "$kind"; done
for kind in python python-sdk node node-sdk; do
  interop_log "edge: $kind on port ${PORTS[$kind]}"
  timeout 120 "$PY" tests/edge/run.py "$kind" "${PORTS[$kind]}" | tee -a "$WORK/summary.txt" || status=1
done
passed=$(grep -c '^edge: .*: ok: ' "$WORK/summary.txt" || true)
if [ "$status" -ne 0 ]; then
  echo "edge: server logs:" >&2
  tail -n 20 "$WORK"/*.log >&2
fi
[ "$passed" -eq 4 ] || status=1
echo "edge: $passed of 4 servers passed"
exit "$status"
