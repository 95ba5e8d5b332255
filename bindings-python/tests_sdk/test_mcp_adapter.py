"""snodo_mrtr.mcp inside the official Python SDK (issue 15), in process through
the SDK's own Client (mode 2026-07-28). Needs the `mcp` extra, so it is run by
scripts/test-interop-sdk.sh with the interop venv, not by test-python.sh.

MCPServer and the low-level Server: two rounds on snodo's own token (not the
SDK boundary's), the token's rejection reason and -32021 reach the client as
JSON-RPC errors, and a plain SDK tool next to snodo's keeps the SDK's path.
"""

from __future__ import annotations

from typing import Any

import mcp_types as t
import pytest
from mcp import Client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult

import snodo_mrtr as mrtr
from snodo_mrtr.mcp import Snodo

pytestmark = pytest.mark.anyio
COLOR = mrtr.elicit_form("Color?", {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]})


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def route(call: mrtr.Call) -> Any:
    a = call.response("c", COLOR)
    if a.kind == "accepted":
        return mrtr.complete({"content": [{"type": "text", "text": a.value["c"]}]})
    return mrtr.input_required({"c": COLOR}, {"n": 1})


def high_level() -> MCPServer:
    server = MCPServer("t")
    snodo = Snodo(mrtr.Engine([("k1", bytes(32))])).install(server)
    snodo.tool(server, name="pick")(route)

    @server.tool()
    def plain() -> str:
        return "sdk"

    return server


def low_level() -> Server:
    snodo = Snodo(mrtr.Engine([("k1", bytes(32))]))

    async def list_tools(ctx: Any, params: Any) -> t.ListToolsResult:
        return t.ListToolsResult(tools=[t.Tool(name="pick", input_schema={"type": "object"})])

    server: Server = Server("t", on_list_tools=list_tools, on_call_tool=snodo.call_tool(route))
    snodo.install(server)
    return server


async def accept(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"c": "red"})


@pytest.mark.parametrize("make", [high_level, low_level], ids=["MCPServer", "Server"])
async def test_rounds_token_and_errors(make: Any) -> None:
    server = make()
    async with Client(server, mode="2026-07-28", elicitation_callback=accept) as client:
        r1 = await client.session.call_tool("pick", {}, allow_input_required=True)
        token = r1.request_state
        assert isinstance(token, str) and token.startswith("v1.k1."), token  # snodo's, not the SDK's "v1." AES box
        # A small v1 token: one question and no state; the two ids (issue 17) add
        # about 60 characters to the roughly 350 before them.
        assert len(token) < 480
        done = await client.call_tool("pick", {})
        assert done.content[0].text == "red"
        with pytest.raises(MCPError) as bad:
            await client.session.call_tool("pick", {}, request_state=token + "x", allow_input_required=True)
        assert bad.value.error.code == -32602
        assert bad.value.error.data == {"reason": "malformed"}
    async with Client(server, mode="2026-07-28") as no_elicitation:
        with pytest.raises(MCPError) as missing:
            await no_elicitation.session.call_tool("pick", {}, allow_input_required=True)
        assert missing.value.error.code == -32021
        assert missing.value.error.data == {"requiredCapabilities": {"elicitation": {}}}


async def test_plain_sdk_tool_beside_snodo() -> None:
    async with Client(high_level(), mode="2026-07-28") as client:
        assert (await client.call_tool("plain", {})).content[0].text == "sdk"


@pytest.mark.parametrize("make", [high_level, low_level], ids=["MCPServer", "Server"])
async def test_legacy_session_asks_through_the_sdk(make: Any) -> None:
    """A 2025 session (initialize handshake): the same function's input_required
    becomes a real elicitation/create on the SDK's back-channel, answered in one
    tools/call; no requestState ever reaches the client."""
    server = make()
    asked: list = []

    async def answer(context: Any, params: Any) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content={"c": "blue"})

    async with Client(server, mode="legacy", elicitation_callback=answer) as client:
        done = await client.call_tool("pick", {})
        assert done.content[0].text == "blue"
        assert len(asked) == 1 and asked[0].message == "Color?"
    async with Client(server, mode="legacy") as no_elicitation:
        with pytest.raises(MCPError) as missing:
            await no_elicitation.call_tool("pick", {})
        assert missing.value.error.code == -32021
