"""Smoke test of examples/server.py over stdio and HTTP (127.0.0.1, a free
port, bounded time). Run by scripts/test-python.sh after pytest and stubtest:

    pytest -q tests/server_smoke.py
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

SERVER = Path(__file__).resolve().parents[1] / "examples" / "server.py"
KEYS = "k1:" + bytes(range(32)).hex() + ",old:" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODk="
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}, "roots": {}},
}


def msg(id: Any, method: str, **params: Any) -> Dict[str, Any]:
    meta = params.pop("_meta", META)
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {**params, "_meta": meta}}


def preference_flow(send: Any) -> None:
    """discover, lists, then the preference tool, resource and prompt over two rounds each."""
    st, disc = send(msg("d", "server/discover"))
    assert st in (200, None) and disc["result"]["supportedVersions"] == ["2026-07-28"]
    for method, field in (("tools/list", "tools"), ("resources/list", "resources"), ("prompts/list", "prompts")):
        st, r = send(msg(1, method))
        assert st in (200, None) and r["result"][field] and r["result"]["resultType"] == "complete"
        assert "ttlMs" in r["result"] and "cacheScope" in r["result"]
    names = [t["name"] for t in send(msg(1, "tools/list"))[1]["result"]["tools"]]
    assert "preferred_color" in names and "test_input_required_result_elicitation" in names
    cases = [("tools/call", {"name": "preferred_color", "arguments": {}}, "content"),
             ("resources/read", {"uri": "prefs://color"}, "contents"),
             ("prompts/get", {"name": "preferred_color", "arguments": {}}, "messages")]
    for method, params, field in cases:
        st, r1 = send(msg(0, method, **params))
        res = r1["result"]
        assert st in (200, None) and res["resultType"] == "input_required", r1
        (key, ask), = res["inputRequests"].items()
        assert ask["method"] == "elicitation/create"
        reply = {key: {"action": "accept", "content": {"color": "green"}}}
        st, r2 = send(msg(1, method, **params, inputResponses=reply, requestState=res["requestState"]))
        final = r2["result"]
        assert st in (200, None) and final["resultType"] == "complete" and final[field], r2
        assert "green" in json.dumps(final)
        if method == "resources/read":
            assert final["ttlMs"] == 0 and final["cacheScope"] == "private"
        # Tampered state: a JSON-RPC error, never a result.
        st, r3 = send(msg(2, method, **params, inputResponses=reply, requestState=res["requestState"] + "-TAMPERED"))
        assert r3["error"]["code"] == -32602
    # -32021 with HTTP 400 when sampling is not declared.
    nosampling = dict(META, **{"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
    st, r = send(msg(5, "tools/call", name="test_missing_capability", arguments={}, _meta=nosampling))
    assert r["error"]["code"] == -32021 and r["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
    assert st in (400, None)
    # Capability check: only what the client can receive.
    st, r = send(msg(6, "tools/call", name="test_input_required_result_capabilities", arguments={},
                     _meta=dict(META, **{"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}})))
    reqs = r["result"]["inputRequests"]
    assert reqs and all(q["method"] != "elicitation/create" for q in reqs.values())
    # Multi-round: three legs, each state different.
    params = {"name": "test_input_required_result_multi_round", "arguments": {}}
    st, a = send(msg(7, "tools/call", **params))
    st, b = send(msg(8, "tools/call", **params, requestState=a["result"]["requestState"],
                     inputResponses={"user_name": {"action": "accept", "content": {"name": "Alice"}}}))
    assert b["result"]["resultType"] == "input_required" and b["result"]["requestState"] != a["result"]["requestState"]
    st, c = send(msg(9, "tools/call", **params, requestState=b["result"]["requestState"],
                     inputResponses={"confirm": {"action": "accept", "content": {"ok": True}}}))
    assert c["result"]["resultType"] == "complete" and "Alice" in c["result"]["content"][0]["text"]
    # Unknown method: -32601 (HTTP 404).
    st, r = send(msg(10, "ping"))
    assert r["error"]["code"] == -32601 and st in (404, None)


def test_stdio() -> None:
    lines = []
    env = dict(os.environ, SNODO_KEYS=KEYS)
    proc = subprocess.Popen([sys.executable, str(SERVER), "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    assert proc.stdin and proc.stdout
    deadline = time.monotonic() + 60

    def live(m: Dict[str, Any]) -> Tuple[Any, Dict[str, Any]]:
        assert time.monotonic() < deadline, "stdio smoke test took too long"
        assert proc.stdin and proc.stdout
        proc.stdin.write(json.dumps(m) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        lines.append(line)
        return None, json.loads(line)

    try:
        # A notification gets no answer: the next line answers the next request.
        assert proc.stdin
        proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        preference_flow(live)
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    assert proc.returncode == 0
    assert proc.stderr and "SNODO_KEYS" not in proc.stderr.read()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_http() -> None:
    port = free_port()
    env = dict(os.environ)
    env.pop("SNODO_KEYS", None)  # exercises the random-key fallback and its warning
    proc = subprocess.Popen([sys.executable, str(SERVER), "--http", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, text=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        assert proc.stderr
        warning = proc.stderr.readline()
        assert "warning" in warning and "SNODO_KEYS" in warning
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.05)

        def send(m: Any) -> Tuple[int, Any]:
            body = m if isinstance(m, bytes) else json.dumps(m).encode()
            req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    data = r.read()
                    return r.status, json.loads(data) if data else None
            except urllib.error.HTTPError as e:
                data = e.read()
                return e.code, json.loads(data) if data else None

        preference_flow(send)
        assert send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}') == (202, None)
        status, body = send(b"{oops")
        assert status == 400 and body["error"]["code"] == -32700
        status, body = send(msg(1, "tools/list", _meta={}))
        assert status == 400 and body["error"]["code"] == -32602
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("spec", ["k1:zz", "nocolon", "k1:" + "00" * 8])
def test_bad_keys_exit_cleanly(spec: str) -> None:
    env = dict(os.environ, SNODO_KEYS=spec)
    r = subprocess.run([sys.executable, str(SERVER), "--stdio"], input="", capture_output=True, text=True, env=env, timeout=30)
    assert r.returncode != 0 and "SNODO_KEYS" in r.stderr
    assert "00" * 8 not in r.stderr
