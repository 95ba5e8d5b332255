//! Application state as canonical JSON text (issue 16).
//!
//! A binding that already holds the state as JSON text (Node's
//! `JSON.stringify`, Python's walker) would otherwise parse it into a
//! `Value` only for the core to write that tree back out canonically into
//! the token. A [`StateText`] is the state's canonical text, made once by
//! the streaming canonical writer (no tree) and sealed byte for byte.
//!
//! The only ways to make one canonicalise (strictly, with the same caps,
//! depth rule and errors as `canonicalize`), so a `StateText` is always
//! canonical JSON that parses back: the token bytes are exactly those of
//! the same state handed over as a `Value` (property tests in
//! `core/tests/state_text.rs`).

use serde_json::Value;

use super::stream::canonical_prefix;
use super::{MAX_ARGUMENT_BYTES, canonicalize, parse};

/// Application state as canonical JSON text, for `Engine::seal_text` and
/// `Outcome::InputRequiredText`. `null` means no state, as it does for a
/// `Value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateText {
    text: String,
}

impl StateText {
    /// Canonicalises JSON text (strict: UTF-8, duplicate keys, depth, at most
    /// [`MAX_ARGUMENT_BYTES`]) into a state; errors are `canonicalize`'s.
    pub fn new(text: impl AsRef<[u8]>) -> crate::Result<StateText> {
        Ok(StateText { text: canonicalize(text)? })
    }

    /// Text its maker guarantees is canonical already, taken as is: only
    /// the size cap is checked (`None` above it). For a binding's own
    /// canonical writer, held to `new`'s bytes by its property tests, so
    /// the text is not canonicalised a second time. Not API
    /// (`snodo::internal::json::trusted_state_text`).
    pub(crate) fn trusted(text: String) -> Option<StateText> {
        (text.len() <= MAX_ARGUMENT_BYTES).then_some(StateText { text })
    }

    /// Issue 16, eleventh pass: the state whose JSON text `text` starts
    /// with (at its first byte; whatever follows is left unread), read as
    /// a value nested `depth` deep, and how many bytes of `text` it spans.
    /// For a binding that finds the state as a member of a larger text:
    /// the value is canonicalised and delimited in one pass, where cutting
    /// it out first scanned it twice. `None` when the fast canonical reader
    /// gives up (escapes, exponents, deeper than `MAX_DEPTH - depth`
    /// levels, bad text): the caller then delimits the value and calls
    /// [`StateText::new`], which decides the result or the error. When it
    /// gives `Some`, the text is `new`'s of the same bytes (held to it by
    /// `core/tests/state_text.rs` and the Node binding's property tests).
    pub(crate) fn prefix(text: &[u8], depth: usize) -> Option<(StateText, usize)> {
        let (canon, len) = canonical_prefix(text, depth)?;
        if len > MAX_ARGUMENT_BYTES {
            return None;
        }
        // The reader checked every string's UTF-8; the rest is ASCII.
        Some((StateText { text: String::from_utf8(canon).ok()? }, len))
    }

    /// Canonicalises the JSON object text `text` and cuts its top-level
    /// member `key` out as a state: the canonical text of the object
    /// without that member, and the member (`None` when absent). One pass
    /// over the text; `None` if the text does not canonicalise or is not an
    /// object (the caller then reads it the reference way, which words
    /// the error).
    pub fn split_member(text: &[u8], key: &str) -> Option<(String, Option<StateText>)> {
        let canon = canonicalize(text).ok()?;
        let (rest, member) = cut_member(&canon, key)?;
        Some((rest, member.map(|m| StateText { text: m.to_owned() })))
    }

    /// The canonical text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the state is JSON `null` (no state).
    pub fn is_null(&self) -> bool {
        self.text == "null"
    }

    /// The state parsed into a tree (`None` for `null`). Canonical text
    /// always parses; the fallback keeps the no-panic rule mechanical.
    pub fn to_value(&self) -> Option<Value> {
        parse(self.text.as_bytes(), MAX_ARGUMENT_BYTES).ok().filter(|v| !v.is_null())
    }
}

