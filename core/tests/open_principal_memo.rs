//! Issue 16, ninth pass: `open` checks the token's principal tag against
//! the tag this thread kept for the ring key and principal (the memo
//! `seal` has used since the eighth pass) instead of making it afresh.
//! Whatever the memo holds (engines whose keys share an id but not a
//! secret, more principals than it keeps, in any order), a token opens
//! exactly as on a thread whose memo is empty: for its own principal
//! only, and under the secret that sealed it.
#![allow(clippy::unwrap_used, clippy::panic)]

use proptest::prelude::*;
use snodo::{Config, Engine, Key, Principal, SealInput, TokenReason};

const NOW: u64 = 1_800_000_000;
const BINDING: [u8; 32] = [9; 32];

/// Engines whose one key is always called "k1": 0 and 2 share a secret
/// (a config reload), 1 has another.
fn engines() -> Vec<Engine> {
    [1u8, 2, 1]
        .iter()
        .map(|&s| {
            Engine::new(Config::new(vec![Key::new("k1", vec![s; 32]).unwrap()]).fixed_time(NOW)).unwrap()
        })
        .collect()
}

fn principals() -> Vec<Principal> {
    let mut all = vec![Principal::anonymous()];
    for name in ["alice", "bob", "carol", "dave", "erin", "alice\0", "ALICE"] {
        all.push(Principal::user(name).unwrap());
    }
    all
}

fn seal(engine: &Engine, who: &Principal) -> String {
    let input = SealInput {
        principal: who,
        binding: &BINDING,
        round: 1,
        flow_start: NOW,
        questions: &[],
        state: None,
    };
    engine.seal(&input).unwrap()
}

/// What opening gives: `Ok(())` or the reason.
fn open(engine: &Engine, token: &str, who: &Principal) -> Result<(), TokenReason> {
    engine.open(token, who, &BINDING).map(|_| ()).map_err(|e| e.reason)
}

#[test]
fn a_token_opens_for_its_own_principal_only() {
    let (engines, who) = (engines(), principals());
    let token = seal(&engines[0], &who[1]);
    for _ in 0..3 {
        assert_eq!(open(&engines[0], &token, &who[1]), Ok(()));
        assert_eq!(open(&engines[2], &token, &who[1]), Ok(()), "same secret, another engine");
        assert_eq!(open(&engines[0], &token, &who[2]), Err(TokenReason::Principal));
        assert_eq!(open(&engines[0], &token, &who[6]), Err(TokenReason::Principal), "alice\\0 is not alice");
        assert_eq!(open(&engines[0], &token, &who[0]), Err(TokenReason::Principal));
        assert!(open(&engines[1], &token, &who[1]).is_err(), "another secret under the same id");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random seals and opens across the engines and principals: each
    /// open gives what it gives on a fresh thread, and succeeds exactly
    /// when the secret and the principal are the sealing ones.
    #[test]
    fn open_gives_what_a_cold_thread_gives(
        steps in prop::collection::vec((0usize..3, 0usize..8, 0usize..3, 0usize..8), 1..12),
    ) {
        let (engines, who) = (engines(), principals());
        for (se, sp, oe, op) in steps {
            let token = seal(&engines[se], &who[sp]);
            let warm = open(&engines[oe], &token, &who[op]);
            let cold = std::thread::scope(|s| s.spawn(|| open(&engines[oe], &token, &who[op])).join().unwrap());
            prop_assert_eq!(warm, cold);
            let same_secret = (se == 1) == (oe == 1);
            match (same_secret, sp == op) {
                (true, true) => prop_assert_eq!(warm, Ok(())),
                (true, false) => prop_assert_eq!(warm, Err(TokenReason::Principal)),
                (false, _) => prop_assert!(warm.is_err()),
            }
        }
    }
}
