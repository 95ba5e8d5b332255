//! The native half of a `Call` made by `engine.begin` (issue 16, eighth
//! pass): the core's call in a JS `External`, which a plain JS object keeps
//! in a private field (`src/response.js`, `install`).
//!
//! Why not the napi-rs class (`crate::call::Call`): creating a class
//! instance from Rust goes through the JS constructor and `napi_wrap`
//! (about 4.5k instructions a call), and every method or getter that takes
//! the instance records a napi-rs borrow first (a lock and a map entry,
//! about 230 ns). An `External` is created with one N-API call, and reading
//! one back is a type check. The class stays: it gives the typings, it is
//! what `beginParts` and the legacy entries return, and its methods are the
//! reference this path is tested against (`test/call_fast.test.mjs`).
//!
//! These functions are taken off the module's exports at load and handed
//! to `install` only (see `crate::response::NATIVES`); `begin_ext`,
//! `decide_ext` and `call_response_text`, called every round, are reached
//! through the plain N-API callbacks of `crate::raw_entry`.

use std::cell::{Ref, RefCell};
use std::sync::Arc;

use napi::bindgen_prelude::*;

use crate::engine::Handle;
use crate::error::{Result, argument, core, napi_failure};
use crate::response::response_object;
use crate::{call, engine, json, legacy};

/// The core's call, owned by the JS `External`, and what rebuilds it.
///
/// Issue 16, ninth pass: the call is freed at `decide` (its tree of a
/// dozen or more allocations, 2 to 5 KB) rather than by the External's
/// finalizer, which V8 runs only when a minor GC finds the JS object dead,
/// hundreds of rounds later: by then those bytes are cold, and freeing and
/// reusing them in batches cost about a tenth of a round. A getter or
/// method read after `decide` (rare) rebuilds the call with
/// [`snodo::Engine::begin_decided_at`] from what `begin` kept here: the
/// same engine (immutable behind its `Arc`), request bytes, principal and
/// clock reading, so the same call, already decided (a second `decide`
/// fails as before). `test/call_decided.test.mjs` holds every getter to it.
pub struct CallBox {
    /// The call; `None` once `decide` freed it, until a read rebuilds it.
    call: RefCell<Option<Box<snodo::Call>>>,
    engine: Arc<snodo::Engine>,
    request: Vec<u8>,
    principal: snodo::Principal,
    /// The engine's clock reading `begin` ran at.
    now: u64,
}

/// The call's own `Debug` (the rest is what made it).
impl std::fmt::Debug for CallBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallBox").field("call", &self.call).finish_non_exhaustive()
    }
}

impl CallBox {
    /// The call, rebuilt first if `decide` freed it.
    pub(crate) fn get(&self) -> Result<Ref<'_, snodo::Call>> {
        if self.call.try_borrow().map_err(|_| busy())?.is_none() {
            let rebuilt = match self.engine.begin_decided_at(&self.request, &self.principal, self.now) {
                Ok(snodo::Begin::Call(call)) => call,
                // `begin` gave a call for these very arguments, and gives
                // the same result every time; kept an error, never a panic.
                _ => return Err(argument("internal: the decided call could not be rebuilt")),
            };
            *self.call.try_borrow_mut().map_err(|_| busy())? = Some(rebuilt);
        }
        Ref::filter_map(self.call.try_borrow().map_err(|_| busy())?, |c| c.as_deref())
            .map_err(|_| argument("internal: the decided call could not be rebuilt"))
    }

    /// Frees the call once `decide` succeeded (so it is marked decided). A
    /// read still under way (a JS `toJSON` an argument reader called, which
    /// decided this call) holds it: then it stays, as before this pass.
    fn free_decided(&self) {
        let freed = match self.call.try_borrow_mut() {
            Ok(mut c) => c.take(),
            Err(_) => None,
        };
        drop(freed);
    }
}

/// A call borrowed mutably while read: only a rebuild or a free borrows it
/// so, and neither runs JS, so this cannot happen; an error, never a panic.
fn busy() -> Error<crate::error::Code> {
    argument("internal: the call is in use")
}

