//! The legacy bridge's attacker inputs: arbitrary request bytes into
//! `begin_legacy` on a 2025-era session, and arbitrary client responses
//! fed to a flow waiting for the answer to one question. Neither may
//! panic; a response that is refused changes nothing (the flow still waits
//! for the same request, with the same deadline).
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use snodo::{Begin, Bridge, Outcome, Principal, Question, Session};

const REQUEST: &[u8] =
    br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"paint","arguments":{}}}"#;

fuzz_target!(|data: &[u8]| {
    let e = common::engine();
    let Ok(alice) = Principal::user("alice") else { std::process::abort() };
    let caps = json!({"elicitation": {"form": {}, "url": {}}, "roots": {}});
    let Ok(session) = Session::new("2025-11-25", caps, None, &alice) else { std::process::abort() };
    if let Ok(Begin::Call(call)) = e.begin_legacy(data, &session, &alice) {
        let _ = e.decide_legacy(&call, Outcome::Complete(json!({"content": []})));
    }
    let Ok(question) = Question::from_value(
        json!({"method": "elicitation/create", "params": {"mode": "form",
        "message": "Pick a colour", "requestedSchema": {"type": "object", "properties": {"c": {"type": "string"}}}}}),
    ) else {
        std::process::abort()
    };
    let Ok(Begin::Call(call)) = e.begin_legacy(REQUEST, &session, &alice) else { std::process::abort() };
    let outcome = Outcome::InputRequired { requests: vec![("color".into(), question)], state: None };
    let Ok(Bridge::Send(mut pending)) = e.decide_legacy(&call, outcome) else { std::process::abort() };
    let before =
        (pending.outstanding().iter().map(|s| s.to_string()).collect::<Vec<_>>(), pending.deadline());
    // The fuzzer's bytes, and the same with the flow's own request id in
    // place of `{{leg}}` (so answers reach the flow's checks).
    let id = pending.request_ids().first().map(|s| s.to_string()).unwrap_or_default();
    let own = String::from_utf8_lossy(data).replace("{{leg}}", &id);
    for response in [data, own.as_bytes()] {
        if e.feed(&mut pending, response, &alice).is_err() {
            let after =
                (pending.outstanding().iter().map(|s| s.to_string()).collect::<Vec<_>>(), pending.deadline());
            if after != before {
                std::process::abort();
            }
        }
    }
});
