//! `snodo_engine`: new, free, begin and decide (the config is `config.rs`).

use snodo::{Begin, Engine, Outcome, Principal};

use crate::call::snodo_call;
use crate::config::snodo_config;
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, bytes, guard, guard_void, handle, into_handle, json, text};
use crate::response::snodo_response;

/// The MRTR engine: immutable once built, and thread-safe. Share one engine
/// across threads freely; free it with `snodo_engine_free` once no thread
/// uses it any more.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_engine {
    pub(crate) inner: Engine,
}

/// Validates `config` and builds an engine. The config is not consumed.
///
/// On OK `*out` owns a new engine: free it with `snodo_engine_free`.
/// Statuses: OK, CONFIG (the last error names the field), NULL_ARGUMENT,
/// PANIC. Thread-safe as long as no thread modifies `config` meanwhile.
///
/// # Safety
///
/// `config` NULL or a live config; `out` NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_new(
    config: *const snodo_config,
    out: *mut *mut snodo_engine,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let config = unsafe { handle(config, "config") }?;
        let out = Out::new(out, "out")?;
        let engine = Engine::new(config.inner.clone())?;
        // SAFETY: caller contract.
        unsafe { out.write(into_handle(snodo_engine { inner: engine })) };
        Ok(())
    })
}

/// Builds a development engine with one random key that lives as long as the
/// process. **Single process only**: its tokens cannot be opened by another
/// process or after a restart. Real deployments use `snodo_engine_new`.
///
/// On OK `*out` owns a new engine (free with `snodo_engine_free`).
/// Statuses: OK, CONFIG (no OS randomness), NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `out` must be NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_development(out: *mut *mut snodo_engine) -> snodo_status {
    guard(|| {
        let out = Out::new(out, "out")?;
        let engine = Engine::development()?;
        // SAFETY: caller contract.
        unsafe { out.write(into_handle(snodo_engine { inner: engine })) };
        Ok(())
    })
}

/// Frees an engine. NULL is a no-op. Calls and responses it produced stay
/// valid. No other thread may be using the engine.
///
/// # Safety
///
/// `engine` must be NULL or an engine from snodo, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_free(engine: *mut snodo_engine) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(engine) });
}

/// Reads the principal argument: NULL is the explicit anonymous principal.
///
/// # Safety
///
/// `ptr` NULL or valid for `len` bytes.
pub(crate) unsafe fn principal(ptr: *const u8, len: usize) -> Result<Principal, Fail> {
    let name = if ptr.is_null() {
        None
    } else {
        // SAFETY: caller contract.
        Some(unsafe { text(ptr, len, "principal") }?)
    };
    Ok(Principal::from_option(name)?)
}

/// Reads a JSON-RPC request message (the bytes as received) that may be an
/// MRTR retry, for the verified `principal` (NULL = explicit anonymous; an
/// empty name is ARGUMENT).
///
/// On OK exactly one of `*out_call` (run the handler, then
/// `snodo_engine_decide`) and `*out_response` (a ready error response: send
/// it as is) is set to a new handle owned by the caller, and the other to
/// NULL. Protocol errors (parse error, bad `_meta`, bad token, ...) are
/// responses, not statuses.
///
/// Statuses: OK, NOT_A_REQUEST (a notification or a response: send
/// nothing), ARGUMENT (empty principal, length too large), INVALID_UTF8
/// (principal), NULL_ARGUMENT, PANIC. Thread-safe (the engine is shared).
///
/// # Safety
///
/// `engine` a live engine; `request` valid for `request_len` bytes;
/// `principal` NULL or valid for `principal_len` bytes; both outs valid
/// for one pointer write.
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
        // SAFETY: caller contract.
        let engine = unsafe { handle(engine, "engine") }?;
        // SAFETY: caller contract.
        let request = unsafe { bytes(request, request_len, "request") }?;
        // SAFETY: caller contract.
        let principal = unsafe { self::principal(principal, principal_len) }?;
        let out_call = Out::new(out_call, "out_call")?;
        let out_response = Out::new(out_response, "out_response")?;
        let (call, response) = match engine.inner.begin(request, &principal)? {
            Begin::Call(call) => (into_handle(snodo_call::new(*call)), std::ptr::null_mut()),
            Begin::Respond(r) => (std::ptr::null_mut(), into_handle(snodo_response { inner: r })),
        };
        // SAFETY: caller contract.
        unsafe {
            out_call.write(call);
            out_response.write(response);
        }
        Ok(())
    })
}

