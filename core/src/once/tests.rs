#![allow(clippy::unwrap_used)]

use super::*;
use crate::error::ErrorCode;
use std::time::Duration;

const NOW: u64 = 1_800_000_000;

#[test]
fn consume_is_true_once_then_false_until_expiry() {
    let s = MemoryStore::new();
    assert!(s.consume("tid-1", NOW + 300, NOW).unwrap());
    assert!(!s.consume("tid-1", NOW + 300, NOW).unwrap());
    assert!(!s.consume("tid-1", NOW + 300, NOW + 299).unwrap());
    // Another id is independent.
    assert!(s.consume("tid-2", NOW + 300, NOW).unwrap());
    // At the expiry second the entry is gone: the token itself is expired by then.
    assert!(s.consume("tid-1", NOW + 300, NOW + 300).unwrap());
}

#[test]
fn an_already_past_expiry_is_kept_one_second() {
    let s = MemoryStore::new();
    assert!(s.consume("t", NOW - 5, NOW).unwrap());
    assert!(!s.consume("t", NOW - 5, NOW).unwrap());
    assert!(s.consume("t", NOW - 5, NOW + 1).unwrap());
}

#[test]
fn claim_wins_once_then_pending_then_done() {
    let s = MemoryStore::new();
    assert_eq!(s.claim("flow", "dig", NOW + 300, NOW).unwrap(), Claim::Won);
    assert_eq!(s.claim("flow", "dig", NOW + 300, NOW).unwrap(), Claim::Pending);
    // Another digest of the same flow is another key.
    assert_eq!(s.claim("flow", "dig2", NOW + 300, NOW).unwrap(), Claim::Won);
    s.complete("flow", "dig", r#"{"result":1}"#, NOW + 300, NOW).unwrap();
    assert_eq!(s.claim("flow", "dig", NOW + 300, NOW + 10).unwrap(), Claim::Done(r#"{"result":1}"#.into()));
    // The first completion stays.
    s.complete("flow", "dig", "other", NOW + 300, NOW).unwrap();
    assert_eq!(s.claim("flow", "dig", NOW + 300, NOW).unwrap(), Claim::Done(r#"{"result":1}"#.into()));
    // Remembered until expiry, then forgotten.
    assert_eq!(s.claim("flow", "dig", NOW + 300, NOW + 300).unwrap(), Claim::Won);
}

#[test]
fn a_lapsed_lease_can_be_won_again_and_release_only_drops_pending() {
    let s = MemoryStore::with_limits(10, Duration::from_secs(30)).unwrap();
    assert_eq!(s.claim("f", "d", NOW + 300, NOW).unwrap(), Claim::Won);
    assert_eq!(s.claim("f", "d", NOW + 300, NOW + 29).unwrap(), Claim::Pending);
    assert_eq!(s.claim("f", "d", NOW + 300, NOW + 30).unwrap(), Claim::Won);
    s.release("f", "d").unwrap();
    assert_eq!(s.claim("f", "d", NOW + 300, NOW + 31).unwrap(), Claim::Won);
    s.complete("f", "d", "ok", NOW + 300, NOW + 31).unwrap();
    s.release("f", "d").unwrap();
    assert_eq!(s.claim("f", "d", NOW + 300, NOW + 32).unwrap(), Claim::Done("ok".into()));
}

#[test]
fn full_store_sweeps_expired_entries_and_refuses_live_ones() {
    let s = MemoryStore::with_limits(2, Duration::from_secs(5)).unwrap();
    assert!(s.consume("a", NOW + 10, NOW).unwrap());
    assert_eq!(s.claim("f", "d", NOW + 10, NOW).unwrap(), Claim::Won);
    let e = s.consume("b", NOW + 10, NOW).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store);
    assert!(e.message().contains("store full"), "{e}");
    // The live entries were not forgotten.
    assert!(!s.consume("a", NOW + 10, NOW).unwrap());
    assert_eq!(s.claim("f", "d", NOW + 10, NOW).unwrap(), Claim::Pending);
    // Once the claim's lease lapses it is swept and there is room again.
    assert!(s.consume("b", NOW + 10, NOW + 5).unwrap());
    assert_eq!(s.len(), 2);
    assert!(!s.consume("a", NOW + 10, NOW + 5).unwrap());
}

#[test]
fn bad_ids_and_limits_are_clear_errors() {
    let s = MemoryStore::new();
    for bad in ["", "a:b", "sp ace", "é", &"x".repeat(MAX_ONCE_ID_BYTES + 1)] {
        let e = s.consume(bad, NOW + 1, NOW).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Argument, "{bad:?}");
        assert_eq!(s.claim("f", bad, NOW + 1, NOW).unwrap_err().code(), ErrorCode::Argument);
    }
    assert!(s.consume(&"x".repeat(MAX_ONCE_ID_BYTES), NOW + 1, NOW).unwrap());
    assert_eq!(MemoryStore::with_limits(0, Duration::from_secs(1)).unwrap_err().code(), ErrorCode::Config);
    assert_eq!(
        MemoryStore::with_limits(1, Duration::from_millis(999)).unwrap_err().code(),
        ErrorCode::Config
    );
    assert_eq!(check_once_prefix("a b").unwrap_err().code(), ErrorCode::Config);
}

#[test]
fn keys_are_spelled_as_documented() {
    assert_eq!(once_token_key(DEFAULT_ONCE_PREFIX, "T1").unwrap(), "snodo:once:token:T1");
    assert_eq!(once_result_key(DEFAULT_ONCE_PREFIX, "F1", "D1").unwrap(), "snodo:once:result:F1:D1");
    assert_eq!(once_result_key("app:", "F", "D").unwrap(), "app:result:F:D");
    assert!(!ONCE_WON.starts_with(ONCE_DONE_PREFIX) && ONCE_WON != ONCE_PENDING);
    // The scripts spell the same values as the constants.
    assert!(ONCE_CLAIM_SCRIPT.contains(&format!("'{ONCE_PENDING}'")));
    assert!(ONCE_CLAIM_SCRIPT.contains(&format!("'{ONCE_WON}'")));
    assert!(ONCE_COMPLETE_SCRIPT.contains(&format!("'{ONCE_DONE_PREFIX}'")));
    assert!(ONCE_COMPLETE_SCRIPT.contains(&format!("1, {})", ONCE_DONE_PREFIX.len())));
    assert!(ONCE_RELEASE_SCRIPT.contains(&format!("'{ONCE_PENDING}'")));
}

#[test]
fn run_once_runs_once_and_remembers() {
    let s = MemoryStore::new();
    let o = OnceOptions::default();
    let mut runs = 0;
    let first = run_once(&s, "f", "d", NOW + 300, NOW, &o, || {
        runs += 1;
        "resp-1".to_owned()
    })
    .unwrap();
    let second = run_once(&s, "f", "d", NOW + 300, NOW, &o, || {
        runs += 1;
        "resp-2".to_owned()
    })
    .unwrap();
    assert_eq!((first.as_str(), second.as_str(), runs), ("resp-1", "resp-1", 1));
}

#[test]
fn run_once_consumes_the_token_and_reports_a_replay() {
    let s = MemoryStore::new();
    let o = OnceOptions { consume_token: Some(("tok".into(), NOW + 300)), ..OnceOptions::default() };
    assert_eq!(run_once(&s, "f", "d1", NOW + 300, NOW, &o, || "a".into()).unwrap(), "a");
    // The same final round again: the remembered response, not a replay.
    assert_eq!(run_once(&s, "f", "d1", NOW + 300, NOW, &o, || "b".into()).unwrap(), "a");
    // The same token with other answers: replayed, and nothing ran.
    let mut ran = false;
    let e = run_once(&s, "f", "d2", NOW + 300, NOW, &o, || {
        ran = true;
        "c".into()
    })
    .unwrap_err();
    assert_eq!((e.code(), e.message(), ran), (ErrorCode::Token, ONCE_REPLAYED_MESSAGE, false));
    // The claim was released: no pending marker is left behind.
    assert_eq!(s.claim("f", "d2", NOW + 300, NOW).unwrap(), Claim::Won);
}

#[test]
fn run_once_gives_up_on_a_pending_claim_after_the_wait() {
    let s = MemoryStore::new();
    assert_eq!(s.claim("f", "d", NOW + 300, NOW).unwrap(), Claim::Won);
    let o = OnceOptions { wait: Duration::from_millis(30), ..OnceOptions::default() };
    let mut ran = false;
    let e = run_once(&s, "f", "d", NOW + 300, NOW, &o, || {
        ran = true;
        String::new()
    })
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store);
    assert!(e.message().contains("still pending"), "{e}");
    assert!(!ran);
}

/// A store that always fails: the effect must never run.
struct Down;

impl OnceStore for Down {
    fn consume(&self, _: &str, _: u64, _: u64) -> crate::Result<bool> {
        Err(crate::Error::new(ErrorCode::Store, "down"))
    }
    fn claim(&self, _: &str, _: &str, _: u64, _: u64) -> crate::Result<Claim> {
        Err(crate::Error::new(ErrorCode::Store, "down"))
    }
    fn complete(&self, _: &str, _: &str, _: &str, _: u64, _: u64) -> crate::Result<()> {
        Err(crate::Error::new(ErrorCode::Store, "down"))
    }
    fn release(&self, _: &str, _: &str) -> crate::Result<()> {
        Err(crate::Error::new(ErrorCode::Store, "down"))
    }
}

#[test]
fn run_once_fails_closed() {
    let mut ran = false;
    let e = run_once(&Down, "f", "d", NOW + 1, NOW, &OnceOptions::default(), || {
        ran = true;
        String::new()
    })
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store);
    assert!(!ran);
}
