//! `snodo_once_run`: one run of the core's once machine (`OnceRun`) for one
//! final round, or one lookup, driven step by step by the caller.
//!
//! The driver every language writes (`examples/c/once_redis.c` in C):
//! start; on COMMAND run the command on the store and feed the reply; on
//! SLEEP pause, then resume; on EFFECT run the effect, then effect_done
//! with its result text (or effect_failed if it failed before doing
//! anything, and drive the release); on DONE answer the text; on RELEASED
//! report the effect's own error; on OPEN (lookup) go on.

use std::time::Duration;

use snodo::{OnceOptions, OnceRun, OnceSettings};

use super::step::snodo_once_step;
use crate::call::snodo_call;
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, guard, guard_void, handle, into_handle, read_scalar, text};

/// The lease of `snodo_once_run_new` when `lease_ms` is 0: a claim whose
/// owner has not completed, released or extended it after this long may be
/// taken over.
pub const SNODO_ONCE_DEFAULT_LEASE_MS: u64 = 30_000;
/// The wait of `snodo_once_run_new` when `wait_ms` is 0: the longest total
/// pause for another caller's live claim (the default lease plus a margin,
/// so a crashed owner's lease lapses within it).
pub const SNODO_ONCE_DEFAULT_WAIT_MS: u64 = 35_000;

/// One run of the once machine: created on a call by `snodo_once_run_new`
/// (a final round) or `snodo_once_lookup_new` (a lookup), driven with
/// `snodo_once_run_start` and the functions below, each of which hands out
/// the next `snodo_once_step`. Owned by the caller: free it with
/// `snodo_once_run_free` (it does not borrow the call: free them in any
/// order). **Not thread-safe**: drive one run from one thread at a time
/// (moving it between threads is fine).
///
/// A step function that is called out of order (say, `feed` after an
/// EFFECT step) fails with ARGUMENT; any failure of the machine itself
/// (ARGUMENT, TOKEN, STORE) ends the run: free it. A NULL or non-UTF-8
/// argument is refused before the machine sees it and changes nothing.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_once_run {
    inner: OnceRun,
}

/// The store settings of a run: `prefix` NULL is
/// `SNODO_ONCE_DEFAULT_PREFIX`, `lease_ms` 0 is the default lease.
///
/// # Safety
///
/// `prefix` NULL or valid for `prefix_len` bytes.
unsafe fn settings(prefix: *const u8, prefix_len: usize, lease_ms: u64) -> Result<OnceSettings, Fail> {
    let prefix = if prefix.is_null() {
        snodo::DEFAULT_ONCE_PREFIX
    } else {
        // SAFETY: caller contract.
        unsafe { text(prefix, prefix_len, "prefix") }?
    };
    let lease_ms = if lease_ms == 0 { SNODO_ONCE_DEFAULT_LEASE_MS } else { lease_ms };
    Ok(OnceSettings::new(prefix, Duration::from_millis(lease_ms))?)
}

/// A run for the final round `call` (a retry: it opened a token), on a
/// store whose key prefix is `prefix` (NULL = `SNODO_ONCE_DEFAULT_PREFIX`;
/// every process of one fleet uses the same) with a lease of `lease_ms`
/// (0 = `SNODO_ONCE_DEFAULT_LEASE_MS`), waiting at most `wait_ms` (0 =
/// `SNODO_ONCE_DEFAULT_WAIT_MS`) for another caller's live claim before
/// STORE "still running". Its commands carry the call's flow id, answers
/// digest, principal and the flow's last possible use (the store keeps the
/// record until then), and a fresh random owner id.
///
/// On OK `*out` owns a new run: free it with `snodo_once_run_free`.
/// Statuses: OK, ARGUMENT (the call opened no token: an effect on a first
/// round has no flow to key on), CONFIG (a prefix over 128 bytes, or not
/// printable ASCII without spaces and braces), STORE (no randomness for
/// the owner id), INVALID_UTF8 (`prefix`), NULL_ARGUMENT (`call` or `out`
/// NULL), PANIC. As every reader of a call: one call from one thread at a
/// time (the run does not keep it).
///
/// # Safety
///
/// `call` NULL or a live call; `prefix` NULL or valid for `prefix_len`
/// bytes; `out` NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_new(
    call: *const snodo_call,
    prefix: *const u8,
    prefix_len: usize,
    lease_ms: u64,
    wait_ms: u64,
    out: *mut *mut snodo_once_run,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let call = unsafe { handle(call, "call") }?;
        // SAFETY: caller contract.
        let settings = unsafe { settings(prefix, prefix_len, lease_ms) }?;
        let out = Out::new(out, "out")?;
        let wait_ms = if wait_ms == 0 { SNODO_ONCE_DEFAULT_WAIT_MS } else { wait_ms };
        let options = OnceOptions { wait: Duration::from_millis(wait_ms), ..OnceOptions::default() };
        let inner = OnceRun::new(&call.inner, &settings, &options)?;
        // SAFETY: caller contract.
        unsafe { out.write(into_handle(snodo_once_run { inner })) };
        Ok(())
    })
}

