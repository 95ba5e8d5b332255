"""The HTTP edge of interop/servers/python/sdk_server.py (the official SDK's Streamable HTTP app
behind snodo's `Edge`), over real HTTP on 127.0.0.1: Origin/Host refused with
snodo's refusals before the SDK sees the request, 2025 sessions that belong to
the user of their `initialize` (calls, answers, cancellations, GET, DELETE),
and sessions per client. Needs the `mcp` extra and uvicorn (the interop venv):
run by scripts/test-interop-sdk.sh with the rest of tests_sdk.
"""

from __future__ import annotations

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
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Tuple

import pytest

SERVER = Path(__file__).resolve().parents[2] / "interop" / "servers" / "python" / "sdk_server.py"
KEYS = "k1:" + bytes(range(32)).hex()
V2025 = "2025-11-25"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
LIST_2026 = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
H2026 = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": V2025, "capabilities": {"elicitation": {"form": {}}}, "clientInfo": {"name": "t", "version": "1"}}}
PING = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
NOT_FOUND = {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "Session not found"}}


@contextlib.contextmanager
def sdk_server(**env: str) -> Iterator[int]:
    proc = subprocess.Popen([sys.executable, str(SERVER), "--http", "0"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, SNODO_KEYS=KEYS, **env))
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
        assert m, f"no listening line: {line!r}"
        yield int(m.group(1))  # uvicorn accepts the queued connections once the SDK's lifespan ran
    finally:
        proc.terminate()
        proc.wait(10)


def raw(port: int, body: Any, headers: Dict[str, Optional[str]], method: str = "POST",
        source: str = "127.0.0.1") -> Tuple[int, Dict[str, str], bytes]:
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
        h.update({"Mcp-Session-Id": sid, "MCP-Protocol-Version": V2025})
    return h


def open_session(port: int, user: Optional[str]) -> str:
    status, h, body = raw(port, INIT, as_user(user))
    assert status == 200 and h.get("mcp-session-id"), (status, body)
    sid = h["mcp-session-id"]
    assert raw(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, as_user(user, sid))[0] == 202
    return sid


def result_of(raw_body: bytes, rid: Any) -> Optional[Dict[str, Any]]:
    """The response with id `rid` in a JSON or SSE body."""
    for line in raw_body.decode().splitlines():
        text = line[5:].strip() if line.startswith("data:") else line.strip()
        if text.startswith("{"):
            m = json.loads(text)
            if m.get("id") == rid and "method" not in m:
                return dict(m)
    return None


def test_foreign_pages_and_rebinding_are_refused_with_snodos_answers() -> None:
    with sdk_server() as port:
        own = f"127.0.0.1:{port}"
        assert raw(port, LIST_2026, H2026)[0] == 200
        assert raw(port, LIST_2026, {**H2026, "Origin": f"http://{own}"})[0] == 200
        # A page on another loopback port: the SDK's own default would let it in; snodo's does not.
        for origin in ("http://evil.example", "null", f"http://localhost:{port + 1}"):
            status, _, body = raw(port, LIST_2026, {**H2026, "Origin": origin})
            assert status == 403 and json.loads(body)["error"]["data"] == {"reason": "origin"}, (origin, body)
        evil = f"evil.example:{port}"
        for headers in ({"Host": evil, "Origin": f"http://{evil}"}, {"Host": evil}):
            status, _, body = raw(port, LIST_2026, {**H2026, **headers})
            assert status == 421 and json.loads(body)["error"]["data"] == {"reason": "host"}, headers
        for headers, want in (({"Origin": "null"}, 403), ({"Host": evil}, 421)):
            status, h, _ = raw(port, INIT, headers)
            assert status == want and "mcp-session-id" not in h
            assert raw(port, None, headers, method="GET")[0] == want
            assert raw(port, None, headers, method="DELETE")[0] == want
    # Behind a proxy: the listed host and app pass both snodo's check and the SDK's; loopback does not.
    with sdk_server(SNODO_ALLOWED_HOSTS="mcp.example.com", SNODO_ALLOWED_ORIGINS="https://app.example.com") as port:
        proxied = {**H2026, "Host": "mcp.example.com"}
        assert raw(port, LIST_2026, {**proxied, "Origin": "https://app.example.com"})[0] == 200
        assert raw(port, LIST_2026, {**proxied, "Origin": "https://mcp.example.com"})[0] == 200
        assert raw(port, LIST_2026, {**proxied, "Origin": "https://evil.example"})[0] == 403
        assert raw(port, LIST_2026, H2026)[0] == 421


