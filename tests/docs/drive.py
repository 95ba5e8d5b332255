"""What the docs harness (tests/docs/run.py) does with a Python handler a
page shows: the page's block runs as written, then its handler is driven
through three flows. A first call must ask (input_required); a retry that
accepts with the first enum value must complete with that value; a retry
that declines must end the flow (a final result, never another question).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable, Dict, Optional

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


TASKS_META = {**META, "io.modelcontextprotocol/clientCapabilities": {
    "elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}}}


def drive_task(name: str, handle: Callable[[bytes, Optional[str]], Awaitable[Any]]) -> None:
    """A handler served by the task runner, both ways: for a client that declares the Tasks
    extension, a task that asks on tasks/get (a key minted for the task), takes the answer from
    tasks/update and completes with it; for any other, the same question as an MRTR round,
    completed on accept and ended on decline."""
    asyncio.run(_drive_task(name, handle))


async def _drive_task(name: str, handle: Callable[[bytes, Optional[str]], Awaitable[Any]]) -> None:
    async def rpc(rid: int, method: str, params: Dict[str, Any], meta: Dict[str, Any]) -> Dict[str, Any]:
        req = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": meta}}
        return body_of(await handle(json.dumps(req).encode(), "alice"))

    tool = {"name": "report", "arguments": {}}
    created = (await rpc(1, "tools/call", tool, TASKS_META))["result"]
    assert created["resultType"] == "task" and "requestState" not in created, (name, created)
    task = {"taskId": created["taskId"]}

    async def poll(*statuses: str) -> Dict[str, Any]:
        for _ in range(500):
            got: Dict[str, Any] = (await rpc(2, "tasks/get", task, TASKS_META))["result"]
            if got["status"] in statuses:
                return got
            await asyncio.sleep(0.01)  # the task runs in the background meanwhile
        raise AssertionError((name, "the task never reached", statuses, got))

    waiting = await poll("input_required")
    [(key, question)] = waiting["inputRequests"].items()
    assert key.endswith("@1"), (name, "a key minted for the task", key)
    prop, spec = next(iter(question["params"]["requestedSchema"]["properties"].items()))
    accept = {"action": "accept", "content": {prop: spec["enum"][0]}}
    ack = await rpc(3, "tasks/update", {**task, "inputResponses": {key: accept}}, TASKS_META)
    assert ack["result"] == {"resultType": "complete"}, (name, ack)
    done = await poll("completed", "failed", "cancelled")
    assert done["status"] == "completed" and spec["enum"][0] in json.dumps(done["result"]), (name, done)
    first = (await rpc(4, "tools/call", tool, META))["result"]
    assert first["resultType"] == "input_required" and list(first["inputRequests"]) == [key.split("@")[0]], first
    for answer in (accept, {"action": "decline"}):
        retry = {**tool, "inputResponses": {key.split("@")[0]: answer}, "requestState": first["requestState"]}
        result = (await rpc(5, "tools/call", retry, META))["result"]
        assert result["resultType"] == "complete", (name, result)
        assert bool(result.get("isError")) == (answer is not accept), (name, answer, result)
    print(f"{name}: a task that asks on tasks/get and completes after tasks/update; MRTR rounds for other clients")
