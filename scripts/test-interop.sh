#!/usr/bin/env bash
# Interop: the official MCP TypeScript client, the official Python
# client, the official conformance suite and the Tasks extension checks
# (interop/tasks/run.mjs, and interop/official_client/tasks.mjs with the
# official ext-tasks package's client helpers) against both contract servers
# (interop/servers/python/server.py, interop/servers/node/server.mjs; they
# serve interop/CONTRACT.md).
#
# Every suite writes target/interop/<suite>-<server>-<transport>.json; this
# script fails when any expected summary is missing, empty, or records a
# failure, so a suite that silently did not run can never pass. Conformance:
# any WARNING or SKIPPED check in an input-required-result-* or tasks-*
# scenario fails (checked here again, not only in run.mjs); server-stateless's
# skipped checks are reported as skipped by design, apart from the passes.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh

OUT=target/interop
mkdir -p "$OUT"
rm -f "$OUT"/*.json  # only this run's summaries count

interop_setup_node_server
interop_setup_node_servers
interop_setup_python_server
interop_setup_npm official_client
interop_setup_npm conformance

status=0
run() {
  echo "-- $*"
  "$@" || status=1
}
for server in python node; do
  for transport in stdio http; do
    interop_log "official TypeScript client: $server server over $transport"
    run node interop/official_client/run.mjs --server "$server" --transport "$transport"
    interop_log "official Python client: $server server over $transport"
    run "$SNODO_INTEROP_PYTHON" -m pytest -q -p no:cacheprovider interop/python_client \
      --server "$server" --transport "$transport"
    interop_log "official TypeScript client, default options (2025 handshake, legacy bridge): $server server over $transport"
    run node interop/official_client/legacy.mjs --server "$server" --transport "$transport"
    interop_log "official Python client, 2025 handshake (legacy bridge): $server server over $transport"
    run "$SNODO_INTEROP_PYTHON" -m pytest -q -p no:cacheprovider interop/python_client \
      --server "$server" --transport "$transport" --era legacy
  done
  interop_log "conformance suite: $server server over http"
  run node interop/conformance/run.mjs --server "$server"
  interop_log "conformance suite, Tasks extension scenarios: $server server over http"
  run node interop/conformance/run.mjs --server "$server" --tasks
  interop_log "Tasks extension rules (interop/tasks/run.mjs): $server server over http"
  run node interop/tasks/run.mjs --server "$server"
  for transport in stdio http; do
    interop_log "a task with an input phase, judged by the official ext-tasks client helpers: $server over $transport"
    run node interop/official_client/tasks.mjs --server "$server" --transport "$transport"
  done
done

# The Python contract server type-checks (mypy from the tools venv that
# interop_setup_python_server makes, the packages of the interop venv).
interop_log "mypy --strict interop/servers/python/server.py"
run "$PWD/.venv/bin/python" -m mypy --strict --no-incremental --cache-dir "$OUT/mypy-cache" \
  --python-executable "$SNODO_INTEROP_PYTHON" interop/servers/python/server.py

interop_log "summaries"
# The 2026 suites, then the 2025-era runs (the official Python client forced
# to the initialize handshake; the official TypeScript client with default
# options). One checker for every suite: interop/check_summaries.py.
names=()
for server in python node; do
  names+=("official_client-$server-stdio.json" "official_client-$server-http.json"
          "python_client-$server-stdio.json" "python_client-$server-http.json"
          "conformance-$server-http.json" "conformance-tasks-$server-http.json" "tasks-$server-http.json"
          "tasks-ext-$server-stdio.json" "tasks-ext-$server-http.json")
done
for server in python node; do
  for transport in stdio http; do
    names+=("python_client-$server-$transport-legacy.json" "official_client-$server-$transport-legacy.json")
  done
done
"$SNODO_INTEROP_PYTHON" interop/check_summaries.py "$OUT" "${names[@]}" || status=1

exit "$status"
