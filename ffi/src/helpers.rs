//! The stateless helpers: what a client can receive, the Tasks extension, the canonical JSON form, and
//! low-level tokens (`snodo_binding_digest`, `snodo_engine_seal`, `snodo_engine_open`), so that tokens can be
//! tested and interoperate across languages byte for byte.

use std::ffi::c_char;

use serde_json::{Map, Value};
use snodo::{SealInput, TaskInputCheck};

use crate::engine::{principal, snodo_engine};
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, OutStr, bytes, guard, handle, json, json_opt, read_text_or, text};

/// Length of a binding digest, in bytes.
pub const SNODO_BINDING_LEN: usize = 32;

/// The body of the helpers that read two JSON arguments and write one JSON result; `f` is the core call.
unsafe fn json_pair(
    (a, a_len, a_what): (*const u8, usize, &str),
    (b, b_len, b_what): (*const u8, usize, &str),
    out: *mut *mut c_char,
    out_len: *mut usize,
    f: impl FnOnce(&Value, &Value) -> Result<Value, Fail>,
) -> snodo_status {
    guard(|| {
        let (a, b) = unsafe { (json(a, a_len, a_what)?, json(b, b_len, b_what)?) };
        unsafe { OutStr::new(out, out_len) }?.write_json(&f(&a, &b)?)
    })
}

/// The capabilities a client declaring `capabilities` (a ClientCapabilities JSON object) must add to receive
/// every request in `requests` (a JSON object of key → input request), as a ClientCapabilities-shaped JSON
/// object: `{}` when all can be sent. Statuses: OK, ARGUMENT (`requests` not an object).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_missing_capabilities(
    requests: *const u8,
    requests_len: usize,
    capabilities: *const u8,
    capabilities_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    let (r, c) = ((requests, requests_len, "requests"), (capabilities, capabilities_len, "capabilities"));
    unsafe { json_pair(r, c, out, out_len, |r, c| Ok(snodo::missing_capabilities(r, c)?)) }
}

/// Keeps only the requests (a JSON object of key → input request) that a client declaring `capabilities` can
/// receive, as a JSON object. Use it for optional questions; for required ones let decide answer `-32021`.
/// Statuses: OK, ARGUMENT (`requests` not an object).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_filter_supported(
    requests: *const u8,
    requests_len: usize,
    capabilities: *const u8,
    capabilities_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    let (r, c) = ((requests, requests_len, "requests"), (capabilities, capabilities_len, "capabilities"));
    unsafe { json_pair(r, c, out, out_len, |r, c| Ok(snodo::filter_supported(r, c)?)) }
}

/// Checks the input requests a `tasks/get` result carries: `task` is the Task object (JSON text),
/// `capabilities` the ClientCapabilities the `tasks/get` request declared. An `input_required` task must
/// carry a non-empty `inputRequests` object of valid input requests under valid keys; any other status none.
/// `*out` is `{}` when the client can receive them all, else the capabilities it lacks (as
/// `snodo_missing_capabilities` gives them). Statuses: OK, INPUT_REQUEST (a malformed task, the last error
/// naming the field).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_check_task_input_requests(
    task: *const u8,
    task_len: usize,
    capabilities: *const u8,
    capabilities_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    let (t, c) = ((task, task_len, "task"), (capabilities, capabilities_len, "capabilities"));
    unsafe {
        json_pair(t, c, out, out_len, |t, c| match snodo::check_task_input_requests(t, c) {
            Ok(()) => Ok(Value::Object(Map::new())),
            Err(TaskInputCheck::MissingCapabilities(m)) => Ok(m),
            Err(TaskInputCheck::Invalid(why)) => Err(Fail::new(snodo_status::InputRequest, why)),
        })
    }
}

/// Whether `capabilities` (a ClientCapabilities JSON object) declares the Tasks extension
/// (`extensions["io.modelcontextprotocol/tasks"]`, an object): only then may a `tools/call` outcome be a
/// `CreateTaskResult`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_declares_tasks(
    capabilities: *const u8,
    capabilities_len: usize,
    out: *mut bool,
) -> snodo_status {
    guard(|| {
        let caps = unsafe { json(capabilities, capabilities_len, "capabilities") }?;
        unsafe { Out::new(out, "out") }?.write(snodo::declares_tasks(&caps))
    })
}

