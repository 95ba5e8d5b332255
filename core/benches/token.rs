//! The core's costs beside the floor (a bare HMAC-SHA256 + base64url of the
//! same bytes): `seal`, `open`, `seal_v2`, `open_v2` (encrypted tokens),
//! `begin`, `decide` and a full three-round flow, for 256 B and 4 KiB of
//! application state and for a 32 KiB `arguments` object, and the format
//! floor of a retry token.
//! The payloads are the files in `benches/payloads/`,
//! shared with the Python, Node and C benches so every language measures the
//! same bytes. Run with `make bench` (scripts/bench.sh), which also prints
//! the table; `cargo bench -p snodo --bench token` runs this part alone
//! (`--bench growth` the growth table, `--bench memory` the memory table).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::{ARGS_SMALL, NOW, call_of, floor, parse, question, request, token_of};
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::json;
use snodo::{Answer, Outcome, Question, SealInput};
use std::hint::black_box;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

const STATE_256: &str = include_str!("payloads/state-256.json");
const STATE_4096: &str = include_str!("payloads/state-4096.json");
const ARGS_32K: &str = include_str!("payloads/args-32768.json");

/// One benchmark case: the application state carried between rounds and the
/// tool's arguments. `floor_bytes` is what the floor signs: the state for
/// the state cases, the arguments for the arguments case.
struct Case {
    name: &'static str,
    state: &'static str,
    args: &'static str,
    floor_bytes: &'static str,
}

const CASES: [Case; 3] = [
    Case { name: "state_256", state: STATE_256, args: ARGS_SMALL, floor_bytes: STATE_256 },
    Case { name: "state_4096", state: STATE_4096, args: ARGS_SMALL, floor_bytes: STATE_4096 },
    Case { name: "args_32768", state: STATE_256, args: ARGS_32K, floor_bytes: ARGS_32K },
];

