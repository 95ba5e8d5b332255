//! The interop/CONTRACT.md surface on rmcp 3.11 (`ServerHandler`), snodo
//! making every MRTR decision through `snodo_rmcp::Snodo`; rmcp serves the
//! transports, both eras and the lists. A contract server of the interop
//! suites (kind `rust-sdk`).
//!
//!   contract_server --stdio       rmcp's stdio transport (2026 per request, or a 2025 session
//!                                 after `initialize`, served through snodo's legacy bridge)
//!   contract_server --http PORT   rmcp's StreamableHttpService on 127.0.0.1:PORT/mcp (2026
//!                                 per request; 2025 sessions with Mcp-Session-Id), behind
//!                                 snodo's Host/Origin check and the session edge below
//!
//! Keys from SNODO_KEYS (`Engine::from_env`; unset: a development engine and
//! a warning). Principal (DEMO ONLY: a real server verifies the token
//! first): stdio anonymous; HTTP the `Authorization: Bearer <token>` text,
//! else anonymous. book_room runs its effect at most once per flow on this
//! process's MemoryStore. Not served here: the Tasks demo (paint_task).

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, request::Parts};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response as HttpResponse};
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use snodo::{Answer, Call, Engine, MemoryStore, OriginPolicy, Outcome, Question};
use snodo_rmcp::{Flows, Kind, Snodo};

fn form(message: &str, properties: Value) -> Question {
    let required: Vec<&String> = properties.as_object().map(|p| p.keys().collect()).unwrap_or_default();
    let schema = json!({"type": "object", "properties": properties, "required": required});
    snodo::elicit_form(message, &schema).unwrap_or_else(|e| unreachable!("a constant question: {e}"))
}

#[allow(deprecated)] // sampling and roots are deprecated in 2026-07-28; the conformance suite asks for them
fn sample(text: &str, max_tokens: u32) -> Question {
    let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": max_tokens});
    snodo::sampling(&params).unwrap_or_else(|e| unreachable!("a constant question: {e}"))
}

/// The contract's questions, built once.
struct Questions {
    color: Question,
    date: Question,
    guests: Question,
    name: Question,
    confirm: Question,
    step1: Question,
    step2: Question,
    context: Question,
    capital: Question,
    greeting: Question,
    roots: Question,
    nights: Question,
}

impl Questions {
    #[allow(deprecated)]
    fn new() -> Questions {
        Questions {
            color: form(
                "Which color do you prefer?",
                json!({"color": {"type": "string", "enum": ["red", "green", "blue"]}}),
            ),
            date: form("Which day?", json!({"date": {"type": "string", "format": "date"}})),
            guests: form(
                "How many guests?",
                json!({"guests": {"type": "integer", "minimum": 1, "maximum": 8}}),
            ),
            name: form("What is your name?", json!({"name": {"type": "string"}})),
            confirm: form("Please confirm", json!({"ok": {"type": "boolean"}})),
            step1: form("Step 1: What is your name?", json!({"name": {"type": "string"}})),
            step2: form("Step 2: What is your favorite color?", json!({"color": {"type": "string"}})),
            context: form("What context should the prompt use?", json!({"context": {"type": "string"}})),
            capital: sample("What is the capital of France?", 100),
            greeting: sample("Generate a greeting", 50),
            roots: snodo::list_roots(),
            nights: form(
                "How many nights shall we book?",
                json!({"nights": {"type": "integer", "minimum": 1, "maximum": 14}}),
            ),
        }
    }
}

