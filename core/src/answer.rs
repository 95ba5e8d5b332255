//! What a handler learns about one input request: [`Answer`].

use serde_json::Value;

/// The client's answer to one input request, as read by
/// [`Call::response`](crate::Call::response).
///
/// `#[non_exhaustive]`: a new kind of answer (as `Changed` once was)
/// is not a breaking change. A handler's catch-all arm asks again, which is
/// right for any answer it does not know. ([`Begin`](crate::Begin),
/// [`Bridge`](crate::Bridge) and [`Feed`](crate::Feed) stay exhaustive: each
/// variant there is an action the server must take.)
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// No usable answer: the key was not asked in the previous round, was
    /// asked with a different request, or the client sent nothing for it.
    /// The handler simply asks again.
    Missing,
    /// The user accepted. The value depends on the request kind:
    /// * form elicitation: the content object, validated against the schema,
    ///   with properties the schema does not name removed;
    /// * URL elicitation: `null`. Accept means *consent*, not completion: the
    ///   application checks out-of-band completion itself;
    /// * sampling (deprecated): the validated `CreateMessageResult` object;
    /// * roots (deprecated): the validated array of `Root` objects.
    Accepted(Value),
    /// The user declined (elicitation only). Any `content` is ignored.
    Declined,
    /// The user cancelled (elicitation only). Any `content` is ignored.
    Cancelled,
    /// An answer was sent but is not valid for the question asked; carries
    /// a reason naming the offending field.
    Invalid(String),
    /// An answer was sent under this key, but the previous round asked a
    /// *different* question under it (its text or schema changed since the
    /// token was sealed). The answer is not read; the handler can tell this
    /// apart from "no answer", e.g. to log a non-deterministic
    /// question, and asks again.
    Changed,
}

impl Answer {
    /// The answer's kind as a stable lowercase word, as the bindings spell it:
    /// `missing`, `accepted`, `declined`, `cancelled`, `invalid` or `changed`.
    pub fn kind(&self) -> &'static str {
        match self {
            Answer::Missing => "missing",
            Answer::Accepted(_) => "accepted",
            Answer::Declined => "declined",
            Answer::Cancelled => "cancelled",
            Answer::Invalid(_) => "invalid",
            Answer::Changed => "changed",
        }
    }
}
