"""Runs every Python handler example of the READMEs as a reader would copy it.

Each ```python block that defines a handler (a function taking the request
and the user) is executed as-is, with only the names the prose leaves to the
reader supplied (`secret_bytes`). Its handler is then driven through three
flows: a first call must ask (input_required); a retry answering "accept"
with the first enum value must complete; a retry answering "decline" must end
the flow (a final result, never another question). Run by
scripts/test-python.sh in the venv holding the installed wheel.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = ["README.md", "bindings-python/README.md"]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}


def body_of(ret: object) -> dict:
    """A handler may return a Response or (status, json text)."""
    if isinstance(ret, tuple):
        return json.loads(ret[1])
    return json.loads(ret.to_json())  # type: ignore[attr-defined]


def drive(name: str, handler) -> None:
    params = {"name": "t", "arguments": {}, "_meta": META}
    req = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    first = body_of(handler(json.dumps(req), "alice"))["result"]
    assert first["resultType"] == "input_required", (name, first)
    key, question = next(iter(first["inputRequests"].items()))
    schema = question["params"]["requestedSchema"]
    prop, spec = next(iter(schema["properties"].items()))
    for action, content in (("accept", {prop: spec["enum"][0]}), ("decline", None)):
        answer = {"action": action, **({"content": content} if content else {})}
        retry = {**req, "id": 2, "params": {**params, "inputResponses": {key: answer},
                                            "requestState": first["requestState"]}}
        result = body_of(handler(json.dumps(retry), "alice"))["result"]
        assert result.get("resultType", "complete") == "complete", (name, action, result)
        if action == "accept":
            assert not result.get("isError"), (name, result)
            assert spec["enum"][0] in json.dumps(result), (name, result)
        else:
            assert result.get("isError") is True, (name, "decline must end the flow", result)
    print(f"{name}: asks, completes on accept, ends on decline")


def main() -> int:
    count = 0
    for rel in FILES:
        text = (ROOT / rel).read_text(encoding="utf-8")
        for i, block in enumerate(re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)):
            fn = re.search(r"^def (\w+)\(", block, flags=re.M)
            if not fn:
                continue
            scope: dict = {"secret_bytes": bytes(range(32)), "__name__": "readme_example"}
            exec(compile(block, f"{rel}#python-{i}", "exec"), scope)
            drive(f"{rel} python block {i} ({fn.group(1)})", scope[fn.group(1)])
            count += 1
    if count < len(FILES):
        print(f"FAIL: found {count} Python handler examples in {FILES}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
