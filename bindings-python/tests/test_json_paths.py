"""Issue 16: the fast Python <-> JSON paths against the reference ones.

`_native._canonical_of(obj, reference)` converts a Python value to JSON
through the fast walker or the reference one and returns its canonical
text; `_native._from_text(text, reference)` reads JSON text into Python
objects through the fast reader (a one-item list, or None when it defers
to the reference) or the reference (parse to a Value, then convert).
Random values must give the same bytes, the same objects back (same types,
same float bits) and the same errors.
"""

from __future__ import annotations

import enum
import json
import math
import struct
from typing import Any, List, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import snodo_mrtr as s
import conftest
from conftest import KEY, NOW
from snodo_mrtr import RawJSON, _native

SETTINGS = settings(max_examples=300, deadline=None)

# Strings with escapes, control characters and non-BMP characters (no lone
# surrogates: those are not text, and both paths refuse them alike, below).
TEXT = st.text(
    alphabet=st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from(['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\u2028", "😀", "\U0010ffff"]),
    ),
    max_size=12,
)
INTS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**64),
    st.integers(min_value=-(10**60), max_value=10**60),
    st.sampled_from([0, -1, 2**63 - 1, 2**63, -(2**63) - 1, 2**64, 10**400]),
)
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 5e-324, 1.7976931348623157e308, 0.1, 123456789.125]),
    st.integers(min_value=-400, max_value=400).map(lambda e: 10.0**e if -300 < e < 300 else 1.5),
)
SCALARS = st.one_of(st.none(), st.booleans(), INTS, FLOATS, TEXT)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(TEXT, inner, max_size=6),
    ),
    max_leaves=40,
)


def same(a: Any, b: Any) -> bool:
    """Equal with the same types all the way down (1 vs 1.0 vs True differ, -0.0 vs 0.0 too)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def outcome(fn: Any, *args: Any) -> Any:
    """The result, or the exception's type and message."""
    try:
        return ("ok", fn(*args))
    except Exception as e:  # noqa: BLE001 - comparing whatever each path raises
        return ("err", type(e), str(e))


@SETTINGS
@given(VALUES)
def test_fast_walker_gives_the_reference_bytes(value: Any) -> None:
    assert outcome(_native._canonical_of, value) == outcome(_native._canonical_of, value, True)


@SETTINGS
@given(FLOATS)
def test_floats_are_spelled_as_python_repr(f: float) -> None:
    assert _native._canonical_of(f) == repr(f)
    assert _native._canonical_of([f]) == _native._canonical_of([f], True)


@SETTINGS
@given(VALUES)
def test_fast_reader_gives_the_reference_objects(value: Any) -> None:
    text = _native._canonical_of(value)
    fast = _native._from_text(text)
    ref = _native._from_text(text, True)
    assert fast is not None, "canonical text is always read by the fast reader"
    assert same(fast[0], ref[0])


@SETTINGS
@given(VALUES, st.booleans(), st.sampled_from([None, 0, 2]))
def test_fast_reader_on_other_spellings_defers_or_agrees(value: Any, ascii_only: bool, indent: Optional[int]) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    fast = _native._from_text(text)
    ref = _native._from_text(text, True)
    if fast is not None:
        assert same(fast[0], ref[0])


@pytest.mark.parametrize(
    "text",
    ['{"a":1,"a":2}', '{"a":1', "[1,]", "01", "-", "1.", ".5", "1e", '"\\x"', '"\\ud800"', '"\\udc00x"',
     '"a\tb"', "nul", "[1] x", "{'a':1}", '{"a" 1}', "[" * 70 + "]" * 70, '{"k":' * 70 + "1" + "}" * 70],
)
def test_fast_reader_defers_on_what_the_reference_refuses(text: str) -> None:
    assert _native._from_text(text) is None
    with pytest.raises(s.JsonError):
        _native._from_text(text, True)


def test_fast_reader_defers_on_keys_out_of_order() -> None:
    # The reference's dict has its keys in byte order (a sorted map); canonical text already does.
    assert _native._from_text('{"b":1,"a":2}') is None
    assert list(_native._from_text('{"b":1,"a":2}', True)[0]) == ["a", "b"]
    assert list(_native._from_text(r'{"Z":1,"a":2,"\u00e9":3,"\ud83d\ude00":4}')[0]) == ["Z", "a", "é", "😀"]


