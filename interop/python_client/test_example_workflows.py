"""The two examples (``--server python-example|node-example``), and the two
servers on the official SDKs (``python-sdk|node-sdk``, which serve the same
``book_room``), driven by the official MCP Python client pinned to 2026-07-28: ``preferred_color``
accepted and declined, and ``book_room``'s effect at most once per flow.

``book_room``'s final round is also sent again by hand: the same answers get
the same booking; other answers, or none (a booked flow never asks again), are
refused as replayed (-32602); the next flow's entry shows that nothing else
was booked.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Optional

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult, InputRequiredResult

pytestmark = pytest.mark.anyio

Answer = Callable[[Any], ElicitResult]


def client(target: Dict[str, Any], answer: Answer) -> Client:
    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        return answer(params)

    return Client(target["connect"], mode="2026-07-28", elicitation_callback=on_elicit)


def accept(content: Dict[str, Any]) -> Answer:
    return lambda _params: ElicitResult(action="accept", content=content)


def entry(result: Any) -> int:
    """The ledger entry of a booking ("Booked: entry #N")."""
    m = re.fullmatch(r"Booked: entry #(\d+)", result.content[0].text)
    assert m and not result.is_error, result
    return int(m.group(1))


async def test_e1_preference_accepted(target: Dict[str, Any]) -> None:
    async with client(target, accept({"color": "blue"})) as c:
        result = await c.call_tool("preferred_color", {})
    assert result.content[0].text == "Your preferred color is blue."
    assert not result.is_error


async def test_e2_preference_declined(target: Dict[str, Any]) -> None:
    async with client(target, lambda _p: ElicitResult(action="decline")) as c:
        result = await c.call_tool("preferred_color", {})
    assert result.content[0].text == "You declined to choose a color."
    assert not result.is_error


async def test_e3_book_room_once(target: Dict[str, Any]) -> None:
    async with client(target, accept({"nights": 2})) as c:
        n = entry(await c.call_tool("book_room", {}))
        first = await c.session.call_tool("book_room", {}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        assert list(first.input_requests or {}) == ["booking"]

        async def final(nights: Optional[int]) -> Any:
            answers = {"booking": ElicitResult(action="accept", content={"nights": nights})} if nights else None
            return await c.session.call_tool("book_room", {}, input_responses=answers,
                                             request_state=first.request_state, allow_input_required=True)

        assert entry(await final(3)) == n + 1
        assert entry(await final(3)) == n + 1  # the same final round again: the same booking
        for replay in (4, None):  # other answers, or none: a booked flow never asks again
            with pytest.raises(MCPError) as err:
                await final(replay)
            assert err.value.code == -32602
            assert (err.value.error.data or {}).get("reason") == "replayed"
        assert entry(await c.call_tool("book_room", {})) == n + 2  # nothing else was booked
