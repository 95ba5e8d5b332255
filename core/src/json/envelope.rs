//! The request envelope reader (issue 16, fifth pass): one strict pass
//! over a request message that keeps only what `begin` reads, instead of
//! a whole-message `Value` that `begin` then takes apart.
//!
//! It walks the same serde_json deserializer as [`parse_request`] and makes
//! every check `Strict` makes at the same point of the walk (duplicate keys
//! when the second one is read, depth, numbers, the reserved number key),
//! so the same text gets the same [`JsonError`]; `begin`'s property test
//! holds the two paths to the same result. What differs is what is built:
//! the top-level members `begin` does not read are checked and dropped,
//! `id`, `jsonrpc` and `method` are small values, `params` is split into
//! the members the `Call` keeps, `_meta`, `inputResponses` and
//! `requestState` (borrowed from the request text when it has no escapes,
//! as a token never has), and `params.arguments` is streamed to canonical
//! bytes as before.
//!
//! [`parse_request`]: super::parse_request

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::JsonError;
use super::stream::{Canon, KeyText};
use super::strict::{NUMBER_TOKEN, NumberText, Strict, number_from_text};

mod fast;
pub(crate) use fast::{answers_tree, interned, plain_ascii_len, plain_len, plain_value_len, value_tree};

/// `params.requestState` as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StateArg<'a> {
    /// A string: borrowed from the request unless it had escapes.
    Text(Cow<'a, str>),
    /// Any other JSON value (checked, not kept: it is refused as malformed).
    Other,
}

/// `params` when it is an object: what `begin` reads, split off.
#[derive(Debug, Default)]
pub(crate) struct Params<'a> {
    /// Every other member, `arguments` as `null` when streamed.
    pub(crate) rest: Map<String, Value>,
    pub(crate) meta: Option<Value>,
    pub(crate) input_responses: Option<Value>,
    pub(crate) request_state: Option<StateArg<'a>>,
    /// Issue 16, sixth pass: the `_meta` members `begin` takes out
    /// ([`META_KNOWN`]), when the hand reader split them off; `meta` then
    /// holds the others. All `None` otherwise (they stay in `meta`).
    pub(crate) meta_known: [Option<Value>; 3],
    /// Issue 16, twelfth pass (`fast/meta.rs`), in place of a slot of
    /// `meta_known`: the capabilities and client info when objects, as
    /// shared trees; the protocol version when one snodo knows.
    pub(crate) meta_shared: [Option<Arc<Value>>; 2],
    pub(crate) version_known: Option<&'static str>,
    /// Issue 16, seventh pass: `inputResponses` when the hand reader
    /// checked it in full without building it (`input_responses` is then
    /// `None`); see [`RawAnswers`].
    pub(crate) answers_text: Option<RawAnswers<'a>>,
}

/// `params.inputResponses` as the hand reader found it: an object whose
/// text is checked as the tree reader checks it (it would build a tree
/// from it without giving up), not built.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawAnswers<'a> {
    /// The object's text, from its `{` to its `}`.
    pub(crate) text: &'a str,
    /// Its members (all with distinct keys).
    pub(crate) members: usize,
    /// Whether every member's value is an object.
    pub(crate) all_objects: bool,
}

/// The `_meta` keys `begin` reads itself, in its order: the protocol
/// version, the client capabilities, the client info (begin's `META_*`).
pub(crate) const META_KNOWN: [&str; 3] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
];

/// A request message as `begin` reads it.
#[derive(Debug, Default)]
pub(crate) struct Envelope<'a> {
    /// Whether the message is an object at all (if not, nothing else is set).
    pub(crate) object: bool,
    pub(crate) id: Option<Value>,
    /// Whether `jsonrpc` is the string "2.0" (all `begin` asks of it; no
    /// copy of the text is kept), if present.
    pub(crate) jsonrpc: Option<bool>,
    pub(crate) method: Option<Value>,
    /// Issue 16, twelfth pass: the method when the hand reader found a
    /// method name snodo knows ([`interned`]); `method` is then `None`.
    pub(crate) method_known: Option<&'static str>,
    /// Whether it has a `result` or an `error` member.
    pub(crate) answer: bool,
    /// `Some(None)`: `params` is present but not an object.
    pub(crate) params: Option<Option<Params<'a>>>,
    /// The canonical bytes of `params.arguments`, when streamed.
    pub(crate) args: Option<Vec<u8>>,
}

