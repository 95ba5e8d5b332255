//! Whole request bytes into `begin`, then every kind of outcome into `decide`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use snodo::{Begin, Config, Engine, Key, Outcome, Principal};
use std::sync::OnceLock;

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        let key = Key::new("k1", (0u8..32).collect::<Vec<_>>()).unwrap_or_else(|_| std::process::abort());
        Engine::new(Config::new(vec![key]).fixed_time(1_800_000_000)).unwrap_or_else(|_| std::process::abort())
    })
}

fuzz_target!(|data: &[u8]| {
    let e = engine();
    for who in [Principal::anonymous(), Principal::user("alice").unwrap()] {
        if let Ok(Begin::Call(call)) = e.begin(data, &who) {
            let q = json!({"method":"elicitation/create","params":{"mode":"form","message":"m",
                "requestedSchema":{"type":"object","properties":{"color":{"type":"string","enum":["red","green"]}}}}});
            let _ = call.response("color", &q);
            let _ = call.raw_response("color");
            let first = e.decide(&call, Outcome::InputRequired { requests: vec![("color".into(), q)], state: call.state().cloned() });
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
