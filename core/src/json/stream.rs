//! The streaming canonical writer (issue 16): reads a JSON value with the
//! strict parser's rules and writes its canonical form straight into a
//! buffer, without building a `Value` tree. `begin` uses it for
//! `params.arguments`, the bulk of a large request, whose canonical bytes
//! go into the request binding; the tree is built only if the handler
//! asks for it (`Call::params`).
//!
//! Every check is the one `Strict` makes, at the same point of the same
//! serde_json walk, so the same text gets the same error (which comes
//! first included): the property tests in `stream/tests.rs` hold it
//! to `canonical(parse(text))`.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::canonical::write_string;
use super::strict::{FirstKey, Key, MAX_DEPTH, NUMBER_TOKEN, NumberText, Strict, number_from_text};
use super::{JsonError, Sink};

mod fast;
#[cfg(test)]
mod key_tests;
#[cfg(test)]
mod tests;

/// Writes the canonical form of the value it reads into `out`.
pub(crate) struct Canon<'a, 'f> {
    pub(crate) strict: Strict<'f>,
    pub(crate) out: &'a mut Vec<u8>,
    /// Set when an object has serde_json's reserved number key after its
    /// first key: the tree parser accepts that, but the canonical form
    /// puts the key first, where no parser reads it back as an object. The
    /// caller then builds the tree from the original text instead.
    pub(crate) odd: &'f Cell<bool>,
    /// Issue 16, a request's arguments only: `Some(true)` tries the fast
    /// path over their raw text first (see [`Canon::fast_arguments`]);
    /// it is set to `false` when that gives up on an error it cannot
    /// place, and the caller then reads the request again without it.
    pub(crate) fast: Option<&'f Cell<bool>>,
}

impl Canon<'_, '_> {
    fn child(&mut self) -> Canon<'_, '_> {
        Canon { strict: self.strict.child(), out: &mut *self.out, odd: self.odd, fast: None }
    }

    /// The arguments' raw text (serde_json finds where the value ends),
    /// written by the fast path, or else by this writer over that text
    /// alone at the same depth: the same bytes as reading it in place.
    /// An error there would be placed (line, column) in the text alone,
    /// not in the request, and a syntax error found by the raw scan may
    /// hide an earlier duplicate key: either way this gives up (`fast`
    /// set to `false`) and the caller's second reading, in place and
    /// strict, gives the exact error.
    fn fast_arguments<'de, D: de::Deserializer<'de>>(self, d: D, fast: &Cell<bool>) -> Result<(), D::Error> {
        let give_up = |e: D::Error| {
            fast.set(false);
            e
        };
        let raw = <&serde_json::value::RawValue as serde::Deserialize>::deserialize(d).map_err(give_up)?;
        let text = raw.get();
        let (depth, start) = (self.strict.depth, self.out.len());
        self.out.reserve(text.len());
        if fast::canonical_into(text.as_bytes(), depth, self.out).is_some() {
            return Ok(());
        }
        self.out.truncate(start);
        let mut de = serde_json::Deserializer::from_str(text);
        let failure = self.strict.failure;
        let seed =
            Canon { strict: Strict { depth, failure, args: None }, out: self.out, odd: self.odd, fast: None };
        seed.deserialize(&mut de).and_then(|()| de.end()).map_err(|_| {
            failure.take();
            give_up(de::Error::custom("arguments: read again in place"))
        })
    }
}

impl<'de> DeserializeSeed<'de> for Canon<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        match self.fast {
            Some(fast) if fast.get() => self.fast_arguments(d, fast),
            _ => d.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for Canon<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.out.put(b"null");
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.out.put(if v { b"true" } else { b"false" });
        Ok(())
    }
    // As in `Strict`: numbers come through visit_map; these keep the plain
    // paths identical to it all the same.
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.out.put(Number::from(v).as_str().as_bytes());
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.out.put(Number::from(v).as_str().as_bytes());
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        let n = Number::from_f64(v).ok_or_else(|| E::custom("non-finite number"))?;
        self.out.put(n.as_str().as_bytes());
        Ok(())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        write_string(v, self.out);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        if self.strict.depth >= MAX_DEPTH {
            return Err(self.strict.fail(JsonError::TooDeep));
        }
        self.out.put(b"[");
        let mut first = true;
        loop {
            let comma_at = self.out.len();
            if !first {
                self.out.put(b",");
            }
            if seq.next_element_seed(self.child())?.is_none() {
                // No element after all: take back the comma.
                self.out.truncate(comma_at);
                break;
            }
            first = false;
        }
        self.out.put(b"]");
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        // The same reading of the first key as `Strict::visit_map`.
        let first = match map.next_key_seed(FirstKey)? {
            None => {
                self.out.put(b"{}");
                return Ok(());
            }
            Some(Key::Number) => {
                let text: String = map.next_value_seed(NumberText)?;
                if map.next_key::<String>()?.is_some() {
                    return Err(de::Error::custom("reserved object key"));
                }
                if !text.bytes().any(|b| b == b'e' || b == b'E') {
                    // serde_json validated the grammar, and a `Number` keeps
                    // such text exactly (`number_from_text`): written as is.
                    self.out.put(text.as_bytes());
                    return Ok(());
                }
                let n = number_from_text(text).map_err(de::Error::custom)?;
                self.out.put(n.as_str().as_bytes());
                return Ok(());
            }
            Some(Key::Name(k)) => k,
        };
        if self.strict.depth >= MAX_DEPTH {
            return Err(self.strict.fail(JsonError::TooDeep));
        }
        self.out.put(b"{");
        let body = self.out.len();
        let mut entries = Entries::default();
        let start = self.out.len();
        write_string(&first, self.out);
        self.out.put(b":");
        map.next_value_seed(self.child())?;
        entries.push(Cow::Owned(first), start, self.out.len());
        while let Some(k) = map.next_key_seed(KeyText)? {
            // Refused before its value is read, as `Strict` does.
            if entries.contains(&k) {
                return Err(self.strict.fail(JsonError::DuplicateKey(k.into_owned())));
            }
            if k == NUMBER_TOKEN {
                self.odd.set(true);
            }
            self.out.put(b",");
            let start = self.out.len();
            write_string(&k, self.out);
            self.out.put(b":");
            map.next_value_seed(self.child())?;
            entries.push(k, start, self.out.len());
        }
        entries.sort_into(self.out, body);
        self.out.put(b"}");
        Ok(())
    }
}

