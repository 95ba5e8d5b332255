#!/usr/bin/env bash
# Builds and installs what the interop, example, edge, load and fleet suites
# and the demo need, from the package registries only, pinned by the
# lockfiles and requirement files in the repository. Sourced by the
# scripts/test-*.sh that start servers, and by scripts/demo.sh.
#
#   interop_setup_node_server     the snodo-mrtr addon (bindings-node), which the Node servers import
#   interop_setup_python_server   the snodo-mrtr wheel, the official Python client, FastMCP and the
#                                 Python example's requirements in target/interop/venv (sets SNODO_INTEROP_PYTHON)
#   interop_setup_node_servers    the Node contract servers' packages (interop/servers/node:
#                                 snodo-mrtr linked from bindings-node, the TS SDK server, node-redis)
#   interop_setup_npm DIR         npm ci --ignore-scripts in interop/DIR

interop_log() { printf '\n== interop: %s (%ss)\n' "$1" "$SECONDS"; }

interop_setup_node_server() {
  interop_log "build the Node addon (bindings-node)"
  (cd bindings-node && npm ci --no-audit --no-fund --loglevel=error)
  # Same flags as scripts/test-node.sh, so the generated files do not drift.
  # Never --use-napi-cross / --cross-compile: they download toolchains.
  (cd bindings-node && npx napi build --platform --release --no-const-enum --runtime-string-enum)
}

interop_setup_python_server() {
  local root=$PWD tools="$PWD/.venv" venv="$PWD/target/interop/venv"
  interop_log "build the Python wheel (bindings-python)"
  [ -x "$tools/bin/python" ] || python3 -m venv "$tools"
  "$tools/bin/python" -m pip install -q --disable-pip-version-check -r bindings-python/requirements-test.txt
  # One interpreter for every pyo3 build, as scripts/test-python.sh does: no rebuild thrash.
  export PYO3_PYTHON="$tools/bin/python"
  rm -rf target/interop/wheels
  "$tools/bin/maturin" build --release --locked -m bindings-python/Cargo.toml -i "$tools/bin/python" \
    --out target/interop/wheels
  interop_log "venv: the wheel, the official Python client and the Python example's requirements"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r interop/python_client/requirements.txt \
    -r bindings-python/examples/requirements.txt -r interop/servers/python/requirements-fastmcp.txt
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
    target/interop/wheels/snodo_mrtr-*.whl
  export SNODO_INTEROP_PYTHON="$venv/bin/python"
  cd "$root"
}

# --ignore-scripts: the linked snodo-mrtr's own install script would build the
# addon with cargo; interop_setup_node_server has built it already.
interop_setup_node_servers() {
  interop_setup_npm servers/node
}

interop_setup_npm() {
  interop_log "npm ci interop/$1"
  (cd "interop/$1" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
}