/// `snodo_engine_begin` for a request an SDK has already parsed into its
/// parts: `id` (JSON text of the JSON-RPC id: `7`, `"abc"`), `method`
/// (UTF-8) and `params` (JSON text of the params object as received, with
/// `_meta`, `inputResponses` and `requestState` left in; NULL = no params).
/// Same checks, binding and token as `snodo_engine_begin` on the bytes of
/// that request; outs as there.
///
/// Statuses: OK, NOT_A_REQUEST, ARGUMENT, JSON (`id` or `params` not JSON
/// text), INVALID_UTF8, NULL_ARGUMENT, PANIC. Thread-safe (the engine is
/// shared).
///
/// # Safety
///
/// `engine` a live engine; `id`, `method` valid for their lengths; `params`
/// NULL or valid for `params_len` bytes; `principal` NULL or valid for
/// `principal_len` bytes; both outs valid for one pointer write.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
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
        // SAFETY: caller contract.
        let engine = unsafe { handle(engine, "engine") }?;
        // SAFETY: caller contract.
        let id = unsafe { json(id, id_len, "id") }?;
        // SAFETY: caller contract.
        let method = unsafe { text(method, method_len, "method") }?;
        // SAFETY: caller contract.
        let params = unsafe { crate::ffi::json_opt(params, params_len, "params") }?;
        // SAFETY: caller contract.
        let principal = unsafe { self::principal(principal, principal_len) }?;
        let out_call = Out::new(out_call, "out_call")?;
        let out_response = Out::new(out_response, "out_response")?;
        let params = params.unwrap_or(serde_json::Value::Null);
        let (call, response) = match engine.inner.begin_parts(id, method, params, &principal)? {
            Begin::Call(call) => (into_handle(snodo_call::new(*call)), std::ptr::null_mut()),
            Begin::Respond(r) => (std::ptr::null_mut(), into_handle(snodo_response { inner: r })),
        };
        // SAFETY: caller contract.
        unsafe {
            out_call.write(call);
            out_response.write(response);
        }
        Ok(())
    })
}

/// Turns the handler's outcome for `call` into the response to send.
/// `outcome` is JSON text in the spelling of the core's `Outcome::from_value`:
/// `{"type":"complete","result":{...}}`,
/// `{"type":"input_required","inputRequests":{...},"state":...}`,
/// `{"type":"error","code":-32602,"message":"...","data":...}`,
/// `{"type":"tool_error","message":"..."}` or `{"type":"raw","result":{...}}`.
///
/// A call is decided at most once: after a successful decide, the call's
/// readers still work but deciding it again is ALREADY_DECIDED (one request,
/// one response, one fresh token). The call is not freed: free it with
/// `snodo_call_free`. A handler bug (e.g. `input_required` on
/// `tools/list`) is not a status: it is a `-32603` response whose
/// `snodo_response_diagnostic` says why.
///
/// On OK `*out_response` owns a new response (free with `snodo_response_free`).
/// Statuses: OK, ARGUMENT (bad outcome shape), JSON, INVALID_UTF8,
/// ALREADY_DECIDED, NULL_ARGUMENT, PANIC. Thread-safe for the engine; the
/// call must not be used by two threads at once.
///
/// # Safety
///
/// `engine` and `call` live handles; `outcome` valid for `outcome_len`
/// bytes; `out_response` valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_engine_decide(
    engine: *const snodo_engine,
    call: *const snodo_call,
    outcome: *const u8,
    outcome_len: usize,
    out_response: *mut *mut snodo_response,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let engine = unsafe { handle(engine, "engine") }?;
        // SAFETY: caller contract.
        let call = unsafe { handle(call, "call") }?;
        let out = Out::new(out_response, "out_response")?;
        // SAFETY: caller contract.
        let outcome = unsafe { crate::ffi::text(outcome, outcome_len, "outcome") }?;
        // Issue 16: the state as canonical text (`memo::outcome`); the
        // reference reading for anything else, which words every error.
        let outcome = match crate::memo::outcome(outcome.as_bytes()) {
            Some(o) => o,
            None => Outcome::from_value(snodo::parse_json(outcome.as_bytes(), "outcome")?)?,
        };
        // The core refuses a second decide (ALREADY_DECIDED).
        let response = engine.inner.decide(&call.inner, outcome)?;
        // SAFETY: caller contract.
        unsafe { out.write(into_handle(snodo_response { inner: response })) };
        Ok(())
    })
}

// The engine is shared across C threads: it must stay `Send + Sync`.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<snodo_engine>();
};