/// An object's entries as written: key and byte span in the buffer.
#[derive(Default)]
struct Entries<'de> {
    list: Vec<(Cow<'de, str>, usize, usize)>,
    /// Whether the keys arrived in strictly increasing order so far (the
    /// common case for canonical input): then a new key greater than the
    /// last cannot be a duplicate, and nothing needs reordering.
    sorted: bool,
    /// Every key, once they stop arriving in order: a duplicate check that
    /// stays linear on objects of many keys.
    seen: Option<HashSet<Cow<'de, str>>>,
}

impl<'de> Entries<'de> {
    /// Up to this many keys, a duplicate is found by a linear scan.
    const SCAN_BELOW: usize = 16;
    /// Room for this many members at the first one.
    const FIRST_CAPACITY: usize = 8;

    fn contains(&mut self, k: &str) -> bool {
        if self.list.is_empty() || (self.sorted && self.list.last().is_some_and(|l| &*l.0 < k)) {
            return false;
        }
        // A few keys out of order (a typical tool's arguments): a scan
        // costs less than building and hashing into a set.
        if self.seen.is_none() && self.list.len() < Self::SCAN_BELOW {
            return self.list.iter().any(|e| e.0 == k);
        }
        let seen = self.seen.get_or_insert_with(|| self.list.iter().map(|e| e.0.clone()).collect());
        seen.contains(k)
    }
    fn push(&mut self, k: Cow<'de, str>, start: usize, end: usize) {
        self.sorted = match self.list.last() {
            None => true,
            Some(l) => self.sorted && l.0 < k,
        };
        if let Some(seen) = self.seen.as_mut() {
            seen.insert(k.clone());
        }
        if self.list.capacity() == 0 {
            // Most objects (a tool's arguments, a list's items) have a
            // handful of members: one allocation, not a growth from 4 to 8.
            self.list.reserve_exact(Self::FIRST_CAPACITY);
        }
        self.list.push((k, start, end));
    }
    /// Rewrites `out[body..]` (the entries, comma-separated) in key order.
    fn sort_into(mut self, out: &mut Vec<u8>, body: usize) {
        if self.sorted {
            return;
        }
        let written = out.split_off(body);
        self.list.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (i, (_, start, end)) in self.list.iter().enumerate() {
            if i > 0 {
                out.put(b",");
            }
            out.put(written.get(start - body..end - body).unwrap_or_default());
        }
    }
}

/// An object key, borrowed from the text when it has no escapes (no
/// allocation per key, unlike `String`; the same serde_json path). Also
/// the envelope reader's key (`envelope.rs`).
pub(crate) struct KeyText;

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

/// The canonical form of JSON text, read strictly without building a tree:
/// `canonical(parse(bytes, max_bytes)?)`, with the same errors.
pub fn canonical_text(bytes: &[u8], max_bytes: usize) -> Result<Vec<u8>, JsonError> {
    if bytes.len() > max_bytes {
        return Err(JsonError::TooLarge);
    }
    // Plain text (the usual state a binding hands over) takes the fast
    // path; anything else, errors included, the strict writer below.
    if let Some(out) = fast::canonical(bytes) {
        return Ok(out);
    }
    strict_canonical_text(bytes)
}

/// Issue 16, sixth pass (late): the canonical form of the plain JSON value
/// `text` starts with, read at nesting `depth`, and its length in `text`;
/// `None` when the fast path gives up (the caller then takes its slower
/// road, which decides the result or the error).
pub(crate) fn canonical_prefix(text: &[u8], depth: usize) -> Option<(Vec<u8>, usize)> {
    fast::canonical_prefix(text, depth)
}

/// [`canonical_text`] by the strict streaming writer alone (after the size
/// check): the reference the fast path is held to.
pub(crate) fn strict_canonical_text(bytes: &[u8]) -> Result<Vec<u8>, JsonError> {
    let failure = Cell::new(None);
    let odd = Cell::new(false);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut out = Vec::with_capacity(bytes.len());
    let seed = Canon {
        strict: Strict { depth: 0, failure: &failure, args: None },
        out: &mut out,
        odd: &odd,
        fast: None,
    };
    match seed.deserialize(&mut de).and_then(|()| de.end()) {
        Ok(()) => Ok(out),
        Err(e) => Err(failure.take().unwrap_or_else(|| JsonError::Syntax(e.to_string()))),
    }
}
