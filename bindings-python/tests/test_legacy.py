"""The Python side of the legacy bridge (2025-era sessions): argument conversion,
misuse errors and the object shapes (the rules themselves are the core's,
run through tests/vectors/legacy.json in test_vectors.py)."""

from __future__ import annotations

import json
import threading

import pytest

import snodo_mrtr as s
from snodo_mrtr import ArgumentError, Call, JsonError, PendingFlow, Response, Session

KEY = [("k1", bytes(32))]
ASK = s.elicit_form("Pick", {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]})
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "t", "version": "1"}}}
CALL = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"paint","arguments":{}}}'


def flow(engine: s.Engine) -> tuple:
    session = Session.from_initialize(INIT, "2025-11-25", principal="alice", id="sess-a")
    call = engine.begin_legacy(CALL, session, "alice")
    assert isinstance(call, Call) and call.is_legacy and not call.mrtr_allowed
    pending = engine.decide_legacy(call, s.input_required({"color": ASK}))
    assert isinstance(pending, PendingFlow)
    return session, pending


def test_session_readers_and_versions() -> None:
    engine = s.Engine(KEY)
    assert engine.legacy_version_for("2025-06-18") == "2025-06-18"
    assert engine.legacy_version_for("1999-01-01") == s.DEFAULT_LEGACY_VERSIONS[0]
    assert s.Engine(KEY, legacy_versions=[]).legacy_version_for("2025-06-18") is None
    session = Session.from_initialize(INIT, "2025-11-25", principal="alice", id="sess-a")
    assert session.id == "sess-a" and session.protocol_version == "2025-11-25" and session.principal == "alice"
    assert session.client_info == {"name": "t", "version": "1"}
    # An empty elicitation object means form mode.
    assert "elicitation" in session.usable_capabilities
    assert session.with_id("other").id == "other" and session.id == "sess-a"
    assert session.with_id("other").principal == "alice"
    assert "sess-a" in repr(session) and "name" not in repr(session) and "alice" not in repr(session)
    assert len(Session("2025-06-18", {}, principal=None).id) == 32  # random when omitted
    with pytest.raises(ArgumentError, match="capabilities must be an object"):
        Session("2025-11-25", [], principal=None)
    with pytest.raises(ArgumentError, match="id must be"):
        Session("2025-11-25", {}, principal=None, id="has space")
    with pytest.raises(ArgumentError):  # no elicitation.url on this session
        session.elicitation_complete("x")


