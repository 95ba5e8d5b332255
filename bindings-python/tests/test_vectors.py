"""Every vector in tests/vectors/*.json, reproduced byte for byte.

Dispatch is on the file name; an unknown file or op fails rather than being
skipped, so a new vector file cannot be silently ignored.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import snodo_mrtr as s
from conftest import VECTORS, engine_for, load_exact, plain, same, to_int
from snodo_mrtr import Call, Response, SnodoError, TokenError

Case = Tuple[str, Dict[str, Any], Dict[str, Any]]


def collect() -> List[Any]:
    cases: List[Any] = []
    for path in sorted(Path(VECTORS).glob("*.json")):
        doc = load_exact(path.read_text(encoding="utf-8"))
        assert doc.get("schema") == "snodo-vectors-v1", f"{path.name}: unknown schema"
        for test in doc["tests"]:
            cid = f"{path.stem}-{to_int(test['tcId'])}"
            cases.append(pytest.param(path.stem, doc, test, id=cid))
    return cases


CASES = collect()


def test_vector_files_exist() -> None:
    assert CASES, f"no vectors found in {VECTORS}"


@pytest.mark.parametrize("kind, doc, test", CASES)
def test_vector(kind: str, doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    runner = RUNNERS.get(kind)
    assert runner is not None, f"no runner for vector file {kind}.json"
    runner(doc, test)


def pointer(doc: Any, ptr: str) -> Any:
    """RFC 6901 JSON Pointer lookup."""
    cur = doc
    for raw in ptr.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        cur = cur[int(part)] if isinstance(cur, list) else cur[part]
    return cur


def check_response(resp: Response, step: Dict[str, Any]) -> Any:
    body = load_exact(resp.to_json())
    exp = step["expected"]
    assert resp.http_status == to_int(exp["httpStatus"]), resp.to_json()
    assert body == exp["body"], f"\n got: {resp.to_json()}\nwant: {json.dumps(plain(exp['body']))}"
    if "diagnostic" in step:  # wire.json: the start of the -32603 diagnostic
        assert (resp.diagnostic or "").startswith(step["diagnostic"]), (resp.diagnostic, step["diagnostic"])
    for ptr, want in step.get("check", {}).items():
        if ptr == "#httpStatus":
            assert resp.http_status == to_int(want)
        else:
            assert pointer(body, ptr) == want, ptr
    return body


def run_flow(doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    states: List[str] = []
    for n, step in enumerate(test["steps"], 1):
        config = step.get("config", test.get("config", doc["config"]))
        engine = engine_for(config, step.get("now", test["now"]))
        principal = step["principal"] if "principal" in step else test["principal"]
        text = step["request"]
        for i, token in enumerate(states, 1):
            text = text.replace("{{state:%d}}" % i, token)
        assert "{{state:" not in text, f"step {n}: unresolved state placeholder"
        exp = step["expected"]
        if "error" in exp:
            with pytest.raises(SnodoError) as info:
                engine.begin(text, principal)
            assert info.value.name == exp["error"]
            states.append("")
            continue
        begun = engine.begin(text, principal)
        if isinstance(begun, Response):
            assert "outcome" not in step, f"step {n}: begin answered {begun.to_json()}"
            body = check_response(begun, step)
        else:
            assert isinstance(begun, Call)
            check_call(begun, step)
            body = check_response(engine.decide(begun, step["outcome"]), step)
        state = body.get("result", {}).get("requestState", "") if isinstance(body, dict) else ""
        states.append(state)


def check_call(call: Call, step: Dict[str, Any]) -> None:
    for a in step.get("answers", []):
        got = call.response(a["key"], a["request"])
        want = a["expected"]
        assert got.kind == want["kind"], (a["key"], got.kind, got.reason)
        if want["kind"] == "accepted":
            assert same(got.value, plain(want.get("value"))), (got.value, want)
    for a in step.get("rawAnswers", []):
        assert same(call.raw_response(a["key"]), plain(a["expected"]))
    readers = {"askedKeys": "asked_keys", "isRetry": "is_retry", "flowStart": "flow_start",
               "protocolVersion": "protocol_version", "clientCapabilities": "client_capabilities",
               "clientInfo": "client_info", "mrtrAllowed": "mrtr_allowed",
               # The call's ids and answers digest.
               "flowId": "flow_id", "tokenId": "token_id", "tokenExpiresAt": "token_expires_at",
               "answersDigest": "answers_digest"}
    for field, want in step.get("call", {}).items():
        got = getattr(call, readers.get(field, field))
        if field == "askedKeys":
            got, want = sorted(got), sorted(want)
        assert same(got, plain(want)), (field, got, want)


def run_token(doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    engine = engine_for(test.get("config", doc["config"]), test["now"])
    binding = s.binding_digest(test["method"], test["params"])
    exp = test["expected"]
    if test["op"] == "seal":
        kwargs = dict(principal=test["principal"], binding=binding, round=to_int(test["round"]),
                      flow_start=to_int(test["flowStart"]), questions=test.get("questions"), state=test.get("state"))
        if "error" in exp:
            with pytest.raises(SnodoError) as info:
                engine.seal(**kwargs)
            assert info.value.name == exp["error"]
        else:
            assert engine.seal(**kwargs) == exp["token"]
        return
    assert test["op"] == "open", f"unknown token op {test['op']!r}"
    if "reason" in exp:
        with pytest.raises(TokenError) as info:
            engine.open(test["token"], principal=test["principal"], binding=binding)
        assert info.value.reason == exp["reason"]
        for field, want in test.get("check", {}).items():
            assert getattr(info.value, field) == want
        return
    opened = engine.open(test["token"], principal=test["principal"], binding=binding)
    fields = {"round": "round", "flowStart": "flow_start", "issuedAt": "issued_at", "expiresAt": "expires_at",
              "questionKeys": "question_keys", "state": "state", "keyId": "key_id",
              "tokenId": "token_id", "flowId": "flow_id"}
    for field, want in exp.items():
        assert same(getattr(opened, fields[field]), plain(want)), field


def run_builder(doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    op, exp = test["op"], test["expected"]
    calls = {
        "elicit_form": lambda: s.elicit_form(test["message"], test["schema"]),
        "elicit_url": lambda: s.elicit_url(test["message"], test["url"]),
        "sampling": lambda: s.sampling(test["params"]),
        "list_roots": lambda: s.list_roots(),
        "missing_capabilities": lambda: s.missing_capabilities(test["requests"], test["capabilities"]),
        "filter_supported": lambda: list(s.filter_supported(test["requests"], test["capabilities"])),
    }
    assert op in calls, f"unknown builder op {op!r}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        if "error" in exp:
            with pytest.raises(SnodoError) as info:
                calls[op]()
            assert info.value.name == exp["error"], info.value
            return
        got = calls[op]()
    (field, want), = exp.items()
    assert field in ("request", "missing", "keys"), field
    if field == "request":
        assert isinstance(got, s.Question), got
        # Byte for byte: the canonical text of the vector's request (numbers as written).
        assert got.to_json() == s.Question(want).to_json(), (got, want)
        got = got.value
    assert same(got, plain(want)), (got, want)


def run_canonical(doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    op, exp = test.get("op", "canonical"), test["expected"]
    if op == "binding":
        assert s.binding_digest(test["method"], test["params"]).hex() == exp["digestHex"]
        return
    assert op == "canonical", f"unknown canonical op {op!r}"
    if "error" in exp:
        with pytest.raises(SnodoError) as info:
            s.canonicalize(test["input"])
        assert info.value.name == exp["error"]
    else:
        assert s.canonicalize(test["input"]) == exp["canonical"]
        assert s.canonicalize(test["input"].encode("utf-8")) == exp["canonical"]


def _err(e: SnodoError) -> Dict[str, Any]:
    return {"error": e.name, "message": e.message}


OPENED_NAMES = {"key_id": "keyId", "issued_at": "issuedAt", "expires_at": "expiresAt",
                "flow_start": "flowStart", "round": "round", "question_keys": "questionKeys", "state": "state",
                "token_id": "tokenId", "flow_id": "flowId"}


def consistency_out(doc: Dict[str, Any], test: Dict[str, Any]) -> Any:
    op, inp = test["op"], plain(test["input"])
    e = engine_for(doc["config"], test["now"])
    if op == "decide_twice":
        call = e.begin(inp["request"], inp["principal"])
        assert isinstance(call, Call), call
        e.decide(call, inp["outcome"])
        try:
            return {"second": e.decide(call, inp["outcome"]).body}
        except SnodoError as x:
            return _err(x)
    if op == "principal":
        if "principal" not in inp:
            with pytest.raises(TypeError):
                e.begin(inp["request"])  # type: ignore[call-arg]
            return {"error": "OMITTED"}
        try:
            call = e.begin(inp["request"], inp["principal"])
        except SnodoError as x:
            return _err(x)
        assert isinstance(call, Call), call
        return {"principal": call.principal}
    if op in ("missing_capabilities", "filter_supported"):
        try:
            return {"result": getattr(s, op)(inp["requests"], inp["capabilities"])}
        except SnodoError as x:
            return _err(x)
    if op == "binding_digest":
        try:
            return {"digestHex": s.binding_digest(inp["method"], inp["params"]).hex()}
        except SnodoError as x:
            return _err(x)
    if op == "canonicalize":
        raw = bytes.fromhex(inp["hex"]) if "hex" in inp else b" " * inp.get("padSpaces", 0) + inp["text"].encode()
        try:
            return {"canonical": s.canonicalize(raw)}
        except SnodoError as x:
            return _err(x)
    if op == "opened":
        binding = s.binding_digest(inp["method"], inp["params"])
        given = {k: inp[v] for k, v in (("round", "round"), ("flow_start", "flowStart"),
                                         ("questions", "questions"), ("state", "state")) if v in inp}
        token = e.seal(principal=inp["principal"], binding=binding, **given)
        try:
            opened = e.open(token, principal=inp.get("openAs", inp["principal"]), binding=binding)
        except TokenError as x:
            return {"error": x.name, "reason": x.reason, "message": x.message}
        return {"opened": {OPENED_NAMES[k]: v for k, v in opened.to_dict().items()}}
    if op == "config":
        if inp["spelling"] != "snake":
            return None  # Python spells limits in snake_case only; the camel cases are Node's.
        try:
            s.Engine([("k1", bytes([7] * 32))], **{inp["name"]: inp["value"]})
        except SnodoError as x:
            return _err(x)
        return {"ok": True}
    raise AssertionError(f"unknown consistency op {op!r}")


def run_consistency(doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    got = consistency_out(doc, test)
    if got is None:
        assert test["op"] == "config" and test["input"]["spelling"] == "camel"
        return
    assert same(got, plain(test["expected"])), (got, test["expected"])


def run_wire_builder(doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    op, exp = test["op"], test["expected"]
    if op == "task_input_requests":
        if "error" in exp:
            # The core's TaskInputCheck::Invalid; Python raises it as INPUT_REQUEST.
            assert exp == {"error": "INVALID_TASK"}, exp
            with pytest.raises(s.InputRequestError):
                s.check_task_input_requests(test["task"], test["capabilities"])
            return
        got = s.check_task_input_requests(test["task"], test["capabilities"])
        assert same(got, plain(exp["missing"])), (got, exp)
        return
    lint_free = {
        "elicit_form_without_lint": lambda: s.elicit_form_without_lint(test["message"], test["schema"]),
        "elicit_url_without_lint": lambda: s.elicit_url_without_lint(test["message"], test["url"]),
    }
    if op not in lint_free:
        run_builder(doc, test)
        return
    if "error" in exp:
        with pytest.raises(SnodoError) as info:
            lint_free[op]()
        assert info.value.name == exp["error"], info.value
        return
    (field, want), = exp.items()
    assert field == "request", field
    got = lint_free[op]()
    assert got == s.Question(want) and same(got.value, plain(want)), (got, want)


def run_headers(doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    assert test["op"] == "check_http_headers", f"unknown headers op {test['op']!r}"
    pairs = [(name, value) for name, value in test["headers"]]
    exp = test["expected"]
    for request in (test["request"], test["request"].encode("utf-8")):
        got = s.check_http_headers(pairs, request)
        if exp is None:
            assert got is None, got.to_json() if got else None
            continue
        assert got is not None, "headers accepted, want -32020"
        body = check_response(got, test)
        if "messageStartsWith" in test:
            assert body["error"]["message"].startswith(test["messageStartsWith"]), body


def run_parts(doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    """`begin` on the text and `begin_parts` on plain parsed values
    (what an SDK hands over) give the same response, token included."""
    engine = engine_for(doc["config"], test["now"])
    states: List[str] = []
    for step in test["steps"]:
        text = step["request"]
        parts_text = json.dumps(plain(step["parts"]))
        for i, token in enumerate(states, 1):
            text = text.replace("{{state:%d}}" % i, token)
            parts_text = parts_text.replace("{{state:%d}}" % i, token)
        parts = json.loads(parts_text)
        bodies = []
        for begun in (engine.begin(text, test["principal"]),
                      engine.begin_parts(parts["id"], parts["method"], parts["params"], test["principal"])):
            if isinstance(begun, Call):
                check_call(begun, step)
                begun = engine.decide(begun, step["outcome"])
            bodies.append(check_response(begun, step))
        assert bodies[0] == bodies[1]
        body = bodies[0]
        states.append(body.get("result", {}).get("requestState", "") if isinstance(body, dict) else "")


def legacy_call_json(call: Call) -> Dict[str, Any]:
    return {"id": call.id, "method": call.method, "round": call.round, "protocolVersion": call.protocol_version,
            "capabilities": call.client_capabilities, "mrtrAllowed": call.mrtr_allowed, "legacy": call.is_legacy,
            "state": call.state, "askedKeys": call.asked_keys}


def run_legacy(doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    """begin_legacy, then decide_legacy / feed / timeout / cancel
    steps, each output compared whole with the file's `expected`."""
    config = test.get("config", doc["config"])
    sess = test["session"]
    principal = test["principal"]
    # Who opened the session: its own `principal`, else the test's.
    opener = sess["principal"] if "principal" in sess else principal
    session = s.Session(sess["protocolVersion"], sess["capabilities"], sess.get("clientInfo"),
                        principal=opener, id=sess["id"])
    saw_error = False
    call: Any = None
    pending: Any = None

    def respond(r: Response) -> Dict[str, Any]:
        return {"httpStatus": r.http_status, "body": r.body}

    def feed_json(f: Any) -> Dict[str, Any]:
        nonlocal call
        if f.kind == "waiting":
            assert f.call is None and f.response is None
            return {"waiting": True}
        if f.kind == "resume":
            call = f.call
            return {"resume": legacy_call_json(call)}
        assert f.kind == "respond", f.kind
        return {"respond": respond(f.response), "cancellations": f.cancellations}

    begun = engine_for(config, test["now"]).begin_legacy(test["request"], session, principal)
    if isinstance(begun, Response):
        saw_error = True
        got: Dict[str, Any] = {"respond": respond(begun)}
    else:
        call = begun
        got = {"call": legacy_call_json(call)}
    assert same(got, plain(test["begin"])), (got, test["begin"])
    for n, step in enumerate(test["steps"], 1):
        engine = engine_for(config, step.get("now", test["now"]))
        op = step["op"]
        if op == "decide":
            assert isinstance(call, Call), f"step {n}: no call to decide"
            check_call(call, step)
            decided = engine.decide_legacy(call, step["outcome"])
            call = None
            if isinstance(decided, Response):
                out: Dict[str, Any] = {"respond": respond(decided)}
            elif isinstance(decided, s.PendingFlow):
                pending = decided
                out = {"send": pending.requests, "deadline": pending.deadline, "round": pending.round,
                       "elicitationIds": pending.elicitation_ids}
                assert pending.request_ids == [r["id"] for r in pending.requests]
                assert pending.outstanding == pending.request_ids and not pending.is_ended
                assert all(pending.awaits(i) for i in pending.request_ids)
            else:
                assert isinstance(decided, Call)
                call = decided
                out = {"resume": legacy_call_json(call)}
        elif op == "feed":
            assert pending is not None, f"step {n}: no pending flow"
            text = step["response"]
            for i, leg in enumerate(pending.request_ids, 1):
                text = text.replace("{{leg:%d}}" % i, leg)
            # Who answers: the step's own `principal`, else the test's.
            by = step["principal"] if "principal" in step else principal
            try:
                out = feed_json(engine.feed(pending, text, by))
            except SnodoError as err:
                out = {"error": err.name, "message": str(err)}
        elif op == "timeout":
            assert pending is not None, f"step {n}: no pending flow"
            try:
                out = feed_json(engine.timeout(pending))
            except SnodoError as err:
                out = {"error": err.name, "message": str(err)}
        elif op == "cancel":
            assert pending is not None, f"step {n}: no pending flow"
            out = {"cancellations": pending.cancel(step.get("reason"))}
            assert pending.is_ended and pending.outstanding == []
        else:
            raise AssertionError(f"step {n}: unknown legacy op {op!r}")
        if "error" in out or "error" in out.get("respond", {}).get("body", {}):
            saw_error = True
        assert same(out, plain(step["expected"])), f"step {n} ({op}):\n got: {out}\nwant: {plain(step['expected'])}"
    assert saw_error == (test["result"] == "invalid"), test["result"]


