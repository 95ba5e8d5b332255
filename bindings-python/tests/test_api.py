"""The Python surface: dict vs text input, readers, answers, responses, builders."""

from __future__ import annotations

import hashlib
import json
import warnings
from typing import Any, Dict

import pytest

import snodo_mrtr as s
from conftest import KEY, NOW, V, meta, request
from snodo_mrtr import Call, Engine, RawJSON, Response

ASK = s.elicit_form("Pick a color", {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]})


def begin_call(engine: Engine, msg: Any, principal: Any = "alice") -> Call:
    begun = engine.begin(msg, principal)
    assert isinstance(begun, Call), begun.to_json() if isinstance(begun, Response) else begun
    return begun


def test_text_bytes_and_dict_inputs_agree(engine: Engine) -> None:
    msg = request(arguments={"n": 3, "big": 123456789012345678901234567890, "s": "é"})
    text = json.dumps(msg)
    outs = []
    for form in (msg, text, text.encode("utf-8")):
        call = begin_call(engine, form)
        outs.append(engine.decide(call, s.input_required({"color": ASK})).to_json())
    assert outs[0] == outs[1] == outs[2]


def test_text_keeps_number_spelling_and_dict_follows_json_dumps(engine: Engine) -> None:
    # Text: 1.0 and 1 stay distinct, so the bindings (and tokens) differ.
    a = begin_call(engine, json.dumps(request()).replace('"arguments": {}', '"arguments": {"x": 1.0}'))
    b = begin_call(engine, json.dumps(request()).replace('"arguments": {}', '"arguments": {"x": 1}'))
    ta = engine.decide(a, s.input_required(state="s")).body["result"]["requestState"]
    tb = engine.decide(b, s.input_required(state="s")).body["result"]["requestState"]
    assert ta != tb
    # Dict: float 1.0 is spelled "1.0" (as json.dumps does), int 1 is "1".
    c = begin_call(engine, request(arguments={"x": 1.0}))
    assert engine.decide(c, s.input_required(state="s")).body["result"]["requestState"] == ta
    # A float json.dumps spells 1e+16 is spelled the same way; RawJSON keeps any text.
    c = begin_call(engine, request(arguments={"x": 1.0}))
    r = engine.decide(c, s.complete({"content": [], "f": 1e16, "raw": RawJSON("1.50"), "i": 2**70}))
    assert '"f":1e+16' in r.to_json() and '"raw":1.50' in r.to_json() and str(2**70) in r.to_json()
    assert r.body["result"]["i"] == 2**70 and r.body["result"]["raw"] == 1.5


def test_dict_input_rejects_what_json_cannot_spell(engine: Engine) -> None:
    for bad in (float("nan"), float("inf"), {1, 2}, object(), b"bytes"):
        with pytest.raises(s.JsonError):
            engine.begin(request(arguments={"x": bad}), None)
    with pytest.raises(s.JsonError):
        engine.begin(request(arguments={1: "int key"}), None)
    deep: Dict[str, Any] = {}
    cur = deep
    for _ in range(100):
        cur["a"] = {}
        cur = cur["a"]
    with pytest.raises(s.JsonError):
        engine.begin(request(arguments=deep), None)
    loop: Dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(s.JsonError):
        engine.begin(request(arguments=loop), None)


def test_bool_is_not_a_number(engine: Engine) -> None:
    call = begin_call(engine, request(arguments={"t": True, "n": 1}))
    assert s.canonicalize(json.dumps(call.arguments)) == '{"n":1,"t":true}'


