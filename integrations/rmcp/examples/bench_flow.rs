//! make bench (information): µs per two-round tool flow inside an rmcp 3.11
//! server, in process (JSON lines over an in-memory duplex stream, rmcp's
//! stdio framing), three ways:
//!
//!   snodo   snodo-rmcp's `Snodo` (begin_parts, decide, snodo's token);
//!   rmcp    rmcp's own MRTR types with its `RequestStateCodec` (rs2, bound
//!           to the tool name), the handler reading the answer itself;
//!   floor   two plain tools/call round trips, no MRTR.
//!
//!   bench_flow OUT.json    (BENCH_SAMPLE_MS, BENCH_REPEATS as the other benches)
//!
//! The rows are interleaved, each repeat the median's input; the result is
//! the median over repeats.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use snodo::{Answer, Call, Engine, Outcome, Question};
use snodo_rmcp::{Flows, Kind, Snodo};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

const SCHEMA: &str = r#"{"type":"object","properties":{"color":{"type":"string","enum":["red","green","blue"]}},"required":["color"]}"#;

fn caps() -> ServerConfig {
    ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
}

fn done(color: &str) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(format!(
        "Your preferred color is {color}."
    ))]))
}

/// snodo decides.
#[derive(Clone)]
struct WithSnodo(Question);

impl ServerHandler for WithSnodo {
    fn get_info(&self) -> ServerConfig {
        caps()
    }
}

impl Flows for WithSnodo {
    fn owns(&self, kind: Kind, name: &str) -> bool {
        kind == Kind::Tool && name == "color"
    }
    async fn flow(&self, call: &Call, _: &RequestContext<RoleServer>) -> Result<Outcome, ErrorData> {
        Ok(match call.response("color", &self.0) {
            Answer::Accepted(v) => Outcome::Complete(
                json!({"content": [{"type": "text", "text": format!("Your preferred color is {}.", v["color"].as_str().unwrap_or_default())}]}),
            ),
            _ => Outcome::InputRequired { requests: vec![("color".into(), self.0.clone())], state: None },
        })
    }
}

/// rmcp's own state handling: its codec seals the state, the handler reads the answer.
#[derive(Clone)]
struct WithRmcp(Arc<RequestStateCodec>);

impl ServerHandler for WithRmcp {
    fn get_info(&self) -> ServerConfig {
        caps()
    }
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let bound = SealOptions::new().associated_data(request.name.as_bytes()).ttl(Duration::from_secs(300));
        if let Some(state) = &request.request_state {
            self.0.open_with(state, request.name.as_bytes()).map_err(|e| {
                ErrorData::invalid_params(format!("Invalid or expired requestState: {e}"), None)
            })?;
            let color = request
                .input_responses
                .as_ref()
                .and_then(|r| r.get("color"))
                .and_then(|a| a["content"]["color"].as_str())
                .unwrap_or_default()
                .to_owned();
            return Ok(done(&color));
        }
        let question: ElicitRequestParams = serde_json::from_value(json!({"mode": "form",
            "message": "Which color do you prefer?", "requestedSchema": serde_json::from_str::<Value>(SCHEMA).unwrap_or_default()}))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut requests = InputRequests::new();
        requests.insert("color".into(), InputRequest::Elicitation(ElicitRequest::new(question)));
        let state = self.0.seal_with(b"{}", &bound);
        Ok(CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(state))))
    }
}

/// No MRTR: every call completes.
#[derive(Clone)]
struct Floor;

impl ServerHandler for Floor {
    fn get_info(&self) -> ServerConfig {
        caps()
    }
    async fn call_tool(
        &self,
        _: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(done("red"))
    }
}

struct Wire {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    out: WriteHalf<DuplexStream>,
    next: u64,
}

impl Wire {
    fn connect<S: rmcp::Service<RoleServer>>(server: S) -> Wire {
        let (client, served) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = rmcp::serve_server(server, tokio::io::split(served)).await {
                let _ = running.waiting().await;
            }
        });
        let (read, write) = tokio::io::split(client);
        Wire { lines: BufReader::new(read).lines(), out: write, next: 0 }
    }

    async fn call(&mut self, mut params: Value) -> Result<Value, String> {
        self.next += 1;
        params["name"] = json!("color");
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
        let mut line = snodo::to_wire(
            &json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call", "params": params}),
        );
        line.push('\n');
        self.out.write_all(line.as_bytes()).await.map_err(|e| e.to_string())?;
        let answer = self.lines.next_line().await.map_err(|e| e.to_string())?.ok_or("the server closed")?;
        serde_json::from_str(&answer).map_err(|e| e.to_string())
    }

    /// One two-round flow; the final text, to check each way does the work.
    async fn flow(&mut self, mrtr: bool) -> Result<String, String> {
        let first = self.call(json!({})).await?;
        let retry = if mrtr {
            let state =
                first["result"]["requestState"].as_str().ok_or(format!("no requestState: {first}"))?;
            json!({"requestState": state, "inputResponses": {"color": {"action": "accept", "content": {"color": "red"}}}})
        } else {
            json!({})
        };
        let last = self.call(retry).await?;
        last["result"]["content"][0]["text"].as_str().map(str::to_owned).ok_or(format!("no result: {last}"))
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

async fn run(out: &str) -> Result<(), String> {
    let sample = Duration::from_millis(env_u64("BENCH_SAMPLE_MS", 50));
    let repeats = env_u64("BENCH_REPEATS", 11).max(1);
    let question = snodo::elicit_form(
        "Which color do you prefer?",
        &serde_json::from_str(SCHEMA).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.message().to_owned())?;
    let engine = Arc::new(Engine::development().map_err(|e| e.message().to_owned())?);
    let codec =
        RequestStateCodec::new_with_keyring("k1", [("k1", [7u8; 32].to_vec())]).map_err(|e| e.to_string())?;
    let mut ways = [
        ("snodo", Wire::connect(Snodo::new(WithSnodo(question), engine)), true),
        ("rmcp", Wire::connect(WithRmcp(Arc::new(codec))), true),
        ("floor", Wire::connect(Floor), false),
    ];
    for (name, wire, mrtr) in &mut ways {
        let text = wire.flow(*mrtr).await?;
        if text != "Your preferred color is red." {
            return Err(format!("{name}: {text}"));
        }
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); ways.len()];
    for _ in 0..repeats {
        for (i, (_, wire, mrtr)) in ways.iter_mut().enumerate() {
            let start = Instant::now();
            let mut flows = 0u32;
            while start.elapsed() < sample {
                wire.flow(*mrtr).await?;
                flows += 1;
            }
            samples[i].push(start.elapsed().as_secs_f64() * 1e6 / f64::from(flows.max(1)));
        }
    }
    let mut us = serde_json::Map::new();
    for ((name, _, _), s) in ways.iter().zip(samples) {
        let m = median(s);
        println!("rmcp bench: {name}: {m:.1} µs per two-round flow");
        us.insert((*name).to_owned(), json!((m * 10.0).round() / 10.0));
    }
    let report = json!({"us_per_flow": us, "repeats": repeats, "sample_ms": sample.as_millis() as u64});
    std::fs::write(out, format!("{}\n", snodo::to_wire(&report))).map_err(|e| format!("{out}: {e}"))
}

fn main() -> std::process::ExitCode {
    let Some(out) = std::env::args().nth(1) else {
        eprintln!("usage: bench_flow OUT.json");
        return std::process::ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&out)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rmcp bench: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
