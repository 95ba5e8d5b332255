//! `snodo_call`: what a handler reads about one request.
//!
//! Readers of JSON values return compact JSON text; an absent optional value
//! is the JSON text `null` (never a NULL pointer), so every result parses.
//!
//! One file per kind of reader: `text` (strings and JSON), `scalars`
//! (numbers and flags) and `answers` (the client's answers).

use snodo::Call;

use crate::ffi::guard_void;

// The order of these modules is the order of the exports in
// include/snodo.h (cbindgen reads them in declaration order), so they are
// kept one per group: rustfmt would sort a group alphabetically.
mod text;

mod scalars;

mod answers;

pub use answers::*;
pub use scalars::*;
pub use text::*;

/// One request as the handler sees it, from `snodo_engine_begin`. Free it
/// with `snodo_call_free`. Not thread-safe: use a call from one thread at a
/// time (moving it to another thread is fine).
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_call {
    pub(crate) inner: Call,
}

impl snodo_call {
    pub(crate) fn new(inner: Call) -> snodo_call {
        snodo_call { inner }
    }
}

/// Frees a call. NULL is a no-op.
///
/// # Safety
///
/// `call` must be NULL or a call from snodo, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_call_free(call: *mut snodo_call) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(call) });
}