/// tools/list order, with descriptions (no tool takes arguments).
const TOOLS: &[(&str, &str)] = &[
    ("preferred_color", "Asks your preferred color (read-only)"),
    ("book_table", "Books a table: asks the day and the number of guests"),
    ("test_input_required_result_elicitation", "Conformance: one elicitation"),
    ("test_input_required_result_sampling", "Conformance: one sampling request"),
    ("test_input_required_result_list_roots", "Conformance: one roots/list request"),
    ("test_input_required_result_request_state", "Conformance: input plus requestState"),
    ("test_input_required_result_multiple_inputs", "Conformance: three inputs in one round"),
    ("test_input_required_result_multi_round", "Conformance: three rounds"),
    ("test_input_required_result_tampered_state", "Conformance: integrity-protected requestState"),
    ("test_input_required_result_capabilities", "Conformance: asks only what the client can answer"),
    ("test_missing_capability", "Conformance: requires sampling"),
    ("test_streaming_elicitation", "Conformance: elicitation without streaming"),
    ("test_logging_tool", "Conformance: logging"),
    ("test_trigger_tool_change", "Conformance: tool list change"),
    ("test_trigger_prompt_change", "Conformance: prompt list change"),
    ("book_room", "Books a room, once: asks for how many nights"),
];
const PROMPTS: &[(&str, &str)] = &[
    ("preferred_color", "A poem about your preferred color"),
    ("test_input_required_result_prompt", "Conformance: a prompt that asks for context"),
];
const COLOR_URI: &str = "prefs://color";

fn text(t: &str) -> Value {
    json!({"content": [{"type": "text", "text": t}]})
}

fn user_text(t: &str) -> Value {
    json!([{"role": "user", "content": {"type": "text", "text": t}}])
}

fn ask(asks: &[(&str, &Question)], state: Option<Value>) -> Outcome {
    Outcome::InputRequired {
        requests: asks.iter().map(|(k, q)| ((*k).to_owned(), (*q).clone())).collect(),
        state,
    }
}

/// The user declined or cancelled `key`: the flow ends (a tool error on
/// tools/call; prompts/get has none).
fn ended(call: &Call, key: &str) -> Outcome {
    let why = format!("No answer to {key}: the user declined or cancelled.");
    if call.method() == "tools/call" {
        Outcome::ToolError(why)
    } else {
        Outcome::Error { code: -32602, message: why, data: None }
    }
}

/// The fixtures' helper (CONTRACT.md §4).
fn ask_all(
    call: &Call,
    asks: &[(&str, &Question)],
    state: Option<Value>,
    done: impl FnOnce(&HashMap<String, Value>) -> Value,
) -> Outcome {
    let mut values = HashMap::new();
    let mut missing = false;
    for (key, question) in asks {
        match call.response(key, question) {
            Answer::Accepted(v) => {
                values.insert((*key).to_owned(), v);
            }
            Answer::Declined | Answer::Cancelled => return ended(call, key),
            _ => missing = true,
        }
    }
    if missing { ask(asks, state) } else { Outcome::Complete(done(&values)) }
}

fn first_text(content: &Value) -> &str {
    let block =
        if let Value::Array(blocks) = content { blocks.first().unwrap_or(&Value::Null) } else { content };
    block["text"].as_str().unwrap_or_default()
}

#[derive(Clone)]
struct Contract {
    q: Arc<Questions>,
    once: Arc<MemoryStore>,
    bookings: Arc<AtomicUsize>,
}

