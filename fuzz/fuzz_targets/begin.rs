//! Whole request bytes into `begin`, then every kind of outcome into `decide`.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use snodo::{Begin, Outcome, Principal, Question};

fuzz_target!(|data: &[u8]| {
    let e = common::engine();
    for who in [Principal::anonymous(), Principal::user("alice").unwrap()] {
        if let Ok(Begin::Call(call)) = e.begin(data, &who) {
            let Ok(q) = Question::from_value(
                json!({"method":"elicitation/create","params":{"mode":"form","message":"m",
                "requestedSchema":{"type":"object","properties":{"color":{"type":"string","enum":["red","green"]}}}}}),
            ) else {
                std::process::abort()
            };
            let _ = call.response("color", &q);
            let _ = call.raw_response("color");
            let first = e.decide(
                &call,
                Outcome::InputRequired { requests: vec![("color".into(), q)], state: call.state().cloned() },
            );
            // A call is decided once: the second decide must be refused.
            if first.is_err() || e.decide(&call, Outcome::Complete(json!({"content": []}))).is_ok() {
                std::process::abort();
            }
        }
        // The other outcomes, each on a fresh call.
        for outcome in [Outcome::Complete(json!({"content": []})), Outcome::ToolError("x".into())] {
            if let Ok(Begin::Call(call)) = e.begin(data, &who) {
                let _ = e.decide(&call, outcome);
            }
        }
    }
});
