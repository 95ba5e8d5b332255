//! snodo inside a real rmcp 3.11 server, driven as a client sees it: JSON
//! lines over an in-memory duplex stream (rmcp's stdio framing), both eras.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use snodo::{
    Answer, Call, Engine, MemoryStore, OnceCommand, OnceSettings, OnceStore, Outcome, Question, elicit_form,
};
use snodo_rmcp::{Flows, Kind, Snodo};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

fn color() -> Question {
    elicit_form(
        "Which color do you prefer?",
        &json!({"type":"object","properties":{"color":{"type":"string","enum":["red","green","blue"]}},"required":["color"]}),
    )
    .unwrap_or_else(|e| unreachable!("{e}"))
}

fn nights() -> Question {
    elicit_form(
        "How many nights shall we book?",
        &json!({"type":"object","required":["nights"],"properties":{"nights":{"type":"integer","minimum":1,"maximum":14}}}),
    )
    .unwrap_or_else(|e| unreachable!("{e}"))
}

fn text(t: &str) -> Value {
    json!({"content": [{"type": "text", "text": t}]})
}

/// A store that is down.
struct Down(OnceSettings);

impl OnceStore for Down {
    fn settings(&self) -> &OnceSettings {
        &self.0
    }
    fn execute(&self, _: &OnceCommand) -> snodo::Result<String> {
        Err(snodo::Error::new(snodo::ErrorCode::Store, "connection refused"))
    }
}

/// The effect: one ledger entry.
fn booking<S: OnceStore>(
    ledger: Arc<AtomicUsize>,
    nights: Value,
) -> impl FnOnce(&snodo::OnceLease<'_, S>) -> Value {
    move |_| {
        let n = ledger.fetch_add(1, Ordering::SeqCst) + 1;
        text(&format!("Booked: entry #{n} ({nights} nights)"))
    }
}

#[derive(Clone)]
struct App {
    once: Arc<MemoryStore>,
    down: Arc<Down>,
    ledger: Arc<AtomicUsize>,
    native_calls: Arc<AtomicUsize>,
}

impl App {
    fn new() -> App {
        let settings = OnceSettings::new("test:", std::time::Duration::from_secs(30))
            .unwrap_or_else(|e| unreachable!("{e}"));
        App {
            once: Arc::new(MemoryStore::new()),
            down: Arc::new(Down(settings)),
            ledger: Arc::new(AtomicUsize::new(0)),
            native_calls: Arc::new(AtomicUsize::new(0)),
        }
    }

    async fn book(&self, call: &Call, store_down: bool) -> Result<Outcome, ErrorData> {
        if !store_down && let Some(remembered) = snodo_rmcp::check_once(Arc::clone(&self.once), call).await? {
            return Ok(Outcome::Complete(remembered));
        }
        let nights = match call.response("booking", &nights()) {
            Answer::Accepted(v) => v["nights"].clone(),
            Answer::Declined | Answer::Cancelled => return Ok(Outcome::Complete(text("No room booked."))),
            _ => {
                return Ok(Outcome::InputRequired {
                    requests: vec![("booking".into(), nights())],
                    state: None,
                });
            }
        };
        let ledger = Arc::clone(&self.ledger);
        let result = if store_down {
            snodo_rmcp::run_once(Arc::clone(&self.down), call, booking(ledger, nights)).await?
        } else {
            snodo_rmcp::run_once(Arc::clone(&self.once), call, booking(ledger, nights)).await?
        };
        Ok(Outcome::Complete(result))
    }
}

impl ServerHandler for App {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder().enable_tools().enable_prompts().enable_resources().build(),
        )
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.native_calls.fetch_add(1, Ordering::SeqCst);
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(format!(
            "native {}",
            request.name
        ))])))
    }
}

impl Flows for App {
    fn owns(&self, kind: Kind, name: &str) -> bool {
        match kind {
            Kind::Tool => ["preferred_color", "book_room", "book_down", "echo"].contains(&name),
            Kind::Prompt => name == "preferred_color",
            Kind::Resource => name == "prefs://color",
        }
    }

