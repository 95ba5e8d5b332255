"""Flows and races for the once tests: final rounds to run an effect on, a
flow reached through several of its tokens, and the race every store must
pass (mirrors core/tests/common/once_calls.rs and once_race.rs)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import snodo_mrtr as s
from conftest import KEY, NOW, request
from snodo_mrtr import Call, Engine

ASK = s.elicit_form("Color?", {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]})
ASK2 = s.elicit_form("Size?", {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
COLORS = ["red", "blue", "green", "black"]


def engine(seed: int = 1, now: int = NOW) -> Engine:
    return Engine([("k1", KEY)], fixed_time=now, test_random_seed=seed)


def live_engine(seed: int = 1) -> Engine:
    """An engine on today's clock: the flows' records on a shared Redis then
    expire with the flows, not years from now."""
    return engine(seed, int(time.time()))


def accept(**content: Any) -> Dict[str, Any]:
    return {"action": "accept", "content": content}


def begin(
    e: Engine,
    state: Optional[str] = None,
    answers: Optional[Dict[str, Any]] = None,
    id: int = 1,
    flow: int = 0,
    who: str = "alice",
) -> Call:
    # Seeded engines derive ids from the seed and what is sealed: `flow`
    # (in the arguments) makes distinct flows.
    params: Dict[str, Any] = {"arguments": {"flow": flow}}
    if state is not None:
        params["requestState"] = state
    if answers is not None:
        params["inputResponses"] = answers
    call = e.begin(request(id=id, **params), who)
    assert isinstance(call, Call), call
    return call


def ask(e: Engine, call: Call, key: str = "c", question: Any = ASK) -> str:
    """Decides `input_required` and returns the requestState the client gets."""
    body = json.loads(e.decide(call, s.input_required({key: question})).to_json())
    state = body["result"]["requestState"]
    assert isinstance(state, str)
    return state


def final_round(e: Engine, color: str = "red", id: int = 2, flow: int = 0, who: str = "alice") -> Call:
    """Round 2 of a flow: the retry that carries the answer."""
    state = ask(e, begin(e, flow=flow, who=who))
    return begin(e, state, {"c": accept(c=color)}, id=id, flow=flow, who=who)


def final_state(e: Engine, flow: int = 0) -> str:
    """The requestState of round 1, to send several final rounds with (`flow=`
    to `begin` the same)."""
    return ask(e, begin(e, flow=flow))


def ask_again(e: Engine, state: str, flow: int = 0) -> str:
    """The token a handler issues when it asks again on a retry of `state`
    that carried no answers: a new token of the same flow."""
    return ask(e, begin(e, state, flow=flow))


def flow_calls(e: Engine, flow: int = 0, tokens: int = 2, answers: int = 2) -> List[List[Call]]:
    """`calls[token][answer]`: final rounds of one flow through `tokens` of its
    tokens (each issued by asking again on a retry of the previous one), each
    with `answers` different colors."""
    states = [final_state(e, flow)]
    while len(states) < tokens:
        states.append(ask_again(e, states[-1], flow))
    return [
        [begin(e, state, {"c": accept(c=COLORS[a])}, id=10 * t + a, flow=flow) for a in range(answers)]
        for t, state in enumerate(states)
    ]


def racer(calls: List[List[Call]], t: int) -> Call:
    """The call thread `t` of a race sends: every token and every answer."""
    return calls[t % len(calls)][(t // len(calls)) % len(calls[0])]


def check_race(effects: int, outcomes: Sequence[Tuple[str, Any]]) -> None:
    """Exactly one effect; every caller with the winner's answers got its
    exact result, every other one the `replayed` refusal."""
    assert effects == 1, f"{effects} effects: {outcomes}"
    won = [(d, r) for d, r in outcomes if not isinstance(r, BaseException)]
    assert won, f"nobody booked: {outcomes}"
    digest, result = won[0]
    for d, r in outcomes:
        if isinstance(r, BaseException):
            assert d != digest, f"the winner's answers were refused: {r!r}"
            assert isinstance(r, s.TokenError), repr(r)
            assert str(r) == s.ONCE_REPLAYED_MESSAGE and getattr(r, "reason", None) == "replayed"
        else:
            assert (d, r) == (digest, result), "another result, or other answers got one"


def race_threads(calls: List[List[Call]], stores: Sequence[Any], n: int = 8) -> None:
    """`n` threads released together run the final round of one flow through
    all of `calls`, thread `t` on store `t % len(stores)`."""
    effects: List[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(n)
    outcomes: List[Tuple[str, Any]] = [("", None)] * n

    def worker(t: int) -> None:
        call = racer(calls, t)

        def effect(lease: s.OnceLease) -> Dict[str, Any]:
            with lock:
                effects.append(t)
            time.sleep(0.005)  # long enough that the others find the claim pending
            return {"booked": f"by thread {t}", "fence": lease.fence}

        barrier.wait()
        try:
            got: Any = s.run_once(stores[t % len(stores)], call, effect)
        except Exception as e:  # noqa: BLE001 - checked below
            got = e
        outcomes[t] = (call.answers_digest, got)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    check_race(len(effects), outcomes)


async def race_gather(calls: List[List[Call]], stores: Sequence[Any], n: int = 8) -> None:
    """`race_threads` as `n` coroutines under one `asyncio.gather`."""
    effects: List[int] = []

    async def one(t: int) -> Tuple[str, Any]:
        call = racer(calls, t)

        async def effect(lease: s.AsyncOnceLease) -> Dict[str, Any]:
            effects.append(t)
            await asyncio.sleep(0.005)
            return {"booked": f"by task {t}", "fence": lease.fence}

        try:
            got: Any = await s.run_once_async(stores[t % len(stores)], call, effect)
        except Exception as e:  # noqa: BLE001 - checked below
            got = e
        return call.answers_digest, got

    outcomes = await asyncio.gather(*(one(t) for t in range(n)))
    check_race(len(effects), outcomes)
