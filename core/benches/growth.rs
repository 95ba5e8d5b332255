//! Cost against size (the growth table): for application state of
//! 256 B, 1 KiB, 4 KiB and 16 KiB, `begin` of the retry (which opens the
//! token) and `decide` (ask one question, seal the state); for `arguments` of 1, 8,
//! 32 and 256 KiB, `begin` of the retry (256 B state). Each beside the floor
//! (HMAC-SHA256 + base64url) over the same bytes, so the slopes compare.
//! The 256 B / 4 KiB state and 32 KiB arguments are the shared payload
//! files; the other sizes are made by `common::payload_of_size` in the same
//! shape. `cargo bench -p snodo --bench growth`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::{ARGS_SMALL, ask, call_of, floor, parse, question, request, token_of};
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const STATE_SIZES: [usize; 4] = [256, 1024, 4096, 16384];
const ARGS_SIZES: [usize; 4] = [1024, 8192, 32768, 262_144];

fn payload(size: usize, args: bool) -> String {
    match (size, args) {
        (256, false) => include_str!("payloads/state-256.json").to_owned(),
        (4096, false) => include_str!("payloads/state-4096.json").to_owned(),
        (32768, true) => include_str!("payloads/args-32768.json").to_owned(),
        _ => common::payload_of_size(size),
    }
}

fn bench(c: &mut Criterion) {
    let engine = common::roomy_engine();
    let who = common::who();
    let q = question("seat");
    let mut group = c.benchmark_group("growth");
    let small_state = parse(&payload(256, false));
    for size in STATE_SIZES {
        let text = payload(size, false);
        let state = parse(&text);
        let r1 = request(ARGS_SMALL, None);
        let call1 = call_of(&engine, r1.as_bytes(), &who);
        let token = token_of(&engine, &call1, ask(&q, "seat", &state));
        let r2 = request(ARGS_SMALL, Some(("seat", &token)));
        let id = |op: &str| BenchmarkId::new(op, format!("state_{size}"));
        group.bench_function(id("floor"), |b| b.iter(|| floor(black_box(text.as_bytes()))));
        group.bench_function(id("begin"), |b| {
            b.iter(|| engine.begin(black_box(r2.as_bytes()), &who).unwrap())
        });
        group.bench_function(id("decide"), |b| {
            b.iter_batched(
                || (call_of(&engine, r1.as_bytes(), &who), ask(&q, "seat", &state)),
                |(call, o)| {
                    // The call goes back out, so its drop is not timed.
                    let r = engine.decide(black_box(&call), o).unwrap();
                    (call, r)
                },
                BatchSize::NumIterations(common::DECIDE_BATCH),
            )
        });
    }
    for size in ARGS_SIZES {
        let text = payload(size, true);
        let r1 = request(&text, None);
        let call1 = call_of(&engine, r1.as_bytes(), &who);
        let token = token_of(&engine, &call1, ask(&q, "seat", &small_state));
        let r2 = request(&text, Some(("seat", &token)));
        let id = |op: &str| BenchmarkId::new(op, format!("args_{size}"));
        group.bench_function(id("floor"), |b| b.iter(|| floor(black_box(text.as_bytes()))));
        group.bench_function(id("begin"), |b| {
            b.iter(|| engine.begin(black_box(r2.as_bytes()), &who).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
