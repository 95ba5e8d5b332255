"""What the docs harness (tests/docs/run.py) does with a Python handler a
page shows: the page's block runs as written, then its handler is driven
through three flows. A first call must ask (input_required); a retry that
accepts with the first enum value must complete with that value; a retry
that declines must end the flow (a final result, never another question).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Optional

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}


def body_of(ret: Any) -> Dict[str, Any]:
    """A handler may return a Response or (status, json text)."""
    if isinstance(ret, tuple):
        text = ret[1]
    else:
        text = ret.to_json()
    body: Dict[str, Any] = json.loads(text)
    return body


def drive(name: str, handler: Callable[[bytes, Optional[str]], Any]) -> None:
    params: Dict[str, Any] = {"name": "t", "arguments": {}, "_meta": META}
    req = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    first = body_of(handler(json.dumps(req).encode(), "alice"))["result"]
    assert first["resultType"] == "input_required", (name, first)
    key, question = next(iter(first["inputRequests"].items()))
    schema = question["params"]["requestedSchema"]
    prop, spec = next(iter(schema["properties"].items()))
    for action, content in (("accept", {prop: spec["enum"][0]}), ("decline", None)):
        answer: Dict[str, Any] = {"action": action, **({"content": content} if content else {})}
        retry = {**req, "id": 2, "params": {**params, "inputResponses": {key: answer},
                                            "requestState": first["requestState"]}}
        result = body_of(handler(json.dumps(retry).encode(), "alice"))["result"]
        assert result.get("resultType", "complete") == "complete", (name, action, result)
        if action == "accept":
            assert not result.get("isError"), (name, result)
            assert spec["enum"][0] in json.dumps(result), (name, result)
        else:
            assert result.get("isError") is True, (name, "decline must end the flow", result)
    print(f"{name}: asks, completes on accept, ends on decline")