def test_fast_reader_numbers_match_the_reference() -> None:
    for text in ["0", "-0", "-0.0", "1E5", "1e400", "-1e400", "123456789012345678901234567890", "-9223372036854775809",
                 "18446744073709551615", "9223372036854775807", "2.5e-3", "1.0", "[1e2, 3]"]:
        fast = _native._from_text(text)
        assert fast is not None and same(fast[0], _native._from_text(text, True)[0]), text


# Decimal spellings: short fractions, 16 and 17 significant digits (past
# an exact double's reach), exponents, halfway cases: the reader's double
# must be the nearest, as float() gives it.
DECIMALS = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}.{frac}{exp}",
    st.sampled_from(["", "-"]),
    st.one_of(st.just("0"), st.integers(min_value=1, max_value=10**12).map(str)),
    st.one_of(st.text(alphabet="0123456789", min_size=1, max_size=17), st.sampled_from(["5", "25", "125", "0625", "1"])),
    st.one_of(st.just(""), st.just(""), st.integers(min_value=-30, max_value=30).map(lambda e: f"e{e}")),
)


@settings(max_examples=3000, deadline=None)
@given(DECIMALS)
def test_fast_reader_decimals_are_the_nearest_double(text: str) -> None:
    fast = _native._from_text(text)
    assert fast is not None
    assert same(fast[0], float(text)), text
    assert same(fast[0], _native._from_text(text, True)[0]), text
    assert same(_native._from_text(f"[{text},{{\"a\":{text}}}]")[0], [float(text), {"a": float(text)}])


class Color(enum.IntEnum):
    RED = 7


class MyStr(str):
    pass


class MyFloat(float):
    def __repr__(self) -> str:
        return "MyFloat!"


class MyDict(dict):  # type: ignore[type-arg]
    pass


def cyclic() -> List[Any]:
    a: List[Any] = []
    a.append(a)
    return a


def cyclic_dict() -> Any:
    d: Any = {}
    d["self"] = d
    return d