/// Reads a request message (see the module docs): `Ok(None)` when the
/// streamed arguments came out odd (see `Canon::odd`), where the caller
/// takes the tree path, as [`super::parse_request`] does.
pub(crate) fn read_envelope(bytes: &[u8], max_bytes: usize) -> Result<Option<Envelope<'_>>, JsonError> {
    if bytes.len() > max_bytes {
        return Err(JsonError::TooLarge);
    }
    // Issue 16, sixth pass: a plain message by hand (envelope/fast.rs),
    // anything else (errors included) by the serde walk below.
    if let Some(env) = fast::read(bytes) {
        return Ok(Some(env));
    }
    let fast = Cell::new(true);
    match read_once(bytes, &fast) {
        // The arguments' fast path gave up on an error; read again without
        // it for the exact error (see `Canon::fast`).
        Err(_) if !fast.get() => read_once(bytes, &fast),
        read => read,
    }
}

fn read_once<'b>(bytes: &'b [u8], fast: &Cell<bool>) -> Result<Option<Envelope<'b>>, JsonError> {
    let failure = Cell::new(None);
    let odd = Cell::new(false);
    let args = Cell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let seed = Top { failure: &failure, odd: &odd, args: &args, fast };
    match seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v)) {
        Ok(_) if odd.get() => Ok(None),
        Ok(mut env) => {
            env.args = args.take();
            Ok(Some(env))
        }
        Err(e) => Err(failure.take().unwrap_or_else(|| JsonError::Syntax(e.to_string()))),
    }
}

struct Top<'f> {
    failure: &'f Cell<Option<JsonError>>,
    odd: &'f Cell<bool>,
    args: &'f Cell<Option<Vec<u8>>>,
    fast: &'f Cell<bool>,
}

impl<'f> Top<'f> {
    fn strict(&self, depth: usize) -> Strict<'f> {
        Strict { depth, failure: self.failure, args: None }
    }
    fn duplicate<E: de::Error>(&self, key: Cow<'_, str>) -> E {
        self.strict(0).fail(JsonError::DuplicateKey(key.into_owned()))
    }
}

/// The first key of an object was serde_json's number marker: read the
/// number exactly as `Strict::visit_map` does (the same checks, the same
/// errors), and drop it.
fn number<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    let text: String = map.next_value_seed(NumberText)?;
    if map.next_key::<String>()?.is_some() {
        return Err(de::Error::custom("reserved object key"));
    }
    number_from_text(text).map(drop).map_err(de::Error::custom)
}

/// The `Strict` that checks a value found where an object was expected.
trait Checked {
    fn checker(&self) -> Strict<'_>;
}

impl Checked for Top<'_> {
    fn checker(&self) -> Strict<'_> {
        self.strict(0)
    }
}

impl Checked for ParamsSeed<'_, '_> {
    fn checker(&self) -> Strict<'_> {
        self.top.strict(1)
    }
}

impl Checked for StateSeed<'_> {
    fn checker(&self) -> Strict<'_> {
        Strict { depth: self.strict.depth, failure: self.strict.failure, args: None }
    }
}

