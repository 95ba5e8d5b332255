//! A complete three-round MRTR flow, printed round by round.
//!
//! A tool `pick_color` asks the user for a favourite colour (round 1), then
//! asks whether to remember it (round 2), then completes (round 3). The
//! "client" here is a few lines that answer like a user would; `make demo`
//! runs this until the interop suite drives real MCP clients.

use serde_json::{Value, json};
use snodo::{Answer, Begin, Call, Config, Engine, Key, Outcome, Principal, Question, elicit_form};

/// The questions, built once at start-up: the same values every round.
struct Questions {
    color: Question,
}

fn color_question() -> snodo::Result<Question> {
    let schema = json!({
        "type": "object",
        "properties": {
            "color": {"type": "string", "title": "Colour", "enum": ["red", "green", "blue"]}
        },
        "required": ["color"]
    });
    elicit_form("Which colour do you like best?", &schema)
}

/// A question that names the colour chosen: built each time it is asked,
/// the same bytes for the same colour, so its answer is pinned too.
fn remember_question(color: &str) -> snodo::Result<Question> {
    let schema = json!({
        "type": "object",
        "properties": {"remember": {"type": "boolean", "title": format!("Remember {color}?"), "default": true}},
        "required": ["remember"]
    });
    elicit_form("Should I remember it for next time?", &schema)
}

/// The tool handler: it asks the same questions every round, so snodo can
/// pin answers to the questions asked.
fn pick_color(call: &Call, questions: &Questions) -> snodo::Result<Outcome> {
    // The colour may come from this round's answer or from carried state.
    let color = match call.response("color", &questions.color) {
        Answer::Accepted(content) => content.get("color").and_then(Value::as_str).map(str::to_owned),
        Answer::Declined | Answer::Cancelled => {
            return Ok(Outcome::ToolError("No colour chosen.".into()));
        }
        _ => call.state().and_then(|s| s.get("color")).and_then(Value::as_str).map(str::to_owned),
    };
    let Some(color) = color else {
        return Ok(Outcome::InputRequired {
            requests: vec![("color".into(), questions.color.clone())],
            state: None,
        });
    };
    let remember_question = remember_question(&color)?;
    Ok(match call.response("remember", &remember_question) {
        Answer::Accepted(content) => {
            let remember = content.get("remember").and_then(Value::as_bool).unwrap_or(false);
            let text = format!(
                "Your colour is {color}; {}.",
                if remember { "remembered" } else { "not remembered" }
            );
            Outcome::Complete(json!({"content": [{"type": "text", "text": text}]}))
        }
        _ => Outcome::InputRequired {
            requests: vec![("remember".into(), remember_question)],
            state: Some(json!({"color": color})),
        },
    })
}

fn request(id: u64, extra: Value) -> String {
    let mut params = json!({
        "name": "pick_color",
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
        }
    });
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Development key: fine for a single-process demo, never for production.
    let engine = Engine::new(Config::new(vec![Key::random("demo")?]))?;
    let user = Principal::user("alice@example.com")?;
    let questions = Questions { color: color_question()? };
    let answers = [
        json!({}),
        json!({"color": {"action": "accept", "content": {"color": "green"}}}),
        json!({"remember": {"action": "accept", "content": {"remember": true}}}),
    ];
    let mut state: Option<String> = None;
    for (round, answer) in answers.iter().enumerate() {
        let mut extra = json!({});
        if round > 0 {
            extra = json!({"inputResponses": answer});
            if let Some(s) = &state {
                extra["requestState"] = json!(s);
            }
        }
        let req = request(round as u64 + 1, extra);
        println!("── round {} ── client → server\n{}\n", round + 1, pretty(&serde_json::from_str(&req)?));
        let call = match engine.begin(req.as_bytes(), &user)? {
            Begin::Call(call) => call,
            Begin::Respond(resp) => {
                println!("server → client (HTTP {})\n{}", resp.http_status(), pretty(resp.body()));
                return Err("the demo request was refused".into());
            }
        };
        let resp = engine.decide(&call, pick_color(&call, &questions)?)?;
        println!(
            "── round {} ── server → client (HTTP {})\n{}\n",
            round + 1,
            resp.http_status(),
            pretty(resp.body())
        );
        let result = &resp.body()["result"];
        match result["resultType"].as_str() {
            Some("input_required") => state = result["requestState"].as_str().map(str::to_owned),
            Some("complete") => {
                println!("Flow complete after {} rounds.", round + 1);
                return Ok(());
            }
            _ => return Err(format!("unexpected response: {}", resp.to_json()).into()),
        }
    }
    Err("the flow did not complete".into())
}