def nested(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = {"k": [v]}
    return v


ODD = [
    float("nan"), float("inf"), -float("inf"), {"a": float("nan")}, [1, float("inf")],
    {1: 2}, {"a": 1, 2: 3}, {(1, 2): 3}, {None: 1}, {MyStr("k"): 1}, {"k": MyStr("v")},
    Color.RED, {"c": Color.RED}, MyFloat(1.5), [MyFloat(2.5)], MyDict(a=1), {"d": MyDict(b=[1.5])},
    {1, 2}, b"bytes", object(), {"x": {"y": object()}}, cyclic(), cyclic_dict(), nested(62), nested(63), nested(64),
    [[[]] * 3] * 2, "\ud800", {"\udc00": 1}, {"a": "\ud83d"},
    RawJSON("1.0e2"), {"r": RawJSON('{"b":1,"a":[1E400,-0]}')}, [RawJSON("null"), True, False, None],
    2**64 + 1, -(2**70), {"big": 10**100}, (1, (2, 3)), {"t": ()},
]


@pytest.mark.parametrize("value", ODD, ids=range(len(ODD)))
def test_odd_values_and_errors_match_the_reference(value: Any) -> None:
    assert outcome(_native._canonical_of, value) == outcome(_native._canonical_of, value, True)


def test_raw_json_stays_exact() -> None:
    # The canonical form's one normalisation (docs/canonical-json.md): the exponent's sign.
    assert _native._canonical_of({"r": RawJSON("1.0e2"), "a": RawJSON("-0")}) == '{"a":-0,"r":1.0e+2}'
    assert _native._canonical_of([RawJSON("1.0e2")], True) == "[1.0e+2]"


@SETTINGS
@given(st.dictionaries(TEXT, VALUES, max_size=8))
def test_state_round_trips_through_a_token(state: Any) -> None:
    engine = s.Engine([("k1", KEY)], fixed_time=NOW, max_token_bytes=1 << 20)
    binding = s.binding_digest("tools/call", {"name": "t"})
    token = engine.seal(principal="alice", binding=binding, state=state)
    opened = engine.open(token, principal="alice", binding=binding)
    # The state back equals what the reference reads from the same canonical text.
    expected = _native._from_text(_native._canonical_of(state, True), True)[0]
    if not state:
        assert opened.state in ({}, None)
    else:
        assert same(opened.state, expected)


# The seal side's text writer (`_native._state_text_of`, what `Engine.seal`
# uses for state): the reference's canonical bytes, or None exactly where
# the reference raises (the reference path then raises its own error).
def writer_outcome(value: Any) -> Any:
    ref = outcome(_native._canonical_of, value, True)
    return ref if ref[0] == "ok" else None


def writer(value: Any) -> Any:
    text = _native._state_text_of(value)
    return None if text is None else ("ok", text)


# Deeper, wider and with repeated record keys: the writer's key cache and
# sort are exercised (records in lists share key objects, as json.loads).
RECORDS = st.lists(st.dictionaries(st.sampled_from(["b", "a", "é", "😀", "Z", "a\n", ""]), SCALARS, max_size=5), max_size=6)


@SETTINGS
@given(st.one_of(VALUES, RECORDS, RECORDS.map(lambda r: json.loads(json.dumps(r)))))
def test_text_writer_gives_the_reference_bytes(value: Any) -> None:
    assert writer(value) == writer_outcome(value)


@pytest.mark.parametrize("value", ODD, ids=range(len(ODD)))
def test_text_writer_on_odd_values_matches_the_reference(value: Any) -> None:
    assert writer(value) == writer_outcome(value)


@SETTINGS
@given(st.one_of(VALUES, RECORDS, RECORDS.map(lambda r: json.loads(json.dumps(r))), st.sampled_from(ODD)))
def test_text_writer_output_is_what_the_core_would_canonicalise_to(value: Any) -> None:
    # The writer's text reaches the core without a second canonicalisation
    # (`trusted_state_text`): it must already be the core's canonical form
    # of itself, byte for byte, and stay within the depth the core reads.
    text = _native._state_text_of(value)
    if text is not None:
        assert s.canonicalize(text) == text


def test_text_writer_escapes_and_orders_as_canonical_json() -> None:
    long_text = "x" * 37 + '"' + "y" * 9 + "\\" + "\x00\x1f\x7f" + "é😀" * 5 + "\n"
    value = {"😀": 1, "é": 2, "z": 3, "Z": 4, "": [long_text, -(2**63), 2**63 - 1, -0.0, 1e16, 5e-324]}
    assert _native._state_text_of(value) == _native._canonical_of(value, True)
    assert _native._state_text_of({"b": 1, "a": 2}) == '{"a":2,"b":1}'
    assert _native._state_text_of("\x01\x08\x0c") == '"\\u0001\\b\\f"'


STATES = st.one_of(st.dictionaries(TEXT, VALUES, max_size=8), RECORDS, st.sampled_from(ODD))


@SETTINGS
@given(STATES)
def test_seal_gives_the_reference_token_or_error(state: Any) -> None:
    # Two engines with the same seed and clock draw the same token ids: the
    # text path (`seal`) and the reference `Value` path must give the same
    # token, byte for byte, or the same error.
    # `seal` and `_seal_text` both take the text path (the reference only
    # where the writer gives up); `_seal_reference` never does.
    engines = [s.Engine([("k1", KEY)], fixed_time=NOW, max_token_bytes=1 << 20, test_random_seed=7) for _ in range(3)]
    binding = s.binding_digest("tools/call", {"name": "t"})
    fast = outcome(lambda: _native._seal_text(engines[0], principal="alice", binding=binding, state=state))
    ref = outcome(lambda: _native._seal_reference(engines[1], principal="alice", binding=binding, state=state))
    chosen = outcome(lambda: engines[2].seal(principal="alice", binding=binding, state=state))
    assert fast == ref == chosen


def test_seal_takes_the_text_path_for_large_states_with_the_same_tokens() -> None:
    engines = [s.Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=3) for _ in range(2)]
    binding = s.binding_digest("tools/call", {"name": "t"})
    for n in (0, 10, 11, 12, 13, 200):
        state = {"items": [{"b": i, "a": [i * 0.5, str(i)]} for i in range(n)], "z": None}
        ref = _native._seal_reference(engines[1], principal="alice", binding=binding, state=state)
        assert engines[0].seal(principal="alice", binding=binding, state=state) == ref


