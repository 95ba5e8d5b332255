"""The interop/CONTRACT.md surface on the official MCP Python SDK (`mcp` 2.3.0),
with snodo making every MRTR decision (snodo_mrtr.mcp).

    python interop/servers/python/sdk_server.py --stdio       # the SDK's stdio transport
    python interop/servers/python/sdk_server.py --http PORT   # the SDK's Streamable HTTP app on 127.0.0.1:PORT/mcp (0 = any port)

A contract server of the interop suites (`--server python-sdk`), on the interpreter that has
the snodo-mrtr wheel and `mcp` (target/interop/venv).

The SDK serves the transport, the era handshake, server/discover and the
lists; the tools, the resource and the prompts are server.py's handlers,
registered through snodo: they take the snodo Call and return an outcome.
Keys, principal and texts as server.py (SNODO_KEYS, Bearer = user, demo only).
Not served here: the Tasks extension demo (paint_task, tasks/*), which the
SDK routes itself. Served besides: `book_room` as the examples serve it
(CONTRACT.md: asks only the nights, books at most once per flow), through the
adapter's run_once.

The HTTP edge is server.py's, with the same environment (SNODO_ALLOWED_HOSTS,
SNODO_ALLOWED_ORIGINS, SNODO_MAX_SESSIONS, SNODO_MAX_SESSIONS_PER_CLIENT,
SNODO_SESSION_IDLE_SECS), held by `Edge`, an ASGI layer in front of the SDK's
app: snodo's Origin/Host check on every request, and each 2025 session bound
to the user of its `initialize`. The SDK's own DNS-rebinding protection is on
too, with the same lists, and its session limits are set to the same values.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import time
from typing import Any, Awaitable, Callable, Dict, List, MutableMapping, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server as app  # noqa: E402  (the handlers and the key loading of the plain example)

from mcp.server.mcpserver import Context, MCPServer  # noqa: E402

import snodo_mrtr as mrtr  # noqa: E402

from snodo_mrtr.mcp import Snodo  # noqa: E402


def bearer(ctx: Any) -> Optional[str]:
    """The principal of a request, for snodo: the same reading as the HTTP edge's."""
    request = getattr(ctx, "request", None)
    if request is None:
        return None  # stdio: anonymous
    return bearer_of(request.headers.get("authorization", ""))


TRIGGERS = {"test_trigger_tool_change": "tools", "test_trigger_prompt_change": "prompts"}


def trigger(kind: str) -> Any:
    """The SDK declares listChanged on 2026 (it serves subscriptions/listen): the
    conformance fixtures that "mutate" a list publish the change. No MRTR here,
    so they are plain SDK tools next to snodo's."""

    async def run(ctx: Context) -> str:
        await (ctx.notify_tools_changed() if kind == "tools" else ctx.notify_prompts_changed())
        return f"Published {kind}/list_changed."

    return run


# --- book_room: the examples' effectful tool (CONTRACT.md), booked at most once per flow ---
#
# Through the adapter's once methods, on server.py's store and ledger: the process's MemoryStore and
# a list in memory (or SNODO_LEDGER's file), or the Redis that SNODO_REDIS_URL /
# SNODO_REDIS_CLUSTER_URLS names. A sync function: snodo runs it in a worker thread, where
# run_once may wait for another caller of the flow without stalling the server.

BOOKING = mrtr.elicit_form("How many nights shall we book?", {"type": "object", "required": ["nights"],
                           "properties": {"nights": {"type": "integer", "minimum": 1, "maximum": 14}}})


def book_room(snodo: Snodo, append: Callable[[Dict[str, Any]], int]) -> Callable[[mrtr.Call], mrtr.Outcome]:
    def book(call: mrtr.Call) -> mrtr.Outcome:
        done = snodo.check_once(call)
        if done is not None:  # booked already: the same booking, or refused as replayed
            return done
        a = call.response("booking", BOOKING)
        if a.is_declined or a.is_cancelled:
            return app.text("No room booked.")
        if not a.is_accepted or call.flow_id is None:  # answers sent up front have no flow to book once
            return mrtr.input_required({"booking": BOOKING})
        entry = {"flow": call.flow_id, "principal": call.principal, "answers": {"nights": a.value["nights"]}}

        def effect(lease: mrtr.OnceLease) -> Dict[str, Any]:
            # The fence lets a ledger refuse a write from an owner whose lease lapsed.
            n = append({**entry, "fence": lease.fence})
            return {"content": [{"type": "text", "text": f"Booked: entry #{n}"}]}

        try:
            return snodo.run_once(call, effect)
        except app.LedgerError as e:  # nothing was written: run_once released the claim, a retry books
            return mrtr.error(-32603, f"ledger unavailable: {e}")

    return book