def test_the_sdks_own_protection_gets_the_same_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(SERVER.parent))
    import sdk_server

    monkeypatch.delenv("SNODO_ALLOWED_HOSTS", raising=False)
    monkeypatch.delenv("SNODO_ALLOWED_ORIGINS", raising=False)
    loopback = sdk_server.transport_security(8787)
    assert loopback.enable_dns_rebinding_protection
    assert "127.0.0.1:*" in loopback.allowed_hosts and "[::1]:*" in loopback.allowed_hosts
    assert "http://127.0.0.1:8787" in loopback.allowed_origins and "http://localhost:8788" not in loopback.allowed_origins
    assert not any(o.endswith(":*") for o in loopback.allowed_origins)
    monkeypatch.setenv("SNODO_ALLOWED_HOSTS", "mcp.example.com,10.0.0.5:8443")
    monkeypatch.setenv("SNODO_ALLOWED_ORIGINS", "https://app.example.com")
    listed = sdk_server.transport_security(8787)
    assert listed.allowed_hosts == ["mcp.example.com", "mcp.example.com:*", "10.0.0.5:8443"]
    assert {"https://app.example.com", "https://10.0.0.5:8443", "https://mcp.example.com:*"} <= set(listed.allowed_origins)
    assert not any("localhost" in h or "127.0.0.1" in h for h in listed.allowed_hosts)
    monkeypatch.setenv("SNODO_ALLOWED_HOSTS", "*")
    assert not sdk_server.transport_security(8787).enable_dns_rebinding_protection


def test_a_session_belongs_to_its_user() -> None:
    with sdk_server() as port:
        sid = open_session(port, "alice")
        unknown = raw(port, PING, as_user("alice", "no-such-session"))
        assert unknown[0] == 404 and json.loads(unknown[2]) == NOT_FOUND
        for who in ("bob", None):
            for body, method in ((PING, "POST"), (None, "GET"), (None, "DELETE")):
                status, _, got = raw(port, body, as_user(who, sid), method=method)
                assert (status, json.loads(got)) == (404, NOT_FOUND), (who, method)
        status, _, body = raw(port, PING, as_user("alice", sid))
        assert status == 200 and result_of(body, 5) == {"jsonrpc": "2.0", "id": 5, "result": {}}, body
        assert raw(port, None, as_user("alice", sid), method="DELETE")[0] == 200
        assert raw(port, PING, as_user("alice", sid))[0] == 404


class SseFlow:
    def __init__(self, port: int, sid: str, rid: int) -> None:
        self.rid = rid
        self.events: "queue.Queue[Any]" = queue.Queue()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        call = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "preferred_color", "arguments": {}}}
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "Authorization": "Bearer alice", "Mcp-Session-Id": sid, "MCP-Protocol-Version": V2025}
        self.conn.request("POST", "/mcp", json.dumps(call).encode(), headers)
        threading.Thread(target=self.read, daemon=True).start()

    def read(self) -> None:
        try:
            for line in self.conn.getresponse():
                if line.startswith(b"data:"):
                    self.events.put(json.loads(line[5:]))
        except Exception as e:  # the test closed the connection, or the server dropped it
            self.events.put(e)
        finally:
            self.events.put(None)

    def next(self) -> Dict[str, Any]:
        event = self.events.get(timeout=10)
        assert isinstance(event, dict), event
        return event


def test_answers_and_cancellations_belong_to_the_flows_user() -> None:
    with sdk_server() as port:
        sid = open_session(port, "alice")
        for attack in ("answer", "cancel"):
            flow = SseFlow(port, sid, 40 if attack == "answer" else 41)
            try:
                ask = flow.next()
                assert ask["method"] == "elicitation/create", ask
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


def test_sessions_per_client_are_capped_and_idle_ones_expire() -> None:
    with sdk_server(SNODO_MAX_SESSIONS_PER_CLIENT="2", SNODO_SESSION_IDLE_SECS="1") as port:
        alice = [open_session(port, "alice") for _ in range(2)]
        status, h, body = raw(port, INIT, as_user("alice"))
        assert status == 429 and "mcp-session-id" not in h and json.loads(body)["error"]["code"] == -32000, body
        open_session(port, "bob")
        for _ in range(2):  # anonymous: one quota per address
            open_session(port, None)
        assert raw(port, INIT, as_user(None))[0] == 429
        assert raw(port, INIT, as_user(None), source="127.0.0.2")[0] == 200  # another address
        assert raw(port, None, as_user("alice", alice[0]), method="DELETE")[0] == 200
        alice.append(open_session(port, "alice"))
        assert raw(port, INIT, as_user("alice"))[0] == 429
        assert raw(port, LIST_2026, {**H2026, **as_user("alice")})[0] == 200  # 2026 requests open no session
        time.sleep(1.5)
        open_session(port, "alice")
        assert raw(port, PING, as_user("alice", alice[1]))[0] == 404
