#!/usr/bin/env bash
# Interop inside the official SDKs (issue 15): the example servers built on
# the official SDK server classes with snodo doing every MRTR decision —
# bindings-python/examples/sdk_server.py (`mcp` 2.3.0 MCPServer) and
# bindings-node/examples/sdk_server.mjs (@modelcontextprotocol/server 2.4.0
# McpServer) — against the official TypeScript client (pinned to 2026-07-28,
# and with its default options: a 2025-era session), the official Python
# client (mode 2026-07-28, and mode=legacy) and the conformance suite.
#
# The SDKs come from the repository's own pins: `mcp` from
# interop/python_client/requirements.txt, @modelcontextprotocol/server from
# bindings-node/package-lock.json (a devDependency; an optional peer of the
# published package). Summaries: target/interop/<suite>-<python|node>-sdk-<transport>.json;
# any missing, empty or failing summary fails, and so does any WARNING or
# SKIPPED check in an input-required-result-* scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh

OUT=target/interop
mkdir -p "$OUT"
rm -f "$OUT"/*-sdk-*.json  # only this run's SDK summaries count

interop_setup_node_server
interop_setup_python_server
interop_setup_npm official_client
interop_setup_npm conformance

status=0
run() {
  echo "-- $*"
  "$@" || status=1
}
# The adapter in process (needs the mcp extra, hence here and not in test-python.sh).
interop_log "snodo_mrtr.mcp in process (bindings-python/tests_sdk)"
run "$SNODO_INTEROP_PYTHON" -m pytest -q -p no:cacheprovider bindings-python/tests_sdk
for server in python-sdk node-sdk; do
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
# Python SDK server through snodo_mrtr.mcp driving the core's legacy bridge
# over the SDK session's back-channel (ServerSession.send_request).
for server in python-sdk node-sdk; do
  for transport in stdio http; do
    interop_log "official TypeScript client (default options: a 2025 session): $server server over $transport"
    run node interop/official_client/run.mjs --server "$server" --transport "$transport" --negotiation default
    interop_log "official Python client (mode=legacy: a 2025 session): $server server over $transport"
    run "$SNODO_INTEROP_PYTHON" -m pytest -q -p no:cacheprovider interop/python_client \
      --server "$server" --transport "$transport" --era legacy
  done
done

interop_log "summaries"
"$SNODO_INTEROP_PYTHON" - "$OUT" <<'PY' || status=1
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
expected = [f"{suite}-{server}-{transport}.json"
            for server in ("python-sdk", "node-sdk")
            for suite, transports in (("official_client", ("stdio", "http")),
                                      ("python_client", ("stdio", "http")),
                                      ("conformance", ("http",)))
            for transport in transports]
expected += [f"official_client_default-{s}-{t}.json" for s in ("python-sdk", "node-sdk") for t in ("stdio", "http")]
expected += [f"python_client-{s}-{t}-legacy.json" for s in ("python-sdk", "node-sdk") for t in ("stdio", "http")]
bad = 0
for name in expected:
    try:
        data = json.loads((out / name).read_text())
        results = data["results"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"FAIL {name}: missing or unreadable ({e})")
        bad += 1
        continue
    failed = sorted(k for k, v in results.items() if v.get("status") != "pass")
    if not results or failed or data.get("failed") != 0 or data.get("total") != len(results):
        print(f"FAIL {name}: {len(results)} results, failed: {', '.join(failed) or 'none listed'}")
        bad += 1
        continue
    strict = [k for k, v in results.items()
              if k.startswith("input-required-result-") and (v.get("warning", 0) or v.get("skipped", 0))]
    if strict:
        print(f"FAIL {name}: warnings or skips in {', '.join(sorted(strict))}")
        bad += 1
        continue
    notes = []
    for key, label in (("success", "checks passed"), ("warning", "warning checks"), ("skipped", "checks skipped")):
        n = sum(v.get(key, 0) for v in results.values())
        if n:
            notes.append(f"{n} {label}")
    warned = sorted({w for v in results.values() for w in v.get("warnings", [])})
    if warned:
        notes.append("warnings: " + ", ".join(warned))
    print(f"ok   {name}: {len(results)} passed" + (f" ({'; '.join(notes)})" if notes else ""))
print(f"{len(expected) - bad} of {len(expected)} SDK summaries green")
sys.exit(1 if bad else 0)
PY

exit "$status"
