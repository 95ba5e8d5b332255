"""Interop workflows 1-7, driven by the official MCP Python client (PyPI
``mcp``, pinned in requirements.txt) against a snodo example server.

Expected texts and codes are the ones interop/CONTRACT.md fixes. The client is
pinned to protocol 2026-07-28 (``mode="2026-07-28"``): no silent fallback to
the 2025 ``initialize`` handshake.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult, InputRequiredResult

pytestmark = pytest.mark.anyio

STATE_ERROR = "Invalid or expired requestState"
Answer = Callable[[Any], ElicitResult]


def client(target: Dict[str, Any], answer: Optional[Answer] = None, log: Optional[List[str]] = None) -> Client:
    """A client pinned to 2026-07-28. With ``answer`` it declares elicitation
    and answers each form with it (recording the message in ``log``);
    without, it declares no elicitation capability at all."""

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        if log is not None:
            log.append(params.message)
        assert answer is not None
        return answer(params)

    return Client(target["connect"], mode="2026-07-28", elicitation_callback=on_elicit if answer else None)


def accept(content: Dict[str, Any]) -> Answer:
    return lambda _params: ElicitResult(action="accept", content=content)


def text_of(result: Any) -> str:
    return result.content[0].text


async def test_1_preference_tool(target: Dict[str, Any]) -> None:
    log: List[str] = []
    async with client(target, accept({"color": "green"}), log) as c:
        result = await c.call_tool("preferred_color", {})
    assert text_of(result) == "Your preferred color is green."
    assert not result.is_error
    assert log == ["Which color do you prefer?"]


async def test_2_preference_resource(target: Dict[str, Any]) -> None:
    log: List[str] = []
    async with client(target, accept({"color": "blue"}), log) as c:
        result = await c.read_resource("prefs://color")
    assert len(result.contents) == 1
    content = result.contents[0]
    assert str(content.uri) == "prefs://color"
    assert content.mime_type == "text/plain"
    assert content.text == "blue"  # type: ignore[union-attr]
    assert log == ["Which color do you prefer?"]


async def test_3_preference_prompt(target: Dict[str, Any]) -> None:
    log: List[str] = []
    async with client(target, accept({"color": "red"}), log) as c:
        result = await c.get_prompt("preferred_color")
    assert [m.role for m in result.messages] == ["user"]
    assert result.messages[0].content.text == "Write a short poem about the color red."  # type: ignore[union-attr]
    assert log == ["Which color do you prefer?"]


async def test_4_two_questions_one_kept_in_state(target: Dict[str, Any]) -> None:
    log: List[str] = []

    def answer(params: Any) -> ElicitResult:
        if params.message == "Which day?":
            return ElicitResult(action="accept", content={"date": "2026-09-01"})
        # The first guests answer breaks the schema (maximum 8); only it is asked again.
        first = log.count("How many guests?") == 1
        return ElicitResult(action="accept", content={"guests": 12 if first else 4})

    async with client(target, answer, log) as c:
        result = await c.call_tool("book_table", {})
    assert text_of(result) == "Booked a table for 4 on 2026-09-01."
    assert sorted(log) == ["How many guests?", "How many guests?", "Which day?"]


async def test_5a_decline(target: Dict[str, Any]) -> None:
    async with client(target, lambda _p: ElicitResult(action="decline")) as c:
        result = await c.call_tool("preferred_color", {})
    assert text_of(result) == "You declined to choose a color."
    assert not result.is_error


async def test_5b_cancel(target: Dict[str, Any]) -> None:
    async with client(target, lambda _p: ElicitResult(action="cancel")) as c:
        result = await c.call_tool("preferred_color", {})
    assert text_of(result) == "You cancelled the color question."
    assert result.is_error


async def test_6_tampered_state(target: Dict[str, Any]) -> None:
    async with client(target, accept({"color": "red"})) as c:
        first = await c.session.call_tool("preferred_color", {}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        assert list(first.input_requests or {}) == ["color"]
        state = first.request_state
        assert isinstance(state, str)
        mid = len(state) // 2
        flipped = state[:mid] + ("B" if state[mid] == "A" else "A") + state[mid + 1:]
        answers = {"color": ElicitResult(action="accept", content={"color": "red"})}
        for bad in (state + "-TAMPERED", flipped):
            with pytest.raises(MCPError) as err:
                await c.session.call_tool(
                    "preferred_color", {}, input_responses=answers, request_state=bad, allow_input_required=True
                )
            assert err.value.code == -32602
            assert err.value.error.message == STATE_ERROR
            assert (err.value.error.data or {}).get("reason") in ("malformed", "signature")
        # The untouched state still completes: the rejections were about tampering.
        done = await c.session.call_tool(
            "preferred_color", {}, input_responses=answers, request_state=state, allow_input_required=True
        )
    assert text_of(done) == "Your preferred color is red."


async def test_7_missing_elicitation_capability(target: Dict[str, Any]) -> None:
    async with client(target) as c:
        with pytest.raises(MCPError) as err:
            await c.call_tool("preferred_color", {})
    assert err.value.code == -32021
    assert (err.value.error.data or {}).get("requiredCapabilities") == {"elicitation": {}}
