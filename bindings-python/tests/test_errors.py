"""The exception classes mirror the core enum, and every path raises the right one."""

from __future__ import annotations

import pytest

import snodo_mrtr as s
from conftest import KEY, NOW, request
from snodo_mrtr import Engine, SnodoError


def test_python_classes_equal_the_core_enum() -> None:
    core = [(code, name) for code, name, _description in s.ERROR_CODES]
    py = [(cls.code, cls.name) for cls in s.ERROR_CLASSES.values()]
    assert py == core
    assert sorted(s.ERROR_CLASSES) == [code for code, _ in core]
    for code, cls in s.ERROR_CLASSES.items():
        assert issubclass(cls, SnodoError) and cls.code == code
        assert getattr(s, cls.__name__) is cls
    assert all(description for _, _, description in s.ERROR_CODES)


def test_builtin_bases() -> None:
    # Misuse is a ValueError; a store outage (STORE) is not a bad
    # value but an operational failure: a RuntimeError, so `except ValueError`
    # around misuse never swallows it.
    for cls in s.ERROR_CLASSES.values():
        if cls is s.StoreError:
            assert issubclass(cls, RuntimeError) and not issubclass(cls, ValueError)
        else:
            assert issubclass(cls, ValueError)
    assert issubclass(s.ArgumentError, TypeError)


def raises(cls: type, fn, *args, **kwargs) -> SnodoError:  # type: ignore[no-untyped-def]
    with pytest.raises(cls) as info:
        fn(*args, **kwargs)
    err = info.value
    assert isinstance(err, SnodoError) and type(err) is cls
    assert err.code == cls.code and err.name == cls.name and str(err) == err.message != ""
    return err


def test_config() -> None:
    assert "too short" in raises(s.ConfigError, Engine, [("k1", b"short")]).message
    raises(s.ConfigError, Engine, [])
    raises(s.ConfigError, Engine, [("bad id!", KEY)])
    raises(s.ConfigError, Engine, [("k1", KEY.hex())])
    raises(s.ConfigError, Engine, [("k1", KEY), ("k1", KEY)])
    raises(s.ConfigError, Engine, [("k1",)])
    raises(s.ConfigError, Engine, "k1")
    raises(s.ConfigError, Engine, [("k1", KEY)], ttl_secs=901)
    raises(s.ConfigError, Engine, [("k1", KEY)], supported_versions=[])
    raises(s.ConfigError, Engine, [("k1", KEY)], server_info=["not", "an", "object"])


def test_builder_errors() -> None:
    raises(s.SchemaError, s.elicit_form, "m", {"type": "object", "properties": {"a": {"type": "object"}}})
    raises(s.InputRequestError, s.elicit_form, "", {"type": "object", "properties": {}})
    raises(s.UrlError, s.elicit_url, "m", "ftp://example.com/")
    with pytest.warns(DeprecationWarning):
        raises(s.SamplingError, s.sampling, {"messages": "nope"})
    raises(s.ArgumentError, s.elicit_form, "m", "[1, 2]")


def test_json_errors() -> None:
    raises(s.JsonError, s.canonicalize, "{")
    raises(s.JsonError, s.canonicalize, '{"a":1,"a":2}')
    raises(s.JsonError, s.binding_digest, "tools/call", "[1,")
    raises(s.JsonError, s.RawJSON, "nul")
    raises(s.JsonError, s.elicit_form, "m", {"type": "object", "properties": {}, "x": float("nan")})


def test_state_too_large_and_token() -> None:
    e = Engine([("k1", KEY)], fixed_time=NOW, max_token_bytes=1024)
    b = s.binding_digest("tools/call", {})
    raises(s.StateTooLargeError, e.seal, principal=None, binding=b, round=1, flow_start=NOW, state="x" * 2000)
    err = raises(s.TokenError, e.open, "garbage", principal=None, binding=b)
    assert isinstance(err, s.TokenError) and err.reason == "malformed"


def test_not_a_request(engine: Engine) -> None:
    raises(s.NotARequestError, engine.begin, '{"jsonrpc":"2.0","method":"notifications/initialized"}', None)
    raises(s.NotARequestError, engine.begin, {"jsonrpc": "2.0", "id": 1, "result": {}}, None)


def test_argument(engine: Engine) -> None:
    raises(s.ArgumentError, engine.begin, request(), "")
    raises(s.ArgumentError, engine.begin, 12, None)
    call = engine.begin(request(), None)
    assert isinstance(call, s.Call)
    raises(s.ArgumentError, engine.decide, call, {"type": "nope"})
    raises(s.ArgumentError, engine.decide, call, {"type": "error", "code": "x", "message": "m"})
    raises(s.ArgumentError, engine.decide, call, [1])
    raises(s.ArgumentError, engine.seal, principal="", binding=bytes(32), round=1, flow_start=NOW)
    raises(s.ArgumentError, engine.open, "t", principal=None, binding=b"short")
    # A question that is not a request object is the core's INPUT_REQUEST.
    raises(s.InputRequestError, call.response, "k", "[]")


def test_errors_are_catchable_as_builtins(engine: Engine) -> None:
    with pytest.raises(ValueError):
        Engine([("k1", b"x")])
    with pytest.raises(TypeError):
        engine.begin(3.5, None)  # type: ignore[arg-type]
