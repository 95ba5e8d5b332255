//! Issue 16, fifth pass: the hand reader of a payload as `seal` writes it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::value::RawValue;

use super::{Payload, RawText, Text};

/// Issue 16, fifth pass: reads a payload laid out exactly as
/// `write_payload` writes it (keys in their order, no spaces, plain
/// digits, base64url text, keys without escapes), straight from the
/// bytes; `None` for anything else, which the caller reads with serde
/// (`Payload`'s `Deserialize`). Whatever this accepts, serde reads as the
/// same `Payload` (a property test holds it to that), so the fast path
/// changes no result, only the cost.
pub(crate) fn read_written(bytes: &[u8]) -> Option<Payload<'_>> {
    let mut r = Reader { bytes, at: 0 };
    r.lit(b"{\"b\":")?;
    let b = r.b64()?;
    r.lit(b",\"exp\":")?;
    let exp = r.u64()?;
    r.lit(b",\"fid\":")?;
    let fid = r.b64()?;
    r.lit(b",\"fs\":")?;
    let fs = r.u64()?;
    r.lit(b",\"iat\":")?;
    let iat = r.u64()?;
    r.lit(b",\"p\":")?;
    let p = r.b64()?;
    r.lit(b",\"q\":{")?;
    let mut q = BTreeMap::new();
    if r.lit(b"}").is_none() {
        loop {
            let key = r.key()?;
            r.lit(b":")?;
            // A repeated key keeps the last value, as serde's map does.
            q.insert(key.to_owned(), r.b64()?);
            if r.lit(b"}").is_some() {
                break;
            }
            r.lit(b",")?;
        }
    }
    r.lit(b",\"r\":")?;
    let round = u32::try_from(r.u64()?).ok()?;
    let s = match r.lit(b",\"s\":") {
        Some(()) => Some(r.raw()?),
        None => None,
    };
    r.lit(b",\"tid\":")?;
    let tid = r.b64()?;
    r.lit(b",\"v\":")?;
    let v = r.u64()?;
    r.lit(b"}")?;
    (r.at == bytes.len()).then_some(Payload {
        v,
        iat,
        exp,
        fs,
        r: round,
        b,
        p,
        q,
        s,
        fid: Some(fid),
        tid: Some(tid),
    })
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// The literal `text` next. Issue 16, sixth pass: of a length known
    /// at compile time, so the comparison is inlined, not a `memcmp` call
    /// per field.
    fn lit<const N: usize>(&mut self, text: &[u8; N]) -> Option<()> {
        let end = self.at.checked_add(N)?;
        let here: &[u8; N] = self.bytes.get(self.at..end)?.try_into().ok()?;
        (here == text).then(|| self.at = end)
    }

    /// A run of bytes that `accept` takes, from the current position.
    fn run(&mut self, accept: impl Fn(u8) -> bool) -> &'a [u8] {
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        let n = rest.iter().position(|&c| !accept(c)).unwrap_or(rest.len());
        self.at += n;
        &rest[..n]
    }

    /// A string of base64url characters only (so no escapes).
    fn b64(&mut self) -> Option<Text<'a>> {
        self.lit(b"\"")?;
        let text = self.run(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
        self.lit(b"\"")?;
        Some(Text(Cow::Borrowed(std::str::from_utf8(text).ok()?)))
    }

    /// An object key with no escapes and no control characters.
    fn key(&mut self) -> Option<&'a str> {
        self.lit(b"\"")?;
        let text = self.run(|c| c != b'"' && c != b'\\' && c >= 0x20);
        self.lit(b"\"")?;
        std::str::from_utf8(text).ok()
    }

    /// Plain digits, no leading zero: exactly the numbers `seal` writes.
    fn u64(&mut self) -> Option<u64> {
        let digits = self.run(|c| c.is_ascii_digit());
        if digits.is_empty() || (digits.len() > 1 && digits[0] == b'0') {
            return None;
        }
        // What `str::parse` gives for ASCII digits (overflow: `None`),
        // without the UTF-8 check and the sign handling.
        digits.iter().try_fold(0u64, |n, &d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))
    }

    /// The state: any JSON value but `null` (which serde reads as no
    /// state). Issue 16, sixth pass: plain JSON (as `seal` writes it) is
    /// measured by a byte scan; anything else is checked and delimited by
    /// serde_json's raw value reader, as before.
    fn raw(&mut self) -> Option<RawText<'a>> {
        let rest = self.bytes.get(self.at..)?;
        if rest.first().is_none_or(u8::is_ascii_whitespace) {
            return None;
        }
        if let Some(text) = crate::json::plain_value_len(rest) {
            if text == "null" {
                return None;
            }
            self.at += text.len();
            return Some(RawText(text));
        }
        let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<&RawValue>();
        let raw = values.next()?.ok()?;
        if raw.get() == "null" {
            return None;
        }
        self.at += values.byte_offset();
        Some(RawText(raw.get()))
    }
}
