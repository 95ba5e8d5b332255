"""The HTTP edge, tried as a hostile web page and a hostile session holder
would, against every server the suites start (docs/operations.md, "The HTTP edge").

scripts/test-edge.sh starts the HTTP servers (the four contract servers of
interop/servers/, the FastMCP one and the rmcp one by default; scripts/test-examples.sh has it start the two
examples, python-example and node-example) and runs this script once per
server:

    run.py KIND PORT

KIND names the server in the summary line. Per server:

  1. a plain loopback request, and a same-origin page's, are served;
  2. a foreign Origin, `Origin: null`, and the DNS-rebinding shape (a foreign
     Host, with and without its own Origin) are refused (403 / 421), on a 2026
     request and on a 2025 `initialize` (which then opens no session);
  3. a 2025 session opened by alice: bob's and the anonymous principal's
     requests on it are refused with the bytes a never-issued session id
     gets (404, -32001) and alice's are served;
  4. a 2025 flow of alice's waiting on its elicitation: bob's answer to it and
     bob's cancellation of it are refused (404), then alice's answer completes
     the flow with alice's choice;
  5. one user holds at most 16 sessions (every server's default): carol's 17th
     `initialize` is refused with 429 and opens no session, dave's is served.

Standard library only. One summary line per server; exit 1 on any failure.
"""

from __future__ import annotations

import http.client
import json
import queue
import sys
import threading
from typing import Any, Dict, List, Optional, Tuple

V2026 = "2026-07-28"
V2025 = "2025-11-25"
META = {"io.modelcontextprotocol/protocolVersion": V2026,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}


class Failed(Exception):
    pass


class Server:
    def __init__(self, kind: str, port: int) -> None:
        self.kind, self.port = kind, port
        self.host = f"127.0.0.1:{port}"
        self.failures: List[str] = []
        self.passed = 0

    def check(self, ok: bool, what: str) -> None:
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)
            print(f"  FAIL [{self.kind}]: {what}", file=sys.stderr, flush=True)

    def post(self, body: Any, headers: Dict[str, str], timeout: float = 10) -> Tuple[int, Dict[str, str], bytes]:
        """One POST /mcp on a fresh connection; `headers` replace the defaults
        (a None value drops one)."""
        h = {"Host": self.host, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        h.update(headers)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
            data = json.dumps(body).encode()
            for name, value in h.items():
                if value is not None:
                    conn.putheader(name, value)
            conn.putheader("Content-Length", str(len(data)))
            conn.endheaders(data)
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()


def list_2026(rid: int = 1) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": {"_meta": META}}


H2026 = {"MCP-Protocol-Version": V2026, "Mcp-Method": "tools/list"}


def bearer(user: Optional[str]) -> Dict[str, Optional[str]]:
    return {"Authorization": f"Bearer {user}" if user else None}


def origin_and_host(s: Server) -> None:
    status, _, _ = s.post(list_2026(), H2026)
    s.check(status == 200, f"a plain loopback request: HTTP {status}")
    status, _, _ = s.post(list_2026(), {**H2026, "Origin": f"http://{s.host}"})
    s.check(status == 200, f"a same-origin request: HTTP {status}")
    for origin in ("http://evil.example", "null", "http://localhost:1"):
        status, _, _ = s.post(list_2026(), {**H2026, "Origin": origin})
        s.check(status == 403, f"Origin {origin!r}: HTTP {status}, want 403")
    evil = f"evil.example:{s.port}"
    status, _, _ = s.post(list_2026(), {**H2026, "Host": evil, "Origin": f"http://{evil}"})
    s.check(status == 421, f"rebinding (foreign Host and its Origin): HTTP {status}, want 421")
    status, _, _ = s.post(list_2026(), {**H2026, "Host": evil})
    s.check(status == 421, f"rebinding (foreign Host, no Origin): HTTP {status}, want 421")
    # A 2025 initialize from a page opens no session.
    for headers, want in (({"Origin": "http://evil.example"}, 403), ({"Host": evil}, 421),
                          ({"Origin": "null"}, 403)):
        status, h, _ = s.post(initialize(), headers)
        s.check(status == want and "mcp-session-id" not in h,
                f"2025 initialize with {headers}: HTTP {status}, session {h.get('mcp-session-id')!r}")


def initialize() -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": V2025, "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "edge", "version": "1"}}}


def open_session(s: Server, user: Optional[str]) -> str:
    status, h, raw = s.post(initialize(), bearer(user))
    sid = h.get("mcp-session-id")
    if status != 200 or not sid:
        raise Failed(f"initialize as {user}: HTTP {status} {raw[:200]!r}")
    status, _, raw = s.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                            {"Mcp-Session-Id": sid, "MCP-Protocol-Version": V2025, **bearer(user)})
    if status not in (200, 202):
        raise Failed(f"notifications/initialized as {user}: HTTP {status} {raw[:200]!r}")
    return sid


def on_session(sid: str, user: Optional[str]) -> Dict[str, Optional[str]]:
    return {"Mcp-Session-Id": sid, "MCP-Protocol-Version": V2025, **bearer(user)}


def messages(raw: bytes, content_type: str) -> List[Dict[str, Any]]:
    """The JSON-RPC messages of a JSON or SSE body."""
    if "text/event-stream" not in content_type:
        return [json.loads(raw)] if raw.strip() else []
    out = []
    for event in raw.decode().replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
        if data.strip():
            out.append(json.loads(data))
    return out


