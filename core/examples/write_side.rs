//! A driver for profiling the write side alone:
//! `decide` of prepared calls and outcomes, or `seal` of a prepared input,
//! in a loop, so that callgrind or `perf stat` see only that operation
//! (the criterion `decide` bench also runs its untimed set-up, a `begin`
//! and a question clone, which a profile of it cannot tell apart).
//!
//! `cargo run --release -p snodo --example write_side -- decide 256 20000`
//! (operation `decide`, `decide_wire` or `seal`; state `256` or `4096`;
//! iterations). `decide_wire` also writes each response's text
//! (`to_json`, what every binding sends) inside the timing (seventh
//! pass: `decide` no longer builds the response's tree, so `decide`
//! alone and `decide` + text are both worth comparing).
//! For decide every call and outcome is made first, and every response
//! is kept until the end, so the loop holds `decide` and nothing else; in
//! callgrind read the inclusive cost of `snodo::engine::Engine::decide`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use snodo::{Begin, Config, Engine, Key, Outcome, Principal, SealInput};
use std::hint::black_box;
use std::time::{Duration, Instant};

const STATE_256: &str = include_str!("../benches/payloads/state-256.json");
const STATE_4096: &str = include_str!("../benches/payloads/state-4096.json");
const NOW: u64 = 1_800_000_000;
const ARGS: &str = r#"{"query":"flights to LIS","limit":10}"#;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map_or("decide", String::as_str);
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
    let request = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"book_flight","arguments":{ARGS},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{"form":{{}}}}}}}}}}}}"#
    );
    match op {
        // What one OS randomness call for both ids costs (the brief's
        // question; it is left in place: see ids.rs on why).
        "getrandom" => {
            let mut both = [0u8; 32];
            let start = Instant::now();
            for _ in 0..n {
                getrandom::fill(black_box(&mut both)).unwrap();
            }
            let ns = start.elapsed().as_nanos() / n.max(1) as u128;
            println!("getrandom 32 B x{n}: {ns} ns each");
        }
        "seal" => {
            let questions = vec![("seat".to_owned(), question)];
            let call = match engine.begin(request.as_bytes(), &who).unwrap() {
                Begin::Call(c) => c,
                Begin::Respond(_) => panic!("begin refused the request"),
            };
            let binding = snodo::internal::binding_digest_map("tools/call", call.params()).unwrap();
            let input = SealInput {
                principal: &who,
                binding: &binding,
                round: 1,
                flow_start: NOW,
                questions: &questions,
                state: Some(&state),
            };
            let mut total = 0usize;
            let start = Instant::now();
            for _ in 0..n {
                total += black_box(engine.seal(black_box(&input)).unwrap()).len();
            }
            let ns = start.elapsed().as_nanos() / n.max(1) as u128;
            println!("seal x{n}: {total} bytes, {ns} ns each");
        }
        _ => {
            // In batches, as criterion's `iter_batched` runs them, so that
            // memory stays warm and freed memory is reused.
            const BATCH: usize = 64;
            let wire = op == "decide_wire";
            let (mut len, mut timed) = (0, Duration::ZERO);
            for _ in 0..n.div_ceil(BATCH) {
                let (l, t) = decide_batch(&engine, &who, &request, &question, &state, BATCH, wire);
                (len, timed) = (l, timed + t);
            }
            let ns = timed.as_nanos() / (n.div_ceil(BATCH) * BATCH) as u128;
            println!("{op} x{n}: first response {len} bytes, {ns} ns each");
        }
    }
}

fn decide_batch(
    engine: &Engine,
    who: &Principal,
    request: &str,
    question: &snodo::Question,
    state: &Value,
    n: usize,
    wire: bool,
) -> (usize, Duration) {
    {
        {
            let mut work = Vec::with_capacity(n);
            for _ in 0..n {
                let call = match engine.begin(request.as_bytes(), who).unwrap() {
                    Begin::Call(c) => *c,
                    Begin::Respond(_) => panic!("begin refused the request"),
                };
                let outcome = Outcome::InputRequired {
                    requests: vec![("seat".to_owned(), question.clone())],
                    state: Some(state.clone()),
                };
                work.push((call, Some(outcome)));
            }
            let mut out = Vec::with_capacity(n);
            let mut texts = Vec::with_capacity(n);
            let start = Instant::now();
            for (call, outcome) in &mut work {
                let outcome = outcome.take().unwrap();
                let response = engine.decide(black_box(call), outcome).unwrap();
                if wire {
                    texts.push(black_box(response.to_json()));
                }
                out.push(response);
            }
            let timed = start.elapsed();
            (out.iter().take(1).map(|r| r.to_json().len()).sum(), timed)
        }
    }
}
