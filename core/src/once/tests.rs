#![allow(clippy::unwrap_used, clippy::panic)]

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
    s.release("f", "d", None).unwrap();
    assert_eq!(s.claim("f", "d", NOW + 300, NOW + 31).unwrap(), Claim::Won);
    s.complete("f", "d", "ok", NOW + 300, NOW + 31).unwrap();
    s.release("f", "d", None).unwrap();
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
    fn release(&self, _: &str, _: &str, _: Option<&str>) -> crate::Result<()> {
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

#[test]
fn a_failed_effect_gives_its_token_back_and_the_retry_runs_it() {
    let s = MemoryStore::new();
    let o = OnceOptions { consume_token: Some(("tok".into(), NOW + 300)), ..OnceOptions::default() };
    let failed = try_run_once(&s, "f", "d1", NOW + 300, NOW, &o, || Err::<String, _>("ledger down")).unwrap();
    assert_eq!(failed, Err("ledger down"));
    // Claim released and token id given back, in one release.
    assert!(s.is_empty(), "{s:?}");
    // The same final round retried: the effect runs (not "replayed").
    let again = try_run_once(&s, "f", "d1", NOW + 300, NOW, &o, || Ok::<_, &str>("booked".into())).unwrap();
    assert_eq!(again, Ok("booked".to_owned()));
    // ... and that success consumed the token: other answers are a replay.
    let e = run_once(&s, "f", "d2", NOW + 300, NOW, &o, || panic!("must not run")).unwrap_err();
    assert_eq!((e.code(), e.message()), (ErrorCode::Token, ONCE_REPLAYED_MESSAGE));
}

#[test]
fn a_replay_after_a_failed_attempt_is_handled_and_keeps_the_other_token() {
    let s = MemoryStore::new();
    let o = OnceOptions { consume_token: Some(("tok".into(), NOW + 300)), ..OnceOptions::default() };
    // Answers d1 fail once; the token is free again, so answers d2 may win.
    assert!(try_run_once(&s, "f", "d1", NOW + 300, NOW, &o, || Err::<String, _>(())).unwrap().is_err());
    assert_eq!(run_once(&s, "f", "d2", NOW + 300, NOW, &o, || "d2 booked".into()).unwrap(), "d2 booked");
    // d1 again is now the replay: refused, and its release must not free
    // the token d2 consumed.
    let e =
        try_run_once(&s, "f", "d1", NOW + 300, NOW, &o, || -> Result<String, ()> { panic!("must not run") })
            .unwrap_err();
    assert_eq!(e.message(), ONCE_REPLAYED_MESSAGE);
    assert!(!s.consume("tok", NOW + 300, NOW).unwrap(), "the replay path freed the other attempt's token");
    let e = run_once(&s, "f", "d3", NOW + 300, NOW, &o, || panic!("must not run")).unwrap_err();
    assert_eq!(e.message(), ONCE_REPLAYED_MESSAGE);
}

#[test]
fn release_gives_a_token_back_only_while_the_claim_is_pending() {
    let s = MemoryStore::new();
    assert!(s.consume("tok", NOW + 300, NOW).unwrap());
    // No claim at all: nothing is given back.
    s.release("f", "d", Some("tok")).unwrap();
    assert!(!s.consume("tok", NOW + 300, NOW).unwrap());
    // A completed claim: nothing is given back either.
    assert_eq!(s.claim("f", "d", NOW + 300, NOW).unwrap(), Claim::Won);
    s.complete("f", "d", "done", NOW + 300, NOW).unwrap();
    s.release("f", "d", Some("tok")).unwrap();
    assert!(!s.consume("tok", NOW + 300, NOW).unwrap());
    // A pending claim: both go, at once.
    assert_eq!(s.claim("f", "e", NOW + 300, NOW).unwrap(), Claim::Won);
    s.release("f", "e", Some("tok")).unwrap();
    assert!(s.consume("tok", NOW + 300, NOW).unwrap());
    assert_eq!(s.claim("f", "e", NOW + 300, NOW).unwrap(), Claim::Won);
    // A bad token id is an argument error and changes nothing.
    let e = s.release("f", "e", Some("a:b")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Argument);
    assert_eq!(s.claim("f", "e", NOW + 300, NOW).unwrap(), Claim::Pending);
}

/// A store whose release fails: the failed effect's attempt cannot be
/// undone, so the store error is returned (fail closed).
struct NoRelease(MemoryStore);

impl OnceStore for NoRelease {
    fn consume(&self, t: &str, e: u64, n: u64) -> crate::Result<bool> {
        self.0.consume(t, e, n)
    }
    fn claim(&self, f: &str, d: &str, e: u64, n: u64) -> crate::Result<Claim> {
        self.0.claim(f, d, e, n)
    }
    fn complete(&self, f: &str, d: &str, r: &str, e: u64, n: u64) -> crate::Result<()> {
        self.0.complete(f, d, r, e, n)
    }
    fn release(&self, _: &str, _: &str, _: Option<&str>) -> crate::Result<()> {
        Err(crate::Error::new(ErrorCode::Store, "down"))
    }
}

#[test]
fn a_failed_release_is_a_store_error_and_the_token_stays_consumed() {
    let s = NoRelease(MemoryStore::new());
    let o = OnceOptions { consume_token: Some(("tok".into(), NOW + 300)), ..OnceOptions::default() };
    let e = try_run_once(&s, "f", "d", NOW + 300, NOW, &o, || Err::<String, _>(())).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store);
    assert!(!s.0.consume("tok", NOW + 300, NOW).unwrap());
    assert_eq!(s.0.claim("f", "d", NOW + 300, NOW).unwrap(), Claim::Pending);
}
