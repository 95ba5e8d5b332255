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

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

/// Deepest nesting of arrays and objects accepted anywhere.
pub const MAX_DEPTH: usize = 64;

/// The key serde_json uses, with `arbitrary_precision`, to hand a number's
/// lexical text to `deserialize_any` visitors. It has been stable since
/// serde_json 1.0.0; the vectors with `1.0` vs `1` catch any change.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Why a JSON text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonError {
    /// Not JSON (syntax, invalid UTF-8, lone surrogate, trailing bytes).
    Syntax(String),
    /// An object has the same key twice; carries the key.
    DuplicateKey(String),
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Larger than the bound given to [`parse`].
    TooLarge,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Syntax(m) => write!(f, "invalid JSON: {m}"),
            JsonError::DuplicateKey(k) => write!(f, "duplicate object key {k:?}"),
            JsonError::TooDeep => write!(f, "JSON nested deeper than {MAX_DEPTH} levels"),
            JsonError::TooLarge => f.write_str("JSON text larger than the configured bound"),
        }
    }
}

/// Parses `bytes` strictly (see the module docs). `max_bytes` is checked first.
pub fn parse(bytes: &[u8], max_bytes: usize) -> Result<Value, JsonError> {
    if bytes.len() > max_bytes {
        return Err(JsonError::TooLarge);
    }
    let failure = Cell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let seed = Strict { depth: 0, failure: &failure };
    let value = seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    match value {
        Ok(v) => Ok(v),
        Err(e) => Err(failure.take().unwrap_or_else(|| JsonError::Syntax(e.to_string()))),
    }
}

/// Parses a `&str` strictly; see [`parse`].
pub fn parse_str(text: &str, max_bytes: usize) -> Result<Value, JsonError> {
    parse(text.as_bytes(), max_bytes)
}

struct Strict<'a> {
    depth: usize,
    failure: &'a Cell<Option<JsonError>>,
}

impl Strict<'_> {
    fn fail<E: de::Error>(&self, why: JsonError) -> E {
        let msg = why.to_string();
        self.failure.set(Some(why));
        E::custom(msg)
    }
    fn child(&self) -> Strict<'_> {
        Strict { depth: self.depth + 1, failure: self.failure }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    // serde_json with arbitrary_precision reports numbers through visit_map,
    // but keep the plain paths correct in case a number arrives this way.
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("non-finite number"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if self.depth >= MAX_DEPTH {
            return Err(self.fail(JsonError::TooDeep));
        }
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self.child())? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        // The first key is read through `FirstKey` so that a number (which
        // serde_json hands over as a one-entry map under NUMBER_TOKEN) costs
        // no allocation for the marker key.
        let first = match map.next_key_seed(FirstKey)? {
            None => return Ok(Value::Object(Map::new())),
            Some(Key::Number) => {
                // Either serde_json handing over a number's text, or an
                // object in the input that uses the reserved key (possibly
                // spelled with escapes). Only the former delivers its value
                // as an owned String and has no second key; an input
                // object's value never arrives that way. Reading such an
                // object as a number would let two different texts parse to
                // the same value (found by the `canonical` fuzz target), so
                // it is refused outright.
                let text: String = map.next_value_seed(NumberText)?;
                if map.next_key::<String>()?.is_some() {
                    return Err(de::Error::custom("reserved object key"));
                }
                return number_from_text(text).map(Value::Number).map_err(de::Error::custom);
            }
            Some(Key::Name(k)) => k,
        };
        if self.depth >= MAX_DEPTH {
            return Err(self.fail(JsonError::TooDeep));
        }
        let mut out = Map::new();
        let v = map.next_value_seed(self.child())?;
        out.insert(first, v);
        while let Some(k) = map.next_key::<String>()? {
            if out.contains_key(&k) {
                return Err(self.fail(JsonError::DuplicateKey(k)));
            }
            let v = map.next_value_seed(self.child())?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// The first key of a map: serde_json's number marker or a real key.
enum Key {
    Number,
    Name(String),
}

struct FirstKey;

impl<'de> DeserializeSeed<'de> for FirstKey {
    type Value = Key;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for FirstKey {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(if v == NUMBER_TOKEN { Key::Number } else { Key::Name(v.to_owned()) })
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Key, E> {
        Ok(if v == NUMBER_TOKEN { Key::Number } else { Key::Name(v) })
    }
}

/// Accepts only what serde_json's number path delivers: the number's text
/// as an owned `String`. Input JSON values reach a visitor as borrowed or
/// transient `str`s, or as other types, all of which are refused.
struct NumberText;

impl<'de> DeserializeSeed<'de> for NumberText {
    type Value = String;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl Visitor<'_> for NumberText {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no object with the reserved key")
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<String, E> {
        Err(E::custom("reserved object key"))
    }
}

/// A `Number` from the lexical text serde_json already validated. Plain
/// integers are by far the most common numbers; for them `Number::from`
/// builds the same text without a second parse. The result is used only if
/// its text is exactly the input (so `-0` and anything unusual take the
/// general path), which keeps every spelling byte for byte.
fn number_from_text(text: String) -> Result<Number, String> {
    let fast = if text.starts_with('-') {
        text.parse::<i64>().ok().map(Number::from)
    } else {
        text.parse::<u64>().ok().map(Number::from)
    };
    match fast {
        Some(n) if n.as_str() == text => Ok(n),
        _ => text.parse::<Number>().map_err(|e| e.to_string()),
    }
}

/// Whether `value` nests arrays and objects deeper than `max` levels (a
/// top-level array or object is level 1). Iterative, so it is safe on a
/// value of any depth, unlike the recursive writers below, which callers
/// guard with it.
pub fn deeper_than(value: &Value, max: usize) -> bool {
    fn push<'a>(stack: &mut Vec<(&'a Value, usize)>, v: &'a Value, level: usize) {
        // Only containers go on the stack, with their own level.
        if v.is_array() || v.is_object() {
            stack.push((v, level));
        }
    }
    let mut stack = Vec::new();
    push(&mut stack, value, 1);
    while let Some((v, level)) = stack.pop() {
        if level > max {
            return true;
        }
        match v {
            Value::Array(items) => items.iter().for_each(|c| push(&mut stack, c, level + 1)),
            Value::Object(map) => map.values().for_each(|c| push(&mut stack, c, level + 1)),
            _ => {}
        }
    }
    false
}

