//! The once machine on real Redis (feature `redis`): a single server and a
//! 3-master Redis Cluster. Run by scripts/test-rust.sh, which starts both
//! (scripts/redis.sh) and sets `SNODO_REDIS_URL` and
//! `SNODO_REDIS_CLUSTER_URLS`. Without them these tests FAIL, never skip.
//!
//! Each test uses its own key prefix, so they share the servers while
//! running in parallel. Scenarios that must kill, misconfigure or replicate
//! a server start private `redis-server`s (no persistence).
#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use snodo::{
    Call, ErrorCode, ONCE_REPLAYED_MESSAGE, OnceCommand, OnceOptions, OnceSettings, OnceStore, RedisStore,
    check_once, run_once, try_run_once,
};
use std::io::Read;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod common {
    pub mod once_calls;
    pub mod once_model;
    pub mod once_race;
}
use common::{once_calls, once_model};

fn env(name: &str) -> String {
    match std::env::var(name) {
        Ok(u) if !u.is_empty() => u,
        _ => panic!("{name} is not set: run scripts/test-rust.sh (it starts Redis via scripts/redis.sh)"),
    }
}

fn unique(name: &str) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("snodo:test:{name}:{nanos}:")
}

/// A store on the shared server with a prefix of its own.
fn single(prefix: &str, lease: Duration) -> RedisStore {
    RedisStore::new(&env("SNODO_REDIS_URL")).unwrap().with_prefix(prefix).unwrap().with_lease(lease).unwrap()
}

/// A store on the shared cluster with a prefix of its own.
fn cluster(prefix: &str, lease: Duration) -> RedisStore {
    let urls = env("SNODO_REDIS_CLUSTER_URLS");
    let urls: Vec<&str> = urls.split(',').collect();
    RedisStore::cluster(&urls).unwrap().with_prefix(prefix).unwrap().with_lease(lease).unwrap()
}

/// Two stores on one backend (two processes of a fleet) on Redis's own
/// clock: a lapse waits one lease and a margin.
struct Fleet {
    stores: Vec<RedisStore>,
    lease: Duration,
}

impl once_model::Backend for Fleet {
    fn settings(&self) -> OnceSettings {
        self.stores[0].settings().clone()
    }
    fn execute(&self, process: usize, command: &OnceCommand) -> snodo::Result<String> {
        self.stores[process % self.stores.len()].execute(command)
    }
    fn lapse(&mut self) {
        std::thread::sleep(self.lease + Duration::from_millis(150));
    }
}

// Leases on Redis's clock: long enough that no step of a case outlives
// one by accident, short enough that a lapse is a short sleep.
const MODEL_LEASE: Duration = Duration::from_millis(1500);

proptest! {
    #![proptest_config(ProptestConfig { cases: 20, ..ProptestConfig::default() })]

    #[test]
    fn the_machine_on_one_redis_matches_the_model(ops in once_model::schedule(40, 1)) {
        let engine = once_calls::engine();
        let calls = once_calls::grid(&engine, 2, 2, 2);
        let prefix = unique("model");
        let mut fleet = Fleet { stores: vec![single(&prefix, MODEL_LEASE), single(&prefix, MODEL_LEASE)], lease: MODEL_LEASE };
        once_model::run(&mut fleet, &calls, 2, &ops);
    }

    #[test]
    fn the_machine_on_a_cluster_matches_the_model(ops in once_model::schedule(40, 1)) {
        let engine = once_calls::engine();
        let calls = once_calls::grid(&engine, 2, 2, 2);
        let prefix = unique("cmodel");
        let mut fleet = Fleet { stores: vec![cluster(&prefix, MODEL_LEASE), cluster(&prefix, MODEL_LEASE)], lease: MODEL_LEASE };
        once_model::run(&mut fleet, &calls, 2, &ops);
    }
}