/// The getters read through [`call_field`] as they are, by index.
pub(crate) const PLAIN_FIELDS: [&str; 16] = [
    "method",
    "name",
    "uri",
    "principal",
    "protocolVersion",
    "mrtrAllowed",
    "isLegacy",
    "round",
    "isRetry",
    "flowStart",
    "flowId",
    "tokenId",
    "tokenExpiresAt",
    "answersDigest",
    "askedKeys",
    // A method, not a getter (the JS side knows): the log description.
    "toJSON",
];

/// The getters that [`call_field`] gives as JSON text (index
/// `PLAIN_FIELDS.len() + i`), which the JS getter parses: a value built
/// from Rust would be `JSON.parse` called from native code, a JS entry
/// frame each (about half a microsecond).
pub(crate) const JSON_FIELDS: [&str; 8] =
    ["id", "params", "meta", "arguments", "clientCapabilities", "clientInfo", "state", "inputResponses"];

/// A Rust value as a JS value, converted as napi-rs converts the class
/// getters' return values.
fn js<T: ToNapiValue>(env: &Env, v: T) -> Result<Unknown<'_>> {
    // SAFETY: `env` is the live environment of the current callback; the
    // value is created in it and returned to it at once.
    unsafe {
        let raw = T::to_napi_value(env.raw(), v).map_err(napi_failure)?;
        Ok(Unknown::from_raw_unchecked(env.raw(), raw))
    }
}

/// A JS string of `text` (Latin-1 when ASCII: `json::js_string`).
fn text<'e>(env: &'e Env, text: &str) -> Result<Unknown<'e>> {
    let raw = json::js_string(env, text)?;
    // SAFETY: as in `js`.
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), raw) })
}

/// A getter of the call: `field` indexes [`PLAIN_FIELDS`], then
/// [`JSON_FIELDS`] (given as JSON text). Each computes what the class
/// getter of the same name does (`crate::call`).
#[napi(js_name = "callField", skip_typescript, catch_unwind)]
pub fn call_field<'e>(env: &'e Env, call: &External<CallBox>, field: u32) -> Result<Unknown<'e>> {
    let c = call.get()?;
    let c: &snodo::Call = &c;
    let opt = |v: Option<&str>| -> Result<Unknown<'e>> {
        match v {
            Some(s) => text(env, s),
            None => js(env, Null),
        }
    };
    match field {
        0 => text(env, c.method()),
        1 => opt(c.name()),
        2 => opt(c.uri()),
        3 => js(env, json::principal_name(c.principal())),
        4 => text(env, c.protocol_version()),
        5 => js(env, c.mrtr_allowed()),
        6 => js(env, c.is_legacy()),
        7 => js(env, c.round()),
        8 => js(env, c.is_retry()),
        9 => js(env, i64::try_from(c.flow_start()).unwrap_or(i64::MAX)),
        10 => opt(c.flow_id()),
        11 => opt(c.token_id()),
        12 => js(env, c.token_expires_at().map(|t| i64::try_from(t).unwrap_or(i64::MAX))),
        13 => text(env, &c.answers_digest()),
        14 => js(env, c.asked_keys().into_iter().map(str::to_owned).collect::<Vec<String>>()),
        15 => text(env, &call::describe(c)),
        16 => text(env, &snodo::to_wire(c.id())),
        17 => text(env, &call::params_wire(c)),
        18 => text(env, &call::meta_wire(c)),
        19 => text(env, &call::opt_wire(c.arguments())),
        20 => text(env, &snodo::to_wire(c.client_capabilities())),
        21 => text(env, &call::opt_wire(c.client_info())),
        22 => text(env, &call::opt_wire(c.state())),
        23 => text(env, &call::input_responses_wire(c)),
        _ => Err(argument("internal: no such call field")),
    }
}

