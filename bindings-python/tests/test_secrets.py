"""Key bytes never appear in a repr, a str, an error message or a log line;
the principal never appears in clear in a token."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any, List

import pytest

import snodo_mrtr as s
from conftest import request
from snodo_mrtr import Engine

SECRET = bytes([0xA7, 0x3C, 0xE1, 0x5D]) * 8  # 32 bytes, easy to spot


def spellings(secret: bytes) -> List[str]:
    out = [secret.hex(), secret.hex().upper(), secret.decode("latin-1"), base64.b64encode(secret).decode(),
           base64.urlsafe_b64encode(secret).decode().rstrip("="), repr(secret), str(list(secret))]
    # Any 8-byte window too, in hex and latin-1, in case of partial leaks.
    out += [secret[:8].hex(), secret[:8].decode("latin-1"), base64.b64encode(secret[:6]).decode()]
    out += [repr(bytearray(secret)), ", ".join(map(str, secret))]
    return out


def assert_clean(text: str, secret: bytes = SECRET) -> None:
    for s_ in spellings(secret):
        assert s_ not in text, f"key material {s_!r} leaked into {text!r}"


def test_engine_repr_and_str() -> None:
    e = Engine([("k1", SECRET), ("old", SECRET[::-1])], fixed_time=1)
    for text in (repr(e), str(e), f"{e!r}", f"{e}"):
        assert "k1" in text and "old" in text
        assert_clean(text)
        assert_clean(text, SECRET[::-1])
    assert_clean(repr(Engine.development()))


def test_error_messages() -> None:
    bad_keys = [
        [("k1", SECRET[:31])],
        [("k1", SECRET), ("k1", SECRET)],
        [("bad id", SECRET)],
        [("k1", SECRET.hex())],
        [("k1", SECRET * 40)],
    ]
    for keys in bad_keys:
        with pytest.raises(s.ConfigError) as info:
            Engine(keys)
        for text in (str(info.value), repr(info.value), info.value.message, str(info.value.args)):
            assert_clean(text)
            assert_clean(text, SECRET[:31])


def test_tokens_and_responses_carry_no_key_or_principal() -> None:
    e = Engine([("k1", SECRET)], fixed_time=1_800_000_000)
    call = e.begin(request(), "alice@example.com")
    assert isinstance(call, s.Call)
    assert "alice" not in repr(call)
    r = e.decide(call, s.input_required(state={"x": 1}))
    token = r.body["result"]["requestState"]
    payload = base64.urlsafe_b64decode(token.split(".")[2] + "==").decode()
    assert "alice" not in payload and "alice" not in token
    assert_clean(r.to_json())
    assert_clean(json.dumps(r.body))
    assert_clean(repr(r))


def b64url_parts(token: str) -> List[bytes]:
    """Every '.'-separated part of a token that decodes as base64url."""
    out = []
    for part in token.split("."):
        try:
            out.append(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
        except ValueError:
            pass
    return out


def texts_of(obj: Any) -> List[str]:
    """Every way Python shows an object."""
    return [repr(obj), str(obj), f"{obj!r}", f"{obj}", format(obj, "")]


def test_every_output_of_a_flow_and_of_the_low_level_api(caplog: pytest.LogCaptureFixture,
                                                           capfd: pytest.CaptureFixture[str]) -> None:
    """repr/str of Engine, Call, Answer, Response, Opened, every exception
    raised along the way, anything logged and anything printed: no key bytes;
    and the principal is in no token, raw or decoded."""
    caplog.set_level(logging.DEBUG)  # snodo logs nothing today; if it ever does, it is searched too
    principal = "octocat@example.com"
    e = Engine([("prod", SECRET), ("old", SECRET[::-1])], fixed_time=1_800_000_000)
    shown: List[str] = texts_of(e)
    ask = s.elicit_form("Pick", {"type": "object", "properties": {"c": {"type": "string"}}})
    call = e.begin(request(), principal)
    assert isinstance(call, s.Call)
    shown += texts_of(call)
    r1 = e.decide(call, s.input_required({"c": ask}, state={"step": 1}))
    token = r1.body["result"]["requestState"]
    shown += texts_of(r1) + [r1.to_json(), json.dumps(r1.to_dict())]
    retry = request(id=2, inputResponses={"c": {"action": "accept", "content": {"c": "x"}}}, requestState=token)
    call2 = e.begin(retry, principal)
    assert isinstance(call2, s.Call)
    answer = call2.response("c", ask)
    shown += texts_of(call2) + texts_of(answer) + [json.dumps(answer.to_dict())]
    r2 = e.decide(call2, s.complete({"content": []}))
    shown += texts_of(r2) + [r2.to_json()]
    parse_error = e.begin(b"{", principal)
    shown += texts_of(parse_error) + [parse_error.to_json()]
    # Error responses: a tampered token, another principal, a handler bug.
    for who, tok in ((principal, token[:-2] + "AA"), ("mallory", token)):
        bad = e.begin(request(id=3, requestState=tok), who)
        assert isinstance(bad, s.Response) and bad.is_error
        shown += texts_of(bad) + [bad.to_json(), str(bad.diagnostic)]
    call3 = e.begin(request(id=4), principal)
    assert isinstance(call3, s.Call)
    bug = e.decide(call3, {"type": "input_required"})
    assert bug.diagnostic
    shown += texts_of(bug) + [bug.to_json(), bug.diagnostic]
    # Low level: seal, open, and the errors of a failed open.
    binding = s.binding_digest("tools/call", {"name": "pick"})
    sealed = e.seal(principal=principal, binding=binding, round=1, flow_start=1_800_000_000, state={"k": 1})
    opened = e.open(sealed, principal=principal, binding=binding)
    shown += texts_of(opened) + [repr(opened.to_dict()), sealed]
    errors: List[BaseException] = []
    for attempt in (
        lambda: e.open(sealed, principal="mallory", binding=binding),
        lambda: e.open(sealed[:-3], principal=principal, binding=binding),
        lambda: e.open(sealed, principal=principal, binding=binding[:31]),
        lambda: e.seal(principal="", binding=binding, round=1, flow_start=1_800_000_000),
        lambda: e.begin({"jsonrpc": "2.0", "method": "notifications/x"}, principal),
        lambda: s.elicit_form("Pick", {"type": "object", "properties": {"c": {"type": "nope"}}}),
    ):
        with pytest.raises(s.SnodoError) as info:
            attempt()
        errors.append(info.value)
    for err in errors:
        shown += [str(err), repr(err), str(err.args), getattr(err, "message", "")]
    out, err_out = capfd.readouterr()
    shown += [out, err_out] + [caplog.text] + [r.getMessage() for r in caplog.records]
    for text in shown:
        assert_clean(text)
        assert_clean(text, SECRET[::-1])
    # The principal: never in a token, in clear or inside a decoded part, nor in a repr.
    for tok in (token, sealed):
        parts = b64url_parts(tok)
        assert len(parts) == 4, tok
        assert "octocat" not in tok
        for part in parts:
            assert b"octocat" not in part, part
            assert_clean(part.decode("latin-1"))
    for text in texts_of(call) + texts_of(call2) + texts_of(opened) + [repr(opened.to_dict())]:
        assert "octocat" not in text, text


def test_checker_finds_each_spelling() -> None:
    """assert_clean can fail: every spelling planted in a text is caught."""
    for spelled in spellings(SECRET):
        with pytest.raises(AssertionError):
            assert_clean(f"log: {spelled} end")
