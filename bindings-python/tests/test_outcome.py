"""`Engine.decide`'s outcome argument (src/outcome.rs): an `input_required`
whose requests are all `Question`s hands them to the core as they are;
any other outcome is read by the core's `Outcome::from_value`. The
reference is computed here: the same outcome with every question written
as its request dict (which the core makes a question again), and, for
values JSON can spell, the outcome as JSON text. All must give the same
response bytes (tokens included) or the same error."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import snodo_mrtr as s
from conftest import KEY, NOW, request
from snodo_mrtr import Engine, Question, RawJSON
from test_json import TEXT, VALUES, MyDict

Q = s.elicit_form("Which seat?", {"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]})
R = s.elicit_url("Sign in", "https://example.com/login")
ABSENT = object()


def as_requests(value: Any) -> Any:
    """`value` with every Question written as its request dict."""
    if isinstance(value, Question):
        return value.value
    if isinstance(value, dict):
        return type(value)((k, as_requests(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return type(value)(as_requests(v) for v in value)
    return value


def str_keys(value: Any) -> bool:
    """Whether every dict key is a str (json.dumps would turn others into str)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and str_keys(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(str_keys(v) for v in value)
    return True


def result(fn: Any) -> Any:
    """The response text and diagnostic, or the exception's type and message."""
    try:
        response = fn()
        return ("ok", response.to_json(), response.diagnostic)
    except Exception as e:  # noqa: BLE001 - comparing whatever each reading raises
        return ("err", type(e), str(e))


def decided(outcome: Any) -> Any:
    engine = Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=11)
    return result(lambda: engine.decide(engine.begin(request(arguments={"a": 1}), "alice"), outcome))


def agree(outcome: Any, text_too: bool = True) -> Any:
    got = decided(outcome)
    assert got == decided(as_requests(outcome)), outcome
    if text_too and str_keys(as_requests(outcome)):
        try:
            text = json.dumps(as_requests(outcome), allow_nan=False)
        except (TypeError, ValueError):
            return got
        assert got == decided(text), outcome
    return got


KINDS = st.sampled_from(["input_required", "complete", "raw", "error", "tool_error", "other", 1, None, "input_required "])
KEYS = st.sampled_from(["seat", "row", "b", "a", "", " ", "x" * 80, "é"])
QUESTIONS = st.one_of(
    st.just(ABSENT), st.none(), st.just({}), st.just([Q]), st.just("text"), st.just({1: Q}),
    st.dictionaries(KEYS, st.sampled_from([Q, R]), min_size=1, max_size=3),
    st.dictionaries(KEYS, st.one_of(st.sampled_from([Q, R]), VALUES), min_size=1, max_size=3),
    st.dictionaries(KEYS, st.sampled_from([Q, R]), min_size=1, max_size=2).map(lambda d: MyDict(d)),
)
STATES = st.one_of(st.just(ABSENT), st.none(), VALUES, st.just(RawJSON("null")), st.just(RawJSON('{"b":1.0,"a":[]}')),
                   st.just(float("nan")), st.just({"q": Q}))
RESULTS = st.one_of(st.just(ABSENT), VALUES, st.just({"content": [{"type": "text", "text": "booked"}]}))
EXTRA = st.one_of(st.just(ABSENT), VALUES, st.just(float("nan")))


@settings(max_examples=400, deadline=None)
@given(KINDS, QUESTIONS, STATES, RESULTS, EXTRA, st.permutations(["type", "inputRequests", "state", "result", "note"]))
def test_questions_as_values_give_the_response_of_their_requests(
    kind: Any, requests: Any, state: Any, result_: Any, extra: Any, order: list
) -> None:
    members = {"type": kind, "inputRequests": requests, "state": state, "result": result_, "note": extra}
    agree({k: members[k] for k in order if members[k] is not ABSENT})


def test_the_helpers_outcomes() -> None:
    for o in (
        s.input_required({"seat": Q}, state={"n": 1, "pad": "x" * 300}),
        s.input_required({"seat": Q, "login": R}),
        s.input_required({"b": Q, "x" * 80: R, "": Q}),  # the first bad key in key order is named
        s.input_required({"seat": Q}, state=RawJSON("null")),
        s.input_required({"seat": Q}, state=[1.5, -0.0, None, 10**30]),
        s.input_required({"seat": Q, "row": Q.value}),
        s.input_required({"seat": Q, "bad": {"method": "elicitation/create"}}),
        s.input_required(state=[1.5, -0.0, None]),
        s.complete({"content": [], "structuredContent": {"x": 1.0, "y": 10**30}}),
        s.tool_error("no"),
        s.error(-32602, "bad", {"a": 1}),
        s.raw({"resultType": "input_required", "inputRequests": {"seat": Q}}),
    ):
        assert agree(o)[0] == "ok", o
    asked = json.loads(decided(s.input_required({"seat": Q}))[1])
    assert asked["result"]["inputRequests"] == {"seat": Q.value}


def test_every_member_is_read_whatever_the_questions() -> None:
    # A member JSON cannot spell is refused, as it is beside request dicts.
    got = agree({"type": "input_required", "inputRequests": {"seat": Q}, "state": {"n": 1}, "extra": float("nan")})
    assert got[:2] == ("err", s.JsonError), got
    got = agree({"type": "input_required", "inputRequests": {"seat": Q}, "note": {1: 2}})
    assert got[:2] == ("err", s.JsonError), got


def test_an_invalid_request_dict_beside_questions_is_the_cores_32603() -> None:
    got = agree(s.input_required({"seat": Q, "bad": {"method": "elicitation/create"}}))
    body = json.loads(got[1])
    assert body["error"]["code"] == -32603, body


def nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def test_a_deep_state_is_read_as_deep_beside_questions() -> None:
    # The state sits one level inside the outcome, on either reading: what the
    # outcome's JSON refuses for depth, the questions' reading refuses too.
    for levels in (62, 63, 64, 65):
        agree(s.input_required({"seat": Q}, state=nested(levels)))
