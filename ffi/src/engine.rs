//! `snodo_config` (the builder) and `snodo_engine` (new, free, begin, decide).

use snodo::{Begin, Config, Engine, Key, Outcome, Principal};

use crate::decide::snodo_response;
use crate::envelope::snodo_call;
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, bytes, guard, guard_void, handle, into_handle, json, text};

/// An engine configuration under construction. Create with
/// `snodo_config_new`, adjust with the setters, build engines with
/// `snodo_engine_new` (the config is not consumed), free with
/// `snodo_config_free`. Not thread-safe: use one config from one thread at a time.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_config {
    inner: Config,
    versions_set: bool,
}

/// The MRTR engine: immutable once built, and thread-safe. Share one engine
/// across threads freely; free it with `snodo_engine_free` once no thread
/// uses it any more.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_engine {
    pub(crate) inner: Engine,
}

/// Creates a configuration with no keys and every default (ttl 300 s, 16
/// rounds, flow age 3600 s, 16 KiB tokens, 4 MiB requests, 64 input
/// responses, versions `["2026-07-28"]`, skew 60 s, system clock).
///
/// On OK `*out` owns a new config: free it with `snodo_config_free`.
/// Statuses: OK, NULL_ARGUMENT (`out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `out` must be NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_new(out: *mut *mut snodo_config) -> snodo_status {
    guard(|| {
        let out = Out::new(out, "out")?;
        let config = snodo_config { inner: Config::new(Vec::new()), versions_set: false };
        // SAFETY: caller contract.
        unsafe { out.write(into_handle(config)) };
        Ok(())
    })
}

/// Frees a configuration. NULL is a no-op. Engines built from it stay valid.
///
/// # Safety
///
/// `config` must be NULL or a config from `snodo_config_new`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_free(config: *mut snodo_config) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(config) });
}

/// Mutably borrows a config handle.
///
/// # Safety
///
/// `ptr` must be NULL or a live config not used by another thread.
unsafe fn config_mut<'a>(ptr: *mut snodo_config) -> Result<&'a mut snodo_config, Fail> {
    // SAFETY: per the contract, non-NULL is a live, exclusively used config.
    unsafe { ptr.as_mut() }.ok_or_else(|| Fail::null("config"))
}

/// Adds a key to the ring: `id` (1 to 32 bytes of `A-Z a-z 0-9 _ -`) and
/// `secret` (32 to 1024 random bytes). The first key added signs; all
/// verify. The bytes are copied (and zeroized when the engine is freed).
///
/// Statuses: OK, CONFIG (bad id or secret length), NULL_ARGUMENT,
/// INVALID_UTF8 (`id`), PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` a live config; `id` valid for `id_len` bytes; `secret` valid
/// for `secret_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_add_key(
    config: *mut snodo_config,
    id: *const u8,
    id_len: usize,
    secret: *const u8,
    secret_len: usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let config = unsafe { config_mut(config) }?;
        // SAFETY: caller contract.
        let id = unsafe { text(id, id_len, "id") }?;
        // SAFETY: caller contract.
        let secret = unsafe { bytes(secret, secret_len, "secret") }?;
        if config.inner.keys.len() >= snodo::MAX_KEYS {
            return Err(Fail::new(snodo_status::Config, format!("keys: at most {} keys", snodo::MAX_KEYS)));
        }
        config.inner.keys.push(Key::new(id, secret.to_vec())?);
        Ok(())
    })
}

/// Shared body of the numeric setters.
///
/// # Safety
///
/// `config` must be NULL or a live config.
unsafe fn set(config: *mut snodo_config, f: impl FnOnce(&mut Config)) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        f(&mut unsafe { config_mut(config) }?.inner);
        Ok(())
    })
}

/// Sets the token lifetime in seconds (1 to 900, default 300).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_ttl_secs(config: *mut snodo_config, value: u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set(config, |c| c.ttl_secs = value) }
}

/// Sets the most rounds per flow (1 to 1000, default 16).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_rounds(config: *mut snodo_config, value: u32) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set(config, |c| c.max_rounds = value) }
}

/// Sets the oldest a flow may get in seconds (at least the ttl, at most
/// 604800; default 3600).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_flow_age_secs(
    config: *mut snodo_config,
    value: u64,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set(config, |c| c.max_flow_age_secs = value) }
}

/// Sets the largest token issued or accepted (256 to 1048576 bytes,
/// default 16384).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_token_bytes(
    config: *mut snodo_config,
    value: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set(config, |c| c.max_token_bytes = value) }
}

/// Sets the largest request `snodo_engine_begin` reads (1024 to 67108864
/// bytes, default 4194304).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_request_bytes(
    config: *mut snodo_config,
    value: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set(config, |c| c.max_request_bytes = value) }
}

/// Sets the most `inputResponses` entries accepted (1 to 4096, default 64).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_input_responses(
    config: *mut snodo_config,
    value: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set(config, |c| c.max_input_responses = value) }
}

/// Sets the tolerated clock skew for tokens issued in the future (0 to
/// 300 s, default 60).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_clock_skew_secs(
    config: *mut snodo_config,
    value: u64,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set(config, |c| c.clock_skew_secs = value) }
}

/// Adds a supported protocol version (`YYYY-MM-DD`). The first call replaces
/// the default list `["2026-07-28"]`; later calls append. MRTR is on for
/// versions from 2026-07-28 on and off for earlier ones.
///
/// Statuses: OK, NULL_ARGUMENT, INVALID_UTF8, PANIC (the format is checked
/// by `snodo_engine_new`: CONFIG). Not thread-safe for one config.
///
/// # Safety
///
/// `config` a live config; `version` valid for `version_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_add_supported_version(
    config: *mut snodo_config,
    version: *const u8,
    version_len: usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let config = unsafe { config_mut(config) }?;
        // SAFETY: caller contract.
        let version = unsafe { text(version, version_len, "version") }?;
        if !config.versions_set {
            config.inner.supported_versions.clear();
            config.versions_set = true;
        }
        config.inner.supported_versions.push(version.to_owned());
        Ok(())
    })
}

/// Sets `io.modelcontextprotocol/serverInfo`, a JSON object stamped on every
/// result's `_meta`. NULL removes it.
///
/// Statuses: OK, NULL_ARGUMENT (`config` NULL), INVALID_UTF8, JSON, PANIC
/// (not an object: CONFIG from `snodo_engine_new`). Not thread-safe for one config.
///
/// # Safety
///
/// `config` a live config; `info` NULL or valid for `info_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_server_info(
    config: *mut snodo_config,
    info: *const u8,
    info_len: usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let config = unsafe { config_mut(config) }?;
        // SAFETY: caller contract.
        config.inner.server_info = unsafe { crate::ffi::json_opt(info, info_len, "info") }?;
        Ok(())
    })
}

/// Fixes the engine clock at `now` Unix seconds, for tests and vectors.
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_fixed_time(config: *mut snodo_config, now: u64) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let config = unsafe { config_mut(config) }?;
        config.inner = config.inner.clone().fixed_time(now);
        Ok(())
    })
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
        let outcome = Outcome::from_value(unsafe { json(outcome, outcome_len, "outcome") }?)?;
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
