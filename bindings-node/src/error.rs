//! Errors as JavaScript sees them: every thrown error carries `err.code`, one of the core's stable
//! [`snodo::ErrorCode`] names, never only a message.

use napi::bindgen_prelude::*;
use snodo::ErrorCode;

/// The napi-rs error status: napi-rs writes `status.as_ref()` into the thrown error's `code`
/// property (`napi_create_error(env, code, msg)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code(pub &'static str);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.0
    }
}

/// Result of every export.
pub type Result<T> = napi::Result<T, Code>;

/// A misuse error with a core code.
pub fn error(code: ErrorCode, message: impl ToString) -> Error<Code> {
    Error::new(Code(code.name()), message)
}

/// An `ARGUMENT` error.
pub fn argument(message: impl ToString) -> Error<Code> {
    error(ErrorCode::Argument, message)
}

/// A `CONFIG` error.
pub fn config(message: impl ToString) -> Error<Code> {
    error(ErrorCode::Config, message)
}

/// A core error, code and message kept.
pub fn core(e: snodo::Error) -> Error<Code> {
    error(e.code(), e.message())
}

/// `.coded()` on a napi-rs result: a failure inside napi-rs itself (a JS engine call that failed;
/// rare) still gets a code from the enum, `ARGUMENT`, rather than napi's own status names.
pub trait Coded<T> {
    /// The value, or the failure as an `ARGUMENT` error.
    fn coded(self) -> Result<T>;
}

impl<T> Coded<T> for napi::Result<T> {
    fn coded(self) -> Result<T> {
        self.map_err(|e| argument(e.reason))
    }
}

/// The error codes, as a TypeScript string enum (each the variant's name in `UPPER_SNAKE`). The
/// list must equal the core's [`ErrorCode::ALL`]: a Rust test and a Node test check it.
#[napi(string_enum = "UPPER_SNAKE")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnodoErrorCode {
    /// Invalid engine configuration (keys, limits, versions).
    Config,
    /// A form-elicitation schema outside the spec's flat subset.
    Schema,
    /// An unacceptable URL-elicitation URL.
    Url,
    /// A malformed (deprecated) sampling request.
    Sampling,
    /// An invalid input request object or key.
    InputRequest,
    /// A JSON argument that is not valid JSON.
    Json,
    /// State too large to seal within the token size limit.
    StateTooLarge,
    /// A continuation token that failed to open (low-level `open` only).
    Token,
    /// The message given to `begin` is not a request (notification, response).
    NotARequest,
    /// Any other invalid argument.
    Argument,
    /// `decide` called a second time for the same call.
    AlreadyDecided,
    /// The once store failed, or the flow's effect is still running elsewhere; the effect did not
    /// run here.
    Store,
}

/// One entry of [`ERROR_CODES`].
#[napi(object, object_from_js = false)]
#[derive(Debug, Clone, Copy)]
pub struct ErrorCodeInfo {
    /// The stable name, e.g. `SCHEMA`.
    pub name: &'static str,
    /// The stable number (the C status value).
    pub number: u32,
    /// A short description.
    pub description: &'static str,
}

// napi-rs exports only constant expressions and the core's names are not `const fn`: a test below
// proves these two lists equal to `ErrorCode::ALL` and `TokenReason::ALL`, entry by entry.

/// The core's error codes, in number order (`err.code` is one `name`).
#[napi]
pub const ERROR_CODES: [ErrorCodeInfo; 12] = [
    ErrorCodeInfo { name: "CONFIG", number: 1, description: "invalid engine configuration" },
    ErrorCodeInfo { name: "SCHEMA", number: 2, description: "invalid form elicitation schema" },
    ErrorCodeInfo { name: "URL", number: 3, description: "invalid elicitation URL" },
    ErrorCodeInfo { name: "SAMPLING", number: 4, description: "invalid sampling request" },
    ErrorCodeInfo { name: "INPUT_REQUEST", number: 5, description: "invalid input request" },
    ErrorCodeInfo { name: "JSON", number: 6, description: "invalid JSON argument" },
    ErrorCodeInfo { name: "STATE_TOO_LARGE", number: 7, description: "state too large to seal" },
    ErrorCodeInfo { name: "TOKEN", number: 8, description: "continuation token rejected" },
    ErrorCodeInfo { name: "NOT_A_REQUEST", number: 9, description: "message is not a JSON-RPC request" },
    ErrorCodeInfo { name: "ARGUMENT", number: 10, description: "invalid argument" },
    ErrorCodeInfo { name: "ALREADY_DECIDED", number: 11, description: "the call was already decided" },
    ErrorCodeInfo { name: "STORE", number: 12, description: "the once store failed" },
];

/// The reasons a continuation token can be refused (`data.reason` on the wire, `err.reason` from
/// `engine.open`).
#[napi]
pub const TOKEN_REASONS: [&str; 11] = [
    "malformed",
    "version",
    "key",
    "signature",
    "expired",
    "not_yet_valid",
    "principal",
    "request",
    "rounds",
    "flow_age",
    "size",
];

/// Throws a `TOKEN` error with `err.reason` (a name only, nothing of the token), and returns the
/// marker telling napi-rs an exception is pending (it then throws nothing more).
pub fn with_reason(env: &Env, message: String, reason: &str) -> Error<Code> {
    let build = || -> napi::Result<()> {
        let mut err = env.create_error(Error::new(Status::GenericFailure, message.clone()))?;
        err.set_named_property("code", ErrorCode::Token.name())?;
        err.set_named_property("reason", reason)?;
        env.throw(err)
    };
    match build() {
        Ok(()) => Error::new(Code("PendingException"), ""),
        Err(_) => error(ErrorCode::Token, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JS spelling of each variant: its name in `UPPER_SNAKE`.
    fn js_name(v: SnodoErrorCode) -> &'static str {
        use SnodoErrorCode::*;
        match v {
            Config => "CONFIG",
            Schema => "SCHEMA",
            Url => "URL",
            Sampling => "SAMPLING",
            InputRequest => "INPUT_REQUEST",
            Json => "JSON",
            StateTooLarge => "STATE_TOO_LARGE",
            Token => "TOKEN",
            NotARequest => "NOT_A_REQUEST",
            Argument => "ARGUMENT",
            AlreadyDecided => "ALREADY_DECIDED",
            Store => "STORE",
        }
    }

    fn variant(name: &str) -> Option<SnodoErrorCode> {
        use SnodoErrorCode::*;
        [
            Config,
            Schema,
            Url,
            Sampling,
            InputRequest,
            Json,
            StateTooLarge,
            Token,
            NotARequest,
            Argument,
            AlreadyDecided,
            Store,
        ]
        .into_iter()
        .find(|v| js_name(*v) == name)
    }

    #[test]
    fn constant_lists_match_core() {
        assert_eq!(ERROR_CODES.len(), ErrorCode::ALL.len());
        for (info, c) in ERROR_CODES.iter().zip(ErrorCode::ALL) {
            assert_eq!((info.name, info.number, info.description), (c.name(), c.number(), c.description()));
        }
        let reasons: Vec<&str> = snodo::TokenReason::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(TOKEN_REASONS.to_vec(), reasons);
    }

    #[test]
    fn string_enum_matches_core_enum() {
        for c in ErrorCode::ALL {
            assert!(variant(c.name()).is_some(), "SnodoErrorCode lacks {}", c.name());
        }
        assert_eq!(ErrorCode::ALL.len(), 12, "update SnodoErrorCode when the core enum grows");
    }
}