    async fn flow(&self, call: &Call, _: &RequestContext<RoleServer>) -> Result<Outcome, ErrorData> {
        let key = call.name().or(call.uri()).unwrap_or_default().to_owned();
        if key == "book_room" || key == "book_down" {
            return self.book(call, key == "book_down").await;
        }
        if key == "echo" {
            let args = call.arguments().cloned().unwrap_or(Value::Null);
            return Ok(Outcome::Complete(text(&snodo::to_wire(&args))));
        }
        let question = color();
        let chosen = match call.response("color", &question) {
            Answer::Accepted(v) => v["color"].as_str().unwrap_or_default().to_owned(),
            Answer::Declined => return Ok(Outcome::Complete(text("You declined to choose a color."))),
            Answer::Cancelled => return Ok(Outcome::ToolError("You cancelled the color question.".into())),
            _ => {
                return Ok(Outcome::InputRequired {
                    requests: vec![("color".into(), question)],
                    state: None,
                });
            }
        };
        Ok(Outcome::Complete(match call.method() {
            "resources/read" => {
                json!({"contents": [{"uri": "prefs://color", "mimeType": "text/plain", "text": chosen}],
                                       "ttlMs": 0, "cacheScope": "private"})
            }
            "prompts/get" => {
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("Write a short poem about the color {chosen}.")}}]})
            }
            _ => text(&format!("Your preferred color is {chosen}.")),
        }))
    }
}

/// The client end of one connection.
struct Wire {
    lines: tokio::io::Lines<BufReader<ReadHalf<DuplexStream>>>,
    out: WriteHalf<DuplexStream>,
    next: u64,
}

impl Wire {
    async fn send(&mut self, message: &Value) {
        let mut line = snodo::to_wire(message);
        line.push('\n');
        self.out.write_all(line.as_bytes()).await.unwrap_or_else(|e| unreachable!("{e}"));
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), self.lines.next_line())
            .await
            .unwrap_or_else(|_| unreachable!("no message from the server"))
            .unwrap_or_else(|e| unreachable!("{e}"))
            .unwrap_or_else(|| unreachable!("the server closed the connection"));
        serde_json::from_str(&line).unwrap_or_else(|e| unreachable!("{e}: {line}"))
    }

    /// A request and its response (2026: every request carries its `_meta`).
    async fn request(&mut self, method: &str, mut params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": params.get("_caps").cloned().unwrap_or(json!({"elicitation": {}})),
        });
        if let Some(p) = params.as_object_mut() {
            p.remove("_caps");
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        self.recv().await
    }
}

fn connect(server: Snodo<App>) -> Wire {
    let (client, served) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = rmcp::serve_server(server, tokio::io::split(served)).await {
            let _ = running.waiting().await;
        }
    });
    let (read, write) = tokio::io::split(client);
    Wire { lines: BufReader::new(read).lines(), out: write, next: 0 }
}

fn engine() -> Arc<Engine> {
    Arc::new(Engine::development().unwrap_or_else(|e| unreachable!("{e}")))
}

fn served() -> (Snodo<App>, App) {
    let app = App::new();
    (Snodo::new(app.clone(), engine()), app)
}

