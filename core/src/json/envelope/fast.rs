//! Issue 16, sixth pass: a hand reader of a plain request message, tried
//! before the serde walk of `read_envelope`. A request as clients send it
//! (keys without escapes, strings without escapes, numbers without an
//! exponent) is read straight from the bytes: no serde dispatch per token,
//! the token string borrowed, `params.arguments` located by a byte scan
//! and handed to the canonical writer as one slice.
//!
//! It never decides an error: on anything it is not sure of (an escape, a
//! key starting with `$`, an exponent, a repeated key, nesting near the
//! bound, a syntax error, `params` or `requestState` of an unusual type)
//! it gives up with `None` and the serde walk reads the message, which
//! gives the exact result or error. So its only duty is that what it
//! returns is exactly what the serde walk returns for the same bytes;
//! `begin`'s property test against the tree path holds it to that.

use std::borrow::Cow;

use serde_json::Value;

use super::super::stream::{canonical_prefix, strict_canonical_text};
use super::super::strict::MAX_DEPTH;
use super::{Envelope, Params, StateArg};
pub(crate) use meta::interned;

/// The message as the serde walk would read it, or `None` (see above).
pub(super) fn read(bytes: &[u8]) -> Option<Envelope<'_>> {
    // Issue 16, seventh pass: UTF-8 checked once over the message, not
    // per string (a call per key cost more than the key's bytes); text
    // that is not UTF-8 is the serde walk's, as a string that is not was.
    let mut r = Reader::new(std::str::from_utf8(bytes).ok()?);
    r.ws();
    let env = r.message()?;
    r.ws();
    (r.at == bytes.len()).then_some(env)
}

