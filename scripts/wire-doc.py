"""Regenerates (--write) or checks (default) the exact bytes in docs/wire.md.

Every block after a `<!-- wire:NAME -->` marker is what the snodo core sends
or accepts for one step of a single flow, produced here through the installed
snodo_mrtr wheel with a fixed key and clock, so the document cannot drift
from the code. Run by scripts/test-python.sh with the freshly built wheel.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import snodo_mrtr as mrtr

DOC = Path(__file__).resolve().parent.parent / "docs" / "wire.md"
# Documentation only: a published key is no key.
KEY = ("doc-2026", b"docs/wire.md example key, public")
NOW = 1_800_000_000  # 2027-01-15T08:00:00Z
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}
COLOR = mrtr.elicit_form(
    "Which colour?",
    {"type": "object", "properties": {"color": {"type": "string", "enum": ["red", "green"]}},
     "required": ["color"]},
)


def handle(engine: mrtr.Engine, body: str, user: str | None) -> mrtr.Response:
    begun = engine.begin(body, user)
    if isinstance(begun, mrtr.Response):
        return begun
    answer = begun.response("color", COLOR)
    if answer.is_accepted:
        outcome = mrtr.complete({"content": [{"type": "text", "text": f"Painted {answer.value['color']}"}]})
    elif answer.is_declined or answer.is_cancelled:
        outcome = mrtr.tool_error("No colour chosen")
    else:
        outcome = mrtr.input_required({"color": COLOR})
    return engine.decide(begun, outcome)


def exchange() -> dict[str, str]:
    assert len(KEY[1]) == 32
    engine = mrtr.Engine([KEY], fixed_time=NOW, test_random_seed=1)  # pinned ids
    blocks: dict[str, str] = {}
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "paint", "arguments": {}, "_meta": META}},
                         separators=(",", ":"))
    blocks["request"] = request
    first = handle(engine, request, "alice")
    blocks["input-required"] = f"HTTP {first.http_status}\n{first.to_json()}"
    state = json.loads(first.to_json())["result"]["requestState"]
    retry = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "paint", "arguments": {}, "_meta": META,
                                   "inputResponses": {"color": {"action": "accept",
                                                                "content": {"color": "red"}}},
                                   "requestState": state}},
                       separators=(",", ":"))
    blocks["retry"] = retry
    final = handle(engine, retry, "alice")
    blocks["final"] = f"HTTP {final.http_status}\n{final.to_json()}"
    # The same retry bytes, sent by another user: the token is bound to alice.
    rejected = handle(engine, retry, "mallory")
    blocks["rejected"] = f"HTTP {rejected.http_status}\n{rejected.to_json()}"
    return blocks


def render(text: str, blocks: dict[str, str]) -> str:
    seen = []

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        seen.append(name)
        if name not in blocks:
            raise SystemExit(f"docs/wire.md: unknown block {name!r}")
        return f"<!-- wire:{name} -->\n```text\n{blocks[name]}\n```"

    out = re.sub(r"<!-- wire:([a-z-]+) -->\n```text\n(?:.*?\n)??```", sub, text, flags=re.S)
    if sorted(seen) != sorted(blocks):
        raise SystemExit(f"docs/wire.md: blocks {sorted(seen)}, expected {sorted(blocks)}")
    return out


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    new = render(text, exchange())
    if "--write" in sys.argv[1:]:
        DOC.write_text(new, encoding="utf-8")
        return 0
    if new != text:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                   "docs/wire.md", "generated"))
        print("FAIL: docs/wire.md differs from what the core sends; "
              "run `python scripts/wire-doc.py --write` with the wheel installed", file=sys.stderr)
        return 1
    print("docs/wire.md matches the core's bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