fn state_of(response: &Value) -> String {
    response["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| unreachable!("no requestState: {response}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_flow_is_sealed_once_by_snodo() {
    let (server, _) = served();
    let engine = Arc::clone(server.engine());
    let mut wire = connect(server);
    let first = wire.request("tools/call", json!({"name": "preferred_color", "arguments": {}})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(first["result"]["inputRequests"]["color"]["method"], "elicitation/create", "{first}");
    let token = state_of(&first);
    // snodo's own token on the wire, not rmcp's rs1/rs2 envelope around it.
    assert!(
        snodo::decode_token(&token, snodo::DEFAULT_MAX_TOKEN_BYTES).is_ok(),
        "not a snodo token: {token}"
    );
    assert!(!token.starts_with("rs1.") && !token.starts_with("rs2."));
    drop(engine);
    let done = wire
        .request(
            "tools/call",
            json!({"name": "preferred_color", "arguments": {}, "requestState": token,
                   "inputResponses": {"color": {"action": "accept", "content": {"color": "green"}}}}),
        )
        .await;
    assert_eq!(done["result"]["content"][0]["text"], "Your preferred color is green.", "{done}");
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_and_resource_flows_complete() {
    let (server, _) = served();
    let mut wire = connect(server);
    for (method, key, value) in
        [("prompts/get", "name", "preferred_color"), ("resources/read", "uri", "prefs://color")]
    {
        let first = wire.request(method, json!({key: value})).await;
        assert_eq!(first["result"]["resultType"], "input_required", "{method}: {first}");
        let done = wire
            .request(
                method,
                json!({key: value, "requestState": state_of(&first),
                       "inputResponses": {"color": {"action": "accept", "content": {"color": "blue"}}}}),
            )
            .await;
        let got = if method == "prompts/get" {
            done["result"]["messages"][0]["content"]["text"].clone()
        } else {
            done["result"]["contents"][0]["text"].clone()
        };
        assert!(got.as_str().is_some_and(|t| t.contains("blue")), "{method}: {done}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_capability_is_32021_with_required_capabilities() {
    let (server, _) = served();
    let mut wire = connect(server);
    let r = wire.request("tools/call", json!({"name": "preferred_color", "_caps": {}})).await;
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert_eq!(r["error"]["data"]["requiredCapabilities"], json!({"elicitation": {}}), "{r}");
    assert!(r.get("result").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_token_is_a_jsonrpc_error_with_its_reason() {
    let (server, _) = served();
    let mut wire = connect(server);
    let first = wire.request("tools/call", json!({"name": "preferred_color"})).await;
    let mut token = state_of(&first);
    token.push('x');
    let r = wire
        .request(
            "tools/call",
            json!({"name": "preferred_color", "requestState": token,
                   "inputResponses": {"color": {"action": "accept", "content": {"color": "red"}}}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(r["error"]["message"], "Invalid or expired requestState", "{r}");
    assert!(
        ["malformed", "signature"].contains(&r["error"]["data"]["reason"].as_str().unwrap_or_default()),
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_is_bound_to_the_principal() {
    let app = App::new();
    let alice = Arc::new(AtomicBool::new(true));
    let who = Arc::clone(&alice);
    let server = Snodo::new(app, engine()).with_principal(move |_| {
        Some(if who.load(Ordering::SeqCst) { "alice" } else { "mallory" }.to_owned())
    });
    let mut wire = connect(server);
    let first = wire.request("tools/call", json!({"name": "preferred_color"})).await;
    alice.store(false, Ordering::SeqCst);
    let r = wire
        .request(
            "tools/call",
            json!({"name": "preferred_color", "requestState": state_of(&first),
                   "inputResponses": {"color": {"action": "accept", "content": {"color": "red"}}}}),
        )
        .await;
    assert_eq!(r["error"]["data"]["reason"], "principal", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_retry_is_refused_by_snodo_not_rmcp() {
    let (server, _) = served();
    let mut wire = connect(server);
    for bad in [json!({"inputResponses": ["red"]}), json!({"requestState": 7})] {
        let mut params = json!({"name": "preferred_color"});
        for (k, v) in bad.as_object().into_iter().flatten() {
            params[k] = v.clone();
        }
        let r = wire.request("tools/call", params).await;
        assert_eq!(r["error"]["code"], -32602, "{bad}: {r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_snodo_does_not_own_go_to_the_handler() {
    let (server, app) = served();
    let mut wire = connect(server);
    let r = wire.request("tools/call", json!({"name": "plain"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "native plain", "{r}");
    assert_eq!(app.native_calls.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_effect_runs_once_per_flow() {
    let (server, app) = served();
    let mut wire = connect(server);
    let first = wire.request("tools/call", json!({"name": "book_room"})).await;
    let token = state_of(&first);
    let retry = |n: u64| {
        json!({"name": "book_room", "requestState": token,
               "inputResponses": {"booking": {"action": "accept", "content": {"nights": n}}}})
    };
    let booked = wire.request("tools/call", retry(2)).await;
    assert_eq!(booked["result"]["content"][0]["text"], "Booked: entry #1 (2 nights)", "{booked}");
    // The same retry again: the booking again, not a second one.
    let again = wire.request("tools/call", retry(2)).await;
    assert_eq!(again["result"]["content"][0]["text"], "Booked: entry #1 (2 nights)", "{again}");
    // Other answers to the completed flow: replayed, as a JSON-RPC error.
    let other = wire.request("tools/call", retry(3)).await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    assert_eq!(other["error"]["message"], "Invalid or expired requestState", "{other}");
    assert_eq!(other["error"]["data"]["reason"], "replayed", "{other}");
    assert_eq!(app.ledger.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_failure_is_32603_and_nothing_runs() {
    let (server, app) = served();
    let mut wire = connect(server);
    let first = wire.request("tools/call", json!({"name": "book_down"})).await;
    let r = wire
        .request(
            "tools/call",
            json!({"name": "book_down", "requestState": state_of(&first),
                   "inputResponses": {"booking": {"action": "accept", "content": {"nights": 2}}}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    assert!(r["error"]["message"].as_str().is_some_and(|m| m.starts_with("once store unavailable")), "{r}");
    assert_eq!(app.ledger.load(Ordering::SeqCst), 0);
}

/// What rmcp's parser keeps of a number: with the workspace's
/// `arbitrary_precision` (unified into rmcp's serde_json) `1.0` stays
/// `1.0`, a 30-digit integer stays exact, and an exponent is spelled as
/// serde_json spells it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn number_spelling_survives_rmcp() {
    let (server, _) = served();
    let mut wire = connect(server);
    let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1,"b":1.0,"c":123456789012345678901234567890,"d":1e2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    wire.out.write_all(format!("{line}\n").as_bytes()).await.unwrap_or_else(|e| unreachable!("{e}"));
    let r = wire.recv().await;
    // `1e2` arrives as serde_json (arbitrary_precision) reads it alone: `1e+2`.
    let exponent = snodo::to_wire(&serde_json::from_str::<Value>("1e2").unwrap_or_default());
    let want = format!(r#"{{"a":1,"b":1.0,"c":123456789012345678901234567890,"d":{exponent}}}"#);
    assert_eq!(r["result"]["content"][0]["text"], want.as_str(), "{r}");
}

/// A 2025-era session (`initialize`): the question goes out as a real
/// `elicitation/create` under rmcp's own id, the answer comes back into
/// snodo's bridge, and the final result has no `resultType`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_session_gets_real_elicitation_requests() {
    let (server, _) = served();
    let mut wire = connect(server);
    wire.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "t", "version": "1"}}}))
        .await;
    let init = wire.recv().await;
    assert!(init["result"]["protocolVersion"].is_string(), "{init}");
    wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    wire.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "preferred_color", "arguments": {}}}))
        .await;
    let ask = wire.recv().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(ask["params"]["message"], "Which color do you prefer?", "{ask}");
    assert_eq!(ask["params"]["mode"], "form", "{ask}");
    wire.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"color": "red"}}}))
        .await;
    let done = wire.recv().await;
    assert_eq!(done["id"], 2, "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "Your preferred color is red.", "{done}");
    assert!(done["result"].get("resultType").is_none(), "{done}");
}

/// A 2025 client without the elicitation capability: -32021, nothing sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_session_without_elicitation_gets_32021() {
    let (server, _) = served();
    let mut wire = connect(server);
    wire.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        .await;
    let _ = wire.recv().await;
    wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    wire.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "preferred_color"}}),
    )
    .await;
    let r = wire.recv().await;
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert_eq!(r["error"]["data"]["requiredCapabilities"], json!({"elicitation": {}}), "{r}");
}

/// A declined 2025 answer ends the flow with the handler's result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_decline_reaches_the_handler() {
    let (server, _) = served();
    let seen = Arc::new(Mutex::new(Vec::<Value>::new()));
    let mut wire = connect(server);
    wire.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "1"}}}))
        .await;
    let _ = wire.recv().await;
    wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    wire.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "preferred_color"}}),
    )
    .await;
    let ask = wire.recv().await;
    seen.lock().unwrap_or_else(|e| e.into_inner()).push(ask.clone());
    wire.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}})).await;
    let done = wire.recv().await;
    assert_eq!(done["result"]["content"][0]["text"], "You declined to choose a color.", "{done}");
}

/// A 2025 client cancels its request while snodo waits on the question:
/// the question is cancelled on the session (under rmcp's id for it) and
/// the request gets no response.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_cancellation_cancels_the_question() {
    let (server, _) = served();
    let mut wire = connect(server);
    wire.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "1"}}}))
        .await;
    let _ = wire.recv().await;
    wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    wire.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "preferred_color"}}),
    )
    .await;
    let ask = wire.recv().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "user"}}))
        .await;
    let cancelled = wire.recv().await;
    assert_eq!(cancelled["method"], "notifications/cancelled", "{cancelled}");
    assert_eq!(cancelled["params"]["requestId"], ask["id"], "{cancelled}");
    // Nothing for request 2: the next message answers the ping.
    wire.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"})).await;
    let pong = wire.recv().await;
    assert_eq!(pong["id"], 3, "{pong}");
}