fn bench(c: &mut Criterion) {
    let engine = common::engine();
    // The same engine sealing v2 (encrypted) tokens.
    let engine_v2 = {
        let mut config =
            snodo::Config::new(vec![snodo::Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(NOW);
        config.token_version = 2;
        snodo::Engine::new(config).unwrap()
    };
    let who = common::who();
    let (q1, q2) = (question("seat"), question("meal"));
    let mut group = c.benchmark_group("core");
    for case in &CASES {
        let state = parse(case.state);
        let id = |op: &str| BenchmarkId::new(op, case.name);
        let ask = |q: &Question, key: &str| Outcome::InputRequired {
            requests: vec![(key.to_owned(), q.clone())],
            state: Some(state.clone()),
        };
        let done = Outcome::Complete(json!({"content": [{"type": "text", "text": "booked"}]}));

        // The three requests of the flow; the clock is fixed, so the tokens
        // are the same on every iteration and can be made once.
        let r1 = request(case.args, None);
        let call1 = call_of(&engine, r1.as_bytes(), &who);
        let t1 = token_of(&engine, &call1, ask(&q1, "seat"));
        let r2 = request(case.args, Some(("seat", &t1)));
        let call2 = call_of(&engine, r2.as_bytes(), &who);
        let t2 = token_of(&engine, &call2, ask(&q2, "meal"));
        let r3 = request(case.args, Some(("meal", &t2)));

        let questions = vec![("seat".to_owned(), q1.clone())];
        let input = SealInput {
            principal: &who,
            binding: &snodo::internal::binding_digest_map("tools/call", call1.params()).unwrap(),
            round: 1,
            flow_start: NOW,
            questions: &questions,
            state: Some(&state),
        };
        let token = engine.seal(&input).unwrap();

        group.bench_function(id("floor"), |b| b.iter(|| floor(black_box(case.floor_bytes.as_bytes()))));
        // The retry token `begin` opens below (in r2), at the format's floor.
        assert!(format_floor(&t1, WHO).1, "the format floor must verify the bench token");
        group.bench_function(id("format_floor"), |b| b.iter(|| format_floor(black_box(&t1), WHO)));
        // The least this format costs to seal the
        // payload `seal` writes here (the body of `token`, decoded), with no
        // JSON: beside `format_floor` it bounds what seal, decide and the
        // flow can reach with this token format.
        let payload = payload_of(&token);
        group.bench_function(id("format_floor_seal"), |b| {
            b.iter(|| format_floor_seal(black_box(&payload), WHO))
        });
        // What `decide` pays to free the caller's state tree (the Outcome
        // owns it): made outside the timing, freed inside.
        group.bench_function(id("drop_state"), |b| {
            b.iter_batched(|| state.clone(), drop, BatchSize::NumIterations(common::DECIDE_BATCH))
        });
        group.bench_function(id("seal"), |b| b.iter(|| engine.seal(black_box(&input)).unwrap()));
        group.bench_function(id("open"), |b| {
            b.iter(|| engine.open(black_box(&token), &who, input.binding).unwrap())
        });
        // v2 seal and open of the same input.
        let token_v2 = engine_v2.seal(&input).unwrap();
        group.bench_function(id("seal_v2"), |b| b.iter(|| engine_v2.seal(black_box(&input)).unwrap()));
        group.bench_function(id("open_v2"), |b| {
            b.iter(|| engine_v2.open(black_box(&token_v2), &who, input.binding).unwrap())
        });
        // begin of a retry: parse, binding digest, open the token.
        group.bench_function(id("begin"), |b| {
            b.iter(|| engine.begin(black_box(r2.as_bytes()), &who).unwrap())
        });
        // decide of a first call that asks a question and carries the state
        // (validation, capability admission, seal). A call is decided once,
        // so each iteration decides a fresh call; the call (a begin) and the
        // outcome are made outside the timing.
        group.bench_function(id("decide"), |b| {
            b.iter_batched(
                || (call_of(&engine, r1.as_bytes(), &who), ask(&q1, "seat")),
                |(call, o)| {
                    // The call goes back out, so its drop is not timed.
                    let r = engine.decide(black_box(&call), o).unwrap();
                    (call, r)
                },
                BatchSize::NumIterations(common::DECIDE_BATCH),
            )
        });
        // Three rounds as a server runs them: begin, read the answer, decide.
        group.bench_function(id("flow3"), |b| {
            b.iter_batched(
                || (ask(&q1, "seat"), ask(&q2, "meal"), done.clone()),
                |(o1, o2, o3)| {
                    let c1 = call_of(&engine, r1.as_bytes(), &who);
                    let a1 = engine.decide(&c1, o1);
                    let c2 = call_of(&engine, r2.as_bytes(), &who);
                    assert!(matches!(c2.response("seat", &q1), Answer::Accepted(_)));
                    let a2 = engine.decide(&c2, o2);
                    let c3 = call_of(&engine, r3.as_bytes(), &who);
                    assert!(matches!(c3.response("meal", &q2), Answer::Accepted(_)));
                    let a3 = engine.decide(&c3, o3);
                    black_box((a1, a2, a3))
                },
                BatchSize::NumIterations(common::DECIDE_BATCH),
            )
        });
    }
    group.finish();
}

/// The name of `common::who()`, whose principal tag the format floor makes.
const WHO: &str = "alice";

/// The format floor: the least any implementation
/// of this token format must do to open `token` (a v1 retry token), with
/// no JSON at all: base64url-decode the tag and the body, HMAC-SHA256 over
/// the signed text `v1.kid.body` (the key set up per call, as in `floor`)
/// and the principal tag, a second HMAC under the same key. The `floor`
/// row MACs only the state; the token is about twice that, so this row
/// tells how far `open`/`begin` are from what the format itself costs.
fn format_floor(token: &str, principal: &str) -> (Vec<u8>, bool, [u8; 32]) {
    let (signed, tag) = token.rsplit_once('.').unwrap();
    let body = signed.rsplit_once('.').unwrap().1;
    let tag = URL_SAFE_NO_PAD.decode(tag).unwrap();
    let payload = URL_SAFE_NO_PAD.decode(body).unwrap();
    let key = Hmac::<Sha256>::new_from_slice(&[7; 32]).unwrap();
    let mut m = key.clone();
    m.update(signed.as_bytes());
    let ok = m.verify_slice(&tag).is_ok();
    (payload, ok, principal_tag(key, principal))
}

/// The principal tag both format floors make: an HMAC of the user's name
/// under the token key, as `token/principal.rs` words it.
fn principal_tag(key: Hmac<Sha256>, principal: &str) -> [u8; 32] {
    let mut p = key;
    p.update(b"snodo/v1/principal\0user\0");
    p.update(principal.as_bytes());
    p.finalize().into_bytes().into()
}

/// The payload a v1 token carries: its body, base64url-decoded.
fn payload_of(token: &str) -> Vec<u8> {
    let signed = token.rsplit_once('.').unwrap().0;
    URL_SAFE_NO_PAD.decode(signed.rsplit_once('.').unwrap().1).unwrap()
}

/// The format floor of sealing: the least any
/// implementation of this token format must do to seal `payload` once the
/// payload's bytes exist: draw the token and flow ids from the operating
/// system (32 bytes, one call, as `seal` does), make the principal tag (an
/// HMAC the payload carries), base64url-encode the payload, HMAC-SHA256
/// over the signed text `v1.kid.body` (the key set up per call, as in
/// `floor` and `format_floor`) and base64url-encode the tag onto it.
fn format_floor_seal(payload: &[u8], principal: &str) -> String {
    let mut ids = [0u8; 32];
    getrandom::fill(&mut ids).unwrap();
    let key = Hmac::<Sha256>::new_from_slice(&[7; 32]).unwrap();
    black_box((ids, principal_tag(key.clone(), principal)));
    let mut token = String::with_capacity(6 + payload.len() * 4 / 3 + 48);
    token.push_str("v1.k1.");
    URL_SAFE_NO_PAD.encode_string(payload, &mut token);
    let mut m = key;
    m.update(token.as_bytes());
    token.push('.');
    URL_SAFE_NO_PAD.encode_string(m.finalize().into_bytes(), &mut token);
    token
}

criterion_group!(benches, bench);
criterion_main!(benches);
