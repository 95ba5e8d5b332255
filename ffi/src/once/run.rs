//! `snodo_once_run`, one run of the core's once machine (`OnceRun`) for one final round, or one lookup,
//! driven step by step by the caller; and `snodo_once_step`, what the run asks its caller to do next (the
//! core's `OnceStep`), with the readers of each kind.
//!
//! The driver every language writes (`examples/c/once_redis.c` in C): start; on COMMAND run the command on
//! the store and feed the reply; on SLEEP pause, then resume; on EFFECT run the effect, then effect_done with
//! its result text (or effect_failed if it failed before doing anything, and drive the release); on DONE
//! answer the text; on RELEASED report the effect's own error; on OPEN (lookup) go on.

use std::ffi::c_char;
use std::time::Duration;

use snodo::{OnceOptions, OnceRun, OnceSettings, OnceStep};

use super::store::snodo_once_command;
use crate::call::snodo_call;
use crate::error::{Fail, snodo_status};
use crate::ffi::{
    Out, free_handle, guard, handle, handle_mut, into_handle, make, read_scalar, read_scalar_or,
    read_text_or, text, text_opt,
};

/// The lease of `snodo_once_run_new` when `lease_ms` is 0: a claim whose owner has not completed, released or
/// extended it after this long may be taken over.
pub const SNODO_ONCE_DEFAULT_LEASE_MS: u64 = 30_000;
/// The wait of `snodo_once_run_new` when `wait_ms` is 0: the longest total pause for another caller's live
/// claim (the default lease plus a margin, so a crashed owner's lease lapses within it).
pub const SNODO_ONCE_DEFAULT_WAIT_MS: u64 = 35_000;

/// One run of the once machine: made on a call by `snodo_once_run_new` (a final round) or
/// `snodo_once_lookup_new` (a lookup), driven with `snodo_once_run_start` and the functions below, each of
/// which hands out the next `snodo_once_step`. It does not borrow the call (free them in any order). Not
/// shareable across threads. Free it with `snodo_once_run_free`.
///
/// A step function called out of order fails with ARGUMENT; any failure of the machine (ARGUMENT, TOKEN,
/// STORE) ends the run. A NULL or non-UTF-8 argument is refused before the machine sees it and changes
/// nothing.
#[derive(Debug)]
pub struct snodo_once_run {
    inner: OnceRun,
}

/// The body of both constructors: reads the call and the store settings (`prefix` NULL is
/// `SNODO_ONCE_DEFAULT_PREFIX`, `lease_ms` 0 the default lease) and makes the run with `make_run`.
unsafe fn new_run(
    call: *const snodo_call,
    prefix: *const u8,
    prefix_len: usize,
    lease_ms: u64,
    out: *mut *mut snodo_once_run,
    make_run: impl FnOnce(&snodo::Call, &OnceSettings) -> snodo::Result<OnceRun>,
) -> snodo_status {
    unsafe {
        make(out, || {
            let lease_ms = if lease_ms == 0 { SNODO_ONCE_DEFAULT_LEASE_MS } else { lease_ms };
            let prefix = text_opt(prefix, prefix_len, "prefix")?.unwrap_or(snodo::DEFAULT_ONCE_PREFIX);
            let settings = OnceSettings::new(prefix, Duration::from_millis(lease_ms))?;
            Ok(snodo_once_run { inner: make_run(&handle(call, "call")?.inner, &settings)? })
        })
    }
}

/// A run for the final round `call` (a retry: it opened a token), on a store whose key prefix is `prefix`
/// (NULL = `SNODO_ONCE_DEFAULT_PREFIX`; every process of one fleet uses the same) with a lease of `lease_ms`
/// (0 = `SNODO_ONCE_DEFAULT_LEASE_MS`), waiting at most `wait_ms` (0 = `SNODO_ONCE_DEFAULT_WAIT_MS`) for
/// another caller's live claim before STORE "still running". Statuses: OK, ARGUMENT (the call opened no
/// token: a first round has no flow to key on), CONFIG (a prefix over 128 bytes, or not printable ASCII
/// without spaces and braces), STORE (no randomness).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_new(
    call: *const snodo_call,
    prefix: *const u8,
    prefix_len: usize,
    lease_ms: u64,
    wait_ms: u64,
    out: *mut *mut snodo_once_run,
) -> snodo_status {
    let wait_ms = if wait_ms == 0 { SNODO_ONCE_DEFAULT_WAIT_MS } else { wait_ms };
    let options = OnceOptions { wait: Duration::from_millis(wait_ms), ..OnceOptions::default() };
    unsafe { new_run(call, prefix, prefix_len, lease_ms, out, |c, s| OnceRun::new(c, s, &options)) }
}

