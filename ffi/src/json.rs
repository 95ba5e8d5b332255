//! `snodo_canonicalize`: the canonical JSON form used by token digests.

use std::ffi::c_char;

use crate::error::snodo_status;
use crate::ffi::{OutStr, bytes, guard};

/// The canonical form of a JSON text (docs/canonical-json.md): object keys
/// sorted, no insignificant whitespace, one string escaping, numbers by
/// their lexical text (`1` and `1.0` differ). Input is parsed strictly:
/// duplicate keys, nesting over 64 levels, texts over 64 MiB and invalid
/// UTF-8 are JSON (the core's one reader, as in every language).
///
/// On OK `*out` is a new string owned by the caller (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: OK, JSON,
/// NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `input` valid for `input_len` bytes; `out` valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_canonicalize(
    input: *const u8,
    input_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        // Raw bytes: the core checks UTF-8, so invalid UTF-8 is JSON here as
        // in every language.
        let input = unsafe { bytes(input, input_len, "input") }?;
        let out = OutStr::new(out, out_len)?;
        let canonical = snodo::canonicalize(input)?;
        // SAFETY: caller contract.
        unsafe { out.write(canonical.as_bytes()) };
        Ok(())
    })
}
