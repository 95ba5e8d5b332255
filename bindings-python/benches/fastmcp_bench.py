"""The per-flow cost of snodo inside FastMCP (4.2.3 on `mcp` 2.3.0; make bench),
next to FastMCP's own MRTR on the same tool. Information only: no guard reads it.

One in-process FastMCP server driven by FastMCP's own `Client` (mode
2026-07-28, in-memory transport: FastMCP's root dispatch and middleware, the
SDK's boundary, handlers, serialisation; no sockets). Each flow is one
`call_tool` that the client drives through two rounds (an elicitation,
answered by the client's handler, and the retry):

* snodo: a tool registered with `snodo_mrtr.fastmcp.Snodo.tool` (snodo opens
  and seals the token; FastMCP's request-state boundary never sees it);
* fastmcp: the same tool in FastMCP's guard pattern (`InputRequiredResult`
  with a `request_state` the boundary seals with AES-GCM, read back from
  `ctx.request_state` and `ctx.input_responses`);
* floor: a tool that completes at once (one round), FastMCP's own cost of a call.

Reported: microseconds per two-round flow (median of interleaved repeats),
and snodo - fastmcp. Usage: python fastmcp_bench.py OUT.json
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict

import anyio
import mcp_types as t
from fastmcp import Client, Context, FastMCP

import snodo_mrtr as mrtr
from flows import median_us_per_call
from snodo_mrtr.fastmcp import Snodo

SAMPLE_S = float(os.environ.get("BENCH_SAMPLE_MS", "50")) / 1000 * 4
REPEATS = int(os.environ.get("BENCH_REPEATS", "11"))
SCHEMA = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}

mcp = FastMCP("bench")
snodo = Snodo(mrtr.Engine([("k1", bytes(range(32)))])).install(mcp)
COLOR = mrtr.elicit_form("Which color?", SCHEMA)


@snodo.tool(mcp)
def snodo_color(call: mrtr.Call) -> mrtr.Outcome:
    a = call.response("color", COLOR)
    if a.is_accepted:
        return mrtr.complete({"content": [{"type": "text", "text": a.value["color"]}]})
    return mrtr.input_required({"color": COLOR}, {"step": 1})


@mcp.tool(output_schema=None)
def fastmcp_color(ctx: Context) -> str | t.InputRequiredResult:
    answer = (ctx.input_responses or {}).get("color")
    if ctx.request_state == '{"step":1}' and getattr(answer, "action", None) == "accept":
        return str(getattr(answer, "content", {})["color"])
    ask = t.ElicitRequest(params=t.ElicitRequestFormParams(message="Which color?", requested_schema=SCHEMA))
    return t.InputRequiredResult(input_requests={"color": ask}, request_state='{"step":1}')


@mcp.tool(output_schema=None)
def floor() -> str:
    return "green"


async def on_elicit(message: str, response_type: Any, params: Any, context: Any) -> Dict[str, str]:
    return {"color": "green"}


async def main(out: str) -> None:
    async with Client(mcp, mode="2026-07-28", elicitation_handler=on_elicit) as client:
        med = await median_us_per_call(client, ("snodo_color", "fastmcp_color", "floor"), REPEATS, SAMPLE_S)
    report = {
        "sdk": "fastmcp 4.2.3 on mcp 2.3.0 (in-process Client, 2026-07-28)",
        "flow": "one call_tool: elicitation round + retry (floor: one round)",
        "us_per_flow": {n: round(v, 1) for n, v in med.items()},
        "snodo_minus_fastmcp_us": round(med["snodo_color"] - med["fastmcp_color"], 1),
    }
    print(json.dumps(report, indent=1))
    with open(out, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1] if len(sys.argv) > 1 else "fastmcp-python.json")
