//! The strict parser: size bound first, depth bound, duplicate keys
//! refused, numbers kept as their lexical text (see the module above).

use std::cell::Cell;

use super::stream::Canon;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Deepest nesting of arrays and objects accepted anywhere.
pub const MAX_DEPTH: usize = 64;

/// The key serde_json uses, with `arbitrary_precision`, to hand a number's
/// lexical text to `deserialize_any` visitors. It has been stable since
/// serde_json 1.0.0; the vectors with `1.0` vs `1` catch any change.
pub(crate) const NUMBER_TOKEN: &str = "$serde_json::private::Number";

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
    parse_with(bytes, max_bytes, None)
}

/// [`parse`] for a request message: `params.arguments` (of a message
/// object whose `params` is an object) is not built as a tree but read by
/// the streaming writer; the message gets `null` in its place and the
/// second result is its canonical bytes. Same errors as [`parse`].
pub fn parse_request(bytes: &[u8], max_bytes: usize) -> Result<(Value, Option<Vec<u8>>), JsonError> {
    let args = ArgsSlot { bytes: Cell::new(None), odd: Cell::new(false), fast: Cell::new(true) };
    let v = match parse_with(bytes, max_bytes, Some(&args)) {
        // Issue 16: the arguments' fast path gave up on an error; read
        // again without it for the exact error (see `Canon::fast`).
        Err(_) if !args.fast.get() => {
            args.odd.set(false);
            parse_with(bytes, max_bytes, Some(&args))?
        }
        v => v?,
    };
    if args.odd.get() {
        // Canonical bytes that would not parse back (see `Canon::odd`):
        // the text passed every check once, so the plain tree is built.
        return Ok((parse_with(bytes, max_bytes, None)?, None));
    }
    Ok((v, args.bytes.take()))
}

/// Where [`parse_request`] gets the streamed arguments.
pub(crate) struct ArgsSlot {
    bytes: Cell<Option<Vec<u8>>>,
    odd: Cell<bool>,
    fast: Cell<bool>,
}

fn parse_with(bytes: &[u8], max_bytes: usize, args: Option<&ArgsSlot>) -> Result<Value, JsonError> {
    if bytes.len() > max_bytes {
        return Err(JsonError::TooLarge);
    }
    let failure = Cell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let seed = Strict { depth: 0, failure: &failure, args };
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

pub(crate) struct Strict<'a> {
    pub(crate) depth: usize,
    pub(crate) failure: &'a Cell<Option<JsonError>>,
    /// Only on the path to `params.arguments` of a request (see
    /// [`parse_request`]): where its canonical bytes go.
    pub(crate) args: Option<&'a ArgsSlot>,
}

impl Strict<'_> {
    pub(crate) fn fail<E: de::Error>(&self, why: JsonError) -> E {
        let msg = why.to_string();
        self.failure.set(Some(why));
        E::custom(msg)
    }
    pub(crate) fn child(&self) -> Strict<'_> {
        Strict { depth: self.depth + 1, failure: self.failure, args: None }
    }
    /// The value under `key` of this object: the message's `params` keep
    /// the path to `arguments`; `params.arguments` is streamed.
    fn entry<'de, A: MapAccess<'de>>(&self, key: &str, map: &mut A) -> Result<Value, A::Error> {
        match self.args {
            Some(args) if self.depth == 1 && key == "arguments" => {
                let mut out = Vec::new();
                map.next_value_seed(Canon {
                    strict: self.child(),
                    out: &mut out,
                    odd: &args.odd,
                    fast: Some(&args.fast),
                })?;
                args.bytes.set(Some(out));
                Ok(Value::Null)
            }
            Some(args) if self.depth == 0 && key == "params" => {
                map.next_value_seed(Strict { depth: 1, failure: self.failure, args: Some(args) })
            }
            _ => map.next_value_seed(self.child()),
        }
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
        let v = self.entry(&first, &mut map)?;
        out.insert(first, v);
        while let Some(k) = map.next_key::<String>()? {
            // One search per key: the entry both finds a duplicate (refused
            // before its value is read, as before) and is where the value goes.
            match out.entry(k) {
                serde_json::map::Entry::Occupied(e) => {
                    return Err(self.fail(JsonError::DuplicateKey(e.key().clone())));
                }
                serde_json::map::Entry::Vacant(slot) => {
                    let v = self.entry(slot.key(), &mut map)?;
                    slot.insert(v);
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// The first key of a map: serde_json's number marker or a real key.
pub(crate) enum Key {
    Number,
    Name(String),
}

pub(crate) struct FirstKey;

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
pub(crate) struct NumberText;

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
pub(crate) fn number_from_text(text: String) -> Result<Number, String> {
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
/// top-level array or object is level 1). Safe on a value of any depth,
/// unlike the recursive writers, which callers guard with it.
pub fn deeper_than(value: &Value, max: usize) -> bool {
    // Issue 16: `seal` asks this of every state and question, and the walk
    // with a heap stack cost a third of `decide` at 4 KiB of state. The
    // recursion stops one level past `max`, so for the bounds snodo uses
    // its depth is bounded whatever the value; a larger bound takes the
    // iterative walk.
    fn deeper(value: &Value, level: usize, max: usize) -> bool {
        match value {
            Value::Array(items) => level > max || items.iter().any(|c| deeper(c, level + 1, max)),
            Value::Object(map) => level > max || map.values().any(|c| deeper(c, level + 1, max)),
            _ => false,
        }
    }
    if max <= MAX_DEPTH { deeper(value, 1, max) } else { deeper_than_iterative(value, max) }
}

/// [`deeper_than`] with a heap stack instead of recursion: for any bound
/// (and the reference its property test holds the recursion to).
pub(crate) fn deeper_than_iterative(value: &Value, max: usize) -> bool {
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
