//! The one error type of the public API.
//!
//! Errors are for *misuse*: a bad engine configuration, an invalid builder
//! argument, state too large to seal. Protocol outcomes that a server sends to
//! its client (`-32602`, `-32021`, ...) are never errors: they are
//! [`Response`](crate::Response) values.
//!
//! Every code has a stable number and a stable `SCREAMING_SNAKE` name that the
//! C, Python and Node bindings mirror. Numbers are never reused; a retired code
//! keeps its number forever.

use std::fmt;

/// Stable error codes. The numbers are part of the ABI of every binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
#[non_exhaustive]
pub enum ErrorCode {
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
    /// A JSON argument handed to snodo by the application is not valid JSON.
    Json = 6,
    /// The state to seal would exceed the configured token size.
    StateTooLarge = 7,
    /// A continuation token failed to open (low-level `open` only).
    Token = 8,
    /// The message given to `begin` is not a JSON-RPC request.
    NotARequest = 9,
    /// Any other invalid argument (empty principal, bad outcome shape, ...).
    Argument = 10,
    /// `decide` was called a second time for the same call: one request gets
    /// exactly one response (and at most one continuation token).
    AlreadyDecided = 11,
    /// The once store failed (unreachable, timed out, full, an evicting
    /// Redis, replicas that did not confirm), or the flow's effect is still
    /// running elsewhere past the wait. The effect did not run here (fail
    /// closed), except where the message says its claim was taken over.
    Store = 12,
}

impl ErrorCode {
    /// Every code, in number order. Bindings test that their lists equal this.
    pub const ALL: [ErrorCode; 12] = [
        ErrorCode::Config,
        ErrorCode::Schema,
        ErrorCode::Url,
        ErrorCode::Sampling,
        ErrorCode::InputRequest,
        ErrorCode::Json,
        ErrorCode::StateTooLarge,
        ErrorCode::Token,
        ErrorCode::NotARequest,
        ErrorCode::Argument,
        ErrorCode::AlreadyDecided,
        ErrorCode::Store,
    ];

    /// The stable number of this code.
    pub fn number(self) -> u32 {
        self as u32
    }

    /// The stable name of this code, e.g. `"SCHEMA"`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::Config => "CONFIG",
            ErrorCode::Schema => "SCHEMA",
            ErrorCode::Url => "URL",
            ErrorCode::Sampling => "SAMPLING",
            ErrorCode::InputRequest => "INPUT_REQUEST",
            ErrorCode::Json => "JSON",
            ErrorCode::StateTooLarge => "STATE_TOO_LARGE",
            ErrorCode::Token => "TOKEN",
            ErrorCode::NotARequest => "NOT_A_REQUEST",
            ErrorCode::Argument => "ARGUMENT",
            ErrorCode::AlreadyDecided => "ALREADY_DECIDED",
            ErrorCode::Store => "STORE",
        }
    }

    /// A short static description of the code.
    pub fn description(self) -> &'static str {
        match self {
            ErrorCode::Config => "invalid engine configuration",
            ErrorCode::Schema => "invalid form elicitation schema",
            ErrorCode::Url => "invalid elicitation URL",
            ErrorCode::Sampling => "invalid sampling request",
            ErrorCode::InputRequest => "invalid input request",
            ErrorCode::Json => "invalid JSON argument",
            ErrorCode::StateTooLarge => "state too large to seal",
            ErrorCode::Token => "continuation token rejected",
            ErrorCode::NotARequest => "message is not a JSON-RPC request",
            ErrorCode::Argument => "invalid argument",
            ErrorCode::AlreadyDecided => "the call was already decided",
            ErrorCode::Store => "the once store failed",
        }
    }

    /// The code with this number, if any.
    pub fn from_number(n: u32) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|c| c.number() == n)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A misuse error: a stable code plus a message naming the offending field.
///
/// Messages never contain key bytes, and never contain token contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    message: String,
}

impl Error {
    /// A new error with `code` and a message naming what is wrong.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error { code, message: message.into() }
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The human-readable detail (names the offending path or field).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.message)
    }
}

impl std::error::Error for Error {}

/// Shorthand for results of the public API.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            assert!(seen.insert(c.number()));
            assert_eq!(ErrorCode::from_number(c.number()), Some(c));
            assert!(c.name().chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'));
        }
        assert_eq!(ErrorCode::from_number(0), None);
        assert_eq!(ErrorCode::from_number(13), None);
    }

    #[test]
    fn display_has_code_and_message() {
        let e = Error::new(ErrorCode::Schema, "properties.age: unknown keyword `pattern`");
        assert_eq!(e.to_string(), "SCHEMA: properties.age: unknown keyword `pattern`");
    }
}
