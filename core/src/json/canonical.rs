//! The canonical writer (docs/canonical-json.md): what the request binding
//! and the question digests hash.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

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
}

impl Sink for Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

/// A SHA-256 sink that gathers the many small pieces of the canonical form
/// (punctuation, keys, short values) into one buffer and hashes them in
/// large updates: each `Sha256::update` call has a fixed cost that
/// dominated hashing small pieces one at a time. The digest is the same.
/// The buffer lives inline (no heap allocation per digest: `begin` and
/// `decide` each take one or more digests).
#[derive(Debug)]
pub struct HashSink {
    hash: Sha256,
    buf: [u8; HashSink::CAP],
    len: usize,
}

impl HashSink {
    const CAP: usize = 1024;

    /// Continues `hash` (which may already hold a prefix).
    pub fn new(hash: Sha256) -> HashSink {
        HashSink { hash, buf: [0; Self::CAP], len: 0 }
    }

    /// The hash with every piece written so far.
    pub fn finish(mut self) -> Sha256 {
        self.hash.update(self.buf.get(..self.len).unwrap_or_default());
        self.hash
    }
}

impl Sink for HashSink {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if let Some(slot) = self.buf.get_mut(self.len..end) {
            slot.copy_from_slice(bytes);
            self.len = end;
            return;
        }
        self.hash.update(self.buf.get(..self.len).unwrap_or_default());
        self.len = 0;
        match self.buf.get_mut(..bytes.len()) {
            Some(slot) => {
                slot.copy_from_slice(bytes);
                self.len = bytes.len();
            }
            None => self.hash.update(bytes),
        }
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
            out.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_canonical(item, out);
            }
            out.put(b"]");
        }
        Value::Object(map) if map_iterates_sorted() => {
            out.put(b"{");
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_string(k, out);
                out.put(b":");
                write_canonical(v, out);
            }
            out.put(b"}");
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

/// Writes the canonical form of the JSON string `s`. One escaping for
/// strings: `"` and `\` escaped, the short escapes
/// `\b \f \n \r \t`, other control characters below U+0020 as `\u00xx`
/// (lowercase hex), everything else as raw UTF-8.
pub fn write_string<S: Sink>(s: &str, out: &mut S) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    // Almost no string needs an escape: one table lookup per byte finds
    // that, and the string is then written in one piece (issue 16), its
    // quotes stored as bytes rather than copied as slices (sixth pass).
    let first = plain_run(bytes);
    out.put_byte(b'"');
    if first == bytes.len() {
        out.put(bytes);
        out.put_byte(b'"');
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate().skip(first) {
        if !ESCAPE[b as usize] {
            continue;
        }
        let esc: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            0x08 => Some(b"\\b"),
            0x0c => Some(b"\\f"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            _ => None,
        };
        out.put(&bytes[start..i]);
        match esc {
            Some(e) => out.put(e),
            None => out.put(&[b'\\', b'u', b'0', b'0', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]),
        }
        start = i + 1;
    }
    out.put(&bytes[start..]);
    out.put_byte(b'"');
}

/// The bytes `write_string` escapes: control characters, `"` and `\`.
static ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// How many bytes of `rest` come before the first byte `write_string`
/// escapes (the `ESCAPE` set, which is also where a plain JSON string
/// ends); all of them if none. Eight bytes at a time while none of them can stop (a
/// long string, such as a padded state, otherwise costs a lookup per
/// byte), then byte by byte; the word test only skips, the bytes decide.
pub(crate) fn plain_run(rest: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Non-zero if some byte of `v` is below `n` (n at most 128).
    let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGH;
    // Most strings (keys, short values) end within a few bytes: those
    // byte by byte, without setting up the word loop.
    const SHORT: usize = 16;
    let head = rest.get(..SHORT).unwrap_or(rest);
    if let Some(i) = head.iter().position(|&b| ESCAPE[b as usize]) {
        return i;
    }
    let mut skipped = head.len();
    for chunk in rest.get(skipped..).unwrap_or_default().chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else { break };
        let v = u64::from_le_bytes(word);
        if below(v, 0x20) | below(v ^ (ONES * u64::from(b'"')), 1) | below(v ^ (ONES * u64::from(b'\\')), 1)
            != 0
        {
            break;
        }
        skipped += 8;
    }
    let tail = rest.get(skipped..).unwrap_or_default();
    skipped + tail.iter().position(|&b| ESCAPE[b as usize]).unwrap_or(tail.len())
}