/// Something canonical bytes can be written into (a buffer or a hash).
pub trait Sink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
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
#[derive(Debug)]
pub struct HashSink {
    hash: Sha256,
    buf: Vec<u8>,
}

impl HashSink {
    const CAP: usize = 4096;

    /// Continues `hash` (which may already hold a prefix).
    pub fn new(hash: Sha256) -> HashSink {
        HashSink { hash, buf: Vec::with_capacity(Self::CAP) }
    }

    /// The hash with every piece written so far.
    pub fn finish(mut self) -> Sha256 {
        self.hash.update(&self.buf);
        self.hash
    }
}

impl Sink for HashSink {
    fn put(&mut self, bytes: &[u8]) {
        if self.buf.len() + bytes.len() > Self::CAP {
            self.hash.update(&self.buf);
            self.buf.clear();
            if bytes.len() >= Self::CAP {
                self.hash.update(bytes);
                return;
            }
        }
        self.buf.extend_from_slice(bytes);
    }
}

/// Writes the canonical form of `value` (docs/canonical-json.md).
pub fn write_canonical<S: Sink>(value: &Value, out: &mut S) {
    write_object_except(value, &[], out)
}

/// The canonical form of `value` as bytes.
pub fn canonical(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_canonical(value, &mut out);
    out
}

/// Like [`write_canonical`], but when `value` is an object its top-level keys
/// listed in `skip` are left out (used for params without `_meta`,
/// `inputResponses` and `requestState`).
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
pub fn write_map_except<S: Sink>(map: &Map<String, Value>, skip: &[&str], out: &mut S) {
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
        write_canonical(v, out);
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
    out.put(b"\"");
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        // Almost every byte needs no escape: one comparison chain for those,
        // and the full match only for the rare rest.
        if b >= 0x20 && b != b'"' && b != b'\\' {
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
    out.put(b"\"");
}

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
    let v = parse_json(text.as_ref(), "text")?;
    String::from_utf8(canonical(&v))
        .map_err(|_| crate::Error::new(crate::ErrorCode::Json, "text: canonical form is not UTF-8"))
}

/// SHA-256 of the canonical form of `value`.
pub fn digest(value: &Value) -> [u8; 32] {
    let mut h = HashSink::new(Sha256::new());
    write_canonical(value, &mut h);
    h.finish().finalize().into()
}

