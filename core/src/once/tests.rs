//! Unit tests of the once machine's parts: ids and keys, commands and their
//! arguments, the reply reader, the machine's order of steps and waits,
//! and the memory store's expiry and bounds. The model-based and race
//! tests are in `core/tests/once_memory.rs` and `once_redis.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use serde_json::json;

use super::command::{Reply, read_reply};
use super::*;
use crate::{Begin, Call, Config, Engine, ErrorCode, Key, Outcome, Principal};

const T0: u64 = 1_800_000_000;

fn engine() -> Engine {
    let mut config = Config::new(vec![Key::new("k", vec![1u8; 32]).unwrap()]);
    config.clock = Some(std::sync::Arc::new(|| T0));
    Engine::new(config).unwrap()
}

fn call(engine: &Engine, text: &str, who: Option<&str>) -> Call {
    match engine.begin(text.as_bytes(), &Principal::from_option(who).unwrap()).unwrap() {
        Begin::Call(c) => *c,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;

/// A final round of a fresh flow for `who`, answering `nights`.
fn final_round(engine: &Engine, who: Option<&str>, nights: u64) -> Call {
    let first = call(
        engine,
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"b",{META}}}}}"#),
        who,
    );
    let q =
        crate::elicit_form("n?", &json!({"type":"object","properties":{"n":{"type":"integer"}}})).unwrap();
    let r = engine
        .decide(&first, Outcome::InputRequired { requests: vec![("q".into(), q)], state: None })
        .unwrap();
    let token = r.body().pointer("/result/requestState").unwrap().as_str().unwrap().to_owned();
    call(
        engine,
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"b",{META},"requestState":"{token}","inputResponses":{{"q":{{"action":"accept","content":{{"n":{nights}}}}}}}}}}}"#
        ),
        who,
    )
}

#[test]
fn ids_are_base64url_and_prefixes_keep_the_hash_tag_theirs() {
    assert!(check_once_id("id", "AbC-_09").is_ok());
    for bad in ["", "a:b", "a b", "{a}", "a.b", "é", &"a".repeat(MAX_ONCE_ID_BYTES + 1)] {
        assert_eq!(check_once_id("id", bad).unwrap_err().code(), ErrorCode::Argument, "{bad:?}");
    }
    assert!(check_once_prefix("").is_ok());
    assert!(check_once_prefix("snodo:once:billing:").is_ok());
    for bad in ["a b", "{x}:", "x}", "\u{7f}", &"p".repeat(MAX_ONCE_PREFIX_BYTES + 1)] {
        assert_eq!(check_once_prefix(bad).unwrap_err().code(), ErrorCode::Config, "{bad:?}");
    }
    assert_eq!(once_flow_key("p:", "F1").unwrap(), "p:flow:{F1}");
    assert_eq!(once_flow_key("p:", "a:b").unwrap_err().code(), ErrorCode::Argument);
}

#[test]
fn a_first_round_has_no_flow_to_key_on() {
    let e = engine();
    let first = call(
        &e,
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"b",{META}}}}}"#),
        None,
    );
    let settings = MemoryStore::new().settings().clone();
    for err in [
        OnceRun::new(&first, &settings, &OnceOptions::default()).unwrap_err(),
        OnceRun::lookup(&first, &settings).unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::Argument);
        assert!(err.message().contains("not a retry"));
    }
}

#[test]
fn commands_carry_the_flow_key_and_the_scripts_arguments() {
    let e = engine();
    let c = final_round(&e, Some("alice"), 2);
    let settings = OnceSettings::new("p:", Duration::from_millis(1500)).unwrap();
    let mut run = OnceRun::new(&c, &settings, &OnceOptions::default()).unwrap();
    let OnceStep::Command(claim) = run.start().unwrap() else { panic!() };
    let key = format!("p:flow:{{{}}}", c.flow_id().unwrap());
    let keep = ((T0 + 3600 + 60 + 60) * 1000).to_string();
    assert_eq!((claim.op(), claim.key()), (OnceOp::Claim, key.as_str()));
    assert_eq!(claim.script(), ONCE_CLAIM_SCRIPT);
    assert_eq!(claim.args(), vec![c.answers_digest(), claim.owner().to_owned(), "1500".into(), keep.clone()]);
    assert_eq!(claim.owner().len(), 22, "16 random bytes, base64url");
    assert_eq!(claim.principal(), "alice");
    let OnceStep::Effect(ticket) = run.feed("won 3").unwrap() else { panic!() };
    assert_eq!((ticket.fence(), run.fence()), (3, 3));
    let extend = ticket.extend_command();
    assert_eq!(extend.args(), vec![claim.owner().to_owned(), "1500".into(), keep.clone()]);
    assert!(ticket.extended("extended 3").unwrap());
    assert!(!ticket.extended("lost").unwrap());
    let OnceStep::Command(complete) = run.effect_done("the text".into()).unwrap() else { panic!() };
    assert_eq!(complete.args(), vec![claim.owner().to_owned(), "the text".into(), "1500".into(), keep]);
    assert_eq!(run.feed("completed").unwrap(), OnceStep::Done("the text".into()));
    // Two runs never share an owner.
    let mut other = OnceRun::new(&c, &settings, &OnceOptions::default()).unwrap();
    let OnceStep::Command(claim2) = other.start().unwrap() else { panic!() };
    assert_ne!(claim.owner(), claim2.owner());
}

