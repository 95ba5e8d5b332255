#!/usr/bin/env bash
# Interop: the official MCP TypeScript client, the official Python
# client and the official conformance suite against both snodo example
# servers (bindings-python/examples/server.py, bindings-node/examples/server.mjs).
#
# Every suite writes target/interop/<suite>-<server>-<transport>.json; this
# script fails when any expected summary is missing, empty, or records a
# failure, so a suite that silently did not run can never pass. Conformance:
# any WARNING or SKIPPED check in an input-required-result-* scenario fails
# (checked here again, not only in run.mjs); server-stateless's skipped checks
# are reported as skipped by design, apart from the passes.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# shellcheck source=../interop/setup.sh
source interop/setup.sh

OUT=target/interop
mkdir -p "$OUT"
rm -f "$OUT"/*.json  # only this run's summaries count

interop_setup_node_server
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
done

interop_log "summaries"
"$SNODO_INTEROP_PYTHON" - "$OUT" <<'EOF' || status=1
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
expected = [f"{suite}-{server}-{transport}.json"
            for server in ("python", "node")
            for suite, transports in (("official_client", ("stdio", "http")),
                                      ("python_client", ("stdio", "http")),
                                      ("conformance", ("http",)))
            for transport in transports]
# Issue 14: the 2025-era (initialize) runs of the official Python client.
expected += [f"python_client-{server}-{transport}-legacy.json"
             for server in ("python", "node") for transport in ("stdio", "http")]
# Issue 14: the official TypeScript client with default options (2025 handshake).
expected += [f"official_client-{server}-{transport}-legacy.json"
             for server in ("python", "node") for transport in ("stdio", "http")]
bad = 0
for name in expected:
    path = out / name
    try:
        data = json.loads(path.read_text())
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
    warnings = sum(v.get("warning", 0) for v in results.values())
    skipped = sum(v.get("skipped", 0) for v in results.values())
    passed_checks = sum(v.get("success", 0) for v in results.values())
    if passed_checks:
        notes.append(f"{passed_checks} checks passed")
    if warnings:
        notes.append(f"{warnings} warning checks")
    if skipped:
        notes.append(f"{skipped} checks skipped by design (not passes)")
    extra = f" ({', '.join(notes)})" if notes else ""
    print(f"ok   {name}: {len(results)} passed{extra}")
print(f"{len(expected) - bad} of {len(expected)} summaries green")
sys.exit(1 if bad else 0)
EOF

exit "$status"