/// A run that only looks: is a result remembered for `call`'s flow? Use it on any retry of an effectful tool
/// before asking anything. Its steps: one COMMAND, then DONE (answer the remembered text), OPEN (nothing
/// remembered yet: go on), or TOKEN with `SNODO_ONCE_REPLAYED_MESSAGE` from `snodo_once_run_feed` (the flow
/// completed with other answers: send JSON-RPC -32602 "Invalid or expired requestState" with reason
/// `replayed`). `prefix` as in `snodo_once_run_new`; a lookup takes no lease and never waits. Statuses: OK,
/// ARGUMENT (the call opened no token), CONFIG (bad prefix).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_lookup_new(
    call: *const snodo_call,
    prefix: *const u8,
    prefix_len: usize,
    out: *mut *mut snodo_once_run,
) -> snodo_status {
    unsafe { new_run(call, prefix, prefix_len, 0, out, OnceRun::lookup) }
}

/// Frees a run. Freeing a run that holds a claim (after an EFFECT step, before DONE) feeds nothing: the claim
/// stays pending until its lease lapses, and no other run takes it before then.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_free(run: *mut snodo_once_run) {
    unsafe { free_handle(run) }
}

/// The body of the step functions: checks the run and the out-param first, then runs `f`, which reads its own
/// arguments before it advances the machine (so a NULL or a non-UTF-8 text leaves the run as it was), and
/// hands out the step.
unsafe fn advance(
    run: *mut snodo_once_run,
    out: *mut *mut snodo_once_step,
    f: impl FnOnce(&mut OnceRun) -> Result<OnceStep, Fail>,
) -> snodo_status {
    guard(|| {
        let run = unsafe { handle_mut(run, "run") }?;
        unsafe { Out::new(out, "out") }?.write(into_handle(snodo_once_step::new(f(&mut run.inner)?)))
    })
}

/// The first step: the claim (or the lookup) command. Statuses: OK, ARGUMENT (already started).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_start(
    run: *mut snodo_once_run,
    out: *mut *mut snodo_once_step,
) -> snodo_status {
    unsafe { advance(run, out, |r| Ok(r.start()?)) }
}

/// After a COMMAND step: the store's reply text to that command, exactly as the script answered it (a Redis
/// bulk string). Statuses: OK; TOKEN with `SNODO_ONCE_REPLAYED_MESSAGE` (the flow completed with other
/// answers: send JSON-RPC -32602 "Invalid or expired requestState" with reason `replayed`; the effect did not
/// run); STORE (the flow's effect is still running elsewhere after the wait, this run's claim was taken over
/// before it completed, or a reply snodo does not write); ARGUMENT (not after a COMMAND step). A store the
/// caller could not reach: report it, never run the effect.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_feed(
    run: *mut snodo_once_run,
    reply: *const u8,
    reply_len: usize,
    out: *mut *mut snodo_once_step,
) -> snodo_status {
    unsafe { advance(run, out, |r| Ok(r.feed(text(reply, reply_len, "reply")?)?)) }
}

/// After a SLEEP step (and its pause): claim again; the next step is a COMMAND. Statuses: OK, ARGUMENT (not
/// after a SLEEP step).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_resume(
    run: *mut snodo_once_run,
    out: *mut *mut snodo_once_step,
) -> snodo_status {
    unsafe { advance(run, out, |r| Ok(r.resume()?)) }
}

