//! What the handler decides (the outcome helpers, in the core's JSON spelling, and how `decide`
//! reads an outcome) and what it sends (`Response`), mirroring the core's `Outcome`/`Response`.

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};

use crate::error::{Coded, Result, core};
use crate::json;
use crate::question;

/// A JSON-RPC response ready for the wire: send `json` with `httpStatus`. Immutable.
#[napi]
#[derive(Debug, Clone)]
pub struct Response {
    /// The message as compact JSON text, exact: this is what to send.
    #[napi(readonly)]
    pub json: String,
    /// The HTTP status for Streamable HTTP (400 for `_meta`-level errors, `-32020`, `-32021`,
    /// `-32022`; 404 for `-32601`; 200 otherwise).
    #[napi(readonly)]
    pub http_status: u32,
    /// Why snodo replaced the handler's outcome with `-32603`: log it, never send it. `null`
    /// otherwise.
    #[napi(readonly)]
    pub diagnostic: Option<String>,
}

impl From<&snodo::Response> for Response {
    fn from(r: &snodo::Response) -> Response {
        Response {
            json: r.to_json(),
            http_status: u32::from(r.http_status()),
            diagnostic: r.diagnostic().map(str::to_owned),
        }
    }
}

#[napi]
impl Response {
    /// The message as a plain object (`JSON.parse(json)`, a new one on every read). Integers above
    /// 2^53 lose precision here: send `json`.
    #[napi(
        getter,
        catch_unwind,
        ts_return_type = "{ jsonrpc: '2.0'; id: string | number | null; result?: Record<string, any>; error?: { code: number; message: string; data?: any } }"
    )]
    pub fn body<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::parse_to_js(env, &self.json)
    }
    /// `{ body, httpStatus, diagnostic?, json }`: what `JSON.stringify` shows.
    #[napi(js_name = "toJSON", catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn to_json<'e>(&self, env: &'e Env) -> Result<Object<'e>> {
        let mut o = Object::new(env).coded()?;
        o.set("body", self.body(env)?).coded()?;
        o.set("httpStatus", self.http_status).coded()?;
        if let Some(d) = &self.diagnostic {
            o.set("diagnostic", d.as_str()).coded()?;
        }
        o.set("json", self.json.as_str()).coded()?;
        Ok(o)
    }
}

/// A handler outcome in the core's JSON spelling; build it with `complete`, `inputRequired`,
/// `error`, `toolError`, `raw` or `runAsTask`.
// The TypeScript shape only: `decide` reads the object with `outcome_arg`.
#[napi(object)]
#[derive(Debug)]
#[allow(dead_code)]
pub struct Outcome {
    /// Which outcome.
    #[napi(
        js_name = "type",
        ts_type = "'complete' | 'input_required' | 'error' | 'tool_error' | 'raw' | 'task'"
    )]
    pub kind: String,
    /// complete / raw: the result object.
    #[napi(ts_type = "Record<string, any>")]
    pub result: Option<()>,
    /// input_required: the questions by key (`Question`s, or requests written as objects, which the
    /// core makes questions of).
    #[napi(ts_type = "Record<string, Question | Record<string, any>>")]
    pub input_requests: Option<()>,
    /// input_required, task: application state for the next round (or run).
    #[napi(ts_type = "any")]
    pub state: Option<()>,
    /// error: the JSON-RPC code.
    pub code: Option<i64>,
    /// error / tool_error: the message.
    pub message: Option<String>,
    /// error: optional data.
    #[napi(ts_type = "any")]
    pub data: Option<()>,
}

/// The outcome `value` spells (object or JSON text): an `input_required` of `Question`s hands those
/// to the core as they are; anything else goes through its JSON (`Outcome::from_value`).
pub(crate) fn outcome_arg(env: &Env, value: Unknown) -> Result<snodo::Outcome> {
    if let Some(outcome) = asked(env, value)? {
        return Ok(outcome);
    }
    snodo::Outcome::from_value(json::read(env, value, "outcome")?).map_err(core)
}

