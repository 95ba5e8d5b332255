//! The once machine on the in-memory store: the model-based test on a
//! virtual clock, real threads racing one flow, and the store's bounds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use snodo::{
    ErrorCode, MemoryStore, ONCE_REPLAYED_MESSAGE, OnceCommand, OnceOptions, OnceRun, OnceSettings, OnceStep,
    OnceStore, check_once, run_once, try_run_once,
};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

mod common {
    pub mod once_calls;
    pub mod once_model;
    pub mod once_race;
}
use common::{once_calls, once_model};

const LEASE_MS: u64 = 30_000;

fn unix_ms() -> u64 {
    u64::try_from(SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis()).unwrap()
}

/// One memory store (one process) on a virtual clock: a lapse moves the
/// clock one lease and a millisecond on.
struct Memory {
    store: MemoryStore,
    now_ms: u64,
}

impl once_model::Backend for Memory {
    fn settings(&self) -> OnceSettings {
        self.store.settings().clone()
    }
    fn execute(&self, _process: usize, command: &OnceCommand) -> snodo::Result<String> {
        self.store.execute_at(command, self.now_ms)
    }
    fn lapse(&mut self) {
        self.now_ms += LEASE_MS + 1;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_machine_on_memory_matches_the_model(ops in once_model::schedule(60, 1)) {
        let engine = once_calls::engine();
        let calls = once_calls::grid(&engine, 2, 2, 2);
        let mut backend = Memory { store: MemoryStore::new(), now_ms: unix_ms() };
        once_model::run(&mut backend, &calls, 1, &ops);
    }
}

#[test]
fn eight_threads_through_two_tokens_with_two_answers_book_once() {
    let engine = once_calls::engine();
    for _ in 0..30 {
        let calls = &once_calls::grid(&engine, 1, 2, 2)[0];
        let store: Arc<dyn OnceStore> = Arc::new(MemoryStore::new());
        common::once_race::eight_threads_one_flow(calls, &[store]);
    }
}

#[test]
fn a_completed_flow_asked_again_through_a_new_token_cannot_book_again() {
    // The attack: the booked token sent again without answers, the handler
    // asks again, and the new token carries other answers.
    let engine = once_calls::engine();
    let store = MemoryStore::new();
    let tokens = once_calls::flow_tokens(&engine, "book", "alice", 1);
    let booked = once_calls::final_round(&engine, "book", "alice", &tokens[0], Some(2));
    let text = run_once(&store, &booked, &OnceOptions::default(), |_| "entry 1".into()).unwrap();
    assert_eq!(text, "entry 1");
    // Asking again is refused up front for any other answers, none included.
    let again = once_calls::final_round(&engine, "book", "alice", &tokens[0], None);
    let e = check_once(&store, &again).unwrap_err();
    assert_eq!((e.code(), e.message()), (ErrorCode::Token, ONCE_REPLAYED_MESSAGE));
    // A server that asks anyway: the new token's final round is refused.
    let more = once_calls::ask_again(&engine, "book", "alice", &tokens[0]);
    assert_eq!(once_calls::final_round(&engine, "book", "alice", &more, None).flow_id(), booked.flow_id());
    let other = once_calls::final_round(&engine, "book", "alice", &more, Some(5));
    let e = run_once(&store, &other, &OnceOptions::default(), |_| panic!("a second booking")).unwrap_err();
    assert_eq!((e.code(), e.message()), (ErrorCode::Token, ONCE_REPLAYED_MESSAGE));
    // The same answers through the new token: the remembered result.
    let same = once_calls::final_round(&engine, "book", "alice", &more, Some(2));
    assert_eq!(check_once(&store, &same).unwrap().as_deref(), Some("entry 1"));
    assert_eq!(run_once(&store, &same, &OnceOptions::default(), |_| panic!("ran again")).unwrap(), "entry 1");
}

#[test]
fn a_failed_effect_releases_and_a_retry_books_with_a_greater_fence() {
    let engine = once_calls::engine();
    let store = MemoryStore::new();
    let call = &once_calls::grid(&engine, 1, 1, 1)[0][0][0];
    let failed: Result<String, &str> = try_run_once(&store, call, &OnceOptions::default(), |lease| {
        assert_eq!(lease.fence(), 1);
        Err("ledger down")
    })
    .unwrap();
    assert_eq!(failed, Err("ledger down"));
    let text =
        run_once(&store, call, &OnceOptions::default(), |lease| format!("fence {}", lease.fence())).unwrap();
    assert_eq!(text, "fence 2");
}

#[test]
fn a_panicking_effect_leaves_the_claim_pending_and_retries_wait() {
    let engine = once_calls::engine();
    let store = MemoryStore::new();
    let call = &once_calls::grid(&engine, 1, 1, 1)[0][0][0];
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_once(&store, call, &OnceOptions::default(), |_| panic!("cut off mid-effect"))
    }));
    assert!(caught.is_err());
    let short = OnceOptions { wait: Duration::from_millis(20), ..OnceOptions::default() };
    let e = run_once(&store, call, &short, |_| panic!("ran twice")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store);
    assert!(e.message().contains("still running"), "{}", e.message());
}