def test_seal_errors_are_the_reference_errors_in_dict_order() -> None:
    # The writer visits keys in canonical order; the first error must still
    # be the reference's, for the first bad member in the dict's order.
    engine = s.Engine([("k1", KEY)], fixed_time=NOW)
    binding = s.binding_digest("tools/call", {"name": "t"})
    for state in ({"b": float("nan"), "a": object()}, {"b": object(), "a": float("inf")}, {"z": "\ud800", "a": {1: 2}}):
        fast = outcome(lambda: _native._seal_text(engine, principal="alice", binding=binding, state=state))
        assert fast == outcome(lambda: engine.seal(principal="alice", binding=binding, state=state))
        ref = outcome(lambda: _native._seal_reference(engine, principal="alice", binding=binding, state=state))
        assert fast[0] == "err" and fast == ref


def test_raw_json_nested_past_the_bound_is_refused_like_the_reference() -> None:
    # A `RawJSON` value is not depth-checked by the reference conversion,
    # and the core takes the walker's text without checking it again: the
    # walker must give up where the sum of its depth and the RawJSON's
    # passes the bound, or the token carries a state `open` cannot read
    # (found in review: the state came back as None, with no error).
    binding = s.binding_digest("tools/call", {"name": "t"})
    for depth in range(0, 66):
        for raw in ("[]", "[1]", '{"a":[]}', "1"):
            state: Any = {"a": RawJSON(raw)}
            for _ in range(depth):
                state = [state]
            engines = [s.Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=5) for _ in range(2)]
            fast = outcome(lambda: engines[0].seal(principal="alice", binding=binding, state=state))
            ref = outcome(lambda: _native._seal_reference(engines[1], principal="alice", binding=binding, state=state))
            assert fast == ref, (depth, raw)
            if fast[0] == "ok":
                opened = engines[0].open(fast[1], principal="alice", binding=binding)
                assert opened.state is not None, (depth, raw)


@SETTINGS
@given(RECORDS)
def test_fast_reader_on_records_with_varying_keys(value: Any) -> None:
    # Records repeat, skip and reorder keys: the reader's key cache (looked
    # up first just after its last hit) must still give each its own key.
    text = _native._canonical_of(value)
    fast = _native._from_text(text)
    assert fast is not None and same(fast[0], _native._from_text(text, True)[0])
    assert same(fast[0], json.loads(text))


def test_text_arguments_read_in_place_give_the_same_results() -> None:
    # begin and canonicalize take str, bytes and bytearray alike (a bytes
    # object is read in place, a str through its UTF-8 bytes).
    text = '{"b":[1,2.50,"\\u00e9"],"a":null}'
    assert s.canonicalize(text) == s.canonicalize(text.encode()) == s.canonicalize(bytearray(text.encode()))
    with pytest.raises(UnicodeEncodeError):
        s.canonicalize('"\ud800"')
    engine = s.Engine([("k1", KEY)], fixed_time=NOW)
    request = json.dumps(conftest.request(name="t", arguments={"é": [1.5]}, _meta=conftest.meta()))
    calls = [engine.begin(r, "alice") for r in (request, request.encode())]
    assert [(c.name, c.arguments) for c in calls] == [("t", {"é": [1.5]})] * 2


BIG_STATES = st.one_of(
    st.lists(st.dictionaries(TEXT, SCALARS, min_size=3, max_size=6), min_size=14, max_size=20),
    st.dictionaries(TEXT, VALUES, max_size=8).map(lambda d: {"items": [d] * 70, "rest": d}),
    st.sampled_from(ODD).map(lambda bad: {"items": list(range(70)), "bad": bad}),
)