#[test]
fn the_reader_takes_only_what_each_command_can_answer() {
    assert_eq!(read_reply(OnceOp::Claim, "won 1").unwrap(), Reply::Won(1));
    assert_eq!(read_reply(OnceOp::Claim, "pending 2").unwrap(), Reply::Pending(2));
    assert_eq!(
        read_reply(OnceOp::Claim, "done 2 D a text with spaces").unwrap(),
        Reply::Done { digest: "D", text: "a text with spaces" }
    );
    assert_eq!(read_reply(OnceOp::Lookup, "done 1 D ").unwrap(), Reply::Done { digest: "D", text: "" });
    assert_eq!(read_reply(OnceOp::Lookup, "free 0").unwrap(), Reply::Free);
    assert_eq!(read_reply(OnceOp::Lookup, "none").unwrap(), Reply::None);
    assert_eq!(read_reply(OnceOp::Complete, "lost").unwrap(), Reply::Lost);
    let foreign = read_reply(OnceOp::Claim, "foreign").unwrap_err();
    assert!(foreign.message().contains("does not write"));
    for (op, bad) in [
        (OnceOp::Claim, "won 0"),
        (OnceOp::Claim, "won"),
        (OnceOp::Claim, "won x"),
        (OnceOp::Claim, "free 1"),
        (OnceOp::Claim, "done 1 D"),
        (OnceOp::Complete, "released"),
        (OnceOp::Release, "completed"),
        (OnceOp::Release, "lost now"),
        (OnceOp::Lookup, "won 1"),
        (OnceOp::Lookup, "none yet"),
        (OnceOp::Extend, "extended"),
        (OnceOp::Claim, ""),
    ] {
        assert_eq!(read_reply(op, bad).unwrap_err().code(), ErrorCode::Store, "{op:?} {bad:?}");
    }
}

#[test]
fn steps_out_of_order_are_errors_and_a_bad_reply_ends_the_run() {
    let e = engine();
    let c = final_round(&e, None, 1);
    let settings = MemoryStore::new().settings().clone();
    let mut run = OnceRun::new(&c, &settings, &OnceOptions::default()).unwrap();
    assert_eq!(run.feed("won 1").unwrap_err().code(), ErrorCode::Argument);
    assert_eq!(run.effect_done("x".into()).unwrap_err().code(), ErrorCode::Argument);
    assert_eq!(run.resume().unwrap_err().code(), ErrorCode::Argument);
    run.start().unwrap();
    assert_eq!(run.start().unwrap_err().code(), ErrorCode::Argument);
    assert_eq!(run.feed("garbage").unwrap_err().code(), ErrorCode::Store);
    assert_eq!(run.feed("won 1").unwrap_err().code(), ErrorCode::Argument, "ended");
}

#[test]
fn a_pending_claim_is_polled_with_doubling_pauses_then_reported_still_running() {
    let e = engine();
    let c = final_round(&e, None, 1);
    let settings = MemoryStore::new().settings().clone();
    let options = OnceOptions {
        wait: Duration::from_millis(100),
        poll_initial: Duration::from_millis(10),
        poll_max: Duration::from_millis(40),
    };
    let mut run = OnceRun::new(&c, &settings, &options).unwrap();
    run.start().unwrap();
    let mut pauses = Vec::new();
    let err = loop {
        match run.feed("pending 1") {
            Ok(OnceStep::Sleep(p)) => {
                pauses.push(p.as_millis());
                run.resume().unwrap();
            }
            Ok(other) => panic!("{other:?}"),
            Err(e) => break e,
        }
    };
    assert_eq!(pauses, vec![10, 20, 40, 30]);
    assert_eq!(err.code(), ErrorCode::Store);
    assert!(err.message().contains("still running"));
}

