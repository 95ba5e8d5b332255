//! Issue 16: a fast path for [`canonical_text`](super::canonical_text)
//! over text that is already plain: strings without escapes, numbers
//! without an exponent, keys that need no `$` care. It reads the bytes
//! directly (no serde walk, no allocation per key or number), copies
//! strings and numbers as runs, and sorts an object's members only when
//! they did not arrive sorted, with one scratch list for every object.
//!
//! It never decides an error: on anything it is not sure of (an escape, an
//! exponent, a duplicate key, a syntax error, nesting near the bound, ...)
//! it gives up with `None`, and the caller runs the strict streaming
//! writer over the same text, which gives the bytes or the exact error.
//! So its only duty is that what it does write is exactly that writer's
//! output; the property tests in `tests.rs` hold it to the reference.

use std::cell::Cell;

use super::super::strict::MAX_DEPTH;
use super::super::{plain_ascii_len, plain_len};

thread_local! {
    /// Issue 16, seventh pass: the member list and the sorting scratch of
    /// the last read on this thread, emptied, for the next read: a
    /// request's arguments then cost no allocation but their canonical
    /// bytes (three allocations per unsorted `arguments` object before).
    /// Only small lists are kept (see `give_back`): a long-lived large
    /// chunk was seen to cost glibc more than it saved (sixth pass).
    static SPARE: Cell<(Vec<Member>, Vec<u8>)> = const { Cell::new((Vec::new(), Vec::new())) };
}

/// The spare lists, empty (new ones if another read holds them).
///
/// `try_with`, not `with`: a read from another thread-local's destructor
/// may find this one gone, and `with` would panic there (a panic in a
/// thread-local destructor aborts the process). It then reads with new
/// lists and keeps nothing.
fn spare() -> (Vec<Member>, Vec<u8>) {
    SPARE.try_with(Cell::take).unwrap_or_default()
}

/// Keeps `members` and `scratch`, emptied, for the next read if small.
fn give_back(mut members: Vec<Member>, mut scratch: Vec<u8>) {
    if members.capacity() <= 64 && scratch.capacity() <= 1024 {
        members.clear();
        scratch.clear();
        // Gone (see `spare`): the lists are simply freed.
        let _gone = SPARE.try_with(|s| s.set((members, scratch)));
    }
}

/// One member of an object being written: its key's bytes in the input
/// and its `"key":value` bytes in the output.
#[derive(Clone, Copy)]
struct Member {
    key: (usize, usize),
    out: (usize, usize),
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    out: Vec<u8>,
    /// While the text read so far is already canonical (no whitespace to
    /// drop, members in order) nothing is written: the output would be
    /// `text[..at]`, copied in one piece at the end or when the text first
    /// differs (issue 16: canonical state costs a scan and one copy).
    verbatim: bool,
    /// `out.len()` when reading began.
    base: usize,
    /// Every open object's members, innermost last (one list reused by
    /// all objects instead of a `Vec` each).
    members: Vec<Member>,
    /// Where the members are moved while an unsorted object is rewritten.
    scratch: Vec<u8>,
}

/// The canonical form of `text` if the fast path can write it, `None`
/// when the strict writer must decide.
pub(super) fn canonical(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    canonical_into(text, 0, &mut out)?;
    Some(out)
}

/// [`canonical`] of a value read at nesting `depth` (a request's
/// arguments are at 2), appended to `out`; `None` leaves `out` partly
/// written.
pub(super) fn canonical_into(text: &[u8], depth: usize, out: &mut Vec<u8>) -> Option<()> {
    let base = out.len();
    let (members, scratch) = spare();
    let mut r = Reader { text, at: 0, out: std::mem::take(out), verbatim: true, base, members, scratch };
    r.ws();
    let read = r.value(depth);
    r.ws();
    r.materialize();
    *out = r.out;
    give_back(r.members, r.scratch);
    read?;
    (r.at == text.len()).then_some(())
}

