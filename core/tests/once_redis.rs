//! The Redis store against a real server (feature `redis`). Run by
//! scripts/test-rust.sh, which starts a throwaway Redis (scripts/redis.sh)
//! and sets `SNODO_REDIS_URL`. Without it these tests FAIL, never skip.
//!
//! Each test uses its own key prefix, so they share the one server while
//! running in parallel. The stop/restart scenario starts a private
//! `redis-server` (same flags as scripts/redis.sh: no persistence), since
//! it must kill it.
#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use snodo::{Claim, ErrorCode, OnceOptions, OnceStore, RedisStore, run_once, try_run_once};
use std::io::Read;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod common {
    pub mod once_race;
}

fn url() -> String {
    match std::env::var("SNODO_REDIS_URL") {
        Ok(u) if !u.is_empty() => u,
        _ => panic!(
            "SNODO_REDIS_URL is not set: run scripts/test-rust.sh (it starts Redis via scripts/redis.sh)"
        ),
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// A store on the shared server with a prefix of its own.
fn store(name: &str) -> RedisStore {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    let s = RedisStore::new(&url()).unwrap().with_prefix(&format!("snodo:test:{name}:{nanos}:")).unwrap();
    // Reachable, or this whole suite fails here with the reason.
    s.consume("reachability-check", now() + 5, now())
        .unwrap_or_else(|e| panic!("Redis at SNODO_REDIS_URL is unreachable: {e}"));
    s
}

#[test]
fn consume_twice_second_false_and_expiry() {
    let s = store("consume");
    let t = now();
    assert!(s.consume("tid", t + 300, t).unwrap());
    assert!(!s.consume("tid", t + 300, t).unwrap());
    // A short TTL: one second, then the id may be seen again.
    assert!(s.consume("short", t + 1, t).unwrap());
    assert!(!s.consume("short", t + 1, t).unwrap());
    std::thread::sleep(Duration::from_millis(1200));
    assert!(s.consume("short", t + 1, t).unwrap());
    assert!(!s.consume("tid", t + 300, t).unwrap());
}

#[test]
fn claim_complete_release_and_remembered_text() {
    let s = store("claim");
    let t = now();
    assert_eq!(s.claim("flow", "dig", t + 300, t).unwrap(), Claim::Won);
    assert_eq!(s.claim("flow", "dig", t + 300, t).unwrap(), Claim::Pending);
    s.release("flow", "dig", None).unwrap();
    assert_eq!(s.claim("flow", "dig", t + 300, t).unwrap(), Claim::Won);
    // Arbitrary text survives byte for byte (quotes, newlines, non-ASCII, "done:" inside).
    let text = "{\"r\":\"d\u{e9}j\u{e0} done:pending\\n\"}\n\u{1F600}";
    s.complete("flow", "dig", text, t + 300, t).unwrap();
    assert_eq!(s.claim("flow", "dig", t + 300, t).unwrap(), Claim::Done(text.into()));
    // The first completion stays; release leaves a done result alone.
    s.complete("flow", "dig", "second", t + 300, t).unwrap();
    s.release("flow", "dig", None).unwrap();
    assert_eq!(s.claim("flow", "dig", t + 300, t).unwrap(), Claim::Done(text.into()));
    // A short remembered result expires.
    assert_eq!(s.claim("flow", "short", t + 1, t).unwrap(), Claim::Won);
    s.complete("flow", "short", "x", t + 1, t).unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(s.claim("flow", "short", t + 1, t).unwrap(), Claim::Won);
}

#[test]
fn a_lapsed_lease_can_be_won_again() {
    let s = store("lease").with_lease(Duration::from_millis(200)).unwrap();
    let t = now();
    assert_eq!(s.claim("f", "d", t + 300, t).unwrap(), Claim::Won);
    assert_eq!(s.claim("f", "d", t + 300, t).unwrap(), Claim::Pending);
    std::thread::sleep(Duration::from_millis(350));
    assert_eq!(s.claim("f", "d", t + 300, t).unwrap(), Claim::Won);
}

#[test]
fn eight_threads_two_stores_one_effect_one_text() {
    // Two stores on one prefix stand in for two processes of a fleet.
    let a = Arc::new(store("race"));
    let b = Arc::new(RedisStore::new(&url()).unwrap().with_prefix(a.prefix()).unwrap());
    common::once_race::eight_threads_one_effect_one_text(20, now, || {
        vec![a.clone() as Arc<dyn OnceStore>, b.clone() as Arc<dyn OnceStore>]
    });
}

#[test]
fn a_replayed_token_with_other_answers_is_refused() {
    let s = store("replay");
    let t = now();
    let o = OnceOptions { consume_token: Some(("tok".into(), t + 300)), ..OnceOptions::default() };
    assert_eq!(run_once(&s, "f", "d1", t + 300, t, &o, || "first".into()).unwrap(), "first");
    assert_eq!(run_once(&s, "f", "d1", t + 300, t, &o, || "again".into()).unwrap(), "first");
    let e = run_once(&s, "f", "d2", t + 300, t, &o, || panic!("must not run")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Token);
    assert_eq!(s.claim("f", "d2", t + 300, t).unwrap(), Claim::Won, "the claim was released");
}

#[test]
fn a_failed_effect_gives_its_token_back_in_one_release() {
    let s = store("failed-effect");
    let t = now();
    let o = OnceOptions { consume_token: Some(("tok".into(), t + 300)), ..OnceOptions::default() };
    let failed = try_run_once(&s, "f", "d1", t + 300, t, &o, || Err::<String, _>("ledger down")).unwrap();
    assert_eq!(failed, Err("ledger down"));
    // The same final round retried: the effect runs (not "replayed").
    let again = try_run_once(&s, "f", "d1", t + 300, t, &o, || Ok::<_, ()>("booked".into())).unwrap();
    assert_eq!(again, Ok("booked".to_owned()));
    assert_eq!(run_once(&s, "f", "d1", t + 300, t, &o, || panic!("must not run")).unwrap(), "booked");
    // That success consumed the token: other answers are a replay, and the
    // replay's release leaves the token consumed.
    let e = run_once(&s, "f", "d2", t + 300, t, &o, || panic!("must not run")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Token);
    assert!(!s.consume("tok", t + 300, t).unwrap(), "the replay path freed the other attempt's token");
}

#[test]
fn a_replay_after_a_failed_attempt_keeps_the_winners_token() {
    let s = store("failed-then-replay");
    let t = now();
    let o = OnceOptions { consume_token: Some(("tok".into(), t + 300)), ..OnceOptions::default() };
    assert!(try_run_once(&s, "f", "d1", t + 300, t, &o, || Err::<String, _>(())).unwrap().is_err());
    assert_eq!(run_once(&s, "f", "d2", t + 300, t, &o, || "d2".into()).unwrap(), "d2");
    let e = run_once(&s, "f", "d1", t + 300, t, &o, || panic!("must not run")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Token);
    assert!(!s.consume("tok", t + 300, t).unwrap());
}

#[test]
fn release_with_a_token_deletes_both_keys_only_while_pending() {
    let s = store("release-token");
    let t = now();
    assert!(s.consume("tok", t + 300, t).unwrap());
    assert_eq!(s.claim("f", "d", t + 300, t).unwrap(), Claim::Won);
    s.complete("f", "d", "done", t + 300, t).unwrap();
    s.release("f", "d", Some("tok")).unwrap();
    assert!(!s.consume("tok", t + 300, t).unwrap(), "a done claim gives nothing back");
    assert_eq!(s.claim("f", "e", t + 300, t).unwrap(), Claim::Won);
    s.release("f", "e", Some("tok")).unwrap();
    assert!(s.consume("tok", t + 300, t).unwrap(), "a pending claim gives its token back");
    assert_eq!(s.claim("f", "e", t + 300, t).unwrap(), Claim::Won);
}

#[test]
fn an_unreachable_or_silent_redis_is_a_quick_error() {
    // Nothing listens on this port (bound, then closed).
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let s = RedisStore::new(&format!("redis://127.0.0.1:{port}/"))
        .unwrap()
        .with_timeout(Duration::from_millis(300))
        .unwrap();
    let e = s.consume("t", now() + 5, now()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store, "{e}");
    // A server that accepts and never answers: the read timeout, not a hang.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let holder = std::thread::spawn(move || {
        let (mut c, _) = silent.accept().unwrap();
        let mut buf = [0u8; 256];
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline && c.read(&mut buf).is_ok_and(|n| n > 0) {}
    });
    let s = RedisStore::new(&format!("redis://127.0.0.1:{port}/"))
        .unwrap()
        .with_timeout(Duration::from_millis(300))
        .unwrap();
    let started = Instant::now();
    let mut ran = false;
    let e = run_once(&s, "f", "d", now() + 5, now(), &OnceOptions::default(), || {
        ran = true;
        String::new()
    })
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store, "{e}");
    assert!(!ran);
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    drop(holder);
    assert_eq!(RedisStore::new("not a url").unwrap_err().code(), ErrorCode::Config);
}

