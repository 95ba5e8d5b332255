"""snodo_mrtr.fastmcp inside FastMCP 4.2, in process through FastMCP's own
Client (its in-memory transport runs the dual-era loop). Needs the `fastmcp`
extra, so it is run by scripts/test-interop-sdk.sh with the interop venv.

The private hook's shape (FastMCP's SDK middleware list) is checked, and a
changed one refused; tokens are snodo's, sealed once (never FastMCP's AES-GCM
box around them), while a native FastMCP guard tool keeps FastMCP's codec;
a bad token's reason and -32021 reach the client as JSON-RPC errors; 2025
sessions are asked through the SDK's back-channel; sync functions run off the
loop; FastMCP's own middleware and Context injection still apply; book once.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, List

import mcp_types as t
import pytest
from fastmcp import Client, Context, FastMCP
from fastmcp.server.low_level import FastMCPServerMiddleware
from fastmcp.server.middleware import Middleware
from mcp.server.request_state import RequestStateBoundary
from mcp.shared.exceptions import MCPError

import snodo_mrtr as mrtr
from snodo_mrtr.fastmcp import Snodo, middleware_chain

pytestmark = pytest.mark.anyio
KEYS = [("k1", bytes(32))]
COLOR = mrtr.elicit_form("Color?", {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]})
CONFIRM = mrtr.elicit_form("Book?", {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pick(call: mrtr.Call, suffix: str = "") -> mrtr.Outcome:
    a = call.response("c", COLOR)
    if a.is_accepted:
        return mrtr.complete({"content": [{"type": "text", "text": a.value["c"] + suffix}]})
    return mrtr.input_required({"c": COLOR}, {"n": 1})


def color(call: mrtr.Call) -> mrtr.Outcome:
    """A static resource's function: the Call only."""
    a = call.response("c", COLOR)
    if a.is_accepted:
        return mrtr.complete({"contents": [{"uri": "prefs://color", "text": a.value["c"]}], "ttlMs": 0,
                              "cacheScope": "private"})
    return mrtr.input_required({"c": COLOR})


def ask(call: mrtr.Call) -> mrtr.Outcome:
    a = call.response("c", COLOR)
    if a.is_accepted:
        return mrtr.complete({"messages": [{"role": "user", "content": {"type": "text", "text": a.value["c"]}}]})
    return mrtr.input_required({"c": COLOR})


async def red(message: str, response_type: Any, params: Any, context: Any) -> Dict[str, str]:
    return {"c": "red"}


class Seen(Middleware):
    """A FastMCP middleware: it must still see the calls snodo decides."""

    def __init__(self) -> None:
        self.tools: List[str] = []

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        self.tools.append(context.message.name)
        return await call_next(context)


def build(**snodo_options: Any) -> tuple[FastMCP, Snodo, Seen]:
    seen = Seen()
    server = FastMCP("t", middleware=[seen])
    snodo = Snodo(mrtr.Engine(KEYS), **snodo_options).install(server)
    snodo.tool(server, name="pick")(pick)
    snodo.prompt(server, name="ask")(ask)
    snodo.resource(server, "prefs://color")(color)

    @server.tool
    def guard(ctx: Context) -> str | t.InputRequiredResult:
        """FastMCP's own MRTR (its guard pattern), sealed by its codec."""
        if ctx.input_responses:
            return "fastmcp"
        return t.InputRequiredResult(input_requests={"c": t.ElicitRequest(params=t.ElicitRequestFormParams(
            message="c?", requested_schema={"type": "object", "properties": {}}))}, request_state="plain")

    return server, snodo, seen


def test_the_private_hook_has_the_tested_shape() -> None:
    """FastMCP 4.2's SDK middleware list is [root dispatch, request-state
    boundary]; install goes between them. A FastMCP upgrade that changes this
    fails here (and install refuses it at start-up)."""
    server = FastMCP("t")
    assert [type(m) for m in middleware_chain(server)] == [FastMCPServerMiddleware, RequestStateBoundary]
    snodo = Snodo(mrtr.Engine(KEYS)).install(server)
    assert [type(m) for m in server._mcp_server.middleware] == [FastMCPServerMiddleware, Snodo, RequestStateBoundary]
    assert server._mcp_server.middleware[1] is snodo
    with pytest.raises(RuntimeError, match="not"):
        Snodo(mrtr.Engine(KEYS)).install(server)  # the chain has another shape now
    with pytest.raises(mrtr.ArgumentError, match="not on a FastMCP server"):
        snodo.call_tool(pick)  # the low-level handlers of snodo_mrtr.mcp: FastMCP has its own
    other = FastMCP("u")
    other._mcp_server.middleware.reverse()
    with pytest.raises(RuntimeError, match=r"fastmcp 4\.2"):
        Snodo(mrtr.Engine(KEYS)).install(other)


