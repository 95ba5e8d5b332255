//! Why a token was refused ([`TokenReason`]), never echoing the token.

use std::fmt;

use crate::error::{Error, ErrorCode, Result};

/// Why a token was refused. On the wire every reason is the same `-32602`
/// `Invalid or expired requestState`, with `data.reason` set to [`TokenReason::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TokenReason {
    /// Not a token of this format (shape, base64, payload).
    Malformed,
    /// A format version this build does not know.
    Version,
    /// A key id not in the ring.
    Key,
    /// The MAC does not match: tampered, or sealed with another key.
    Signature,
    /// Presented at or after its expiry.
    Expired,
    /// Issued further in the future than the allowed clock skew.
    NotYetValid,
    /// Presented by another principal.
    Principal,
    /// Presented on another method, tool, resource, prompt or arguments.
    Request,
    /// The flow has used up its rounds.
    Rounds,
    /// The flow started longer ago than the maximum flow age.
    FlowAge,
    /// Longer than the configured maximum token size.
    Size,
}

impl TokenReason {
    /// Every reason, for bindings and documentation.
    pub const ALL: [TokenReason; 11] = [
        TokenReason::Malformed,
        TokenReason::Version,
        TokenReason::Key,
        TokenReason::Signature,
        TokenReason::Expired,
        TokenReason::NotYetValid,
        TokenReason::Principal,
        TokenReason::Request,
        TokenReason::Rounds,
        TokenReason::FlowAge,
        TokenReason::Size,
    ];

    /// The stable name used as `data.reason`.
    pub fn name(self) -> &'static str {
        match self {
            TokenReason::Malformed => "malformed",
            TokenReason::Version => "version",
            TokenReason::Key => "key",
            TokenReason::Signature => "signature",
            TokenReason::Expired => "expired",
            TokenReason::NotYetValid => "not_yet_valid",
            TokenReason::Principal => "principal",
            TokenReason::Request => "request",
            TokenReason::Rounds => "rounds",
            TokenReason::FlowAge => "flow_age",
            TokenReason::Size => "size",
        }
    }
}

/// A token that failed to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenError {
    /// Why.
    pub reason: TokenReason,
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Invalid or expired requestState ({})", self.reason.name())
    }
}

impl std::error::Error for TokenError {}

impl From<TokenError> for Error {
    fn from(e: TokenError) -> Error {
        // One message in every language: the Display text, which names the
        // reason (bindings expose the reason name separately as well).
        Error::new(ErrorCode::Token, e.to_string())
    }
}

pub(crate) fn fail<T>(reason: TokenReason) -> Result<T, TokenError> {
    Err(TokenError { reason })
}
