//! The five Lua scripts of the once machine, byte for byte the core's, and
//! the Redis `maxmemory-policy` check. A command names its script
//! (`snodo_once_command_script`); the functions here let a server load them
//! all at start-up (`SCRIPT LOAD`, for `EVALSHA`).

use std::ffi::c_char;

use crate::error::snodo_status;
use crate::ffi::{guard, text};

// The string values `SNODO_ONCE_DEFAULT_PREFIX`,
// `SNODO_ONCE_REPLAYED_MESSAGE` and `SNODO_ONCE_SAFE_EVICTION_POLICY` are
// header macros written in cbindgen.toml, because cbindgen does not export
// `&str` constants; the test `header_macros_are_the_cores` (once/tests.rs)
// reads them back from the committed header and compares them with the
// core's.

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
static EXTEND_SCRIPT: [u8; snodo::ONCE_EXTEND_SCRIPT.len() + 1] = nul_terminated(snodo::ONCE_EXTEND_SCRIPT);
static LOOKUP_SCRIPT: [u8; snodo::ONCE_LOOKUP_SCRIPT.len() + 1] = nul_terminated(snodo::ONCE_LOOKUP_SCRIPT);

/// The NUL-terminated static copy of the script of `op`.
pub(crate) fn script_of(op: snodo::OnceOp) -> &'static [u8] {
    match op {
        snodo::OnceOp::Claim => &CLAIM_SCRIPT,
        snodo::OnceOp::Complete => &COMPLETE_SCRIPT,
        snodo::OnceOp::Release => &RELEASE_SCRIPT,
        snodo::OnceOp::Extend => &EXTEND_SCRIPT,
        snodo::OnceOp::Lookup => &LOOKUP_SCRIPT,
    }
}

/// The claim Lua script (`SNODO_ONCE_OP_CLAIM`): `KEYS[1]` = the flow key,
/// `ARGV` = answers digest, owner, lease ms, keep-until Unix ms. A static
/// NUL-terminated string, byte for byte the one Rust, Python and Node run:
/// never free it; never NULL. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_claim_script() -> *const c_char {
    CLAIM_SCRIPT.as_ptr().cast()
}

/// The complete Lua script (`SNODO_ONCE_OP_COMPLETE`): `ARGV` = owner,
/// result text, lease ms, keep-until Unix ms. Static, never NULL, never
/// free it. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_complete_script() -> *const c_char {
    COMPLETE_SCRIPT.as_ptr().cast()
}

/// The release Lua script (`SNODO_ONCE_OP_RELEASE`): `ARGV` = owner.
/// Static, never NULL, never free it. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_release_script() -> *const c_char {
    RELEASE_SCRIPT.as_ptr().cast()
}

/// The lease-extension Lua script (`SNODO_ONCE_OP_EXTEND`): `ARGV` =
/// owner, lease ms, keep-until Unix ms. Static, never NULL, never free it.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_extend_script() -> *const c_char {
    EXTEND_SCRIPT.as_ptr().cast()
}

/// The read-only lookup Lua script (`SNODO_ONCE_OP_LOOKUP`): no `ARGV`.
/// Static, never NULL, never free it. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_once_lookup_script() -> *const c_char {
    LOOKUP_SCRIPT.as_ptr().cast()
}

/// Checks a Redis `maxmemory-policy` as `CONFIG GET maxmemory-policy`
/// answers it (on every master of a cluster): OK only for
/// `SNODO_ONCE_SAFE_EVICTION_POLICY` (`"noeviction"`); any other policy may
/// evict a live flow record and let its effect run twice, and gets STORE
/// with the reason in the last error. A server refuses to start on STORE,
/// or, if its operator opted in to an evicting policy, warns loudly.
///
/// Statuses: OK, STORE, INVALID_UTF8, NULL_ARGUMENT (`policy` NULL), PANIC.
/// Thread-safe.
///
/// # Safety
///
/// `policy` NULL or valid for `policy_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_once_check_eviction_policy(
    policy: *const u8,
    policy_len: usize,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let policy = unsafe { text(policy, policy_len, "policy") }?;
        snodo::check_once_eviction_policy(policy)?;
        Ok(())
    })
}
