//! Tasks: the cost of one task's whole life through the task machine (the
//! `tools/call` that creates it, the run that parks it on a question, a
//! `tasks/get` of it waiting, the `tasks/update` that answers, the run that
//! completes it, a `tasks/get` of it completed): six store commands, on the
//! in-memory store and, when `SNODO_REDIS_URL` is set (and the crate is
//! built with `--features redis`), on that Redis.
//! `cargo bench -p snodo --features redis --bench tasks` (start a loopback
//! Redis first: `source scripts/redis.sh; redis_start`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use snodo::{
    Answer, Begin, Call, Config, Engine, Key, MemoryTaskStore, Outcome, Principal, Question, TaskStore,
};
use std::hint::black_box;

fn begin(engine: &Engine, method: &str, params: Value) -> Box<Call> {
    let mut params = params;
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}});
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    match engine.begin(request.to_string().as_bytes(), &Principal::user("alice").unwrap()).unwrap() {
        Begin::Call(c) => c,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    }
}

/// The report of `docs/tasks.md`: hands on, asks the format, completes.
fn report(call: &Call, format: &Question) -> Outcome {
    let Some(state) = call.state() else { return Outcome::Task { state: Some(json!({"rows": 1250})) } };
    match call.response("format", format) {
        Answer::Accepted(v) => Outcome::Complete(json!({"content": [{"type": "text", "text": v["format"]}]})),
        _ => Outcome::InputRequired {
            requests: vec![("format".into(), format.clone())],
            state: Some(state.clone()),
        },
    }
}

/// One step on `store`, and the runs it hands back, to their end.
fn step(
    engine: &Engine,
    store: &dyn TaskStore,
    call: &Call,
    outcome: Option<Outcome>,
    q: &Question,
) -> Value {
    let done = engine.run_task_step(store, call, outcome).unwrap();
    let mut leg = done.leg;
    while let Some(run) = leg {
        leg = engine.run_task_step(store, &run, Some(report(&run, q))).unwrap().leg;
    }
    done.response.map_or(Value::Null, |r| r.into_body())
}

fn life(engine: &Engine, store: &dyn TaskStore, q: &Question) {
    let call = begin(engine, "tools/call", json!({"name": "report"}));
    let created = step(engine, store, &call, Some(report(&call, q)), q);
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let waiting = step(engine, store, &begin(engine, "tasks/get", json!({"taskId": id})), None, q);
    assert_eq!(waiting["result"]["status"], "input_required");
    let answer = json!({"format@1": {"action": "accept", "content": {"format": "table"}}});
    step(
        engine,
        store,
        &begin(engine, "tasks/update", json!({"taskId": id, "inputResponses": answer})),
        None,
        q,
    );
    let done = step(engine, store, &begin(engine, "tasks/get", json!({"taskId": id})), None, q);
    assert_eq!(black_box(done)["result"]["status"], "completed");
}

fn bench(c: &mut Criterion) {
    let engine = Engine::new(Config::new(vec![Key::new("bench", vec![3u8; 32]).unwrap()])).unwrap();
    let q = snodo::elicit_form(
        "Which format?",
        &json!({"type":"object","properties":{"format":{"type":"string","enum":["table","chart"]}}}),
    )
    .unwrap();
    let mut g = c.benchmark_group("tasks");
    // A fresh store now and then: the memory store keeps a finished task for its TTL.
    let mut store = MemoryTaskStore::new(1_000_000);
    let mut n = 0u32;
    g.bench_function("memory_task_life", |b| {
        b.iter(|| {
            n += 1;
            if n.is_multiple_of(50_000) {
                store = MemoryTaskStore::new(1_000_000);
            }
            life(&engine, &store, &q);
        })
    });
    #[cfg(feature = "redis")]
    if let Ok(url) = std::env::var("SNODO_REDIS_URL") {
        let redis = snodo::RedisStore::new(&url).unwrap();
        g.bench_function("redis_task_life", |b| b.iter(|| life(&engine, &redis, &q)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
