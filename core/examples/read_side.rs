//! A driver for profiling the read side alone:
//! `begin` of a retry request in a loop, so that callgrind or `perf` see
//! only that operation.
//!
//! `cargo run --release -p snodo --example read_side -- begin 256 20000`
//! (operation `begin`, or `drop` for `begin` with each `Call` dropped
//! inside the loop as criterion's `core/begin` does, or `round2` for a
//! whole second round as a server runs it: `begin`, read the answer,
//! `decide` complete; state `256` or `4096`; iterations). With `begin` every `Call` is kept until the end,
//! so in callgrind the inclusive cost of `snodo::engine::Engine::begin`
//! is `begin` alone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use snodo::{Begin, Config, Engine, Key, Outcome, Principal};
use std::hint::black_box;
use std::time::Instant;

const STATE_256: &str = include_str!("../benches/payloads/state-256.json");
const STATE_4096: &str = include_str!("../benches/payloads/state-4096.json");
const NOW: u64 = 1_800_000_000;
const ARGS: &str = r#"{"query":"flights to LIS","limit":10}"#;

/// The request the criterion bench sends (benches/common `request`).
fn request(retry: Option<(&str, &str)>) -> String {
    let extra = match retry {
        Some((key, token)) => format!(
            r#","inputResponses":{{"{key}":{{"action":"accept","content":{{"{key}":"12A"}}}}}},"requestState":"{token}""#
        ),
        None => String::new(),
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"book_flight","arguments":{ARGS}{extra},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{"form":{{}}}}}}}}}}}}"#
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map_or("begin", String::as_str);
    let state_text = match args.get(2).map_or("256", String::as_str) {
        "4096" => STATE_4096,
        _ => STATE_256,
    };
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let engine =
        Engine::new(Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(NOW)).unwrap();
    let who = Principal::user("alice").unwrap();
    let state: Value = serde_json::from_str(state_text).unwrap();
    let question = snodo::elicit_form(
        "Which seat?",
        &json!({"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]}),
    )
    .unwrap();
    let r1 = request(None);
    let call1 = match engine.begin(r1.as_bytes(), &who).unwrap() {
        Begin::Call(c) => c,
        Begin::Respond(_) => panic!("begin refused the first request"),
    };
    let outcome =
        Outcome::InputRequired { requests: vec![("seat".to_owned(), question.clone())], state: Some(state) };
    let response = engine.decide(&call1, outcome).unwrap();
    let token = match response.body().pointer("/result/requestState") {
        Some(Value::String(t)) => t.clone(),
        _ => panic!("no token"),
    };
    let r2 = request(Some(("seat", &token)));
    match op {
        "round2" => {
            let done = json!({"content": [{"type": "text", "text": "booked"}]});
            let mut len = 0;
            let start = Instant::now();
            for _ in 0..n {
                let Begin::Call(call) = engine.begin(black_box(r2.as_bytes()), &who).unwrap() else {
                    panic!("begin refused the retry")
                };
                assert!(matches!(call.response("seat", &question), snodo::Answer::Accepted(_)));
                len += engine.decide(&call, Outcome::Complete(done.clone())).unwrap().to_json().len();
            }
            let ns = start.elapsed().as_nanos() / n.max(1) as u128;
            println!("round 2 x{n}: {len} response bytes, {ns} ns each");
        }
        "drop" => {
            let start = Instant::now();
            for _ in 0..n {
                match engine.begin(black_box(r2.as_bytes()), &who).unwrap() {
                    Begin::Call(c) => assert!(c.is_retry()),
                    Begin::Respond(_) => panic!("begin refused the retry"),
                }
            }
            let ns = start.elapsed().as_nanos() / n.max(1) as u128;
            println!("begin+drop x{n}: {} request bytes, {ns} ns each", r2.len());
        }
        _ => {
            let mut kept = Vec::with_capacity(n);
            let start = Instant::now();
            for _ in 0..n {
                kept.push(engine.begin(black_box(r2.as_bytes()), &who).unwrap());
            }
            let ns = start.elapsed().as_nanos() / n.max(1) as u128;
            assert!(kept.iter().all(|b| matches!(b, Begin::Call(c) if c.is_retry())));
            println!("begin x{n}: {} request bytes, {ns} ns each", r2.len());
        }
    }
}
