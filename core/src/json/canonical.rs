//! The canonical writer (docs/canonical-json.md): what the request binding
//! and the question digests hash.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

mod hash_sink;
mod string;
pub use hash_sink::HashSink;
pub use string::write_string;

/// Something canonical bytes can be written into (a buffer or a hash).
pub trait Sink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// Appends one byte (a quote, a comma, a colon): a buffer stores it
    /// rather than copying a one-byte slice (sixth pass).
    #[inline]
    fn put_byte(&mut self, byte: u8) {
        self.put(&[byte]);
    }

    /// Appends `bytes` between quotes (a string that needs no escaping,
    /// usually short: a key, a value).
    #[inline]
    fn put_quoted(&mut self, bytes: &[u8]) {
        self.put_byte(b'"');
        self.put(bytes);
        self.put_byte(b'"');
    }
}

/// Copies `bytes` to the start of `dst` (at least 16 bytes long) by copies
/// of fixed sizes (two overlapping ones), or `false` when `bytes` is longer
/// than 16 bytes. Sixth pass: a state is mostly short keys and values, and
/// a `memcpy` call per piece cost more than the copying.
#[inline]
// Indexing, proved in bounds: `dst` is at least 16 bytes (checked first),
// and in each arm every index and range end is at most `n`, which is at
// most 16 and is `bytes.len()`; `n - 8`, `n - 4` and `n - 1` do not wrap
// in the arms that use them. Plain indexing keeps the copies as the sixth
// pass tuned them.
#[allow(clippy::indexing_slicing)]
fn copy_short(bytes: &[u8], dst: &mut [u8]) -> bool {
    let n = bytes.len();
    if dst.len() < 16 {
        return false;
    }
    match n {
        8..=16 => {
            dst[..8].copy_from_slice(&bytes[..8]);
            dst[n - 8..n].copy_from_slice(&bytes[n - 8..]);
        }
        4..=7 => {
            dst[..4].copy_from_slice(&bytes[..4]);
            dst[n - 4..n].copy_from_slice(&bytes[n - 4..]);
        }
        1..=3 => {
            dst[0] = bytes[0];
            dst[n / 2] = bytes[n / 2];
            dst[n - 1] = bytes[n - 1];
        }
        0 => {}
        _ => return false,
    }
    true
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    #[inline]
    fn put_byte(&mut self, byte: u8) {
        self.push(byte);
    }

    /// A short string: a constant block of 18 quotes is appended, the
    /// string copied over its middle by copies of fixed sizes (the quote
    /// after it is already there), and the buffer cut back to that quote.
    /// Eighth pass: the block used to be filled on the stack and then
    /// appended, and the 16-byte load of bytes just stored one at a time
    /// could not be forwarded from the store buffer: a stall on every
    /// string, half of `write_string`'s samples (perf, 4 KiB state).
    #[inline]
    fn put_quoted(&mut self, bytes: &[u8]) {
        const QUOTES: [u8; 18] = [b'"'; 18];
        let n = bytes.len();
        let at = self.len();
        if n <= 16 {
            self.extend_from_slice(&QUOTES);
            if let Some(middle) = self.get_mut(at + 1..at + 17) {
                copy_short(bytes, middle);
            }
            self.truncate(at + n + 2);
            return;
        }
        self.push(b'"');
        self.extend_from_slice(bytes);
        self.push(b'"');
    }
}

impl Sink for Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

/// Writes the canonical form of `value` (docs/canonical-json.md).
pub fn write_canonical<S: Sink>(value: &Value, out: &mut S) {
    // Issue 16: the plain walk, without `write_map_spliced`'s skip list,
    // splice and per-entry closure (every state and question goes
    // through here on `seal`). The same bytes: a property test holds it
    // to `write_object_except(value, &[], …)`.
    match value {
        Value::Null => out.put(b"null"),
        Value::Bool(true) => out.put(b"true"),
        Value::Bool(false) => out.put(b"false"),
        Value::Number(n) => out.put(n.as_str().as_bytes()),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.put_byte(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put_byte(b',');
                }
                write_canonical(item, out);
            }
            out.put_byte(b']');
        }
        Value::Object(map) if map_iterates_sorted() => {
            out.put_byte(b'{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.put_byte(b',');
                }
                write_string(k, out);
                out.put_byte(b':');
                write_canonical(v, out);
            }
            out.put_byte(b'}');
        }
        Value::Object(map) => write_map_spliced(map, &[], None, out),
    }
}