@settings(max_examples=100, deadline=None)
@given(BIG_STATES)
def test_decide_with_a_large_state_gives_the_reference_response(state: Any) -> None:
    # A large state goes into decide as canonical text; the same state as
    # RawJSON of the reference's canonical text goes the Value way. Same
    # seed and clock: the same response, token included, or the same error.
    question = s.elicit_form("Seat?", {"type": "object", "properties": {"seat": {"type": "string"}}})
    request = conftest.request(name="t", arguments={}, _meta=conftest.meta({"elicitation": {"form": {}}}))
    ref_state = outcome(_native._canonical_of, state, True)
    engines = [s.Engine([("k1", KEY)], fixed_time=NOW, max_token_bytes=1 << 20, test_random_seed=5) for _ in range(2)]
    calls = [e.begin(request, "alice") for e in engines]
    fast = outcome(lambda: engines[0].decide(calls[0], s.input_required({"seat": question}, state=state)).to_json())
    if ref_state[0] == "ok":
        raw = RawJSON(ref_state[1])
        ref = outcome(lambda: engines[1].decide(calls[1], s.input_required({"seat": question}, state=raw)).to_json())
    else:
        ref = outcome(lambda: engines[1].decide(calls[1], {"type": "input_required", "state": state}))
    assert fast == ref


def test_decide_outcome_errors_with_a_large_state_are_the_reference_errors() -> None:
    engine = s.Engine([("k1", KEY)], fixed_time=NOW)
    request = conftest.request(name="t", arguments={}, _meta=conftest.meta({"elicitation": {"form": {}}}))
    big = {"items": list(range(100))}
    for bad in (
        {"type": "input_required", "state": big, "inputRequests": 3},
        {"type": "input_required", "state": big, 1: 2},
        {"type": "input_required", "state": {"items": list(range(100)), "x": object()}},
        {"type": "complete", "state": big},
        {"type": "nope", "state": big},
        {"state": big},
    ):
        got = outcome(lambda: engine.decide(engine.begin(request, "alice"), bad))
        assert got[0] == "err", bad
        plain = {k: (RawJSON(json.dumps(v)) if k == "state" and isinstance(v, dict) and "x" not in v else v) for k, v in bad.items()}
        assert got == outcome(lambda: engine.decide(engine.begin(request, "alice"), plain)), bad


DYADIC = st.one_of(
    st.builds(lambda i, k: i / 2**k, st.integers(min_value=-(10**12) * 16, max_value=10**12 * 16), st.integers(0, 6)),
    st.builds(lambda i, k: i / 2**k, st.integers(min_value=-4096, max_value=4096), st.integers(0, 6)),
    st.sampled_from([0.0, -0.0, 0.5, 0.0625, -0.0625, 0.03125, 1e11, 1e11 - 0.0625, 99999999999.9375, -1e11 + 0.5, 1e10 + 0.25]),
)


@SETTINGS
@given(DYADIC)
def test_whole_sixteenths_are_spelled_as_python_repr(f: float) -> None:
    # float_repr's fast case (a whole number of sixteenths below 1e11) and
    # the cases next to it (eighths of sixteenths, 1e11 and above).
    assert _native._canonical_of(f) == repr(f)
    assert _native._state_text_of([f]) == "[" + repr(f) + "]"


def test_key_text_remembered_across_calls_stays_right_for_new_objects() -> None:
    # Dict key text is remembered by object within a walk (the writer's and
    # the converter's key caches): keys made and freed again and again
    # (their addresses reused by new, different strings), more keys than a
    # cache holds, and the same literal keys again must all read as
    # themselves.
    for round_ in range(40):
        d = {f"k{round_}_{j}_" + "é" * (j % 3): [j, {f"v{j}": round_}] for j in range(300)}
        assert _native._canonical_of(d) == _native._canonical_of(d, True)
        assert _native._state_text_of(d) == _native._canonical_of(d, True)
        assert _native._canonical_of({"type": "object", "required": ["seat"]}) == '{"required":["seat"],"type":"object"}'


class _EmptiesOnIter(list):  # noqa: FURB189 - the point is a list subclass with its own __iter__
    """A list subclass whose iteration (run by the reference conversion,
    which calls `__iter__` on a subclass) empties another dict: Python code
    changing a dict while the converter walks it."""

    victim: dict = {}

    def __iter__(self) -> Any:
        self.victim.clear()
        return super().__iter__()


def _emptying(**members: Any) -> dict:
    """A dict whose member "a" empties the dict itself when converted."""
    lst = _EmptiesOnIter([1])
    d = {"a": lst, **members}
    lst.victim = d
    return d