def test_flow_round_trip_and_refusals_change_nothing() -> None:
    engine = s.Engine(KEY)
    _, pending = flow(engine)
    [req] = pending.requests
    assert req["method"] == "elicitation/create" and req["id"].startswith(s.LEGACY_ID_PREFIX)
    assert pending.request_ids == [req["id"]] and pending.awaits(req["id"]) and not pending.awaits(1)
    assert pending.id == 7 and pending.method == "tools/call" and pending.round == 1
    assert pending.deadline > pending.flow_start
    for bad, err in [("{", JsonError), ('{"jsonrpc":"2.0","id":"nope","result":{}}', ArgumentError)]:
        with pytest.raises(err):
            engine.feed(pending, bad, "alice")
        assert pending.outstanding == [req["id"]]
    with pytest.raises(ArgumentError, match="expected str, bytes or dict"):
        engine.feed(pending, 42, "alice")  # type: ignore[arg-type]
    fed = engine.feed(pending, {"jsonrpc": "2.0", "id": req["id"],
                                "result": {"action": "accept", "content": {"c": "red"}}}, "alice")
    assert fed.kind == "resume" and fed.response is None and fed.cancellations == []
    call = fed.call
    assert isinstance(call, Call) and call.round == 2 and call.response("color", ASK).value == {"c": "red"}
    with pytest.raises(ArgumentError, match="after the flow ended"):
        engine.feed(pending, json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": {"action": "decline"}}), "alice")
    final = engine.decide_legacy(call, s.complete({"content": []}))
    assert isinstance(final, Response) and "resultType" not in final.body["result"]


def test_timeout_and_cancel() -> None:
    engine = s.Engine(KEY)
    _, pending = flow(engine)
    fed = engine.timeout(pending)
    assert fed.kind == "respond" and fed.call is None and fed.response is not None
    assert fed.response.body["result"]["isError"] is True
    assert [c["method"] for c in fed.cancellations] == ["notifications/cancelled"]
    _, pending = flow(engine)
    out = pending.cancel("user left")
    assert out[0]["params"]["reason"] == "user left" and pending.is_ended and pending.cancel() == []


def test_concurrent_feeds_are_serialised() -> None:
    """Two transport threads answering the same request: exactly one wins,
    the other gets the clear 'already answered'/'ended' error."""
    engine = s.Engine(KEY)
    _, pending = flow(engine)
    [rid] = pending.request_ids
    msg = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"action": "accept", "content": {"c": "x"}}})
    results: list = []

    def go() -> None:
        try:
            results.append(engine.feed(pending, msg, "alice").kind)
        except ArgumentError as e:
            results.append(str(e))

    threads = [threading.Thread(target=go) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("resume") == 1, results


def test_a_session_belongs_to_the_principal_that_opened_it() -> None:
    """Another principal (a user, or the anonymous one) holding the session id
    gets the refusal of a session that does not exist, for a call and for
    any other message; the owner goes on."""
    engine = s.Engine(KEY)
    session = Session.from_initialize(INIT, "2025-11-25", principal="alice", id="sess-a")
    assert session.check_principal("alice") is None
    for other in ("bob", None):
        refusal = session.check_principal(other)
        assert refusal is not None and refusal.http_status == 404
        assert refusal.body == {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "Session not found"}}
        begun = engine.begin_legacy(CALL, session, other)
        assert isinstance(begun, Response) and begun.http_status == 404
        assert begun.body["error"]["code"] == -32001 and begun.body["id"] == 7
    anonymous = Session("2025-11-25", {}, principal=None)
    assert anonymous.principal is None and anonymous.check_principal(None) is None
    assert anonymous.check_principal("alice") is not None
    assert isinstance(engine.begin_legacy(CALL, session, "alice"), Call)


def test_an_unknown_session_and_another_users_get_the_same_bytes() -> None:
    session = s.Session("2025-11-25", {}, principal="alice", id="sess-1")
    refusal = session.check_principal("mallory")
    unknown = s.unknown_session()
    assert refusal is not None and (unknown.http_status, unknown.to_json()) == (refusal.http_status, refusal.to_json())
    assert unknown.http_status == 404 and unknown.body["error"]["code"] == -32001


def test_the_principal_is_required() -> None:
    engine = s.Engine(KEY)
    with pytest.raises(TypeError):
        Session("2025-11-25", {})  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Session.from_initialize(INIT, "2025-11-25")  # type: ignore[call-arg]
    _, pending = flow(engine)
    with pytest.raises(TypeError):
        engine.feed(pending, "{}")  # type: ignore[call-arg]
    with pytest.raises(ArgumentError):  # an empty user name is not the anonymous principal
        Session("2025-11-25", {}, principal="")


def test_an_answer_from_another_principal_is_refused_and_changes_nothing() -> None:
    engine = s.Engine(KEY)
    _, pending = flow(engine)
    [rid] = pending.request_ids
    forged = {"jsonrpc": "2.0", "id": rid, "result": {"action": "accept", "content": {"c": "evil"}}}
    for other in ("bob", None):
        with pytest.raises(ArgumentError, match="another principal"):
            engine.feed(pending, forged, other)
        with pytest.raises(ArgumentError, match="another principal"):
            engine.feed(pending, json.dumps(forged), other)
        assert pending.outstanding == [rid] and not pending.is_ended
    mine = {"jsonrpc": "2.0", "id": rid, "result": {"action": "accept", "content": {"c": "red"}}}
    fed = engine.feed(pending, mine, "alice")
    assert fed.kind == "resume" and fed.call is not None
    assert fed.call.response("color", ASK).value == {"c": "red"}
