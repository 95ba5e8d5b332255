//! At most once: the cost of one final round through `run_once` (a claim
//! and a completion) and of one `check_once` of a completed flow, on the
//! in-memory store and, when `SNODO_REDIS_URL` is set (and the crate is
//! built with `--features redis`), on that Redis.
//! `cargo bench -p snodo --features redis --bench once` (start a loopback
//! Redis first: `source scripts/redis.sh; redis_start`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use snodo::{Begin, Call, Config, Engine, Key, MemoryStore, OnceOptions, OnceStore, Outcome, Principal};
use std::hint::black_box;
use std::time::{Duration, Instant};

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;

fn begin(engine: &Engine, v: &Value) -> Call {
    match engine.begin(v.to_string().as_bytes(), &Principal::user("alice").unwrap()).unwrap() {
        Begin::Call(c) => *c,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    }
}

/// `n` final rounds of `n` different flows.
fn final_rounds(engine: &Engine, n: usize) -> Vec<Call> {
    let meta: Value = serde_json::from_str(META).unwrap();
    let q =
        snodo::elicit_form("n?", &json!({"type":"object","properties":{"n":{"type":"integer"}}})).unwrap();
    (0..n)
        .map(|_| {
            let first = begin(
                engine,
                &json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b","_meta":meta}}),
            );
            let out = Outcome::InputRequired { requests: vec![("q".into(), q.clone())], state: None };
            let r = engine.decide(&first, out).unwrap();
            let token = r.body().pointer("/result/requestState").unwrap().clone();
            begin(
                engine,
                &json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","_meta":meta,
                "requestState": token, "inputResponses": {"q": {"action":"accept","content":{"n":1}}}}}),
            )
        })
        .collect()
}

const FLOWS: usize = 2_000;

/// `iters` final rounds through `run_once`, a fresh store every `FLOWS`.
fn time_runs<S: OnceStore>(calls: &[Call], iters: u64, mut store: impl FnMut() -> S) -> Duration {
    let mut total = Duration::ZERO;
    let mut s = store();
    for i in 0..iters as usize {
        if i % FLOWS == 0 && i > 0 {
            s = store();
        }
        let call = &calls[i % FLOWS];
        let started = Instant::now();
        black_box(snodo::run_once(&s, call, &OnceOptions::default(), |_| "{}".to_owned()).unwrap());
        total += started.elapsed();
    }
    total
}

fn bench(c: &mut Criterion) {
    let engine = Engine::new(Config::new(vec![Key::new("bench", vec![3u8; 32]).unwrap()])).unwrap();
    let calls = final_rounds(&engine, FLOWS);
    let mut g = c.benchmark_group("once");
    g.bench_function("memory_run_once", |b| {
        b.iter_custom(|iters| time_runs(&calls, iters, MemoryStore::new))
    });
    let store = MemoryStore::new();
    snodo::run_once(&store, &calls[0], &OnceOptions::default(), |_| "{}".to_owned()).unwrap();
    g.bench_function("memory_check_done", |b| {
        b.iter(|| black_box(snodo::check_once(&store, &calls[0]).unwrap()))
    });
    #[cfg(feature = "redis")]
    if let Ok(url) = std::env::var("SNODO_REDIS_URL") {
        let mut lap = 0u64;
        g.bench_function("redis_run_once", |b| {
            b.iter_custom(|iters| {
                time_runs(&calls, iters, || {
                    lap += 1;
                    let prefix = format!("snodo:bench:{}:{lap}:", std::process::id());
                    snodo::RedisStore::new(&url).unwrap().with_prefix(&prefix).unwrap()
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
