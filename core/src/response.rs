//! What a handler decided ([`Outcome`]) and what goes on the wire
//! ([`Response`], with its HTTP status).

use serde_json::{Map, Value, json};

use crate::elicitation::Question;
use crate::error::{Error, ErrorCode, Result};
use crate::json;

mod questions;

use questions::Asked;

/// What the handler decided.
///
/// `#[non_exhaustive]`: a new kind of outcome is not a breaking change;
/// code outside snodo builds outcomes but never needs to match on them.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// A final result object (`resultType` is stamped `"complete"`).
    Complete(Value),
    /// Ask the client for input. `requests` are `(key, question)` pairs,
    /// each question built with the builders or [`Question::from_value`].
    /// `state` is carried, readable and sealed, to the retry. At least one
    /// of a non-empty `requests` or a `state` is required.
    InputRequired {
        /// The questions, by key.
        requests: Vec<(String, Question)>,
        /// Application state for the next round.
        state: Option<Value>,
    },
    /// A JSON-RPC error.
    Error {
        /// The code; codes the spec reserves or forbids become `-32603`.
        code: i64,
        /// A concise message.
        message: String,
        /// Optional data.
        data: Option<Value>,
    },
    /// A tool-level failure (`tools/call` only): a complete result with
    /// `isError: true` and the message as text content.
    ToolError(String),
    /// Go on as a task (Tasks extension): on a `tools/call` whose client
    /// declared the extension, [`Engine::task_step`](crate::Engine::task_step)
    /// stores a task and answers its `CreateTaskResult`, and the handler runs
    /// again in the background reading `state`; for any other client it runs
    /// again at once, in the request. Only `task_step` takes it: `decide`
    /// answers it with `-32603`.
    Task {
        /// What the next run of the handler reads as its state.
        state: Option<Value>,
    },
    /// A raw result object, checked exactly like the typed outcomes
    /// (`resultType` absent or `"complete"` → complete; `"input_required"` →
    /// input required with its `inputRequests`).
    Raw(Value),
}

impl Outcome {
    /// Reads an outcome from its JSON spelling, used by the C ABI and
    /// available to every binding:
    ///
    /// * `{"type":"complete","result":{…}}`
    /// * `{"type":"input_required","inputRequests":{…},"state":…}` (both
    ///   optional; each request is made a [`Question`] by
    ///   [`Question::from_value`])
    /// * `{"type":"error","code":-32602,"message":"…","data":…}`
    /// * `{"type":"tool_error","message":"…"}`
    /// * `{"type":"raw","result":{…}}`
    /// * `{"type":"task","state":…}` (state optional)
    pub fn from_value(value: Value) -> Result<Outcome> {
        let bad = |m: &str| Error::new(ErrorCode::Argument, format!("outcome: {m}"));
        let Value::Object(mut o) = value else { return Err(bad("must be an object")) };
        let kind = match o.remove("type") {
            Some(Value::String(t)) => t,
            _ => return Err(bad("`type` must be a string")),
        };
        match kind.as_str() {
            "complete" => {
                Ok(Outcome::Complete(o.remove("result").ok_or_else(|| bad("complete needs `result`"))?))
            }
            "raw" => Ok(Outcome::Raw(o.remove("result").ok_or_else(|| bad("raw needs `result`"))?)),
            "input_required" => {
                let requests = match o.remove("inputRequests") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(m)) => m,
                    Some(_) => return Err(bad("`inputRequests` must be an object")),
                };
                let state = o.remove("state").filter(|s| !s.is_null());
                Ok(input_required(requests, state))
            }
            "error" => {
                let code = o
                    .get("code")
                    .and_then(Value::as_i64)
                    .ok_or_else(|| bad("error needs an integer `code`"))?;
                let message = match o.remove("message") {
                    Some(Value::String(m)) => m,
                    _ => return Err(bad("error needs a string `message`")),
                };
                Ok(Outcome::Error { code, message, data: o.remove("data") })
            }
            "task" => Ok(Outcome::Task { state: o.remove("state").filter(|s| !s.is_null()) }),
            "tool_error" => match o.remove("message") {
                Some(Value::String(m)) => Ok(Outcome::ToolError(m)),
                _ => Err(bad("tool_error needs a string `message`")),
            },
            other => Err(bad(&format!("unknown type {other:?}"))),
        }
    }
}

/// A JSON-RPC response message ready for the wire, with the HTTP status a
/// Streamable HTTP server should use.
#[derive(Clone)]
pub struct Response {
    body: Body,
    http_status: u16,
    diagnostic: Option<String>,
}

/// A response's message: a tree, or the parts of an `input_required`
/// result (its questions kept as values; see `response/questions.rs`).
#[derive(Clone)]
enum Body {
    Tree(Value),
    Asked(Box<Asked>),
}

impl std::fmt::Debug for Response {
    /// As the message's tree, however it is held.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Response")
            .field("body", self.body())
            .field("http_status", &self.http_status)
            .field("diagnostic", &self.diagnostic)
            .finish()
    }
}

impl PartialEq for Response {
    /// Equal messages, statuses and diagnostics, however each is held.
    fn eq(&self, other: &Response) -> bool {
        self.http_status == other.http_status
            && self.diagnostic == other.diagnostic
            && self.body() == other.body()
    }
}

