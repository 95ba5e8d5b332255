"""The task runner (snodo_mrtr.tasks) on the core's task machine: one
handler run inline for a client without the Tasks extension and as a task
for one that declared it, partial answers, minted keys, answers validated
as MRTR answers, cancellation racing a run, the gates, a failing store, and
a fleet in miniature on real Redis (two runners, two clients, one task).

The Redis test needs SNODO_REDIS_URL (scripts/test-python.sh starts a
throwaway Redis) and fails, never skips, without it.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from typing import Any, Callable, Dict, List, Optional

import pytest

import snodo_mrtr as s
from conftest import KEY, meta
from snodo_mrtr import Call, Engine, MemoryTaskStore, Response, StoreError, Tasks

DECLARED = {"elicitation": {}, "extensions": {s.TASKS_EXTENSION: {}}}
UNDECLARED = {"elicitation": {}}
ASK_A = s.elicit_form("First?", {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})
ASK_B = s.elicit_form("Second?", {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]})
SETTLED = ("input_required", "completed", "failed", "cancelled")


def message(method: str, caps: Dict[str, Any] = DECLARED, id: int = 1, **params: Any) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {**params, "_meta": meta(caps)}}


def text_of(body: Dict[str, Any]) -> str:
    return str(body["result"]["content"][0]["text"])


class Recorder:
    """A task store that records each command's op and reply, and fails the
    ops in ``failing`` (a StoreError, as a Redis store raises it)."""

    def __init__(self, inner: Any = None) -> None:
        self.inner = MemoryTaskStore() if inner is None else inner
        self.log: List[tuple] = []
        self.failing: set = set()

    def execute(self, command: s.TaskCommand) -> str:
        if command.op in self.failing:
            self.log.append((command.op, None))
            raise StoreError(f"task store: {command.op} refused by the test")
        reply = str(self.inner.execute(command))
        self.log.append((command.op, reply.split(" ")[0]))
        return reply


class Server:
    """A server in miniature: an engine, a router with two tools, a runner."""

    def __init__(self, store: Any = None, required: tuple = ("task_only",)) -> None:
        self.engine = Engine([("k1", KEY)])
        self.runs: List[Dict[str, Any]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.tasks = Tasks(self.engine, self.route, store=store, required=required)

    def route(self, call: Call) -> Dict[str, Any]:
        self.runs.append({"task_id": call.task_id, "principal": call.principal, "state": call.state})
        if call.name == "patient":  # works until its task is no longer `working`
            if call.state is None:
                return s.run_as_task({"step": "work"})
            while self.tasks.status(call) == "working":
                time.sleep(0.01)
            self.runs.append({"stopped": self.tasks.status(call)})
            return s.complete({"content": [{"type": "text", "text": "stopped"}]})
        if call.name == "slow":
            if call.state is None:
                return s.run_as_task({"step": "work"})
            assert self.gate.wait(10)
            return s.complete({"content": [{"type": "text", "text": "worked"}]})
        # survey and task_only: hand on, then ask two questions at once.
        if call.state is None:
            return s.run_as_task({"step": "ask"})
        a, b = call.response("a", ASK_A), call.response("b", ASK_B)
        if not all(x.is_accepted or x.is_declined or x.is_cancelled for x in (a, b)):
            return s.input_required({"a": ASK_A, "b": ASK_B}, {"step": "ask"})
        return s.complete({"content": [{"type": "text", "text": f"a={a.kind}:{a.value} b={b.kind}:{b.value}"}]})

    def send(self, msg: Dict[str, Any], who: Optional[str] = "alice") -> Dict[str, Any]:
        begun = self.engine.begin(msg, who)
        if isinstance(begun, Response):
            return dict(begun.body)
        return dict(self.tasks.answer_sync(begun).body)

    def create(self, name: str = "survey", who: str = "alice") -> str:
        body = self.send(message("tools/call", name=name, arguments={}), who)
        assert body["result"]["resultType"] == "task", body
        assert body["result"]["status"] == "working"
        return str(body["result"]["taskId"])

    def get(self, task_id: str, who: str = "alice") -> Dict[str, Any]:
        return self.send(message("tasks/get", taskId=task_id), who)

    def until(self, task_id: str, status: str, who: str = "alice") -> Dict[str, Any]:
        return until(lambda: self.get(task_id, who), status)


def until(get: Callable[[], Dict[str, Any]], status: str) -> Dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        body = get()
        if body.get("result", {}).get("status") == status:
            return body["result"]  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, f"still {body} (waiting for {status})"
        time.sleep(0.01)


def accept(**content: Any) -> Dict[str, Any]:
    return {"action": "accept", "content": content}


def test_inline_for_a_client_without_the_extension() -> None:
    srv = Server()
    first = srv.send(message("tools/call", UNDECLARED, name="survey", arguments={}))
    # One request ran the handler twice (the continuation inline) and asked by MRTR: no task.
    assert [r["task_id"] for r in srv.runs] == [None, None]
    assert first["result"]["resultType"] == "input_required"
    assert sorted(first["result"]["inputRequests"]) == ["a", "b"]
    retry = message("tools/call", UNDECLARED, id=2, name="survey", arguments={},
                    inputResponses={"a": accept(a="x"), "b": {"action": "decline"}},
                    requestState=first["result"]["requestState"])
    done = srv.send(retry)
    assert text_of(done) == "a=accepted:{'a': 'x'} b=declined:None"
    assert srv.runs[-1]["state"] == {"step": "ask"} and srv.runs[-1]["task_id"] is None


def test_as_a_task_with_partial_answers_under_minted_keys() -> None:
    store = Recorder()
    srv = Server(store)
    task_id = srv.create()
    waiting = srv.until(task_id, "input_required")
    assert sorted(waiting["inputRequests"]) == ["a@1", "b@1"]
    assert srv.runs[0]["task_id"] is None and srv.runs[1]["task_id"] == task_id
    assert srv.runs[1]["principal"] == "alice" and srv.runs[1]["state"] == {"step": "ask"}
    # An entry that is not an object is refused at begin, as on an MRTR retry.
    refused = srv.send(message("tasks/update", taskId=task_id, inputResponses={"a@1": "yes"}))
    assert refused["error"]["code"] == -32602
    # One of two (and a key never asked, ignored): the task still waits, on the other key only.
    ack = srv.send(message("tasks/update", taskId=task_id, inputResponses={"a@1": {"action": "maybe"}, "zz@1": accept()}))
    assert ack["result"] == {"resultType": "complete"}
    assert list(srv.get(task_id)["result"]["inputRequests"]) == ["b@1"]
    assert len(srv.runs) == 2
    srv.send(message("tasks/update", taskId=task_id, inputResponses={"b@1": accept(b=2)}))
    # "maybe" is no answer the handler can take (invalid, as in MRTR): it asks again, under new keys.
    again = srv.until(task_id, "input_required")  # tasks/update made it `working` at once
    assert sorted(again["inputRequests"]) == ["a@2", "b@2"]
    srv.send(message("tasks/update", taskId=task_id, inputResponses={"a@2": accept(a="x"), "b@2": {"action": "decline"}}))
    done = srv.until(task_id, "completed")
    assert done["result"]["content"][0]["text"] == "a=accepted:{'a': 'x'} b=declined:None"
    assert [r["task_id"] for r in srv.runs] == [None, task_id, task_id, task_id]
    assert {r["principal"] for r in srv.runs} == {"alice"}  # every run is the creator's, resumed ones too
    # An answer to a spent key changes nothing.
    srv.send(message("tasks/update", taskId=task_id, inputResponses={"b@2": accept(b=1)}))
    assert srv.get(task_id)["result"]["status"] == "completed" and len(srv.runs) == 4
    assert ("answer", "waiting") in store.log and ("answer", "resume") in store.log


def test_cancel_while_a_run_is_under_way_stays_cancelled() -> None:
    store = Recorder()
    srv = Server(store)
    srv.gate.clear()
    task_id = srv.create("slow")
    deadline = time.monotonic() + 10
    while len(srv.runs) < 2:  # the background run is in the handler
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert srv.send(message("tasks/cancel", taskId=task_id))["result"] == {"resultType": "complete"}
    srv.gate.set()
    while ("finish", "stale") not in store.log:
        assert time.monotonic() < deadline, store.log
        time.sleep(0.01)
    result = srv.get(task_id)["result"]
    assert result["status"] == "cancelled" and "result" not in result
    # Cancelling again, or answering, leaves it so.
    srv.send(message("tasks/cancel", taskId=task_id))
    assert srv.get(task_id)["result"]["status"] == "cancelled"


def test_a_long_run_learns_its_task_was_cancelled() -> None:
    store = Recorder()
    srv = Server(store)
    task_id = srv.create("patient")
    assert srv.get(task_id)["result"]["status"] == "working"
    srv.send(message("tasks/cancel", taskId=task_id))
    deadline = time.monotonic() + 10
    while ("finish", "stale") not in store.log:
        assert time.monotonic() < deadline, store.log
        time.sleep(0.01)
    assert srv.runs[-1] == {"stopped": "cancelled"}
    assert srv.get(task_id)["result"]["status"] == "cancelled"
    # Read in a request (no task), status is a clear error.
    call = srv.engine.begin(message("tools/call", name="patient", arguments={}), "alice")
    assert isinstance(call, Call)
    with pytest.raises(s.ArgumentError):
        srv.tasks.status(call)


def test_gates() -> None:
    srv = Server()
    task_id = srv.create()
    srv.until(task_id, "input_required")
    for who, tid in (("alice", "no-such-task"), ("bob", task_id), (None, task_id)):
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            body = srv.send(message(method, taskId=tid, inputResponses={}), who)
            assert body["error"]["code"] == -32602, (who, method, body)
    assert srv.send(message("tasks/get"))["error"]["code"] == -32602
    undeclared = srv.send(message("tasks/get", UNDECLARED, taskId=task_id))
    assert undeclared["error"]["code"] == -32021
    assert undeclared["error"]["data"] == {"requiredCapabilities": s.task_required_capabilities()}
    for method in ("tasks/result", "tasks/list"):
        assert srv.send(message(method, taskId=task_id))["error"]["code"] == -32601
    # Bob's cancel did nothing: the task still waits for alice.
    assert srv.get(task_id)["result"]["status"] == "input_required"


def test_a_required_tool_refuses_an_undeclared_client_before_running() -> None:
    srv = Server()
    body = srv.send(message("tools/call", UNDECLARED, name="task_only", arguments={}))
    assert body["error"]["code"] == -32021
    assert body["error"]["data"] == {"requiredCapabilities": {"extensions": {s.TASKS_EXTENSION: {}}}}
    assert srv.runs == []
    assert srv.create("task_only")


@pytest.mark.parametrize("op", ["create", "answer"])
def test_a_failing_store_answers_32603_and_starts_no_run(op: str) -> None:
    store = Recorder()
    srv = Server(store)
    task_id = srv.create() if op == "answer" else None
    if task_id:
        srv.until(task_id, "input_required")
    store.failing.add(op)
    runs = len(srv.runs)
    if task_id:
        msg = message("tasks/update", taskId=task_id, inputResponses={"a@1": accept(a="x"), "b@1": accept(b=1)})
    else:
        msg = message("tools/call", name="survey", arguments={})
    body = srv.send(msg)
    assert body["error"]["code"] == -32603 and body["error"]["message"] == "task store unavailable"
    time.sleep(0.2)
    assert len(srv.runs) == runs + (0 if task_id else 1)  # the request's own run, never a leg
    store.failing.clear()
    if task_id:  # nothing was taken: the task still waits on both keys
        assert sorted(srv.get(task_id)["result"]["inputRequests"]) == ["a@1", "b@1"]


def test_a_step_finishes_once() -> None:
    srv = Server()
    call = srv.engine.begin(message("tasks/get", taskId="x"), "alice")
    assert isinstance(call, Call)
    step = srv.engine.task_step(call)
    assert step.command is not None and step.command.op == "get"
    step.finish(None)
    with pytest.raises(s.ArgumentError):
        step.finish(None)


def test_asyncio_runner_with_an_async_route() -> None:
    srv = Server()

    async def route(call: Call) -> Dict[str, Any]:
        await asyncio.sleep(0)
        return srv.route(call)

    tasks = Tasks(srv.engine, route)

    async def main() -> Dict[str, Any]:
        async def send(msg: Dict[str, Any]) -> Dict[str, Any]:
            begun = srv.engine.begin(msg, "alice")
            assert isinstance(begun, Call), begun.body
            return dict((await tasks.answer(begun)).body)

        created = await send(message("tools/call", name="survey", arguments={}))
        task_id = created["result"]["taskId"]
        for _ in range(1000):
            got = await send(message("tasks/get", taskId=task_id))
            if got["result"]["status"] == "input_required":
                break
            await asyncio.sleep(0.01)
        await send(message("tasks/update", taskId=task_id, inputResponses={"a@1": accept(a="y"), "b@1": accept(b=3)}))
        for _ in range(1000):
            got = await send(message("tasks/get", taskId=task_id))
            if got["result"]["status"] == "completed":
                return got["result"]  # type: ignore[no-any-return]
            await asyncio.sleep(0.01)
        raise AssertionError(got)

    done = asyncio.run(main())
    assert done["result"]["content"][0]["text"] == "a=accepted:{'a': 'y'} b=accepted:{'b': 3}"


def test_a_fleet_in_miniature_on_redis() -> None:
    url = os.environ.get("SNODO_REDIS_URL")
    if not url:
        pytest.fail("SNODO_REDIS_URL is not set: run scripts/test-python.sh (it starts Redis); this test never skips")
    one, two = s.RedisStore(url), s.RedisStore(url)
    assert one.client is not two.client
    first, second = Server(one), Server(two)
    try:
        task_id = first.create()
        # Polled, answered and cancelled through the other process.
        waiting = second.until(task_id, "input_required")
        assert sorted(waiting["inputRequests"]) == ["a@1", "b@1"]
        assert second.get(task_id, "bob")["error"]["code"] == -32602
        second.send(message("tasks/update", taskId=task_id, inputResponses={"a@1": accept(a="r"), "b@1": accept(b=5)}))
        done = first.until(task_id, "completed")
        assert done["result"]["content"][0]["text"] == "a=accepted:{'a': 'r'} b=accepted:{'b': 5}"
        assert [r["task_id"] for r in second.runs] == [task_id]  # the last run ran where the answer arrived
        other = first.create()
        second.until(other, "input_required")
        second.send(message("tasks/cancel", taskId=other))
        assert first.get(other)["result"]["status"] == "cancelled"
        first.send(message("tasks/update", taskId=other, inputResponses={"a@1": accept(a="r"), "b@1": accept(b=5)}))
        assert first.get(other)["result"]["status"] == "cancelled"
    finally:
        one.close()
        two.close()
