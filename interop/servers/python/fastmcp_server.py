"""The interop/CONTRACT.md surface on FastMCP (`fastmcp` 4.2.3 on `mcp` 2.3.0),
with snodo making every MRTR decision (snodo_mrtr.fastmcp).

    python interop/servers/python/fastmcp_server.py --stdio       # FastMCP's stdio transport
    python interop/servers/python/fastmcp_server.py --http PORT   # FastMCP's Streamable HTTP app on 127.0.0.1:PORT/mcp (0 = any port)

A contract server of the interop suites (`--server fastmcp`), on the interpreter that has the
snodo-mrtr wheel and FastMCP (target/interop/venv, interop/servers/python/requirements-fastmcp.txt).

FastMCP serves the transport, the era handshake, server/discover and the lists; the tools,
the resource and the prompts are server.py's handlers, registered through snodo: they take
the snodo Call and return an outcome. Keys, principal and texts as sdk_server.py (SNODO_KEYS
through Engine.from_env, the development engine when unset; Bearer = user, demo only), and
`book_room` booked at most once per flow through the adapter's run_once, as sdk_server.py
does. Not served: the Tasks extension demo (paint_task, tasks/*). FastMCP declares no
listChanged or subscriptions on 2026-07-28 (the conformance suite skips those checks), so
the list-change fixtures answer as server.py's do: the lists are static.

The HTTP edge is sdk_server.py's `Edge` in front of FastMCP's app: snodo's Origin/Host check
on every request first, each 2025 session bound to the user of its `initialize`, and the
session limits of the same environment. FastMCP's own Host/Origin guard is off: snodo's
check in front decides (tests/edge/run.py proves it), so the two can never disagree.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sdk_server as sdk  # noqa: E402  (the HTTP edge, the principal and book_room of the SDK server)
import server as app  # noqa: E402  (the handlers and the key loading of the plain example)

from fastmcp import FastMCP  # noqa: E402

import snodo_mrtr as mrtr  # noqa: E402
from snodo_mrtr.fastmcp import Snodo  # noqa: E402


def build(engine: Any) -> FastMCP:
    # A version, so the serverInfo FastMCP stamps on server/discover is complete.
    mcp = FastMCP("snodo-fastmcp-example", version=mrtr.VERSION)
    store, append = app.booking_effects()
    snodo = Snodo(engine, principal=sdk.bearer, once=store).install(mcp)
    for name, (description, handler) in app.TOOLS.items():
        if name != "paint_task":
            snodo.tool(mcp, name=name, description=description)(handler)
    snodo.resource(mcp, "prefs://color", name="preferred-color", description="Your preferred color",
                   mime_type="text/plain")(app.preferred_color_resource)
    for name, (description, handler) in app.PROMPTS.items():
        snodo.prompt(mcp, name=name, description=description)(handler)
    snodo.tool(mcp, name="book_room", description="Books a room, once: asks for how many nights")(
        sdk.book_room(snodo, append))
    return mcp


def serve_http(mcp: FastMCP, port: int) -> None:
    # Stateful sessions: a 2025-era request's elicitation/create needs its session's stream.
    sdk.serve_edge(port, lambda _bound, idle, _total: mcp.http_app(
        path="/mcp", json_response=False, stateless_http=False, host_origin_protection=False,
        session_idle_timeout=idle))


def main() -> None:
    parser = argparse.ArgumentParser(description="The CONTRACT.md surface on FastMCP + snodo.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true")
    mode.add_argument("--http", type=int, metavar="PORT")
    args = parser.parse_args()
    app.check_effects()  # a configured Redis: reachable and not evicting, or exit
    mcp = build(app.load_engine()())
    if args.stdio:
        mcp.run("stdio", show_banner=False)
    else:
        serve_http(mcp, args.http)


if __name__ == "__main__":
    main()
