//! The bridge end to end: begin_legacy → decide_legacy → feed → resume.

use serde_json::{Value, json};

use super::*;
use crate::engine::Engine;
use crate::{Answer, Config, Key, elicit_form, elicit_url};
use crate::{ErrorCode, Outcome};

fn engine(now: u64) -> Engine {
    Engine::new(Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(now)).unwrap()
}

fn alice() -> Principal {
    Principal::user("alice").unwrap()
}

fn session(version: &str, caps: Value) -> Session {
    Session::new(version, caps, None, &alice()).unwrap().with_id("s1").unwrap()
}

fn call(e: &Engine, s: &Session, text: &str) -> Box<Call> {
    match e.begin_legacy(text.as_bytes(), s, &alice()).unwrap() {
        Begin::Call(c) => c,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    }
}

fn question() -> crate::Question {
    elicit_form(
        "Colour?",
        &json!({"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]}),
    )
    .unwrap()
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"paint"}}"#;

fn ask(e: &Engine, c: &Call) -> Box<PendingFlow> {
    match e
        .decide_legacy(
            c,
            Outcome::InputRequired {
                requests: vec![("color".into(), question())],
                state: Some(json!({"n": 1})),
            },
        )
        .unwrap()
    {
        Bridge::Send(p) => p,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_flow_round_trips_to_the_same_call() {
    let e = engine(1000);
    let s = session("2025-11-25", json!({"elicitation": {}}));
    let c = call(&e, &s, CALL);
    assert!(c.is_legacy() && !c.mrtr_allowed());
    assert_eq!(c.protocol_version(), "2025-11-25");
    assert_eq!(c.name(), Some("paint"));
    let mut p = ask(&e, &c);
    assert_eq!(p.requests().len(), 1);
    let leg = &p.requests()[0];
    assert_eq!(leg["method"], "elicitation/create");
    assert_eq!(leg["params"]["mode"], "form");
    let id = leg["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("snodo-") && id.ends_with("-1-1"), "{id}");
    assert!(p.awaits(&json!(id)));
    // Refusals change nothing.
    assert_eq!(e.feed_alice(&mut p, b"{").unwrap_err().code(), ErrorCode::Json);
    let unknown = json!({"jsonrpc": "2.0", "id": "snodo-x", "result": {"action": "accept"}});
    assert!(
        e.feed_value(&mut p, unknown, &alice()).unwrap_err().message().contains("not a request of this flow")
    );
    assert!(e.feed_value(&mut p, json!({"jsonrpc": "2.0", "id": 3, "result": {}}), &alice()).is_err());
    assert!(e.feed_value(&mut p, json!({"jsonrpc": "2.0", "id": id, "result": 1}), &alice()).is_err());
    assert!(!p.is_ended());
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept", "content": {"c": "red"}}});
    let resumed = match e.feed_value(&mut p, answer.clone(), &alice()).unwrap() {
        Feed::Resume(c) => c,
        other => panic!("{other:?}"),
    };
    assert!(e.feed_value(&mut p, answer, &alice()).unwrap_err().message().contains("after the flow ended"));
    assert_eq!(resumed.round(), 2);
    assert_eq!(resumed.id(), &json!(3));
    assert_eq!(resumed.state(), Some(&json!({"n": 1})));
    assert_eq!(resumed.response("color", &question()), Answer::Accepted(json!({"c": "red"})));
    let r = match e.decide_legacy(&resumed, Outcome::Complete(json!({"content": []}))).unwrap() {
        Bridge::Respond(r) => r,
        other => panic!("{other:?}"),
    };
    assert_eq!(r.body(), &json!({"jsonrpc": "2.0", "id": 3, "result": {"content": []}}));
    assert!(e.decide_legacy(&resumed, Outcome::Complete(json!({}))).is_err());
}

#[test]
fn client_errors_and_timeouts_fail_the_flow() {
    let e = engine(1000);
    let s = session("2025-11-25", json!({"elicitation": {}, "roots": {}}));
    let c = call(&e, &s, CALL);
    let two = vec![("a".into(), question()), ("b".into(), crate::list_roots())];
    let Bridge::Send(mut p) =
        e.decide_legacy(&c, Outcome::InputRequired { requests: two, state: None }).unwrap()
    else {
        panic!()
    };
    let ids: Vec<String> = p.request_ids().into_iter().map(str::to_owned).collect();
    assert_eq!(p.requests()[1], json!({"jsonrpc": "2.0", "id": ids[1], "method": "roots/list"}));
    let err = json!({"jsonrpc": "2.0", "id": ids[1], "error": {"code": -32601, "message": "no"}});
    let Feed::Respond { response, cancellations } = e.feed_value(&mut p, err, &alice()).unwrap() else {
        panic!()
    };
    assert_eq!(response.body()["result"]["isError"], true);
    assert_eq!(cancellations.len(), 1);
    assert_eq!(cancellations[0]["params"]["requestId"], json!(ids[0]));
    assert!(e.timeout(&mut p).is_err());

    let c = call(&e, &s, CALL);
    let mut p = ask(&e, &c);
    let Feed::Respond { cancellations, .. } = e.timeout(&mut p).unwrap() else { panic!() };
    assert_eq!(cancellations.len(), 1);
    // A late answer past the deadline fails the flow too.
    let c = call(&e, &s, CALL);
    let mut p = ask(&e, &c);
    let late = engine(1000 + 300);
    let id = p.request_ids()[0].to_owned();
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"action": "decline"}});
    assert!(matches!(late.feed_value(&mut p, answer, &alice()).unwrap(), Feed::Respond { .. }));
}

#[test]
fn capabilities_versions_and_url_mode() {
    let e = engine(1000);
    let old = session("2025-06-18", json!({"elicitation": {"form": {}, "url": {}}}));
    let c = call(&e, &old, CALL);
    let url = elicit_url("Connect", "https://example.com/connect").unwrap();
    let Bridge::Respond(r) = e
        .decide_legacy(&c, Outcome::InputRequired { requests: vec![("u".into(), url.clone())], state: None })
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(r.body()["error"]["code"], -32021);
    assert_eq!(r.body()["error"]["data"]["requiredCapabilities"], json!({"elicitation": {"url": {}}}));
    let c = call(&e, &old, CALL);
    let p = ask(&e, &c);
    assert!(p.requests()[0]["params"].get("mode").is_none(), "2025-06-18 has no mode");

    let new = session("2025-11-25", json!({"elicitation": {"url": {}}}));
    let c = call(&e, &new, CALL);
    let Bridge::Send(p) = e
        .decide_legacy(&c, Outcome::InputRequired { requests: vec![("u".into(), url)], state: None })
        .unwrap()
    else {
        panic!()
    };
    let (key, eid) = p.elicitation_ids()[0];
    assert_eq!(key, "u");
    assert_eq!(p.requests()[0]["params"]["elicitationId"], eid);
    assert!(new.elicitation_complete(eid).is_ok());

    let odd = session("2024-11-05", json!({}));
    match e.begin_legacy(CALL.as_bytes(), &odd, &alice()).unwrap() {
        Begin::Respond(r) => {
            assert_eq!(r.body()["error"]["code"], -32602);
            assert_eq!(r.body()["error"]["data"]["requested"], "2024-11-05");
        }
        Begin::Call(_) => panic!(),
    }
    assert_eq!(e.legacy_version_for("2025-06-18"), Some("2025-06-18"));
    assert_eq!(e.legacy_version_for("2026-07-28"), Some("2025-11-25"));
}

#[test]
fn rounds_are_capped_and_state_only_rounds_resume() {
    let mut cfg = Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(1000);
    cfg.max_rounds = 2;
    let e = Engine::new(cfg).unwrap();
    let s = session("2025-11-25", json!({}));
    let c = call(&e, &s, CALL);
    let Bridge::Resume(c2) =
        e.decide_legacy(&c, Outcome::InputRequired { requests: vec![], state: Some(json!(1)) }).unwrap()
    else {
        panic!()
    };
    assert_eq!(c2.round(), 2);
    assert_eq!(c2.state(), Some(&json!(1)));
    let Bridge::Respond(r) =
        e.decide_legacy(&c2, Outcome::InputRequired { requests: vec![], state: Some(json!(2)) }).unwrap()
    else {
        panic!()
    };
    assert_eq!(r.body()["result"]["isError"], true);
}

#[test]
fn legacy_input_fields_are_ignored_and_plain_decide_is_safe() {
    let e = engine(1000);
    let s = session("2025-11-25", json!({}));
    let text = r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","inputResponses":{"k":{}},"requestState":"zz"}}"#;
    let c = call(&e, &s, text);
    assert_eq!(c.round(), 1);
    assert!(c.input_responses().is_empty());
    assert!(!c.params().contains_key("requestState"));
    let r = e.decide(&c, Outcome::Complete(json!({"content": []}))).unwrap();
    assert!(r.body()["result"].get("resultType").is_none());
}

/// A raw `input_required` result is read by one rule in `decide` and the
/// bridge (`decide::raw_input_requests`): its own `requestState` or a
/// non-object `inputRequests` is a `-32603` with that diagnostic, in both.
#[test]
fn raw_input_required_is_read_by_one_rule_in_both_eras() {
    let e = engine(1000);
    let s = session("2025-11-25", json!({"elicitation": {}}));
    let modern = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"paint","_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;
    let bad = [
        (json!({"resultType": "input_required", "requestState": "x"}), "requestState"),
        (json!({"resultType": "input_required", "inputRequests": []}), "inputRequests must be an object"),
    ];
    for (raw, why) in bad {
        let legacy = call(&e, &s, CALL);
        let Bridge::Respond(r) = e.decide_legacy(&legacy, Outcome::Raw(raw.clone())).unwrap() else {
            panic!("a malformed raw input_required must end the legacy flow");
        };
        assert_eq!(r.body()["error"]["code"], -32603, "{}", r.to_json());
        assert!(r.diagnostic().is_some_and(|d| d.contains(why)), "{:?}", r.diagnostic());

        let Begin::Call(c) = e.begin(modern.as_bytes(), &Principal::user("alice").unwrap()).unwrap() else {
            panic!("the 2026 request must begin");
        };
        let r = e.decide(&c, Outcome::Raw(raw)).unwrap();
        assert_eq!(r.body()["error"]["code"], -32603, "{}", r.to_json());
        assert!(r.diagnostic().is_some_and(|d| d.contains(why)), "{:?}", r.diagnostic());
    }
}

/// `feed` as alice, the principal every flow here belongs to.
trait FeedAs {
    fn feed_alice(&self, p: &mut PendingFlow, response: &[u8]) -> crate::Result<Feed>;
}

impl FeedAs for Engine {
    fn feed_alice(&self, p: &mut PendingFlow, response: &[u8]) -> crate::Result<Feed> {
        self.feed(p, response, &alice())
    }
}

#[test]
fn request_ids_are_keyed_and_answers_only_from_the_flows_principal() {
    // The same session, request and time under two keys: other ids, so a
    // session holder cannot compute them from what it knows.
    let other =
        Engine::new(Config::new(vec![Key::new("k1", vec![8; 32]).unwrap()]).fixed_time(1000)).unwrap();
    let s = session("2025-11-25", json!({"elicitation": {}}));
    let (e, mut p) = (engine(1000), ask(&engine(1000), &call(&engine(1000), &s, CALL)));
    let q = ask(&other, &call(&other, &s, CALL));
    assert_ne!(p.request_ids(), q.request_ids());
    // Mallory, holding the session id, can neither answer nor call.
    let answer = format!(
        r#"{{"jsonrpc":"2.0","id":"{}","result":{{"action":"accept","content":{{"c":"x"}}}}}}"#,
        p.request_ids()[0]
    );
    let mallory = Principal::user("mallory").unwrap();
    let err = e.feed(&mut p, answer.as_bytes(), &mallory).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Argument);
    assert_eq!(p.outstanding().len(), 1, "nothing recorded");
    match e.begin_legacy(CALL.as_bytes(), &s, &mallory).unwrap() {
        Begin::Respond(r) => {
            assert_eq!((r.http_status(), r.body()["error"]["code"].clone()), (404, json!(-32001)))
        }
        Begin::Call(_) => panic!("another principal's call on the session"),
    }
    assert!(matches!(e.feed_alice(&mut p, answer.as_bytes()).unwrap(), Feed::Resume(_)));
}

