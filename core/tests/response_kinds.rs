//! Issue 16, thirteenth pass: `Call::response` does not validate again a
//! question whose digest passed validation on this thread (in `decide`,
//! or an earlier `response`); it takes the kind validation found then.
//! What must hold: every answer reads exactly as on a fresh thread, whose
//! memo is empty and which therefore validates every question; the kind
//! (form or URL) is the question's own, never another kept question's; and
//! a question that fails validation is never remembered, however often it
//! is read (a token can pin one: the low-level `Engine::seal` pins any
//! question).
#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "common/asking.rs"]
mod common;

use proptest::prelude::*;
use serde_json::{Value, json};
use snodo::{Answer, Config, Engine, Key, Principal};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}}"#;

fn engine() -> Engine {
    let mut config = Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(1_800_000_000);
    config.test_random_seed = 13;
    Engine::new(config).unwrap()
}

fn who() -> Principal {
    Principal::user("alice").unwrap()
}

/// A first round (`retry` None) or a retry carrying `token` and `answer`
/// under `q`.
fn request(retry: Option<(&str, &Value)>) -> String {
    let extra = match retry {
        Some((token, answer)) => format!(r#","inputResponses":{{"q":{answer}}},"requestState":"{token}""#),
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

/// A token pinning `question` as it is, valid or not (`Engine::seal`
/// does not validate questions).
fn pin(engine: &Engine, question: &Value) -> String {
    let first = common::call(engine, &request(None));
    let who = who();
    let binding = snodo::internal::binding_digest_map("tools/call", first.params());
    let questions = vec![("q".to_owned(), question.clone())];
    let mut input = engine.seal_input(&who, &binding);
    input.questions = &questions;
    engine.seal(&input).unwrap()
}

fn form(field: &str) -> Value {
    snodo::elicit_form("Seat?", &json!({"type": "object", "properties": {field: {"type": "string"}}}))
        .unwrap()
}

/// The questions: two forms, a URL, and two that fail validation (a form
/// without a schema, a URL question whose URL is not one).
fn questions() -> Vec<Value> {
    vec![
        form("seat"),
        form("meal"),
        snodo::elicit_url("Pay here", "https://pay.example.com/checkout").unwrap(),
        json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Seat?"}}),
        json!({"method": "elicitation/create", "params": {"mode": "url", "message": "Pay", "url": "not a url"}}),
    ]
}

fn valid(i: usize) -> bool {
    i < 3
}

/// The answers a client may send.
fn answers() -> Vec<Value> {
    vec![
        json!({"action": "accept", "content": {"seat": "12A"}}),
        json!({"action": "accept", "content": {"meal": "veg"}}),
        json!({"action": "accept"}),
        json!({"action": "decline"}),
        json!({"action": "accept", "content": {"seat": 12}}),
    ]
}

/// The answer read on a retry of `token` carrying `answer`, for `question`.
fn read(engine: &Engine, token: &str, answer: &Value, question: &Value) -> Answer {
    common::call(engine, &request(Some((token, answer)))).response("q", question)
}

/// The same, on a thread of its own (an empty memo).
fn read_cold(engine: &Engine, token: &str, answer: &Value, question: &Value) -> Answer {
    std::thread::scope(|s| s.spawn(|| read(engine, token, answer, question)).join().unwrap())
}

#[test]
fn a_url_question_read_again_is_still_a_url_question() {
    let (engine, qs) = (engine(), questions());
    // The form first, so the memo holds a form's kind beside the URL's.
    ask(&engine, &qs[0]);
    let token = ask(&engine, &qs[2]);
    for _ in 0..3 {
        // A URL question's accept carries no content.
        assert_eq!(
            read(&engine, &token, &json!({"action": "accept"}), &qs[2]),
            Answer::Accepted(Value::Null)
        );
    }
    let token = ask(&engine, &qs[0]);
    for _ in 0..3 {
        let a = read(&engine, &token, &json!({"action": "accept", "content": {"seat": "12A"}}), &qs[0]);
        assert_eq!(a, Answer::Accepted(json!({"seat": "12A"})));
        // The schema is still applied to every answer.
        let a = read(&engine, &token, &json!({"action": "accept", "content": {"seat": 12}}), &qs[0]);
        assert!(matches!(a, Answer::Invalid(_)), "{a:?}");
    }
}

#[test]
fn a_pinned_question_that_fails_validation_fails_every_time() {
    let (engine, qs) = (engine(), questions());
    for bad in [&qs[3], &qs[4]] {
        let token = pin(&engine, bad);
        for _ in 0..3 {
            let a = read(&engine, &token, &json!({"action": "accept"}), bad);
            assert!(matches!(&a, Answer::Invalid(why) if why.starts_with("request: ")), "{a:?}");
        }
    }
}

#[test]
fn a_question_first_seen_by_response_is_remembered_as_what_it_is() {
    // Tokens made on another thread: this thread's first sight of each
    // question is `response`, which validates it and then remembers it.
    let (engine, qs) = (engine(), questions());
    let (t_form, t_url) =
        std::thread::scope(|s| s.spawn(|| (ask(&engine, &qs[0]), ask(&engine, &qs[2]))).join().unwrap());
    for _ in 0..3 {
        assert_eq!(
            read(&engine, &t_url, &json!({"action": "accept"}), &qs[2]),
            Answer::Accepted(Value::Null)
        );
        let a = read(&engine, &t_form, &json!({"action": "accept", "content": {"seat": "1C"}}), &qs[0]);
        assert_eq!(a, Answer::Accepted(json!({"seat": "1C"})));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A random history of questions asked (valid ones through `decide`,
    /// invalid ones pinned by `seal`) and answers read on this thread,
    /// then one more read: it is what a thread with an empty memo reads.
    #[test]
    fn response_reads_what_a_cold_thread_reads(
        history in prop::collection::vec((0usize..5, 0usize..5, any::<bool>()), 0..10),
        last in (0usize..5, 0usize..5, 0usize..5),
    ) {
        let (engine, qs, answers) = (engine(), questions(), answers());
        let token_of = |i: usize| if valid(i) { ask(&engine, &qs[i]) } else { pin(&engine, &qs[i]) };
        for &(q, a, read_it) in &history {
            let token = token_of(q);
            if read_it {
                let warm = read(&engine, &token, &answers[a], &qs[q]);
                prop_assert_eq!(warm, read_cold(&engine, &token, &answers[a], &qs[q]));
            }
        }
        let (pinned, asked, a) = last;
        let token = token_of(pinned);
        let warm = read(&engine, &token, &answers[a], &qs[asked]);
        prop_assert_eq!(&warm, &read_cold(&engine, &token, &answers[a], &qs[asked]));
        if pinned != asked {
            prop_assert_eq!(warm, Answer::Changed);
        }
    }
}
