//! What the handler decides (the outcome helpers, in the core's JSON
//! spelling) and what it sends (`Response`), mirroring the core's
//! `Outcome`/`Response`.

use napi::bindgen_prelude::*;

use crate::error::{Result, argument, napi_failure};
use crate::json;

/// A JSON-RPC response ready for the wire.
// The TypeScript shape only: responses are built by `src/response.js` (a JS
// object whose `body` is produced on first read), never from this struct.
#[napi(object)]
// Holds JS handles, which must not and cannot be Debug.
#[allow(missing_debug_implementations, dead_code)]
pub struct Response<'a> {
    /// The whole JSON-RPC message as a plain object. Integers above 2^53
    /// lose precision here: send `json`.
    #[napi(
        ts_type = "{ jsonrpc: '2.0'; id: string | number | null; result?: Record<string, any>; error?: { code: number; message: string; data?: any } }"
    )]
    pub body: Unknown<'a>,
    /// The HTTP status for Streamable HTTP (400 for `_meta`-level errors,
    /// `-32020`, `-32021`, `-32022`; 404 for `-32601`; 200 otherwise).
    pub http_status: u32,
    /// Why snodo replaced the handler's outcome with `-32603`: log it, never
    /// send it. Absent otherwise.
    pub diagnostic: Option<String>,
    /// The message as compact JSON text, exact: this is what to send.
    pub json: String,
}