def test_call_readers_and_two_rounds(engine: Engine) -> None:
    caps = {"elicitation": {}}
    m = request(
        id="abc",
        arguments={"a": [1, 2.5]},
        _meta={**meta(caps), "io.modelcontextprotocol/clientInfo": {"name": "t"}, "progressToken": 7},
    )
    call = begin_call(engine, m)
    assert (call.id, call.method, call.name, call.uri, call.principal) == ("abc", "tools/call", "pick", None, "alice")
    assert call.arguments == {"a": [1, 2.5]} and call.params == {"name": "pick", "arguments": {"a": [1, 2.5]}}
    assert call.protocol_version == "2026-07-28" and call.client_capabilities == caps
    assert call.client_info == {"name": "t"} and call.mrtr_allowed
    assert call.meta == {"progressToken": 7}
    assert (call.round, call.is_retry, call.flow_start, call.state, call.asked_keys) == (1, False, NOW, None, [])
    assert call.response("color", ASK).is_missing and call.raw_response("color") is None
    r1 = engine.decide(call, s.input_required({"color": ASK}, state={"step": 1}))
    assert r1.http_status == 200 and not r1.is_error and r1.diagnostic is None
    token = r1.body["result"]["requestState"]
    retry = request(id=7, arguments={"a": [1, 2.5]}, inputResponses={"color": {"action": "accept", "content": {"color": "red", "extra": 1}}}, requestState=token)
    call2 = begin_call(engine, retry)
    assert (call2.round, call2.is_retry, call2.state, call2.asked_keys) == (2, True, {"step": 1}, ["color"])
    ans = call2.response("color", ASK)
    assert ans.kind == "accepted" and ans.is_accepted and ans.value == {"color": "red"}
    assert ans.to_dict() == {"kind": "accepted", "value": {"color": "red"}} and repr(ans) == 'Answer(kind="accepted")'
    assert call2.raw_response("color") == {"action": "accept", "content": {"color": "red", "extra": 1}}
    # A different question under the same key does not count: it reads as
    # "changed", so the handler asks the new question.
    other = s.elicit_form("Another", {"type": "object", "properties": {"color": {"type": "string"}}})
    changed = call2.response("color", other)
    assert changed.kind == "changed" and not changed.is_missing and not changed.is_accepted
    done = engine.decide(call2, s.complete({"content": [{"type": "text", "text": "red"}]}))
    assert done.to_dict() == done.body == json.loads(done.to_json())
    assert done.body == {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "red"}], "resultType": "complete"}}


def test_answer_kinds(engine: Engine) -> None:
    call = begin_call(engine, request())
    token = engine.decide(call, s.input_required({"color": ASK})).body["result"]["requestState"]
    for reply, kind in [({"action": "decline"}, "declined"), ({"action": "cancel"}, "cancelled"),
                        ({"action": "accept", "content": {"color": 5}}, "invalid")]:
        c = begin_call(engine, request(inputResponses={"color": reply}, requestState=token))
        a = c.response("color", ASK)
        assert a.kind == kind and a.value is None
        assert a.is_declined == (kind == "declined") and a.is_cancelled == (kind == "cancelled")
        assert a.is_invalid == (kind == "invalid") and (a.reason is not None) == (kind == "invalid")


def test_ready_responses_and_statuses(engine: Engine) -> None:
    r = engine.begin("{not json", None)
    assert isinstance(r, Response) and r.http_status == 400 and r.body["error"]["code"] == -32700
    r = engine.begin(request(_meta={}), None)
    assert isinstance(r, Response) and r.http_status == 400 and r.body["error"]["code"] == -32602
    r = engine.begin(request(_meta=meta(version="2099-01-01")), None)
    assert isinstance(r, Response) and r.body["error"]["code"] == -32022
    r = engine.begin(request(requestState="v1.k1.AAAA.BBBB"), None)
    assert isinstance(r, Response) and r.body["error"]["data"] == {"reason": "malformed"}


