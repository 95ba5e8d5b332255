"""snodo_mrtr.mcp inside the official Python SDK, in process through
the SDK's own Client (mode 2026-07-28). Needs the `mcp` extra, so it is run by
scripts/test-interop-sdk.sh with the interop venv, not by test-python.sh.

MCPServer and the low-level Server: two rounds on snodo's own token (not the
SDK boundary's), the token's rejection reason and -32021 reach the client as
JSON-RPC errors, and a plain SDK tool next to snodo's keeps the SDK's path.
On a 2025 session: the same function asks through the SDK's back-channel, and
a client error on one question ends the round and cancels the others.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as t
import pytest
from mcp import Client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult, ErrorData

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
        # A small v1 token: one question and no state; the two ids add
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


ASK_A = mrtr.elicit_form("A?", {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]})
ASK_B = mrtr.elicit_form("B?", {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]})


def two_at_once(call: mrtr.Call) -> Any:
    a, b = call.response("a", ASK_A), call.response("b", ASK_B)
    if a.kind == "accepted" and b.kind == "accepted":
        return mrtr.complete({"content": [{"type": "text", "text": "both"}]})
    return mrtr.input_required({"a": ASK_A, "b": ASK_B})


async def test_legacy_client_error_ends_the_round_and_cancels_the_open_leg() -> None:
    """Two questions in one round on a 2025 session: the client answers the
    first with a JSON-RPC error and leaves the second open. The flow fails at
    once (the originating call gets its tool error without waiting for the
    second answer), and the open leg is cancelled: the client's handler for it
    is interrupted by the notifications/cancelled the SDK sends."""
    server = MCPServer("t")
    Snodo(mrtr.Engine([("k1", bytes(32))])).install(server).tool(server, name="two")(two_at_once)
    second_cancelled = anyio.Event()

    async def answer(context: Any, params: Any) -> Any:
        if params.message == "A?":
            return ErrorData(code=-32000, message="the user closed the dialog")
        try:
            await anyio.sleep(120)  # the second question stays open
        except anyio.get_cancelled_exc_class():
            second_cancelled.set()
            raise
        return ElicitResult(action="accept", content={"c": "late"})

    async with Client(server, mode="legacy", elicitation_callback=answer) as client:
        with anyio.fail_after(30):
            done = await client.call_tool("two", {})
        assert done.is_error, done
        assert "the user closed the dialog" in done.content[0].text
        with anyio.fail_after(10):
            await second_cancelled.wait()


async def test_legacy_client_cancel_reaches_the_open_leg() -> None:
    """The client cancels its tools/call while the question is open on a 2025
    session: the SDK interrupts the function's flow, and the question's leg
    gets its notifications/cancelled (the client's handler is interrupted)."""
    asked, leg_cancelled = anyio.Event(), anyio.Event()

    async def answer(context: Any, params: Any) -> Any:
        asked.set()
        try:
            await anyio.sleep(120)
        except anyio.get_cancelled_exc_class():
            leg_cancelled.set()
            raise
        return ElicitResult(action="accept", content={"c": "late"})

    async with Client(high_level(), mode="legacy", elicitation_callback=answer) as client:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, "pick", {})
                await asked.wait()
                tg.cancel_scope.cancel()
            await leg_cancelled.wait()


async def test_legacy_flow_of_a_user_is_fed_as_that_user() -> None:
    """On a 2025 session the session and the answers are the requesting
    principal's: a user's flow completes (the core refuses an answer fed as
    anyone else), and the Call carries the user."""
    server = MCPServer("t")
    seen: list = []

    def pick(call: mrtr.Call) -> Any:
        seen.append(call.principal)
        return route(call)

    Snodo(mrtr.Engine([("k1", bytes(32))]), principal=lambda ctx: "alice").install(server).tool(server, name="pick")(pick)

    async def answer(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"c": "teal"})

    async with Client(server, mode="legacy", elicitation_callback=answer) as client:
        with anyio.fail_after(30):
            done = await client.call_tool("pick", {})
        assert not done.is_error and done.content[0].text == "teal", done
        assert seen == ["alice", "alice"]
