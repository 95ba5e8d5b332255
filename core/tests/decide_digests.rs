//! `decide` seals exactly what `seal` seals of the same input (a fixed
//! clock and seeded ids make both deterministic), for zero to seven
//! questions, in order or not, with and without a state; and the response
//! carries every question.
#![allow(clippy::unwrap_used, clippy::panic)]

use serde_json::{Value, json};
use snodo::{Begin, Call, Config, Engine, Key, Outcome, Principal, Question, SealInput};

const REQUEST: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}"#;

fn engine() -> Engine {
    let mut config = Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(1_800_000_000);
    config.test_random_seed = 9;
    Engine::new(config).unwrap()
}

fn call(engine: &Engine, who: &Principal) -> Call {
    match engine.begin(REQUEST.as_bytes(), who).unwrap() {
        Begin::Call(c) => *c,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    }
}

fn question(i: usize) -> Question {
    Question::from_value(
        json!({"method": "elicitation/create", "params": {"message": format!("Question {i}?"),
        "requestedSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}}),
    )
    .unwrap()
}

#[test]
fn decide_seals_what_seal_seals_for_any_number_of_questions() {
    let (engine, who) = (engine(), Principal::user("alice").unwrap());
    for n in 0..=7usize {
        for reversed in [false, true] {
            for state in [None, Some(json!({"step": n, "note": "x"}))] {
                if n == 0 && state.is_none() {
                    continue;
                }
                let mut requests: Vec<(String, Question)> =
                    (0..n).map(|i| (format!("q{i}"), question(i))).collect();
                if reversed {
                    requests.reverse();
                }
                let c = call(&engine, &who);
                let binding = snodo::internal::binding_digest_map("tools/call", c.params()).unwrap();
                let input = SealInput {
                    principal: &who,
                    binding: &binding,
                    round: c.round(),
                    flow_start: c.flow_start(),
                    questions: &requests,
                    state: state.as_ref(),
                };
                let want = engine.seal(&input).unwrap();
                let outcome = Outcome::InputRequired { requests: requests.clone(), state: state.clone() };
                let r = engine.decide(&c, outcome).unwrap();
                let body = r.body();
                assert_eq!(body["result"]["requestState"], json!(want), "n {n}, reversed {reversed}");
                let asked = body["result"].get("inputRequests").and_then(Value::as_object);
                assert_eq!(asked.map_or(0, |m| m.len()), n, "n {n}");
                for (key, q) in &requests {
                    assert_eq!(&body["result"]["inputRequests"][key], q.value());
                }
            }
        }
    }
}
