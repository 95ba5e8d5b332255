//! `snodo_once_command`: one store command of the once machine, borrowed
//! from the step that carries it. A Redis client runs its script with
//! `KEYS[1]` = its key and `ARGV` = its arguments and feeds the reply text
//! back; the in-memory store runs it natively (`snodo_once_memory_execute`).

use std::ffi::c_char;

use snodo::{OnceCommand, OnceOp};

use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, guard, handle, read_scalar};

/// Which store step a command is (the core's `OnceOp`). The numbers are
/// stable, so a server may index a table of its five script hashes by them.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_once_op {
    /// Take the flow's claim (or learn that it is pending or done).
    Claim = 0,
    /// Remember the result of the owner's claim.
    Complete = 1,
    /// Drop the owner's claim after an effect that did nothing.
    Release = 2,
    /// Move the owner's lease a full lease from now.
    Extend = 3,
    /// Read the flow's record without changing it.
    Lookup = 4,
}

impl From<OnceOp> for snodo_once_op {
    fn from(op: OnceOp) -> snodo_once_op {
        match op {
            OnceOp::Claim => snodo_once_op::Claim,
            OnceOp::Complete => snodo_once_op::Complete,
            OnceOp::Release => snodo_once_op::Release,
            OnceOp::Extend => snodo_once_op::Extend,
            OnceOp::Lookup => snodo_once_op::Lookup,
        }
    }
}

/// One store command (the core's `OnceCommand`): its op, the flow's key,
/// the Lua script to run and the script's arguments. Never created or freed
/// by the caller: `snodo_once_step_command` and
/// `snodo_once_step_extend_command` lend it, and it lives as long as its
/// step. Immutable: its readers are thread-safe.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_once_command {
    pub(crate) inner: OnceCommand,
    /// The key and each argument, NUL-terminated, so C gets both a pointer
    /// + length and a C string.
    key: Box<[u8]>,
    args: Vec<Box<[u8]>>,
}

fn nul_terminated(s: &str) -> Box<[u8]> {
    let mut b = Vec::with_capacity(s.len() + 1);
    b.extend_from_slice(s.as_bytes());
    b.push(0);
    b.into_boxed_slice()
}

impl snodo_once_command {
    pub(crate) fn new(inner: OnceCommand) -> snodo_once_command {
        let key = nul_terminated(inner.key());
        let args = inner.args().iter().map(|a| nul_terminated(a)).collect();
        snodo_once_command { inner, key, args }
    }
}

/// Writes a borrowed, NUL-terminated text: `*out` points at `bytes` (which
/// end with the NUL), `*out_len` (optional) is the length without it.
///
/// # Safety
///
/// `out` valid for one pointer write (checked non-NULL by `Out::new`);
/// `out_len` NULL or valid for one `size_t` write.
unsafe fn lend(out: Out<*const c_char>, out_len: *mut usize, bytes: &[u8]) {
    // SAFETY: per the contract.
    unsafe {
        out.write(bytes.as_ptr().cast());
        if !out_len.is_null() {
            out_len.write(bytes.len().saturating_sub(1));
        }
    }
}

/// Shared body of the borrowed text readers.
///
/// # Safety
///
/// `command` NULL or live; `out`/`out_len` as in [`lend`].
unsafe fn read_lent(
    command: *const snodo_once_command,
    out: *mut *const c_char,
    out_len: *mut usize,
    f: impl for<'a> FnOnce(&'a snodo_once_command) -> Result<&'a [u8], Fail>,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let command = unsafe { handle(command, "command") }?;
        let out = Out::new(out, "out")?;
        let bytes = f(command)?;
        // SAFETY: caller contract.
        unsafe { lend(out, out_len, bytes) };
        Ok(())
    })
}

/// The command's op.
///
/// Statuses: OK, NULL_ARGUMENT (`command` or `out` NULL), PANIC.
/// Thread-safe.
///
/// # Safety
///
/// `command` NULL or a command lent by a live step; `out` NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_command_op(
    command: *const snodo_once_command,
    out: *mut snodo_once_op,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_scalar(command, "command", out, |c| c.inner.op().into()) }
}

/// The flow's key, `KEYS[1]` of the script (`<prefix>flow:{<flow id>}`).
///
/// On OK `*out` points at text **borrowed from the step** (valid until
/// `snodo_once_step_free`; do not free it), NUL-terminated; `*out_len`
/// (`out_len` may be NULL) is its length without the NUL. Statuses: OK,
/// NULL_ARGUMENT (`command` or `out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `command` NULL or a command lent by a live step; `out` NULL or valid for
/// one pointer write; `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_command_key(
    command: *const snodo_once_command,
    out: *mut *const c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_lent(command, out, out_len, |c| Ok(&c.key)) }
}

/// The Lua script to run, byte for byte (one of the five
/// `snodo_once_*_script` texts).
///
/// On OK `*out` points at a static NUL-terminated string (never free it);
/// `*out_len` (`out_len` may be NULL) is its length. Statuses: OK,
/// NULL_ARGUMENT (`command` or `out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// As `snodo_once_command_key`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_command_script(
    command: *const snodo_once_command,
    out: *mut *const c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_lent(command, out, out_len, |c| Ok(super::scripts::script_of(c.inner.op()))) }
}

/// How many arguments (`ARGV`) the script takes: 4 (claim, complete), 3
/// (extend), 1 (release) or 0 (lookup).
///
/// Statuses: OK, NULL_ARGUMENT (`command` or `out` NULL), PANIC.
/// Thread-safe.
///
/// # Safety
///
/// `command` NULL or a command lent by a live step; `out` NULL or valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_command_arg_count(
    command: *const snodo_once_command,
    out: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_scalar(command, "command", out, |c| c.args.len()) }
}

/// Argument `index` (0-based: `ARGV[index + 1]` of the script) as text.
///
/// On OK `*out` points at text **borrowed from the step** (valid until
/// `snodo_once_step_free`; do not free it) followed by a NUL byte; pass
/// `*out_len` (`out_len` may be NULL) to the Redis client, since a result
/// text may itself hold a NUL. Statuses: OK, ARGUMENT (`index` not below
/// `snodo_once_command_arg_count`), NULL_ARGUMENT (`command` or `out`
/// NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// As `snodo_once_command_key`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_command_arg(
    command: *const snodo_once_command,
    index: usize,
    out: *mut *const c_char,
    out_len: *mut usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        read_lent(command, out, out_len, |c| {
            c.args.get(index).map(|a| a.as_ref()).ok_or_else(|| {
                Fail::new(
                    snodo_status::Argument,
                    format!(
                        "once command: no argument {index} (a {} command has {})",
                        c.inner.op().name(),
                        c.args.len()
                    ),
                )
            })
        })
    }
}
