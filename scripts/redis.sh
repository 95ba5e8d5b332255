# A throwaway Redis for the test suites. Source it, don't run it:
#
#   source scripts/redis.sh
#   redis_ensure_installed          # apt-get installs redis-server if missing
#   redis_start                     # free loopback port, no persistence
#   trap redis_stop EXIT            # or call redis_stop yourself
#   ... tests read SNODO_REDIS_URL=redis://127.0.0.1:<port>/ ...
#
# Every function fails loudly (non-zero, message on stderr): a suite that
# needs Redis and cannot have it fails, it never skips. redis_stop is safe
# to call twice, or when nothing was started, so it can sit in a trap.
# The server runs with --save '' --appendonly no: nothing survives a
# restart, which is what the "Redis restarted empty" scenario relies on.

SNODO_REDIS_PID="${SNODO_REDIS_PID:-}"
SNODO_REDIS_PORT="${SNODO_REDIS_PORT:-}"

# Installs redis-server (and redis-cli) from Debian packages when missing.
redis_ensure_installed() {
  if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
    return 0
  fi
  echo "redis.sh: redis-server missing; installing it from Debian packages" >&2
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "redis.sh: FAIL: no redis-server and no apt-get to install it" >&2
    return 1
  fi
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; } >&2; then
    echo "redis.sh: FAIL: apt-get could not install redis-server" >&2
    return 1
  fi
  command -v redis-server >/dev/null 2>&1 || { echo "redis.sh: FAIL: redis-server still missing" >&2; return 1; }
}

# A free loopback TCP port (the kernel picks it; a tiny race with another
# process is possible, and redis_start then fails loudly).
redis_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Starts redis-server on a free loopback port (or on $1 if given, e.g. to
# restart on the same port), waits until it answers PING, and exports
# SNODO_REDIS_URL, SNODO_REDIS_PORT and SNODO_REDIS_PID.
redis_start() {
  local port="${1:-}"
  [ -n "$port" ] || port="$(redis_free_port)" || { echo "redis.sh: FAIL: no free port" >&2; return 1; }
  local log="${TMPDIR:-/tmp}/snodo-redis-$port.log"
  redis-server --save '' --appendonly no --bind 127.0.0.1 --port "$port" --daemonize no \
    --protected-mode yes >"$log" 2>&1 &
  SNODO_REDIS_PID=$!
  SNODO_REDIS_PORT="$port"
  local i
  for i in $(seq 1 100); do
    if [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = "PONG" ]; then
      export SNODO_REDIS_URL="redis://127.0.0.1:$port/" SNODO_REDIS_PORT SNODO_REDIS_PID
      echo "redis.sh: redis-server $SNODO_REDIS_PID on 127.0.0.1:$port" >&2
      return 0
    fi
    if ! kill -0 "$SNODO_REDIS_PID" 2>/dev/null; then
      break
    fi
    sleep 0.05
  done
  echo "redis.sh: FAIL: redis-server on port $port did not answer PING; its log:" >&2
  cat "$log" >&2 || true
  redis_stop
  return 1
}

# Stops the server redis_start started (by its pid) and waits for it.
redis_stop() {
  if [ -n "${SNODO_REDIS_PID:-}" ]; then
    kill "$SNODO_REDIS_PID" 2>/dev/null || true
    wait "$SNODO_REDIS_PID" 2>/dev/null || true
    SNODO_REDIS_PID=""
  fi
  return 0
}

# A throwaway 3-master Redis Cluster on free loopback ports (no replicas,
# no persistence), for the once store's cluster runs:
#
#   redis_cluster_start             # exports SNODO_REDIS_CLUSTER_URLS
#   redis_cluster_start P1 P2 P3    # the same, on these ports (a restart)
#   trap redis_cluster_stop EXIT
#
# SNODO_REDIS_CLUSTER_URLS is the seed nodes as comma-separated
# redis://127.0.0.1:<port>/ URLs; clients discover the slots from any one.
SNODO_REDIS_CLUSTER_PIDS="${SNODO_REDIS_CLUSTER_PIDS:-}"
SNODO_REDIS_CLUSTER_DIR="${SNODO_REDIS_CLUSTER_DIR:-}"

# A free port for a cluster node: at most 55535, with its cluster bus port
# (the port + 10000) free too.
redis_cluster_free_port() {
  python3 - <<'PY'
import random, socket
def free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()
for _ in range(1000):
    port = random.randint(20000, 55535)
    if free(port) and free(port + 10000):
        print(port)
        break
else:
    raise SystemExit("no free port pair")
PY
}

redis_cluster_start() {
  SNODO_REDIS_CLUSTER_DIR="$(mktemp -d "${TMPDIR:-/tmp}/snodo-redis-cluster.XXXXXX")"
  local ports=() pids=() port i
  for i in 1 2 3; do
    port="${!i:-}"
    [ -n "$port" ] || port="$(redis_cluster_free_port)" || { echo "redis.sh: FAIL: no free port" >&2; return 1; }
    ports+=("$port")
    (cd "$SNODO_REDIS_CLUSTER_DIR" && exec redis-server --save '' --appendonly no --bind 127.0.0.1 \
      --port "$port" --daemonize no --protected-mode yes --cluster-enabled yes \
      --cluster-config-file "nodes-$port.conf" --cluster-node-timeout 2000 \
      >"$SNODO_REDIS_CLUSTER_DIR/$port.log" 2>&1) &
    pids+=("$!")
  done
  SNODO_REDIS_CLUSTER_PIDS="${pids[*]}"
  for port in "${ports[@]}"; do
    for i in $(seq 1 100); do
      [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = "PONG" ] && break
      sleep 0.05
    done
    [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = "PONG" ] || {
      echo "redis.sh: FAIL: cluster node $port did not answer PING; its log:" >&2
      cat "$SNODO_REDIS_CLUSTER_DIR/$port.log" >&2 || true
      redis_cluster_stop
      return 1
    }
  done
  local nodes=()
  for port in "${ports[@]}"; do nodes+=("127.0.0.1:$port"); done
  if ! redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$SNODO_REDIS_CLUSTER_DIR/create.log" 2>&1; then
    echo "redis.sh: FAIL: redis-cli --cluster create failed:" >&2
    cat "$SNODO_REDIS_CLUSTER_DIR/create.log" >&2
    redis_cluster_stop
    return 1
  fi
  # Every node must see all 16384 slots served before a client connects.
  for port in "${ports[@]}"; do
    for i in $(seq 1 200); do
      redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' && break
      sleep 0.05
    done
    redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' ||
      { echo "redis.sh: FAIL: cluster node $port never reached cluster_state:ok" >&2; redis_cluster_stop; return 1; }
  done
  local urls=()
  for port in "${ports[@]}"; do urls+=("redis://127.0.0.1:$port/"); done
  SNODO_REDIS_CLUSTER_URLS="$(IFS=,; echo "${urls[*]}")"
  export SNODO_REDIS_CLUSTER_URLS SNODO_REDIS_CLUSTER_PIDS SNODO_REDIS_CLUSTER_DIR
  echo "redis.sh: a 3-master Redis Cluster on ${nodes[*]}" >&2
}

redis_cluster_stop() {
  local pid
  for pid in ${SNODO_REDIS_CLUSTER_PIDS:-}; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  SNODO_REDIS_CLUSTER_PIDS=""
  [ -n "${SNODO_REDIS_CLUSTER_DIR:-}" ] && rm -rf "$SNODO_REDIS_CLUSTER_DIR"
  SNODO_REDIS_CLUSTER_DIR=""
  return 0
}