def test_outcome_helpers(engine: Engine) -> None:
    call = begin_call(engine, request())
    r = engine.decide(call, s.error(-32602, "bad", {"why": 1}))
    assert r.body["error"] == {"code": -32602, "message": "bad", "data": {"why": 1}}
    # A call is decided once, in every language.
    with pytest.raises(s.AlreadyDecidedError):
        engine.decide(call, s.tool_error("boom"))
    call = begin_call(engine, request())
    r = engine.decide(call, s.tool_error("boom"))
    assert r.body["result"]["isError"] is True
    call = begin_call(engine, request())
    r = engine.decide(call, s.raw({"resultType": "input_required", "inputRequests": {"color": ASK}}))
    assert r.body["result"]["resultType"] == "input_required"
    # -32021: the client declared no elicitation.
    nocap = begin_call(engine, request(_meta=meta({})))
    r = engine.decide(nocap, s.input_required({"color": ASK}))
    assert (r.http_status, r.body["error"]["code"]) == (400, -32021)
    assert r.body["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}
    # A handler bug becomes -32603 with a diagnostic, never a bad result.
    listing = begin_call(engine, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}})
    r = engine.decide(listing, s.input_required({"color": ASK}))
    assert r.body["error"]["code"] == -32603 and "tools/list" in (r.diagnostic or "")
    # The JSON spelling as text works as well.
    call = begin_call(engine, request())
    r = engine.decide(call, '{"type":"complete","result":{"content":[],"n":1.0}}')
    assert '"n":1.0' in r.to_json()


def test_builders_return_questions() -> None:
    form = s.elicit_form("Name?", {"type": "object", "properties": {"n": {"type": "string"}}})
    assert isinstance(form, s.Question) and form.kind == "form"
    assert form.value["method"] == "elicitation/create" and form.value["params"]["mode"] == "form"
    url = s.elicit_url("Sign in", "https://example.com/login")
    assert url.kind == "url" and url.value["params"]["mode"] == "url"
    with pytest.warns(DeprecationWarning):
        samp = s.sampling({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5})
    with pytest.warns(DeprecationWarning):
        roots = s.list_roots()
    assert (samp.kind, roots.kind, roots.value) == ("sampling", "roots", {"method": "roots/list"})
    reqs = {"a": form, "b": url, "c": samp, "d": roots}
    # Form is listed explicitly next to url: declaring url alone would drop
    # the form that `{}` implied.
    want = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}
    assert s.missing_capabilities(reqs, {"elicitation": {}}) == want
    assert s.missing_capabilities(reqs, '{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}') == {}
    # A list is not a request map, in every language.
    with pytest.raises(s.ArgumentError):
        s.missing_capabilities(list(reqs.values()), {})
    kept = s.filter_supported(reqs, {"sampling": {}, "roots": {}})
    assert list(kept) == ["c", "d"] and kept["c"] is samp and kept["d"] is roots
    assert s.filter_supported({"b": url.value, "a": form.value}, {"elicitation": {}}) == {"a": form.value}


def test_question_is_an_immutable_value() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "string"}}}
    q = s.elicit_form("Name?", schema)
    # Its canonical text (also wire JSON), digest and value; equal by canonical form.
    assert q.to_json() == s.canonicalize(json.dumps(q.value)) and json.loads(q.to_json()) == q.value
    assert len(q.digest) == 32 and q.digest == hashlib.sha256(q.to_json().encode()).digest()
    again = s.elicit_form("Name?", dict(reversed(list(schema.items()))))
    assert q == again and hash(q) == hash(again) and len({q, again}) == 1
    assert q != s.elicit_form("Name!", schema) and q != q.value and repr(q) == f"Question({q.to_json()})"
    # Made from a request written by hand (a dict or JSON text): the builders' checks.
    assert s.Question(q.value) == q == s.Question(q.to_json()) == s.Question(q.to_json().encode())
    with pytest.raises(s.InputRequestError):
        s.Question({"method": "elicitation/create"})
    with pytest.raises(s.JsonError):
        s.Question('{"method":"roots/list","method":"roots/list"}')
    # Immutable: a changed copy of its value is another request.
    value = q.value
    value["params"]["message"] = "Changed?"
    assert q.value["params"]["message"] == "Name?"
    with pytest.raises(AttributeError):
        q.value = value  # type: ignore[misc]
    # Accepted wherever a question is: the response to it, the outcome, the token.
    engine = Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=1)
    twin = Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=1)
    first = begin_call(engine, request()), begin_call(twin, request())
    asked = engine.decide(first[0], s.input_required({"n": q})), twin.decide(first[1], s.input_required({"n": q.value}))
    assert asked[0].to_json() == asked[1].to_json() and asked[0].body["result"]["inputRequests"] == {"n": q.value}
    token = asked[0].body["result"]["requestState"]
    retry = begin_call(engine, request(inputResponses={"n": {"action": "accept", "content": {"n": "Ann"}}},
                                       requestState=token))
    for form in (q, q.value, q.to_json()):
        assert retry.response("n", form).value == {"n": "Ann"}
    with pytest.raises(s.InputRequestError):
        retry.response("n", {"method": "elicitation/create"})


