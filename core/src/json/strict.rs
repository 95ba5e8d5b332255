//! The strict reader: size bound first, depth bound, duplicate keys
//! refused, numbers kept as their lexical text (see the module above), in
//! one serde_json walk that builds the tree.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

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
    // serde_json reports our own refusals as its error type; the exact
    // reason is kept beside it.
    let failure = Cell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let seed = Strict { depth: 0, failure: &failure };
    match seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v)) {
        Ok(v) => Ok(v),
        Err(e) => Err(failure.take().unwrap_or_else(|| JsonError::Syntax(e.to_string()))),
    }
}

/// The visitor: the tree of the value it reads, at `depth`.
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
        let Some(first) = map.next_key_seed(KeyText)? else {
            return Ok(Value::Object(Map::new()));
        };
        if first == NUMBER_TOKEN {
            // Either serde_json handing over a number's text, or an object
            // in the input that uses the reserved key (possibly spelled with
            // escapes). Only the former delivers its value as an owned
            // String and has no second key. Reading such an object as a
            // number would let two different texts parse to the same value,
            // so it is refused outright.
            let text: String = map.next_value_seed(NumberText)?;
            if map.next_key::<String>()?.is_some() {
                return Err(de::Error::custom("reserved object key"));
            }
            return number_from_text(text).map(Value::Number).map_err(de::Error::custom);
        }
        // Checked after the first key: a number at the deepest level is a
        // map to serde_json, not a level of nesting.
        if self.depth >= MAX_DEPTH {
            return Err(self.fail(JsonError::TooDeep));
        }
        let mut out = Map::new();
        let mut key = Some(first);
        while let Some(k) = key {
            // Refused before its value is read.
            match out.entry(k.into_owned()) {
                serde_json::map::Entry::Occupied(e) => {
                    return Err(self.fail(JsonError::DuplicateKey(e.key().clone())));
                }
                serde_json::map::Entry::Vacant(slot) => {
                    slot.insert(map.next_value_seed(self.child())?);
                }
            }
            key = map.next_key_seed(KeyText)?;
        }
        Ok(Value::Object(out))
    }
}

/// An object key, borrowed from the text when it has no escapes.
struct KeyText;

impl<'de> DeserializeSeed<'de> for KeyText {
    type Value = Cow<'de, str>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyText {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
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

/// A `Number` from the lexical text serde_json already validated: its own
/// parse keeps the mantissa as written and normalises only the exponent
/// marker (docs/canonical-json.md). A plain integer (most numbers in a
/// request) is made without that second parse when `Number::from` spells
/// it exactly as written (so `-0`, for one, takes the general path).
fn number_from_text(text: String) -> Result<Number, String> {
    let integer = match text.strip_prefix('-') {
        Some(_) => text.parse::<i64>().ok().map(Number::from),
        None => text.parse::<u64>().ok().map(Number::from),
    };
    match integer {
        Some(n) if n.as_str() == text => Ok(n),
        _ => text.parse::<Number>().map_err(|e| e.to_string()),
    }
}

/// Whether `value` nests arrays and objects deeper than `max` levels (a
/// top-level array or object is level 1). Safe on a value of any depth:
/// the walk keeps its own stack rather than recursing.
pub fn deeper_than(value: &Value, max: usize) -> bool {
    let mut stack = vec![(value, 1usize)];
    while let Some((v, level)) = stack.pop() {
        match v {
            Value::Array(_) | Value::Object(_) if level > max => return true,
            Value::Array(items) => stack.extend(items.iter().map(|c| (c, level + 1))),
            Value::Object(map) => stack.extend(map.values().map(|c| (c, level + 1))),
            _ => {}
        }
    }
    false
}