/// A handler outcome in the core's JSON spelling; build it with
/// `complete`, `inputRequired`, `error`, `toolError` or `raw`.
// The TypeScript shape only: `decide` hands the object to the core's
// `Outcome::from_value`, which owns every rule about it.
#[napi(object)]
#[derive(Debug)]
#[allow(dead_code)]
pub struct Outcome {
    /// Which outcome.
    #[napi(js_name = "type", ts_type = "'complete' | 'input_required' | 'error' | 'tool_error' | 'raw'")]
    pub kind: String,
    /// complete / raw: the result object.
    #[napi(ts_type = "Record<string, any>")]
    pub result: Option<()>,
    /// input_required: the input requests by key.
    #[napi(ts_type = "Record<string, object>")]
    pub input_requests: Option<()>,
    /// input_required: application state for the next round.
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

type ResponseArgs = FnArgs<(napi::sys::napi_value, u32, Option<String>)>;
type AnswerArgs = FnArgs<(&'static str, Option<String>, Option<String>)>;
type MakeResponse = FunctionRef<ResponseArgs, Unknown<'static>>;
type MakeAnswer = FunctionRef<AnswerArgs, Unknown<'static>>;
type Stringify = FunctionRef<napi::sys::napi_value, Unknown<'static>>;
type Parse = FunctionRef<napi::sys::napi_value, Unknown<'static>>;
type InstallArgs<'a> = FnArgs<(Unknown<'a>, Unknown<'a>, Vec<&'static str>, Object<'a>)>;

/// What the addon calls back into JS for, once per JS environment and kept
/// as that environment's instance data (released with it, so workers
/// neither share nor leak it): the factories of `src/response.js`, and
/// `JSON.stringify` / `JSON.parse` as they were when the addon was loaded
/// (looking them up on the global object for every value cost three N-API
/// calls each time: issue 16).
struct Instance {
    make_response: MakeResponse,
    make_answer: MakeAnswer,
    stringify: Stringify,
    parse: Parse,
}

const RESPONSE_JS: &str = include_str!("response.js");

/// The outcome helpers of `src/response.js` that replace the Rust
/// functions of the same names on the module's exports.
const JS_OUTCOMES: [&str; 3] = ["complete", "inputRequired", "raw"];

/// The answer kinds without a payload, which `Call.responseText` returns
/// as their index here (`install` of `src/response.js` gets this list).
pub(crate) const PLAIN_KINDS: [&str; 4] = ["missing", "declined", "cancelled", "changed"];

/// The native functions `install` of `src/response.js` gets (off the
/// exports): see `crate::engine`, `crate::call_handle`, `crate::legacy`
/// and `crate::once`. `crate::raw_entry` adds three more.
const NATIVES: [&str; 8] = [
    "engineHandle",
    "beginWith",
    "decideWith",
    "decideLegacyExt",
    "callField",
    "callResponse",
    "callRawResponse",
    "onceRunExt",
];

/// The native classes whose constructor takes a `Call`: `install` gets
/// each (in `natives`) and returns a JS constructor of the same name that
/// reaches the core's call of either `Call` (see `src/response.js`), which
/// replaces it on the exports.
const CALL_CLASSES: [&str; 1] = ["OnceRun"];

/// Evaluates `src/response.js` and keeps what it gives as instance data.
fn create(env: &Env) -> Result<(&'static Instance, Object<'_>)> {
    let js: Object = env.run_script(RESPONSE_JS).map_err(napi_failure)?;
    let json: Object =
        env.get_global().map_err(napi_failure)?.get_named_property_unchecked("JSON").map_err(napi_failure)?;
    let stringify: Function<napi::sys::napi_value, Unknown<'static>> =
        json.get_named_property_unchecked("stringify").map_err(napi_failure)?;
    let parse: Function<napi::sys::napi_value, Unknown<'static>> =
        json.get_named_property_unchecked("parse").map_err(napi_failure)?;
    let make_response: Function<ResponseArgs, Unknown<'static>> =
        js.get_named_property_unchecked("makeResponse").map_err(napi_failure)?;
    let make_answer: Function<AnswerArgs, Unknown<'static>> =
        js.get_named_property_unchecked("makeAnswer").map_err(napi_failure)?;
    let instance = Instance {
        make_response: make_response.create_ref().map_err(napi_failure)?,
        make_answer: make_answer.create_ref().map_err(napi_failure)?,
        stringify: stringify.create_ref().map_err(napi_failure)?,
        parse: parse.create_ref().map_err(napi_failure)?,
    };
    env.set_instance_data(instance, (), |_| {}).map_err(napi_failure)?;
    match env.get_instance_data::<Instance>().map_err(napi_failure)? {
        Some(instance) => Ok((instance, js)),
        None => Err(argument("internal: response factory not registered")),
    }
}

fn instance(env: &Env) -> Result<&'static Instance> {
    match env.get_instance_data::<Instance>().map_err(napi_failure)? {
        Some(instance) => Ok(instance),
        // The module hook below creates it; this is only a fallback.
        None => Ok(create(env)?.0),
    }
}

/// Runs when the addon is loaded into a JS environment (the main thread or
/// a worker), after every Rust export is registered: sets up the instance
/// data and puts the JS outcome helpers on the exports (see
/// `src/response.js` for why they are JS).
#[napi(module_exports)]
pub fn init(mut exports: Object, env: Env) -> napi::Result<()> {
    crate::tune_allocator();
    let (_, js) = create(&env).map_err(|e| napi::Error::from_reason(e.reason))?;
    for name in JS_OUTCOMES {
        let f: Unknown = js.get_named_property_unchecked(name)?;
        exports.set_named_property(name, f)?;
    }
    // `begin`, `decide` and `response` in JS over the native entries,
    // which leave the exports for `install`.
    let mut natives = Object::new(&env)?;
    for name in NATIVES {
        let f: Unknown = exports.get_named_property_unchecked(name)?;
        natives.set_named_property(name, f)?;
        exports.delete_named_property(name)?;
    }
    crate::raw_entry::add_to(&env, &mut natives)?;
    // The names of the JS `Call`'s getters, by `callField` index.
    natives.set_named_property("plainFields", crate::call_handle::PLAIN_FIELDS.to_vec())?;
    natives.set_named_property("jsonFields", crate::call_handle::JSON_FIELDS.to_vec())?;
    for name in CALL_CLASSES {
        let class: Unknown = exports.get_named_property_unchecked(name)?;
        natives.set_named_property(name, class)?;
    }
    let install: Function<InstallArgs, Unknown> = js.get_named_property_unchecked("install")?;
    let engine: Unknown = exports.get_named_property_unchecked("Engine")?;
    let call: Unknown = exports.get_named_property_unchecked("Call")?;
    let classes =
        Object::from_unknown(install.apply(js, (engine, call, PLAIN_KINDS.to_vec(), natives).into())?)?;
    for name in CALL_CLASSES {
        let class: Unknown = classes.get_named_property_unchecked(name)?;
        exports.set_named_property(name, class)?;
    }
    Ok(())
}

/// `call.response`'s answer object (`makeAnswer` of `src/response.js`):
/// `value_json` is the JSON text of the accepted value.
pub(crate) fn answer_object<'e>(
    env: &'e Env,
    kind: &'static str,
    value_json: Option<String>,
    reason: Option<String>,
) -> Result<Unknown<'e>> {
    let f = instance(env)?.make_answer.borrow_back(env).map_err(napi_failure)?;
    f.call((kind, value_json, reason).into()).map_err(napi_failure)
}

