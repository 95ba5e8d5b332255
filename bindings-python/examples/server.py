"""A small MCP server on snodo_mrtr (+ requirements.txt), for both protocol eras. Copy it, then replace the tools.

    python server.py --stdio        # JSON-RPC, one message per line on stdin/stdout (logs: stderr)
    python server.py --http PORT    # Streamable HTTP at http://127.0.0.1:PORT/mcp (0: any free port)
SNODO_KEYS="id:hex-or-base64,old:..." (the first signs, all verify; unset: a random key for this process only);
SNODO_ALLOWED_HOSTS, SNODO_ALLOWED_ORIGINS: Host names a proxy forwards here, pages that may call (unset: loopback)."""

import asyncio
import json
import os
import socket
import sys
import time
from typing import Any, AsyncIterator, Dict, List, Optional, Set, Tuple

import snodo_mrtr as mrtr
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

INFO = {"name": "snodo-python-example", "version": mrtr.VERSION}
# Bodies up to 4 MiB; 2025 sessions: 16 per user (per address when anonymous), ended after 120 s idle.
MAX_BODY, SESSIONS_PER_CLIENT, SESSION_IDLE_SECS = 4 << 20, 16, 120

SPEC = os.environ.get("SNODO_KEYS", "").strip()
try:  # snodo's ConfigError is a ValueError too; from_env's names a bad SNODO_KEYS entry, never its bytes
    ENGINE = mrtr.Engine.from_env(server_info=INFO) if SPEC else mrtr.Engine.development()
    POLICY = mrtr.OriginPolicy(*([e.strip() for e in os.environ.get(name, "").split(",") if e.strip()] or None
                                 for name in ("SNODO_ALLOWED_HOSTS", "SNODO_ALLOWED_ORIGINS")))
except ValueError as e:
    sys.exit(f"configuration: {e}")
if not SPEC:
    print("warning: SNODO_KEYS is not set: a random key for this process only", file=sys.stderr)

# --- the tools. Questions are built once: an answer counts only for the question asked last round.
COLOR = mrtr.elicit_form("Which color do you prefer?", {"type": "object", "required": ["color"],
                         "properties": {"color": {"type": "string", "enum": ["red", "green", "blue"]}}})
BOOKING = mrtr.elicit_form("How many nights shall we book?", {"type": "object", "required": ["nights"],
                           "properties": {"nights": {"type": "integer", "minimum": 1, "maximum": 14}}})
FORMAT = mrtr.elicit_form("Which format should the report use?", {"type": "object", "required": ["format"],
                          "properties": {"format": {"type": "string", "enum": ["table", "chart"]}}})

def text(t: str) -> Dict[str, Any]:
    return mrtr.complete({"content": [{"type": "text", "text": t}]})

async def preferred_color(call: mrtr.Call) -> Dict[str, Any]:
    a = call.response("color", COLOR)
    if a.is_accepted:
        return text(f"Your preferred color is {(a.value or {})['color']}.")
    if a.is_declined:
        return text("You declined to choose a color.")
    if a.is_cancelled:
        return mrtr.tool_error("You cancelled the color question.")
    return mrtr.input_required({"color": COLOR})  # missing or invalid: ask (again)

# At most once per flow: a lost response, a double click or a replayed token never books twice. This store is this
# process's memory; a fleet shares one Redis: mrtr.AsyncRedisStore(url), `await STORE.check()` at start (docs/once.md).
STORE = mrtr.MemoryStore()
BOOKINGS: List[Dict[str, Any]] = []  # stands in for your database

async def book_room(call: mrtr.Call) -> Dict[str, Any]:
    try:
        if call.flow_id is not None:  # a retry: the flow may be booked already
            remembered = await mrtr.check_once_async(STORE, call)
            if remembered is not None:  # the same final round again: the same booking
                return mrtr.complete(remembered)
        a = call.response("booking", BOOKING)
        if a.is_declined or a.is_cancelled:
            return text("No room booked.")
        if not a.is_accepted or call.flow_id is None:  # (answers sent up front have no flow to book once)
            return mrtr.input_required({"booking": BOOKING})
        def book(lease: mrtr.AsyncOnceLease) -> Dict[str, Any]:  # runs once per flow, on one process
            BOOKINGS.append({"user": call.principal, "nights": (a.value or {})["nights"], "fence": lease.fence})
            return {"content": [{"type": "text", "text": f"Booked: entry #{len(BOOKINGS)}"}]}
        return mrtr.complete(await mrtr.run_once_async(STORE, call, book))
    except mrtr.TokenError:  # the flow was booked with other answers
        return mrtr.error(-32602, "Invalid or expired requestState", {"reason": "replayed"})
    except mrtr.StoreError as e:  # nothing was booked here: the client may retry
        return mrtr.error(-32603, f"once store unavailable: {e}")

