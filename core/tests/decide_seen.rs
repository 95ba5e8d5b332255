//! Issue 16: `decide` skips validating a question this thread has seen
//! pass (by the digest of its canonical form). The answer must be exactly
//! the one validation gives: a question decided again gives the same
//! response, and any other question, however close, is validated.
#![allow(clippy::unwrap_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::{Value, json};
use snodo::{Begin, Call, Config, Engine, Key, Outcome, Principal};

const REQUEST: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}"#;

fn engine() -> Engine {
    let mut config = Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(1_800_000_000);
    config.test_random_seed = 5;
    Engine::new(config).unwrap()
}

fn call(engine: &Engine) -> Call {
    match engine.begin(REQUEST.as_bytes(), &Principal::user("alice").unwrap()).unwrap() {
        Begin::Call(c) => *c,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    }
}

fn ask(engine: &Engine, question: &Value) -> snodo::Response {
    let outcome = Outcome::InputRequired { requests: vec![("q".into(), question.clone())], state: None };
    engine.decide(&call(engine), outcome).unwrap()
}

fn form(schema: Value) -> Value {
    json!({"method": "elicitation/create", "params": {"message": "Seat?", "requestedSchema": schema}})
}

#[test]
fn a_question_decided_again_gives_the_same_response() {
    let engine = engine();
    let q = form(json!({"type": "object", "properties": {"seat": {"type": "string"}}}));
    let first = ask(&engine, &q);
    assert!(!first.is_error(), "{}", first.to_json());
    // Seeded ids and a fixed clock: the same token, the second time from
    // the remembered pass.
    assert_eq!(ask(&engine, &q), first);
    // A near miss is validated, not taken for the remembered one.
    let bad = form(json!({"type": "object", "properties": {"seat": {"type": "strin"}}}));
    let refused = ask(&engine, &bad);
    assert!(refused.is_error());
    assert!(refused.diagnostic().unwrap().contains("strin"), "{:?}", refused.diagnostic());
}

fn property() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "strin"})),
        Just(json!({"type": "integer", "minimum": 1, "maximum": 0})),
        Just(json!({"type": "integer", "minimum": 0, "maximum": 1})),
        Just(json!({"type": "boolean", "default": true})),
        Just(json!({"type": "boolean", "default": 1})),
        Just(json!({"type": "string", "enum": ["a", "b"]})),
        Just(json!({"type": "string", "enum": ["a", "a"]})),
        Just(json!({"type": "string", "pattern": "x"})),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random schemas, each decided twice on one thread (the second time
    /// possibly from the remembered pass): refused exactly when
    /// validation refuses, both times.
    #[test]
    fn decide_refuses_exactly_what_validation_refuses(props in prop::collection::vec(("[ab]", property()), 0..3)) {
        let engine = engine();
        let properties: serde_json::Map<String, Value> = props.into_iter().collect();
        let q = form(json!({"type": "object", "properties": properties}));
        let valid = snodo::internal::validate_input_request(&q).is_ok();
        for _ in 0..2 {
            prop_assert_eq!(!ask(&engine, &q).is_error(), valid);
        }
    }
}

#[test]
fn a_valid_question_nested_past_the_bound_is_still_refused_by_seal() {
    // `_meta` may hold anything, so this question passes validation; it
    // gets no digest and seal refuses its depth, every time.
    let engine = engine();
    let mut deep = json!(1);
    for _ in 0..70 {
        deep = json!([deep]);
    }
    let mut q = form(json!({"type": "object", "properties": {"seat": {"type": "string"}}}));
    q["params"]["_meta"] = json!({ "x": deep });
    assert!(snodo::internal::validate_input_request(&q).is_ok());
    for _ in 0..2 {
        let r = ask(&engine, &q);
        assert!(r.is_error());
        assert!(r.diagnostic().unwrap().contains("nest at most"), "{:?}", r.diagnostic());
    }
}