/// `JSON.stringify`, called with one value.
pub(crate) fn js_stringify(env: &Env) -> Result<Function<'_, napi::sys::napi_value, Unknown<'static>>> {
    instance(env)?.stringify.borrow_back(env).map_err(napi_failure)
}

/// `JSON.parse`, called with one string.
pub(crate) fn js_parse(env: &Env) -> Result<Function<'_, napi::sys::napi_value, Unknown<'static>>> {
    instance(env)?.parse.borrow_back(env).map_err(napi_failure)
}

/// The JS object for a core response (see `src/response.js`).
pub(crate) fn response_object<'e>(env: &'e Env, r: &snodo::Response) -> Result<Unknown<'e>> {
    let f = instance(env)?.make_response.borrow_back(env).map_err(napi_failure)?;
    let args =
        (json::js_string(env, &r.to_json())?, u32::from(r.http_status()), r.diagnostic().map(str::to_owned));
    f.call(args.into()).map_err(napi_failure)
}

fn outcome<'e>(env: &'e Env, kind: &str, fields: Vec<(&str, Option<Unknown>)>) -> Result<Object<'e>> {
    let mut o = Object::new(env).map_err(napi_failure)?;
    o.set("type", kind).map_err(napi_failure)?;
    for (name, value) in fields {
        if let Some(v) = value
            && !json::is_nullish(&v)?
        {
            o.set(name, v).map_err(napi_failure)?;
        }
    }
    Ok(o)
}

/// Outcome: a final result (`resultType` is stamped `"complete"`).
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn complete<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, any>")] result: Unknown,
) -> Result<Object<'e>> {
    outcome(env, "complete", vec![("result", Some(result))])
}

/// Outcome: ask the client for input. `inputRequests` maps keys to input
/// requests (from the builders); `state` is carried, readable and sealed, to
/// the retry.
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn input_required<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, object>")] input_requests: Unknown,
    #[napi(ts_arg_type = "any")] state: Option<Unknown>,
) -> Result<Object<'e>> {
    outcome(env, "input_required", vec![("inputRequests", Some(input_requests)), ("state", state)])
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
    o.set("code", code).map_err(napi_failure)?;
    o.set("message", message).map_err(napi_failure)?;
    Ok(o)
}

/// Outcome: a tool execution error (`isError: true`), tools/call only.
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn tool_error<'e>(env: &'e Env, message: String) -> Result<Object<'e>> {
    let mut o = outcome(env, "tool_error", vec![])?;
    o.set("message", message).map_err(napi_failure)?;
    Ok(o)
}

/// Outcome: a raw result object (the escape hatch; the same checks apply,
/// and a `CreateTaskResult` goes this way).
#[napi(catch_unwind, ts_return_type = "Outcome")]
pub fn raw<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, any>")] result: Unknown,
) -> Result<Object<'e>> {
    // A missing result is the core's to refuse (`decide`: ARGUMENT), as
    // for `complete`.
    outcome(env, "raw", vec![("result", Some(result))])
}
