#!/usr/bin/env bash
# The fleet scenarios (interop/fleet/run.py): four contract servers, two
# Python (interop/servers/python/server.py) and two Node
# (interop/servers/node/server.mjs), share keys and one real Redis;
# book_room's effect goes through the once machine. Run twice: on a single
# Redis, then on a 3-master Redis Cluster. Each run: the same final retry
# sent to all four at once, 200 flows: exactly one ledger entry each,
# identical answers; a retry after a lost response; a replayed token with
# other answers; a completed flow driven on through new tokens; two tokens
# of one flow racing; a late release after a takeover; a dropped connection
# mid-flight; Redis stopped mid-run (errors, no booking, no crash), then
# restarted on the same ports (the failed flows book exactly once, on all
# four). Fails, never skips, when Redis cannot be installed or started.
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
# The Node servers' packages (node-redis among them; npm ci, no build): also on a rerun, when missing.
[ -d interop/servers/node/node_modules ] || interop_setup_node_servers
PY="${SNODO_INTEROP_PYTHON:-$PWD/target/interop/venv/bin/python}"
interop_log "fleet: redis-py for the Python servers (interop/fleet/requirements.txt)"
"$PY" -m pip install -q --disable-pip-version-check -r interop/fleet/requirements.txt
redis_ensure_installed

WORK=$(mktemp -d)
SERVER_PIDS=()
stop_servers() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  SERVER_PIDS=()
}
cleanup() {
  stop_servers
  redis_stop
  redis_cluster_stop
  rm -rf "$WORK"
}
trap cleanup EXIT

# Throwaway test keys: every process signs and opens the same tokens.
export SNODO_KEYS="fleet:$(printf '17%.0s' $(seq 1 32))"
export SNODO_FLEET_STATE="$WORK/state.json"

# Starts one server on a free port; appends kind:port to SERVERS.
SERVERS=""
start_server() {
  local kind=$1 log="$WORK/$MODE-$1-${#SERVER_PIDS[@]}.log" port="" i
  : >"$log"  # exists before the background process opens it: read below at once
  if [ "$kind" = python ]; then
    "$PY" interop/servers/python/server.py --http 0 2>"$log" &
  else
    node interop/servers/node/server.mjs --http 0 2>"$log" &
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

status=0
all_alive() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "fleet: FAIL: server process $pid died; logs:" >&2
      tail -n 20 "$WORK"/"$MODE"-*.log >&2
      status=1
    fi
  done
}
# Each phase prints one summary line per scenario ("fleet: <scenario>: ok: ..." or FAILED).
phase() {
  timeout 180 "$PY" interop/fleet/run.py "$1" | sed "s/^fleet: /fleet: [$MODE] /" | tee -a "$WORK/summary.txt" ||
    status=1
  all_alive
}

# Redis for one run: a single server, or a cluster, started (again on the
# same ports after the outage) and stopped.
redis_up() {
  if [ "$MODE" = single ]; then
    redis_start ${1:-}
    unset SNODO_REDIS_CLUSTER_URLS
    export SNODO_REDIS_PORT SNODO_REDIS_URL
  else
    redis_cluster_start ${1:-}
    unset SNODO_REDIS_URL
    SNODO_REDIS_PORT=$(echo "$SNODO_REDIS_CLUSTER_URLS" | sed 's|^redis://127\.0\.0\.1:\([0-9]*\)/.*|\1|')
    export SNODO_REDIS_PORT
  fi
}
redis_down() {
  if [ "$MODE" = single ]; then redis_stop; else redis_cluster_stop; fi
}
redis_ports() {
  if [ "$MODE" = single ]; then echo "$SNODO_REDIS_PORT"; else
    echo "$SNODO_REDIS_CLUSTER_URLS" | tr ',' '\n' | sed 's|^redis://127\.0\.0\.1:\([0-9]*\)/.*|\1|' | tr '\n' ' '
  fi
}

fleet_run() {
  MODE=$1
  export SNODO_FLEET_REDIS=$MODE
  local start=$SECONDS ports
  redis_up
  SERVERS=""
  for kind in python python node node; do start_server "$kind"; done
  export SNODO_FLEET_SERVERS="$SERVERS"
  interop_log "fleet [$MODE]: servers $SERVERS, redis on port(s) $(redis_ports)"

  phase shared
  interop_log "fleet [$MODE]: stopping Redis mid-run, flows in flight"
  timeout 120 "$PY" interop/fleet/run.py storm >"$WORK/storm.txt" &
  local storm=$!
  sleep 1
  ports=$(redis_ports)
  redis_down
  wait "$storm" || status=1
  sed "s/^fleet: /fleet: [$MODE] /" "$WORK/storm.txt" | tee -a "$WORK/summary.txt"
  all_alive
  phase outage
  interop_log "fleet [$MODE]: Redis back on port(s) $ports"
  # shellcheck disable=SC2086
  redis_up $ports
  phase resumed
  local elapsed=$((SECONDS - start))
  echo "fleet [$MODE]: scenarios took ${elapsed} s"
  if [ "$elapsed" -gt 90 ]; then
    echo "fleet [$MODE]: FAIL: the scenarios took ${elapsed} s (bound: 90 s)" >&2
    status=1
  fi
  if [ "$status" -ne 0 ]; then
    echo "fleet [$MODE]: server logs:" >&2
    tail -n 30 "$WORK"/"$MODE"-*.log >&2
  fi
  stop_servers
  redis_down
}

fleet_run single
fleet_run cluster

# Ten scenario lines are expected per run (a, b, c, e, f, g, h, and d: mid-run,
# stopped, restarted): one missing is a failure.
passed=$(grep -cE '^fleet: \[(single|cluster)\] [a-h]\. .*: ok: ' "$WORK/summary.txt" || true)
[ "$passed" -eq 20 ] || status=1
echo "fleet: $passed passed, $((20 - passed)) failed"
exit "$status"
