"""Issue 16, seventh pass: the memo of repeated dicts (`json_fast::memo`),
which `call.response(key, request)` and the questions of an
`input_required` outcome go through. A memo hit must give exactly what a
fresh conversion gives, whatever the caller did to its dict in between
(mutated it in place, swapped 1 for 1.0 or True, -0.0 for 0.0, reordered
keys), and everything it does not take goes the ordinary way, errors and
all."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import snodo_mrtr as s
from conftest import KEY, NOW, request
from snodo_mrtr import Engine, _native
from test_json_paths import ODD, TEXT, VALUES, MyDict, outcome

SETTINGS = settings(max_examples=300, deadline=None)
DICTS = st.dictionaries(TEXT, VALUES, max_size=6)
Q = s.elicit_form("Which seat?", {"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]})


def reference(value: Any) -> Any:
    return outcome(_native._canonical_of, value, True)


def agrees(value: Any) -> None:
    """Through the memo twice (a miss, then a hit), each time the reference
    text or error, or `None` where the memo stands aside."""
    for _ in range(2):
        got = outcome(_native._memo_canonical_of, value)
        if got != ("ok", None):
            assert got == reference(value), value


@SETTINGS
@given(DICTS)
def test_memo_gives_the_reference_bytes(value: Any) -> None:
    agrees(value)


def lookalikes(value: Any) -> Any:
    """Values equal to `value` in Python (==) but not as JSON, and in-place edits."""
    if isinstance(value, bool):
        return [int(value), float(value)]
    if isinstance(value, int):
        near = [float(value)] if abs(value) < 2**1000 else []
        return near + [value + 1] + ([bool(value)] if value in (0, 1) else [])
    if isinstance(value, float):
        return [-value, int(value) if value == value and abs(value) < 1e300 else 0]
    if isinstance(value, str):
        return [value + "x", value[:-1]]
    if isinstance(value, (list, tuple)):
        out: list = [list(value) + [None], tuple(value) if isinstance(value, list) else list(value)]
        for i, v in enumerate(value):
            for w in lookalikes(v):
                c = list(value)
                c[i] = w
                out.append(type(value)(c))
        return out
    if isinstance(value, dict):
        out = [dict(reversed(list(value.items()))), {**value, "extra": 1}]
        for k, v in value.items():
            for w in lookalikes(v):
                out.append({**value, k: w})
        return out
    return [None]


@SETTINGS
@given(DICTS)
def test_a_lookalike_after_a_hit_is_never_taken_for_it(value: Any) -> None:
    agrees(value)
    for other in lookalikes(value)[:40]:
        if isinstance(other, dict):
            agrees(other)
            agrees(value)


def test_in_place_mutation_between_calls_is_seen() -> None:
    inner = [1, {"a": "b"}]
    d: Any = {"x": inner, "y": 2.5}
    agrees(d)
    inner.append(3)
    agrees(d)
    inner[1]["a"] = "c"
    agrees(d)
    d["y"] = -0.0
    agrees(d)
    d["y"] = 0.0
    agrees(d)
    d["y"] = 0
    agrees(d)
    d["y"] = False
    agrees(d)
    del d["x"]
    d["x"] = inner  # same members, other order
    agrees(d)


def test_odd_values_inside_a_dict_match_the_reference() -> None:
    for value in ODD:
        d = {"v": value}
        agrees(d)
        agrees({"v": [value], "w": 1})
    for value in ODD:
        agrees(value)  # not exact dicts: the memo does not take them or agrees


def test_not_exact_dicts_go_the_ordinary_way() -> None:
    assert _native._memo_canonical_of(MyDict(a=1)) is None
    assert _native._memo_canonical_of([1]) is None
    assert _native._memo_canonical_of('{"a":1}') is None


def test_many_distinct_dicts_evict_and_stay_right() -> None:
    for round_ in range(3):
        for i in range(40):
            agrees({"i": i, "q": Q, "r": round_})


def test_the_memo_stands_aside_for_dicts_that_never_repeat_and_comes_back() -> None:
    for i in range(300):
        agrees({"q": Q, "i": i})  # all misses: the memo stands aside
    taken = 0
    for _ in range(300):
        got = outcome(_native._memo_canonical_of, Q)
        assert got in (("ok", None), reference(Q))
        taken += got != ("ok", None)
    assert taken > 200, taken  # a retry found Q again: the memo is back


def flow(requests: Any) -> list:
    e = Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=1)
    out = []
    for state in ({"n": 1}, {"n": 2}, [1.5, -0.0]):
        c = e.begin(request(arguments={"a": 1}), "alice")
        out.append(e.decide(c, {"type": "input_required", "inputRequests": requests, "state": state}).to_json())
    return out


def test_input_required_tokens_are_the_reference_tokens() -> None:
    exact = {"seat": Q}
    assert flow(exact) == flow(MyDict(exact)) == flow(json.loads(json.dumps(exact)))
    bad = {"seat": {"mode": "form", "message": float("nan")}}
    assert outcome(flow, bad) == outcome(flow, MyDict(bad))


def test_response_gives_the_answer_of_the_text_spelling() -> None:
    e = Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=1)
    c = e.begin(request(arguments={"a": 1}), "alice")
    token = e.decide(c, s.input_required({"seat": Q}, state={"n": 1})).body["result"]["requestState"]
    answers = [{"action": "accept", "content": {"seat": "12A"}}, {"action": "accept", "content": {"seat": 5}},
               {"action": "decline"}]
    for a in answers:
        c2 = e.begin(request(arguments={"a": 1}, inputResponses={"seat": a}, requestState=token), "alice")
        other = json.loads(json.dumps(Q))
        other["params"]["message"] = "Another?"
        loose = json.loads(json.dumps(Q))
        loose["params"]["requestedSchema"]["required"] = []
        for asked in (Q, other, loose, Q):
            for _ in range(2):
                got, want = c2.response("seat", asked), c2.response("seat", json.dumps(asked))
                assert (got.kind, got.to_dict()) == (want.kind, want.to_dict())
        assert c2.response("seat", Q).is_accepted == (a["action"] == "accept" and a["content"]["seat"] == "12A")
    assert outcome(c2.response, "seat", {"m": float("nan")}) == outcome(c2.response, "seat", MyDict(m=float("nan")))
    assert outcome(c2.response, "seat", [1]) == outcome(c2.response, "seat", (1,))
