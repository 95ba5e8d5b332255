//! `snodo_answer_kind`: the core's `Answer` as a C enum plus a JSON value.

use serde_json::Value;
use snodo::Answer;

use crate::error::Fail;

/// The kind of a client's answer to one input request.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum snodo_answer_kind {
    /// No usable answer (not asked last round, asked differently, or not
    /// sent): ask again. Value: `null`.
    Missing = 0,
    /// Accepted. Value: the validated content (form), `null` (URL mode:
    /// consent, not completion), the `CreateMessageResult` (sampling) or the
    /// roots array (roots).
    Accepted = 1,
    /// Declined (elicitation only). Value: `null`.
    Declined = 2,
    /// Cancelled (elicitation only). Value: `null`.
    Cancelled = 3,
    /// An answer was sent but is invalid for the question. Value: the reason,
    /// a JSON string naming the offending field.
    Invalid = 4,
    /// An answer was sent, but the question changed since it was asked
    /// (issue 13): ask the new question. Value: `null`.
    Changed = 5,
}

impl snodo_answer_kind {
    /// The kind and the value `snodo_call_response` writes for `answer`.
    pub(crate) fn split(answer: Answer) -> Result<(snodo_answer_kind, Value), Fail> {
        Ok(match answer {
            Answer::Missing => (snodo_answer_kind::Missing, Value::Null),
            Answer::Accepted(v) => (snodo_answer_kind::Accepted, v),
            Answer::Declined => (snodo_answer_kind::Declined, Value::Null),
            Answer::Cancelled => (snodo_answer_kind::Cancelled, Value::Null),
            Answer::Invalid(why) => (snodo_answer_kind::Invalid, Value::String(why)),
            Answer::Changed => (snodo_answer_kind::Changed, Value::Null),
            // Answer is non_exhaustive: see Fail::unknown_kind.
            _ => return Err(Fail::unknown_kind("Answer")),
        })
    }
}