def run_origin(doc: Dict[str, Any], test: Dict[str, Any]) -> None:
    """The Origin/Host edge check: the same refusal, status and body, as the
    core's, for headers given as pairs and, where no name repeats, as a dict."""
    assert test["op"] == "check_http_origin", f"unknown origin op {test['op']!r}"
    spec = test["policy"]
    policy = s.OriginPolicy() if spec is None else s.OriginPolicy(list(spec["hosts"]), list(spec["origins"]))
    pairs = [(name, value) for name, value in test["headers"]]
    shapes: List[Any] = [pairs, [(n.encode("latin-1"), v.encode("latin-1")) for n, v in pairs]]
    if len({n.lower() for n, _ in pairs}) == len(pairs):
        shapes.append(dict(pairs))
    for headers in shapes:
        got = s.check_http_origin(policy, headers)
        assert (got is None) == (test["result"] == "valid"), got.to_json() if got else None
        if test["expected"] is None:
            assert got is None, got.to_json() if got else None
        else:
            assert got is not None, "headers accepted, want a refusal"
            check_response(got, test)


RUNNERS = {"parts": run_parts, "flows": run_flow, "tokens": run_token, "builders": run_builder, "canonical": run_canonical,
           "consistency": run_consistency, "wire": run_flow, "wire-builders": run_wire_builder,
           "headers": run_headers, "legacy": run_legacy, "origin": run_origin}