def test_low_level_seal_open_and_digests(engine: Engine) -> None:
    b = s.binding_digest("tools/call", '{"name":"pick","arguments":{"x":1.0}}')
    assert len(b) == 32 and b != s.binding_digest("tools/call", {"name": "pick", "arguments": {"x": 1}})
    assert b == s.binding_digest("tools/call", {"arguments": {"x": 1.0}, "name": "pick", "_meta": {"a": 1}})
    t = engine.seal(principal="alice", binding=b, round=1, flow_start=NOW, questions={"color": ASK}, state=[1, "x"])
    o = engine.open(t, principal="alice", binding=b)
    assert (o.key_id, o.round, o.flow_start, o.issued_at, o.expires_at, o.question_keys, o.state) == ("k1", 1, NOW, NOW, NOW + 300, ["color"], [1, "x"])
    assert o.to_dict()["question_keys"] == ["color"] and "k1" in repr(o)
    with pytest.raises(s.TokenError) as info:
        engine.open(t + "-TAMPERED", principal="alice", binding=b)
    assert info.value.reason == "malformed" and info.value.code == 8 and info.value.name == "TOKEN"
    impostor = Engine([("k1", bytes(32))], fixed_time=NOW)
    with pytest.raises(s.TokenError) as info:
        impostor.open(t, principal="alice", binding=b)
    assert info.value.reason == "signature"
    with pytest.raises(s.TokenError) as info:
        engine.open(t, principal=None, binding=b)
    assert info.value.reason == "principal"
    assert set(s.TOKEN_REASONS) >= {"malformed", "signature", "expired", "principal", "request", "rounds"}
    assert s.canonicalize('{"b": 1.0, "a": "\\u00e9"}') == '{"a":"é","b":1.0}'


