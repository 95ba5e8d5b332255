#!/usr/bin/env bash
# Load and fault scenarios against both contract servers over HTTP
# (interop/servers/python/server.py, interop/servers/node/server.mjs):
# 64 keep-alive clients running two-round flows with bearer principals, a
# restart between rounds, a key rotation under load, 1 000 disconnects, clock
# skew between hosts, and oversized / slow-drip / garbage input. Bounded: the
# scenarios take well under 60 s on a 2-core machine.
#
# The servers need the snodo-mrtr wheel, the Node addon and the Node
# servers' packages: built and installed the same way as for the interop
# suites (interop/setup.sh). The load generator itself is standard-library
# Python (interop/load/).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh

if [ "${SNODO_LOAD_SKIP_SETUP:-0}" != 1 ]; then  # for a rerun on an already set-up tree
  interop_setup_node_server
  interop_setup_python_server
fi
# The Node servers' packages (npm ci, no build): also on a rerun, as they may be missing.
[ -d interop/servers/node/node_modules ] || interop_setup_node_servers
export SNODO_LOAD_PYTHON="${SNODO_INTEROP_PYTHON:-$PWD/target/interop/venv/bin/python}"
# The clock-skew scenario runs servers whose host clock is off: Debian's
# faketime (libfaketime) shifts it, so no server needs a clock setting.
if ! command -v faketime >/dev/null 2>&1; then
  echo "load: faketime missing; installing it from Debian packages" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime; } >&2 ||
    { echo "load: FAIL: apt-get could not install faketime" >&2; exit 1; }
fi

interop_log "load and fault scenarios"
start=$SECONDS
timeout 300 "$SNODO_LOAD_PYTHON" interop/load/run.py test "$@"
echo "load: scenarios took $((SECONDS - start)) s"
