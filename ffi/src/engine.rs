//! `snodo_engine`: new, free, begin and decide (the config is `config.rs`).

use snodo::{Begin, Engine, Outcome, Principal};

use crate::call::{snodo_call, snodo_response};
use crate::config::snodo_config;
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, bytes, free_handle, guard, handle, into_handle, json, json_opt, make, text, text_opt};
use crate::question::{input_required, snodo_input_request};

/// The MRTR engine: immutable once built, and shareable across threads.
#[derive(Debug)]
pub struct snodo_engine {
    pub(crate) inner: Engine,
}

/// Validates `config` (not consumed) and builds an engine. Statuses: OK, CONFIG (the last error names it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_new(
    config: *const snodo_config,
    out: *mut *mut snodo_engine,
) -> snodo_status {
    unsafe { make(out, || Ok(snodo_engine { inner: Engine::new(handle(config, "config")?.inner.clone())? })) }
}

/// A development engine with one random key that lives as long as the process. **Single process only**: its
/// tokens cannot be opened by another process or after a restart; real deployments use `snodo_engine_new`.
/// Statuses: OK, CONFIG (no OS randomness).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_development(out: *mut *mut snodo_engine) -> snodo_status {
    unsafe { make(out, || Ok(snodo_engine { inner: Engine::development()? })) }
}

/// Frees an engine (calls and responses it produced stay valid).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_free(engine: *mut snodo_engine) {
    unsafe { free_handle(engine) }
}

/// Reads the principal argument: NULL is the explicit anonymous principal.
pub(crate) unsafe fn principal(ptr: *const u8, len: usize) -> Result<Principal, Fail> {
    Ok(Principal::from_option(unsafe { text_opt(ptr, len, "principal") }?)?)
}

/// The two outs of the begin functions, checked up front.
pub(crate) struct BeginOuts(Out<*mut snodo_call>, Out<*mut snodo_response>);

impl BeginOuts {
    pub(crate) unsafe fn new(
        call: *mut *mut snodo_call,
        response: *mut *mut snodo_response,
    ) -> Result<Self, Fail> {
        unsafe { Ok(BeginOuts(Out::new(call, "out_call")?, Out::new(response, "out_response")?)) }
    }

    /// Writes the call or the response, and NULL to the other.
    pub(crate) fn write(self, begin: Begin) -> Result<(), Fail> {
        let (call, response) = match begin {
            Begin::Call(call) => (into_handle(snodo_call { inner: *call }), std::ptr::null_mut()),
            Begin::Respond(r) => (std::ptr::null_mut(), into_handle(snodo_response { inner: r })),
        };
        self.0.write(call)?;
        self.1.write(response)
    }
}

/// Reads a JSON-RPC request message (the bytes as received), maybe an MRTR retry. Exactly one of `*out_call`
/// (run the handler, then decide it) and `*out_response` (a protocol error, e.g. a bad token: send it as is)
/// is a new handle, the other NULL. Statuses: OK, NOT_A_REQUEST (a notification or a response: send nothing),
/// ARGUMENT.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_begin(
    engine: *const snodo_engine,
    request: *const u8,
    request_len: usize,
    principal: *const u8,
    principal_len: usize,
    out_call: *mut *mut snodo_call,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    guard(|| {
        let engine = unsafe { handle(engine, "engine") }?;
        let request = unsafe { bytes(request, request_len, "request") }?;
        let who = unsafe { self::principal(principal, principal_len) }?;
        let outs = unsafe { BeginOuts::new(out_call, out_response) }?;
        outs.write(engine.inner.begin(request, &who)?)
    })
}

/// `snodo_engine_begin` of a request an SDK has already parsed: `id` (JSON), `method` and `params` (the JSON
/// object as received, `_meta`, `inputResponses` and `requestState` left in; NULL = none). Statuses: OK,
/// NOT_A_REQUEST, ARGUMENT.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_begin_parts(
    engine: *const snodo_engine,
    id: *const u8,
    id_len: usize,
    method: *const u8,
    method_len: usize,
    params: *const u8,
    params_len: usize,
    principal: *const u8,
    principal_len: usize,
    out_call: *mut *mut snodo_call,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    guard(|| {
        let (engine, id) = unsafe { (handle(engine, "engine")?, json(id, id_len, "id")?) };
        let method = unsafe { text(method, method_len, "method") }?;
        let params = unsafe { json_opt(params, params_len, "params") }?;
        let who = unsafe { self::principal(principal, principal_len) }?;
        let outs = unsafe { BeginOuts::new(out_call, out_response) }?;
        outs.write(engine.inner.begin_parts(id, method, params.unwrap_or_default(), &who)?)
    })
}

/// The body of both decide functions.
unsafe fn decide(
    engine: *const snodo_engine,
    call: *const snodo_call,
    out_response: *mut *mut snodo_response,
    outcome: impl FnOnce() -> Result<Outcome, Fail>,
) -> snodo_status {
    guard(|| {
        let (engine, call) = unsafe { (handle(engine, "engine")?, handle(call, "call")?) };
        let out = unsafe { Out::new(out_response, "out_response") }?;
        let response = engine.inner.decide(&call.inner, outcome()?)?;
        out.write(into_handle(snodo_response { inner: response }))
    })
}

/// Turns the handler's outcome for `call` into the response to send. `outcome` is JSON text:
/// `{"type":"complete","result":{...}}`, `{"type":"input_required","inputRequests":{...},"state":...}` (each
/// request made a question by the core, as `snodo_question_from_json` would),
/// `{"type":"error","code":-32602,"message":"...","data":...}`, `{"type":"tool_error","message":"..."}` or
/// `{"type":"raw","result":{...}}`.
///
/// A call is decided at most once (again: ALREADY_DECIDED); its readers keep working, and it is not freed. A
/// handler bug (`input_required` on `tools/list`, an invalid question) is a `-32603` response whose
/// `snodo_response_diagnostic` says why. Statuses: OK, ARGUMENT (bad outcome shape), ALREADY_DECIDED.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_decide(
    engine: *const snodo_engine,
    call: *const snodo_call,
    outcome: *const u8,
    outcome_len: usize,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    unsafe {
        decide(engine, call, out_response, || {
            Ok(Outcome::from_value(json(outcome, outcome_len, "outcome")?)?)
        })
    }
}

/// `snodo_engine_decide` of an `input_required` outcome built from questions: `requests_len` (key, question)
/// pairs (NULL when 0), and `state`, the application state carried to the retry as JSON (NULL = none; the
/// client can read it: no secrets). Statuses: OK, ALREADY_DECIDED.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_decide_input_required(
    engine: *const snodo_engine,
    call: *const snodo_call,
    requests: *const snodo_input_request,
    requests_len: usize,
    state: *const u8,
    state_len: usize,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    unsafe { decide(engine, call, out_response, || input_required(requests, requests_len, state, state_len)) }
}

/// The engine's clock, in Unix seconds (a test on the fixed clock passes it × 1000 as
/// `snodo_once_memory_execute`'s `now_ms`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_now(engine: *const snodo_engine, out: *mut u64) -> snodo_status {
    unsafe { crate::ffi::read_scalar(engine, "engine", out, |e| e.inner.now()) }
}
