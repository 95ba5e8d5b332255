//! The core's begin+decide, sampled on demand beside a binding bench. The
//! per-round rows of `make bench` divide a binding's
//! round by the core's begin+decide; taken from criterion at the start of
//! the run, that denominator is minutes older than the binding's numbers,
//! and this shared machine's speed drifts between the two. This program
//! lets each binding bench time the core right next to its own samples.
//!
//! It does exactly what criterion's `core/begin/state_256` and
//! `core/decide/state_256` (benches/token.rs) time, from the same helpers
//! (benches/common): the same engine, payload, requests and question;
//! `begin` is a retry begin of round 2's request, its result dropped inside
//! the timing (as `Bencher::iter` does); `decide` decides a fresh first
//! call that asks one question with the 256 B state, the call and outcome
//! made before the timing and the call and response dropped after it, in
//! batches (as `iter_batched` does).
//!
//! The batch is criterion's: `common::DECIDE_BATCH` (16) inputs made,
//! then timed (larger batches leave the inputs cold, and `decide` reads
//! slower the bigger the batch). The first argument sets another batch.
//!
//! Usage: `round_sampler [BATCH]`. Protocol, one line each way: it prints `{"ready":true}` once set up;
//! then for each `sample <ms>` on stdin it runs begin, decide and the warm
//! rounds (below) for about `<ms>` milliseconds in all (alternating, a
//! third each) and prints `{"begin_ns":…,"decide_ns":…,"ns":…,
//! "rounds_ns":…,"begin_iters":…,"decide_iters":…,"rounds_iters":…}`, the
//! mean time per operation of the timed parts (`ns` is begin + decide).
//!
//! `rounds_ns` is for comparison only: the mean of the bindings' own two
//! rounds done by the core alone, warm and one call at a time (a first
//! begin, decide asking with the state, the response text; a retry
//! begin, the answer read, a completed decide, its text). It is the same
//! work a binding's round does, without the batch effect above, so it is
//! the stricter denominator; the table prints the ratio to it beside the
//! ratio to begin+decide.
//! `sample <ms> <batch>` uses another batch size for that sample. `quit` or the
//! end of stdin ends it; any other line gets `{"error":"…"}`.
//!
//! Built by scripts/bench.sh with `cargo build --release --example
//! round_sampler`: this workspace sets no `[profile.bench]` or
//! `[profile.release]`, so `bench` inherits `release` unchanged and this
//! is the same code generation as the criterion bench.
//! By hand: `printf 'sample 200\n' | cargo run --release -p snodo --example round_sampler`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../benches/common/mod.rs"]
mod common;

use common::{ARGS_SMALL, call_of, parse, question, request, token_of};
use serde_json::{Value, json};
use snodo::{Answer, Engine, Outcome, Principal, Question};
use std::hint::black_box;
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

const STATE_256: &str = include_str!("../benches/payloads/state-256.json");

/// Everything the two timed operations need, made once.
struct Bench {
    engine: Engine,
    who: Principal,
    q1: Question,
    state: Value,
    r1: String,
    r2: String,
    done: Value,
}

impl Bench {
    fn new() -> Bench {
        let engine = common::engine();
        let who = common::who();
        let q1 = question("seat");
        let state = parse(STATE_256);
        let r1 = request(ARGS_SMALL, None);
        let call1 = call_of(&engine, r1.as_bytes(), &who);
        let t1 = token_of(&engine, &call1, Self::ask_of(&q1, &state));
        let r2 = request(ARGS_SMALL, Some(("seat", &t1)));
        // The retry must be a call (an opened token), as in the criterion bench.
        call_of(&engine, r2.as_bytes(), &who);
        let done = json!({"content": [{"type": "text", "text": "booked"}]});
        Bench { engine, who, q1, state, r1, r2, done }
    }

    /// token.rs's `ask(&q1, "seat")` for the 256 B case.
    fn ask_of(q: &Question, state: &Value) -> Outcome {
        Outcome::InputRequired { requests: vec![("seat".to_owned(), q.clone())], state: Some(state.clone()) }
    }

    /// `n` retry begins in one timed loop, each result dropped inside it.
    fn begin_loop(&self, n: u64) -> Duration {
        let start = Instant::now();
        for _ in 0..n {
            black_box(self.engine.begin(black_box(self.r2.as_bytes()), &self.who).unwrap());
        }
        start.elapsed()
    }

    /// One batch of `n` decides: inputs made first, outputs kept until
    /// after the timing, as criterion's `iter_batched` does.
    fn decide_batch(&self, n: u64) -> Duration {
        let inputs = black_box(
            (0..n)
                .map(|_| {
                    (
                        call_of(&self.engine, self.r1.as_bytes(), &self.who),
                        Self::ask_of(&self.q1, &self.state),
                    )
                })
                .collect::<Vec<_>>(),
        );
        let mut outputs = Vec::with_capacity(n as usize);
        let start = Instant::now();
        outputs.extend(inputs.into_iter().map(|(call, o)| {
            let r = self.engine.decide(black_box(&call), o).unwrap();
            (call, r)
        }));
        let timed = start.elapsed();
        black_box(outputs);
        timed
    }

