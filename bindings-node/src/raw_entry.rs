//! The three native entries of every request round (`beginExt`,
//! `decideExt`, `callResponseText` of `crate::call_handle`) as plain N-API
//! callbacks (issue 16, eighth pass).
//!
//! Why not `#[napi]` functions: napi-derive wraps each call in a borrow
//! scope (opened, finished and closed on every call, plus a barrier) that
//! guards `&mut` receivers against re-entrant use. These entries take no
//! receiver and no class reference, only `External`s read as shared
//! references, so the scope guards nothing here; it was about 1.8k to
//! 2.7k instructions per call, two or three calls a round (callgrind).
//!
//! What the wrapper did that matters is kept: arguments are read with
//! `napi_get_cb_info` (missing ones are `undefined`, as napi-derive gives);
//! each `External` is checked by napi-rs's own `FromNapiRef` (the payload
//! registry: a foreign or freed external is an error, never a cast);
//! errors are thrown with napi-rs's `JsError`, so `err.code` and the
//! message are what the `#[napi]` functions gave; a panic is caught and
//! thrown as an error instead of unwinding into Node.

use std::panic::{AssertUnwindSafe, catch_unwind};

use napi::bindgen_prelude::*;
use napi::sys;

use crate::call_handle::{self, CallBox};
use crate::engine::Handle;
use crate::error::{Result, argument, napi_failure};

/// Most arguments an entry reads.
const ARGS: usize = 4;

/// An entry: the environment and its arguments (`undefined` past the
/// ones given) to the value to return.
type Entry = for<'e> fn(&'e Env, &[sys::napi_value; ARGS]) -> Result<Unknown<'e>>;

/// Runs `entry` for one N-API callback: the arguments, the panic boundary,
/// and the thrown error on failure.
///
/// # Safety
/// `env` and `info` are the live arguments N-API passed to the callback.
unsafe fn run(env: sys::napi_env, info: sys::napi_callback_info, entry: Entry) -> sys::napi_value {
    let mut argc = ARGS;
    let mut argv = [std::ptr::null_mut(); ARGS];
    // SAFETY: `argv` has room for `argc` values; N-API fills the ones past
    // the given arguments with `undefined`.
    let status = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    let wrapped = Env::from_raw(env);
    let result = if status == sys::Status::napi_ok {
        catch_unwind(AssertUnwindSafe(|| entry(&wrapped, &argv).map(|v| v.raw())))
            .unwrap_or_else(|panic| Err(argument(napi::bindgen_prelude::panic_to_error(panic).reason)))
    } else {
        Err(argument("internal: arguments not readable"))
    };
    match result {
        Ok(value) => value,
        Err(e) => {
            // SAFETY: `env` is live, on its thread; a null return with a
            // pending exception is how a callback throws.
            unsafe { JsError::from(e).throw_into(env) };
            std::ptr::null_mut()
        }
    }
}

/// The `External<T>` passed as `value`, checked as napi-rs checks a
/// `&External<T>` argument.
fn external<T: 'static>(env: &Env, value: sys::napi_value) -> Result<&External<T>> {
    // SAFETY: `value` is an argument of the current callback in `env`.
    unsafe { <External<T> as FromNapiRef>::from_napi_ref(env.raw(), value) }.map_err(napi_failure)
}

/// An argument as an `Unknown`.
fn unknown(env: &Env, value: sys::napi_value) -> Unknown<'_> {
    // SAFETY: `value` is an argument of the current callback in `env`.
    unsafe { Unknown::from_raw_unchecked(env.raw(), value) }
}

/// A string argument (`install` passes only strings here).
fn string(env: &Env, value: sys::napi_value) -> Result<String> {
    // SAFETY: `value` is an argument of the current callback in `env`.
    unsafe { <String as FromNapiValue>::from_napi_value(env.raw(), value) }.map_err(napi_failure)
}

fn begin_entry<'e>(env: &'e Env, a: &[sys::napi_value; ARGS]) -> Result<Unknown<'e>> {
    let engine = external::<Handle>(env, a[0])?;
    match call_handle::begin_ext(env, engine, unknown(env, a[1]), unknown(env, a[2]))? {
        Either::A(call) => call.into_unknown(env).map_err(napi_failure),
        Either::B(response) => Ok(response),
    }
}

fn decide_entry<'e>(env: &'e Env, a: &[sys::napi_value; ARGS]) -> Result<Unknown<'e>> {
    let engine = external::<Handle>(env, a[0])?;
    let call = external::<CallBox>(env, a[1])?;
    call_handle::decide_ext(env, engine, call, unknown(env, a[2]))
}

fn response_text_entry<'e>(env: &'e Env, a: &[sys::napi_value; ARGS]) -> Result<Unknown<'e>> {
    let call = external::<CallBox>(env, a[0])?;
    let key = string(env, a[1])?;
    call_handle::call_response_text(env, call, key, unknown(env, a[2]))
}

unsafe extern "C" fn begin_cb(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: N-API's own arguments to this callback.
    unsafe { run(env, info, begin_entry) }
}

unsafe extern "C" fn decide_cb(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: as above.
    unsafe { run(env, info, decide_entry) }
}

unsafe extern "C" fn response_text_cb(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: as above.
    unsafe { run(env, info, response_text_entry) }
}

/// The entries, by the names `install` of `src/response.js` reads.
const ENTRIES: [(&str, unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value); 3] =
    [("beginExt", begin_cb), ("decideExt", decide_cb), ("callResponseText", response_text_cb)];

/// Puts the entries on `natives` (the object `install` gets).
pub(crate) fn add_to(env: &Env, natives: &mut Object) -> napi::Result<()> {
    for (name, cb) in ENTRIES {
        let mut f = std::ptr::null_mut();
        // SAFETY: `env` is the live environment of the module hook; the
        // name is valid UTF-8 of the given length; `cb` has N-API's
        // callback signature and needs no data.
        let status = unsafe {
            sys::napi_create_function(
                env.raw(),
                name.as_ptr().cast(),
                name.len() as isize,
                Some(cb),
                std::ptr::null_mut(),
                &mut f,
            )
        };
        if status != sys::Status::napi_ok || f.is_null() {
            return Err(napi::Error::from_reason(format!("internal: {name} not created")));
        }
        // SAFETY: `f` was just created in `env`.
        natives.set_named_property(name, unsafe { Unknown::from_raw_unchecked(env.raw(), f) })?;
    }
    Ok(())
}
