//! The two rounds of the bindings' begin+decide rows, done by the core
//! alone, so that a binding's round can be set
//! beside the same work in Rust measured in the same window:
//!
//! * round 1: `begin` of the first call, `decide` asking one question with
//!   the 256 B state (parsed from its text, as a binding hands it over),
//!   `Response::to_json`;
//! * round 2: `begin` of the retry, `response` for the question, `decide`
//!   of a completed result, `Response::to_json`.
//!
//! Everything made is dropped inside the loop, as in a server.
//! `cargo run --release -p snodo --example rounds -- 1 200000` (round `1`,
//! `2`). Prints wall time and the CPU time of this thread
//! (`/proc/thread-self/schedstat`, in nanoseconds) per round; on a busy
//! shared machine the CPU time is the steadier of the two.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use snodo::{Answer, Begin, Config, Engine, Key, Outcome, Principal};
use std::hint::black_box;
use std::time::Instant;

const STATE_256: &str = include_str!("../benches/payloads/state-256.json");
const NOW: u64 = 1_800_000_000;

/// CPU nanoseconds this thread has run (Linux), or 0 where unknown.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

fn call_of(engine: &Engine, request: &str, who: &Principal) -> Box<snodo::Call> {
    match engine.begin(request.as_bytes(), who).unwrap() {
        Begin::Call(c) => c,
        Begin::Respond(r) => panic!("begin refused the request: {}", r.to_json()),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let round = args.get(1).map_or("1", String::as_str);
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let engine =
        Engine::new(Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(NOW)).unwrap();
    let who = Principal::user("alice").unwrap();
    let question = snodo::elicit_form(
        "Which seat?",
        &json!({"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]}),
    )
    .unwrap();
    // The request as the Node driver's JSON.stringify spells it.
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"book_flight","arguments":{{"query":"flights to LIS","limit":10}},"_meta":{meta}"#
    );
    let r1 = format!("{head}}}}}");
    let ask = |call: &snodo::Call| {
        let outcome = Outcome::InputRequired {
            requests: vec![("seat".to_owned(), question.clone())],
            state: Some(snodo::parse_json(STATE_256.as_bytes(), "state").unwrap()),
        };
        engine.decide(call, outcome).unwrap()
    };
    let first = ask(&call_of(&engine, &r1, &who));
    let token = first.body()["result"]["requestState"].as_str().unwrap().to_owned();
    let r2 = format!(
        r#"{head},"inputResponses":{{"seat":{{"action":"accept","content":{{"seat":"12A"}}}}}},"requestState":"{token}"}}}}"#
    );
    assert!(matches!(call_of(&engine, &r2, &who).response("seat", &question), Answer::Accepted(_)));
    let done: Value = json!({"content": [{"type": "text", "text": "booked"}]});

    let mut sink = 0usize;
    let (wall, cpu) = (Instant::now(), cpu_ns());
    for _ in 0..n {
        if round == "2" {
            let call = call_of(&engine, black_box(&r2), &who);
            let answer = call.response("seat", &question);
            sink = sink.wrapping_add(answer.kind().len());
            sink = sink
                .wrapping_add(engine.decide(&call, Outcome::Complete(done.clone())).unwrap().to_json().len());
        } else {
            let call = call_of(&engine, black_box(&r1), &who);
            sink = sink.wrapping_add(ask(&call).to_json().len());
        }
    }
    let cpu = cpu_ns().saturating_sub(cpu);
    let wall = wall.elapsed().as_nanos() as f64 / n as f64 / 1e3;
    println!(
        "core round {round}: {wall:.2} µs per round, {:.2} µs CPU ({n}; {sink})",
        cpu as f64 / n as f64 / 1e3
    );
}