#[test]
fn eight_threads_on_two_processes_book_a_flow_once() {
    let engine = once_calls::engine();
    for (i, make) in [single as fn(&str, Duration) -> RedisStore, cluster].into_iter().enumerate() {
        for _ in 0..10 {
            let prefix = unique(&format!("race{i}"));
            let lease = Duration::from_secs(30);
            let stores: Vec<Arc<dyn OnceStore>> =
                vec![Arc::new(make(&prefix, lease)), Arc::new(make(&prefix, lease))];
            common::once_race::eight_threads_one_flow(&once_calls::grid(&engine, 1, 2, 2)[0], &stores);
        }
    }
}

fn redis_cli(args: &[&str]) -> String {
    let url = env("SNODO_REDIS_URL");
    let port = url.trim_end_matches('/').rsplit(':').next().unwrap().to_owned();
    let out = Command::new("redis-cli").args(["-p", &port]).args(args).output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn one_hash_per_flow_kept_for_the_flows_whole_life() {
    let engine = once_calls::engine();
    let prefix = unique("record");
    let s = single(&prefix, Duration::from_secs(30));
    let call: &Call = &once_calls::grid(&engine, 1, 1, 1)[0][0][0];
    let text = run_once(&s, call, &OnceOptions::default(), |l| format!("fence {}", l.fence())).unwrap();
    assert_eq!(text, "fence 1");
    let key = format!("{prefix}flow:{{{}}}", call.flow_id().unwrap());
    assert_eq!(redis_cli(&["--scan", "--pattern", &format!("{prefix}*")]), key, "one key per flow");
    assert_eq!(redis_cli(&["hget", &key, "state"]), "done");
    assert_eq!(redis_cli(&["hget", &key, "fence"]), "1");
    assert_eq!(redis_cli(&["hget", &key, "digest"]), call.answers_digest());
    assert_eq!(redis_cli(&["hget", &key, "text"]), "fence 1");
    assert_eq!(redis_cli(&["hexists", &key, "owner"]), "0");
    // Kept until the flow's last possible use, plus the skew once more for
    // Redis's own clock: no caller's clock, no one-second floor.
    let expire_ms: u64 = redis_cli(&["pexpiretime", &key]).parse().unwrap();
    let want = (call.flow_expires_at().unwrap() + snodo::DEFAULT_CLOCK_SKEW_SECS) * 1000;
    assert_eq!(expire_ms, want);
}

#[test]
fn a_completed_flow_driven_on_through_a_new_token_books_nothing() {
    let engine = once_calls::engine();
    let prefix = unique("attack");
    let (a, b) = (single(&prefix, Duration::from_secs(30)), single(&prefix, Duration::from_secs(30)));
    let tokens = once_calls::flow_tokens(&engine, "book", "alice", 1);
    let booked = once_calls::final_round(&engine, "book", "alice", &tokens[0], Some(2));
    assert_eq!(run_once(&a, &booked, &OnceOptions::default(), |_| "entry 1".into()).unwrap(), "entry 1");
    let again = once_calls::ask_again(&engine, "book", "alice", &tokens[0]);
    for (store, nights) in [(&a, 3), (&b, 4)] {
        let other = once_calls::final_round(&engine, "book", "alice", &again, Some(nights));
        let e = run_once(store, &other, &OnceOptions::default(), |_| panic!("a second booking")).unwrap_err();
        assert_eq!((e.code(), e.message()), (ErrorCode::Token, ONCE_REPLAYED_MESSAGE));
        assert_eq!(check_once(store, &other).unwrap_err().code(), ErrorCode::Token);
    }
    let same = once_calls::final_round(&engine, "book", "alice", &again, Some(2));
    assert_eq!(run_once(&b, &same, &OnceOptions::default(), |_| panic!("ran again")).unwrap(), "entry 1");
}

#[test]
fn a_late_release_after_a_takeover_changes_nothing() {
    let engine = once_calls::engine();
    let prefix = unique("late");
    let lease = Duration::from_millis(300);
    let s = single(&prefix, lease);
    let call = &once_calls::grid(&engine, 1, 1, 1)[0][0][0];
    let effects = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        // The first owner is slow: its lease lapses mid-effect, then its
        // effect fails and it releases, late.
        let slow = scope.spawn(|| {
            try_run_once(&s, call, &OnceOptions::default(), |lease| {
                assert_eq!(lease.fence(), 1);
                std::thread::sleep(Duration::from_millis(700));
                assert!(!lease.extend().unwrap(), "a lapsed, taken-over lease extended");
                Err::<String, _>("gave up")
            })
        });
        std::thread::sleep(Duration::from_millis(450));
        let text = run_once(&s, call, &OnceOptions::default(), |lease| {
            effects.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(500));
            format!("fence {}", lease.fence())
        })
        .unwrap();
        assert_eq!(text, "fence 2");
        assert_eq!(slow.join().unwrap().unwrap(), Err("gave up"));
    });
    // The late release deleted nothing: the result stays remembered.
    assert_eq!(check_once(&s, call).unwrap().as_deref(), Some("fence 2"));
    assert_eq!(effects.load(Ordering::SeqCst), 1);
}

