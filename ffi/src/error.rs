//! `snodo_status`, its static name and message, and the thread-local last error with the detail. Thread-local
//! rather than an out-param: every function keeps only its real outputs, and a shared engine needs no mutable
//! error slot (one per handle would race); the price is the errno rule.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};
use std::sync::LazyLock;

use snodo::{Error, ErrorCode, TokenError, TokenReason};

/// The status every fallible libsnodo function returns.
///
/// 0 is success. 1 to 99 are the core's error codes with the same numbers and names (the same list as
/// Python's exception classes and Node's `err.code`). 100 and up are statuses of the C binding only. Numbers
/// are stable and never reused; new statuses may be added, so treat unknown values as failures.
//
// Written out because cbindgen does not expand macros; everything else about a status comes from
// `status_table!` below, whose `match` has no wildcard (the two cannot drift), and
// `statuses_are_the_core_codes` holds it to the core.
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
    /// A continuation token failed to open (`snodo_engine_open` only); the last error is `TOKEN: Invalid or
    /// expired requestState (<reason>)`.
    Token = 8,
    /// The message given to `snodo_engine_begin` is not a JSON-RPC request (a notification or a response):
    /// send nothing back.
    NotARequest = 9,
    /// Any other invalid argument (empty principal, bad outcome shape, a length above `PTRDIFF_MAX`, ...).
    Argument = 10,
    /// `snodo_engine_decide` was already called successfully on this call (the core's decided-once rule).
    AlreadyDecided = 11,
    /// The once store failed (unreachable, full), or the flow's effect is still running elsewhere past the
    /// wait; the effect did not run here.
    Store = 12,
    /// A required pointer argument was NULL.
    NullArgument = 100,
    /// A text argument is not valid UTF-8.
    InvalidUtf8 = 101,
    /// snodo panicked; the call had no effect. Please report it as a bug.
    Panic = 102,
}

/// Where a status's name and message come from: the core's code, or this binding (the name is the header's
/// constant without `SNODO_STATUS_`).
#[derive(Debug, Clone, Copy)]
enum Source {
    Core(ErrorCode),
    Binding(&'static str, &'static str),
}

/// The one status table. Generates `ALL_STATUSES` and `snodo_status::source` (an exhaustive match: the table
/// and the enum cannot drift apart).
macro_rules! status_table {
    ($($variant:ident => $source:expr,)*) => {
        /// Every status, in table order (not an associated const, which cbindgen would export as a macro).
        pub(crate) const ALL_STATUSES: [snodo_status; [$(stringify!($variant)),*].len()] =
            [$(snodo_status::$variant),*];

        impl snodo_status {
            fn source(self) -> Source {
                match self {
                    $(snodo_status::$variant => $source,)*
                }
            }
        }
    };
}

status_table! {
    Ok => Source::Binding("OK", "success"),
    Config => Source::Core(ErrorCode::Config),
    Schema => Source::Core(ErrorCode::Schema),
    Url => Source::Core(ErrorCode::Url),
    Sampling => Source::Core(ErrorCode::Sampling),
    InputRequest => Source::Core(ErrorCode::InputRequest),
    Json => Source::Core(ErrorCode::Json),
    StateTooLarge => Source::Core(ErrorCode::StateTooLarge),
    Token => Source::Core(ErrorCode::Token),
    NotARequest => Source::Core(ErrorCode::NotARequest),
    Argument => Source::Core(ErrorCode::Argument),
    AlreadyDecided => Source::Core(ErrorCode::AlreadyDecided),
    Store => Source::Core(ErrorCode::Store),
    NullArgument => Source::Binding("NULL_ARGUMENT", "a required pointer argument is NULL"),
    InvalidUtf8 => Source::Binding("INVALID_UTF8", "a text argument is not valid UTF-8"),
    Panic => Source::Binding("PANIC", "internal panic (a snodo bug); the call had no effect"),
}

