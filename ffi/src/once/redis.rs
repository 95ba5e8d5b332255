//! Issue 17, the Redis key names, values and Lua scripts a C server needs
//! to run the consume-once protocol on its own Redis client
//! (examples/c/once_redis.c is the recipe with hiredis). The scripts are
//! the core's constants, made NUL-terminated at compile time, so C runs
//! them byte for byte like Python and Node.

use std::ffi::c_char;

use crate::error::{Fail, snodo_status};
use crate::ffi::{OutStr, guard, text};

// The string values (`SNODO_ONCE_DEFAULT_PREFIX`, `SNODO_ONCE_CONSUMED`,
// `SNODO_ONCE_PENDING`, `SNODO_ONCE_DONE_PREFIX`, `SNODO_ONCE_WON`,
// `SNODO_ONCE_REPLAYED_MESSAGE`) are header macros written in
// cbindgen.toml, because cbindgen does not export `&str` constants; the
// test `header_macros_are_the_cores` (once/tests.rs) reads them back from the
// committed header and compares them with the core's.

/// `s` with a NUL appended, at compile time (`N` must be `s.len() + 1`), so
/// the scripts C gets are the core's constants and cannot drift from them.
// Indexing, proved in bounds and evaluated by the compiler: `i < b.len()`
// and `N` is `b.len() + 1` (a wrong `N` fails the build, not a request).
#[allow(clippy::indexing_slicing)]
const fn nul_terminated<const N: usize>(s: &str) -> [u8; N] {
    let b = s.as_bytes();
    let mut out = [0u8; N];
    let mut i = 0;
    while i < b.len() {
        out[i] = b[i];
        i += 1;
    }
    out
}

static CLAIM_SCRIPT: [u8; snodo::ONCE_CLAIM_SCRIPT.len() + 1] = nul_terminated(snodo::ONCE_CLAIM_SCRIPT);
static COMPLETE_SCRIPT: [u8; snodo::ONCE_COMPLETE_SCRIPT.len() + 1] =
    nul_terminated(snodo::ONCE_COMPLETE_SCRIPT);
static RELEASE_SCRIPT: [u8; snodo::ONCE_RELEASE_SCRIPT.len() + 1] =
    nul_terminated(snodo::ONCE_RELEASE_SCRIPT);

/// The claim Lua script, byte for byte the one Rust, Python and Node run:
/// `EVAL <script> 1 <result key> <lease_ms>` returns `won`, `pending` or
/// `done:<text>`. A static NUL-terminated string: never free it; never
/// NULL. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_claim_script() -> *const c_char {
    CLAIM_SCRIPT.as_ptr().cast()
}

/// The complete Lua script: `EVAL <script> 1 <result key> <text> <ttl_ms>`
/// stores `done:<text>` unless a result is already there (returns 1 if it
/// stored, 0 if not). Static, never NULL, never free it. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_complete_script() -> *const c_char {
    COMPLETE_SCRIPT.as_ptr().cast()
}

/// The release Lua script: `EVAL <script> 1 <result key>` deletes the key
/// only while it is still `pending`; `EVAL <script> 2 <result key> <token
/// key>` (after a failed effect) also deletes the token key this attempt
/// consumed, in the same step. Static, never NULL, never free it.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_release_script() -> *const c_char {
    RELEASE_SCRIPT.as_ptr().cast()
}

/// The prefix argument: NULL means the default prefix.
///
/// # Safety
///
/// `prefix` NULL or valid for `len` bytes.
unsafe fn prefix_arg<'a>(prefix: *const u8, len: usize) -> Result<&'a str, Fail> {
    if prefix.is_null() {
        return Ok(snodo::DEFAULT_ONCE_PREFIX);
    }
    // SAFETY: caller contract.
    unsafe { text(prefix, len, "prefix") }
}

/// The consume-once key of `token_id`: `<prefix>token:<token_id>`.
/// `prefix` NULL means `SNODO_ONCE_DEFAULT_PREFIX`.
///
/// On OK `*out` is a new string owned by the caller (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: OK, CONFIG (a
/// prefix over 128 bytes or not printable ASCII), ARGUMENT (bad id),
/// INVALID_UTF8, NULL_ARGUMENT, PANIC. Thread-safe.
///
/// # Safety
///
/// `prefix` NULL or valid for `prefix_len` bytes; `token_id` valid for
/// `token_id_len` bytes; `out` valid for one pointer write; `out_len` NULL
/// or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_token_key(
    prefix: *const u8,
    prefix_len: usize,
    token_id: *const u8,
    token_id_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let prefix = unsafe { prefix_arg(prefix, prefix_len) }?;
        // SAFETY: caller contract.
        let token_id = unsafe { text(token_id, token_id_len, "token_id") }?;
        let out = OutStr::new(out, out_len)?;
        let key = snodo::once_token_key(prefix, token_id)?;
        // SAFETY: caller contract.
        unsafe { out.write(key.as_bytes()) };
        Ok(())
    })
}

/// The remembered-result key of a final round:
/// `<prefix>result:<flow_id>:<digest>`. `prefix` NULL means the default.
///
/// On OK `*out` is a new string owned by the caller (free with
/// `snodo_string_free`); `out_len` may be NULL. Statuses: as
/// `snodo_once_token_key`. Thread-safe.
///
/// # Safety
///
/// As `snodo_once_token_key`, for each id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_result_key(
    prefix: *const u8,
    prefix_len: usize,
    flow_id: *const u8,
    flow_id_len: usize,
    digest: *const u8,
    digest_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let prefix = unsafe { prefix_arg(prefix, prefix_len) }?;
        // SAFETY: caller contract.
        let flow_id = unsafe { text(flow_id, flow_id_len, "flow_id") }?;
        // SAFETY: caller contract.
        let digest = unsafe { text(digest, digest_len, "digest") }?;
        let out = OutStr::new(out, out_len)?;
        let key = snodo::once_result_key(prefix, flow_id, digest)?;
        // SAFETY: caller contract.
        unsafe { out.write(key.as_bytes()) };
        Ok(())
    })
}