impl Response {
    pub(crate) fn result(id: Value, result: Value) -> Response {
        Response { body: Body::Tree(envelope(id, "result", result)), http_status: 200, diagnostic: None }
    }

    /// `decide`'s `input_required` result: the message `result(id,
    /// {"resultType":"input_required", "inputRequests": requests (when
    /// any), "requestState": token, "_meta": meta (when any)})`, with the
    /// questions kept as they are. `requests` must have unique keys;
    /// `meta` must be an object.
    pub(crate) fn input_required(
        id: Value,
        mut requests: Vec<(String, Question)>,
        token: String,
        meta: Option<Value>,
    ) -> Response {
        requests.sort_by(|a, b| a.0.cmp(&b.0));
        let asked = Asked { id, requests, token, meta, tree: std::sync::OnceLock::new() };
        Response { body: Body::Asked(Box::new(asked)), http_status: 200, diagnostic: None }
    }

    pub(crate) fn error(
        id: Value,
        code: i64,
        message: &str,
        data: Option<Value>,
        http_status: u16,
    ) -> Response {
        let mut err = Map::new();
        err.insert("code".into(), json!(code));
        err.insert("message".into(), json!(message));
        if let Some(d) = data {
            err.insert("data".into(), d);
        }
        Response {
            body: Body::Tree(envelope(id, "error", Value::Object(err))),
            http_status,
            diagnostic: None,
        }
    }

    pub(crate) fn internal(id: Value, why: String) -> Response {
        let mut r = Response::error(id, -32603, "Internal error", None, 200);
        r.diagnostic = Some(why);
        r
    }

    pub(crate) fn with_diagnostic(mut self, why: &str) -> Response {
        self.diagnostic = Some(why.to_owned());
        self
    }

    /// The legacy bridge answers on a 2025 session, whose transport
    /// carries every JSON-RPC error in a 200 body.
    pub(crate) fn with_status(mut self, http_status: u16) -> Response {
        self.http_status = http_status;
        self
    }

    /// The whole JSON-RPC message.
    pub fn body(&self) -> &Value {
        match &self.body {
            Body::Tree(v) => v,
            Body::Asked(a) => a.tree(),
        }
    }
    /// The message as compact JSON text.
    pub fn to_json(&self) -> String {
        match &self.body {
            Body::Tree(v) => json::to_wire(v),
            Body::Asked(a) => a.text(),
        }
    }
    /// Consumes the response into its message.
    pub fn into_body(self) -> Value {
        match self.body {
            Body::Tree(v) => v,
            Body::Asked(mut a) => a.tree.take().unwrap_or_else(|| a.into_tree()),
        }
    }
    /// The HTTP status for Streamable HTTP: 400 for `-32700`, `-32600`,
    /// `-32020`, `-32021`, `-32022` and `_meta`-level `-32602`; 404 for
    /// `-32601`; 200 otherwise.
    pub fn http_status(&self) -> u16 {
        self.http_status
    }
    /// Why snodo replaced the handler's outcome with `-32603`, for the
    /// server's log. Never sent on the wire.
    pub fn diagnostic(&self) -> Option<&str> {
        self.diagnostic.as_deref()
    }
    /// Whether this is an error response.
    pub fn is_error(&self) -> bool {
        match &self.body {
            Body::Tree(v) => v.get("error").is_some(),
            Body::Asked(_) => false,
        }
    }
}

/// `{"jsonrpc":"2.0","id":…,<kind>:…}`, the values moved in (`json!`
/// would copy them).
fn envelope(id: Value, kind: &str, payload: Value) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".to_owned(), Value::String("2.0".to_owned()));
    m.insert("id".to_owned(), id);
    m.insert(kind.to_owned(), payload);
    Value::Object(m)
}

pub(crate) fn status_for(code: i64) -> u16 {
    match code {
        -32700 | -32600 | -32020 | -32021 | -32022 => 400,
        -32601 => 404,
        _ => 200,
    }
}

/// An `input_required` outcome read from JSON: its questions made with
/// [`Question::from_value`]. A request that does not validate makes the
/// equivalent raw result instead, which `decide` answers, as it answers
/// any invalid result, with `-32603` naming the request (the state goes
/// with it: the response is the error whatever the state).
fn input_required(requests: Map<String, Value>, state: Option<Value>) -> Outcome {
    let mut questions: Vec<(String, Question)> = Vec::with_capacity(requests.len());
    let mut entries = requests.into_iter();
    while let Some((key, request)) = entries.next() {
        match Question::check(&request) {
            Ok(kind) => questions.push((key, Question::within(request, kind))),
            Err(_) => {
                let mut all: Map<String, Value> =
                    questions.into_iter().map(|(k, q)| (k, Value::from(q))).collect();
                all.insert(key, request);
                all.extend(entries);
                let mut raw = Map::new();
                raw.insert("resultType".into(), Value::from("input_required"));
                raw.insert("inputRequests".into(), Value::Object(all));
                return Outcome::Raw(Value::Object(raw));
            }
        }
    }
    Outcome::InputRequired { requests: questions, state }
}