/// NUL-terminated name and message of every status, built once from the table (C callers get `const char *`
/// that live forever).
static TEXTS: LazyLock<Vec<(snodo_status, CString, CString)>> = LazyLock::new(|| {
    ALL_STATUSES
        .iter()
        .map(|&s| {
            let (name, message) = match s.source() {
                Source::Core(code) => (code.name(), code.description()),
                Source::Binding(name, text) => (name, text),
            };
            // Names and messages are fixed ASCII text without NUL bytes; a NUL would only shorten the text,
            // never fail.
            let c = |t: &str| CString::new(t.replace('\0', "")).unwrap_or_default();
            (s, c(name), c(message))
        })
        .collect()
});

impl snodo_status {
    /// The status of a core error code (same number and name).
    pub fn from_code(code: ErrorCode) -> snodo_status {
        // ErrorCode is non_exhaustive: a code the table does not list yet degrades to ARGUMENT (the test pins
        // that none is missing).
        ALL_STATUSES
            .iter()
            .copied()
            .find(|s| matches!(s.source(), Source::Core(c) if c == code))
            .unwrap_or(snodo_status::Argument)
    }

    fn from_int(n: c_int) -> Option<snodo_status> {
        ALL_STATUSES.iter().copied().find(|s| *s as c_int == n)
    }

    fn texts(self) -> Option<&'static (snodo_status, CString, CString)> {
        TEXTS.iter().find(|t| t.0 == self)
    }

    /// The stable name, e.g. `CONFIG` (the C constant without `SNODO_STATUS_`).
    pub fn name(self) -> &'static CStr {
        self.texts().map_or(c"UNKNOWN", |t| t.1.as_c_str())
    }

    /// The static message (for core codes, the core's description).
    pub fn message(self) -> &'static CStr {
        self.texts().map_or(c"unknown status", |t| t.2.as_c_str())
    }
}

/// A failure on its way to the C caller: a status, a detail message, and for a token that failed to open, the
/// core's reason.
#[derive(Debug)]
pub(crate) struct Fail {
    pub status: snodo_status,
    pub detail: String,
    pub reason: Option<TokenReason>,
}

impl Fail {
    pub(crate) fn new(status: snodo_status, detail: impl Into<String>) -> Fail {
        Fail { status, detail: detail.into(), reason: None }
    }

    /// A kind of a `#[non_exhaustive]` core enum (`Answer`) this libsnodo has no C value for (the core added
    /// one first): PANIC, a snodo bug, never a guess that could make a handler act on the wrong answer.
    pub(crate) fn unknown_kind(what: &str) -> Fail {
        Fail::new(
            snodo_status::Panic,
            format!("internal: the core returned a kind of {what} this libsnodo does not know (a snodo bug)"),
        )
    }

    pub(crate) fn null(what: &str) -> Fail {
        Fail::new(snodo_status::NullArgument, format!("{what}: NULL"))
    }

    /// TOKEN with the core's one message, keeping the reason for `snodo_last_token_reason`.
    pub(crate) fn from_token(e: TokenError) -> Fail {
        Fail { reason: Some(e.reason), ..Fail::from(Error::from(e)) }
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
    let _ = LAST_ERROR.try_with(|slot| slot.try_borrow_mut().map(|mut slot| *slot = fail));
}

/// What `f` reads of this thread's last failure, if any.
fn last<T>(f: impl FnOnce(&Fail) -> Option<T>) -> Option<T> {
    LAST_ERROR.try_with(|slot| slot.try_borrow().ok()?.as_ref().and_then(f)).ok().flatten()
}

pub(crate) fn last_error_detail() -> String {
    last(|f| Some(format!("{}: {}", f.status.name().to_string_lossy(), f.detail))).unwrap_or_default()
}

/// The static message of `status` (an `int`, so that any value is safe to pass: unknown values give `"unknown
/// status"`). Never NULL, never free it. Does not touch the last error.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_status_message(status: c_int) -> *const c_char {
    snodo_status::from_int(status).map_or(c"unknown status", snodo_status::message).as_ptr()
}