/// After an EFFECT step: the effect's result text, to remember (any UTF-8, typically the final `result`
/// object as canonical JSON); the next step is the complete COMMAND. An effect that did something, even half,
/// reports here how it ended (an error result included): only `snodo_once_run_effect_failed` lets the effect
/// run again. Statuses: OK, ARGUMENT (not after an EFFECT step).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_effect_done(
    run: *mut snodo_once_run,
    text: *const u8,
    text_len: usize,
    out: *mut *mut snodo_once_step,
) -> snodo_status {
    unsafe { advance(run, out, |r| Ok(r.effect_done(crate::ffi::text(text, text_len, "text")?.to_owned())?)) }
}

/// After an EFFECT step: the effect failed **before doing anything**; its claim is released so that a retry
/// of the same final round runs it. The next step is the release COMMAND (its reply leads to RELEASED).
/// Statuses: OK, ARGUMENT (not after an EFFECT step).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_effect_failed(
    run: *mut snodo_once_run,
    out: *mut *mut snodo_once_step,
) -> snodo_status {
    unsafe { advance(run, out, |r| Ok(r.effect_failed()?)) }
}

/// The fencing number this run won (0 before it won, and for a lookup).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_run_fence(run: *const snodo_once_run, out: *mut u64) -> snodo_status {
    unsafe { read_scalar(run, "run", out, |r| r.inner.fence()) }
}

/// The kind of a `snodo_once_step`: what the caller does next.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_once_step_kind {
    /// Run `snodo_once_step_command` on the store and feed its reply text to `snodo_once_run_feed`. A store
    /// error: report it (STORE, "once store unavailable"); never run the effect.
    Command = 0,
    /// Another caller's claim is live: pause `snodo_once_step_sleep_ms`, then `snodo_once_run_resume`.
    Sleep = 1,
    /// This run holds the claim: run the effect (with `snodo_once_step_fence`, and
    /// `snodo_once_step_extend_command` to extend the lease), then `snodo_once_run_effect_done` with its
    /// result text, or `snodo_once_run_effect_failed` if it failed **before doing anything**. Anything else
    /// (the process dies, the thread is cancelled) feeds nothing: the claim stays pending until its lease
    /// lapses and is never run twice within it.
    Effect = 2,
    /// The final result text (`snodo_once_step_text`): this run's effect's, or the one remembered for these
    /// answers. The run has ended.
    Done = 3,
    /// The effect failed before doing anything and its claim is released: report the effect's own error. The
    /// run has ended.
    Released = 4,
    /// (Lookup only) nothing is remembered for this flow yet: go on with the handler. The run has ended.
    Open = 5,
}

/// One step of a once run, from `snodo_once_run_start`, `_feed`, `_resume`, `_effect_done` or
/// `_effect_failed`. Immutable and shareable across threads. Free it with `snodo_once_step_free` (the run
/// does not need it any more; the commands it lends die with it).
#[derive(Debug)]
pub struct snodo_once_step {
    inner: OnceStep,
    /// The command a COMMAND step runs, or the extension an EFFECT step lends, prepared once so that its
    /// texts can be lent.
    command: Option<snodo_once_command>,
}

impl snodo_once_step {
    pub(crate) fn new(inner: OnceStep) -> snodo_once_step {
        let command = match &inner {
            OnceStep::Command(c) => Some(snodo_once_command::new(c.clone())),
            OnceStep::Effect(t) => Some(snodo_once_command::new(t.extend_command().clone())),
            OnceStep::Sleep(_) | OnceStep::Done(_) | OnceStep::Released | OnceStep::Open => None,
        };
        snodo_once_step { inner, command }
    }

    fn kind(&self) -> (snodo_once_step_kind, &'static str) {
        match self.inner {
            OnceStep::Command(_) => (snodo_once_step_kind::Command, "COMMAND"),
            OnceStep::Sleep(_) => (snodo_once_step_kind::Sleep, "SLEEP"),
            OnceStep::Effect(_) => (snodo_once_step_kind::Effect, "EFFECT"),
            OnceStep::Done(_) => (snodo_once_step_kind::Done, "DONE"),
            OnceStep::Released => (snodo_once_step_kind::Released, "RELEASED"),
            OnceStep::Open => (snodo_once_step_kind::Open, "OPEN"),
        }
    }

