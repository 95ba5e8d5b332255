//! The canonical writer (docs/canonical-json.md): what the request binding,
//! the question digests and the token payload are made of.

use serde_json::{Map, Value};

use super::MAX_DEPTH;

/// Appends the canonical form of `value` to `out`, or gives `false` (with
/// `out` partly written) when it nests deeper than `max` levels (a
/// top-level array or object is level 1). The recursion stops one level
/// past `max`, so it is bounded whatever the value.
pub fn write_canonical(value: &Value, out: &mut Vec<u8>, max: usize) -> bool {
    write_at(value, out, 1, max)
}

/// The canonical form of a value nested at most [`MAX_DEPTH`] levels
/// (every value the strict reader gives is); `None` for a deeper one.
pub fn canonical(value: &Value) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    write_canonical(value, &mut out, MAX_DEPTH).then_some(out)
}

fn write_at(value: &Value, out: &mut Vec<u8>, level: usize, max: usize) -> bool {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        // With arbitrary_precision, the text is the exact lexical form.
        Value::Number(n) => out.extend_from_slice(n.as_str().as_bytes()),
        Value::String(s) => write_string(s, out),
        Value::Array(_) | Value::Object(_) if level > max => return false,
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                if !write_at(item, out, level + 1, max) {
                    return false;
                }
            }
            out.push(b']');
        }
        Value::Object(map) => return write_members(map, &[], out, level, max),
    }
    true
}

/// Writes the canonical form of an object at `level`, leaving out its
/// members named in `skip` (a request's params without `_meta`,
/// `inputResponses` and `requestState`).
pub fn write_members(
    map: &Map<String, Value>,
    skip: &[&str],
    out: &mut Vec<u8>,
    level: usize,
    max: usize,
) -> bool {
    if level > max {
        return false;
    }
    out.push(b'{');
    let mut first = true;
    let mut member = |k: &String, v: &Value, out: &mut Vec<u8>| {
        if skip.contains(&k.as_str()) {
            return true;
        }
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
        write_string(k, out);
        out.push(b':');
        write_at(v, out, level + 1, max)
    };
    // Members in byte order of their keys (for UTF-8, code point order).
    // serde_json's default map already iterates so; another crate in the
    // build can switch on its `preserve_order` feature, and then they are
    // sorted here.
    let written = if map.keys().zip(map.keys().skip(1)).all(|(a, b)| a < b) {
        map.iter().all(|(k, v)| member(k, v, out))
    } else {
        let mut members: Vec<(&String, &Value)> = map.iter().collect();
        members.sort_unstable_by(|a, b| a.0.cmp(b.0));
        members.into_iter().all(|(k, v)| member(k, v, out))
    };
    out.push(b'}');
    written
}

/// Writes the canonical form of the JSON string `s`: `"`, then `s` with
/// `"` and `\` backslash-escaped, U+0008, U+000C, U+000A, U+000D and
/// U+0009 as `\b \f \n \r \t`, every other character below U+0020 as
/// `\u00xx` (lowercase hex), and everything else as its raw UTF-8, then
/// `"`. This is serde_json's escaping too, so canonical text is also what
/// serde_json writes for the same (sorted) tree.
pub fn write_string(s: &str, out: &mut Vec<u8>) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // Almost every string needs no escape: `"` and `\` are searched for
    // by memchr, control characters by a scan without early exit (which
    // the compiler vectorises), and a plain string is copied whole.
    if memchr::memchr2(b'"', b'\\', bytes).is_none() && !bytes.iter().fold(false, |c, &b| c | (b < 0x20)) {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut rest = bytes;
    while let Some(at) = rest.iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\') {
        let Some((plain, tail)) = rest.split_at_checked(at) else { break };
        out.extend_from_slice(plain);
        let Some((&b, tail)) = tail.split_first() else { break };
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => out.extend_from_slice(&[b'\\', b'u', b'0', b'0', hex_digit(b >> 4), hex_digit(b)]),
        }
        rest = tail;
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

/// The lowercase hex digit of the low four bits of `n`.
fn hex_digit(n: u8) -> u8 {
    b"0123456789abcdef".get(usize::from(n & 15)).copied().unwrap_or(b'0')
}
