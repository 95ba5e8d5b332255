"""The per-call cost of snodo inside the official Python SDK (`mcp` 2.3.0;
make bench), next to the SDK's own state handling on the same tool.

One in-process `MCPServer` driven by the SDK's own `Client` (mode 2026-07-28,
in-process modern path: middleware chain, boundary, handlers, serialisation;
no sockets). Each flow is one `call_tool` that the client drives through two
rounds (an elicitation, answered by the client callback, and the retry):

* snodo: a tool registered with `snodo_mrtr.mcp.Snodo.tool` (snodo opens and
  seals the token, the SDK's boundary is bypassed);
* sdk: the same tool written for the SDK alone (`InputRequiredResult` with a
  `request_state` the SDK's `RequestStateBoundary` seals with AES-GCM, read back
  from `ctx.request_state` and `ctx.input_responses`);
* floor: a tool that completes at once (one round), the SDK's own cost of a call.

Reported: microseconds per two-round flow (median of repeats), and snodo - sdk.
Usage: python sdk_bench.py OUT.json
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ElicitResult
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult

import snodo_mrtr as mrtr
from flows import median_us_per_call
from snodo_mrtr.mcp import Snodo

SAMPLE_S = float(os.environ.get("BENCH_SAMPLE_MS", "50")) / 1000 * 4
REPEATS = int(os.environ.get("BENCH_REPEATS", "11"))
SCHEMA = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}

mcp = MCPServer("bench")
snodo = Snodo(mrtr.Engine([("k1", bytes(range(32)))])).install(mcp)
COLOR = mrtr.elicit_form("Which color?", SCHEMA)


@snodo.tool(mcp)
def snodo_color(call: mrtr.Call) -> dict:
    a = call.response("color", COLOR)
    if a.kind == "accepted":
        return mrtr.complete({"content": [{"type": "text", "text": a.value["color"]}]})
    return mrtr.input_required({"color": COLOR}, {"step": 1})


@mcp.tool()
def sdk_color(ctx: Context) -> Any:
    answer = (ctx.input_responses or {}).get("color")
    if ctx.request_state == '{"step":1}' and getattr(answer, "action", None) == "accept":
        return answer.content["color"]
    ask = ElicitRequest(params=ElicitRequestFormParams(message="Which color?", requested_schema=SCHEMA))
    return InputRequiredResult(input_requests={"color": ask}, request_state='{"step":1}')


@mcp.tool()
def floor() -> str:
    return "green"


async def on_elicit(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"color": "green"})


async def main(out: str) -> None:
    async with Client(mcp, mode="2026-07-28", elicitation_callback=on_elicit) as client:
        med = await median_us_per_call(client, ("snodo_color", "sdk_color", "floor"), REPEATS, SAMPLE_S)
    report = {
        "sdk": "mcp 2.3.0 (MCPServer, in-process Client, 2026-07-28)",
        "flow": "one call_tool: elicitation round + retry (floor: one round)",
        "us_per_flow": {n: round(v, 1) for n, v in med.items()},
        "snodo_minus_sdk_us": round(med["snodo_color"] - med["sdk_color"], 1),
    }
    print(json.dumps(report, indent=1))
    with open(out, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1] if len(sys.argv) > 1 else "sdk-python.json")
