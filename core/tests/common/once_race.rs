//! The 8-thread race of `run_once`, shared by the store suites
//! (once_memory.rs, once_redis.rs): each test passes its own stores.

use snodo::{OnceOptions, OnceStore, run_once};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

/// `rounds` times, 8 threads released together run one final round
/// (`flow`, `d<round>`) through `run_once`; thread `t` uses store
/// `t % stores.len()` of that round's `stores()` (several stores on one
/// backend stand in for the processes of a fleet), and `clock` is the `now`
/// each thread passes. Exactly one effect may run per round, and every
/// thread must return that effect's exact text.
pub fn eight_threads_one_effect_one_text(
    rounds: usize,
    clock: fn() -> u64,
    stores: impl Fn() -> Vec<Arc<dyn OnceStore>>,
) {
    for round in 0..rounds {
        let stores = stores();
        assert!(!stores.is_empty(), "no store to race on");
        let effects = Arc::new(AtomicUsize::new(0));
        let barrier = Arc::new(Barrier::new(8));
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let s = stores[t % stores.len()].clone();
                let (effects, barrier) = (effects.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    let n = clock();
                    run_once(&*s, "flow", &format!("d{round}"), n + 300, n, &OnceOptions::default(), || {
                        effects.fetch_add(1, Ordering::SeqCst);
                        // Long enough that the others see Pending and poll
                        // (a Redis round trip included).
                        std::thread::sleep(Duration::from_millis(3));
                        format!(r#"{{"booked":"round {round} by thread {t}"}}"#)
                    })
                    .unwrap()
                })
            })
            .collect();
        let texts: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(effects.load(Ordering::SeqCst), 1, "round {round}: more than one effect");
        assert!(texts.iter().all(|t| t == &texts[0]), "round {round}: texts differ: {texts:?}");
    }
}
