#!/usr/bin/env bash
# Interop inside the official SDKs: the contract servers built on the
# official SDK server classes with snodo doing every MRTR decision —
# interop/servers/python/sdk_server.py (`mcp` 2.3.0 MCPServer),
# interop/servers/node/sdk_server.mjs (@modelcontextprotocol/server 2.4.0
# McpServer), interop/servers/python/fastmcp_server.py (FastMCP 4.2.3, on
# mcp 2.3.0, kind `fastmcp`) and integrations/rmcp/examples/contract_server.rs
# (rmcp 3.11 through snodo-rmcp, kind `rust-sdk`) — against the official TypeScript client (pinned to 2026-07-28,
# and with its default options: a 2025-era session), the official Python
# client (mode 2026-07-28, and mode=legacy) and the conformance suite.
#
# The SDKs come from the repository's own pins: `mcp` from
# interop/python_client/requirements.txt, FastMCP from
# interop/servers/python/requirements-fastmcp.txt, @modelcontextprotocol/server from
# interop/servers/node/package-lock.json (the version bindings-node pins). Summaries: target/interop/<suite>-<python-sdk|node-sdk|fastmcp>-<transport>.json;
# any missing, empty or failing summary fails, and so does any WARNING or
# SKIPPED check in an input-required-result-* scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh

OUT=target/interop
mkdir -p "$OUT"
rm -f "$OUT"/*-sdk-*.json "$OUT"/*-fastmcp-*.json  # only this run's SDK summaries count

interop_setup_node_server
interop_setup_node_servers
interop_setup_python_server
interop_setup_npm official_client
interop_setup_npm conformance
# The contract server on rmcp (kind rust-sdk): a binary of the snodo-rmcp crate.
interop_log "build: the rmcp contract server (integrations/rmcp/examples/contract_server.rs)"
cargo build --locked --release -p snodo-rmcp --example contract_server

status=0
run() {
  echo "-- $*"
  "$@" || status=1
}
# The adapters in process (they need the mcp and fastmcp extras, hence here and not in test-python.sh).
interop_log "snodo_mrtr.mcp and snodo_mrtr.fastmcp in process (bindings-python/tests_sdk)"
run "$SNODO_INTEROP_PYTHON" -m pytest -q -p no:cacheprovider bindings-python/tests_sdk
# The adapter and the SDK contract server type-check as they are: mypy --strict (from the tools
# venv interop_setup_python_server makes) with the SDK's own types from the interop venv. The
# modules the adapter imports are followed silently: the rest of the package (once.py needs
# redis-py's types) is scripts/test-python.sh's.
interop_log "mypy --strict snodo_mrtr/{mcp,fastmcp}.py and interop/servers/python/{sdk,fastmcp}_server.py"
for checked in bindings-python/python/snodo_mrtr/mcp.py interop/servers/python/sdk_server.py \
  bindings-python/python/snodo_mrtr/fastmcp.py interop/servers/python/fastmcp_server.py; do
  run "$PWD/.venv/bin/python" -m mypy --strict --no-incremental --follow-imports=silent \
    --cache-dir "$OUT/mypy-cache-sdk" --python-executable "$SNODO_INTEROP_PYTHON" "$checked"
done
for server in python-sdk node-sdk fastmcp rust-sdk; do
  for transport in stdio http; do
    interop_log "official TypeScript client (2026-07-28 pin): $server server over $transport"
    run node interop/official_client/run.mjs --server "$server" --transport "$transport"
    interop_log "official Python client: $server server over $transport"
    run "$SNODO_INTEROP_PYTHON" -m pytest -q -p no:cacheprovider interop/python_client \
      --server "$server" --transport "$transport"
  done
  interop_log "conformance suite: $server server over http"
  run node interop/conformance/run.mjs --server "$server"
done
# 2025-era sessions: the Node SDK server through the TS SDK's legacy shim, the
# Python SDK and FastMCP servers through snodo_mrtr.mcp driving the core's legacy
# bridge over the SDK session's back-channel (ServerSession.send_request), the
# rmcp server through snodo-rmcp driving it over rmcp's peer handle.
for server in python-sdk node-sdk fastmcp rust-sdk; do
  for transport in stdio http; do
    interop_log "official TypeScript client (default options: a 2025 session): $server server over $transport"
    run node interop/official_client/run.mjs --server "$server" --transport "$transport" --negotiation default
    interop_log "official Python client (mode=legacy: a 2025 session): $server server over $transport"
    run "$SNODO_INTEROP_PYTHON" -m pytest -q -p no:cacheprovider interop/python_client \
      --server "$server" --transport "$transport" --era legacy
  done
done

interop_log "summaries"
# The four SDK servers: the 2026 suites, the official TypeScript client with
# default options and the official Python client on a 2025 session. Same
# checker as test-interop.sh.
names=()
for server in python-sdk node-sdk fastmcp rust-sdk; do
  names+=("official_client-$server-stdio.json" "official_client-$server-http.json"
          "python_client-$server-stdio.json" "python_client-$server-http.json"
          "conformance-$server-http.json"
          "official_client_default-$server-stdio.json" "official_client_default-$server-http.json"
          "python_client-$server-stdio-legacy.json" "python_client-$server-http-legacy.json")
done
"$SNODO_INTEROP_PYTHON" interop/check_summaries.py "$OUT" "${names[@]}" || status=1

exit "$status"