async def report(call: mrtr.Call) -> Dict[str, Any]:  # a task for a client that can (docs/tasks.md)
    if not isinstance(state := call.state, dict):  # the first half of the work; the rest may run as a task
        return mrtr.run_as_task({"rows": 1250})
    if (a := call.response("format", FORMAT)).is_accepted:  # halfway: a choice
        return text(f"Report of {state['rows']} rows as a {(a.value or {})['format']}.")
    ended = a.is_declined or a.is_cancelled
    return mrtr.tool_error("No format chosen: no report.") if ended else mrtr.input_required({"format": FORMAT}, state)

TOOLS = {"preferred_color": ("Asks your preferred color", preferred_color),
         "book_room": ("Books a room, once: asks for how many nights", book_room),
         "report": ("Writes a report; asks its format halfway (a task, for a client that can)", report)}
LISTS: Dict[str, Dict[str, Any]] = {
    "server/discover": {"supportedVersions": [mrtr.MRTR_VERSION], "capabilities": {
        "tools": {}, "extensions": {mrtr.TASKS_EXTENSION: {}}}},
    "tools/list": {"tools": [{"name": name, "description": description, "inputSchema": {"type": "object"}}
                             for name, (description, _) in TOOLS.items()]}}

async def route(call: mrtr.Call) -> Dict[str, Any]:
    try:  # the lists are the same for everyone, every time: cacheable
        if call.method in LISTS:
            return mrtr.complete({**LISTS[call.method], "ttlMs": 0, "cacheScope": "private"})
        if call.method != "tools/call":
            return mrtr.error(-32601, f"Method not found: {call.method}")
        tool = TOOLS.get(call.name or "")
        return await tool[1](call) if tool else mrtr.error(-32602, f"Unknown tool: {call.name}")
    except Exception as e:  # a bug in a tool still gets exactly one response
        print(f"{call.method} failed: {e!r}", file=sys.stderr)
        return mrtr.error(-32603, "Internal error")

def sent(response: mrtr.Response) -> str:
    if response.diagnostic:  # why snodo replaced a result: for the operator, never the client
        print(f"snodo: {response.diagnostic}", file=sys.stderr)
    return response.to_json()

TASKS = mrtr.Tasks(ENGINE, route, store=mrtr.MemoryTaskStore())  # a fleet: the once store's Redis, store=STORE
async def answer(raw: bytes, principal: Optional[str]) -> mrtr.Response:  # a 2026-07-28 request
    begun = ENGINE.begin(raw, principal)  # principal None: the anonymous user
    return begun if isinstance(begun, mrtr.Response) else await TASKS.answer(begun)  # decides, or runs tasks

def parse(raw: bytes) -> Tuple[Dict[str, Any], bool]:  # the message, and whether it is a request
    try:  # (what is not JSON, or not an object, is a request that begin answers with its error)
        m = json.loads(raw)
    except ValueError:
        return {}, bool(raw.strip())
    return (m, "method" in m and "id" in m) if isinstance(m, dict) else ({}, True)

# --- 2025-era sessions: snodo's legacy bridge asks the client with real requests; answers come back.
WAITING: Dict[str, Tuple[mrtr.PendingFlow, "asyncio.Future[Any]"]] = {}  # by the id of each question
SESSIONS: Dict[str, "Legacy"] = {}  # HTTP sessions by Mcp-Session-Id

class Legacy:  # a session: what `initialize` negotiated and who opened it, its client, its use
    def __init__(self, m: Dict[str, Any], principal: Optional[str], client: str) -> None:
        params = m["params"] if isinstance(m.get("params"), dict) else {}  # (from_initialize refuses a bad one)
        version = ENGINE.legacy_version_for(str(params.get("protocolVersion", ""))) or ""
        self.session = mrtr.Session.from_initialize(m, version, principal=principal)
        self.client, self.seen, self.busy = client, time.monotonic(), 0
        result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": INFO}
        self.welcome = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": result})

    async def request(self, raw: bytes, principal: Optional[str]) -> AsyncIterator[str]:
        call = ENGINE.begin_legacy(raw, self.session, principal)  # the questions it asks, then its response
        while isinstance(call, mrtr.Call):
            pending = ENGINE.decide_legacy(call, await route(call))
            if not isinstance(pending, mrtr.PendingFlow):  # the response, or a Call: a round with state only
                call = pending
                continue
            done: "asyncio.Future[Any]" = asyncio.get_running_loop().create_future()
            WAITING.update((rid, (pending, done)) for rid in pending.request_ids)
            self.busy += 1
            try:
                for question in pending.requests:
                    yield json.dumps(question)
                fed = await asyncio.wait_for(done, max(0, pending.deadline - ENGINE.now()) + 0.5)
            except asyncio.TimeoutError:
                fed = ENGINE.timeout(pending)
            finally:  # (also when the client goes away)
                self.busy, self.seen = self.busy - 1, time.monotonic()
                for rid in pending.request_ids:
                    WAITING.pop(rid, None)
            for note in fed.cancellations:
                yield json.dumps(note)
            call = fed.call if fed.kind == "resume" else fed.response  # resume: every answer is in
        yield sent(call)

