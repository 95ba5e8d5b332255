//! `snodo_status`, the static message of each status, and the thread-local
//! last error that carries field-level detail.
//!
//! Why a thread-local last error rather than an error out-param: every
//! function keeps only its real outputs (the rustls-ffi convention of one
//! status return and trailing out-params), callers that only care about the
//! status pay nothing, and the shared engine never needs a mutable error
//! slot (a per-handle slot would race when one engine serves many threads).
//! The price is the errno rule: read it on the same thread, right after the
//! failing call.

use std::cell::RefCell;
use std::ffi::{CStr, c_char, c_int};

use snodo::{Error, ErrorCode};

/// The status every fallible libsnodo function returns.
///
/// 0 is success. 1 to 10 mirror the core error codes with the same numbers
/// and names (the same list as Python's exception classes and Node's
/// `err.code`). 100 and up are statuses of the C binding only. Numbers are
/// stable and never reused; new statuses may be added, so treat unknown
/// values as failures.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_status {
    /// Success: the out-params are written.
    Ok = 0,
    /// The engine configuration is invalid (keys, limits, versions).
    Config = 1,
    /// A form-elicitation `requestedSchema` is outside the spec's flat subset.
    Schema = 2,
    /// A URL-elicitation URL is not acceptable.
    Url = 3,
    /// A (deprecated) sampling request is malformed.
    Sampling = 4,
    /// An input request object or key is invalid.
    InputRequest = 5,
    /// A JSON argument is not valid JSON (syntax, duplicate key, depth, size).
    Json = 6,
    /// The state to seal would exceed the configured token size.
    StateTooLarge = 7,
    /// A continuation token failed to open (`snodo_engine_open` only); the
    /// last error is the reason name, e.g. `signature`.
    Token = 8,
    /// The message given to `snodo_engine_begin` is not a JSON-RPC request
    /// (a notification or a response): send nothing back.
    NotARequest = 9,
    /// Any other invalid argument (empty principal, bad outcome shape, a
    /// length above `PTRDIFF_MAX`, ...).
    Argument = 10,
    /// `snodo_engine_decide` was already called successfully on this call
    /// (the core's decided-once rule; 103 before issue 12).
    AlreadyDecided = 11,
    /// A required pointer argument was NULL.
    NullArgument = 100,
    /// A text argument is not valid UTF-8.
    InvalidUtf8 = 101,
    /// snodo panicked; the call had no effect. Please report it as a bug.
    Panic = 102,
}

/// Every status, in number order (not an associated const, which cbindgen
/// would export as a macro).
pub(crate) const ALL_STATUSES: [snodo_status; 15] = [
    snodo_status::Ok,
    snodo_status::Config,
    snodo_status::Schema,
    snodo_status::Url,
    snodo_status::Sampling,
    snodo_status::InputRequest,
    snodo_status::Json,
    snodo_status::StateTooLarge,
    snodo_status::Token,
    snodo_status::NotARequest,
    snodo_status::Argument,
    snodo_status::AlreadyDecided,
    snodo_status::NullArgument,
    snodo_status::InvalidUtf8,
    snodo_status::Panic,
];

impl snodo_status {
    /// The status mirroring a core error code (same number).
    pub fn from_code(code: ErrorCode) -> snodo_status {
        // ErrorCode is non_exhaustive: a code added to the core before this
        // table is updated degrades to ARGUMENT (a test pins the full list).
        match code.number() {
            1 => snodo_status::Config,
            2 => snodo_status::Schema,
            3 => snodo_status::Url,
            4 => snodo_status::Sampling,
            5 => snodo_status::InputRequest,
            6 => snodo_status::Json,
            7 => snodo_status::StateTooLarge,
            8 => snodo_status::Token,
            9 => snodo_status::NotARequest,
            11 => snodo_status::AlreadyDecided,
            _ => snodo_status::Argument,
        }
    }

    fn from_int(n: c_int) -> Option<snodo_status> {
        ALL_STATUSES.iter().copied().find(|s| *s as c_int == n)
    }

    /// The stable name, e.g. `CONFIG` (the C constant without `SNODO_STATUS_`).
    pub fn name(self) -> &'static CStr {
        match self {
            snodo_status::Ok => c"OK",
            snodo_status::Config => c"CONFIG",
            snodo_status::Schema => c"SCHEMA",
            snodo_status::Url => c"URL",
            snodo_status::Sampling => c"SAMPLING",
            snodo_status::InputRequest => c"INPUT_REQUEST",
            snodo_status::Json => c"JSON",
            snodo_status::StateTooLarge => c"STATE_TOO_LARGE",
            snodo_status::Token => c"TOKEN",
            snodo_status::NotARequest => c"NOT_A_REQUEST",
            snodo_status::Argument => c"ARGUMENT",
            snodo_status::NullArgument => c"NULL_ARGUMENT",
            snodo_status::InvalidUtf8 => c"INVALID_UTF8",
            snodo_status::Panic => c"PANIC",
            snodo_status::AlreadyDecided => c"ALREADY_DECIDED",
        }
    }

    /// The static message (for 1 to 11, the core's description).
    pub fn message(self) -> &'static CStr {
        match self {
            snodo_status::Ok => c"success",
            snodo_status::Config => c"invalid engine configuration",
            snodo_status::Schema => c"invalid form elicitation schema",
            snodo_status::Url => c"invalid elicitation URL",
            snodo_status::Sampling => c"invalid sampling request",
            snodo_status::InputRequest => c"invalid input request",
            snodo_status::Json => c"invalid JSON argument",
            snodo_status::StateTooLarge => c"state too large to seal",
            snodo_status::Token => c"continuation token rejected",
            snodo_status::NotARequest => c"message is not a JSON-RPC request",
            snodo_status::Argument => c"invalid argument",
            snodo_status::NullArgument => c"a required pointer argument is NULL",
            snodo_status::InvalidUtf8 => c"a text argument is not valid UTF-8",
            snodo_status::Panic => c"internal panic (a snodo bug); the call had no effect",
            snodo_status::AlreadyDecided => c"the call was already decided",
        }
    }
}

