//! What the core benches share: the engine, the request texts, the floor,
//! and payloads of a given size for the growth table.
#![allow(dead_code)]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use snodo::{Begin, Call, Config, Engine, Key, Outcome, Principal, Question};

pub const NOW: u64 = 1_800_000_000;

/// How many inputs a batched bench (`decide`, the three-round flow, the
/// state's drop) makes before timing them. criterion's
/// `BatchSize::SmallInput` makes a tenth of a sample at once: thousands of
/// calls and state trees, megabytes, so the timed `decide` would read its
/// outcome from memory no cache still holds. A server builds the outcome
/// right before it decides; sixteen inputs (a few KiB at 256 B, well
/// inside L2 at 16 KiB) keep them as warm as that, and the timer still
/// runs once per sixteen calls. The round sampler uses the same batch.
pub const DECIDE_BATCH: u64 = 16;
/// The arguments of a typical `tools/call` (the same as in the other benches).
pub const ARGS_SMALL: &str = r#"{"query":"flights to LIS","limit":10}"#;

pub fn engine() -> Engine {
    Engine::new(Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(NOW)).unwrap()
}

/// The engine with room for the growth table's largest state: a 16 KiB
/// state makes a token over the default 16 KiB token limit.
pub fn roomy_engine() -> Engine {
    let mut config = Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(NOW);
    config.max_token_bytes = 64 << 10;
    Engine::new(config).unwrap()
}

pub fn who() -> Principal {
    Principal::user("alice").unwrap()
}

pub fn parse(text: &str) -> Value {
    snodo::internal::json::parse(text.as_bytes(), 1 << 20).unwrap()
}

pub fn question(field: &str) -> Question {
    snodo::elicit_form(
        "Which seat?",
        &json!({"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}),
    )
    .unwrap()
}

/// An outcome asking `q` under `key` and carrying `state`.
pub fn ask(q: &Question, key: &str, state: &Value) -> Outcome {
    Outcome::InputRequired { requests: vec![(key.to_owned(), q.clone())], state: Some(state.clone()) }
}

pub fn done() -> Outcome {
    Outcome::Complete(json!({"content": [{"type": "text", "text": "booked"}]}))
}

/// A `tools/call` request text, optionally a retry carrying `retry`
/// (`inputResponses` and `requestState`) in its params.
pub fn request(args: &str, retry: Option<(&str, &str)>) -> String {
    let extra = match retry {
        Some((key, token)) => format!(
            r#","inputResponses":{{"{key}":{{"action":"accept","content":{{"{key}":"12A"}}}}}},"requestState":"{token}""#
        ),
        None => String::new(),
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"book_flight","arguments":{args}{extra},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{"form":{{}}}}}}}}}}}}"#
    )
}

pub fn call_of(engine: &Engine, bytes: &[u8], who: &Principal) -> Call {
    match engine.begin(bytes, who).unwrap() {
        Begin::Call(c) => *c,
        Begin::Respond(r) => panic!("begin refused the bench request: {}", r.to_json()),
    }
}

pub fn token_of(engine: &Engine, call: &Call, outcome: Outcome) -> String {
    let r = engine.decide(call, outcome).expect("first decide");
    match r.body().pointer("/result/requestState") {
        Some(Value::String(t)) => t.clone(),
        _ => panic!("no token in {}", r.to_json()),
    }
}

/// The floor: base64url of the bytes, HMAC-SHA256 over that, base64url of the tag.
pub fn floor(bytes: &[u8]) -> (String, String) {
    let body = URL_SAFE_NO_PAD.encode(bytes);
    let mut m = Hmac::<Sha256>::new_from_slice(&[7; 32]).unwrap();
    m.update(body.as_bytes());
    let tag = URL_SAFE_NO_PAD.encode(m.finalize().into_bytes());
    (body, tag)
}

/// A canonical JSON object of exactly `size` bytes in the shape of the
/// shared payloads (flight items, then a `pad` string that makes up the
/// rest), for the sizes that have no file in `benches/payloads/`.
pub fn payload_of_size(size: usize) -> String {
    let item = |i: usize| {
        format!(
            r#"{{"fare":{}.5,"from":"LHR","ok":{},"seats":{},"sku":"FL-{i:05}","to":"LIS"}}"#,
            129 + i % 300,
            i.is_multiple_of(2),
            i % 9
        )
    };
    let mut items: Vec<String> = Vec::new();
    let text = |items: &[String], pad: usize| {
        format!(r#"{{"flow":"booking","items":[{}],"pad":"{}","step":2}}"#, items.join(","), "x".repeat(pad))
    };
    // Items fill about three quarters; the pad string makes up the rest.
    while text(&items, 0).len() + 80 < size * 3 / 4 {
        items.push(item(items.len()));
    }
    let base = text(&items, 0).len();
    assert!(base <= size, "payload of {size} B: the items alone are {base} B");
    let out = text(&items, size - base);
    assert_eq!(out.len(), size);
    assert_eq!(snodo::canonicalize(&out).unwrap(), out, "the payload is canonical");
    out
}