def test_a_dict_changed_by_python_code_during_conversion_converts_as_it_was() -> None:
    # PyO3's dict iterator panics ("dictionary changed size during
    # iteration", a PanicException, which `except Exception` does not
    # catch) when the dict changes under it. Every converter reads a
    # dict's members before converting any value, so the dict as it was
    # when the call reached it is what converts.
    for reference in (False, True):
        assert _native._canonical_of(_emptying(b=2), reference) == '{"a":[1],"b":2}'
        assert _native._canonical_of([_emptying(b=2)], reference) == '[{"a":[1],"b":2}]'
    assert _native._state_text_of(_emptying(b=2)) == '{"a":[1],"b":2}'
    engines = [s.Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=9) for _ in range(2)]
    binding = s.binding_digest("tools/call", {"name": "t"})
    token = engines[0].seal(principal="alice", binding=binding, state=_emptying(b=2))
    assert token == engines[1].seal(principal="alice", binding=binding, state={"a": [1], "b": 2})
    # questions: the dict of input requests, converted one by one.
    question = s.elicit_form("Seat?", {"type": "object", "properties": {"seat": {"type": "string"}}})
    lst = _EmptiesOnIter([1])
    questions = {"a": {**question, "x": lst}, "b": question}
    lst.victim = questions
    got = outcome(lambda: engines[0].seal(principal="alice", binding=binding, questions=questions))
    assert got[0] in ("ok", "err")
    # decide: the outcome dict itself, small and large state alike.
    request = conftest.request(name="t", arguments={}, _meta=conftest.meta({"elicitation": {"form": {}}}))
    for state in (None, {"items": list(range(100))}):
        extra = {} if state is None else {"state": state}
        o = _emptying(type="complete", result={"content": []}, **extra)
        got = outcome(lambda: engines[0].decide(engines[0].begin(request, "alice"), o))
        assert got[0] in ("ok", "err")


# Doubles exactly halfway between two shortest spellings (2^49 + 0.25 is
# 562949953421312.25: both ...312.2 and ...312.3 read back as it). repr()
# takes the even last digit; Rust's `{:e}` took the upper one.
TIES = st.builds(
    lambda e, q, sign: sign * (2.0**e + q * 2.0 ** (e - 52)),
    st.integers(min_value=40, max_value=60),
    st.integers(min_value=0, max_value=2**12),
    st.sampled_from([1.0, -1.0]),
)


@SETTINGS
@given(st.one_of(TIES, st.sampled_from([562949953421312.2, 562949953421312.3, -562949953421312.2, 1125899906842624.5, 2.0**53 + 2])))
def test_halfway_floats_are_spelled_as_python_repr(f: float) -> None:
    assert _native._canonical_of(f) == repr(f)
    assert _native._state_text_of([f]) == "[" + repr(f) + "]"


# Longer strings with the characters that must be escaped anywhere in them
# (the readers and the writer scan eight bytes at a time and jump to the
# first such byte of a chunk), and lists of records of a few shapes (the
# reader copies a dict of the same keys for each record of a shape).
LONG_TEXT = st.text(
    alphabet=st.one_of(st.sampled_from("abcxyz0189 -"), st.sampled_from(['"', "\\", "\x00", "\x1f", "\n", "é", "😀"])),
    max_size=40,
)
SHAPED = st.lists(
    st.dictionaries(st.sampled_from(["fare", "from", "ok", "seats", "sku", "to", "a\n", "é"]), st.one_of(SCALARS, LONG_TEXT), min_size=3, max_size=8),
    min_size=1,
    max_size=30,
)


@SETTINGS
@given(st.one_of(LONG_TEXT, st.lists(LONG_TEXT, max_size=6), st.dictionaries(LONG_TEXT, LONG_TEXT, max_size=5), SHAPED))
def test_long_strings_and_shaped_records_match_the_reference(value: Any) -> None:
    assert writer(value) == writer_outcome(value)
    text = _native._canonical_of(value)
    fast = _native._from_text(text)
    assert fast is not None and same(fast[0], _native._from_text(text, True)[0])
    assert same(fast[0], json.loads(text))


