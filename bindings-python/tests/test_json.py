"""Python values <-> JSON (src/json.rs), against Python's own json module.

Python → JSON must spell a value exactly as ``json.dumps`` does (so a dict
and its ``json.dumps`` text make the same binding, token and digest):
checked through ``binding_digest``, whose digest covers the canonical form
and so every number's spelling. JSON → Python must give what
``json.loads`` gives (``int`` at any size, ``float`` otherwise, the same
float bits): checked on states through a token and on responses.
"""

from __future__ import annotations

import enum
import json
import math
import struct
from typing import Any, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import conftest
import snodo_mrtr as s
from conftest import KEY, NOW
from snodo_mrtr import RawJSON

SETTINGS = settings(max_examples=300, deadline=None)

# Strings with escapes, control characters and non-BMP characters (no lone
# surrogates: those are not text, see below).
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
    st.sampled_from([0, -1, 2**53 + 1, 2**63 - 1, 2**63, -(2**63) - 1, 2**64, 10**400]),
)
# Halfway doubles (repr takes the even digit), tiny and huge exponents, and
# the spellings where repr switches between plain and exponent forms.
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 1e-7, 5e-324, 1.7976931348623157e308,
                     0.1, 123456789.125, 562949953421312.2, 562949953421312.3, 1125899906842624.5, 2.0**53 + 2]),
    st.integers(min_value=-300, max_value=300).map(lambda e: 10.0**e),
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
    """Equal with the same types all the way down (1, 1.0 and True differ;
    -0.0 and 0.0 too); dict keys in any order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def digest(arguments: Any) -> bytes:
    """The binding of a tools/call with these arguments, given as a Python value."""
    return s.binding_digest("tools/call", {"name": "t", "arguments": arguments})


def dumps_digest(arguments: Any) -> bytes:
    """The same binding, the arguments spelled by json.dumps."""
    return s.binding_digest("tools/call", json.dumps({"name": "t", "arguments": arguments}, allow_nan=False))


@SETTINGS
@given(VALUES)
def test_a_value_is_spelled_as_json_dumps_spells_it(value: Any) -> None:
    assert digest({"v": value}) == dumps_digest({"v": value})


@SETTINGS
@given(FLOATS)
def test_a_float_is_its_repr(f: float) -> None:
    # Not 0.00001 for 1e-05 (serde's and pythonize's spelling), not 1e16 for 1e+16.
    assert digest([f]) == s.binding_digest("tools/call", '{"name":"t","arguments":[' + repr(f) + "]}")


@SETTINGS
@given(st.dictionaries(TEXT, VALUES, min_size=1, max_size=8))
def test_state_read_back_is_what_json_loads_reads(state: Any) -> None:
    engine = s.Engine([("k1", KEY)], fixed_time=NOW, max_token_bytes=1 << 20)
    binding = s.binding_digest("tools/call", {"name": "t"})
    token = engine.seal(principal="alice", binding=binding, state=state)
    opened = engine.open(token, principal="alice", binding=binding)
    assert same(opened.state, json.loads(json.dumps(state)))


@SETTINGS
@given(VALUES)
def test_response_body_is_what_json_loads_reads_from_its_text(value: Any) -> None:
    engine = s.Engine([("k1", KEY)], fixed_time=NOW)
    call = engine.begin(conftest.request(name="t"), None)
    assert isinstance(call, s.Call)
    response = engine.decide(call, s.complete({"content": [], "v": value}))
    assert same(response.body, json.loads(response.to_json()))
    assert same(response.body["result"]["v"], json.loads(json.dumps(value)))


@pytest.mark.parametrize("text", ["0", "-0", "-0.0", "1E5", "1e400", "-1e400", "123456789012345678901234567890",
                                  "-9223372036854775809", "18446744073709551615", "2.5e-3", "1.0", "[1e2, 3]"])
def test_numbers_read_as_json_loads_reads_them(text: str) -> None:
    engine = s.Engine([("k1", KEY)], fixed_time=NOW)
    call = engine.begin(conftest.request(name="t"), None)
    assert isinstance(call, s.Call)
    response = engine.decide(call, s.complete({"content": [], "v": RawJSON(text)}))
    assert same(response.body["result"]["v"], json.loads(text))
    assert f'"v":{s.canonicalize(text)}' in response.to_json()


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


# Spelled as json.dumps spells them: subclasses by their base type's rules
# (an IntEnum is its number, a float subclass its float repr).
LIKE_DUMPS = [Color.RED, {"c": Color.RED}, MyFloat(1.5), [MyFloat(2.5)], {MyStr("k"): MyStr("v")}, MyDict(a=1),
              {"d": MyDict(b=[1.5])}, 2**64 + 1, -(2**70), {"big": 10**100}, (1, (2, 3)), {"t": ()},
              [[[]] * 3] * 2, nested(31)]
# Refused with JsonError: what JSON cannot spell, keys that are not str,
# nesting past 64 levels (so a container holding itself).
REFUSED = [float("nan"), float("inf"), -float("inf"), {"a": float("nan")}, [1, float("inf")], {1: 2}, {"a": 1, 2: 3},
           {(1, 2): 3}, {None: 1}, {1, 2}, b"bytes", object(), {"x": {"y": object()}}, cyclic(), cyclic_dict(),
           nested(32)]


@pytest.mark.parametrize("value", LIKE_DUMPS, ids=range(len(LIKE_DUMPS)))
def test_subclasses_and_big_numbers_are_spelled_as_json_dumps(value: Any) -> None:
    assert digest(value) == dumps_digest(value)


@pytest.mark.parametrize("value", REFUSED, ids=range(len(REFUSED)))
def test_what_json_cannot_spell_is_refused(value: Any) -> None:
    with pytest.raises(s.JsonError):
        digest(value)


def test_a_str_with_a_lone_surrogate_has_no_utf8() -> None:
    for bad in ("\ud800", {"\udc00": 1}, {"a": "\ud83d"}):
        with pytest.raises(UnicodeEncodeError):
            digest(bad)


def test_raw_json_and_questions_are_their_json() -> None:
    # The canonical form's one normalisation (docs/canonical-json.md): the exponent's sign.
    assert digest({"r": RawJSON("1.0e2"), "a": RawJSON("-0")}) == s.binding_digest(
        "tools/call", '{"name":"t","arguments":{"a":-0,"r":1.0e+2}}')
    q = s.elicit_url("Sign in", "https://example.com/login")
    assert digest({"q": q}) == s.binding_digest("tools/call", '{"name":"t","arguments":{"q":' + q.to_json() + "}}")


class _EmptiesOnIter(list):  # noqa: FURB189 - the point is a list subclass with its own __iter__
    """A list subclass whose iteration empties another dict: Python code
    changing a dict while the walker converts it."""

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


def test_a_dict_changed_during_conversion_converts_as_it_was() -> None:
    # PyO3's dict iterator panics when the dict changes under it; the
    # walker reads a dict's members before converting any value.
    assert digest(_emptying(b=2)) == digest({"a": [1], "b": 2})
    assert digest([_emptying(b=2)]) == digest([{"a": [1], "b": 2}])
    engines = [s.Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=9) for _ in range(2)]
    binding = s.binding_digest("tools/call", {"name": "t"})
    token = engines[0].seal(principal="alice", binding=binding, state=_emptying(b=2))
    assert token == engines[1].seal(principal="alice", binding=binding, state={"a": [1], "b": 2})
    request = conftest.request(name="t", arguments={})
    response = engines[0].decide(engines[0].begin(request, "alice"), _emptying(type="complete", result={"content": []}))
    assert response.body["result"]["content"] == []


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(TEXT, VALUES, max_size=5), st.booleans(), st.sampled_from(["t", "é", "😀", "a\u2028b"]))
def test_text_is_read_as_its_utf8_bytes(arguments: Any, ascii_only: bool, name: str) -> None:
    engine = s.Engine([("k1", KEY)], fixed_time=NOW)
    text = json.dumps(conftest.request(name=name, arguments=arguments), ensure_ascii=ascii_only)
    forms: List[Any] = [text, text.encode(), bytearray(text.encode())]

    def summary(r: Any) -> Any:
        if isinstance(r, s.Response):
            return ("response", r.http_status, r.to_json())
        return ("call", r.name, r.arguments, r.params, r.meta, r.round, r.answers_digest)

    assert summary(engine.begin(forms[0], "alice")) == summary(engine.begin(forms[1], "alice"))
    assert len({s.canonicalize(f) for f in forms}) == 1
    assert s.binding_digest("tools/call", forms[0]) == s.binding_digest("tools/call", forms[1])
    assert len({RawJSON(f).text for f in forms}) == 1


def test_text_with_a_lone_surrogate_raises_a_clear_error() -> None:
    engine = s.Engine([("k1", KEY)], fixed_time=NOW)
    for bad in ("\ud800", "\udfff", "a\udc80b", "\ud83d"):
        # ensure_ascii=False keeps the lone surrogate as a str character: no UTF-8.
        text = json.dumps(conftest.request(name="t", arguments={"x": bad}), ensure_ascii=False)
        for entry in (lambda t: engine.begin(t, "alice"), s.canonicalize, RawJSON,
                      lambda t: s.binding_digest("tools/call", t)):
            with pytest.raises(UnicodeEncodeError):
                entry(text)