impl Contract {
    fn tool(&self, call: &Call) -> Outcome {
        let q = &self.q;
        let name = call.name().unwrap_or_default();
        let hello = |v: &HashMap<String, Value>| {
            text(&format!("Hello, {}!", v["user_name"]["name"].as_str().unwrap_or_default()))
        };
        match name {
            "preferred_color" => match call.response("color", &q.color) {
                Answer::Accepted(v) => Outcome::Complete(text(&format!(
                    "Your preferred color is {}.",
                    v["color"].as_str().unwrap_or_default()
                ))),
                Answer::Declined => Outcome::Complete(text("You declined to choose a color.")),
                Answer::Cancelled => Outcome::ToolError("You cancelled the color question.".into()),
                _ => ask(&[("color", &q.color)], None),
            },
            "book_table" => self.book_table(call),
            "test_input_required_result_elicitation" | "test_streaming_elicitation" => {
                ask_all(call, &[("user_name", &q.name)], None, hello)
            }
            "test_input_required_result_sampling" => {
                ask_all(call, &[("capital_question", &q.capital)], None, |v| {
                    text(&format!("Sampled: {}", first_text(&v["capital_question"]["content"])))
                })
            }
            "test_input_required_result_list_roots" => {
                ask_all(call, &[("client_roots", &q.roots)], None, |v| {
                    let roots = v["client_roots"]["roots"].as_array().cloned().unwrap_or_default();
                    let uris: Vec<&str> = roots.iter().filter_map(|r| r["uri"].as_str()).collect();
                    text(&format!("Roots: {}", uris.join(", ")))
                })
            }
            "test_input_required_result_request_state" => {
                ask_all(call, &[("confirm", &q.confirm)], Some(json!({"flow": "request-state"})), |_| {
                    text("state-ok")
                })
            }
            "test_input_required_result_multiple_inputs" => ask_all(
                call,
                &[("user_name", &q.name), ("greeting", &q.greeting), ("client_roots", &q.roots)],
                Some(json!({"flow": "multiple"})),
                |_| text("Received 3 inputs."),
            ),
            "test_input_required_result_multi_round" => self.multi_round(call),
            "test_input_required_result_tampered_state" => {
                ask_all(call, &[("confirm", &q.confirm)], Some(json!({"flow": "tampered"})), |_| {
                    text("state intact")
                })
            }
            "test_input_required_result_capabilities" => {
                let all = [("user_name", &q.name), ("greeting", &q.greeting), ("client_roots", &q.roots)];
                let requests = Value::Object(
                    all.iter().map(|(k, q)| ((*k).to_owned(), Value::from((*q).clone()))).collect(),
                );
                let kept = snodo::filter_supported(&requests, call.client_capabilities()).unwrap_or_default();
                let asks: Vec<(&str, &Question)> =
                    all.iter().filter(|(k, _)| kept.get(*k).is_some()).map(|(k, q)| (*k, *q)).collect();
                if asks.is_empty() {
                    return Outcome::Complete(text("Nothing this client can answer."));
                }
                let n = asks.len();
                ask_all(call, &asks, Some(json!({"flow": "capabilities"})), |_| {
                    text(&format!("Received {n} inputs."))
                })
            }
            "test_missing_capability" => {
                ask_all(call, &[("greeting", &q.greeting)], None, |_| text("sampled"))
            }
            "test_logging_tool" => Outcome::Complete(text("No log level requested, so nothing was logged.")),
            "test_trigger_tool_change" => Outcome::Complete(text("The tool list is static.")),
            "test_trigger_prompt_change" => Outcome::Complete(text("The prompt list is static.")),
            _ => Outcome::Error { code: -32602, message: format!("Unknown tool: {name}"), data: None },
        }
    }

    fn book_table(&self, call: &Call) -> Outcome {
        let mut state = call.state().and_then(Value::as_object).cloned().unwrap_or_default();
        let asks = [("date", &self.q.date), ("guests", &self.q.guests)];
        for (key, question) in asks {
            if state.contains_key(key) {
                continue;
            }
            match call.response(key, question) {
                Answer::Accepted(v) => {
                    state.insert(key.to_owned(), v[key].clone());
                }
                Answer::Declined | Answer::Cancelled => return Outcome::Complete(text("No table booked.")),
                _ => {}
            }
        }
        if let (Some(date), Some(guests)) = (state.get("date"), state.get("guests")) {
            return Outcome::Complete(text(&format!(
                "Booked a table for {guests} on {}.",
                date.as_str().unwrap_or_default()
            )));
        }
        let unknown: Vec<(&str, &Question)> =
            asks.into_iter().filter(|(k, _)| !state.contains_key(*k)).collect();
        ask(&unknown, if state.is_empty() { None } else { Some(Value::Object(state)) })
    }

