"""The interop/CONTRACT.md surface on the official MCP Python SDK (`mcp` 2.3.0),
with snodo making every MRTR decision (snodo_mrtr.mcp).

    python sdk_server.py --stdio          # the SDK's stdio transport
    python sdk_server.py --http 8787      # the SDK's Streamable HTTP app on 127.0.0.1:PORT/mcp (0 = any port)

The SDK serves the transport, the era handshake, server/discover and the
lists; the tools, the resource and the prompts are server.py's handlers,
registered through snodo: they take the snodo Call and return an outcome.
Keys, principal and texts as server.py (SNODO_KEYS, Bearer = user, demo only).
Not served here: the Tasks extension demo (paint_task, tasks/*), which the
SDK routes itself.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from typing import Any, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server as app  # noqa: E402  (the handlers and the key loading of the plain example)

from mcp.server.mcpserver import Context, MCPServer  # noqa: E402

import snodo_mrtr as mrtr  # noqa: E402

from snodo_mrtr.mcp import Snodo  # noqa: E402


def bearer(ctx: Any) -> Optional[str]:
    """Demo only: the Bearer token verbatim is the user. A real server verifies it first."""
    request = getattr(ctx, "request", None)
    if request is None:
        return None  # stdio: anonymous
    auth = request.headers.get("authorization", "")
    token = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
    return token or None


TRIGGERS = {"test_trigger_tool_change": "tools", "test_trigger_prompt_change": "prompts"}


def trigger(kind: str) -> Any:
    """The SDK declares listChanged on 2026 (it serves subscriptions/listen): the
    conformance fixtures that "mutate" a list publish the change. No MRTR here,
    so they are plain SDK tools next to snodo's."""

    async def run(ctx: Context) -> str:
        await (ctx.notify_tools_changed() if kind == "tools" else ctx.notify_prompts_changed())
        return f"Published {kind}/list_changed."

    return run


def build(engine: Any) -> MCPServer:
    # A version, so the serverInfo the SDK stamps on server/discover is complete.
    mcp = MCPServer("snodo-python-sdk-example", version=mrtr.VERSION)
    snodo = Snodo(engine, principal=bearer).install(mcp)
    for name, (description, handler) in app.TOOLS.items():
        if name in TRIGGERS:
            mcp.add_tool(trigger(TRIGGERS[name]), name=name, description=description)
        elif name != "paint_task":
            snodo.tool(mcp, name=name, description=description)(handler)
    snodo.resource(mcp, "prefs://color", name="preferred-color", description="Your preferred color",
                   mime_type="text/plain")(app.preferred_color_resource)
    for name, (description, handler) in app.PROMPTS.items():
        snodo.prompt(mcp, name=name, description=description)(handler)
    return mcp


def serve_http(mcp: MCPServer, port: int) -> None:
    import anyio
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    # SSE responses: a 2025-era request needs its own stream for the elicitation/create snodo sends.
    config = uvicorn.Config(mcp.streamable_http_app(json_response=False), log_level="warning", lifespan="on")
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


def main() -> None:
    parser = argparse.ArgumentParser(description="The CONTRACT.md surface on the official MCP Python SDK + snodo.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true")
    mode.add_argument("--http", type=int, metavar="PORT")
    args = parser.parse_args()
    mcp = build(app.load_engine()())
    if args.stdio:
        mcp.run("stdio")
    else:
        serve_http(mcp, args.http)


if __name__ == "__main__":
    main()