/// A run that only looks: is a result remembered for `call`'s flow? Use it
/// on any retry of an effectful tool before asking anything. Its steps:
/// one COMMAND, then DONE (answer the remembered text), OPEN (nothing
/// remembered yet: go on), or TOKEN with `SNODO_ONCE_REPLAYED_MESSAGE`
/// from `snodo_once_run_feed` (the flow completed with other answers: send
/// JSON-RPC -32602 "Invalid or expired requestState" with reason
/// `replayed`). `prefix` as in `snodo_once_run_new`; a lookup takes no
/// lease and never waits.
///
/// On OK `*out` owns a new run: free it with `snodo_once_run_free`.
/// Statuses: OK, ARGUMENT (the call opened no token), CONFIG (bad prefix),
/// INVALID_UTF8, NULL_ARGUMENT (`call` or `out` NULL), PANIC. One call
/// from one thread at a time.
///
/// # Safety
///
/// As `snodo_once_run_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_lookup_new(
    call: *const snodo_call,
    prefix: *const u8,
    prefix_len: usize,
    out: *mut *mut snodo_once_run,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let call = unsafe { handle(call, "call") }?;
        // SAFETY: caller contract.
        let settings = unsafe { settings(prefix, prefix_len, 0) }?;
        let out = Out::new(out, "out")?;
        let inner = OnceRun::lookup(&call.inner, &settings)?;
        // SAFETY: caller contract.
        unsafe { out.write(into_handle(snodo_once_run { inner })) };
        Ok(())
    })
}

/// Frees a run. NULL is a no-op. Freeing a run that holds a claim (after
/// an EFFECT step, before DONE) feeds nothing: the claim stays pending
/// until its lease lapses, and no other run takes it before then.
///
/// # Safety
///
/// `run` NULL or a run from snodo, not yet freed, used by no other thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_free(run: *mut snodo_once_run) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(run) });
}

/// Shared body of the step functions: checks the run and the out-param
/// first, then runs `f`, which reads its own arguments before it advances
/// the machine (so a NULL or a non-UTF-8 text leaves the run as it was),
/// and hands out the step.
///
/// # Safety
///
/// `run` NULL or a live run no other thread uses; `out` NULL or valid for
/// one pointer write; whatever `f` reads valid as its caller promised.
unsafe fn advance(
    run: *mut snodo_once_run,
    out: *mut *mut snodo_once_step,
    f: impl FnOnce(&mut OnceRun) -> Result<snodo::OnceStep, Fail>,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract (exclusive use).
        let run = unsafe { run.as_mut() }.ok_or_else(|| Fail::null("run"))?;
        let out = Out::new(out, "out")?;
        let step = f(&mut run.inner)?;
        // SAFETY: caller contract.
        unsafe { out.write(into_handle(snodo_once_step::new(step))) };
        Ok(())
    })
}

/// The first step: the claim (or the lookup) command.
///
/// On OK `*out` owns a new step: free it with `snodo_once_step_free`.
/// Statuses: OK, ARGUMENT (already started), NULL_ARGUMENT (`run` or `out`
/// NULL), PANIC. One run from one thread at a time.
///
/// # Safety
///
/// `run` NULL or a live run no other thread uses; `out` NULL or valid for
/// one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_start(
    run: *mut snodo_once_run,
    out: *mut *mut snodo_once_step,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { advance(run, out, |r| Ok(r.start()?)) }
}