def sessions_belong_to_their_user(s: Server) -> None:
    sid = open_session(s, "alice")
    # A session id that was never issued: what a refusal must look like, byte for byte, so that
    # a leaked id neither works nor tells its finder that it exists.
    never = s.post({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}, on_session("0" * 32, "bob"))
    s.check(never[0] == 404, f"a session id never issued: HTTP {never[0]}, want 404")
    for who in ("bob", None):
        status, _, raw = s.post({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}, on_session(sid, who))
        s.check((status, raw) == (never[0], never[2]),
                f"alice's session used by {who or 'anonymous'}: HTTP {status} {raw[:120]!r}, want the bytes of an "
                f"unknown session: HTTP {never[0]} {never[2][:120]!r}")
    status, h, raw = s.post({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}, on_session(sid, "alice"))
    tools = [m for m in messages(raw, h.get("content-type", "")) if m.get("id") == 6]
    s.check(status == 200 and bool(tools) and "result" in tools[0],
            f"alice on her own session after the refusals: HTTP {status} {raw[:200]!r}")


class Flow:
    """A 2025 tools/call of alice's whose SSE stream is read in a thread."""

    def __init__(self, s: Server, sid: str, rid: int) -> None:
        self.s, self.sid, self.rid = s, sid, rid
        self.events: "queue.Queue[Any]" = queue.Queue()
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                "params": {"name": "preferred_color", "arguments": {}}}
        self.conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=20)
        headers = {"Host": s.host, "Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream", **on_session(sid, "alice")}
        self.conn.request("POST", "/mcp", json.dumps(body).encode(), {k: v for k, v in headers.items() if v})
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            r = self.conn.getresponse()
            if "text/event-stream" not in (r.getheader("content-type") or ""):
                for m in messages(r.read(), r.getheader("content-type") or ""):
                    self.events.put(m)
                return
            data: List[str] = []
            while True:
                line = r.fp.readline()
                if not line:
                    return
                text = line.decode().rstrip("\r\n")
                if text.startswith("data:"):
                    data.append(text[5:].lstrip())
                elif not text and data:
                    # An event with empty data (a priming event: rmcp sends one
                    # to set the reconnect delay) carries no message.
                    if "".join(data).strip():
                        self.events.put(json.loads("\n".join(data)))
                    data = []
        except Exception as e:  # reported as an event: the checks then fail on it
            self.events.put(e)
        finally:
            self.events.put(None)

    def next(self, timeout: float = 10) -> Any:
        return self.events.get(timeout=timeout)

    def question(self) -> Dict[str, Any]:
        while True:
            m = self.next()
            if m is None or isinstance(m, Exception):
                raise Failed(f"alice's flow ended before asking: {m!r}")
            if m.get("method") == "elicitation/create":
                return m

    def result(self) -> Dict[str, Any]:
        while True:
            m = self.next()
            if m is None or isinstance(m, Exception):
                raise Failed(f"alice's flow ended without its result: {m!r}")
            if m.get("id") == self.rid and "method" not in m:
                return m

    def close(self) -> None:
        self.conn.close()


def answers_belong_to_their_user(s: Server) -> None:
    sid = open_session(s, "alice")
    for attack in ("answer", "cancel"):
        flow = Flow(s, sid, 40 if attack == "answer" else 41)
        try:
            q = flow.question()
            if attack == "answer":
                forged = {"jsonrpc": "2.0", "id": q["id"],
                          "result": {"action": "accept", "content": {"color": "red"}}}
            else:
                forged = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                          "params": {"requestId": flow.rid, "reason": "bob"}}
            status, _, _ = s.post(forged, on_session(sid, "bob"))
            s.check(status == 404, f"bob's {attack} on alice's flow: HTTP {status}, want 404")
            status, _, _ = s.post(forged, on_session(sid, None))
            s.check(status == 404, f"an anonymous {attack} on alice's flow: HTTP {status}, want 404")
            mine = {"jsonrpc": "2.0", "id": q["id"], "result": {"action": "accept", "content": {"color": "green"}}}
            status, _, raw = s.post(mine, on_session(sid, "alice"))
            s.check(status in (200, 202), f"alice's own answer after bob's {attack}: HTTP {status} {raw[:200]!r}")
            result = flow.result().get("result") or {}
            text = ((result.get("content") or [{}])[0]).get("text")
            s.check(text == "Your preferred color is green.",
                    f"alice's flow after bob's {attack}: {text!r}, want alice's choice")
        finally:
            flow.close()


def sessions_per_client_are_capped(s: Server) -> None:
    for _ in range(16):
        open_session(s, "carol")  # raises Failed if refused
    status, h, _ = s.post(initialize(), bearer("carol"))
    s.check(status == 429 and "mcp-session-id" not in h, f"carol's 17th initialize: HTTP {status}, want 429")
    status, h, _ = s.post(initialize(), bearer("dave"))
    s.check(status == 200 and "mcp-session-id" in h, f"dave's initialize after carol's quota: HTTP {status}")


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: run.py KIND PORT  (KIND: a label for the summary line)", file=sys.stderr)
        return 2
    s = Server(sys.argv[1], int(sys.argv[2]))
    for scenario in (origin_and_host, sessions_belong_to_their_user, answers_belong_to_their_user,
                     sessions_per_client_are_capped):
        try:
            scenario(s)
        except Failed as e:
            s.check(False, f"{scenario.__name__}: {e}")
        except Exception as e:  # a crash is a failure of this server, with its reason
            s.check(False, f"{scenario.__name__}: {e!r}")
    status = "ok" if not s.failures else f"FAILED ({len(s.failures)})"
    print(f"edge: {s.kind}: {status}: {s.passed} checks passed, {len(s.failures)} failed", flush=True)
    return 1 if s.failures else 0


if __name__ == "__main__":
    sys.exit(main())
