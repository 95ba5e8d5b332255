"""Issue 16, eighth pass: `Engine.decide` reads an outcome dict member by
member (`src/outcome.rs`) and hands anything unusual to the reference
reading (the whole dict converted, then the core's `Outcome::from_value`).
The two must give the same response bytes (tokens included) or the same
error, for random outcomes, valid and not, and on a memo hit as on a miss."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import snodo_mrtr as s
from conftest import KEY, NOW, request
from snodo_mrtr import Engine, RawJSON, _native
from test_json_paths import ODD, TEXT, VALUES, MyDict, outcome

Q = s.elicit_form("Which seat?", {"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]})
ABSENT = object()


class Kind(str):
    """A `str` subclass: equal to the kind it spells, not an exact `str`."""


KINDS = st.sampled_from(["input_required", "complete", "raw", "error", "tool_error", "other", Kind("complete"),
                         Kind("input_required"), 1, None, "input_required ", "Complete"])
QUESTIONS = st.one_of(
    st.just(ABSENT), st.none(), st.just({"seat": Q}), st.just({"seat": Q, "row": Q}), st.just({}),
    st.dictionaries(TEXT, VALUES, max_size=3), st.just([Q]), st.just(MyDict(seat=Q)), st.just("text"),
    st.just({"seat": {"mode": "form", "message": float("nan")}}), st.just({1: Q}),
)
STATES = st.one_of(st.just(ABSENT), st.none(), VALUES, st.sampled_from(ODD), st.just(RawJSON("null")),
                   st.just(RawJSON('{"b":1.0,"a":[]}')))
RESULTS = st.one_of(st.just(ABSENT), VALUES, st.just({"content": [{"type": "text", "text": "booked"}]}),
                    st.sampled_from(ODD))
EXTRA = st.one_of(st.just(ABSENT), VALUES, st.sampled_from(ODD))


def make(kind: Any, requests: Any, state: Any, result: Any, extra: Any, order: list) -> dict:
    members = {"type": kind, "inputRequests": requests, "state": state, "result": result, "note": extra}
    return {k: members[k] for k in order if members[k] is not ABSENT}


def decide_both(o: Any) -> None:
    engines = [Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=11) for _ in range(2)]
    req = request(arguments={"a": 1})
    # Twice each: the questions' memo misses, then hits.
    for _ in range(2):
        fast = outcome(lambda: engines[0].decide(engines[0].begin(req, "alice"), o).to_json())
        ref = outcome(lambda: _native._decide_reference(engines[1], engines[1].begin(req, "alice"), o).to_json())
        assert fast == ref, o


@settings(max_examples=400, deadline=None)
@given(KINDS, QUESTIONS, STATES, RESULTS, EXTRA, st.permutations(["type", "inputRequests", "state", "result", "note"]))
def test_outcome_read_by_members_gives_the_reference_response(
    kind: Any, requests: Any, state: Any, result: Any, extra: Any, order: list
) -> None:
    decide_both(make(kind, requests, state, result, extra, order))


def test_the_helpers_outcomes_give_the_reference_response() -> None:
    for o in (
        s.input_required({"seat": Q}, state={"n": 1, "pad": "x" * 300}),
        s.input_required({"seat": Q}),
        s.input_required(state=[1.5, -0.0, None]),
        s.input_required({"seat": Q}, state=RawJSON("null")),
        s.complete({"content": [{"type": "text", "text": "booked"}]}),
        s.complete({"content": [], "structuredContent": {"x": 1.0, "y": 10**30}}),
        s.complete({"content": [{"type": "text", "text": float("inf")}]}),
        s.tool_error("no"),
        s.error(-32602, "bad", {"a": 1}),
        s.raw({"content": []}),
        MyDict(s.complete({"content": []})),
        {"type": "complete"},
        {"type": "input_required", "inputRequests": {"seat": Q}, "state": {"n": 1}, "extra": float("nan")},
    ):
        decide_both(o)


def test_a_question_changed_between_rounds_is_read_anew() -> None:
    e = Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=3)
    r = Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=3)
    q = {"method": "elicitation/create", "params": {"mode": "form", "message": "Which seat?",
                                                     "requestedSchema": {"type": "object", "properties": {}}}}
    for message in ("Which seat?", "Which row?", "Which seat?"):
        q["params"]["message"] = message
        o = s.input_required({"seat": q}, state={"m": message})
        got = e.decide(e.begin(request(arguments={"a": 1}), "alice"), o).to_json()
        want = _native._decide_reference(r, r.begin(request(arguments={"a": 1}), "alice"), o).to_json()
        assert got == want and message in got
