//! At most once (issue 17): the cost of one consume-once and one claim on
//! the in-memory store, and, when `SNODO_REDIS_URL` is set (and the crate
//! is built with `--features redis`), one consume-once round trip to that
//! Redis. `cargo bench -p snodo --features redis --bench once` (start a
//! loopback Redis first: `source scripts/redis.sh; redis_start`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use snodo::{MemoryStore, OnceStore};
use std::hint::black_box;
use std::time::Duration;

const NOW: u64 = 1_800_000_000;

/// Distinct, realistic ids (22 base64url-like characters, as a 128-bit id).
fn id(n: u64) -> String {
    format!("{n:0>22x}")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("once");
    // Memory: a first use each time (the common case), over a ring of
    // RING ids whose clock moves on a second per lap, so every id has
    // expired when it comes round again and the store stays bounded.
    const RING: u64 = 200_000;
    let store = MemoryStore::with_limits(RING as usize + 1, Duration::from_secs(30)).unwrap();
    let mut n = 0u64;
    g.bench_function("memory_consume", |b| {
        b.iter(|| {
            n += 1;
            let now = NOW + 2 * (n / RING);
            assert!(store.consume(&id(n % RING), now + 1, now).unwrap());
        })
    });
    let store = MemoryStore::with_limits(usize::MAX, Duration::from_secs(30)).unwrap();
    g.bench_function("memory_consume_seen", |b| {
        store.consume("seen-id", NOW + 300, NOW).unwrap();
        b.iter(|| black_box(store.consume("seen-id", NOW + 300, NOW).unwrap()))
    });
    #[cfg(feature = "redis")]
    if let Ok(url) = std::env::var("SNODO_REDIS_URL") {
        let store = snodo::RedisStore::new(&url).unwrap().with_prefix("snodo:bench:").unwrap();
        let mut n = 0u64;
        g.bench_function("redis_consume", |b| {
            b.iter(|| {
                n += 1;
                black_box(store.consume(&id(n), NOW + 60, NOW).unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
