#!/usr/bin/env bash
# The two examples people copy, bindings-python/examples/server.py (uvicorn,
# Starlette) and bindings-node/examples/server.mjs (node:http), each over
# stdio and HTTP: the official TypeScript client pinned to 2026-07-28 and
# with its default options (a 2025 session), and the official Python client
# on 2026-07-28 and in mode="legacy", run preferred_color (accepted,
# declined) and book_room (booked once; on 2026 the same final round again
# gets the same booking, other answers are refused as replayed) and report
# in the request (an MRTR round, or elicitation/create on a 2025 session); the
# official ext-tasks package's client helpers run report as a task (its
# question on tasks/get, the answer by tasks/update); then the HTTP edge (tests/edge/run.py) against each over HTTP. The runners are the
# interop ones, with the server kinds python-example and node-example.
#
# Summaries: target/interop/<suite>-<python|node>-example-<transport>[-legacy].json;
# any missing, empty or failing one fails, and so does an example past 250
# lines or a Python example that mypy --strict refuses.
# SNODO_EXAMPLES_SKIP_SETUP=1 skips the builds (a rerun on a set-up tree).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh

OUT=target/interop
mkdir -p "$OUT"
rm -f "$OUT"/*-example-*.json  # only this run's summaries count

if [ "${SNODO_EXAMPLES_SKIP_SETUP:-0}" != 1 ]; then
  interop_setup_node_server
  interop_setup_python_server
fi
[ -d interop/official_client/node_modules ] || interop_setup_npm official_client
export SNODO_INTEROP_PYTHON="${SNODO_INTEROP_PYTHON:-$PWD/target/interop/venv/bin/python}"
PY="$SNODO_INTEROP_PYTHON"

status=0
run() {
  echo "-- $*"
  "$@" || status=1
}
for server in python-example node-example; do
  for transport in stdio http; do
    interop_log "official TypeScript client (2026-07-28 pin): $server over $transport"
    run node interop/official_client/run.mjs --server "$server" --transport "$transport"
    interop_log "official TypeScript client (default options: a 2025 session): $server over $transport"
    run node interop/official_client/run.mjs --server "$server" --transport "$transport" --negotiation default
    interop_log "official Python client (mode 2026-07-28): $server over $transport"
    run "$PY" -m pytest -q -p no:cacheprovider interop/python_client --server "$server" --transport "$transport"
    interop_log "official Python client (mode=legacy: a 2025 session): $server over $transport"
    run "$PY" -m pytest -q -p no:cacheprovider interop/python_client \
      --server "$server" --transport "$transport" --era legacy
    interop_log "report as a task, judged by the official ext-tasks client helpers: $server over $transport"
    run node interop/official_client/tasks.mjs --server "$server" --transport "$transport"
  done
done

interop_log "the HTTP edge of both examples"
export SNODO_EDGE_SKIP_SETUP=1
run bash scripts/test-edge.sh python-example node-example

interop_log "summaries"
names=()
for server in python-example node-example; do
  for transport in stdio http; do
    names+=("official_client-$server-$transport.json" "official_client_default-$server-$transport.json"
            "python_client-$server-$transport.json" "python_client-$server-$transport-legacy.json"
            "tasks-ext-$server-$transport.json")
  done
done
"$PY" interop/check_summaries.py "$OUT" "${names[@]}" || status=1

# The Python example type-checks as it is (mypy --strict, with uvicorn's and Starlette's own types
# from the interop venv; mypy from the tools venv that interop_setup_python_server makes).
interop_log "mypy --strict bindings-python/examples/server.py"
run "$PWD/.venv/bin/python" -m mypy --strict --no-incremental --cache-dir "$OUT/mypy-cache" \
  --python-executable "$PY" bindings-python/examples/server.py

# What people copy stays one screen or two.
for example in bindings-python/examples/server.py bindings-node/examples/server.mjs; do
  lines=$(wc -l <"$example")
  if [ "$lines" -gt 250 ]; then
    echo "examples: FAIL: $example has $lines lines (at most 250)" >&2
    status=1
  fi
done
exit "$status"
