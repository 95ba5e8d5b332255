//! Issue 16, ninth pass: `Call::response` takes the handler's question's
//! digest from this thread's kept copies (the memo `decide` fills) when an
//! equal question is kept. The pinned digest must still be compared with
//! the digest of exactly the question the handler passes: a changed
//! question gives `Answer::Changed` (or `Missing` when unanswered) however
//! many near misses the memo holds, and an equal one (in any key order)
//! is read as before. The reference is the same call answered on a fresh
//! thread, whose memo is empty, so every digest there is a full walk.
#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "common/asking.rs"]
mod common;

use proptest::prelude::*;
use serde_json::{Value, json};
use snodo::{Answer, Config, Engine, Key};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;

fn engine() -> Engine {
    let mut config = Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(1_800_000_000);
    config.test_random_seed = 11;
    Engine::new(config).unwrap()
}

/// Round 1 (`retry` = None) or a retry carrying the token and, when
/// `answered`, an answer under `q`.
fn request(retry: Option<(&str, bool)>) -> String {
    let extra = match retry {
        Some((token, true)) => format!(
            r#","inputResponses":{{"q":{{"action":"accept","content":{{"seat":"12A"}}}}}},"requestState":"{token}""#
        ),
        Some((token, false)) => format!(r#","requestState":"{token}""#),
        None => String::new(),
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"t","arguments":{{}}{extra},{META}}}}}"#
    )
}

/// Asks `question` under `q` in a first round (through `decide`, which
/// validates it); the token.
fn ask(engine: &Engine, question: &Value) -> String {
    common::ask(engine, &request(None), question)
}

/// The answer a handler asking `question` reads on the retry of `token`.
fn answer(engine: &Engine, token: &str, answered: bool, question: &Value) -> Answer {
    common::call(engine, &request(Some((token, answered)))).response("q", question)
}

/// Near misses of one question: a number's spelling, a message's last
/// byte, a property's name, a bound; and one equal to the first with its
/// keys in another order.
fn variants() -> Vec<Value> {
    let form = |message: &str, field: &str, max: Value| {
        json!({"method": "elicitation/create", "params": {"message": message,
            "requestedSchema": {"type": "object", "properties": {field: {"type": "string", "maxLength": max}}}}})
    };
    let reordered: Value = serde_json::from_str(
        r#"{"params":{"requestedSchema":{"properties":{"seat":{"maxLength":5,"type":"string"}},"type":"object"},"message":"Seat?"},"method":"elicitation/create"}"#,
    )
    .unwrap();
    vec![
        form("Seat?", "seat", json!(5)),
        form("Seat?", "seat", serde_json::from_str("5.0").unwrap()),
        form("Seat? ", "seat", json!(5)),
        form("Seat?", "sea", json!(5)),
        form("Seat?", "seat", json!(6)),
        form("Seat?", "seat", json!(2)),
        reordered,
    ]
}

#[test]
fn a_changed_question_is_changed_even_when_both_are_kept() {
    let engine = engine();
    let (q, near) = (&variants()[0], &variants()[1]);
    // Each asked twice: passed, then kept by the memo.
    for _ in 0..2 {
        ask(&engine, near);
    }
    ask(&engine, q);
    let token = ask(&engine, q);
    assert_eq!(answer(&engine, &token, true, q), Answer::Accepted(json!({"seat": "12A"})));
    assert_eq!(answer(&engine, &token, true, &variants()[6]), Answer::Accepted(json!({"seat": "12A"})));
    assert_eq!(answer(&engine, &token, true, near), Answer::Changed, "5.0 is not 5");
    assert_eq!(answer(&engine, &token, false, near), Answer::Missing);
    assert_eq!(answer(&engine, &token, false, q), Answer::Missing);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random questions kept (more than the memo holds, so some are
    /// replaced), a random one pinned, a random one read: the answer is
    /// the one a thread with an empty memo reads, and `Changed`/`Missing`
    /// exactly when the question differs.
    #[test]
    fn response_reads_what_a_cold_thread_reads(
        warm in prop::collection::vec(0usize..7, 0..8),
        pinned in 0usize..7,
        read in 0usize..7,
        answered in any::<bool>(),
    ) {
        let (engine, qs) = (engine(), variants());
        for &i in &warm {
            ask(&engine, &qs[i]);
        }
        let token = ask(&engine, &qs[pinned]);
        let warm_answer = answer(&engine, &token, answered, &qs[read]);
        let cold = std::thread::scope(|s| s.spawn(|| answer(&engine, &token, answered, &qs[read])).join().unwrap());
        prop_assert_eq!(&warm_answer, &cold);
        let same = qs[pinned] == qs[read];
        match (&warm_answer, answered, same) {
            (Answer::Missing, false, _) | (Answer::Changed, true, false) => {}
            (a, true, true) => prop_assert!(!matches!(a, Answer::Missing | Answer::Changed), "{:?}", a),
            (a, _, _) => prop_assert!(false, "{:?} (answered {}, same {})", a, answered, same),
        }
    }
}
