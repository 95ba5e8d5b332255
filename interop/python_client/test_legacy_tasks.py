"""The contract servers' task handlers (``--server python|node``) on a 2025
session (``--era legacy``), driven by the official MCP Python client: a
session has no tasks, so a handler's run_as_task goes on in the request and
its question is a real ``elicitation/create``; a task-only tool is refused
with -32021 before its handler runs.
"""

from __future__ import annotations

from typing import Any, Dict, List

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult

pytestmark = pytest.mark.anyio


def client(target: Dict[str, Any], content: Dict[str, Any], asked: List[str]) -> Client:
    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content=content)

    return Client(target["connect"], mode="legacy", elicitation_callback=on_elicit)


async def test_t1_run_as_task_goes_on_in_the_request(target: Dict[str, Any]) -> None:
    asked: List[str] = []
    async with client(target, {"confirm": True}, asked) as c:
        result = await c.call_tool("confirm_delete", {"filename": "notes.txt"})
    assert result.content[0].text == "Deleted notes.txt." and not result.is_error, result
    assert asked == ["Delete the file?"], asked


async def test_t2_asked_before_the_hand_on(target: Dict[str, Any]) -> None:
    asked: List[str] = []
    async with client(target, {"color": "red"}, asked) as c:
        result = await c.call_tool("paint_task", {})
    assert result.content[0].text == "Painted it red." and not result.is_error, result
    assert len(asked) == 1, asked


async def test_t3_a_task_only_tool_is_refused(target: Dict[str, Any]) -> None:
    async with client(target, {}, []) as c:
        with pytest.raises(MCPError) as refused:
            await c.call_tool("multi_input", {})
    assert refused.value.error.code == -32021, refused.value