    fn multi_round(&self, call: &Call) -> Outcome {
        let q = &self.q;
        let state = call.state().cloned().unwrap_or(Value::Null);
        let is_final = |a: &Answer| matches!(a, Answer::Declined | Answer::Cancelled);
        match state["step"].as_u64() {
            Some(2) => match call.response("step2", &q.step2) {
                Answer::Accepted(v) => Outcome::Complete(text(&format!(
                    "Done after 3 rounds, {} likes {}.",
                    state["name"].as_str().unwrap_or_default(),
                    v["color"].as_str().unwrap_or_default()
                ))),
                a if is_final(&a) => ended(call, "step2"),
                _ => ask(&[("step2", &q.step2)], Some(state)),
            },
            Some(1) => match call.response("step1", &q.step1) {
                Answer::Accepted(v) => {
                    ask(&[("step2", &q.step2)], Some(json!({"step": 2, "name": v["name"]})))
                }
                a if is_final(&a) => ended(call, "step1"),
                _ => ask(&[("step1", &q.step1)], Some(state)),
            },
            _ => ask(&[("step1", &q.step1)], Some(json!({"step": 1}))),
        }
    }

    /// The examples' book_room: a retry of a booked flow gets its booking
    /// again, or -32602 `replayed` with other answers or none.
    async fn book_room(&self, call: &Call) -> Result<Outcome, ErrorData> {
        if let Some(remembered) = snodo_rmcp::check_once(Arc::clone(&self.once), call).await? {
            return Ok(Outcome::Complete(remembered));
        }
        match call.response("booking", &self.q.nights) {
            Answer::Accepted(_) => {}
            Answer::Declined | Answer::Cancelled => return Ok(Outcome::Complete(text("No room booked."))),
            _ => return Ok(ask(&[("booking", &self.q.nights)], None)),
        }
        let bookings = Arc::clone(&self.bookings);
        let result = snodo_rmcp::run_once(Arc::clone(&self.once), call, move |_| {
            let n = bookings.fetch_add(1, Ordering::SeqCst) + 1;
            text(&format!("Booked: entry #{n}"))
        })
        .await?;
        Ok(Outcome::Complete(result))
    }

    fn prompt(&self, call: &Call) -> Outcome {
        let q = &self.q;
        match call.name().unwrap_or_default() {
            "preferred_color" => {
                let color = match call.response("color", &q.color) {
                    Answer::Accepted(v) => v["color"].as_str().unwrap_or_default().to_owned(),
                    Answer::Declined | Answer::Cancelled => "no preference".to_owned(),
                    _ => return ask(&[("color", &q.color)], None),
                };
                Outcome::Complete(json!({"description": "A poem about your preferred color",
                    "messages": user_text(&format!("Write a short poem about the color {color}."))}))
            }
            _ => ask_all(
                call,
                &[("user_context", &q.context)],
                None,
                |v| json!({"messages": user_text(&format!("Context: {}", v["user_context"]["context"].as_str().unwrap_or_default()))}),
            ),
        }
    }

    fn resource(&self, call: &Call) -> Outcome {
        let color = match call.response("color", &self.q.color) {
            Answer::Accepted(v) => v["color"].as_str().unwrap_or_default().to_owned(),
            Answer::Declined | Answer::Cancelled => "no preference".to_owned(),
            _ => return ask(&[("color", &self.q.color)], None),
        };
        // ttlMs/cacheScope: both official clients require them on the final result.
        Outcome::Complete(json!({"contents": [{"uri": COLOR_URI, "mimeType": "text/plain", "text": color}],
            "ttlMs": 0, "cacheScope": "private"}))
    }
}

/// A list result. `resultType` is explicit: rmcp's constructors set it, its
/// serde reading of a value without one leaves it out (rmcp drops it again
/// for 2025 peers).
fn listed<T: serde::de::DeserializeOwned>(mut value: Value) -> Result<T, ErrorData> {
    value["resultType"] = json!("complete");
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(format!("list: {e}"), None))
}