def test_records_read_back_are_independent_dicts() -> None:
    # Records of one shape are copies of a private template: changing one
    # changes no other, and the same text read again gives fresh objects.
    records = [{"fare": i + 0.5, "from": "LHR", "ok": i % 2 == 0, "seats": i, "sku": f"FL-{i}"} for i in range(5)]
    text = _native._canonical_of(records)
    first = _native._from_text(text)[0]
    first[0]["extra"] = 1
    first[1]["fare"] = None
    assert first[2] == records[2] and "extra" not in first[3]
    again = _native._from_text(text)[0]
    assert again == records and all(a is not b for a, b in zip(again, first))


def _text_forms(text: str) -> List[Any]:
    return [text, text.encode(), bytearray(text.encode())]


def _call_summary(r: Any) -> Any:
    if isinstance(r, s.Response):
        return ("response", r.http_status, r.to_json())
    return ("call", r.name, r.arguments, r.params, r.meta, r.round, r.answers_digest)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(TEXT, VALUES, max_size=5), st.booleans(), st.sampled_from(["t", "é", "😀", "a\u2028b"]))
def test_a_str_request_is_read_as_its_utf8_bytes(arguments: Any, ascii_only: bool, name: str) -> None:
    # A str argument lends its own UTF-8 (no bytes object made): every
    # entry that takes text must read it as it reads the encoded bytes.
    engine = s.Engine([("k1", KEY)], fixed_time=NOW)
    text = json.dumps(conftest.request(name=name, arguments=arguments, _meta=conftest.meta()), ensure_ascii=ascii_only)
    forms = _text_forms(text)
    # begin, binding_digest and check_http_headers take str or bytes as
    # text; canonicalize and RawJSON bytearray too.
    assert len({repr(outcome(lambda t: _call_summary(engine.begin(t, "alice")), f)) for f in forms[:2]}) == 1
    assert len({repr(outcome(s.canonicalize, f)) for f in forms}) == 1
    assert len({repr(outcome(s.binding_digest, "tools/call", f)) for f in forms[:2]}) == 1
    assert len({repr(outcome(lambda t: RawJSON(t).text, f)) for f in forms}) == 1
    headers = {"MCP-Protocol-Version": conftest.V, "Mcp-Method": "tools/call", "Mcp-Name": name}
    checked = [outcome(lambda t: (lambda r: r and r.to_json())(s.check_http_headers(headers, t)), f) for f in forms[:2]]
    assert len({repr(c) for c in checked}) == 1


def test_a_str_request_with_a_lone_surrogate_raises_a_clear_error() -> None:
    engine = s.Engine([("k1", KEY)], fixed_time=NOW)
    # json.dumps with ensure_ascii=False keeps the lone surrogate as a str
    # character: it has no UTF-8, so the text cannot be read.
    for bad in ("\ud800", "\udfff", "a\udc80b", "\ud83d"):
        text = json.dumps(conftest.request(name="t", arguments={"x": bad}, _meta=conftest.meta()), ensure_ascii=False)
        for entry in (lambda t: engine.begin(t, "alice"), s.canonicalize, RawJSON,
                      lambda t: s.binding_digest("tools/call", t)):
            with pytest.raises(UnicodeEncodeError):
                entry(text)
        # Escaped (the default), the same surrogate is text the JSON reader judges.
        escaped = json.dumps(conftest.request(name="t", arguments={"x": bad}, _meta=conftest.meta()))
        assert isinstance(escaped, str) and bad not in escaped
        outcome(lambda t: engine.begin(t, "alice"), escaped)


def test_a_large_str_request_reads_as_its_bytes() -> None:
    engine = s.Engine([("k1", KEY)], fixed_time=NOW, max_request_bytes=8 << 20)
    for filler in ("x" * (3 << 20), "é" * (1 << 20), "😀" * (1 << 19)):
        text = json.dumps(conftest.request(name="t", arguments={"blob": filler}, _meta=conftest.meta()), ensure_ascii=False)
        by_str, by_bytes = engine.begin(text, "alice"), engine.begin(text.encode(), "alice")
        assert _call_summary(by_str) == _call_summary(by_bytes)
        assert by_str.arguments == {"blob": filler}
        assert s.binding_digest("tools/call", text) == s.binding_digest("tools/call", text.encode())
