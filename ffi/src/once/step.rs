//! `snodo_once_step`: what the once machine asks its caller to do next
//! (the core's `OnceStep`), with the readers of each kind.

use std::ffi::c_char;

use snodo::OnceStep;

use super::command::snodo_once_command;
use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, OutStr, guard, guard_void, handle, text};

/// The kind of a `snodo_once_step`: what the caller does next.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_once_step_kind {
    /// Run `snodo_once_step_command` on the store and feed its reply text
    /// to `snodo_once_run_feed`. A store error: report it (STORE, "once
    /// store unavailable"); never run the effect.
    Command = 0,
    /// Another caller's claim is live: pause `snodo_once_step_sleep_ms`,
    /// then `snodo_once_run_resume`.
    Sleep = 1,
    /// This run holds the claim: run the effect (with
    /// `snodo_once_step_fence`, and `snodo_once_step_extend_command` to
    /// extend the lease), then `snodo_once_run_effect_done` with its result
    /// text, or `snodo_once_run_effect_failed` if it failed **before doing
    /// anything**. Anything else (the process dies, the thread is
    /// cancelled) feeds nothing: the claim stays pending until its lease
    /// lapses and is never run twice within it.
    Effect = 2,
    /// The final result text (`snodo_once_step_text`): this run's effect's,
    /// or the one remembered for these answers. The run has ended.
    Done = 3,
    /// The effect failed before doing anything and its claim is released:
    /// report the effect's own error. The run has ended.
    Released = 4,
    /// (Lookup only) nothing is remembered for this flow yet: go on with
    /// the handler. The run has ended.
    Open = 5,
}

impl snodo_once_step_kind {
    /// The header constant without `SNODO_ONCE_STEP_KIND_`, for messages.
    fn name(self) -> &'static str {
        match self {
            snodo_once_step_kind::Command => "COMMAND",
            snodo_once_step_kind::Sleep => "SLEEP",
            snodo_once_step_kind::Effect => "EFFECT",
            snodo_once_step_kind::Done => "DONE",
            snodo_once_step_kind::Released => "RELEASED",
            snodo_once_step_kind::Open => "OPEN",
        }
    }
}

/// One step of a once run, from `snodo_once_run_start`, `_feed`,
/// `_resume`, `_effect_done` or `_effect_failed`. Owned by the caller:
/// free it with `snodo_once_step_free` (the run does not need it any
/// more; the commands it lends die with it). Immutable: its readers are
/// thread-safe.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_once_step {
    inner: OnceStep,
    /// The command a COMMAND step runs, or the extension an EFFECT step
    /// lends, prepared once so that its texts can be lent.
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

    fn kind(&self) -> snodo_once_step_kind {
        match self.inner {
            OnceStep::Command(_) => snodo_once_step_kind::Command,
            OnceStep::Sleep(_) => snodo_once_step_kind::Sleep,
            OnceStep::Effect(_) => snodo_once_step_kind::Effect,
            OnceStep::Done(_) => snodo_once_step_kind::Done,
            OnceStep::Released => snodo_once_step_kind::Released,
            OnceStep::Open => snodo_once_step_kind::Open,
        }
    }

    /// The ARGUMENT failure of a reader that does not apply to this kind.
    fn not(&self, want: &str) -> Fail {
        Fail::new(
            snodo_status::Argument,
            format!("once step: not {want} step (it is {})", self.kind().name()),
        )
    }
}

/// Shared body of the scalar readers that apply to one kind.
///
/// # Safety
///
/// `step` NULL or live; `out` NULL or valid for one write.
unsafe fn read_kind<T>(
    step: *const snodo_once_step,
    out: *mut T,
    f: impl FnOnce(&snodo_once_step) -> Result<T, Fail>,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let step = unsafe { handle(step, "step") }?;
        let out = Out::new(out, "out")?;
        let value = f(step)?;
        // SAFETY: caller contract.
        unsafe { out.write(value) };
        Ok(())
    })
}

/// Frees a step and the commands it lends. NULL is a no-op.
///
/// # Safety
///
/// `step` NULL or a step from snodo, not yet freed; no command it lent is
/// used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_free(step: *mut snodo_once_step) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(step) });
}

/// The step's kind (`snodo_once_step_kind`).
///
/// Statuses: OK, NULL_ARGUMENT (`step` or `out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `step` NULL or a live step; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_get_kind(
    step: *const snodo_once_step,
    out: *mut snodo_once_step_kind,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_kind(step, out, |s| Ok(s.kind())) }
}