#[test]
fn run_as_task_on_a_session_goes_on_in_the_request() {
    // A 2025 session has no tasks: the handler's next run follows at once,
    // reading the state, and its outcome answers the request.
    let e = engine(1_800_000_000);
    let s = session("2025-11-25", json!({"elicitation": {}}));
    let c = call(&e, &s, CALL);
    let next = match e.decide_legacy(&c, Outcome::Task { state: Some(json!({"step": 2})) }).unwrap() {
        Bridge::Resume(next) => next,
        _ => panic!("a task outcome on a session resumes at once"),
    };
    assert_eq!(next.state(), Some(&json!({"step": 2})));
    assert_eq!(next.task_id(), None);
    let Bridge::Respond(r) = e.decide_legacy(&next, Outcome::Complete(json!({"content": []}))).unwrap()
    else {
        panic!("the continuation's result is the response")
    };
    assert_eq!(r.body()["id"], 3);
    assert_eq!(r.body()["result"]["content"], json!([]));
    // A handler that only ever hands itself on is stopped, not looped.
    let mut at = call(&e, &s, CALL);
    for _ in 0..=crate::MAX_TASK_HOPS {
        at = match e.decide_legacy(&at, Outcome::Task { state: Some(json!(1)) }).unwrap() {
            Bridge::Resume(n) => n,
            Bridge::Respond(r) => {
                assert_eq!(r.body()["error"]["code"], -32603);
                return;
            }
            Bridge::Send(_) => panic!("nothing to ask"),
        };
    }
    panic!("the hop bound did not stop the handler");
}