/// A visitor for a value that is not the object it is after: `Strict`
/// checks it (as the tree parser would) and `$out` is returned.
macro_rules! checked_by_strict {
    ($out:expr) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($out(self))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($out(self))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($out(self))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($out(self))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            self.checker().visit_f64::<E>(v)?;
            Ok($out(self))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            self.checker().visit_seq(seq)?;
            Ok($out(self))
        }
    };
}

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = Envelope<'de>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Envelope<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Envelope<'de>, E> {
        Ok(Envelope::default())
    }
    checked_by_strict!(|_| Envelope::default());

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope<'de>, A::Error> {
        let mut env = Envelope { object: true, ..Envelope::default() };
        let mut first = true;
        // Members begin does not read: checked and dropped, but their names
        // kept, so a repeated one is refused as the tree parser refuses it.
        let mut others: BTreeSet<Cow<'de, str>> = BTreeSet::new();
        while let Some(key) = map.next_key_seed(KeyText)? {
            if std::mem::take(&mut first) && key == NUMBER_TOKEN {
                number(&mut map)?;
                return Ok(Envelope::default());
            }
            // The message is at depth 0: never too deep here.
            let slot = match key.as_ref() {
                "id" => &mut env.id,
                "method" => &mut env.method,
                "jsonrpc" => {
                    if env.jsonrpc.is_some() {
                        return Err(self.duplicate(key));
                    }
                    let v = map.next_value_seed(self.strict(1))?;
                    env.jsonrpc = Some(v.as_str() == Some("2.0"));
                    continue;
                }
                "params" => {
                    if env.params.is_some() {
                        return Err(self.duplicate(key));
                    }
                    env.params = Some(map.next_value_seed(ParamsSeed { top: &self })?);
                    continue;
                }
                _ => {
                    env.answer |= key == "result" || key == "error";
                    if others.contains(&key) {
                        return Err(self.duplicate(key));
                    }
                    map.next_value_seed(self.strict(1))?;
                    others.insert(key);
                    continue;
                }
            };
            if slot.is_some() {
                return Err(self.duplicate(key));
            }
            *slot = Some(map.next_value_seed(self.strict(1))?);
        }
        Ok(env)
    }
}

/// `params` (depth 1): split when an object; anything else is checked and
/// reported as "not an object".
struct ParamsSeed<'t, 'f> {
    top: &'t Top<'f>,
}

impl<'de> DeserializeSeed<'de> for ParamsSeed<'_, '_> {
    type Value = Option<Params<'de>>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Option<Params<'de>>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ParamsSeed<'_, '_> {
    type Value = Option<Params<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Option<Params<'de>>, E> {
        Ok(None)
    }
    checked_by_strict!(|_| None);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Params<'de>>, A::Error> {
        let top = self.top;
        let mut params = Params::default();
        let mut first = true;
        while let Some(key) = map.next_key_seed(KeyText)? {
            if std::mem::take(&mut first) && key == NUMBER_TOKEN {
                number(&mut map)?;
                return Ok(None);
            }
            // Depth 1: never too deep here either.
            match key.as_ref() {
                "_meta" | "inputResponses" => {
                    let slot = if key == "_meta" { &mut params.meta } else { &mut params.input_responses };
                    if slot.is_some() {
                        return Err(top.duplicate(key));
                    }
                    *slot = Some(map.next_value_seed(top.strict(2))?);
                }
                "requestState" => {
                    if params.request_state.is_some() {
                        return Err(top.duplicate(key));
                    }
                    params.request_state = Some(map.next_value_seed(StateSeed { strict: top.strict(2) })?);
                }
                _ => match params.rest.entry(key.into_owned()) {
                    serde_json::map::Entry::Occupied(e) => {
                        return Err(top.duplicate(Cow::Borrowed(e.key().as_str())));
                    }
                    serde_json::map::Entry::Vacant(slot) if slot.key() == "arguments" => {
                        // Streamed as `Strict::entry` streams it.
                        let mut out = Vec::new();
                        map.next_value_seed(Canon {
                            strict: top.strict(2),
                            out: &mut out,
                            odd: top.odd,
                            fast: Some(top.fast),
                        })?;
                        top.args.set(Some(out));
                        slot.insert(Value::Null);
                    }
                    serde_json::map::Entry::Vacant(slot) => {
                        let v = map.next_value_seed(top.strict(2))?;
                        slot.insert(v);
                    }
                },
            }
        }
        Ok(Some(params))
    }
}

/// `params.requestState` (depth 2): a string kept (borrowed when it can
/// be), anything else checked by `Strict` and dropped.
struct StateSeed<'f> {
    strict: Strict<'f>,
}

impl<'de> DeserializeSeed<'de> for StateSeed<'_> {
    type Value = StateArg<'de>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<StateArg<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StateSeed<'_> {
    type Value = StateArg<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<StateArg<'de>, E> {
        Ok(StateArg::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<StateArg<'de>, E> {
        Ok(StateArg::Text(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<StateArg<'de>, E> {
        Ok(StateArg::Text(Cow::Owned(v)))
    }
    checked_by_strict!(|_| StateArg::Other);

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<StateArg<'de>, A::Error> {
        self.strict.visit_map(map)?;
        Ok(StateArg::Other)
    }
}
