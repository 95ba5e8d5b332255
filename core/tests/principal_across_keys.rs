//! A token's principal tag is an HMAC under the key that signs it, made
//! afresh by every seal. A flow must keep its principal across a key
//! rotation (opened under the old key, sealed under the new) and when a
//! call opened by one engine is decided by another whose key has the same
//! id but another secret (a config reload): a key id alone does not name
//! a secret, so nothing made under one key may be reused under another
//! of the same id.
#![allow(clippy::unwrap_used, clippy::panic)]

use serde_json::{Value, json};
use snodo::{Begin, Call, Config, Engine, Key, Outcome, Principal};

const NOW: u64 = 1_800_000_000;

fn engine(keys: &[(&str, u8)]) -> Engine {
    let keys = keys.iter().map(|(id, b)| Key::new(*id, vec![*b; 32]).unwrap()).collect();
    Engine::new(Config::new(keys).fixed_time(NOW)).unwrap()
}

fn request(retry: Option<(&str, &str)>) -> String {
    let mut params = json!({
        "name": "book",
        "arguments": {"city": "Lyon"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
        }
    });
    if let Some((key, token)) = retry {
        params["inputResponses"] = json!({key: {"action": "accept", "content": {"v": "x"}}});
        params["requestState"] = json!(token);
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string()
}

fn begin(engine: &Engine, request: &str, who: &str) -> Call {
    match engine.begin(request.as_bytes(), &Principal::user(who).unwrap()).unwrap() {
        Begin::Call(c) => *c,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    }
}

fn question() -> snodo::Question {
    snodo::Question::from_value(json!({"method": "elicitation/create", "params": {"message": "Value?",
        "requestedSchema": {"type": "object", "properties": {"v": {"type": "string"}}}}}))
    .unwrap()
}

/// Asks `key` on `call` and gives back the token of the response.
fn ask(engine: &Engine, call: &Call, key: &str) -> String {
    let outcome =
        Outcome::InputRequired { requests: vec![(key.into(), question())], state: Some(json!({"n": 1})) };
    let response = engine.decide(call, outcome).unwrap();
    let body: Value = serde_json::from_str(&response.to_json()).unwrap();
    body["result"]["requestState"].as_str().unwrap_or_else(|| panic!("{body}")).to_owned()
}

/// The key id of a `v1.<kid>.<body>` token.
fn kid(token: &str) -> &str {
    token.split('.').nth(1).unwrap()
}

#[test]
fn a_flow_across_a_key_rotation_keeps_its_principal() {
    let old = engine(&[("k0", 1)]);
    let rotated = engine(&[("k1", 2), ("k0", 1)]);
    let t1 = ask(&old, &begin(&old, &request(None), "alice"), "a");
    // Opened under k0, sealed under k1: the tag is made under k1.
    let c2 = begin(&rotated, &request(Some(("a", &t1))), "alice");
    assert_eq!((kid(&t1), c2.round()), ("k0", 2));
    let t2 = ask(&rotated, &c2, "b");
    let c3 = begin(&rotated, &request(Some(("b", &t2))), "alice");
    assert_eq!((kid(&t2), c3.round()), ("k1", 3));
    // Opened and sealed under k1: the tag is reused, and still right.
    let t3 = ask(&rotated, &c3, "c");
    let c4 = begin(&rotated, &request(Some(("c", &t3))), "alice");
    assert_eq!((kid(&t3), c4.round()), ("k1", 4));
    // And still bound to alice: bob is refused the same token.
    let other =
        rotated.begin(request(Some(("c", &t3))).as_bytes(), &Principal::user("bob").unwrap()).unwrap();
    assert!(matches!(other, Begin::Respond(_)), "bob must not continue alice's flow");
}

#[test]
fn a_call_decided_by_an_engine_whose_key_shares_the_id_keeps_its_principal() {
    let a = engine(&[("k1", 7)]);
    let b = engine(&[("k1", 9)]);
    let t1 = ask(&a, &begin(&a, &request(None), "alice"), "a");
    // Opened by a under its k1, decided by b under a different k1.
    let c2 = begin(&a, &request(Some(("a", &t1))), "alice");
    let t2 = ask(&b, &c2, "b");
    let c3 = begin(&b, &request(Some(("b", &t2))), "alice");
    assert_eq!((kid(&t2), c3.round()), ("k1", 3));
}