struct Reader<'a> {
    text: &'a [u8],
    /// `text` as the `str` it is: slices of it at ASCII bytes are text
    /// without another UTF-8 check.
    src: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(src: &'a str) -> Reader<'a> {
        Reader { text: src.as_bytes(), src, at: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.at += 1)
    }

    /// A string with no escape and no control character, valid UTF-8
    /// (what serde_json hands over borrowed, as the same text).
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let rest = self.text.get(self.at..)?;
        let len = plain_len(rest);
        if rest.get(len) != Some(&b'"') {
            return None;
        }
        // Both ends are quotes: char boundaries.
        let text = self.src.get(self.at..self.at + len)?;
        self.at += len + 1;
        Some(text)
    }

    /// The members of an object: `each` reads the value of every key (the
    /// reader is past the colon). Keys starting with `$` (serde_json's
    /// number marker, perhaps) are the serde walk's call.
    fn members(&mut self, mut each: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            let key = self.string()?;
            if key.starts_with('$') {
                return None;
            }
            self.ws();
            self.eat(b':')?;
            self.ws();
            each(self, key)?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    self.ws();
                }
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A number without an exponent: its text, exactly as spelled (what
    /// serde_json hands `Strict` with `arbitrary_precision`).
    fn number(&mut self) -> Option<&'a str> {
        let from = self.at;
        self.eat(b'-');
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.eat(b'.').is_some() {
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E' | b'0'..=b'9' | b'.' | b'+' | b'-')) {
            return None;
        }
        // Only ASCII was read.
        self.src.get(from..self.at)
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn word(&mut self, w: &[u8], v: Value) -> Option<Value> {
        (self.text.get(self.at..self.at + w.len())? == w).then(|| {
            self.at += w.len();
            v
        })
    }

    /// The message object: what `Top::visit_map` keeps.
    fn message(&mut self) -> Option<Envelope<'a>> {
        if self.peek()? != b'{' {
            return None;
        }
        let mut env = Envelope { object: true, ..Envelope::default() };
        let mut others: Vec<&str> = Vec::new();
        self.members(|r, key| {
            let slot = match key {
                "id" => &mut env.id,
                "method" => {
                    if env.method.is_some() || env.method_known.is_some() {
                        return None;
                    }
                    // Twelfth pass: a name snodo knows is not copied.
                    let start = r.at;
                    if r.peek()? == b'"' {
                        if let Some(known) = r.string().and_then(interned) {
                            env.method_known = Some(known);
                            return Some(());
                        }
                        r.at = start;
                    }
                    &mut env.method
                }
                "jsonrpc" => {
                    if env.jsonrpc.is_some() {
                        return None;
                    }
                    let v2 =
                        if r.peek()? == b'"' { r.string()? == "2.0" } else { r.tree(1).map(|_| false)? };
                    env.jsonrpc = Some(v2);
                    return Some(());
                }
                "params" => {
                    if env.params.is_some() {
                        return None;
                    }
                    let (params, args) = r.params()?;
                    env.params = Some(Some(params));
                    env.args = args;
                    return Some(());
                }
                _ => {
                    if others.contains(&key) {
                        return None;
                    }
                    env.answer |= key == "result" || key == "error";
                    r.tree(1)?;
                    others.push(key);
                    return Some(());
                }
            };
            if slot.is_some() {
                return None;
            }
            *slot = Some(r.tree(1)?);
            Some(())
        })?;
        Some(env)
    }

    /// `params` when it is an object (anything else: the serde walk's),
    /// split as `ParamsSeed` splits it; the canonical bytes of `arguments`.
    fn params(&mut self) -> Option<(Params<'a>, Option<Vec<u8>>)> {
        if self.peek()? != b'{' {
            return None;
        }
        let mut p = Params::default();
        let mut args = None;
        self.members(|r, key| {
            match key {
                "_meta" => {
                    if p.meta.is_some() {
                        return None;
                    }
                    p.meta = Some(r.meta(&mut p.meta_known, &mut p.meta_shared, &mut p.version_known)?);
                }
                "inputResponses" => {
                    if p.input_responses.is_some() || p.answers_text.is_some() {
                        return None;
                    }
                    // Issue 16, seventh pass: checked, kept as text (see
                    // `call::Answers`); else built as before.
                    let start = r.at;
                    match r.answers() {
                        Some(raw) => p.answers_text = Some(raw),
                        None => {
                            r.at = start;
                            p.input_responses = Some(r.tree(2)?);
                        }
                    }
                }
                "requestState" => {
                    if p.request_state.is_some() || r.peek()? != b'"' {
                        return None;
                    }
                    p.request_state = Some(StateArg::Text(Cow::Borrowed(r.string()?)));
                }
                _ => match p.rest.entry(key) {
                    serde_json::map::Entry::Occupied(_) => return None,
                    serde_json::map::Entry::Vacant(slot) if key == "arguments" => {
                        args = Some(r.arguments()?);
                        slot.insert(Value::Null);
                    }
                    serde_json::map::Entry::Vacant(slot) => {
                        slot.insert(r.tree(2)?);
                    }
                },
            }
            Some(())
        })?;
        Some((p, args))
    }

    /// `params.arguments` (nesting 2): its canonical bytes.
    fn arguments(&mut self) -> Option<Vec<u8>> {
        let start = self.at;
        // Issue 16, sixth pass (late): plain arguments are canonicalised in
        // the one read that finds their end (what follows is this reader's
        // to check). On a give-up the scan places the end and the strict
        // writer decides, as before; the fast writer `canonical_text` would
        // try first has just given up on the same text (and writes the
        // strict writer's bytes when it does not), so it is not run again.
        if let Some((canon, len)) = canonical_prefix(self.text.get(start..)?, 2) {
            self.at += len;
            return Some(canon);
        }
        self.scan_value()?;
        strict_canonical_text(self.text.get(start..self.at)?).ok()
    }

    /// Moves past one value by a byte scan that checks only what placing
    /// its end needs (strings without escapes, brackets, nesting below the
    /// bound, no `$` at the start of a string, so never serde_json's number
    /// marker); the writer then checks the rest, and any error of its is
    /// the serde walk's to report. A slice the writer accepts is one JSON
    /// value, so a parser reading the message ends it at the same byte.
    fn scan_value(&mut self) -> Option<()> {
        let mut open = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    let rest = self.text.get(self.at + 1..)?;
                    let len = plain_len(rest);
                    if rest.get(len) != Some(&b'"') || rest.first() == Some(&b'$') {
                        return None;
                    }
                    self.at += len + 2;
                }
                b'{' | b'[' => {
                    if 2 + open + 1 >= MAX_DEPTH {
                        return None;
                    }
                    open += 1;
                    self.at += 1;
                }
                b'}' | b']' => {
                    open = open.checked_sub(1)?;
                    self.at += 1;
                }
                b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' if open > 0 => self.at += 1,
                b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' => {
                    self.at += 1;
                    // A scalar's run: to its end, where the structure goes on.
                    while matches!(
                        self.peek(),
                        Some(b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z')
                    ) {
                        self.at += 1;
                    }
                }
                _ => return None,
            }
            if open == 0 {
                return Some(());
            }
        }
    }
}

mod memo;
mod meta;
mod skip;
mod values;
pub(crate) use skip::{plain_ascii_len, plain_len, plain_value_len};
pub(crate) use values::{answers_tree, value_tree};

#[cfg(test)]
mod tests;