#[test]
fn an_unreachable_or_silent_redis_is_a_quick_error() {
    let engine = once_calls::engine();
    let call = &once_calls::grid(&engine, 1, 1, 1)[0][0][0];
    // Nothing listens on this port (bound, then closed).
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let s = RedisStore::new(&format!("redis://127.0.0.1:{port}/"))
        .unwrap()
        .with_timeout(Duration::from_millis(300))
        .unwrap();
    let e = check_once(&s, call).unwrap_err();
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
    let e = run_once(&s, call, &OnceOptions::default(), |_| panic!("ran on a silent store")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store, "{e}");
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    drop(holder);
    assert_eq!(RedisStore::new("not a url").unwrap_err().code(), ErrorCode::Config);
    assert_eq!(RedisStore::cluster(&[]).unwrap_err().code(), ErrorCode::Config);
}

/// A private redis-server, killed when dropped (also when a test fails).
struct Private(Child, u16);

impl Private {
    fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.1)
    }
}

impl Drop for Private {
    fn drop(&mut self) {
        self.stop();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A private redis-server on `port`, no persistence, with `extra`
/// arguments, answering PING. Its working directory is a fresh temporary
/// one: a replica writes the RDB it receives there.
fn private_redis(port: u16, extra: &[&str]) -> Private {
    let dir = std::env::temp_dir().join(format!("snodo-redis-{port}"));
    std::fs::create_dir_all(&dir).unwrap();
    let child = Command::new("redis-server")
        .current_dir(&dir)
        .args(["--save", "", "--appendonly", "no", "--bind", "127.0.0.1", "--daemonize", "no"])
        .args(["--port", &port.to_string()])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start redis-server (scripts/redis.sh installs it): {e}"));
    let server = Private(child, port);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let out = Command::new("redis-cli").args(["-p", &port.to_string(), "ping"]).output().unwrap();
        if String::from_utf8_lossy(&out.stdout).trim() == "PONG" {
            return server;
        }
        assert!(Instant::now() < deadline, "the private redis-server did not come up");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_evicting_maxmemory_policy_is_refused_unless_allowed() {
    let engine = once_calls::engine();
    let call = &once_calls::grid(&engine, 1, 1, 1)[0][0][0];
    let server = private_redis(free_port(), &["--maxmemory", "64mb", "--maxmemory-policy", "volatile-lru"]);
    let s = RedisStore::new(&server.url()).unwrap();
    let e = s.check().unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store);
    assert!(e.message().contains("volatile-lru"), "{}", e.message());
    // Before the first command too: nothing runs on it.
    let e = run_once(&s, call, &OnceOptions::default(), |_| panic!("ran on an evicting Redis")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store);
    // Opted in: it runs (with a warning on standard error).
    let allowed = RedisStore::new(&server.url()).unwrap().allow_evicting_policy();
    assert_eq!(allowed.check().unwrap(), vec!["volatile-lru".to_owned()]);
    assert_eq!(run_once(&allowed, call, &OnceOptions::default(), |_| "ok".into()).unwrap(), "ok");
    // The shared servers run noeviction, as a deployment must.
    assert_eq!(single(&unique("policy"), Duration::from_secs(1)).check().unwrap(), vec!["noeviction"]);
    assert_eq!(cluster(&unique("policy"), Duration::from_secs(1)).check().unwrap(), vec!["noeviction"; 3]);
}

#[test]
fn wait_for_replicas_runs_nothing_the_replicas_did_not_confirm() {
    let engine = once_calls::engine();
    let calls = once_calls::grid(&engine, 2, 1, 1);
    let master = private_redis(free_port(), &[]);
    // No replica: the claim is not confirmed, and the effect never runs.
    let lonely =
        RedisStore::new(&master.url()).unwrap().with_replicas(1, Duration::from_millis(100)).unwrap();
    let e = run_once(&lonely, &calls[0][0][0], &OnceOptions::default(), |_| panic!("ran unconfirmed"))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Store);
    assert!(e.message().contains("0 of 1 replicas"), "{}", e.message());
    // With a replica attached: confirmed, and it books.
    let master_port = master.1.to_string();
    let _replica = private_redis(free_port(), &["--replicaof", "127.0.0.1", &master_port]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let replicated =
        RedisStore::new(&master.url()).unwrap().with_replicas(1, Duration::from_millis(500)).unwrap();
    loop {
        match run_once(&replicated, &calls[1][0][0], &OnceOptions::default(), |_| "booked".into()) {
            Ok(text) => {
                assert_eq!(text, "booked");
                break;
            }
            // The replica is still syncing: its claim was not confirmed.
            Err(e) if Instant::now() < deadline && e.code() == ErrorCode::Store => {
                std::thread::sleep(Duration::from_millis(200))
            }
            Err(e) => panic!("{e}"),
        }
    }
    let urls = env("SNODO_REDIS_CLUSTER_URLS");
    let nodes: Vec<&str> = urls.split(',').collect();
    let e = RedisStore::cluster(&nodes).unwrap().with_replicas(1, Duration::from_millis(100)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Config);
}

#[test]
fn redis_stopped_fails_closed_and_a_restart_resumes() {
    let engine = once_calls::engine();
    let calls = once_calls::grid(&engine, 1, 1, 2);
    let port = free_port();
    let mut server = private_redis(port, &[]);
    let s = RedisStore::new(&server.url()).unwrap().with_timeout(Duration::from_millis(500)).unwrap();
    let effects = AtomicUsize::new(0);
    let effect = |_: &snodo::OnceLease<'_, RedisStore>| {
        effects.fetch_add(1, Ordering::SeqCst);
        "booked".to_owned()
    };
    let o = OnceOptions::default();
    assert_eq!(run_once(&s, &calls[0][0][0], &o, effect).unwrap(), "booked");
    server.stop();
    // Stopped: every call is a STORE error, and no effect runs.
    for call in &calls[0][0] {
        let e = run_once(&s, call, &o, effect).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Store, "{e}");
    }
    assert_eq!(effects.load(Ordering::SeqCst), 1);
    // Restarted empty (no persistence): service resumes on the same store
    // object, and what was remembered is gone (docs/once.md).
    let _server = private_redis(port, &[]);
    assert_eq!(check_once(&s, &calls[0][0][0]).unwrap(), None, "an empty Redis forgot the flow");
    assert_eq!(run_once(&s, &calls[0][0][1], &o, effect).unwrap(), "booked");
    assert_eq!(effects.load(Ordering::SeqCst), 2);
}