#[test]
fn a_former_owner_never_touches_the_claim_that_took_over() {
    let engine = once_calls::engine();
    let store = MemoryStore::new();
    let call = &once_calls::grid(&engine, 1, 1, 1)[0][0][0];
    let t0 = unix_ms();
    let mut first = OnceRun::new(call, store.settings(), &OnceOptions::default()).unwrap();
    let mut second = OnceRun::new(call, store.settings(), &OnceOptions::default()).unwrap();
    let exec = |run: &mut OnceRun, step: OnceStep, at: u64| match step {
        OnceStep::Command(c) => run.feed(&store.execute_at(&c, at).unwrap()),
        other => panic!("{other:?}"),
    };
    let start = first.start().unwrap();
    let OnceStep::Effect(t1) = exec(&mut first, start, t0).unwrap() else { panic!() };
    // The first owner's lease lapses; the second takes over.
    let later = t0 + LEASE_MS + 1;
    let start = second.start().unwrap();
    let OnceStep::Effect(t2) = exec(&mut second, start, later).unwrap() else { panic!() };
    assert_eq!((t1.fence(), t2.fence()), (1, 2));
    // The former owner can neither extend, release nor complete.
    assert_eq!(store.execute_at(t1.extend_command(), later).unwrap(), "lost");
    let release = first.effect_failed().unwrap();
    assert_eq!(exec(&mut first, release, later).unwrap(), OnceStep::Released);
    assert!(store.execute_at(t2.extend_command(), later).unwrap().starts_with("extended 2"));
    let done = second.effect_done("second".into()).unwrap();
    assert_eq!(exec(&mut second, done, later).unwrap(), OnceStep::Done("second".into()));
}

#[test]
fn the_byte_budget_and_the_principal_share_refuse_new_flows_only() {
    let engine = once_calls::engine();
    let flows = once_calls::grid(&engine, 12, 1, 1);
    // Room for about five records in all, three per principal.
    let store = MemoryStore::with_limits(1300, 1024, Duration::from_secs(30)).unwrap();
    let mut refused = None;
    for (i, f) in flows.iter().enumerate() {
        match run_once(&store, &f[0][0], &OnceOptions::default(), |_| "ok".into()) {
            Ok(_) => {}
            Err(e) => {
                refused = Some((i, e));
                break;
            }
        }
    }
    let (i, e) = refused.expect("the share never filled");
    assert!(i >= 2, "refused too early, at flow {i}");
    assert_eq!(e.code(), ErrorCode::Store);
    assert!(e.message().contains("share"), "{}", e.message());
    // A full store still answers the flows it holds.
    assert_eq!(check_once(&store, &flows[0][0][0]).unwrap().as_deref(), Some("ok"));
}