def build(engine: Any) -> MCPServer:
    # A version, so the serverInfo the SDK stamps on server/discover is complete.
    mcp = MCPServer("snodo-python-sdk-example", version=mrtr.VERSION)
    store, append = app.booking_effects()
    snodo = Snodo(engine, principal=bearer, once=store).install(mcp)
    for name, (description, handler) in app.TOOLS.items():
        if name in TRIGGERS:
            mcp.add_tool(trigger(TRIGGERS[name]), name=name, description=description)
        elif name != "paint_task":
            snodo.tool(mcp, name=name, description=description)(handler)
    snodo.resource(mcp, "prefs://color", name="preferred-color", description="Your preferred color",
                   mime_type="text/plain")(app.preferred_color_resource)
    for name, (description, handler) in app.PROMPTS.items():
        snodo.prompt(mcp, name=name, description=description)(handler)
    snodo.tool(mcp, name="book_room", description="Books a room, once: asks for how many nights")(
        book_room(snodo, append))
    return mcp


# --- the HTTP edge, in front of the SDK's app ---
#
# ASGI in its plainest form: `scope` says what the request is, `receive` yields its body,
# `send` takes the answer. Edge answers a refusal itself and passes everything else on.

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class Owner:
    """Who opened one 2025 session (a snodo Session holds it and words the refusal), the
    client it counts against, and when it was last used (requests in flight keep it alive)."""

    __slots__ = ("session", "client", "touched", "busy")

    def __init__(self, session: mrtr.Session, client: str) -> None:
        self.session, self.client = session, client
        self.touched, self.busy = time.monotonic(), 0


class Edge:
    """snodo's HTTP edge in front of the SDK's Streamable HTTP app.

    * Every request: `check_http_origin` on its head (421 / 403 with snodo's JSON body).
    * A 2025 session is recorded with its `initialize`'s principal when the SDK answers it
      with a new Mcp-Session-Id; every later request naming the session (POST of a call, an
      answer or a notification, GET, DELETE) from anyone else gets Session.check_principal's
      404, as does a session id never recorded here: the SDK never sees either.
    * Opening a session counts against the client (the user; for anonymous clients, the
      address): SNODO_MAX_SESSIONS_PER_CLIENT, SNODO_MAX_SESSIONS in all (429 / 503); a
      session idle for SNODO_SESSION_IDLE_SECS with nothing in flight is forgotten (swept
      when a session opens; the SDK ends its own side after the same idle time).

    Runs on the server's one event loop: the table needs no lock (no await inside a change).
    """

    def __init__(self, app: ASGIApp, policy: mrtr.OriginPolicy, total: int, per_client: int,
                 idle_secs: float) -> None:
        self.app, self.policy = app, policy
        self.total, self.per_client, self.idle_secs = total, per_client, idle_secs
        self.owners: Dict[str, Owner] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # the lifespan: the SDK's session manager starts there
            return await self.app(scope, receive, send)
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        refusal = mrtr.check_http_origin(self.policy, headers)  # every occurrence: a repeat is refused
        if refusal is not None:
            return await answer(send, refusal.http_status, refusal.to_json())
        first = {k.lower(): v for k, v in reversed(headers)}
        principal = bearer_of(first.get("authorization", ""))
        sid = first.get("mcp-session-id")
        if sid is not None:
            return await self.on_session(sid, principal, scope, receive, send)
        version = first.get("mcp-protocol-version")
        if scope["method"] != "POST" or (version is not None and version >= mrtr.MRTR_VERSION):
            return await self.app(scope, receive, send)  # 2026: no session to open
        client = "user:" + principal if principal is not None else "addr:" + str((scope.get("client") or ("",))[0])
        full = self.room_for(client)
        if full is not None:
            status, why = (429, "Too many sessions for this client; close one or try again later") \
                if full == "client" else (503, "Too many sessions; try again later")
            return await answer(send, status, app.rpc_error(None, -32000, why))

        async def opening(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                opened = next((v.decode("latin-1") for k, v in message.get("headers", [])
                               if k.lower() == b"mcp-session-id"), None)
                if opened is not None:  # recorded before the client can learn the id
                    # What was negotiated stays the SDK's; this Session holds who opened it.
                    session = mrtr.Session(mrtr.DEFAULT_LEGACY_VERSIONS[0], {}, principal=principal, id=opened)
                    self.owners[opened] = Owner(session, client)
            await send(message)

        await self.app(scope, receive, opening)

    async def on_session(self, sid: str, principal: Optional[str], scope: Scope, receive: Receive,
                         send: Send) -> None:
        owner = self.owners.get(sid)
        if owner is None:  # every live session was recorded here: this one does not exist (any more)
            return await answer(send, *not_found())
        refusal = owner.session.check_principal(principal)
        if refusal is not None:
            return await answer(send, refusal.http_status, refusal.to_json())
        ended = False

        async def watch(message: Message) -> None:
            nonlocal ended
            if message["type"] == "http.response.start" and scope["method"] == "DELETE":
                ended = message["status"] < 400
            await send(message)

        owner.busy += 1
        try:
            await self.app(scope, receive, watch)
        finally:
            owner.busy -= 1
            owner.touched = time.monotonic()
            if ended:
                self.owners.pop(sid, None)

    def room_for(self, client: str) -> Optional[str]:
        """None when `client` may open a session; else which limit is reached."""
        now = time.monotonic()
        for sid in [k for k, o in self.owners.items() if not o.busy and now - o.touched > self.idle_secs]:
            del self.owners[sid]
        if len(self.owners) >= self.total:
            return "total"
        if sum(1 for o in self.owners.values() if o.client == client) >= self.per_client:
            return "client"
        return None


def bearer_of(authorization: str) -> Optional[str]:
    """Demo only: the Bearer token verbatim is the user. A real server verifies it first."""
    scheme, _, token = authorization.partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


def not_found() -> Tuple[int, str]:
    reply = app.session_not_found()
    return reply.status, reply.body or ""


async def answer(send: Send, status: int, body: str) -> None:
    data = body.encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})