    /// `n` pairs of the bindings' two rounds, done by the core alone and
    /// warm, one call at a time, everything dropped inside the loop (as a
    /// server, and the bindings' round rows, do): round 1 is a first
    /// `begin`, `decide` asking one question with the 256 B state as
    /// canonical text (as the Python and Node bindings hand it over) and
    /// the response text; round 2 a retry `begin`, the answer read, a
    /// completed `decide` and its text. For comparison only (the table
    /// prints the ratio to it beside the ratio to begin+decide). Returns
    /// the time of the `2n` rounds.
    fn rounds_loop(&self, n: u64) -> Duration {
        let start = Instant::now();
        for _ in 0..n {
            let c1 = call_of(&self.engine, black_box(self.r1.as_bytes()), &self.who);
            let outcome = Outcome::InputRequired {
                requests: vec![("seat".to_owned(), self.q1.clone())],
                state: Some(snodo::parse_json(STATE_256.as_bytes(), "state").unwrap()),
            };
            black_box(self.engine.decide(&c1, outcome).unwrap().to_json());
            let c2 = call_of(&self.engine, black_box(self.r2.as_bytes()), &self.who);
            assert!(matches!(c2.response("seat", &self.q1), Answer::Accepted(_)));
            black_box(self.engine.decide(&c2, Outcome::Complete(self.done.clone())).unwrap().to_json());
        }
        start.elapsed()
    }
}

/// Time and count of one operation over a sample.
#[derive(Default)]
struct Tally {
    timed: Duration,
    iters: u64,
}

impl Tally {
    fn ns(&self) -> f64 {
        self.timed.as_nanos() as f64 / self.iters.max(1) as f64
    }
}

/// The estimate (ns) of one begin that sizes its timed loops; refreshed by
/// each sample.
struct Pace {
    begin_ns: f64,
}

/// Runs begin, decide and the warm rounds for about `ms` in all: two
/// passes of begin, then decide, then rounds, each a sixth of the time, so
/// drift within the sample hits all three alike.
fn sample(b: &Bench, pace: &mut Pace, ms: u64, batch: u64) -> (Tally, Tally, Tally) {
    let sixth = Duration::from_micros(ms * 1000 / 6);
    // Untimed, about a millisecond of each first: the sampler sat idle
    // while the binding ran, and criterion times a warm loop.
    b.begin_loop(((1e6 / pace.begin_ns) as u64).max(1));
    b.decide_batch(batch.min(64));
    b.rounds_loop(16);
    let (mut begin, mut decide, mut rounds) = (Tally::default(), Tally::default(), Tally::default());
    for _ in 0..2 {
        // begin: timed loops of about 1 ms until the sixth is spent.
        let chunk = ((1e6 / pace.begin_ns) as u64).max(1);
        let wall = Instant::now();
        while wall.elapsed() < sixth {
            begin.timed += b.begin_loop(chunk);
            begin.iters += chunk;
        }
        // decide: whole batches until the sixth is spent.
        let wall = Instant::now();
        while wall.elapsed() < sixth {
            decide.timed += b.decide_batch(batch);
            decide.iters += batch;
        }
        // rounds: pairs of rounds, about 1 ms a loop (a pair costs about
        // three begins).
        let pairs = ((1e6 / pace.begin_ns / 3.0) as u64).max(1);
        let wall = Instant::now();
        while wall.elapsed() < sixth {
            rounds.timed += b.rounds_loop(pairs);
            rounds.iters += 2 * pairs;
        }
    }
    pace.begin_ns = begin.ns();
    (begin, decide, rounds)
}

/// Criterion's `decide` batch (see the top).
const DEFAULT_BATCH: u64 = common::DECIDE_BATCH;
const MAX_BATCH: u64 = 1_000_000;

fn main() {
    let batch = match std::env::args().nth(1) {
        None => DEFAULT_BATCH,
        Some(a) => match a.parse::<u64>() {
            Ok(n) if (1..=MAX_BATCH).contains(&n) => n,
            _ => {
                eprintln!("round_sampler: the batch size must be a whole number 1..{MAX_BATCH}, not {a:?}");
                std::process::exit(2);
            }
        },
    };
    let b = Bench::new();
    let mut pace = Pace { begin_ns: 5_000.0 };
    // Warm up (caches, allocator, the pace estimate) before saying ready.
    sample(&b, &mut pace, 100, batch);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(out, r#"{{"ready":true}}"#).unwrap();
    out.flush().unwrap();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        let reply = match words.as_slice() {
            ["quit"] => break,
            ["sample", rest @ ..] if (1..=2).contains(&rest.len()) => {
                let ms = rest[0].parse::<u64>().ok().filter(|ms| (1..=60_000).contains(ms));
                let size = match rest.get(1) {
                    None => Some(batch),
                    Some(s) => s.parse::<u64>().ok().filter(|n| (1..=MAX_BATCH).contains(n)),
                };
                match (ms, size) {
                    (Some(ms), Some(size)) => {
                        let (begin, decide, rounds) = sample(&b, &mut pace, ms, size);
                        format!(
                            r#"{{"begin_ns":{:.1},"decide_ns":{:.1},"ns":{:.1},"rounds_ns":{:.1},"begin_iters":{},"decide_iters":{},"rounds_iters":{}}}"#,
                            begin.ns(),
                            decide.ns(),
                            begin.ns() + decide.ns(),
                            rounds.ns(),
                            begin.iters,
                            decide.iters,
                            rounds.iters
                        )
                    }
                    _ => format!(
                        r#"{{"error":"sample takes milliseconds 1..60000 and an optional batch 1..{MAX_BATCH}"}}"#
                    ),
                }
            }
            _ => r#"{"error":"unknown command: expected `sample <ms> [batch]` or `quit`"}"#.to_owned(),
        };
        writeln!(out, "{reply}").unwrap();
        out.flush().unwrap();
    }
}