def test_engine_config_and_development() -> None:
    assert Engine({"k1": KEY, "k0": bytearray(KEY)}, ttl_secs=60, fixed_time=5).now() == 5
    dev = Engine.development()
    call = dev.begin(request(), None)
    assert isinstance(call, Call) and call.principal is None
    e = Engine([("k1", KEY)], server_info={"name": "x", "version": "1"}, supported_versions=["2025-11-25", "2026-07-28"], fixed_time=NOW)
    r = e.decide(begin_call(e, request()), s.complete({"content": []}))
    assert r.body["result"]["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "x", "version": "1"}
    old = begin_call(e, request(_meta=meta(version="2025-11-25")))
    assert not old.mrtr_allowed


def test_raw_json() -> None:
    r = RawJSON("1.50")
    assert r.text == "1.50" and str(r) == "1.50" and repr(r) == 'RawJSON("1.50")'
    assert r == RawJSON(b"1.50") and r != RawJSON("1.5") and hash(r) == hash(RawJSON("1.50"))
    with pytest.raises(s.JsonError):
        RawJSON('{"a":1,"a":2}')


def test_version() -> None:
    assert s.__version__ == s.VERSION and s.MRTR_VERSION == "2026-07-28"
    assert s.MRTR_METHODS == ["tools/call", "resources/read", "prompts/get"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s.elicit_form("ok", {"type": "object", "properties": {}})


# --- the Python spellings of the core's surface ---


def test_config_keywords_use_the_core_table_and_name_the_keyword() -> None:
    with pytest.raises(s.ConfigError) as info:
        Engine([("k1", KEY)], ttl_secs=901)
    assert info.value.message == "ttl_secs: 901 is outside 1..=900"
    with pytest.raises(s.ConfigError) as info:
        Engine([("k1", KEY)], audience="")
    assert info.value.message.startswith("audience: "), info.value.message
    with pytest.raises(TypeError):
        Engine([("k1", KEY)], now=NOW)  # type: ignore[call-arg]  # renamed fixed_time
    assert Engine([("k1", KEY)], fixed_time=NOW).now() == NOW


def test_strict_answers_keyword_restores_the_pinned_only_rule() -> None:
    ask = s.elicit_form("Color?", {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]})
    sent = request(inputResponses={"c": {"action": "accept", "content": {"c": "red"}}})
    lenient = Engine([("k1", KEY)], fixed_time=NOW).begin(sent, None)
    strict = Engine([("k1", KEY)], fixed_time=NOW, strict_answers=True).begin(sent, None)
    assert isinstance(lenient, s.Call) and isinstance(strict, s.Call)
    assert lenient.response("c", ask).kind == "accepted"
    assert strict.response("c", ask).kind == "missing"
    assert strict.input_responses == {"c": {"action": "accept", "content": {"c": "red"}}}


def test_opened_to_dict_is_the_core_shape_in_snake_case(engine: Engine) -> None:
    binding = s.binding_digest("tools/call", {"name": "x"})
    token = engine.seal(principal="alice", binding=binding, state={"n": 1})
    opened = engine.open(token, principal="alice", binding=binding)
    assert len(opened.token_id) == len(opened.flow_id) == 22  # base64url of 16 bytes
    assert opened.to_dict() == {"key_id": "k1", "issued_at": NOW, "expires_at": NOW + 300, "flow_start": NOW,
                                "round": 1, "question_keys": [], "state": {"n": 1},
                                "token_id": opened.token_id, "flow_id": opened.flow_id}


def test_check_http_headers_takes_pairs_mappings_and_http_messages() -> None:
    import email.message

    body = json.dumps(request())
    good = {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call", "Mcp-Name": "pick"}
    assert s.check_http_headers(good, body) is None
    assert s.check_http_headers(list(good.items()), body.encode()) is None
    assert s.check_http_headers(good, request()) is None
    msg = email.message.Message()
    for k, v in good.items():
        msg[k] = v
    msg["Mcp-Name"] = "pick"  # sent twice: a mismatch even with equal values
    r = s.check_http_headers(msg, body)
    assert r is not None and r.http_status == 400 and r.body["error"]["code"] == -32020
    assert r.body["error"]["message"] == "Header mismatch: Mcp-Name header sent more than once"
    with pytest.raises(s.ArgumentError):
        s.check_http_headers("MCP-Protocol-Version: x", body)
    with pytest.raises(s.ArgumentError):
        s.check_http_headers([("only-a-name",)], body)


def test_task_helpers() -> None:
    assert s.declares_tasks({"extensions": {s.TASKS_EXTENSION: {}}})
    assert not s.declares_tasks({"extensions": {s.TASKS_EXTENSION: True}})
    with pytest.raises(s.InputRequestError):
        s.check_task_input_requests({"status": "working"}, {})


def test_literal_types_match_the_core_lists() -> None:
    from typing import get_args

    assert list(get_args(s.ErrorName)) == [name for _, name, _ in s.ERROR_CODES]
    assert list(get_args(s.TokenReason)) == list(s.TOKEN_REASONS)
    assert "changed" in get_args(s.AnswerKind) and len(get_args(s.AnswerKind)) == 6


def test_min_token_version_refuses_v1_tokens_and_no_newer_than_token_version() -> None:
    binding = s.binding_digest("tools/call", {"name": "x"})
    v1 = Engine([("k1", KEY)], fixed_time=NOW, token_version=1).seal(principal="a", binding=binding)
    only_v2 = Engine([("k1", KEY)], fixed_time=NOW, token_version=2, min_token_version=2)
    with pytest.raises(s.TokenError) as info:
        only_v2.open(v1, principal="a", binding=binding)
    assert info.value.reason == "version"
    v2 = only_v2.seal(principal="a", binding=binding)
    assert only_v2.open(v2, principal="a", binding=binding).round == 1
    assert Engine([("k1", KEY)], fixed_time=NOW, token_version=2).open(v1, principal="a", binding=binding).round == 1
    with pytest.raises(s.ConfigError) as info:
        Engine([("k1", KEY)], token_version=1, min_token_version=2)
    assert info.value.message.startswith("min_token_version: 2 is newer than token_version (1)"), info.value.message
    with pytest.raises(s.ConfigError, match="min_token_version"):
        Engine([("k1", KEY)], min_token_version=3)


def test_origin_policy_loopback_lists_and_bad_entries() -> None:
    """The edge check takes the header shapes check_http_headers takes; the
    rules are the core's (tests/vectors/origin.json)."""
    import email.message

    assert s.LOOPBACK_HOSTS == ["localhost", "127.0.0.1", "[::1]"]
    loopback = s.OriginPolicy()
    assert repr(loopback) == "OriginPolicy(loopback)"
    assert s.check_http_origin(loopback, {"Host": "127.0.0.1:8080"}) is None
    assert s.check_http_origin(loopback, [("Host", "localhost:1"), ("Origin", "http://localhost:1")]) is None
    refused = s.check_http_origin(loopback, {"Host": "127.0.0.1:8080", "Origin": "null"})
    assert refused is not None and refused.http_status == 403
    assert refused.body == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "Forbidden: Origin not allowed", "data": {"reason": "origin"}}}
    msg = email.message.Message()
    msg["Host"] = "127.0.0.1:1"
    msg["Host"] = "127.0.0.1:1"  # repeated: refused, whatever the values
    rebound = s.check_http_origin(loopback, msg)
    assert rebound is not None and rebound.http_status == 421 and rebound.body["error"]["data"] == {"reason": "host"}
    proxy = s.OriginPolicy(["mcp.example.com"], ["https://app.example.com"])
    assert "mcp.example.com" in repr(proxy)
    assert s.check_http_origin(proxy, {"Host": "mcp.example.com", "Origin": "https://app.example.com"}) is None
    assert s.check_http_origin(proxy, {"Host": "localhost"}) is not None  # loopback is not implied
    # One list given: the other is empty (only same-origin pages).
    hosts_only = s.OriginPolicy(hosts=["mcp.example.com:8443"])
    assert s.check_http_origin(hosts_only, {"Host": "mcp.example.com:8443", "Origin": "https://app.example.com"}) is not None
    assert s.check_http_origin(hosts_only, {"Host": "mcp.example.com:8443", "Origin": "https://mcp.example.com:8443"}) is None
    origins_only = s.OriginPolicy(origins=["https://app.example.com"])
    assert s.check_http_origin(origins_only, {"Host": "localhost"}) is not None
    for hosts, origins in ((["a b"], None), (None, ["null"]), (None, ["http://x/path"]), (["x:port"], None),
                           ("localhost", None), ([1], None)):
        with pytest.raises(s.ConfigError):
            s.OriginPolicy(hosts, origins)  # type: ignore[arg-type]
    with pytest.raises(s.ArgumentError):
        s.check_http_origin(loopback, "Host: localhost")