/// After a COMMAND step: the store's reply text to that command, exactly
/// as the script answered it (a Redis bulk string).
///
/// On OK `*out` owns the next step (free with `snodo_once_step_free`).
/// Statuses: OK; TOKEN with `SNODO_ONCE_REPLAYED_MESSAGE` (the flow
/// completed with other answers: send JSON-RPC -32602 "Invalid or expired
/// requestState" with reason `replayed`; the effect did not run); STORE
/// (the flow's effect is still running elsewhere after the wait, this
/// run's claim was taken over before it completed, or a reply snodo does
/// not write); ARGUMENT (not after a COMMAND step); INVALID_UTF8 and
/// NULL_ARGUMENT (`run`, `reply` or `out` NULL; the run is unchanged);
/// PANIC. A store the caller could not reach is the caller's own error:
/// report it (never run the effect) and free the run. One run from one
/// thread at a time.
///
/// # Safety
///
/// `run` NULL or a live run no other thread uses; `reply` NULL or valid
/// for `reply_len` bytes; `out` NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_feed(
    run: *mut snodo_once_run,
    reply: *const u8,
    reply_len: usize,
    out: *mut *mut snodo_once_step,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        advance(run, out, |r| {
            let reply = text(reply, reply_len, "reply")?;
            Ok(r.feed(reply)?)
        })
    }
}

/// After a SLEEP step (and its pause): claim again.
///
/// On OK `*out` owns the next step (a COMMAND). Statuses: OK, ARGUMENT (not
/// after a SLEEP step), NULL_ARGUMENT, PANIC. One run from one thread at a
/// time.
///
/// # Safety
///
/// As `snodo_once_run_start`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_resume(
    run: *mut snodo_once_run,
    out: *mut *mut snodo_once_step,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { advance(run, out, |r| Ok(r.resume()?)) }
}

/// After an EFFECT step: the effect's result text, to remember (any UTF-8,
/// typically the final `result` object as canonical JSON). An effect that
/// did something, even half, reports here how it ended (an error result
/// included): only `snodo_once_run_effect_failed` lets the effect run
/// again.
///
/// On OK `*out` owns the next step (the complete COMMAND). Statuses: OK,
/// ARGUMENT (not after an EFFECT step), INVALID_UTF8 and NULL_ARGUMENT
/// (the run is unchanged), PANIC. One run from one thread at a time.
///
/// # Safety
///
/// `run` NULL or a live run no other thread uses; `text` NULL or valid for
/// `text_len` bytes; `out` NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_effect_done(
    run: *mut snodo_once_run,
    text: *const u8,
    text_len: usize,
    out: *mut *mut snodo_once_step,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        advance(run, out, |r| {
            let result = crate::ffi::text(text, text_len, "text")?;
            Ok(r.effect_done(result.to_owned())?)
        })
    }
}

/// After an EFFECT step: the effect failed **before doing anything**; its
/// claim is released so that a retry of the same final round runs it.
///
/// On OK `*out` owns the next step (the release COMMAND; its reply leads
/// to RELEASED). Statuses: OK, ARGUMENT (not after an EFFECT step),
/// NULL_ARGUMENT, PANIC. One run from one thread at a time.
///
/// # Safety
///
/// As `snodo_once_run_start`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_effect_failed(
    run: *mut snodo_once_run,
    out: *mut *mut snodo_once_step,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { advance(run, out, |r| Ok(r.effect_failed()?)) }
}

/// The fencing number this run won (0 before it won, and for a lookup).
///
/// Statuses: OK, NULL_ARGUMENT (`run` or `out` NULL), PANIC. One run from
/// one thread at a time.
///
/// # Safety
///
/// `run` NULL or a live run; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_fence(run: *const snodo_once_run, out: *mut u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_scalar(run, "run", out, |r| r.inner.fence()) }
}

// A run moves between threads (driven from one at a time).
const _: fn() = || {
    fn movable<T: Send>() {}
    movable::<snodo_once_run>();
};