/// The canonical form of a JSON text (docs/canonical-json.md): object keys sorted, no insignificant
/// whitespace, one string escaping, numbers by their lexical text (`1` and `1.0` differ). Invalid UTF-8 is
/// JSON here (the core's one reader, as in every language).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_canonicalize(
    input: *const u8,
    input_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        let input = unsafe { bytes(input, input_len, "input") }?;
        unsafe { OutStr::new(out, out_len) }?.write(snodo::canonicalize(input)?.as_bytes())
    })
}

/// The request binding digest: SHA-256 over a domain label, the method, and the canonical form of `params` (a
/// JSON object; its top-level `_meta`, `inputResponses` and `requestState` are left out). Writes
/// `SNODO_BINDING_LEN` (32) bytes to `out` (caller-owned memory). Statuses: OK, ARGUMENT (`params` not an
/// object).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_binding_digest(
    method: *const u8,
    method_len: usize,
    params: *const u8,
    params_len: usize,
    out: *mut u8,
) -> snodo_status {
    guard(|| {
        let method = unsafe { text(method, method_len, "method") }?;
        let params = unsafe { json(params, params_len, "params") }?;
        unsafe { Out::new(out.cast(), "out") }?.write(snodo::binding_digest(method, &params)?)
    })
}

/// Seals a token with the engine's signing key at the engine's time. `binding` is 32 bytes from
/// `snodo_binding_digest`; `questions` a JSON object of key → input request asked this round (NULL = none;
/// each read as `snodo_question_from_json` reads one); `state` the application state as JSON (NULL = none; it
/// is readable, never put secrets in it). `*out` is the token. Statuses: OK, STATE_TOO_LARGE, ARGUMENT (empty
/// principal, `questions` not an object), and a question's own (INPUT_REQUEST, SCHEMA, URL, SAMPLING).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_seal(
    engine: *const snodo_engine,
    principal_ptr: *const u8,
    principal_len: usize,
    binding_ptr: *const u8,
    round: u32,
    flow_start: u64,
    questions: *const u8,
    questions_len: usize,
    state: *const u8,
    state_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        let (engine, who) = unsafe { (handle(engine, "engine")?, principal(principal_ptr, principal_len)?) };
        let binding = unsafe { handle(binding_ptr.cast::<[u8; SNODO_BINDING_LEN]>(), "binding") }?;
        let questions = unsafe { json_opt(questions, questions_len, "questions") }?;
        let (state, out) = unsafe { (json_opt(state, state_len, "state")?, OutStr::new(out, out_len)?) };
        let questions = questions.map_or_else(|| Ok(Vec::new()), |q| crate::question::questions(&q))?;
        let input = SealInput {
            principal: &who,
            binding,
            round,
            flow_start,
            questions: &questions,
            state: state.as_ref(),
        };
        out.write(engine.inner.seal(&input)?.as_bytes())
    })
}

/// Opens a token for `principal` and the request `binding` (32 bytes) at the engine's time. `*out` is a JSON
/// object: `{"keyId","issuedAt", "expiresAt","flowStart","round","questionKeys":[...],"state":...|null,
/// "tokenId","flowId"}`. A token that fails any check is TOKEN, and the last error is the core's one message,
/// `"TOKEN: Invalid or expired requestState (<reason>)"`, with the stable reason name (`malformed`,
/// `signature`, `expired`, `principal`, `request`, `rounds`, ...; also from `snodo_last_token_reason`).
/// Statuses: OK, TOKEN, ARGUMENT (empty principal).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_open(
    engine: *const snodo_engine,
    token: *const u8,
    token_len: usize,
    principal_ptr: *const u8,
    principal_len: usize,
    binding_ptr: *const u8,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe {
        read_text_or(engine, "engine", out, out_len, |e| {
            let (token, who) = (text(token, token_len, "token")?, principal(principal_ptr, principal_len)?);
            let binding = handle(binding_ptr.cast::<[u8; SNODO_BINDING_LEN]>(), "binding")?;
            Ok(Some(snodo::to_wire(&e.inner.open(token, &who, binding).map_err(Fail::from_token)?.to_json())))
        })
    }
}