def transport_security(port: int) -> Any:
    """The SDK's DNS-rebinding protection with server.py's lists, so that it never refuses
    what snodo's check in front lets through: a host without a port is any port (the SDK
    spells that `name:*`), and each allowed host's own origin is allowed, as snodo allows a
    same-origin page (on loopback, where Host carries this server's `port`, only that port's).
    `*` has no SDK spelling: then only snodo's check holds."""
    from mcp.server.transport_security import TransportSecuritySettings

    hosts, origins = app.env_list("SNODO_ALLOWED_HOSTS"), app.env_list("SNODO_ALLOWED_ORIGINS")
    loopback = hosts is None and origins is None
    hosts = list(mrtr.LOOPBACK_HOSTS) if loopback else hosts or []
    origins = origins or []
    if "*" in hosts or "*" in origins:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    sdk_hosts: List[str] = []
    sdk_origins = list(origins)
    for host in hosts:
        has_port = host.rsplit("]", 1)[-1].count(":") == 1
        spellings = [host] if has_port else [host, f"{host}:*"]
        sdk_hosts += spellings
        own = [host, f"{host}:{port}"] if loopback else spellings
        sdk_origins += [f"{scheme}://{h}" for h in own for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=sdk_hosts,
                                     allowed_origins=sdk_origins)


def serve_edge(port: int, sdk_app: Callable[[int, int, int], Any]) -> None:
    """Serves `sdk_app(bound port, idle secs, total sessions)` (an SDK's ASGI app, SSE
    responses: a 2025-era request needs its own stream for the elicitation/create snodo sends)
    behind the Edge on 127.0.0.1:`port`, with the session limits of the environment."""
    import anyio
    import uvicorn

    policy = app.edge_policy()  # a bad list exits here, before anything listens
    total = app.env_limit("SNODO_MAX_SESSIONS", app.MAX_SESSIONS)
    per_client = app.env_limit("SNODO_MAX_SESSIONS_PER_CLIENT", app.MAX_SESSIONS_PER_CLIENT)
    idle = app.env_limit("SNODO_SESSION_IDLE_SECS", app.SESSION_IDLE_SECS)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    edge = Edge(sdk_app(sock.getsockname()[1], idle, total), policy, total, per_client, idle)
    config = uvicorn.Config(edge, log_level="warning", lifespan="on")
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


def serve_http(mcp: MCPServer, port: int) -> None:
    serve_edge(port, lambda bound, idle, total: mcp.streamable_http_app(
        json_response=False, transport_security=transport_security(bound), session_idle_timeout=idle,
        max_sessions=total))


def main() -> None:
    parser = argparse.ArgumentParser(description="The CONTRACT.md surface on the official MCP Python SDK + snodo.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true")
    mode.add_argument("--http", type=int, metavar="PORT")
    args = parser.parse_args()
    app.check_effects()  # a configured Redis: reachable and not evicting, or exit
    mcp = build(app.load_engine()())
    if args.stdio:
        mcp.run("stdio")
    else:
        serve_http(mcp, args.http)


if __name__ == "__main__":
    main()
