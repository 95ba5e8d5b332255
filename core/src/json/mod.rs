//! Strict JSON parsing and the canonical form.
//!
//! snodo reads attacker-controlled JSON, so parsing is stricter than
//! `serde_json::from_slice`:
//!
//! * a size bound is checked before a single byte is parsed;
//! * nesting deeper than [`MAX_DEPTH`] is rejected (no stack overflow, and a
//!   bounded cost when the value is later dropped or canonicalised);
//! * a duplicate key in any object, at any depth, is an error: two readers of
//!   the same bytes must never see two different values;
//! * numbers are kept as their exact lexical text (serde_json's
//!   `arbitrary_precision`), so `1` and `1.0` stay distinct and
//!   `12345678901234567890` stays exact;
//! * invalid UTF-8 and lone surrogate escapes are rejected by serde_json.
//!
//! The canonical form (see `docs/canonical-json.md`) is what the request
//! binding and the question digests hash.

mod canonical;
mod envelope;
mod state_text;
mod stream;
mod strict;
#[cfg(test)]
mod tests;
mod wire;

use serde_json::{Number, Value};
use sha2::{Digest, Sha256};

pub use canonical::{HashSink, Sink, canonical, write_canonical, write_string};
pub(crate) use canonical::{map_iterates_sorted, write_canonical_within};
// Only the tests use it; production skips keys through `write_map_except`.
pub use canonical::write_map_spliced;
#[cfg(test)]
pub use canonical::write_object_except;
#[cfg(test)]
pub(crate) use envelope::META_KNOWN;
pub(crate) use envelope::{
    Envelope, Params, RawAnswers, StateArg, answers_tree, interned, plain_ascii_len, plain_len,
    plain_value_len, read_envelope, value_tree,
};
pub use state_text::StateText;
pub use stream::canonical_text;
pub use strict::{JsonError, MAX_DEPTH, deeper_than, parse, parse_request, parse_str};

/// The one size cap on JSON text handed to snodo as an argument (outcomes,
/// schemas, params, `canonicalize`, ...), in every language: 64 MiB.
/// Requests given to `begin` have their own configurable cap
/// (`max_request_bytes`).
pub const MAX_ARGUMENT_BYTES: usize = 64 << 20;

/// Parses a JSON argument strictly (UTF-8, duplicate keys, depth, at most
/// [`MAX_ARGUMENT_BYTES`]). Errors are `JSON`, with the message
/// `"{what}: {why}"`.
pub fn parse_json(bytes: &[u8], what: &str) -> crate::Result<Value> {
    // Issue 16, thirteenth pass: plain text (no escapes, no exponents, no
    // repeated keys: most outcomes, questions and params a binding hands
    // over) by the hand reader, a third less time than the serde walk for
    // a small outcome or question, tree and its drop included (487 against
    // 735 ns); anything it gives up on, and every error, by the strict
    // parser.
    if bytes.len() <= MAX_ARGUMENT_BYTES
        && let Some(value) = value_tree(bytes)
    {
        return Ok(value);
    }
    parse(bytes, MAX_ARGUMENT_BYTES)
        .map_err(|e| crate::Error::new(crate::ErrorCode::Json, format!("{what}: {e}")))
}

/// Parses JSON text strictly (strict UTF-8, duplicate keys and depth
/// refused, at most [`MAX_ARGUMENT_BYTES`]) and returns its canonical form
/// (docs/canonical-json.md). Every binding's `canonicalize` is this.
pub fn canonicalize(text: impl AsRef<[u8]>) -> crate::Result<String> {
    // Streamed (issue 16): no tree; the same bytes and errors as
    // `canonical(parse_json(text))`, held to it by property tests.
    let bytes = canonical_text(text.as_ref(), MAX_ARGUMENT_BYTES)
        .map_err(|e| crate::Error::new(crate::ErrorCode::Json, format!("text: {e}")))?;
    String::from_utf8(bytes)
        .map_err(|_| crate::Error::new(crate::ErrorCode::Json, "text: canonical form is not UTF-8"))
}

/// Appends the JSON string `s`, in its canonical form, to `out`: `"`,
/// then `s` with `"` and `\` backslash-escaped, U+0008, U+000C, U+000A,
/// U+000D and U+0009 as `\b \f \n \r \t`, every other character below
/// U+0020 as `\u00xx` (lowercase hex), and everything else as its raw
/// UTF-8, then `"` (docs/canonical-json.md). This is the escaping every
/// token, binding digest and [`canonicalize`] uses (the same writer, not
/// a copy of it), for a binding that writes canonical text from its host's
/// own values.
#[inline]
pub fn write_canonical_string(out: &mut Vec<u8>, s: &str) {
    // Inlined so a binding gets the writer's short-string path in place
    // (the call is per string of a state).
    write_string(s, out);
}

/// SHA-256 of the canonical form of `value`.
pub fn digest(value: &Value) -> [u8; 32] {
    let mut h = HashSink::new(Sha256::new());
    write_canonical(value, &mut h);
    h.finish().finalize().into()
}

/// Serialises any value compactly (not canonically) for the wire.
pub fn to_wire(value: &Value) -> String {
    // serde's compact text, written without serde (issue 16, seventh pass).
    wire::wire(value)
}

/// The numeric value of a number, if finite as an f64.
pub fn number_f64(n: &Number) -> Option<f64> {
    n.as_f64().filter(|f| f.is_finite())
}

/// Whether a number is mathematically an integer (`30` and `30.0` are, `30.5`
/// is not). JSON Schema's `integer` is about the value, not the spelling.
pub fn number_is_integer(n: &Number) -> bool {
    if n.is_i64() || n.is_u64() {
        return true;
    }
    number_f64(n).is_some_and(|f| f.fract() == 0.0)
}