impl ServerHandler for Contract {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder().enable_tools().enable_prompts().enable_resources().build(),
        );
        if let Ok(server) =
            serde_json::from_value(json!({"name": "snodo-rmcp-example", "version": snodo::VERSION}))
        {
            info.server_info = server;
        }
        info
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools: Vec<Value> = TOOLS
            .iter()
            .map(|(name, description)| {
                json!({"name": name, "description": description, "inputSchema": {"type": "object", "properties": {}}})
            })
            .collect();
        listed(json!({ "tools": tools }))
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompts: Vec<Value> = PROMPTS.iter().map(|(n, d)| json!({"name": n, "description": d})).collect();
        listed(json!({ "prompts": prompts }))
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        listed(json!({"resources": [{"uri": COLOR_URI, "name": "preferred-color",
            "description": "Your preferred color", "mimeType": "text/plain"}]}))
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        listed(json!({"resourceTemplates": []}))
    }

    // Names snodo does not own reach these.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Err(ErrorData::invalid_params(format!("Unknown tool: {}", request.name), None))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        Err(ErrorData::invalid_params(format!("Unknown prompt: {}", request.name), None))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        Err(ErrorData::invalid_params(format!("Resource not found: {uri}"), Some(json!({ "uri": uri }))))
    }
}

impl Flows for Contract {
    fn owns(&self, kind: Kind, name: &str) -> bool {
        match kind {
            Kind::Tool => TOOLS.iter().any(|(n, _)| *n == name),
            Kind::Prompt => PROMPTS.iter().any(|(n, _)| *n == name),
            Kind::Resource => name == COLOR_URI,
        }
    }

    async fn flow(&self, call: &Call, _: &RequestContext<RoleServer>) -> Result<Outcome, ErrorData> {
        Ok(match call.method() {
            "tools/call" if call.name() == Some("book_room") => return self.book_room(call).await,
            "tools/call" => self.tool(call),
            "prompts/get" => self.prompt(call),
            _ => self.resource(call),
        })
    }
}

/// The demo principal of an HTTP request: its Bearer token, verbatim.
fn bearer(headers: &axum::http::HeaderMap) -> Option<String> {
    let value = headers.get("authorization")?.to_str().ok()?;
    let token = value.strip_prefix("Bearer ")?;
    (!token.is_empty()).then(|| token.to_owned())
}

fn engine() -> Result<Engine, String> {
    let set = std::env::var(snodo::KEYS_ENV).is_ok_and(|v| !v.trim().is_empty());
    if !set {
        eprintln!("warning: SNODO_KEYS is not set: a development engine (tokens die with this process)");
        return Engine::development().map_err(|e| e.message().to_owned());
    }
    Engine::from_env().map_err(|e| e.message().to_owned())
}

/// The HTTP edge in front of rmcp: snodo's Host/Origin check before
/// anything is read, and each 2025 session bound to the principal of its
/// `initialize` (another principal gets the bytes of an unknown session),
/// at most `PER_CLIENT` sessions per principal.
#[derive(Clone)]
struct Edge {
    policy: Arc<OriginPolicy>,
    sessions: Arc<Mutex<Owners>>,
    /// rmcp's sessions: one it closed (idle for 5 minutes, or ended) no
    /// longer counts against its principal's quota.
    manager: Arc<LocalSessionManager>,
}

const PER_CLIENT: usize = 16;

/// Session id → the principal of its `initialize`.
type Owners = HashMap<String, Option<String>>;

fn snodo_response(r: &snodo::Response) -> HttpResponse {
    let mut out = (StatusCode::from_u16(r.http_status()).unwrap_or(StatusCode::BAD_REQUEST), r.to_json())
        .into_response();
    out.headers_mut().insert("content-type", HeaderValue::from_static("application/json"));
    out
}

