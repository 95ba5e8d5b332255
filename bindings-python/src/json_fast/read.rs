//! Canonical JSON text → Python objects directly, with no `Value` tree in
//! between and each distinct key string made once per text. It returns
//! `None` on anything it does not read exactly as the reference would
//! (malformed text, keys repeated or out of byte order, deep nesting): the
//! caller then takes the reference path, which decides.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};

use super::KEY_CACHE;
use crate::json::MAX_DEPTH;

mod scalars;
use scalars::Text;

/// Reads JSON text into Python objects; `None` when the reference path
/// must decide (see the module docs).
pub fn text_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let mut reader = Reader {
        py,
        src: text,
        text: text.as_bytes(),
        pos: 0,
        keys: Vec::new(),
        key_hint: 0,
        first_key_hint: 0,
        members: Vec::new(),
        templates: Vec::new(),
        strings: Vec::new(),
    };
    let Some(value) = reader.value(0)? else {
        return Ok(None);
    };
    reader.skip_ws();
    Ok((reader.pos == reader.text.len()).then_some(value))
}

/// A recursive reader over strict JSON (RFC 8259). `Ok(None)` means
/// "not read here", never a wrong value.
struct Reader<'py, 't> {
    py: Python<'py>,
    /// The text, and `src` as bytes: slices between ASCII delimiters are
    /// taken from `src`, so they need no second UTF-8 check.
    src: &'t str,
    text: &'t [u8],
    pos: usize,
    /// Key strings without escapes, made once per text (a state's list of
    /// records repeats the same few keys).
    keys: Vec<(&'t str, Bound<'py, PyString>)>,
    /// Where in `keys` to look first: just after the last hit, since the
    /// records of a list repeat their keys in the same order.
    key_hint: usize,
    /// Where in `keys` the last object's first key is: the next record of
    /// a list starts with it (`key_hint` then points past the last
    /// record's last key).
    first_key_hint: usize,
    /// Members of the objects being read, innermost last (one buffer for
    /// the whole text: no allocation per object).
    members: Vec<(Bound<'py, PyString>, Bound<'py, PyAny>)>,
    /// Dicts of the key shapes met so far (see [`Template`]).
    templates: Vec<Template<'py>>,
    /// Short string values made in this text, by a hash of their bytes
    /// (one per slot, the last one wins): records repeat values ("LHR",
    /// "pending") and one shared `str` object (immutable, so sharing is
    /// not observable but by `is`) saves making and freeing another.
    strings: Vec<Option<(&'t str, Bound<'py, PyString>)>>,
}

/// Slots of `Reader::strings`, and the longest value kept there.
const STRING_SLOTS: usize = 64;
const SHORT_STRING: usize = 16;

/// A key shape (the same key objects in the same order) and a private dict
/// of that shape. A list of records repeats one shape: copying the
/// template (`PyDict_Copy` clones the key table in one piece) and setting
/// each value in place costs less than inserting the keys one by one into
/// a new dict (which also grows its table once past five keys). The
/// template holds its keys, so their addresses stay theirs while it lives;
/// and its keys passed the order check when it was made, so an object
/// that follows it needs no comparison of key text.
struct Template<'py> {
    keys: Vec<usize>,
    dict: Bound<'py, PyDict>,
}

/// Templates kept per text, and the fewest members worth one (below it a
/// new dict is as cheap as a copy).
const TEMPLATES: usize = 8;
const TEMPLATE_MIN_MEMBERS: usize = 4;

type Read<'py> = PyResult<Option<Bound<'py, PyAny>>>;