/// The command of a COMMAND step: run it on the store, feed the reply.
///
/// On OK `*out` is a command **borrowed from the step** (valid until
/// `snodo_once_step_free`; never free it). Statuses: OK, ARGUMENT (not a
/// COMMAND step), NULL_ARGUMENT (`step` or `out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `step` NULL or a live step; `out` NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_command(
    step: *const snodo_once_step,
    out: *mut *const snodo_once_command,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        read_kind(step, out, |s| match (&s.inner, &s.command) {
            (OnceStep::Command(_), Some(c)) => Ok(std::ptr::from_ref(c)),
            _ => Err(s.not("a COMMAND")),
        })
    }
}

/// How long a SLEEP step pauses, in milliseconds (the machine's backoff:
/// 5 ms doubling to 250 ms, within the run's wait).
///
/// Statuses: OK, ARGUMENT (not a SLEEP step), NULL_ARGUMENT (`step` or
/// `out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `step` NULL or a live step; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_sleep_ms(
    step: *const snodo_once_step,
    out: *mut u64,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        read_kind(step, out, |s| match &s.inner {
            OnceStep::Sleep(d) => Ok(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            _ => Err(s.not("a SLEEP")),
        })
    }
}

/// The fencing number of an EFFECT step's claim: greater than every earlier
/// claim's of this flow. A ledger that refuses a write carrying a smaller
/// number than it has seen for the flow shuts out a former owner whose
/// lease lapsed.
///
/// Statuses: OK, ARGUMENT (not an EFFECT step), NULL_ARGUMENT (`step` or
/// `out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `step` NULL or a live step; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_fence(step: *const snodo_once_step, out: *mut u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        read_kind(step, out, |s| match &s.inner {
            OnceStep::Effect(t) => Ok(t.fence()),
            _ => Err(s.not("an EFFECT")),
        })
    }
}

/// The owner-checked lease extension of an EFFECT step: run it on the
/// store from inside a long effect (as often as needed, from the thread
/// running the effect) and read its reply with `snodo_once_step_extended`.
///
/// On OK `*out` is a command **borrowed from the step** (valid until
/// `snodo_once_step_free`; never free it). Statuses: OK, ARGUMENT (not an
/// EFFECT step), NULL_ARGUMENT (`step` or `out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `step` NULL or a live step; `out` NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_extend_command(
    step: *const snodo_once_step,
    out: *mut *const snodo_once_command,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        read_kind(step, out, |s| match (&s.inner, &s.command) {
            (OnceStep::Effect(_), Some(c)) => Ok(std::ptr::from_ref(c)),
            _ => Err(s.not("an EFFECT")),
        })
    }
}

/// Reads the store's reply to an EFFECT step's extend command: `*out`
/// true (the lease runs a full lease from now) or false (the claim is no
/// longer this run's: it lapsed and was taken over; stop, and do not
/// write).
///
/// Statuses: OK, STORE (a reply snodo does not write), ARGUMENT (not an
/// EFFECT step), INVALID_UTF8, NULL_ARGUMENT (`step`, `reply` or `out`
/// NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `step` NULL or a live step; `reply` NULL or valid for `reply_len`
/// bytes; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_extended(
    step: *const snodo_once_step,
    reply: *const u8,
    reply_len: usize,
    out: *mut bool,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let step = unsafe { handle(step, "step") }?;
        // SAFETY: caller contract.
        let reply = unsafe { text(reply, reply_len, "reply") }?;
        let out = Out::new(out, "out")?;
        let OnceStep::Effect(ticket) = &step.inner else {
            return Err(step.not("an EFFECT"));
        };
        let extended = ticket.extended(reply)?;
        // SAFETY: caller contract.
        unsafe { out.write(extended) };
        Ok(())
    })
}

/// The final result text of a DONE step: this run's effect's, or the one
/// remembered for these answers (answer it, e.g. as the `result` of a
/// `complete` outcome).
///
/// On OK `*out` is a new string owned by the caller (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: OK, ARGUMENT (not
/// a DONE step), NULL_ARGUMENT (`step` or `out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `step` NULL or a live step; `out` NULL or valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_step_text(
    step: *const snodo_once_step,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let step = unsafe { handle(step, "step") }?;
        let out = OutStr::new(out, out_len)?;
        let OnceStep::Done(text) = &step.inner else {
            return Err(step.not("a DONE"));
        };
        // SAFETY: caller contract.
        unsafe { out.write(text.as_bytes()) };
        Ok(())
    })
}

// Steps move between threads and are read from several at once.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<snodo_once_step>();
};
