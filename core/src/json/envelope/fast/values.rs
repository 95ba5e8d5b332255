//! Values the hand reader builds (`tree`, as `Strict` builds them) or,
//! issue 16 seventh pass, only checks (`check`): `params.inputResponses`
//! is checked without being built (see `call::Answers`), and built from
//! its text when first read.

use serde_json::{Map, Value};

use super::super::super::strict::{MAX_DEPTH, number_from_text};
use super::super::RawAnswers;
use super::Reader;

/// The tree of `inputResponses` text the hand reader checked
/// ([`RawAnswers`]): what the reader would have built from it in
/// `begin` (the same reader at the same nesting), or `None` for text it
/// gives up on (never text it checked).
pub(crate) fn answers_tree(text: &str) -> Option<Value> {
    let mut r = Reader::new(text);
    let tree = r.tree(2)?;
    (r.at == text.len()).then_some(tree)
}

/// Issue 16, thirteenth pass: a whole JSON text (whitespace around it
/// allowed) as [`Reader::tree`] builds it, the value at the top (nesting
/// 0), or `None` wherever the reader gives up: text that is not UTF-8,
/// escapes, exponents, a repeated key, nesting one level short of the
/// strict parser's bound, anything unusual. Where it gives a value, the
/// strict parser builds the same one from the same bytes (it is the reader
/// `begin` builds a request's members with; `tests/fast_paths.rs` holds
/// the two to that on random texts), so `parse_json` tries it first and
/// leaves everything else, errors included, to the strict parser.
pub(crate) fn value_tree(bytes: &[u8]) -> Option<Value> {
    let mut r = Reader::new(std::str::from_utf8(bytes).ok()?);
    r.ws();
    let tree = r.tree(0)?;
    r.ws();
    (r.at == bytes.len()).then_some(tree)
}

/// How many keys of one object the checker keeps to find a repeated one;
/// an object with more gives up the check (the tree reader then builds
/// it, as before).
const CHECKED_KEYS: usize = 16;

/// The distinct keys of one object so far, on the stack.
struct Keys<'a> {
    seen: [&'a str; CHECKED_KEYS],
    len: usize,
}

impl<'a> Keys<'a> {
    fn new() -> Keys<'a> {
        Keys { seen: [""; CHECKED_KEYS], len: 0 }
    }

    /// Adds `key`: `None` if it is already there (the tree reader gives up
    /// on a repeated key) or there is no room.
    fn insert(&mut self, key: &'a str) -> Option<()> {
        let seen = self.seen.get(..self.len)?;
        if seen.contains(&key) {
            return None;
        }
        *self.seen.get_mut(self.len)? = key;
        self.len += 1;
        Some(())
    }
}

impl<'a> Reader<'a> {
    /// A value at nesting `depth`, as `Strict` builds it.
    pub(super) fn tree(&mut self, depth: usize) -> Option<Value> {
        match self.peek()? {
            b'{' => {
                if depth + 1 >= MAX_DEPTH {
                    return None;
                }
                let mut map = Map::new();
                self.members(|r, key| match map.entry(key) {
                    serde_json::map::Entry::Occupied(_) => None,
                    serde_json::map::Entry::Vacant(slot) => {
                        slot.insert(r.tree(depth + 1)?);
                        Some(())
                    }
                })?;
                Some(Value::Object(map))
            }
            b'[' => {
                if depth + 1 >= MAX_DEPTH {
                    return None;
                }
                self.at += 1;
                self.ws();
                let mut items = Vec::new();
                if self.eat(b']').is_some() {
                    return Some(Value::Array(items));
                }
                loop {
                    items.push(self.tree(depth + 1)?);
                    self.ws();
                    match self.peek()? {
                        b',' => {
                            self.at += 1;
                            self.ws();
                        }
                        b']' => {
                            self.at += 1;
                            return Some(Value::Array(items));
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.string().map(|s| Value::String(s.to_owned())),
            b'-' | b'0'..=b'9' => {
                let text = self.number()?;
                // A plain unsigned integer (the usual id) straight into a
                // `Number`: what `number_from_text` makes of it, without
                // the copy of its text.
                let plain = !text.starts_with(['-', '0']) && !text.contains('.');
                if let Some(n) = text.parse::<u64>().ok().filter(|_| plain) {
                    return Some(Value::Number(n.into()));
                }
                number_from_text(text.to_owned()).ok().map(Value::Number)
            }
            b't' => self.word(b"true", Value::Bool(true)),
            b'f' => self.word(b"false", Value::Bool(false)),
            b'n' => self.word(b"null", Value::Null),
            _ => None,
        }
    }

    /// Moves past a value at nesting `depth` exactly when [`Reader::tree`]
    /// would build it (the same checks in the same places), without
    /// building it; `None` also when an object has more keys than the
    /// checker keeps ([`CHECKED_KEYS`]).
    pub(super) fn check(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'{' => {
                if depth + 1 >= MAX_DEPTH {
                    return None;
                }
                let mut keys = Keys::new();
                self.members(|r, key| {
                    keys.insert(key)?;
                    r.check(depth + 1)
                })
            }
            b'[' => {
                if depth + 1 >= MAX_DEPTH {
                    return None;
                }
                self.at += 1;
                self.ws();
                if self.eat(b']').is_some() {
                    return Some(());
                }
                loop {
                    self.check(depth + 1)?;
                    self.ws();
                    match self.peek()? {
                        b',' => {
                            self.at += 1;
                            self.ws();
                        }
                        b']' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.string().map(drop),
            b'-' | b'0'..=b'9' => {
                let text = self.number()?;
                let plain = !text.starts_with(['-', '0']) && !text.contains('.');
                if plain && text.parse::<u64>().is_ok() {
                    return Some(());
                }
                number_from_text(text.to_owned()).ok().map(drop)
            }
            b't' => self.word(b"true", Value::Null).map(drop),
            b'f' => self.word(b"false", Value::Null).map(drop),
            b'n' => self.word(b"null", Value::Null).map(drop),
            _ => None,
        }
    }

    /// `params.inputResponses` (nesting 2) checked as [`Reader::tree`]
    /// would build it, not built; `None` (the reader is then anywhere)
    /// when it is not an object or the check gives up.
    pub(super) fn answers(&mut self) -> Option<RawAnswers<'a>> {
        let start = self.at;
        if self.peek()? != b'{' {
            return None;
        }
        let (mut keys, mut all_objects) = (Keys::new(), true);
        self.members(|r, key| {
            keys.insert(key)?;
            all_objects &= r.peek()? == b'{';
            r.check(3)
        })?;
        let text = self.src.get(start..self.at)?;
        Some(RawAnswers { text, members: keys.len, all_objects })
    }
}
