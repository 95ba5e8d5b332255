"""The two examples (``--server python-example|node-example``) and the two
servers on the official SDKs (``python-sdk|node-sdk``) driven by the
official MCP Python client on a 2025 session (``mode="legacy"``, ``--era
legacy``): every question is a real ``elicitation/create``; each
``book_room`` flow books once.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List

import pytest
from mcp import Client
from mcp.types import ElicitResult

pytestmark = pytest.mark.anyio

Answer = Callable[[Any], ElicitResult]


def client(target: Dict[str, Any], answer: Answer, log: List[str]) -> Client:
    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        log.append(params.message)
        return answer(params)

    return Client(target["connect"], mode="legacy", elicitation_callback=on_elicit)


def accept(content: Dict[str, Any]) -> Answer:
    return lambda _params: ElicitResult(action="accept", content=content)


async def test_el1_preference_accepted(target: Dict[str, Any]) -> None:
    log: List[str] = []
    async with client(target, accept({"color": "red"}), log) as c:
        assert c.session.protocol_version == "2025-11-25"  # type: ignore[attr-defined]
        result = await c.call_tool("preferred_color", {})
    assert result.content[0].text == "Your preferred color is red."
    assert not result.is_error
    assert log == ["Which color do you prefer?"]


async def test_el2_preference_declined(target: Dict[str, Any]) -> None:
    async with client(target, lambda _p: ElicitResult(action="decline"), []) as c:
        result = await c.call_tool("preferred_color", {})
    assert result.content[0].text == "You declined to choose a color."


async def test_el3_book_room_once_per_flow(target: Dict[str, Any]) -> None:
    log: List[str] = []
    async with client(target, accept({"nights": 2}), log) as c:
        texts = [(await c.call_tool("book_room", {})).content[0].text for _ in range(2)]
    entries = [int(m.group(1)) for t in texts if (m := re.fullmatch(r"Booked: entry #(\d+)", t))]
    assert len(entries) == 2 and entries[1] == entries[0] + 1, texts
    assert log == ["How many nights shall we book?"] * 2