async fn edge(State(edge): State<Edge>, request: Request, next: Next) -> HttpResponse {
    let headers: Vec<(&str, &str)> =
        request.headers().iter().filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?))).collect();
    if let Some(refused) = snodo::check_http_origin(&edge.policy, &headers) {
        return snodo_response(&refused);
    }
    let who = bearer(request.headers());
    let session = request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let sessions = |f: &mut dyn FnMut(&mut Owners)| {
        let mut guard = edge.sessions.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut guard);
    };
    if let Some(id) = &session {
        // Unknown and foreign ids get the same bytes: a leaked id neither
        // works nor tells its finder that it exists.
        let mut mine = false;
        sessions(&mut |s| mine = s.get(id).is_some_and(|owner| *owner == who));
        if !mine {
            return snodo_response(&snodo::unknown_session());
        }
    } else if request.method() == axum::http::Method::POST {
        // Only an initialize opens a session; count this principal's live ones.
        let live: std::collections::HashSet<String> =
            edge.manager.sessions.read().await.keys().map(|id| id.to_string()).collect();
        sessions(&mut |s| s.retain(|id, _| live.contains(id)));
        let mut full = false;
        sessions(&mut |s| full = s.values().filter(|o| **o == who).count() >= PER_CLIENT);
        if full && is_initialize(&request) {
            let mut out =
                (StatusCode::TOO_MANY_REQUESTS, "Too many sessions for this client").into_response();
            out.headers_mut().insert("retry-after", HeaderValue::from_static("60"));
            return out;
        }
    }
    let deleting = request.method() == axum::http::Method::DELETE;
    let response = next.run(request).await;
    if let Some(id) = &session {
        if deleting && response.status().is_success() {
            sessions(&mut |s| {
                s.remove(id);
            });
        }
    } else if let Some(id) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
        let id = id.to_owned();
        sessions(&mut |s| {
            s.insert(id.clone(), who.clone());
        });
    }
    response
}

/// Whether a POST opens a session: its `Mcp-Method` header (rmcp requires
/// the body's method to match it on 2026 requests) or, for 2025 clients
/// that send none, no `MCP-Protocol-Version` header (an initialize is the
/// only request a 2025 client sends before it has a version).
fn is_initialize(request: &Request) -> bool {
    match request.headers().get("mcp-method").and_then(|v| v.to_str().ok()) {
        Some(method) => method == "initialize",
        None => request.headers().get("mcp-protocol-version").is_none(),
    }
}

async fn serve_http(server: Snodo<Contract>, port: u16) -> Result<(), String> {
    let manager = Arc::new(LocalSessionManager::default());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::clone(&manager),
        // snodo's check (edge) decides Host and Origin; rmcp's own compares exact strings.
        StreamableHttpServerConfig::default().disable_allowed_hosts(),
    );
    let edge_state = Edge { policy: Arc::new(OriginPolicy::loopback()), sessions: Arc::default(), manager };
    let app = axum::Router::new()
        .route_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(edge_state, edge));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?.port();
    eprintln!("listening on http://127.0.0.1:{bound}/mcp");
    axum::serve(listener, app).await.map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let engine = match engine() {
        Ok(engine) => Arc::new(engine),
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let app = Contract {
        q: Arc::new(Questions::new()),
        once: Arc::new(MemoryStore::new()),
        bookings: Arc::new(AtomicUsize::new(0)),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let served = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["--stdio"] => runtime.block_on(async {
            let running = rmcp::serve_server(Snodo::new(app, engine), rmcp::transport::stdio())
                .await
                .map_err(|e| e.to_string())?;
            running.waiting().await.map(|_| ()).map_err(|e| e.to_string())
        }),
        ["--http", port] if port.parse::<u16>().is_ok() => {
            let port = port.parse::<u16>().unwrap_or_default();
            let server = Snodo::new(app, engine).with_principal(|context: &RequestContext<RoleServer>| {
                context.extensions.get::<Parts>().and_then(|parts| bearer(&parts.headers))
            });
            runtime.block_on(serve_http(server, port))
        }
        _ => {
            eprintln!("usage: contract_server --stdio | --http PORT");
            return ExitCode::from(2);
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
