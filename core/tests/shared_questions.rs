//! Issue 16, thirteenth pass: `Outcome::InputRequiredShared` (questions
//! as `Arc<Value>`, the state as canonical text or none) against the same
//! questions owned (`InputRequired` with the state as a tree, and
//! `InputRequiredText`): for random sets of questions (valid and invalid,
//! keys valid and not, repeated, in any order, some the client cannot
//! receive) and states, the same response byte for byte (fixed clock,
//! seeded ids, v1 and v2 tokens), the same tree from `body`, and on a
//! 2025 session (the legacy bridge) the same outcome.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value, json};
use snodo::{Begin, Call, Config, Engine, Key, Outcome, Principal, StateText};

const NOW: u64 = 1_800_000_000;

fn engine(version: u8) -> Engine {
    let mut c = Config::new(vec![Key::new("k1", vec![5; 32]).unwrap()]).fixed_time(NOW);
    c.token_version = version;
    c.set_limit("test_random_seed", 29).unwrap();
    Engine::new(c).unwrap()
}

/// A first call from a client that can answer forms only.
fn call(engine: &Engine) -> Call {
    let text = r#"{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"name":"t","arguments":{"n":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}"#;
    match engine.begin(text.as_bytes(), &Principal::user("alice").unwrap()).unwrap() {
        Begin::Call(c) => *c,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    }
}

/// Questions: forms (valid, one nested deeper than allowed), a URL one
/// (the client above cannot receive it), and invalid ones.
fn questions() -> Vec<Value> {
    let mut deep = json!("leaf");
    for _ in 0..70 {
        deep = json!({"d": deep});
    }
    vec![
        snodo::elicit_form("Seat?", &json!({"type": "object", "properties": {"seat": {"type": "string"}}}))
            .unwrap(),
        snodo::elicit_form("Meal?", &json!({"type": "object", "properties": {"meal": {"type": "string"}}}))
            .unwrap(),
        snodo::elicit_url("Pay here", "https://pay.example.com/checkout").unwrap(),
        json!({"method": "elicitation/create", "params": {"mode": "form", "message": "no schema"}}),
        json!({"method": "nope/nope"}),
        json!({"method": "elicitation/create", "params": {"message": "deep", "requestedSchema": deep}}),
    ]
}

const KEYS: &[&str] = &["seat", "meal", "a", "z", "", "bad key!"];
const STATES: &[Option<&str>] = &[None, Some(r#"{"step":2,"items":[1,2.5,"x"]}"#), Some("null"), Some("[]")];

fn decide(e: &Engine, outcome: Outcome) -> (String, Value) {
    let r = e.decide(&call(e), outcome).unwrap();
    (r.to_json(), r.into_body())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn shared_questions_decide_as_owned_ones(
        picks in prop::collection::vec((0..KEYS.len(), 0usize..6), 0..4),
        state in 0..STATES.len(),
        version in 1u8..3,
    ) {
        let e = engine(version);
        let qs = questions();
        let owned: Vec<(String, Value)> = picks.iter().map(|&(k, q)| (KEYS[k].to_owned(), qs[q].clone())).collect();
        let shared: Vec<(String, Arc<Value>)> =
            owned.iter().map(|(k, q)| (k.clone(), Arc::new(q.clone()))).collect();
        let text = STATES[state].map(|s| StateText::new(s).unwrap());
        let tree = STATES[state].map(|s| serde_json::from_str::<Value>(s).unwrap());
        let reference = decide(&e, Outcome::InputRequired { requests: owned.clone(), state: tree });
        let got = decide(&e, Outcome::InputRequiredShared { requests: shared.clone(), state: text.clone() });
        prop_assert_eq!(&got, &reference);
        if let Some(text) = text {
            let as_text = decide(&e, Outcome::InputRequiredText { requests: owned, state: text });
            prop_assert_eq!(&got, &as_text);
        }
        // The shared trees are the caller's still, unchanged.
        for ((_, q), &(_, i)) in shared.iter().zip(&picks) {
            prop_assert_eq!(q.as_ref(), &qs[i]);
        }
    }
}

#[test]
fn a_shared_question_is_not_copied_into_the_response() {
    let e = engine(1);
    let q = Arc::new(questions().remove(0));
    let outcome = Outcome::InputRequiredShared { requests: vec![("seat".into(), q.clone())], state: None };
    let r = e.decide(&call(&e), outcome).unwrap();
    assert_eq!(Arc::strong_count(&q), 2, "the response holds a count, not a copy");
    assert!(
        r.to_json().contains(r#""inputRequests":{"seat":{"method":"elicitation/create""#),
        "{}",
        r.to_json()
    );
    drop(r);
    assert_eq!(Arc::strong_count(&q), 1);
}

/// A 2025 session's call: the legacy bridge asks the same questions over
/// its own wire, so shared and owned questions must give the same flow
/// (the requests it sends differ only in their random request ids).
#[test]
fn the_legacy_bridge_reads_shared_questions_as_owned_ones() {
    let e = engine(1);
    let q = questions().remove(0);
    let session = snodo::Session::new(
        "2025-06-18",
        json!({"elicitation": {}}),
        None,
        &Principal::user("alice").unwrap(),
    )
    .unwrap();
    let run = |outcome: Outcome| {
        let text = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}}}"#;
        let call =
            match e.begin_legacy(text.as_bytes(), &session, &Principal::user("alice").unwrap()).unwrap() {
                Begin::Call(c) => *c,
                Begin::Respond(r) => panic!("{}", r.to_json()),
            };
        match e.decide_legacy(&call, outcome).unwrap() {
            snodo::Bridge::Send(flow) => {
                let mut sent: Vec<Value> = flow.requests().to_vec();
                for r in &mut sent {
                    r.as_object_mut().unwrap().remove("id");
                }
                (sent, flow.round(), flow.flow_start())
            }
            other => panic!("{other:?}"),
        }
    };
    let owned = run(Outcome::InputRequired {
        requests: vec![("seat".into(), q.clone())],
        state: Some(json!({"n": 1})),
    });
    let shared = run(Outcome::InputRequiredShared {
        requests: vec![("seat".into(), Arc::new(q))],
        state: Some(StateText::new(r#"{"n":1}"#).unwrap()),
    });
    assert_eq!(shared, owned);
    assert_eq!(owned.0.len(), 1, "{owned:?}");
}
