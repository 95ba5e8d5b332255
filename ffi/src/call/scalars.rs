//! The number and flag readers of `snodo_call`.

use snodo::Call;

use super::snodo_call;
use crate::error::snodo_status;
use crate::ffi::read_scalar;

/// Shared body of the scalar readers.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
pub(super) unsafe fn scalar<T>(
    call: *const snodo_call,
    out: *mut T,
    f: impl FnOnce(&Call) -> T,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { read_scalar(call, "call", out, |c| f(&c.inner)) }
}

/// The round: 1 for a first call, n+1 for a retry of round n.
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_round(call: *const snodo_call, out: *mut u32) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { scalar(call, out, |c| c.round()) }
}

/// Unix seconds when the flow began (this request's time on round 1).
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_flow_start(call: *const snodo_call, out: *mut u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { scalar(call, out, |c| c.flow_start()) }
}

/// Whether this request carried a valid token.
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_is_retry(call: *const snodo_call, out: *mut bool) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { scalar(call, out, |c| c.is_retry()) }
}

/// Whether `input_required` may be answered: one of the three MRTR
/// methods in the 2026-07-28 dialect.
///
/// Statuses: OK, NULL_ARGUMENT (`call` or `out` NULL), PANIC. Not
/// thread-safe for one call.
///
/// # Safety
///
/// `call` NULL or a live call; `out` NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_mrtr_allowed(call: *const snodo_call, out: *mut bool) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { scalar(call, out, |c| c.mrtr_allowed()) }
}
