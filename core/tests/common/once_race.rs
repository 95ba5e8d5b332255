//! Real threads racing one flow through `run_once`, shared by the store
//! suites: each test passes its own stores (several stores on one backend
//! stand in for the processes of a fleet).

use snodo::{Call, ErrorCode, ONCE_REPLAYED_MESSAGE, OnceOptions, OnceStore, run_once};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

/// 8 threads released together run the final round of one flow, through
/// two of its tokens and with two different answers (`calls[token][answer]`),
/// thread `t` on store `t % stores.len()`. Exactly one effect runs; every
/// thread with the winner's answers returns its exact text, every other
/// one gets `replayed`.
pub fn eight_threads_one_flow(calls: &[Vec<Call>], stores: &[Arc<dyn OnceStore>]) {
    let effects = Arc::new(AtomicUsize::new(0));
    let barrier = Arc::new(Barrier::new(8));
    let outcomes: Vec<(String, snodo::Result<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let call = &calls[t % calls.len()][(t / calls.len()) % calls[0].len()];
                let store = stores[t % stores.len()].clone();
                let (effects, barrier) = (effects.clone(), barrier.clone());
                scope.spawn(move || {
                    barrier.wait();
                    let got = run_once(&*store, call, &OnceOptions::default(), |lease| {
                        effects.fetch_add(1, Ordering::SeqCst);
                        // Long enough that the others find the claim pending.
                        std::thread::sleep(Duration::from_millis(5));
                        format!(r#"{{"booked":"by thread {t}","fence":{}}}"#, lease.fence())
                    });
                    (call.answers_digest(), got)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(effects.load(Ordering::SeqCst), 1, "more than one effect: {outcomes:?}");
    let winner = outcomes.iter().find_map(|(d, r)| r.as_ref().ok().map(|t| (d.clone(), t.clone())));
    let (digest, text) = winner.expect("nobody booked");
    for (d, r) in &outcomes {
        match r {
            Ok(t) => assert_eq!((d, t), (&digest, &text), "another text or other answers got a result"),
            Err(e) => {
                assert_ne!(d, &digest, "the winner's answers were refused: {e}");
                assert_eq!((e.code(), e.message()), (ErrorCode::Token, ONCE_REPLAYED_MESSAGE));
            }
        }
    }
}