/// [`write_canonical`] of a value nested at most `max` levels (a top-level
/// array or object is level 1), appended to `out`; `false`, with `out`
/// partly written, when it nests deeper: the answer of
/// `!deeper_than(value, max)` in the same walk as the writing (issue 16:
/// `seal` used to walk the state twice). The recursion stops one level
/// past `max`, so it is bounded whatever the value. Into any sink: the
/// question digests (sixth pass) take their depth check in the hashing
/// walk, as the state does in the writing one.
pub(crate) fn write_canonical_within<S: Sink>(value: &Value, out: &mut S, max: usize) -> bool {
    if !map_iterates_sorted() {
        if super::deeper_than(value, max) {
            return false;
        }
        write_canonical(value, out);
        return true;
    }
    fn within<S: Sink>(value: &Value, out: &mut S, level: usize, max: usize) -> bool {
        match value {
            Value::Array(items) => {
                if level > max {
                    return false;
                }
                out.put_byte(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.put_byte(b',');
                    }
                    if !within(item, out, level + 1, max) {
                        return false;
                    }
                }
                out.put_byte(b']');
            }
            Value::Object(map) => {
                if level > max {
                    return false;
                }
                out.put_byte(b'{');
                for (i, (k, v)) in map.iter().enumerate() {
                    if i > 0 {
                        out.put_byte(b',');
                    }
                    write_string(k, out);
                    out.put_byte(b':');
                    if !within(v, out, level + 1, max) {
                        return false;
                    }
                }
                out.put_byte(b'}');
            }
            // Scalars here rather than through `write_canonical` (sixth
            // pass: most of a state's nodes are scalars); the same bytes.
            Value::String(s) => write_string(s, out),
            Value::Number(n) => out.put(n.as_str().as_bytes()),
            Value::Bool(true) => out.put(b"true"),
            Value::Bool(false) => out.put(b"false"),
            Value::Null => out.put(b"null"),
        }
        true
    }
    within(value, out, 1, max)
}

/// Whether serde_json's `Map` iterates in byte order of its keys (a
/// `BTreeMap<String, _>`, the default) rather than insertion order (the
/// `preserve_order` feature, which any crate in a build can switch on).
/// Features are fixed at build time, so one probe answers for the process.
pub(crate) fn map_iterates_sorted() -> bool {
    static SORTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SORTED.get_or_init(|| {
        let mut probe = Map::new();
        for k in ["b", "a", "c", "B"] {
            probe.insert(k.to_owned(), Value::Null);
        }
        probe.keys().map(String::as_str).eq(["B", "a", "b", "c"])
    })
}

/// The canonical form of `value` as bytes.
pub fn canonical(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_canonical(value, &mut out);
    out
}

/// Like [`write_canonical`], but when `value` is an object its top-level keys
/// listed in `skip` are left out (used for params without `_meta`,
/// `inputResponses` and `requestState`). Since issue 16 the reference
/// the tests hold `write_canonical` to.
#[cfg(test)]
pub fn write_object_except<S: Sink>(value: &Value, skip: &[&str], out: &mut S) {
    match value {
        Value::Null => out.put(b"null"),
        Value::Bool(true) => out.put(b"true"),
        Value::Bool(false) => out.put(b"false"),
        // With arbitrary_precision, the text is the exact lexical form.
        Value::Number(n) => out.put(n.as_str().as_bytes()),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_canonical(item, out);
            }
            out.put(b"]");
        }
        Value::Object(map) => write_map_except(map, skip, out),
    }
}

/// Writes the canonical form of an object, leaving out the top-level keys in `skip`.
#[cfg(test)]
pub fn write_map_except<S: Sink>(map: &Map<String, Value>, skip: &[&str], out: &mut S) {
    write_map_spliced(map, skip, None, out)
}

/// [`write_map_except`], where the value of top-level key `splice.0` is
/// written as the ready canonical bytes `splice.1` (issue 16: a request's
/// `arguments`, streamed by `parse_request`) instead of from the map.
pub fn write_map_spliced<S: Sink>(
    map: &Map<String, Value>,
    skip: &[&str],
    splice: Option<(&str, &[u8])>,
    out: &mut S,
) {
    // Sort explicitly: the Map's own order depends on serde_json features
    // that another crate in a build could switch on. `str` ordering is byte
    // ordering, which for UTF-8 is code point order.
    out.put(b"{");
    // The default Map (a BTreeMap) already iterates in byte order; checking
    // that is one pass, and saves collecting and sorting the keys.
    let sorted = map.keys().zip(map.keys().skip(1)).all(|(a, b)| a < b);
    let mut first = true;
    let mut entry = |k: &String, v: &Value, out: &mut S| {
        if skip.contains(&k.as_str()) {
            return;
        }
        if !first {
            out.put(b",");
        }
        first = false;
        write_string(k, out);
        out.put(b":");
        match splice {
            Some((key, bytes)) if key == k => out.put(bytes),
            _ => write_canonical(v, out),
        }
    };
    if sorted {
        for (k, v) in map {
            entry(k, v, out);
        }
    } else {
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (k, v) in entries {
            entry(k, v, out);
        }
    }
    out.put(b"}");
}

#[cfg(test)]
#[path = "canonical_tests.rs"]
mod tests;