/// Issue 16, sixth pass (late): the one value that `text` starts with
/// (at its first byte), read at nesting `depth` like [`canonical_into`],
/// whatever follows it left unread: its canonical bytes and how many
/// bytes of `text` it spans. It gives up exactly where [`canonical_into`]
/// would on that value's text alone, so the envelope reader can read a
/// request's `arguments` once instead of scanning for its end first.
pub(super) fn canonical_prefix(text: &[u8], depth: usize) -> Option<(Vec<u8>, usize)> {
    let (members, scratch) = spare();
    let mut r = Reader { text, at: 0, out: Vec::new(), verbatim: true, base: 0, members, scratch };
    let read = r.value(depth);
    give_back(std::mem::take(&mut r.members), std::mem::take(&mut r.scratch));
    read?;
    // Usually still verbatim: one exact allocation and copy here.
    r.materialize();
    Some((r.out, r.at))
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    #[inline(always)]
    fn ws(&mut self) {
        // Nearly always a byte above space follows: one comparison, no call.
        if self.peek().is_some_and(|b| b <= b' ') {
            self.skip_ws();
        }
    }

    #[cold]
    fn skip_ws(&mut self) {
        if !matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            return;
        }
        // Whitespace is dropped: from here on the output differs.
        self.materialize();
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Leaves verbatim mode: writes out what it stood for, `text[..at]`.
    fn materialize(&mut self) {
        if self.verbatim {
            self.verbatim = false;
            self.out.extend_from_slice(self.text.get(..self.at).unwrap_or_default());
        }
    }

    /// Writes `bytes` (just read) unless in verbatim mode.
    fn emit(&mut self, bytes: &[u8]) {
        if !self.verbatim {
            self.out.extend_from_slice(bytes);
        }
    }

    /// Where the output ends, written or verbatim.
    fn out_len(&self) -> usize {
        if self.verbatim { self.base + self.at } else { self.out.len() }
    }

    /// Copies `self.text[from..self.at]` to the output.
    fn copy_from(&mut self, from: usize) -> Option<()> {
        let text = self.text;
        self.emit(text.get(from..self.at)?);
        Some(())
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => {
                let (start, end) = self.string()?;
                let text = self.text;
                self.emit(text.get(start - 1..end + 1)?);
                Some(())
            }
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            _ => None,
        }
    }

    fn word(&mut self, w: &[u8]) -> Option<()> {
        if self.text.get(self.at..self.at + w.len())? != w {
            return None;
        }
        self.at += w.len();
        self.emit(w);
        Some(())
    }

    /// A string with no escape and no control character, valid UTF-8:
    /// its content's range (the canonical form is the same bytes in
    /// quotes). The reader ends past the closing quote.
    // Read for every key and string value: the call alone was ~3% of
    // reading plain 32 KiB arguments (callgrind, issue 16 late pass).
    // Fourteenth pass: the end found eight bytes at a time (the envelope
    // reader's `plain_len`, held to a byte scan by property tests) and an
    // ASCII string known as such in the same pass; a string with a byte
    // above 0x7f is measured on from that byte and checked as UTF-8.
    #[inline(always)]
    fn string(&mut self) -> Option<(usize, usize)> {
        self.at += 1;
        let start = self.at;
        let rest = self.text.get(start..)?;
        let mut len = plain_ascii_len(rest);
        if rest.get(len).is_some_and(|&b| b > 0x7f) {
            // Not a stop of `plain_len`: the string goes on from here.
            len += plain_len(rest.get(len..)?);
            std::str::from_utf8(rest.get(..len)?).ok()?;
        }
        if rest.get(len) != Some(&b'"') {
            return None;
        }
        self.at = start + len + 1;
        Some((start, start + len))
    }

    /// A number without an exponent, written as spelled (as the strict
    /// writer writes such numbers).
    fn number(&mut self) -> Option<()> {
        let from = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        // An exponent (normalised by the strict writer), or a digit or
        // anything else glued on (`01`, `1x`): not for this path.
        if matches!(self.peek(), Some(b'e' | b'E' | b'0'..=b'9' | b'.' | b'+' | b'-')) {
            return None;
        }
        self.copy_from(from)
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth + 1 >= MAX_DEPTH {
            return None;
        }
        self.at += 1;
        self.emit(b"[");
        self.ws();
        if self.peek()? == b']' {
            self.at += 1;
            self.emit(b"]");
            return Some(());
        }
        loop {
            self.value(depth + 1)?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    self.emit(b",");
                    self.ws();
                }
                b']' => {
                    self.at += 1;
                    self.emit(b"]");
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        if depth + 1 >= MAX_DEPTH {
            return None;
        }
        self.at += 1;
        self.emit(b"{");
        self.ws();
        if self.peek()? == b'}' {
            self.at += 1;
            self.emit(b"}");
            return Some(());
        }
        let body = self.out_len();
        let base = self.members.len();
        let mut sorted = true;
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let start = self.out_len();
            let key = self.string()?;
            let name = self.text.get(key.0..key.1)?;
            // serde_json's reserved number key, perhaps: the strict
            // writer's call.
            if name.first() == Some(&b'$') {
                return None;
            }
            if let Some(last) = self.members.get(base..).and_then(<[Member]>::last) {
                // Equal is a duplicate: the strict writer's error.
                sorted = sorted && key_less(self.text.get(last.key.0..last.key.1)?, name);
            }
            let text = self.text;
            self.emit(text.get(key.0 - 1..key.1 + 1)?);
            self.ws();
            if self.peek()? != b':' {
                return None;
            }
            self.at += 1;
            self.emit(b":");
            self.ws();
            self.value(depth + 1)?;
            self.members.push(Member { key, out: (start, self.out_len()) });
            self.ws();
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    self.emit(b",");
                    self.ws();
                }
                // Consumed after the sort, which writes out what the
                // verbatim output stood for up to here.
                b'}' => break,
                _ => return None,
            }
        }
        if !sorted {
            self.materialize();
            self.sort_members(base, body)?;
        }
        self.members.truncate(base);
        self.at += 1;
        self.emit(b"}");
        Some(())
    }

    /// Rewrites `out[body..]` (this object's members, comma-separated)
    /// in key order; `None` on a repeated key.
    fn sort_members(&mut self, base: usize, body: usize) -> Option<()> {
        let text = self.text;
        let members = self.members.get_mut(base..)?;
        members.sort_unstable_by(|a, b| text.get(a.key.0..a.key.1).cmp(&text.get(b.key.0..b.key.1)));
        if members
            .windows(2)
            .any(|w| matches!(w, [a, b] if text.get(a.key.0..a.key.1) == text.get(b.key.0..b.key.1)))
        {
            return None;
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(self.out.get(body..)?);
        self.out.truncate(body);
        for (i, m) in members.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.out.extend_from_slice(self.scratch.get(m.out.0 - body..m.out.1 - body)?);
        }
        Some(())
    }
}

mod keys;
pub(super) use keys::key_less;
