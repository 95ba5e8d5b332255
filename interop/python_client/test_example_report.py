"""The examples' ``report`` (``--server python-example|node-example``) for a
client that does not declare the Tasks extension, driven by the official MCP
Python client: the handler that runs as a task for a task-aware client
(``interop/official_client/tasks.mjs``) goes on in the request instead, and
its question is an ordinary MRTR round (2026-07-28) or a real
``elicitation/create`` on the session (``--era legacy``).
"""

from __future__ import annotations

from typing import Any, Dict, List

import pytest
from mcp import Client
from mcp.types import ElicitResult

pytestmark = pytest.mark.anyio


async def run_report(target: Dict[str, Any], mode: str, action: str) -> Any:
    asked: List[str] = []

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"format": "chart"}) if action == "accept" \
            else ElicitResult(action="decline")

    async with Client(target["connect"], mode=mode, elicitation_callback=on_elicit) as c:
        result = await c.call_tool("report", {})
    assert asked == ["Which format should the report use?"], asked
    return result


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
async def test_report_in_the_request(target: Dict[str, Any], mode: str) -> None:
    result = await run_report(target, mode, "accept")
    assert result.content[0].text == "Report of 1250 rows as a chart." and not result.is_error, result
    declined = await run_report(target, mode, "decline")
    assert declined.is_error and declined.content[0].text == "No format chosen: no report.", declined
