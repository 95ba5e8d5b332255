"""Smoke test of examples/server.py over stdio and HTTP (127.0.0.1, a free
port, bounded time), and its HTTP edge: Origin/Host, 2025 sessions that
belong to the user who opened them, sessions per client. Run by
scripts/test-python.sh after pytest and stubtest:

    pytest -q tests/server_smoke.py
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Tuple

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


def retry(send: Any, method: str, first: Dict[str, Any], answers: Dict[str, Any], **params: Any) -> Dict[str, Any]:
    """Answers `first` (an input_required result) and returns the next response."""
    return send(msg(2, method, **params, inputResponses=answers, requestState=first["result"]["requestState"]))[1]


def accept(**content: Any) -> Dict[str, Any]:
    return {"action": "accept", "content": content}


def preference_flow(send: Any, keyed: bool = True) -> None:
    """The contract's lists and flows (interop/CONTRACT.md §3-§6), over any transport."""
    st, disc = send(msg("d", "server/discover"))
    assert st in (200, None) and disc["result"]["supportedVersions"] == ["2026-07-28"]
    assert disc["result"]["capabilities"] == {"tools": {}, "resources": {}, "prompts": {}}
    if keyed:  # Engine.development() (no SNODO_KEYS) takes no server_info
        assert disc["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "snodo-python-example"
    for method, field in (("tools/list", "tools"), ("resources/list", "resources"), ("resources/templates/list", "resourceTemplates"),
                          ("prompts/list", "prompts")):
        st, r = send(msg(1, method))
        assert st in (200, None) and r["result"]["resultType"] == "complete", r
        assert r["result"]["ttlMs"] == 0 and r["result"]["cacheScope"] == "private"
    names = [t["name"] for t in send(msg(1, "tools/list"))[1]["result"]["tools"]]
    assert names[:3] == ["preferred_color", "book_table", "test_input_required_result_elicitation"]
    assert names[-3:] == ["test_trigger_prompt_change", "paint_task", "book_room"] and len(names) == 17, names
    task_flow(send)
    booking_flow(send)
    # The preference flow: one question `color`, then the exact texts.
    finals = [("tools/call", {"name": "preferred_color", "arguments": {}},
               {"content": [{"type": "text", "text": "Your preferred color is green."}]}),
              ("resources/read", {"uri": "prefs://color"},
               {"contents": [{"uri": "prefs://color", "mimeType": "text/plain", "text": "green"}], "ttlMs": 0, "cacheScope": "private"}),
              ("prompts/get", {"name": "preferred_color", "arguments": {}},
               {"description": "A poem about your preferred color",
                "messages": [{"role": "user", "content": {"type": "text", "text": "Write a short poem about the color green."}}]})]
    for method, params, want in finals:
        st, r1 = send(msg(0, method, **params))
        assert st in (200, None) and r1["result"]["resultType"] == "input_required", r1
        assert list(r1["result"]["inputRequests"]) == ["color"]
        assert r1["result"]["inputRequests"]["color"]["method"] == "elicitation/create"
        r2 = retry(send, method, r1, {"color": accept(color="green")}, **params)
        final = {k: v for k, v in r2["result"].items() if k not in ("_meta", "resultType")}
        assert r2["result"]["resultType"] == "complete" and final == want, r2
        # Tampered state: a JSON-RPC error, never a result.
        st, r3 = send(msg(2, method, **params, inputResponses={"color": accept(color="green")},
                          requestState=r1["result"]["requestState"] + "x"))
        assert r3["error"]["code"] == -32602 and r3["error"]["message"] == "Invalid or expired requestState"
        assert r3["error"]["data"]["reason"] in ("malformed", "signature")
    tool = {"name": "preferred_color", "arguments": {}}
    r1 = send(msg(0, "tools/call", **tool))[1]
    assert retry(send, "tools/call", r1, {"color": {"action": "decline"}}, **tool)["result"]["content"][0]["text"] \
        == "You declined to choose a color."
    r = retry(send, "tools/call", r1, {"color": {"action": "cancel"}}, **tool)["result"]
    assert r["isError"] is True and r["content"][0]["text"] == "You cancelled the color question."
    # book_table: an invalid guests answer is asked again alone; the accepted date is kept in state.
    book = {"name": "book_table", "arguments": {}}
    r1 = send(msg(0, "tools/call", **book))[1]
    assert list(r1["result"]["inputRequests"]) == ["date", "guests"]
    r2 = retry(send, "tools/call", r1, {"date": accept(date="2026-09-01"), "guests": accept(guests=12)}, **book)
    assert list(r2["result"]["inputRequests"]) == ["guests"], r2
    r3 = retry(send, "tools/call", r2, {"guests": accept(guests=4)}, **book)
    assert r3["result"]["content"][0]["text"] == "Booked a table for 4 on 2026-09-01."
    # -32021 when a required question's capability is not declared.
    nosampling = dict(META, **{"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
    st, r = send(msg(5, "tools/call", name="test_missing_capability", arguments={}, _meta=nosampling))
    assert r["error"]["code"] == -32021 and r["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
    assert st in (400, None)
    # Capability check: only what the client can receive.
    st, r = send(msg(6, "tools/call", name="test_input_required_result_capabilities", arguments={},
                     _meta=dict(META, **{"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}})))
    assert list(r["result"]["inputRequests"]) == ["greeting"]
    # Multi-round: three legs, each state different.
    params = {"name": "test_input_required_result_multi_round", "arguments": {}}
    a = send(msg(7, "tools/call", **params))[1]
    b = retry(send, "tools/call", a, {"step1": accept(name="Alice")}, **params)
    assert list(b["result"]["inputRequests"]) == ["step2"] and b["result"]["requestState"] != a["result"]["requestState"]
    c = retry(send, "tools/call", b, {"step2": accept(color="red")}, **params)
    assert c["result"]["content"][0]["text"] == "Done after 3 rounds, Alice likes red."
    # Unknown method (initialize is gone in 2026-07-28): -32601, HTTP 404; unknown tool: -32602.
    st, r = send(msg(10, "initialize"))
    assert r["error"] == {"code": -32601, "message": "Method not found: initialize"} and st in (404, None)
    st, r = send(msg(11, "tools/call", name="nope", arguments={}))
    assert r["error"] == {"code": -32602, "message": "Unknown tool: nope"}


TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


def booking_flow(send: Any) -> None:
    """book_room on the memory store: booked once; the same final round again gets the
    remembered answer; the token with other answers is refused as replayed."""
    params = {"name": "book_room", "arguments": {}}
    first = send(msg(1, "tools/call", **params))[1]
    assert list(first["result"]["inputRequests"]) == ["booking"], first
    yes = {"booking": accept(nights=2, confirm=True)}
    booked = retry(send, "tools/call", first, yes, **params)
    text = booked["result"]["content"][0]["text"]
    assert text.startswith("Booked: entry #"), booked
    assert retry(send, "tools/call", first, yes, **params)["result"]["content"][0]["text"] == text
    other = retry(send, "tools/call", first, {"booking": accept(nights=3, confirm=True)}, **params)
    replayed = {"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "replayed"}}
    assert other["error"] == replayed, other
    # A retry without answers after the booking: refused too (check_once), nothing is asked again.
    again = send(msg(3, "tools/call", **params, requestState=first["result"]["requestState"]))[1]
    assert again["error"] == replayed, again


def task_flow(send: Any) -> None:
    """paint_task: MRTR first, then a CreateTaskResult only for a client declaring the Tasks
    extension, which tasks/get and tasks/update then reach; decline ends the flow."""
    caps = {**META["io.modelcontextprotocol/clientCapabilities"], **TASKS}
    meta = {**META, "io.modelcontextprotocol/clientCapabilities": caps}
    params = {"name": "paint_task", "arguments": {}}
    _, r1 = send(msg(1, "tools/call", **params, _meta=meta))
    assert list(r1["result"]["inputRequests"]) == ["color"], r1
    _, r2 = send(msg(2, "tools/call", **params, _meta=meta, inputResponses={"color": accept(color="red")},
                     requestState=r1["result"]["requestState"]))
    task = r2["result"]
    assert task["resultType"] == "task" and task["status"] == "completed" and task["taskId"], r2
    assert "content" not in task and "requestState" not in task
    _, got = send(msg(3, "tasks/get", taskId=task["taskId"], _meta=meta))
    assert got["result"]["taskId"] == task["taskId"] and got["result"]["status"] == "completed", got
    assert got["result"]["result"]["content"] == [{"type": "text", "text": "Painted it red."}], got
    _, upd = send(msg(4, "tasks/update", taskId=task["taskId"], _meta=meta, inputResponses={}))
    assert "result" in upd, upd
    _, unknown = send(msg(5, "tasks/get", taskId="nope", _meta=meta))
    assert unknown["error"]["code"] == -32602, unknown
    # Without the extension: the same flow ends with the plain result.
    _, p1 = send(msg(1, "tools/call", **params))
    plain = retry(send, "tools/call", p1, {"color": accept(color="blue")}, **params)
    assert plain["result"]["resultType"] == "complete", plain
    assert plain["result"]["content"] == [{"type": "text", "text": "Painted it blue."}]
    # Decline ends the flow: a tool error, not the question again.
    declined = retry(send, "tools/call", p1, {"color": {"action": "decline"}}, **params)
    assert declined["result"]["isError"] is True and "inputRequests" not in declined["result"], declined


def test_stdio() -> None:
    lines: list[str] = []
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
        proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n\n')  # and a blank line
        preference_flow(live)
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    assert proc.returncode == 0
    assert proc.stderr and "SNODO_KEYS" not in proc.stderr.read()


def test_http() -> None:
    env = dict(os.environ)
    env.pop("SNODO_KEYS", None)  # exercises the random-key fallback and its warning
    proc = subprocess.Popen([sys.executable, str(SERVER), "--http", "0"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, text=True)
    try:
        assert proc.stderr
        warning = proc.stderr.readline()
        assert "warning" in warning and "SNODO_KEYS" in warning
        m = re.fullmatch(r"listening on (http://127\.0\.0\.1:\d+/mcp)\n", proc.stderr.readline())
        assert m, "no listening line"
        url = m.group(1)

        def post(body: Any, headers: Dict[str, str], path: str = "/mcp", method: str = "POST") -> Tuple[int, Any, Any]:
            data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
            req = urllib.request.Request(url.replace("/mcp", path), data=data, method=method,
                                         headers={"Content-Type": "application/json", **headers})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    raw = r.read()
                    return r.status, r.headers, json.loads(raw) if raw else None
            except urllib.error.HTTPError as e:
                raw = e.read()
                return e.code, e.headers, json.loads(raw) if raw else None

        def headers_for(m: Dict[str, Any]) -> Dict[str, str]:
            """The request-metadata headers a 2026-07-28 client sends."""
            h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": m["method"]}
            name = m["params"].get("uri") if m["method"] == "resources/read" else m["params"].get("name")
            if name is not None:
                h["Mcp-Name"] = name
            return h

        def send(m: Dict[str, Any], bearer: Optional[str] = None) -> Tuple[int, Any]:
            auth = {"Authorization": f"Bearer {bearer}"} if bearer else {}
            status, _, body = post(m, {**headers_for(m), **auth})
            return status, body

        preference_flow(send, keyed=False)
        # Header checks (before begin): -32020, HTTP 400, the body's id.
        tl = msg(7, "tools/list")
        assert post(tl, {"Mcp-Method": "tools/list"})[::2] == (400, {"jsonrpc": "2.0", "id": 7, "error": {
            "code": -32020, "message": "Header mismatch: MCP-Protocol-Version header missing"}})
        assert post(tl, {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"})[2]["error"]["code"] == -32020
        tc = msg("x", "tools/call", name="preferred_color", arguments={})
        status, _, body = post(tc, {**headers_for(tc), "Mcp-Name": "other"})
        assert status == 400 and body["id"] == "x" and body["error"]["code"] == -32020
        b64 = "=?base64?" + base64.b64encode(b"preferred_color").decode() + "?="
        assert post(tc, {**headers_for(tc), "Mcp-Name": b64})[0] == 200
        # Principal from the bearer token: a retry under another one is refused.
        st, r1 = send(tc, bearer="alice")
        answered = msg(2, "tools/call", name="preferred_color", arguments={}, requestState=r1["result"]["requestState"],
                       inputResponses={"color": {"action": "accept", "content": {"color": "red"}}})
        st, r = send(answered, bearer="bob")
        assert st == 200 and r["error"]["code"] == -32602 and r["error"]["data"]["reason"] == "principal"
        st, r = send(answered, bearer="alice")
        assert st == 200 and r["result"]["content"][0]["text"] == "Your preferred color is red."
        # Plain HTTP rules.
        assert post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}', {})[::2] == (202, None)
        status, _, body = post(b"{oops", {})
        assert status == 400 and body["error"]["code"] == -32700
        status, _, body = post(msg(1, "tools/list", _meta={}), {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
        assert status == 400 and body["error"]["code"] == -32602
        status, headers, body = post(None, {}, method="GET")
        assert (status, headers["Allow"], body) == (405, "POST", None)
        assert post(None, {}, method="DELETE")[0] == 405
        assert post(b"{}", {}, path="/other")[::2] == (404, None)
        assert post(b" " * (4 * 1024 * 1024 + 1), {})[0] == 413
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("spec", ["k1:zz", "nocolon", "k1:" + "00" * 8, "k1:" + "11" * 32 + ",k1:" + "22" * 32])
def test_bad_keys_exit_2(spec: str) -> None:
    env = dict(os.environ, SNODO_KEYS=spec)
    r = subprocess.run([sys.executable, str(SERVER), "--stdio"], input="", capture_output=True, text=True, env=env, timeout=30)
    assert r.returncode == 2 and "SNODO_KEYS" in r.stderr and r.stdout == ""
    assert "00" * 8 not in r.stderr and "11" * 32 not in r.stderr  # secrets never echoed


def test_keys_hex_and_base64_agree() -> None:
    """The same secret spelled in hex, base64 and unpadded url-safe base64 verifies the same token."""
    secret = bytes(range(250, 256)) + bytes(range(26))
    spellings = [secret.hex(), base64.b64encode(secret).decode(), base64.urlsafe_b64encode(secret).decode().rstrip("=")]
    first = msg(1, "tools/call", name="preferred_color", arguments={})
    token = None
    for spelling in spellings:
        env = dict(os.environ, SNODO_KEYS="k1:" + spelling)
        line = json.dumps(first) if token is None else json.dumps(msg(
            2, "tools/call", name="preferred_color", arguments={}, requestState=token,
            inputResponses={"color": {"action": "accept", "content": {"color": "blue"}}}))
        r = subprocess.run([sys.executable, str(SERVER), "--stdio"], input=line + "\n", capture_output=True, text=True,
                           env=env, timeout=30)
        assert r.returncode == 0, r.stderr
        result = json.loads(r.stdout)["result"]
        if token is None:
            token = result["requestState"]
        else:
            assert result["content"][0]["text"] == "Your preferred color is blue."


# --- issue 14: 2025-era sessions (initialize) on both transports ---

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "smoke", "version": "1"}}}
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "preferred_color", "arguments": {}}}


def test_legacy_stdio() -> None:
    proc = subprocess.Popen([sys.executable, str(SERVER), "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, SNODO_KEYS=KEYS))
    assert proc.stdin is not None and proc.stdout is not None

    def send(m: Any) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(m) + "\n")
        proc.stdin.flush()

    def recv() -> Dict[str, Any]:
        assert proc.stdout is not None
        return dict(json.loads(proc.stdout.readline()))

    try:
        send(INIT)
        assert recv()["result"]["protocolVersion"] == "2025-11-25"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(CALL)
        ask = recv()
        assert ask["method"] == "elicitation/create" and ask["id"].startswith("snodo-")
        # Interleaved: another request, a response to nothing, then the answer.
        send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert recv() == {"jsonrpc": "2.0", "id": 2, "result": {}}
        send({"jsonrpc": "2.0", "id": "snodo-nope", "result": {}})
        send({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"color": "blue"}}})
        final = recv()
        assert final["id"] == 1 and final["result"]["content"][0]["text"] == "Your preferred color is blue."
        assert "resultType" not in final["result"]
    finally:
        proc.stdin.close()
        assert proc.wait(10) == 0
        err = proc.stderr.read() if proc.stderr else ""
    assert "snodo-nope" in err  # the stray response is refused, logged, and changes nothing


def test_legacy_http() -> None:
    proc = subprocess.Popen([sys.executable, str(SERVER), "--http", "0"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, SNODO_KEYS=KEYS))
    try:
        assert proc.stderr is not None
        m = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", proc.stderr.readline())
        assert m, "no listening line"
        url = f"http://127.0.0.1:{m.group(1)}/mcp"

        def req(body: Any, sid: Optional[str] = None, method: str = "POST") -> Any:
            headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            if sid:
                headers["Mcp-Session-Id"] = sid
            data = json.dumps(body).encode() if body is not None else None
            r = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                return urllib.request.urlopen(r, timeout=10)
            except urllib.error.HTTPError as e:
                return e

        r = req(INIT)
        sid = r.headers["Mcp-Session-Id"]
        assert r.status == 200 and sid and json.loads(r.read())["result"]["protocolVersion"] == "2025-11-25"
        assert req({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid).status == 202
        stream = req(CALL, sid)
        assert stream.status == 200 and stream.headers["Content-Type"] == "text/event-stream"

        def event() -> Dict[str, Any]:
            while True:
                line = stream.readline().decode()
                if line.startswith("data: "):
                    return dict(json.loads(line[6:]))

        ask = event()
        assert ask["method"] == "elicitation/create"
        bad = req({"jsonrpc": "2.0", "id": "snodo-nope", "result": {}}, sid)
        assert bad.status == 400 and "snodo-nope" in json.loads(bad.read())["error"]["message"]
        answer = {"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"color": "red"}}}
        assert req(answer, sid).status == 202
        assert event()["result"]["content"][0]["text"] == "Your preferred color is red."
        assert req(answer, sid).status == 400  # twice: refused
        assert req(CALL, "no-such-session").status == 404
        assert req(None, sid, "DELETE").status == 200
        assert req(CALL, sid).status == 404  # the session is gone
    finally:
        proc.terminate()
        proc.wait(10)


# --- the HTTP edge: Origin/Host, sessions that belong to their user, per-client quota ---

LIST_2026 = msg(1, "tools/list")
H2026 = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}


@contextlib.contextmanager
def http_server(**env: str) -> Iterator[int]:
    """examples/server.py --http on a free port, with `env` added; yields the port."""
    proc = subprocess.Popen([sys.executable, str(SERVER), "--http", "0"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, SNODO_KEYS=KEYS, **env))
    try:
        assert proc.stderr is not None
        m = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", proc.stderr.readline())
        assert m, "no listening line"
        yield int(m.group(1))
    finally:
        proc.terminate()
        proc.wait(10)


def raw(port: int, body: Any, headers: Dict[str, Optional[str]], method: str = "POST",
        source: str = "127.0.0.1") -> Tuple[int, Dict[str, str], bytes]:
    """One request on a fresh connection with exactly these headers (Host defaults to the
    server's own; a None value drops one)."""
    # `source`: any address of 127.0.0.0/8 reaches the server on 127.0.0.1 (another client's address).
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        conn.putrequest(method, "/mcp", skip_host=True, skip_accept_encoding=True)
        data = b"" if body is None else json.dumps(body).encode()
        h: Dict[str, Optional[str]] = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json",
                                       "Accept": "application/json, text/event-stream", **headers}
        for name, value in h.items():
            if value is not None:
                conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def as_user(user: Optional[str], sid: Optional[str] = None) -> Dict[str, Optional[str]]:
    h: Dict[str, Optional[str]] = {"Authorization": f"Bearer {user}" if user else None}
    if sid is not None:
        h.update({"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
    return h


def open_session(port: int, user: Optional[str]) -> str:
    status, h, body = raw(port, INIT, as_user(user))
    assert status == 200 and h.get("mcp-session-id"), (status, body)
    sid = h["mcp-session-id"]
    assert raw(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, as_user(user, sid))[0] == 202
    return sid


NOT_FOUND = {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "Session not found"}}


def test_http_edge_refuses_foreign_pages_and_rebinding_on_every_method_and_era() -> None:
    with http_server() as port:
        own = f"127.0.0.1:{port}"
        assert raw(port, LIST_2026, H2026)[0] == 200  # plain: no Origin
        assert raw(port, LIST_2026, {**H2026, "Origin": f"http://{own}"})[0] == 200  # same-origin page
        assert raw(port, LIST_2026, {**H2026, "Host": f"localhost:{port}"})[0] == 200
        for origin in ("http://evil.example", "null", f"http://localhost:{port + 1}", f"https://{own}/path"):
            status, h, body = raw(port, LIST_2026, {**H2026, "Origin": origin})
            assert status == 403 and json.loads(body) == {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32600, "message": "Forbidden: Origin not allowed", "data": {"reason": "origin"}}}, origin
            assert h.get("connection") == "close"  # refused on the head: the body is never read
        evil = f"evil.example:{port}"
        for headers in ({"Host": evil, "Origin": f"http://{evil}"}, {"Host": evil}, {"Host": None}):
            status, _, body = raw(port, LIST_2026, {**H2026, **headers})
            assert status == 421 and json.loads(body)["error"]["data"] == {"reason": "host"}, headers
        # A 2025 handshake from a page opens nothing; GET and DELETE are screened the same way.
        for headers, want in (({"Origin": "http://evil.example"}, 403), ({"Host": evil}, 421)):
            status, h, _ = raw(port, INIT, headers)
            assert status == want and "mcp-session-id" not in h
            assert raw(port, None, headers, method="GET")[0] == want
            assert raw(port, None, headers, method="DELETE")[0] == want
        sid = open_session(port, None)
        assert raw(port, None, {**as_user(None, sid), "Origin": "null"}, method="DELETE")[0] == 403
        assert raw(port, {"jsonrpc": "2.0", "id": 3, "method": "ping"}, as_user(None, sid))[0] == 200  # still there
    # Behind a proxy: the listed host and app origin pass, loopback no longer does.
    with http_server(SNODO_ALLOWED_HOSTS="mcp.example.com", SNODO_ALLOWED_ORIGINS="https://app.example.com") as port:
        assert raw(port, LIST_2026, {**H2026, "Host": "mcp.example.com", "Origin": "https://app.example.com"})[0] == 200
        assert raw(port, LIST_2026, {**H2026, "Host": "mcp.example.com", "Origin": "https://evil.example"})[0] == 403
        assert raw(port, LIST_2026, H2026)[0] == 421


@pytest.mark.parametrize("env", [{"SNODO_ALLOWED_HOSTS": "a b"}, {"SNODO_ALLOWED_ORIGINS": "null"},
                                 {"SNODO_MAX_SESSIONS_PER_CLIENT": "0"}])
def test_bad_edge_settings_exit_2(env: Dict[str, str]) -> None:
    r = subprocess.run([sys.executable, str(SERVER), "--http", "0"], capture_output=True, text=True,
                       env=dict(os.environ, SNODO_KEYS=KEYS, **env), timeout=30)
    assert r.returncode == 2 and next(iter(env)) in r.stderr, r.stderr


def test_http_session_belongs_to_its_user() -> None:
    with http_server() as port:
        sid = open_session(port, "alice")
        unknown = raw(port, CALL, as_user("bob", "no-such-session"))
        assert unknown[0] == 404 and json.loads(unknown[2]) == NOT_FOUND
        ping = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
        for who in ("bob", None):
            for body, method in ((ping, "POST"), (CALL, "POST"), (None, "GET"), (None, "DELETE")):
                status, _, got = raw(port, body, as_user(who, sid), method=method)
                # The same bytes as for a session that does not exist: nothing confirms it does.
                assert (status, got) == (404, unknown[2]), (who, method, body)
        status, _, body = raw(port, ping, as_user("alice", sid))
        assert status == 200 and json.loads(body) == {"jsonrpc": "2.0", "id": 5, "result": {}}
        assert raw(port, None, as_user("alice", sid), method="GET")[0] == 405
        assert raw(port, None, as_user("alice", sid), method="DELETE")[0] == 200
        assert raw(port, ping, as_user("alice", sid))[0] == 404  # gone
        # An anonymous session is no one user's either.
        anon = open_session(port, None)
        assert raw(port, ping, as_user("alice", anon))[0] == 404
        assert raw(port, ping, as_user(None, anon))[0] == 200


class SseFlow:
    """alice's 2025 tools/call whose SSE stream is read in a thread."""

    def __init__(self, port: int, sid: str, rid: int) -> None:
        self.rid = rid
        self.events: "queue.Queue[Any]" = queue.Queue()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        call = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "preferred_color", "arguments": {}}}
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "Authorization": "Bearer alice", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
        self.conn.request("POST", "/mcp", json.dumps(call).encode(), headers)
        threading.Thread(target=self.read, daemon=True).start()

    def read(self) -> None:
        try:
            r = self.conn.getresponse()
            for line in r:
                if line.startswith(b"data: "):
                    self.events.put(json.loads(line[6:]))
        except Exception as e:  # the test closed the connection, or the server dropped it
            self.events.put(e)
        finally:
            self.events.put(None)

    def next(self) -> Dict[str, Any]:
        event = self.events.get(timeout=10)
        assert isinstance(event, dict), event
        return event


def test_http_answers_and_cancellations_belong_to_the_flows_user() -> None:
    with http_server() as port:
        sid = open_session(port, "alice")
        for attack in ("answer", "cancel"):
            flow = SseFlow(port, sid, 40 if attack == "answer" else 41)
            try:
                ask = flow.next()
                assert ask["method"] == "elicitation/create"
                forged = ({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"color": "red"}}}
                          if attack == "answer" else
                          {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": flow.rid}})
                for who in ("bob", None):
                    status, _, body = raw(port, forged, as_user(who, sid))
                    assert status == 404 and json.loads(body) == NOT_FOUND, (attack, who)
                mine = {"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"color": "green"}}}
                assert raw(port, mine, as_user("alice", sid))[0] == 202
                final = flow.next()
                assert final["id"] == flow.rid and final["result"]["content"][0]["text"] == "Your preferred color is green."
            finally:
                flow.conn.close()


def test_http_sessions_per_client_are_capped_and_idle_ones_expire() -> None:
    with http_server(SNODO_MAX_SESSIONS_PER_CLIENT="2", SNODO_SESSION_IDLE_SECS="1") as port:
        alice = [open_session(port, "alice") for _ in range(2)]
        status, h, body = raw(port, INIT, as_user("alice"))
        assert status == 429 and "mcp-session-id" not in h, body
        assert json.loads(body)["error"]["code"] == -32000 and json.loads(body)["id"] == 0
        bob = open_session(port, "bob")  # another user has a quota of their own
        anonymous = [open_session(port, None) for _ in range(2)]  # anonymous: one quota per address
        assert raw(port, INIT, as_user(None))[0] == 429
        assert raw(port, INIT, as_user(None), source="127.0.0.2")[0] == 200  # another address
        assert raw(port, None, as_user("alice", alice[0]), method="DELETE")[0] == 200
        alice.append(open_session(port, "alice"))  # closing one makes room
        assert raw(port, INIT, as_user("alice"))[0] == 429
        time.sleep(1.5)  # every session idle past SNODO_SESSION_IDLE_SECS: swept at the next open
        open_session(port, "alice")
        assert all(raw(port, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, as_user(who, s))[0] == 404
                   for who, s in [("alice", alice[1]), ("bob", bob), (None, anonymous[0])])
