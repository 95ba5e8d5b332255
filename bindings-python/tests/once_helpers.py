"""Flows for the issue 17 tests: a final round to run an effect on."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

import snodo_mrtr as s
from conftest import KEY, NOW, request
from snodo_mrtr import Call, Engine

ASK = s.elicit_form("Color?", {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]})
ASK2 = s.elicit_form("Size?", {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})


def engine(seed: int = 1, now: int = NOW) -> Engine:
    return Engine([("k1", KEY)], fixed_time=now, test_random_seed=seed)


def accept(**content: Any) -> Dict[str, Any]:
    return {"action": "accept", "content": content}


def begin(
    e: Engine, state: Optional[str] = None, answers: Optional[Dict[str, Any]] = None, id: int = 1, flow: int = 0
) -> Call:
    # Seeded engines derive ids from the seed and what is sealed: `flow`
    # (in the arguments) makes distinct flows.
    params: Dict[str, Any] = {"arguments": {"flow": flow}}
    if state is not None:
        params["requestState"] = state
    if answers is not None:
        params["inputResponses"] = answers
    call = e.begin(request(id=id, **params), "alice")
    assert isinstance(call, Call), call
    return call


def ask(e: Engine, call: Call, key: str = "c", question: Any = ASK) -> str:
    """Decides `input_required` and returns the requestState the client gets."""
    body = json.loads(e.decide(call, s.input_required({key: question})).to_json())
    state = body["result"]["requestState"]
    assert isinstance(state, str)
    return state


def final_round(e: Engine, color: str = "red", id: int = 2, flow: int = 0) -> Call:
    """Round 2 of a flow: the retry that carries the answer."""
    state = ask(e, begin(e, flow=flow))
    return begin(e, state, {"c": accept(c=color)}, id=id, flow=flow)


def final_state(e: Engine, flow: int = 0) -> str:
    """The requestState of round 1, to send several final rounds with (`flow=`
    to `begin` the same)."""
    return ask(e, begin(e, flow=flow))
