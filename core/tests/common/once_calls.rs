//! Final-round calls for the once suites: flows with several tokens each
//! (a flow's round 1 token, and the token a retry without answers got when
//! the handler asked again) and several answers per token, all opened by
//! one engine on the system clock.

use serde_json::{Value, json};
use snodo::{Begin, Call, Config, Engine, Key, Outcome, Principal};

pub const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;

pub fn engine() -> Engine {
    Engine::new(Config::new(vec![Key::new("once-tests", vec![7u8; 32]).unwrap()])).unwrap()
}

fn question() -> snodo::Question {
    snodo::elicit_form(
        "How many nights?",
        &json!({"type": "object", "properties": {"nights": {"type": "integer"}}, "required": ["nights"]}),
    )
    .unwrap()
}

fn begin(engine: &Engine, text: &str, who: &str) -> Call {
    match engine.begin(text.as_bytes(), &Principal::user(who).unwrap()).unwrap() {
        Begin::Call(c) => *c,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    }
}

fn ask(engine: &Engine, call: &Call) -> String {
    let outcome = Outcome::InputRequired { requests: vec![("booking".into(), question())], state: None };
    let r = engine.decide(call, outcome).unwrap();
    r.body().pointer("/result/requestState").and_then(Value::as_str).unwrap().to_owned()
}

fn request(tool: &str, token: Option<&str>, nights: Option<u64>) -> String {
    let mut params =
        json!({"name": tool, "arguments": {}, "_meta": serde_json::from_str::<Value>(META).unwrap()});
    if let Some(t) = token {
        params["requestState"] = json!(t);
    }
    if let Some(n) = nights {
        params["inputResponses"] = json!({"booking": {"action": "accept", "content": {"nights": n}}});
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string()
}

/// The tokens of one flow of `who` on tool `tool`: `tokens` of them, each
/// issued by asking again on a retry of the previous one.
pub fn flow_tokens(engine: &Engine, tool: &str, who: &str, tokens: usize) -> Vec<String> {
    let mut out = vec![ask(engine, &begin(engine, &request(tool, None, None), who))];
    while out.len() < tokens {
        let retry = begin(engine, &request(tool, out.last().map(String::as_str), None), who);
        out.push(ask(engine, &retry));
    }
    out
}

/// The token a handler issues when it asks again on a retry of `token`
/// that carried no answers: a new token of the same flow.
pub fn ask_again(engine: &Engine, tool: &str, who: &str, token: &str) -> String {
    ask(engine, &begin(engine, &request(tool, Some(token), None), who))
}

/// The final round carrying `token` with `nights` as the answer (`None`:
/// no `inputResponses` at all).
pub fn final_round(engine: &Engine, tool: &str, who: &str, token: &str, nights: Option<u64>) -> Call {
    let call = begin(engine, &request(tool, Some(token), nights), who);
    assert!(call.is_retry(), "the token did not open");
    call
}

/// `calls[flow][token][answer]`: `flows` flows of `tokens` tokens each,
/// every token with `answers` different answers (nights 1, 2, …).
pub fn grid(engine: &Engine, flows: usize, tokens: usize, answers: usize) -> Vec<Vec<Vec<Call>>> {
    (0..flows)
        .map(|f| {
            let tool = format!("book_{f}");
            flow_tokens(engine, &tool, "alice", tokens)
                .iter()
                .map(|t| {
                    (1..=answers as u64).map(|n| final_round(engine, &tool, "alice", t, Some(n))).collect()
                })
                .collect()
        })
        .collect()
}