/// The stable name of `status` without the `SNODO_STATUS_` prefix, e.g. `"CONFIG"`; `"UNKNOWN"` for values
/// that are not statuses. Static, as `snodo_status_message`.
#[unsafe(no_mangle)]
pub extern "C" fn snodo_status_name(status: c_int) -> *const c_char {
    snodo_status::from_int(status).map_or(c"UNKNOWN", snodo_status::name).as_ptr()
}

/// Copies the detail of the last failure on this thread into `*out`, as `"NAME: detail"` (e.g. `"SCHEMA:
/// properties.age: unknown keyword ..."`), or `""` when the last snodo call on this thread succeeded. Every
/// fallible function clears it on entry and sets it when it fails: read it on the same thread right after the
/// failing call (reading does not clear it). Each thread has its own last error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_last_error(out: *mut *mut c_char, out_len: *mut usize) -> snodo_status {
    crate::ffi::guard_keep_error(|| {
        unsafe { crate::ffi::OutStr::new(out, out_len) }?.write(last_error_detail().as_bytes())
    })
}

/// Copies the reason of the last failure on this thread into `*out` when it was a token that failed to open
/// (TOKEN from `snodo_engine_open`): the core's stable reason name, e.g. `"expired"` or `"signature"` (the
/// same names as Python's `.reason` and Node's `err.reason`); `""` otherwise. Read as `snodo_last_error`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_last_token_reason(out: *mut *mut c_char, out_len: *mut usize) -> snodo_status {
    crate::ffi::guard_keep_error(|| {
        let reason = last(|f| f.reason.map(TokenReason::name)).unwrap_or("");
        unsafe { crate::ffi::OutStr::new(out, out_len) }?.write(reason.as_bytes())
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_the_core_codes() {
        // The table's core entries are exactly ErrorCode::ALL, in order,
        // with the same numbers, names and descriptions.
        let core: Vec<ErrorCode> = ALL_STATUSES
            .iter()
            .filter_map(|s| match s.source() {
                Source::Core(c) => Some(c),
                Source::Binding(..) => None,
            })
            .collect();
        assert_eq!(core, ErrorCode::ALL.to_vec());
        for code in ErrorCode::ALL {
            let s = snodo_status::from_code(code);
            assert_eq!(s as u32, code.number());
            assert_eq!(s.name().to_str().unwrap(), code.name());
            assert_eq!(s.message().to_str().unwrap(), code.description());
        }
        // Binding-only statuses stay out of the core's range, numbers are
        // unique, and the table is in number order.
        for s in ALL_STATUSES {
            let n = s as u32;
            match s.source() {
                Source::Core(_) => assert!((1..100).contains(&n), "{s:?}"),
                Source::Binding(..) => assert!(n == 0 || n >= 100, "{s:?}"),
            }
        }
        assert!(ALL_STATUSES.windows(2).all(|w| (w[0] as u32) < (w[1] as u32)));
        assert_eq!(snodo_status::NotARequest.name(), c"NOT_A_REQUEST");
        assert_eq!(snodo_status::InvalidUtf8.name(), c"INVALID_UTF8");
    }

    #[test]
    fn header_constants_are_the_names() {
        // cbindgen names the C constants SNODO_STATUS_<NAME>; the committed
        // header must hold exactly one per status, with the table's number.
        let header = include_str!("../../include/snodo.h");
        for s in ALL_STATUSES {
            let line = format!("SNODO_STATUS_{} = {},", s.name().to_str().unwrap(), s as u32);
            assert!(header.contains(&line), "{line}");
        }
        assert_eq!(header.matches("  SNODO_STATUS_").count(), ALL_STATUSES.len());
    }

    #[test]
    fn unknown_status_values_are_safe() {
        for n in [-1, 13, 99, 103, c_int::MAX, c_int::MIN] {
            // SAFETY: the functions return static NUL-terminated strings.
            let m = unsafe { CStr::from_ptr(snodo_status_message(n)) };
            assert_eq!(m.to_str().unwrap(), "unknown status");
            let name = unsafe { CStr::from_ptr(snodo_status_name(n)) };
            assert_eq!(name.to_str().unwrap(), "UNKNOWN");
        }
    }
}
