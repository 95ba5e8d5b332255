//! Strict JSON reading and the canonical form.
//!
//! snodo reads attacker-controlled JSON, so reading is stricter than
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
//! One reader (`strict.rs`) does all of that, for request messages, token
//! payloads' states, answers and every JSON argument; one writer
//! (`canonical.rs`) writes the canonical form (docs/canonical-json.md) that
//! the request binding, the question digests and the token payload are
//! made of. Wire output is serde_json's.

mod canonical;
mod strict;
#[cfg(test)]
mod tests;

use serde_json::{Number, Value};

pub use canonical::{canonical, write_canonical, write_members, write_string};
pub use strict::{JsonError, MAX_DEPTH, deeper_than, parse};

/// The one size cap on JSON text handed to snodo as an argument (outcomes,
/// schemas, params, `canonicalize`, ...), in every language: 64 MiB.
/// Requests given to `begin` have their own configurable cap
/// (`max_request_bytes`).
pub const MAX_ARGUMENT_BYTES: usize = 64 << 20;

/// Parses a JSON argument strictly (UTF-8, duplicate keys, depth, at most
/// [`MAX_ARGUMENT_BYTES`]). Errors are `JSON`, with the message
/// `"{what}: {why}"`.
pub fn parse_json(bytes: &[u8], what: &str) -> crate::Result<Value> {
    parse(bytes, MAX_ARGUMENT_BYTES)
        .map_err(|e| crate::Error::new(crate::ErrorCode::Json, format!("{what}: {e}")))
}

/// Parses JSON text strictly (strict UTF-8, duplicate keys and depth
/// refused, at most [`MAX_ARGUMENT_BYTES`]) and returns its canonical form
/// (docs/canonical-json.md). Every binding's `canonicalize` is this.
pub fn canonicalize(text: impl AsRef<[u8]>) -> crate::Result<String> {
    let value = parse_json(text.as_ref(), "text")?;
    // A parsed value is within the depth bound, and canonical text is
    // UTF-8 (strings are written as they are, escapes are ASCII).
    let bytes = canonical(&value).unwrap_or_default();
    String::from_utf8(bytes)
        .map_err(|_| crate::Error::new(crate::ErrorCode::Json, "text: canonical form is not UTF-8"))
}

/// Serialises any value compactly (not canonically) for the wire:
/// serde_json's text.
pub fn to_wire(value: &Value) -> String {
    // A `Value` always serialises (its map keys are strings).
    serde_json::to_string(value).unwrap_or_default()
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