/// Cuts the top-level member `key` out of canonical object text: the object
/// without it, and the member's value text. `None` if `canon` is not an
/// object.
///
/// Canonical text has no whitespace and escapes only inside strings (a
/// backslash always starts a two-character escape or `\uXXXX`, whose tail
/// has no quote), so skipping a value is bracket counting outside strings.
/// Keys are compared as written: canonical text escapes only what must be
/// escaped, so a key has one spelling.
fn cut_member<'t>(canon: &'t str, key: &str) -> Option<(String, Option<&'t str>)> {
    let b = canon.as_bytes();
    if b.first() != Some(&b'{') || b.last() != Some(&b'}') {
        return None;
    }
    let mut i = 1;
    while i < b.len() - 1 {
        let key_start = i;
        let key_end = skip_string(b, i)?;
        if b.get(key_end) != Some(&b':') {
            return None;
        }
        let value_start = key_end + 1;
        let value_end = skip_value(b, value_start)?;
        if canon.get(key_start + 1..key_end - 1) == Some(key) {
            let value = canon.get(value_start..value_end)?;
            let rest = if b.get(value_end) == Some(&b',') {
                format!("{}{}", canon.get(..key_start)?, canon.get(value_end + 1..)?)
            } else if key_start > 1 {
                // The last member: drop the comma before it.
                format!("{}{}", canon.get(..key_start - 1)?, canon.get(value_end..)?)
            } else {
                "{}".to_owned()
            };
            return Some((rest, Some(value)));
        }
        i = value_end + 1;
    }
    Some((canon.to_owned(), None))
}

/// `b[i]` opens a string: the index just past its closing quote.
fn skip_string(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    loop {
        match b.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// A value starts at `b[i]`: the index of the `,` or `}` that ends it.
fn skip_value(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match b.get(i)? {
            b'"' => i = skip_string(b, i)?,
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b',' | b'}' if depth == 0 => return Some(i),
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            _ => i += 1,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn cut_member_handles_every_position() {
        assert_eq!(cut_member(r#"{"state":1}"#, "state"), Some(("{}".into(), Some("1"))));
        assert_eq!(
            cut_member(r#"{"a":"}","state":[{"x":","}]}"#, "state"),
            Some((r#"{"a":"}"}"#.into(), Some(r#"[{"x":","}]"#)))
        );
        assert_eq!(
            cut_member(r#"{"a":1,"state":2,"z":3}"#, "state"),
            Some((r#"{"a":1,"z":3}"#.into(), Some("2")))
        );
        assert_eq!(cut_member(r#"{"a\"state":1}"#, "state"), Some((r#"{"a\"state":1}"#.into(), None)));
        assert_eq!(cut_member("{}", "state"), Some(("{}".into(), None)));
        assert_eq!(cut_member("[1]", "state"), None);
    }

    #[test]
    fn new_canonicalises_and_refuses_what_canonicalize_refuses() {
        assert_eq!(StateText::new(r#"{ "b":1.0, "a":"\u00e9" }"#).unwrap().as_str(), r#"{"a":"é","b":1.0}"#);
        assert!(StateText::new("null").unwrap().is_null());
        assert_eq!(StateText::new("null").unwrap().to_value(), None);
        for bad in [r#"{"a":1,"a":2}"#, "[1,]", "\"\\ud800\"", "1 2"] {
            assert_eq!(
                StateText::new(bad).unwrap_err().to_string(),
                canonicalize(bad).unwrap_err().to_string(),
                "{bad}"
            );
        }
        let (rest, state) =
            StateText::split_member(br#"{"z":0,"state":{"b":[],"a":null}}"#, "state").unwrap();
        assert_eq!((rest.as_str(), state.unwrap().as_str()), (r#"{"z":0}"#, r#"{"a":null,"b":[]}"#));
    }
}
