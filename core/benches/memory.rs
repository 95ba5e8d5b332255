//! Memory: heap bytes and allocations per `begin` + `decide`,
//! counted by a global allocator that forwards to the system's, for the
//! 256 B and 4 KiB state (round 1 asks and seals, round 2 opens, reads the
//! answer and the state, completes); then the resident set over 100 000
//! two-round flows in a loop, which must stay flat after warm-up (exit
//! status 1 if it grows by more than 1 MiB). Prints a Markdown table.
//! `cargo bench -p snodo --bench memory`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::{ARGS_SMALL, ask, call_of, done, parse, question, request, token_of};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// Counts every allocation (a realloc counts as one, with its new size) and
// leaves the work to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(layout.size() as u64, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(new_size as u64, Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// (allocations, bytes) per call of `f`, over `n` calls.
fn count(n: u64, mut f: impl FnMut()) -> (f64, f64) {
    let (a0, b0) = (ALLOCS.load(Relaxed), BYTES.load(Relaxed));
    for _ in 0..n {
        f();
    }
    let (a1, b1) = (ALLOCS.load(Relaxed), BYTES.load(Relaxed));
    ((a1 - a0) as f64 / n as f64, (b1 - b0) as f64 / n as f64)
}

/// The resident set size in KiB (Linux), `VmRSS` or `VmHWM`.
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| {
            l.strip_prefix(field)?.trim_start_matches(':').trim().strip_suffix("kB")?.trim().parse().ok()
        })
        .unwrap_or(0)
}

fn main() {
    // criterion's harness flags (--bench, filters) are ignored.
    let engine = common::engine();
    let who = common::who();
    let q = question("seat");
    let r1 = request(ARGS_SMALL, None);
    println!("| state | step | allocations | bytes allocated |");
    println!("|---|---|---|---|");
    for (name, text) in [
        ("256 B", include_str!("payloads/state-256.json")),
        ("4 KiB", include_str!("payloads/state-4096.json")),
    ] {
        let state = parse(text);
        let call1 = call_of(&engine, r1.as_bytes(), &who);
        let token = token_of(&engine, &call1, ask(&q, "seat", &state));
        let r2 = request(ARGS_SMALL, Some(("seat", &token)));
        // The outcomes are the handler's, made before counting.
        let mut outcomes: Vec<_> = (0..1000).map(|_| ask(&q, "seat", &state)).collect();
        let (a, b) = count(1000, || {
            let call = call_of(&engine, r1.as_bytes(), &who);
            let o = outcomes.pop().unwrap();
            drop(engine.decide(&call, o).unwrap());
        });
        println!("| {name} | round 1: begin + decide (ask, seal) | {a:.0} | {b:.0} |");
        let mut outcomes: Vec<_> = (0..1000).map(|_| done()).collect();
        let (a, b) = count(1000, || {
            let call = call_of(&engine, r2.as_bytes(), &who);
            assert!(matches!(call.response("seat", &q), snodo::Answer::Accepted(_)));
            assert!(call.state().is_some());
            let o = outcomes.pop().unwrap();
            drop(engine.decide(&call, o).unwrap());
        });
        println!("| {name} | round 2: begin (open) + answer + state + decide (complete) | {a:.0} | {b:.0} |");
    }

    // 100 000 two-round flows with the 4 KiB state; each round 2 carries
    // the token its own round 1 sealed.
    let state = parse(include_str!("payloads/state-4096.json"));
    let flow = || {
        let call = call_of(&engine, r1.as_bytes(), &who);
        let token = token_of(&engine, &call, ask(&q, "seat", &state));
        let r2 = request(ARGS_SMALL, Some(("seat", &token)));
        let call = call_of(&engine, r2.as_bytes(), &who);
        assert!(call.state().is_some());
        drop(engine.decide(&call, done()).unwrap());
    };
    println!();
    println!("| flows done | VmRSS | VmHWM (peak) |");
    println!("|---|---|---|");
    let mut after_warmup = 0;
    for i in 1..=100_000u32 {
        flow();
        if i == 10_000 || i % 25_000 == 0 {
            let (rss, hwm) = (status_kib("VmRSS"), status_kib("VmHWM"));
            println!("| {i} | {rss} KiB | {hwm} KiB |");
            if i == 10_000 {
                after_warmup = hwm;
            }
        }
    }
    let grown = status_kib("VmHWM").saturating_sub(after_warmup);
    println!();
    println!("peak RSS growth after the first 10 000 flows: {grown} KiB");
    if grown > 1024 {
        eprintln!("memory: peak RSS grew by {grown} KiB after warm-up");
        std::process::exit(1);
    }
}