/// `{type: 'input_required', inputRequests: {key: Question, ...}, state?}` as the core's outcome;
/// `None` for any other shape, which the JSON reading answers.
fn asked(env: &Env, value: Unknown) -> Result<Option<snodo::Outcome>> {
    let Some(outcome) = plain_object(value)? else { return Ok(None) };
    let kind: Unknown = outcome.get_named_property("type").coded()?;
    if kind.get_type().coded()? != ValueType::String
        || String::from_unknown(kind).coded()? != "input_required"
    {
        return Ok(None);
    }
    let requests: Unknown = outcome.get_named_property("inputRequests").coded()?;
    let Some(requests) = plain_object(requests)? else { return Ok(None) };
    if outcome.has_named_property("toJSON").coded()? || requests.has_named_property("toJSON").coded()? {
        return Ok(None);
    }
    let keys = requests.get_property_names().coded()?;
    let mut questions = Vec::new();
    for i in 0..keys.get_array_length().coded()? {
        let key: String = keys.get_element(i).coded()?;
        let Some(q) = question::instance(requests.get_named_property(&key).coded()?) else {
            return Ok(None);
        };
        questions.push((key, q));
    }
    // In key order, as the JSON reading has them: the same key is named first when one is refused.
    questions.sort_by(|a, b| a.0.cmp(&b.0));
    let state: Unknown = outcome.get_named_property("state").coded()?;
    let state = if json::is_nullish(&state)? {
        None
    } else {
        // Read one level down, as inside the outcome (the depth bound counts from there); what
        // does not read cleanly (refused, or near the size cap) goes the JSON way, which words it.
        let Ok(text) = json::stringify(env, state, "outcome") else { return Ok(None) };
        match snodo::parse_json(format!("[{text}]").as_bytes(), "outcome") {
            Ok(serde_json::Value::Array(mut one)) if text.len() < snodo::MAX_ARGUMENT_BYTES / 2 => {
                one.pop().filter(|s| !s.is_null())
            }
            _ => return Ok(None),
        }
    };
    Ok((!questions.is_empty()).then_some(snodo::Outcome::InputRequired { requests: questions, state }))
}

/// `value` as an object, unless it is something else or an array, a Buffer or a typed array (which
/// `JSON.stringify` writes otherwise).
fn plain_object(value: Unknown) -> Result<Option<Object>> {
    if value.get_type().coded()? != ValueType::Object
        || value.is_array().coded()?
        || value.is_typedarray().coded()?
    {
        return Ok(None);
    }
    Ok(Some(Object::from_unknown(value).coded()?))
}

/// `call.response`'s answer: `{kind}`, plus `value` (accepted) or `reason` (invalid).
pub(crate) fn answer_object<'e>(env: &'e Env, answer: snodo::Answer) -> Result<Object<'e>> {
    let mut o = Object::new(env).coded()?;
    o.set("kind", answer.kind()).coded()?;
    match answer {
        snodo::Answer::Accepted(v) => o.set("value", json::to_js(env, &v)?),
        snodo::Answer::Invalid(why) => o.set("reason", why),
        _ => Ok(()),
    }
    .coded()?;
    Ok(o)
}

/// An outcome object: `type`, then each field that is neither `undefined` nor `null`, in order (the
/// value itself, not a copy).
fn outcome<'e>(env: &'e Env, kind: &str, fields: Vec<(&str, Option<Unknown>)>) -> Result<Object<'e>> {
    let mut o = Object::new(env).coded()?;
    o.set("type", kind).coded()?;
    for (name, value) in fields {
        if let Some(v) = value
            && !json::is_nullish(&v)?
        {
            o.set(name, v).coded()?;
        }
    }
    Ok(o)
}

/// Outcome: a final result (`resultType` is stamped `"complete"`).
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn complete<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, any>")] result: Option<Unknown>,
) -> Result<Object<'e>> {
    outcome(env, "complete", vec![("result", result)])
}

/// Outcome: ask the client for input. `inputRequests` maps keys to questions (from the builders);
/// `state` is carried, readable and sealed, to the retry.
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn input_required<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, Question | Record<string, any>>")] input_requests: Option<Unknown>,
    #[napi(ts_arg_type = "any")] state: Option<Unknown>,
) -> Result<Object<'e>> {
    outcome(env, "input_required", vec![("inputRequests", input_requests), ("state", state)])
}

/// Outcome: a JSON-RPC error (the core's error policy applies).
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn error<'e>(
    env: &'e Env,
    code: i64,
    message: String,
    #[napi(ts_arg_type = "any")] data: Option<Unknown>,
) -> Result<Object<'e>> {
    let mut o = outcome(env, "error", vec![("data", data)])?;
    o.set("code", code).coded()?;
    o.set("message", message).coded()?;
    Ok(o)
}

/// Outcome: a tool execution error (`isError: true`), tools/call only.
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn tool_error<'e>(env: &'e Env, message: String) -> Result<Object<'e>> {
    let mut o = outcome(env, "tool_error", vec![])?;
    o.set("message", message).coded()?;
    Ok(o)
}

/// Outcome: the rest may run as a task (`engine.taskStep` only): a task on a `tools/call` whose
/// client declared the extension, else the handler goes on at once in the request, with `state`.
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn run_as_task<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "any")] state: Option<Unknown>,
) -> Result<Object<'e>> {
    outcome(env, "task", vec![("state", state)])
}

/// Outcome: a raw result object (the escape hatch; the same checks apply, and a `CreateTaskResult`
/// goes this way).
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn raw<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, any>")] result: Option<Unknown>,
) -> Result<Object<'e>> {
    // A missing result is the core's to refuse (`decide`: ARGUMENT), as for `complete`.
    outcome(env, "raw", vec![("result", result)])
}
