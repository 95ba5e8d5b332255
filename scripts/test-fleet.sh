#!/usr/bin/env bash
# The fleet scenarios of issue 17 (tests/fleet/run.py): four example servers,
# two Python (server.py) and two Node (server.mjs), share keys and one real
# Redis; book_room's final round goes through consume-once. The same final
# retry sent to all four at once, 200 flows: exactly one ledger entry each,
# identical answers; a retry after a lost response; a replayed token with
# other answers; Redis stopped mid-run (errors, no booking, no crash), then
# restarted on the same port (the failed flows book exactly once, on all four).
# Fails, never skips, when Redis cannot be installed or started.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh
# shellcheck source=redis.sh
source scripts/redis.sh

if [ "${SNODO_FLEET_SKIP_SETUP:-0}" != 1 ]; then  # for a rerun on an already set-up tree
  interop_setup_node_server
  interop_setup_python_server
fi
PY="${SNODO_INTEROP_PYTHON:-$PWD/target/interop/venv/bin/python}"
interop_log "fleet: redis-py for the Python servers (tests/fleet/requirements.txt)"
"$PY" -m pip install -q --disable-pip-version-check -r tests/fleet/requirements.txt
redis_ensure_installed

WORK=$(mktemp -d)
SERVER_PIDS=()
cleanup() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  redis_stop
  rm -rf "$WORK"
}
trap cleanup EXIT

redis_start
start=$SECONDS
# Throwaway test keys: every process signs and opens the same tokens.
export SNODO_KEYS="fleet:$(printf '17%.0s' $(seq 1 32))"
export SNODO_FLEET_STATE="$WORK/state.json"

# Starts one server on a free port; appends kind:port to SERVERS.
SERVERS=""
start_server() {
  local kind=$1 log="$WORK/$1-${#SERVER_PIDS[@]}.log" port="" i
  : >"$log"  # exists before the background process opens it: read below at once
  if [ "$kind" = python ]; then
    "$PY" bindings-python/examples/server.py --http 0 2>"$log" &
  else
    node bindings-node/examples/server.mjs --http 0 2>"$log" &
  fi
  SERVER_PIDS+=($!)
  for i in $(seq 1 400); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$log" | head -n1)
    [ -n "$port" ] && break
    kill -0 "${SERVER_PIDS[-1]}" 2>/dev/null || break
    sleep 0.05
  done
  if [ -z "$port" ]; then
    echo "fleet: FAIL: the $kind server did not start; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
  SERVERS="${SERVERS:+$SERVERS,}$kind:$port"
}
for kind in python python node node; do start_server "$kind"; done
export SNODO_FLEET_SERVERS="$SERVERS"
interop_log "fleet: servers $SERVERS, redis on port $SNODO_REDIS_PORT"

status=0
all_alive() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "fleet: FAIL: server process $pid died; logs:" >&2
      tail -n 20 "$WORK"/*.log >&2
      status=1
    fi
  done
}
# Each phase prints one summary line per scenario ("fleet: <scenario>: ok: ..." or FAILED).
phase() {
  timeout 120 "$PY" tests/fleet/run.py "$1" | tee -a "$WORK/summary.txt" || status=1
  all_alive
}

phase shared
interop_log "fleet: stopping Redis mid-run, flows in flight"
timeout 120 "$PY" tests/fleet/run.py storm >"$WORK/storm.txt" &
storm=$!
sleep 1
redis_stop
wait "$storm" || status=1
cat "$WORK/storm.txt" | tee -a "$WORK/summary.txt"
all_alive
phase outage
interop_log "fleet: Redis back on port $SNODO_REDIS_PORT"
redis_start "$SNODO_REDIS_PORT"
phase resumed

elapsed=$((SECONDS - start))
echo "fleet: scenarios took ${elapsed} s"
if [ "$elapsed" -gt 90 ]; then
  echo "fleet: FAIL: the scenarios took ${elapsed} s (bound: 90 s)" >&2
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "fleet: server logs:" >&2
  tail -n 30 "$WORK"/*.log >&2
fi
# Six scenario lines are expected (a, b, c, and d: mid-run, stopped, restarted): one missing
# is a failure.
passed=$(grep -c '^fleet: [a-d]\. .*: ok: ' "$WORK/summary.txt" || true)
[ "$passed" -eq 6 ] || status=1
echo "fleet: $passed passed, $((6 - passed)) failed"
exit "$status"
