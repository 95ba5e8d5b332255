//! A first round that asks one question, shared by the suites of
//! `Call::response`'s memos (response_memo.rs, response_kinds.rs).

use serde_json::Value;
use snodo::{Begin, Call, Engine, Outcome, Principal};

/// `begin` of `text` for alice, which must give a call.
pub fn call(engine: &Engine, text: &str) -> Call {
    match engine.begin(text.as_bytes(), &Principal::user("alice").unwrap()).unwrap() {
        Begin::Call(c) => *c,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    }
}

/// `decide` of the first call `first` asking `question` under `q`: the token.
pub fn ask(engine: &Engine, first: &str, question: &Value) -> String {
    let outcome = Outcome::InputRequired { requests: vec![("q".into(), question.clone())], state: None };
    let r = engine.decide(&call(engine, first), outcome).unwrap();
    match r.body().pointer("/result/requestState") {
        Some(Value::String(t)) => t.clone(),
        _ => panic!("decide refused {question}: {}", r.to_json()),
    }
}