/// Serialises any value compactly (not canonically) for the wire.
pub fn to_wire(value: &Value) -> String {
    // Serialising a Value into a String cannot fail; fall back to canonical
    // bytes rather than unwrap, to keep the no-panic rule mechanical.
    serde_json::to_string(value).unwrap_or_else(|_| String::from_utf8_lossy(&canonical(value)).into_owned())
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Value, JsonError> {
        parse_str(s, 1 << 20)
    }

    #[test]
    fn numbers_keep_their_lexical_form() {
        for s in ["1", "1.0", "-0", "-0.0", "1.50", "12345678901234567890", "-9223372036854775809", "1e-2"] {
            let v = p(s).unwrap();
            assert_eq!(String::from_utf8(canonical(&v)).unwrap(), s, "number {s}");
        }
        // The exponent marker is the one normalisation: lowercase `e` and an
        // explicit sign (docs/canonical-json.md).
        for (s, c) in
            [("1e2", "1e+2"), ("1E2", "1e+2"), ("1E+2", "1e+2"), ("1E-2", "1e-2"), ("1e400", "1e+400")]
        {
            assert_eq!(String::from_utf8(canonical(&p(s).unwrap())).unwrap(), c, "number {s}");
        }
        assert_ne!(p("1").unwrap(), p("1.0").unwrap());
    }

    #[test]
    fn duplicate_keys_rejected_at_any_depth() {
        assert_eq!(p(r#"{"a":1,"a":2}"#), Err(JsonError::DuplicateKey("a".into())));
        assert_eq!(p(r#"{"x":[{"b":{"c":1,"c":1}}]}"#), Err(JsonError::DuplicateKey("c".into())));
        // Same key in sibling objects is fine.
        assert!(p(r#"[{"a":1},{"a":2}]"#).is_ok());
    }

    #[test]
    fn the_reserved_number_key_is_refused_in_input() {
        // Without the guard each of these parsed as the number 1, colliding
        // with the text `1` (a parser differential found by fuzzing).
        for text in [
            r#"{"$serde_json::private::Number":"1"}"#,
            r#"{"\u0024serde_json::private::Number":"1"}"#,
            r#"{"$serde_json::private::Number":1}"#,
            r#"{"$serde_json::private::Number":"1","x":2}"#,
            r#"[{"$serde_json::private::Number":{}}]"#,
        ] {
            assert!(matches!(p(text), Err(JsonError::Syntax(_))), "{text}");
        }
        // Only the first key is special to serde_json; later it is a key.
        assert!(p(r#"{"a":1,"$serde_json::private::Number":"1"}"#).is_ok());
        assert_eq!(canonical(&p("[1,1.0,-0]").unwrap()), b"[1,1.0,-0]");
    }

    #[test]
    fn depth_is_bounded() {
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(p(&ok).is_ok());
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(p(&deep), Err(JsonError::TooDeep));
        let obj = r#"{"a":"#.repeat(10_000) + "1" + &"}".repeat(10_000);
        assert_eq!(p(&obj), Err(JsonError::TooDeep));
        let arr = "[".repeat(100_000);
        assert!(p(&arr).is_err());
    }

    #[test]
    fn size_checked_first() {
        assert_eq!(parse(b"[1,2,3]", 3), Err(JsonError::TooLarge));
        assert!(parse(b"[1]", 3).is_ok());
    }

    #[test]
    fn bad_text_rejected() {
        for s in ["", "{", "[1,]", r#"{"a":1} x"#, r#""\ud800""#, "nul", "01", "NaN"] {
            assert!(matches!(p(s), Err(JsonError::Syntax(_))), "{s:?}");
        }
        assert!(matches!(parse(b"\"\xff\"", 100), Err(JsonError::Syntax(_))));
    }

    #[test]
    fn canonical_sorts_keys_and_escapes_once() {
        let v = p(r#"{ "b" : [1, 2.50, "x"], "a": {"z": null, "é": true, "A": false}, "s": "q\"\\\/\u0001\u00e9\n" }"#).unwrap();
        let c = String::from_utf8(canonical(&v)).unwrap();
        assert_eq!(
            c,
            "{\"a\":{\"A\":false,\"z\":null,\"é\":true},\"b\":[1,2.50,\"x\"],\"s\":\"q\\\"\\\\/\\u0001é\\n\"}"
        );
        // Canonical output re-parses to the same value and is a fixed point.
        assert_eq!(canonical(&p(&c).unwrap()), c.as_bytes());
    }

    #[test]
    fn skip_only_top_level() {
        let v = p(r#"{"_meta":1,"name":"t","arguments":{"_meta":2}}"#).unwrap();
        let mut out = Vec::new();
        write_object_except(&v, &["_meta"], &mut out);
        assert_eq!(out, br#"{"arguments":{"_meta":2},"name":"t"}"#);
    }

    #[test]
    fn integer_by_value() {
        let n = |s: &str| match p(s).unwrap() {
            Value::Number(n) => n,
            _ => unreachable!(),
        };
        assert!(number_is_integer(&n("30")));
        assert!(number_is_integer(&n("30.0")));
        assert!(number_is_integer(&n("1e3")));
        assert!(!number_is_integer(&n("30.5")));
        assert!(!number_is_integer(&n("1e400")));
    }
}