#[test]
fn a_completion_lost_to_a_takeover_is_an_error_and_a_lost_release_still_ends() {
    let e = engine();
    let c = final_round(&e, None, 1);
    let settings = MemoryStore::new().settings().clone();
    let mut run = OnceRun::new(&c, &settings, &OnceOptions::default()).unwrap();
    run.start().unwrap();
    run.feed("won 1").unwrap();
    run.effect_done("t".into()).unwrap();
    let err = run.feed("lost").unwrap_err();
    assert_eq!(err.code(), ErrorCode::Store);
    assert!(err.message().contains("taken over"));
    let mut run = OnceRun::new(&c, &settings, &OnceOptions::default()).unwrap();
    run.start().unwrap();
    run.feed("won 1").unwrap();
    run.effect_failed().unwrap();
    assert_eq!(run.feed("lost").unwrap(), OnceStep::Released);
}

#[test]
fn lookup_answers_open_the_remembered_result_or_replayed() {
    let e = engine();
    let c = final_round(&e, None, 1);
    let settings = MemoryStore::new().settings().clone();
    let digest = c.answers_digest();
    for (reply, want) in [
        ("none".to_owned(), Ok(OnceStep::Open)),
        ("free 1".to_owned(), Ok(OnceStep::Open)),
        ("pending 1".to_owned(), Ok(OnceStep::Open)),
        (format!("done 1 {digest} R"), Ok(OnceStep::Done("R".into()))),
        ("done 1 other R".to_owned(), Err(ErrorCode::Token)),
    ] {
        let mut run = OnceRun::lookup(&c, &settings).unwrap();
        let OnceStep::Command(cmd) = run.start().unwrap() else { panic!() };
        assert_eq!(cmd.op(), OnceOp::Lookup);
        assert_eq!(run.feed(&reply).map_err(|e| e.code()), want, "{reply}");
    }
}

#[test]
fn memory_records_expire_through_the_index_at_the_flows_end() {
    let e = engine();
    let store = MemoryStore::new();
    let c = final_round(&e, Some("bob"), 1);
    let mut run = OnceRun::new(&c, store.settings(), &OnceOptions::default()).unwrap();
    let OnceStep::Command(claim) = run.start().unwrap() else { panic!() };
    let now = T0 * 1000;
    assert_eq!(store.execute_at(&claim, now).unwrap(), "won 1");
    run.feed("won 1").unwrap();
    let OnceStep::Command(complete) = run.effect_done("R".into()).unwrap() else { panic!() };
    assert_eq!(store.execute_at(&complete, now + 5).unwrap(), "completed");
    assert_eq!((store.len(), store.bytes() > 0), (1, true));
    let keep = claim.keep_until_ms();
    let mut look = OnceRun::lookup(&c, store.settings()).unwrap();
    let OnceStep::Command(lookup) = look.start().unwrap() else { panic!() };
    assert!(store.execute_at(&lookup, keep).unwrap().starts_with("done 1 "), "kept through its last instant");
    assert_eq!(store.execute_at(&lookup, keep + 1).unwrap(), "none");
    assert_eq!((store.len(), store.bytes()), (0, 0), "dropped with its bytes");
}

#[test]
fn memory_limits_are_checked_at_construction() {
    assert!(MemoryStore::with_limits(1024, 1024, Duration::from_millis(1)).is_ok());
    for (bytes, share, lease) in [(1023, 1023, 1), (4096, 1023, 1), (4096, 4097, 1), (4096, 4096, 0)] {
        let e = MemoryStore::with_limits(bytes, share, Duration::from_millis(lease)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Config, "{bytes} {share} {lease}");
    }
    assert_eq!(OnceSettings::new("p", Duration::ZERO).unwrap_err().code(), ErrorCode::Config);
}

#[test]
fn only_noeviction_is_a_safe_policy() {
    assert!(check_once_eviction_policy("noeviction").is_ok());
    for p in ["allkeys-lru", "volatile-ttl", "volatile-lfu", "allkeys-random", ""] {
        assert_eq!(check_once_eviction_policy(p).unwrap_err().code(), ErrorCode::Store, "{p}");
    }
}

#[test]
fn every_script_touches_only_its_one_key() {
    // One key per flow is what makes the scripts run on Redis Cluster.
    for script in
        [ONCE_CLAIM_SCRIPT, ONCE_COMPLETE_SCRIPT, ONCE_RELEASE_SCRIPT, ONCE_EXTEND_SCRIPT, ONCE_LOOKUP_SCRIPT]
    {
        assert!(!script.contains("KEYS[2]"), "{script}");
        assert!(script.ends_with('\n'));
    }
}
