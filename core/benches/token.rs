//! Seal and open beside the floor: a bare HMAC-SHA256 + base64url of the same
//! bytes. Run with `make bench`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use snodo::{Config, Engine, Key, Principal, SealInput, binding_digest};
use std::hint::black_box;

fn state_of(bytes: usize) -> Value {
    // A realistic state: an object of short strings, about `bytes` long.
    let n = bytes / 32;
    Value::Object((0..n).map(|i| (format!("field_{i:04}"), json!(format!("value-{i:012}")))).collect())
}

fn bench(c: &mut Criterion) {
    let engine =
        Engine::new(Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).with_fixed_time(1_800_000_000))
            .unwrap();
    let principal = Principal::User("alice".into());
    let binding = binding_digest("tools/call", &json!({"name": "t", "arguments": {"a": 1}}));
    let question = json!({"method": "elicitation/create", "params": {"mode": "form", "message": "m",
        "requestedSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}});
    let questions = vec![("x".to_string(), question)];
    let mut group = c.benchmark_group("token");
    for size in [256usize, 4096] {
        let state = state_of(size);
        let input = SealInput {
            principal: &principal,
            binding: &binding,
            round: 1,
            flow_start: 1_800_000_000,
            questions: &questions,
            state: Some(&state),
        };
        let token = engine.seal(&input).unwrap();
        let raw = snodo::json::canonical(&state);
        group.bench_with_input(BenchmarkId::new("seal", size), &size, |b, _| {
            b.iter(|| engine.seal(black_box(&input)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("open", size), &size, |b, _| {
            b.iter(|| engine.open(black_box(&token), &principal, &binding).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("floor_hmac_b64", size), &size, |b, _| {
            b.iter(|| {
                let body = URL_SAFE_NO_PAD.encode(black_box(&raw));
                let mut m = Hmac::<Sha256>::new_from_slice(&[7; 32]).unwrap();
                m.update(body.as_bytes());
                let tag = URL_SAFE_NO_PAD.encode(m.finalize().into_bytes());
                black_box((body, tag))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
