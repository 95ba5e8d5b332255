"""The request, question and key of bench.py's rounds, shared with
rounds.py so that the profiled rounds are the benchmarked ones."""

from __future__ import annotations

import json

import snodo_mrtr as mrtr

KEY = bytes(range(32))
# The engines run on the real clock, as an installed wheel must (its engine
# has no fixed clock); the longest TTL lets a token prepared at set-up
# outlive the run.
TTL_SECS = 900
ARGS = {"query": "flights to LIS", "limit": 10}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}
QUESTION = mrtr.elicit_form(
    "Which seat?",
    {"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]},
)


def request(params_extra: dict | None = None) -> bytes:
    """A `tools/call` of book_flight with ARGS and META, plus `params_extra`."""
    params = {"name": "book_flight", "arguments": ARGS, "_meta": META, **(params_extra or {})}
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).encode()
