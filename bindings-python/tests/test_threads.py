"""One Engine, 8 threads: identical results (the GIL is released inside)."""

from __future__ import annotations

import threading
from typing import List

import snodo_mrtr as s
from conftest import request
from snodo_mrtr import Call, Engine

ASK = s.elicit_form("Pick", {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]})


def flow(engine: Engine, i: int) -> List[str]:
    out = []
    call = engine.begin(request(id=i % 3, arguments={"n": i % 3}), "alice")
    assert isinstance(call, Call)
    r1 = engine.decide(call, s.input_required({"c": ASK}, state={"n": i % 3}))
    out.append(r1.to_json())
    token = r1.body["result"]["requestState"]
    retry = request(id=i % 3, arguments={"n": i % 3}, inputResponses={"c": {"action": "accept", "content": {"c": "x"}}}, requestState=token)
    call2 = engine.begin(retry, "alice")
    assert isinstance(call2, Call)
    out.append(call2.response("c", ASK).kind)
    out.append(engine.decide(call2, s.complete({"content": [{"type": "text", "text": str(call2.state)}]})).to_json())
    return out


def test_eight_threads_one_engine(engine: Engine) -> None:
    expected = {i % 3: flow(engine, i) for i in range(3)}
    results: List[List[List[str]]] = [[] for _ in range(8)]
    errors: List[BaseException] = []
    barrier = threading.Barrier(8)

    def worker(t: int) -> None:
        try:
            barrier.wait()
            for i in range(200):
                results[t].append(flow(engine, i))
        except BaseException as e:  # reported below: a thread's failure must fail the test
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not errors, errors
    for t in range(8):
        assert len(results[t]) == 200
        for i, got in enumerate(results[t]):
            assert got == expected[i % 3]
