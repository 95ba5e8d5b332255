//! The in-memory consume-once store under threads and random schedules: one
//! winner per key, every loser returns the winner's exact text, and the
//! bound never forgets a live entry.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use snodo::{Claim, ErrorCode, MemoryStore, OnceStore};
use std::collections::HashMap;
use std::sync::{Arc, Barrier};
use std::time::Duration;

mod common {
    pub mod once_race;
}

const NOW: u64 = 1_800_000_000;

#[test]
fn eight_threads_one_effect_one_text() {
    // A new store each round, on the fixed clock.
    common::once_race::eight_threads_one_effect_one_text(
        50,
        || NOW,
        || vec![Arc::new(MemoryStore::new()) as Arc<dyn OnceStore>],
    );
}

#[test]
fn eight_threads_consume_one_id_one_true() {
    let store = Arc::new(MemoryStore::new());
    let barrier = Arc::new(Barrier::new(8));
    let wins: usize = (0..8)
        .map(|_| {
            let (store, barrier) = (store.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                usize::from(store.consume("the-token", NOW + 60, NOW).unwrap())
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .sum();
    assert_eq!(wins, 1);
}

#[derive(Debug, Clone)]
enum Op {
    Consume(u8, u8),
    Claim(u8),
    Complete(u8),
    Release(u8),
    Tick(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..6, 1u8..20).prop_map(|(i, ttl)| Op::Consume(i, ttl)),
        (0u8..6).prop_map(Op::Claim),
        (0u8..6).prop_map(Op::Complete),
        (0u8..6).prop_map(Op::Release),
        (0u8..8).prop_map(Op::Tick),
    ]
}

proptest! {
    /// Against a model: consume is true exactly when the id is absent or
    /// past its expiry; a full store errs (STORE) instead of forgetting a
    /// live entry.
    #[test]
    fn consume_matches_the_model_and_the_bound_holds(ops in proptest::collection::vec(op(), 1..120)) {
        let store = MemoryStore::with_limits(4, Duration::from_secs(3)).unwrap();
        let mut now = NOW;
        let mut consumed: HashMap<u8, u64> = HashMap::new();
        let mut won: HashMap<u8, u64> = HashMap::new();
        let mut done: HashMap<u8, (String, u64)> = HashMap::new();
        for op in ops {
            match op {
                Op::Tick(s) => now += u64::from(s),
                Op::Consume(i, ttl) => {
                    let live_before = consumed.get(&i).is_some_and(|until| *until > now);
                    match store.consume(&format!("t{i}"), now + u64::from(ttl), now) {
                        Ok(first) => {
                            prop_assert_eq!(first, !live_before);
                            if first { consumed.insert(i, now + u64::from(ttl)); }
                        }
                        Err(e) => {
                            prop_assert_eq!(e.code(), ErrorCode::Store);
                            prop_assert!(!live_before, "a live id must answer false, not an error");
                        }
                    }
                }
                Op::Claim(i) => {
                    // A remembered result past its expiry is forgotten.
                    done.retain(|_, (_, until)| *until > now);
                    match store.claim("f", &format!("d{i}"), now + 100, now) {
                        Ok(Claim::Won) => {
                            prop_assert!(!done.contains_key(&i));
                            prop_assert!(won.get(&i).is_none_or(|l| *l <= now), "won a live claim twice");
                            won.insert(i, now + 3);
                        }
                        Ok(Claim::Pending) => prop_assert!(won.get(&i).is_some_and(|l| *l > now)),
                        Ok(Claim::Done(t)) => prop_assert_eq!(Some(&t), done.get(&i).map(|(t, _)| t)),
                        Err(e) => prop_assert_eq!(e.code(), ErrorCode::Store),
                    }
                }
                Op::Complete(i) => {
                    done.retain(|_, (_, until)| *until > now);
                    // A won claim never has a live remembered result (checked at Claim).
                    if let Some(lease) = won.remove(&i) {
                        let text = format!("r{i}@{now}");
                        if store.complete("f", &format!("d{i}"), &text, now + 100, now).is_ok() {
                            done.insert(i, (text, now + 100));
                        } else {
                            // Full: the claim stays pending in the store.
                            won.insert(i, lease);
                        }
                    }
                }
                Op::Release(i) => {
                    if won.remove(&i).is_some() {
                        store.release("f", &format!("d{i}"), None).unwrap();
                    }
                }
            }
            prop_assert!(store.len() <= 4);
        }
    }
}
