#!/usr/bin/env bash
# Every fenced block of the user docs (README.md, docs/*.md, the binding
# READMEs, interop/README.md) as a reader uses it: tests/docs/run.py runs
# each one, type-checks the Python and Node ones (mypy --strict, tsc
# --strict) and fails on a block nothing accounts for. Needs what the
# interop setup builds (the wheel with the mcp extra in target/interop/venv,
# the addon, the TS SDK) and a Redis for the once-store examples.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh
# shellcheck source=redis.sh
source scripts/redis.sh

interop_setup_node_server
interop_setup_node_servers
interop_setup_python_server
interop_setup_npm official_client
interop_setup_npm conformance
# redis-py for the Python once-store example (the version the tests pin).
"$SNODO_INTEROP_PYTHON" -m pip install -q --disable-pip-version-check -r interop/fleet/requirements.txt

redis_ensure_installed
redis_start
trap redis_stop EXIT

interop_log "tests/docs/run.py"
"$SNODO_INTEROP_PYTHON" tests/docs/run.py --python "$SNODO_INTEROP_PYTHON" --mypy "$PWD/.venv/bin/python" \
  --node-dir interop/servers/node --tsc "bash $PWD/scripts/tsc-check.sh"