/// A failure on its way to the C caller: a status and a detail message.
#[derive(Debug)]
pub(crate) struct Fail {
    pub status: snodo_status,
    pub detail: String,
}

impl Fail {
    pub(crate) fn new(status: snodo_status, detail: impl Into<String>) -> Fail {
        Fail { status, detail: detail.into() }
    }

    pub(crate) fn null(what: &str) -> Fail {
        Fail::new(snodo_status::NullArgument, format!("{what}: NULL"))
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::new(snodo_status::from_code(e.code()), e.message())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<Option<Fail>> = const { RefCell::new(None) };
}

pub(crate) fn set_last_error(fail: Option<Fail>) {
    // try_with: a call during thread teardown simply records nothing.
    let _ = LAST_ERROR.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            *slot = fail;
        }
    });
}

pub(crate) fn last_error_detail() -> String {
    LAST_ERROR
        .try_with(|slot| {
            slot.try_borrow().ok().and_then(|f| {
                f.as_ref().map(|f| format!("{}: {}", f.status.name().to_string_lossy(), f.detail))
            })
        })
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// The static, NUL-terminated message of `status`.
///
/// Takes an `int` so that any value is safe to pass: unknown values give
/// `"unknown status"`. The result is static: never free it. Never NULL.
/// Thread-safe. Does not touch the last error.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_status_message(status: c_int) -> *const c_char {
    snodo_status::from_int(status).map_or(c"unknown status", snodo_status::message).as_ptr()
}

/// The stable name of `status` without the `SNODO_STATUS_` prefix, e.g.
/// `"CONFIG"`; `"UNKNOWN"` for values that are not statuses.
///
/// Static: never free it. Never NULL. Thread-safe. Does not touch the last error.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_status_name(status: c_int) -> *const c_char {
    snodo_status::from_int(status).map_or(c"UNKNOWN", snodo_status::name).as_ptr()
}

/// Copies the detail of the last failure on this thread into `*out`, as
/// `"NAME: detail"` (e.g. `"SCHEMA: properties.age: unknown keyword ..."`),
/// or `""` when the last snodo call on this thread succeeded.
///
/// Every fallible function clears the last error on entry and sets it when it
/// fails, so read it right after the failing call. Reading it does not
/// clear it. The string is owned by the caller: free it with
/// `snodo_string_free`. `out_len` may be NULL; it receives the length
/// without the terminating NUL.
///
/// Statuses: OK; NULL_ARGUMENT if `out` is NULL; PANIC.
/// Thread-safe (each thread has its own last error).
///
/// # Safety
///
/// `out` must be NULL or valid for one pointer write; `out_len` NULL or
/// valid for one `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_last_error(out: *mut *mut c_char, out_len: *mut usize) -> snodo_status {
    crate::ffi::guard_keep_error(|| {
        let out = crate::ffi::OutStr::new(out, out_len)?;
        let detail = last_error_detail();
        // SAFETY: the caller passed valid out-pointers (see # Safety).
        unsafe { out.write(detail.as_bytes()) };
        Ok(())
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn statuses_mirror_the_core_codes() {
        for code in ErrorCode::ALL {
            let s = snodo_status::from_code(code);
            assert_eq!(s as u32, code.number());
            assert_eq!(s.name().to_str().unwrap(), code.name());
            assert_eq!(s.message().to_str().unwrap(), code.description());
        }
        // Binding-only statuses stay out of the core's range.
        let core: Vec<u32> = ErrorCode::ALL.iter().map(|c| c.number()).collect();
        for s in ALL_STATUSES {
            let n = s as u32;
            assert!(n == 0 || core.contains(&n) || n >= 100, "{s:?}");
        }
        assert_eq!(ALL_STATUSES.len(), 1 + ErrorCode::ALL.len() + 3);
    }

    #[test]
    fn unknown_status_values_are_safe() {
        for n in [-1, 12, 99, 103, c_int::MAX, c_int::MIN] {
            // SAFETY: the functions return static NUL-terminated strings.
            let m = unsafe { CStr::from_ptr(snodo_status_message(n)) };
            assert_eq!(m.to_str().unwrap(), "unknown status");
            let name = unsafe { CStr::from_ptr(snodo_status_name(n)) };
            assert_eq!(name.to_str().unwrap(), "UNKNOWN");
        }
    }
}