def opened(m: Dict[str, Any], principal: Optional[str], client: str) -> Optional[Legacy]:
    try:  # None: snodo refused the initialize (then begin answers it with the error)
        return Legacy(m, principal, client)
    except mrtr.SnodoError:
        return None

def take(m: Dict[str, Any], raw: bytes, principal: Optional[str]) -> Optional[str]:
    pending, done = WAITING.get(str(m.get("id")), (None, None))  # an answer to one of our questions
    if pending is None or done is None:
        return f"no question awaits id {m.get('id')!r}"
    try:  # snodo refuses an answer that is late, repeated, malformed or another user's
        fed = ENGINE.feed(pending, raw, principal)
    except mrtr.SnodoError as e:
        return str(e)
    if fed.kind != "waiting" and not done.done():  # every answer is in (or the flow failed)
        done.set_result(fed)
    return None

async def serve_stdio() -> None:  # one client, the anonymous user; `initialize` first: a 2025 session
    ls: Optional[Legacy] = None
    running: Set["asyncio.Task[None]"] = set()  # (the event loop keeps only weak references to tasks)
    async def relay(lines: AsyncIterator[str]) -> None:
        async for line in lines:
            print(line, flush=True)
    while line := await asyncio.to_thread(sys.stdin.buffer.readline):
        m, is_request = parse(line)
        if ls is None and is_request and m.get("method") == "initialize" and (ls := opened(m, None, "stdio")):
            print(ls.welcome, flush=True)
        elif ls is None and is_request:
            print(sent(await answer(line, None)), flush=True)
        elif ls is not None and is_request:  # runs on beside the next lines, which bring its answers
            running.add(task := asyncio.create_task(relay(ls.request(line, None))))
            task.add_done_callback(running.discard)
        elif "id" in m and "method" not in m and (why := take(m, line, None)):
            print(f"ignored: {why}", file=sys.stderr)

async def mcp(request: Request) -> Response:  # Streamable HTTP: POST /mcp
    def reply(response: mrtr.Response) -> Response:
        return Response(sent(response), response.http_status, media_type="application/json")
    refusal = mrtr.check_http_origin(POLICY, request.headers.items())  # first: a web page, or DNS rebinding
    # DEMO ONLY: the bearer token is the user's name. A real server verifies it and passes the user.
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    principal = (token.strip() or None) if scheme.lower() == "bearer" else None  # None: anonymous
    ls = SESSIONS.get(sid := request.headers.get("mcp-session-id", ""))
    refusal = refusal or (ls.session.check_principal(principal) if ls else None)  # another user's: not there
    if refusal is not None or (sid and ls is None):
        return reply(refusal or mrtr.unknown_session())  # the same bytes: nobody learns which
    body = b""
    async for chunk in request.stream():
        if len(body := body + chunk) > MAX_BODY:
            return Response(status_code=413)
    m, is_request = parse(body)
    if ls is None and is_request and m.get("method") == "initialize":  # a new session, in the quota
        client = f"user {principal}" if principal else f"address {getattr(request.client, 'host', '')}"
        for old_id, old in list(SESSIONS.items()):  # the idle sweep
            if not old.busy and time.monotonic() - old.seen > SESSION_IDLE_SECS:
                del SESSIONS[old_id]
        if sum(old.client == client for old in SESSIONS.values()) >= SESSIONS_PER_CLIENT:
            return Response(status_code=429, headers={"Retry-After": "60"})
        if (ls := opened(m, principal, client)) is None:
            return reply(await answer(body, principal))
        SESSIONS[ls.session.id] = ls
        return Response(ls.welcome, media_type="application/json", headers={"Mcp-Session-Id": ls.session.id})
    if ls is None and is_request:  # 2026-07-28: the request-metadata headers must agree with the body
        return reply(mrtr.check_http_headers(request.headers.items(), body) or await answer(body, principal))
    if ls is not None and is_request:  # its questions, then its response: events on this POST's stream
        ls.seen = time.monotonic()
        events = (f"event: message\ndata: {t}\n\n" async for t in ls.request(body, principal))
        return StreamingResponse(events, media_type="text/event-stream", headers={"Mcp-Session-Id": sid})
    why = take(m, body, principal) if ls is not None and "method" not in m else None
    return Response(status_code=202) if why is None else Response(why, 400)  # (a notification: 202)

if __name__ == "__main__":
    if sys.argv[1:] == ["--stdio"]:
        asyncio.run(serve_stdio())
    elif len(sys.argv) == 3 and sys.argv[1] == "--http" and sys.argv[2].isdigit():
        sock = socket.socket(proto=socket.IPPROTO_TCP)  # (a TCP socket by name: asyncio then turns Nagle off)
        sock.bind(("127.0.0.1", int(sys.argv[2])))  # bound here, so that port 0's real port is known
        sock.listen(128)
        print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
        app = Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])  # (other methods: 405)
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    else:
        sys.exit("usage: server.py --stdio | --http PORT")