    /// The ARGUMENT failure of a reader that does not apply to this kind.
    fn not(&self, want: &str) -> Fail {
        Fail::new(snodo_status::Argument, format!("once step: not {want} step (it is {})", self.kind().1))
    }
}

/// Frees a step and the commands it lends (none of them is used afterwards).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_free(step: *mut snodo_once_step) {
    unsafe { free_handle(step) }
}

/// The step's kind.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_get_kind(
    step: *const snodo_once_step,
    out: *mut snodo_once_step_kind,
) -> snodo_status {
    unsafe { read_scalar_or(step, "step", out, |s| Ok(s.kind().0)) }
}

/// The command of a COMMAND step: run it on the store, feed the reply. `*out` is a command **lent by the
/// step** (valid until `snodo_once_step_free`; never free it). Statuses: OK, ARGUMENT (not a COMMAND step).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_command(
    step: *const snodo_once_step,
    out: *mut *const snodo_once_command,
) -> snodo_status {
    unsafe {
        read_scalar_or(step, "step", out, |s| match (&s.inner, &s.command) {
            (OnceStep::Command(_), Some(c)) => Ok(std::ptr::from_ref(c)),
            _ => Err(s.not("a COMMAND")),
        })
    }
}

/// How long a SLEEP step pauses, in milliseconds (the machine's backoff: 5 ms doubling to 250 ms, within the
/// run's wait). Statuses: OK, ARGUMENT (not a SLEEP step).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_sleep_ms(
    step: *const snodo_once_step,
    out: *mut u64,
) -> snodo_status {
    unsafe {
        read_scalar_or(step, "step", out, |s| match &s.inner {
            OnceStep::Sleep(d) => Ok(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            _ => Err(s.not("a SLEEP")),
        })
    }
}

/// The fencing number of an EFFECT step's claim: greater than every earlier claim's of this flow. A ledger
/// that refuses a write carrying a smaller number than it has seen for the flow shuts out a former owner
/// whose lease lapsed. Statuses: OK, ARGUMENT (not an EFFECT step).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_fence(step: *const snodo_once_step, out: *mut u64) -> snodo_status {
    unsafe {
        read_scalar_or(step, "step", out, |s| match &s.inner {
            OnceStep::Effect(t) => Ok(t.fence()),
            _ => Err(s.not("an EFFECT")),
        })
    }
}

/// The owner-checked lease extension of an EFFECT step: run it on the store from inside a long effect (as
/// often as needed, from the thread running the effect) and read its reply with `snodo_once_step_extended`.
/// `*out` is a command **lent by the step**. Statuses: OK, ARGUMENT (not an EFFECT step).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_extend_command(
    step: *const snodo_once_step,
    out: *mut *const snodo_once_command,
) -> snodo_status {
    unsafe {
        read_scalar_or(step, "step", out, |s| match (&s.inner, &s.command) {
            (OnceStep::Effect(_), Some(c)) => Ok(std::ptr::from_ref(c)),
            _ => Err(s.not("an EFFECT")),
        })
    }
}

/// Reads the store's reply to an EFFECT step's extend command: `*out` true (the lease runs a full lease from
/// now) or false (the claim is no longer this run's: it lapsed and was taken over; stop, and do not write).
/// Statuses: OK, STORE (a reply snodo does not write), ARGUMENT (not an EFFECT step).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_extended(
    step: *const snodo_once_step,
    reply: *const u8,
    reply_len: usize,
    out: *mut bool,
) -> snodo_status {
    unsafe {
        read_scalar_or(step, "step", out, |s| {
            let reply = text(reply, reply_len, "reply")?;
            let OnceStep::Effect(ticket) = &s.inner else { return Err(s.not("an EFFECT")) };
            Ok(ticket.extended(reply)?)
        })
    }
}

/// The final result text of a DONE step: this run's effect's, or the one remembered for these answers (answer
/// it, e.g. as the `result` of a `complete` outcome). Statuses: OK, ARGUMENT (not a DONE step).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_text(
    step: *const snodo_once_step,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    unsafe {
        read_text_or(step, "step", out, out_len, |s| match &s.inner {
            OnceStep::Done(text) => Ok(Some(text.clone())),
            _ => Err(s.not("a DONE")),
        })
    }
}