async def test_sealed_once_and_protocol_errors() -> None:
    server, _, seen = build()
    async with Client(server, mode="2026-07-28", elicitation_handler=red) as client:
        r1 = await client.session.call_tool("pick", {"suffix": "!"}, allow_input_required=True)
        token = r1.request_state
        assert isinstance(token, str) and token.startswith("v1.k1."), token  # snodo's token, not wrapped
        done = await client.session.call_tool("pick", {"suffix": "!"}, request_state=token,
                                              input_responses={"c": {"action": "accept", "content": {"c": "red"}}})
        assert done.content[0].text == "red!" and not done.is_error
        with pytest.raises(MCPError) as bad:
            await client.session.call_tool("pick", {"suffix": "!"}, request_state=token + "x",
                                           allow_input_required=True)
        assert bad.value.error.code == -32602 and bad.value.error.data == {"reason": "malformed"}
        with pytest.raises(MCPError) as other_args:  # the token is bound to the request's arguments
            await client.session.call_tool("pick", {"suffix": "?"}, request_state=token, allow_input_required=True)
        assert other_args.value.error.data == {"reason": "request"}
        native = await client.session.call_tool("guard", {}, allow_input_required=True)
        assert native.request_state.startswith("v1.") and not native.request_state.startswith("v1.k1.")
        assert (await client.call_tool("guard", {})).content[0].text == "fastmcp"
    assert seen.tools.count("pick") == 2  # FastMCP's on_call_tool ran for snodo's rounds that reached the tool
    async with Client(server, mode="2026-07-28") as no_elicitation:
        with pytest.raises(MCPError) as missing:
            await no_elicitation.session.call_tool("pick", {}, allow_input_required=True)
        assert missing.value.error.code == -32021
        assert missing.value.error.data == {"requiredCapabilities": {"elicitation": {}}}


async def test_prompt_and_resource_rounds() -> None:
    server, _, _ = build()
    async with Client(server, mode="2026-07-28", elicitation_handler=red) as client:
        first = await client.session.read_resource("prefs://color", allow_input_required=True)
        assert first.request_state.startswith("v1.k1.")
        read = await client.read_resource("prefs://color")
        assert read[0].text == "red"
        prompt = await client.get_prompt("ask", {})
        assert prompt.messages[0].content.text == "red"


async def test_legacy_session_asks_through_the_back_channel() -> None:
    server, _, _ = build()
    asked: List[str] = []

    async def answer(message: str, response_type: Any, params: Any, context: Any) -> Dict[str, str]:
        asked.append(message)
        return {"c": "blue"}

    async with Client(server, mode="legacy", elicitation_handler=answer) as client:
        done = await client.call_tool("pick", {})
        assert done.content[0].text == "blue" and asked == ["Color?"]
    async with Client(server, mode="legacy") as no_elicitation:
        with pytest.raises(MCPError) as missing:
            await no_elicitation.call_tool_mcp("pick", {})
        assert missing.value.error.code == -32021


async def test_sync_functions_run_off_the_loop_and_context_is_injected() -> None:
    server = FastMCP("t")
    snodo = Snodo(mrtr.Engine(KEYS)).install(server)
    loop_thread = threading.get_ident()
    ran_on: List[int] = []

    @snodo.tool(server)
    def where(call: mrtr.Call, ctx: Context) -> mrtr.Outcome:
        ran_on.append(threading.get_ident())
        return mrtr.complete({"content": [{"type": "text", "text": ctx.fastmcp.name}]})

    async with Client(server, mode="2026-07-28") as client:
        done = await client.call_tool("where", {})
    assert done.content[0].text == "t"
    assert ran_on and ran_on[0] != loop_thread


async def test_book_once() -> None:
    server = FastMCP("t")
    snodo = Snodo(mrtr.Engine(KEYS), once=mrtr.MemoryStore()).install(server)
    booked: List[str] = []

    @snodo.tool(server)
    def book(call: mrtr.Call) -> mrtr.Outcome:
        done = snodo.check_once(call)
        if done is not None:
            return done
        a = call.response("ok", CONFIRM)
        if not a.is_accepted or call.flow_id is None:
            return mrtr.input_required({"ok": CONFIRM})

        def effect(lease: mrtr.OnceLease) -> Dict[str, Any]:
            booked.append(str(call.flow_id))
            return {"content": [{"type": "text", "text": f"booked #{len(booked)}"}]}

        return snodo.run_once(call, effect)

    async with Client(server, mode="2026-07-28", elicitation_handler=red) as client:
        r1 = await client.session.call_tool("book", {}, allow_input_required=True)
        yes = {"ok": {"action": "accept", "content": {"ok": True}}}
        first = await client.session.call_tool("book", {}, request_state=r1.request_state, input_responses=yes)
        again = await client.session.call_tool("book", {}, request_state=r1.request_state, input_responses=yes)
        assert first.content[0].text == again.content[0].text == "booked #1" and len(booked) == 1
        no = {"ok": {"action": "accept", "content": {"ok": False}}}
        with pytest.raises(MCPError) as replayed:
            await client.session.call_tool("book", {}, request_state=r1.request_state, input_responses=no)
        assert replayed.value.error.code == -32602 and replayed.value.error.data == {"reason": "replayed"}
