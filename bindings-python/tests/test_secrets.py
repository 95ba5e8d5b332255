"""Key bytes never appear in a repr, a str or an error message."""

from __future__ import annotations

import base64
import json
from typing import List

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
    return out


def assert_clean(text: str, secret: bytes = SECRET) -> None:
    for s_ in spellings(secret):
        assert s_ not in text, f"key material {s_!r} leaked into {text!r}"


def test_engine_repr_and_str() -> None:
    e = Engine([("k1", SECRET), ("old", SECRET[::-1])], now=1)
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
    e = Engine([("k1", SECRET)], now=1_800_000_000)
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
