"""The same workflows with the official Python client forced to the
2025 ``initialize`` handshake (``mode="legacy"``). Every question reaches the
client as a real ``elicitation/create`` request (stdio line or SSE event);
the server runs the same handlers through snodo's legacy bridge.

Run with ``--era legacy`` (summary ``python_client-<server>-<transport>-legacy.json``).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult

pytestmark = pytest.mark.anyio

Answer = Callable[[Any], ElicitResult]
COLOR = "Which color do you prefer?"


def client(target: Dict[str, Any], answer: Optional[Answer] = None, log: Optional[List[str]] = None) -> Client:
    """A 2025-era client. With ``answer`` it declares elicitation and answers
    each ``elicitation/create`` with it (recording the message in ``log``)."""

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        if log is not None:
            log.append(params.message)
        assert answer is not None
        return answer(params)

    return Client(target["connect"], mode="legacy", elicitation_callback=on_elicit if answer else None)


def accept(content: Dict[str, Any]) -> Answer:
    return lambda _params: ElicitResult(action="accept", content=content)


def text_of(result: Any) -> str:
    return result.content[0].text


async def test_l0_handshake_is_2025(target: Dict[str, Any]) -> None:
    async with client(target, accept({"color": "red"})) as c:
        assert c.session.protocol_version == "2025-11-25"  # type: ignore[attr-defined]
        tools = await c.list_tools()
    assert "preferred_color" in [t.name for t in tools.tools]


async def test_l1_preference_tool(target: Dict[str, Any]) -> None:
    log: List[str] = []
    async with client(target, accept({"color": "green"}), log) as c:
        result = await c.call_tool("preferred_color", {})
    assert text_of(result) == "Your preferred color is green."
    assert not result.is_error
    assert log == [COLOR]


async def test_l2_preference_resource(target: Dict[str, Any]) -> None:
    log: List[str] = []
    async with client(target, accept({"color": "blue"}), log) as c:
        result = await c.read_resource("prefs://color")
    assert [getattr(x, "text", None) for x in result.contents] == ["blue"]
    assert log == [COLOR]


async def test_l3_preference_prompt(target: Dict[str, Any]) -> None:
    log: List[str] = []
    async with client(target, accept({"color": "red"}), log) as c:
        result = await c.get_prompt("preferred_color")
    assert result.messages[0].content.text == "Write a short poem about the color red."  # type: ignore[union-attr]
    assert log == [COLOR]


async def test_l4_two_questions_one_round_then_invalid_then_valid(target: Dict[str, Any]) -> None:
    """Both questions go out in one round; the invalid guests answer (above
    the maximum) is asked again, alone, and the valid one completes."""
    log: List[str] = []

    def answer(params: Any) -> ElicitResult:
        if params.message == "Which day?":
            return ElicitResult(action="accept", content={"date": "2026-09-01"})
        first = log.count("How many guests?") == 1
        return ElicitResult(action="accept", content={"guests": 12 if first else 4})

    async with client(target, answer, log) as c:
        result = await c.call_tool("book_table", {})
    assert text_of(result) == "Booked a table for 4 on 2026-09-01."
    assert sorted(log[:2]) == ["How many guests?", "Which day?"] and log[2:] == ["How many guests?"]


async def test_l5_invalid_then_valid(target: Dict[str, Any]) -> None:
    log: List[str] = []
    answers = iter([{"color": "purple"}, {"color": "green"}])
    async with client(target, lambda _p: ElicitResult(action="accept", content=next(answers)), log) as c:
        result = await c.call_tool("preferred_color", {})
    assert text_of(result) == "Your preferred color is green."
    assert log == [COLOR, COLOR]


async def test_l6a_decline(target: Dict[str, Any]) -> None:
    async with client(target, lambda _p: ElicitResult(action="decline")) as c:
        result = await c.call_tool("preferred_color", {})
    assert text_of(result) == "You declined to choose a color."
    assert not result.is_error


async def test_l6b_cancel(target: Dict[str, Any]) -> None:
    async with client(target, lambda _p: ElicitResult(action="cancel")) as c:
        result = await c.call_tool("preferred_color", {})
    assert text_of(result) == "You cancelled the color question."
    assert result.is_error


async def test_l7_missing_elicitation_capability(target: Dict[str, Any]) -> None:
    """No elicitation callback: nothing is sent to the client; -32021."""
    async with client(target) as c:
        with pytest.raises(MCPError) as err:
            await c.call_tool("preferred_color", {})
    assert err.value.code == -32021
    assert (err.value.error.data or {}).get("requiredCapabilities") == {"elicitation": {}}


async def test_l8_session_keeps_serving_between_flows(target: Dict[str, Any]) -> None:
    """Two flows and a list on one session: ids never collide, the session stays usable."""
    log: List[str] = []
    async with client(target, accept({"color": "red"}), log) as c:
        first = await c.call_tool("preferred_color", {})
        await c.list_prompts()
        second = await c.call_tool("preferred_color", {})
    assert text_of(first) == text_of(second) == "Your preferred color is red."
    assert log == [COLOR, COLOR]