impl<'py, 't> Reader<'py, 't> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, word: &[u8]) -> bool {
        if self.text.get(self.pos..self.pos + word.len()) == Some(word) {
            self.pos += word.len();
            return true;
        }
        false
    }

    /// The key string for `s` (no escapes), made once per text.
    fn key(&mut self, s: &'t str) -> Bound<'py, PyString> {
        if let Some((t, k)) = self.keys.get(self.key_hint)
            && same(t.as_bytes(), s.as_bytes())
        {
            self.key_hint += 1;
            return k.clone();
        }
        if let Some(at) = self.keys.iter().position(|(t, _)| same(t.as_bytes(), s.as_bytes()))
            && let Some((_, k)) = self.keys.get(at)
        {
            self.key_hint = at + 1;
            return k.clone();
        }
        let k = PyString::new(self.py, s);
        if self.keys.len() < KEY_CACHE {
            self.keys.push((s, k.clone()));
            self.key_hint = self.keys.len();
        }
        k
    }

    /// The key at `pos` (on its opening quote) when it is the one the key
    /// cache expects next (records repeat their keys in order), read
    /// without scanning: a cached key has no quote, backslash or control
    /// character, so its bytes followed by a quote are exactly the string
    /// that `string` would read.
    fn expected_key(&mut self) -> Option<(Text<'t>, Bound<'py, PyString>)> {
        let (t, k) = self.keys.get(self.key_hint)?;
        let start = self.pos + 1;
        let end = start + t.len();
        if self.text.get(end) != Some(&b'"') || !same(self.text.get(start..end)?, t.as_bytes()) {
            return None;
        }
        let found = (Text::Borrowed(t), k.clone());
        self.pos = end + 1;
        self.key_hint += 1;
        Some(found)
    }

    /// The `str` of the value `s` (no escapes), shared with an earlier
    /// equal short value of this text when the slot still holds it.
    fn short_string(&mut self, s: &'t str) -> Bound<'py, PyString> {
        if s.len() > SHORT_STRING {
            return PyString::new(self.py, s);
        }
        if self.strings.is_empty() {
            self.strings.resize_with(STRING_SLOTS, || None);
        }
        let slot = string_slot(s.as_bytes());
        if let Some(Some((t, k))) = self.strings.get(slot)
            && same(t.as_bytes(), s.as_bytes())
        {
            return k.clone();
        }
        let k = PyString::new(self.py, s);
        if let Some(entry) = self.strings.get_mut(slot) {
            *entry = Some((s, k.clone()));
        }
        k
    }

    fn value(&mut self, depth: usize) -> Read<'py> {
        self.skip_ws();
        let py = self.py;
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => match self.string()? {
                Some(Text::Borrowed(s)) => Ok(Some(self.short_string(s).into_any())),
                Some(Text::Owned(s)) => Ok(Some(PyString::new(py, &s).into_any())),
                None => Ok(None),
            },
            Some(b't') if self.eat(b"true") => Ok(Some(PyBool::new(py, true).to_owned().into_any())),
            Some(b'f') if self.eat(b"false") => Ok(Some(PyBool::new(py, false).to_owned().into_any())),
            Some(b'n') if self.eat(b"null") => Ok(Some(py.None().into_bound(py))),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Ok(None),
        }
    }

    fn object(&mut self, depth: usize) -> Read<'py> {
        if depth >= MAX_DEPTH {
            return Ok(None);
        }
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Some(PyDict::new(self.py).into_any()));
        }
        let base = self.members.len();
        let read = self.members_of_object(depth, base);
        let dict = match read {
            Ok(Some(follows)) => self.dict_of(base, follows),
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        };
        self.members.truncate(base);
        dict
    }

    /// Reads an object's members (after its `{`, the object not empty) onto
    /// `members` from `base` on. `Some(template)`: the template whose keys
    /// the members have, all of them in its order, if any.
    fn members_of_object(&mut self, depth: usize, base: usize) -> PyResult<Option<Option<usize>>> {
        // The reference builds a sorted map, so its dict has the keys in
        // byte order; canonical text has them so already. Keys out of order
        // (or repeated, which the reference refuses) make this reader defer.
        // An object that follows a template key for key needs no
        // comparison: the template's keys were checked when it was made.
        let mut prev: Option<Text<'t>> = None;
        let mut follows: Option<usize> = None;
        self.key_hint = self.first_key_hint;
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Ok(None);
            }
            let (text, key) = match self.expected_key() {
                Some(known) => known,
                None => {
                    let Some(text) = self.string()? else {
                        return Ok(None);
                    };
                    let key = match &text {
                        Text::Borrowed(b) => self.key(b),
                        Text::Owned(s) => PyString::new(self.py, s),
                    };
                    (text, key)
                }
            };
            let at = self.members.len() - base;
            let addr = key.as_ptr() as usize;
            follows = if at == 0 {
                self.first_key_hint = self.key_hint.saturating_sub(1);
                self.templates.iter().position(|t| t.keys.first() == Some(&addr))
            } else {
                follows.filter(|&t| self.templates.get(t).and_then(|t| t.keys.get(at)) == Some(&addr))
            };
            if follows.is_none() && prev.as_ref().is_some_and(|p| p.bytes() >= text.bytes()) {
                return Ok(None);
            }
            prev = Some(text);
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Ok(None);
            }
            self.pos += 1;
            let Some(value) = self.value(depth + 1)? else {
                return Ok(None);
            };
            self.members.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    let n = self.members.len() - base;
                    return Ok(Some(
                        follows.filter(|&t| self.templates.get(t).is_some_and(|t| t.keys.len() == n)),
                    ));
                }
                _ => return Ok(None),
            }
        }
    }

    /// The dict of the members from `base` on: a copy of `template` with
    /// the values set, or a new dict (which becomes a template when there
    /// is room and it has enough members).
    fn dict_of(&mut self, base: usize, template: Option<usize>) -> Read<'py> {
        let members = self.members.get(base..).unwrap_or_default();
        // An object that strayed from the template its first key chose may
        // still have another template's shape (records with optional keys).
        let template = template.or_else(|| {
            if members.len() < TEMPLATE_MIN_MEMBERS {
                return None;
            }
            self.templates.iter().position(|t| {
                t.keys.len() == members.len()
                    && t.keys.iter().zip(members).all(|(&a, (k, _))| a == k.as_ptr() as usize)
            })
        });
        if let Some(t) = template.and_then(|t| self.templates.get(t)) {
            let dict = t.dict.copy()?;
            for (key, value) in members {
                dict.set_item(key, value)?;
            }
            // Setting the values of a copy cannot add a key; checked anyway,
            // as it is cheap.
            if dict.len() == members.len() {
                return Ok(Some(dict.into_any()));
            }
            return Ok(None);
        }
        let dict = PyDict::new(self.py);
        for (key, value) in members {
            dict.set_item(key, value)?;
        }
        if members.len() >= TEMPLATE_MIN_MEMBERS && self.templates.len() < TEMPLATES {
            let keys = members.iter().map(|(k, _)| k.as_ptr() as usize).collect();
            self.templates.push(Template { keys, dict: dict.copy()? });
        }
        Ok(Some(dict.into_any()))
    }

    fn array(&mut self, depth: usize) -> Read<'py> {
        if depth >= MAX_DEPTH {
            return Ok(None);
        }
        self.pos += 1;
        let list = PyList::empty(self.py);
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Some(list.into_any()));
        }
        loop {
            let Some(item) = self.value(depth + 1)? else {
                return Ok(None);
            };
            list.append(item)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Some(list.into_any()));
                }
                _ => return Ok(None),
            }
        }
    }
}

/// The slot of a short string (at most [`SHORT_STRING`] bytes) in
/// `Reader::strings`: its first eight bytes and its length, mixed by a
/// multiplication; strings that differ only after eight bytes share a
/// slot, which costs a miss, never a wrong string (the bytes are compared).
fn string_slot(s: &[u8]) -> usize {
    // Byte by byte: a variable-length copy into a word would be a
    // `memcpy` call, which costs more than these few shifts.
    let mut x = (s.len() as u64) << 56;
    for (i, &b) in s.iter().take(8).enumerate() {
        x ^= u64::from(b) << (8 * i);
    }
    (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % STRING_SLOTS
}

/// Byte equality of two short keys without a `memcmp` call (most keys are
/// a few bytes; the call costs more than the comparison).
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() > 16 {
        return a == b;
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}
