//! Input requests parsed once per thread (issue 16, sixth pass).
//!
//! A handler asks the same questions in every flow and rebuilds the same
//! question every round to read its answer (`call.response(key, request)`),
//! so the addon sees the same question text again and again: the strict
//! parse of it into a `Value` was about a tenth of a Node round. This cache
//! maps the exact bytes of a question's JSON text to the tree the strict
//! parser made of them. A hit is exactly what a parse would give: the
//! parse is a function of the bytes, and only successful parses are kept
//! (a failing text is parsed every time, so its error is the parser's own).
//!
//! Bounded: texts above [`MAX_TEXT`] bytes are not kept, and the whole map
//! is dropped when it holds [`MAX_ENTRIES`] texts (a server asks a handful
//! of distinct questions; one that makes a fresh question per call only
//! pays for the copy into the map, and never holds more than the bound).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::error::Result;

/// Longest question text kept.
pub const MAX_TEXT: usize = 4096;
/// Most texts kept per thread.
pub const MAX_ENTRIES: usize = 256;

thread_local! {
    static SEEN: RefCell<HashMap<Box<[u8]>, Arc<Value>>> = RefCell::new(HashMap::new());
}

/// The strict parse of `text` (errors worded with `what`), from this
/// thread's cache when the same bytes were parsed before.
pub fn parsed(text: &[u8], what: &str) -> Result<Arc<Value>> {
    if text.len() > MAX_TEXT {
        return Ok(Arc::new(crate::json::parse(text, what)?));
    }
    // `try_with`, as the core's memos: from another thread-local's
    // destructor this one may be gone, and `with` would panic there.
    if let Some(hit) = SEEN.try_with(|s| s.borrow().get(text).cloned()).ok().flatten() {
        return Ok(hit);
    }
    let value = Arc::new(crate::json::parse(text, what)?);
    let _gone = SEEN.try_with(|s| {
        let mut s = s.borrow_mut();
        if s.len() >= MAX_ENTRIES {
            s.clear();
        }
        s.insert(text.into(), Arc::clone(&value));
    });
    Ok(value)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_is_the_parse_and_errors_are_never_kept() {
        let text = br#"{"mode":"form","message":"Seat?","n":1.0}"#;
        let first = parsed(text, "request").unwrap();
        let again = parsed(text, "request").unwrap();
        assert!(Arc::ptr_eq(&first, &again), "the second read is a hit");
        assert_eq!(*again, crate::json::parse(text, "request").unwrap());
        let bad = br#"{"a":1,"a":2}"#;
        for _ in 0..2 {
            let e = parsed(bad, "request").unwrap_err();
            assert_eq!(e.reason, crate::json::parse(bad, "request").unwrap_err().reason);
        }
    }

    #[test]
    fn the_map_stays_bounded() {
        for i in 0..(MAX_ENTRIES * 3) {
            parsed(format!("{{\"i\":{i}}}").as_bytes(), "request").unwrap();
            assert!(SEEN.with(|s| s.borrow().len()) <= MAX_ENTRIES);
        }
        let long = format!("\"{}\"", "x".repeat(MAX_TEXT));
        let before = SEEN.with(|s| s.borrow().len());
        parsed(long.as_bytes(), "request").unwrap();
        assert_eq!(SEEN.with(|s| s.borrow().len()), before, "long texts are not kept");
    }
}