/// A private redis-server, killed when dropped (also when a test fails).
struct Private(Child);

impl Private {
    fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Private {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A private redis-server on `port`, no persistence, answering PING.
fn private_redis(port: u16) -> Private {
    let child = Command::new("redis-server")
        .args(["--save", "", "--appendonly", "no", "--bind", "127.0.0.1", "--daemonize", "no"])
        .args(["--port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start redis-server (scripts/redis.sh installs it): {e}"));
    let deadline = Instant::now() + Duration::from_secs(5);
    let child = Private(child);
    let probe = RedisStore::new(&format!("redis://127.0.0.1:{port}/")).unwrap();
    while probe.consume("ping", now() + 1, now()).is_err() {
        assert!(Instant::now() < deadline, "the private redis-server did not come up");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

#[test]
fn redis_stopped_fails_closed_and_a_restart_resumes() {
    let _ = url(); // The suite needs the shared server too.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = private_redis(port);
    let s = RedisStore::new(&format!("redis://127.0.0.1:{port}/"))
        .unwrap()
        .with_timeout(Duration::from_millis(500))
        .unwrap();
    let effects = AtomicUsize::new(0);
    let effect = || {
        effects.fetch_add(1, Ordering::SeqCst);
        "booked".to_owned()
    };
    let t = now();
    let o = OnceOptions::default();
    assert_eq!(run_once(&s, "f", "d", t + 300, t, &o, effect).unwrap(), "booked");
    assert!(s.consume("tok", t + 300, t).unwrap());

    server.stop();
    // Stopped: every call is a STORE error, and no effect runs.
    for digest in ["d", "other"] {
        let e = run_once(&s, "f", digest, t + 300, t, &o, effect).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Store, "{e}");
    }
    assert_eq!(s.consume("tok", t + 300, t).unwrap_err().code(), ErrorCode::Store);
    assert_eq!(effects.load(Ordering::SeqCst), 1);

    // Restarted empty (no persistence): service resumes on the same store
    // object, and what was remembered is gone (docs/once.md).
    let mut server = private_redis(port);
    assert_eq!(run_once(&s, "f", "other", t + 300, t, &o, effect).unwrap(), "booked");
    assert_eq!(effects.load(Ordering::SeqCst), 2);
    assert!(s.consume("tok", t + 300, t).unwrap(), "an empty Redis forgot the consumed id");
    assert_eq!(s.claim("f", "d", t + 300, t).unwrap(), Claim::Won, "an empty Redis forgot the result");
    server.stop();
}