/// `call.response(key, text)` for a question given as JSON text: what
/// `Call#responseText` gives (`crate::call::response_text_of`).
pub(crate) fn call_response_text<'e>(
    env: &'e Env,
    call: &External<CallBox>,
    key: String,
    request: Unknown,
) -> Result<Unknown<'e>> {
    call::response_text_of(&*call.get()?, env, &key, request)
}

/// `call.response(key, request)` read and answered natively, as the class
/// method (every argument error worded there).
#[napi(js_name = "callResponse", skip_typescript, catch_unwind)]
pub fn call_response<'e>(
    env: &'e Env,
    call: &External<CallBox>,
    key: String,
    request: Unknown,
) -> Result<Unknown<'e>> {
    call::response_of(&*call.get()?, env, &key, request)
}

/// `call.rawResponse(key)` as JSON text (`null` when absent), which the JS
/// method parses.
#[napi(js_name = "callRawResponse", skip_typescript, catch_unwind)]
pub fn call_raw_response<'e>(env: &'e Env, call: &External<CallBox>, key: String) -> Result<Unknown<'e>> {
    text(env, &call::opt_wire(call.get()?.raw_response(&key)))
}

/// `begin` with the engine's handle, giving the call as an `External` for
/// the JS `Call` of `src/response.js` (issue 16, eighth pass:
/// `crate::call_handle`), or the Response.
pub(crate) fn begin_ext<'e>(
    env: &'e Env,
    engine: &External<Handle>,
    request: Unknown,
    principal: Unknown,
) -> Result<Either<External<CallBox>, Unknown<'e>>> {
    let principal = json::principal(principal)?;
    let request = json::text_of(env, request, "request")?;
    // `begin` reads the clock once; reading it here keeps that reading
    // for a rebuild (`CallBox`).
    let now = engine.0.now();
    match engine.0.begin_at(&request, &principal, now).map_err(core)? {
        snodo::Begin::Call(call) => Ok(Either::A(External::new(CallBox {
            call: RefCell::new(Some(call)),
            engine: Arc::clone(&engine.0),
            request,
            principal,
            now,
        }))),
        snodo::Begin::Respond(r) => Ok(Either::B(response_object(env, &r)?)),
    }
}

/// `engine.decide` (`crate::engine::decide_with`) for a call made by [`begin_ext`]; the outcome is read
/// as the `decide` method reads it (text, Buffer or object).
pub(crate) fn decide_ext<'e>(
    env: &'e Env,
    engine: &External<Handle>,
    call: &External<CallBox>,
    outcome: Unknown,
) -> Result<Unknown<'e>> {
    let decided = engine::decide_on(&engine.0, env, &*call.get()?, outcome);
    // Only a produced response marks the call decided (and gives `Ok`).
    if decided.is_ok() {
        call.free_decided();
    }
    decided
}

/// `engine.decideLegacy` with the engine's handle, for a call `begin` made
/// (an `External`: `crate::call_handle`); `src/response.js` routes them here.
#[napi(js_name = "decideLegacyExt", skip_typescript, catch_unwind)]
pub fn decide_legacy_ext<'e>(
    env: &'e Env,
    engine: &External<Handle>,
    call: &External<CallBox>,
    outcome: Unknown,
) -> Result<Object<'e>> {
    let decided = legacy::decide_legacy_on(&engine.0, env, &*call.get()?, outcome);
    // As in `decide_ext`.
    if decided.is_ok() {
        call.free_decided();
    }
    decided
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    /// Every field index `call_field` matches has a name, and no name is
    /// given twice (the JS side defines one getter per name).
    #[test]
    fn the_field_lists_cover_the_indices() {
        let src = include_str!("call_handle.rs");
        let plain = super::PLAIN_FIELDS.len();
        let all = plain + super::JSON_FIELDS.len();
        for i in 0..all {
            assert!(src.contains(&format!("        {i} => ")), "no arm for field {i}");
        }
        assert!(!src.contains(&format!("        {all} => ")));
        let mut names: Vec<&str> = super::PLAIN_FIELDS.to_vec();
        names.extend(super::JSON_FIELDS);
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
