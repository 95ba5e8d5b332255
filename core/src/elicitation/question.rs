//! [`Question`]: an input request as an immutable value.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorCode};
use crate::json;

use super::{RequestKind, validate_input_request};

/// An input request (the `{method, params}` object a server asks under a
/// key of `inputRequests`), validated once, with its canonical JSON text
/// and the digest a token pins computed once, when it is made.
///
/// The builders ([`elicit_form`](crate::elicit_form),
/// [`elicit_url`](crate::elicit_url), ...) return one;
/// [`Question::from_value`] makes one from a request written by hand. A
/// handler builds its questions once (at start-up, or once per request)
/// and passes the same value every round: to
/// [`Outcome::InputRequired`](crate::Outcome::InputRequired) to ask it and
/// to [`Call::response`](crate::Call::response) to read its answer.
///
/// Immutable; a clone shares the same value (a reference count), so it is
/// cheap to keep in a handler and to pass by value. `Send + Sync`. Two
/// questions are equal when their canonical forms are (the same request,
/// whatever the order of its members).
#[derive(Clone)]
pub struct Question(Arc<Inner>);

struct Inner {
    value: Value,
    kind: RequestKind,
    canonical: String,
    digest: [u8; 32],
}

impl Question {
    /// Validates a request written by hand (or read from JSON) with the
    /// checks the builders apply ([`validate_input_request`]'s errors:
    /// `INPUT_REQUEST`, `SCHEMA`, `URL` or `SAMPLING`), and refuses one
    /// nested deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) levels
    /// (`ARGUMENT`), which no token could pin.
    pub fn from_value(value: Value) -> crate::Result<Question> {
        let kind = Question::check(&value)?;
        Ok(Question::within(value, kind))
    }

    /// [`Question::from_value`] of JSON text, read strictly (`JSON`, with
    /// the message `"question: {why}"`, for text the strict reader refuses:
    /// bad syntax or UTF-8, a repeated key, too deep, over
    /// [`MAX_ARGUMENT_BYTES`](crate::MAX_ARGUMENT_BYTES)).
    pub fn from_json(text: impl AsRef<[u8]>) -> crate::Result<Question> {
        Question::from_value(json::parse_json(text.as_ref(), "question")?)
    }

    /// The checks of [`Question::from_value`]: the request's kind, or why
    /// it is refused.
    pub(crate) fn check(value: &Value) -> crate::Result<RequestKind> {
        let kind = validate_input_request(value)?;
        Question::bounded(value)?;
        Ok(kind)
    }

    /// A question of a known kind (the builders': their inputs are
    /// validated), refused past the depth bound.
    pub(crate) fn new(value: Value, kind: RequestKind) -> crate::Result<Question> {
        Question::bounded(&value)?;
        Ok(Question::within(value, kind))
    }

    fn bounded(value: &Value) -> crate::Result<()> {
        if json::deeper_than(value, json::MAX_DEPTH) {
            return Err(Error::new(
                ErrorCode::Argument,
                format!("a question may nest at most {} levels", json::MAX_DEPTH),
            ));
        }
        Ok(())
    }

    /// A question of a known kind whose value nests at most
    /// [`MAX_DEPTH`](crate::MAX_DEPTH) levels.
    pub(crate) fn within(value: Value, kind: RequestKind) -> Question {
        let mut bytes = Vec::new();
        json::write_canonical(&value, &mut bytes, json::MAX_DEPTH);
        let digest = Sha256::digest(&bytes).into();
        // Canonical text is UTF-8 (strings are written as they are, all
        // the writer adds is ASCII): the fallback is never taken.
        let canonical = String::from_utf8(bytes).unwrap_or_default();
        Question(Arc::new(Inner { value, kind, canonical, digest }))
    }

    /// The request as a JSON tree.
    pub fn value(&self) -> &Value {
        &self.0.value
    }

    /// Its kind: form or URL elicitation, sampling or roots.
    pub fn kind(&self) -> RequestKind {
        self.0.kind
    }

    /// Its canonical JSON text (docs/canonical-json.md), which is also
    /// compact JSON for the wire.
    pub fn to_json(&self) -> &str {
        &self.0.canonical
    }

    /// SHA-256 of its canonical form: what a token pins for it.
    pub fn digest(&self) -> &[u8; 32] {
        &self.0.digest
    }
}

impl PartialEq for Question {
    fn eq(&self, other: &Question) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.canonical == other.0.canonical
    }
}

impl Eq for Question {}

impl std::hash::Hash for Question {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.digest.hash(state);
    }
}

impl fmt::Debug for Question {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Question").field(&self.0.value).finish()
    }
}

/// As its value: a question serialises as the request object it is.
impl serde::Serialize for Question {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.value.serialize(serializer)
    }
}

impl TryFrom<Value> for Question {
    type Error = Error;
    /// [`Question::from_value`].
    fn try_from(value: Value) -> crate::Result<Question> {
        Question::from_value(value)
    }
}

impl From<Question> for Value {
    fn from(q: Question) -> Value {
        Arc::try_unwrap(q.0).map_or_else(|shared| shared.value.clone(), |inner| inner.value)
    }
}
