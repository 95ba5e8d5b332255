//! Issue 16, fifth pass: the hand reader of a payload as `seal` writes it.

use std::collections::BTreeMap;

use serde_json::value::RawValue;

use super::super::{ID_BYTES, PRINCIPAL_TAG_BYTES, TokenError, TokenReason, legacy_ids};
use super::fields::{BATCH_QUESTIONS, Batch, Slot};
use super::{IdText, Payload, RawText, decode_fixed};

/// A payload's fields as `open` checks them, its base64url fields
/// decoded: what [`read_written`] reads in one pass, or what
/// [`Written::decode`] makes of the serde reader's [`Payload`].
pub(crate) struct Written<'a> {
    pub(crate) v: u64,
    pub(crate) iat: u64,
    pub(crate) exp: u64,
    pub(crate) fs: u64,
    pub(crate) r: u32,
    pub(crate) b: [u8; 32],
    pub(crate) p: [u8; PRINCIPAL_TAG_BYTES],
    pub(crate) q: BTreeMap<String, [u8; 32]>,
    /// The state's JSON text, borrowed from the payload.
    pub(crate) s: Option<&'a str>,
    /// The token's id and its flow's id, each as bytes and as text.
    pub(crate) tid: ([u8; ID_BYTES], IdText),
    pub(crate) fid: ([u8; ID_BYTES], IdText),
}

impl<'a> Written<'a> {
    /// The fields of a payload serde read, decoded in the order `open`
    /// has always decoded them (the binding, the principal tag, the
    /// questions by key, the ids), each failure malformed; the ids of a v1
    /// token sealed before issue 17 (neither written) derived from
    /// `legacy_tag`, its MAC tag.
    pub(crate) fn decode(p: Payload<'a>, legacy_tag: Option<&[u8]>) -> Result<Written<'a>, TokenError> {
        let b = decode_fixed(p.b.as_str())?;
        let ptag = decode_fixed(p.p.as_str())?;
        let mut q = BTreeMap::new();
        for (k, v) in p.q {
            q.insert(k, decode_fixed::<32>(v.as_str())?);
        }
        // Issue 17: both ids, or (a v1 token sealed before them) neither.
        let (token, flow) = match (&p.tid, &p.fid, legacy_tag) {
            (Some(t), Some(f), _) => {
                (decode_fixed::<ID_BYTES>(t.as_str())?, decode_fixed::<ID_BYTES>(f.as_str())?)
            }
            (None, None, Some(tag)) => legacy_ids(tag),
            _ => return Err(TokenError { reason: TokenReason::Malformed }),
        };
        Ok(Written {
            v: p.v,
            iat: p.iat,
            exp: p.exp,
            fs: p.fs,
            r: p.r,
            b,
            p: ptag,
            q,
            s: p.s.map(|raw| raw.get()),
            tid: (token, IdText::new(&token)),
            fid: (flow, IdText::new(&flow)),
        })
    }
}

/// Issue 16, fifth pass: reads a payload laid out exactly as
/// `write_payload` writes it (keys in their order, no spaces, plain
/// digits, base64url text of the exact length of its bytes, keys without
/// escapes), straight from the bytes; `None` for anything else, which the
/// caller reads with serde (`Payload`'s `Deserialize`) and decodes with
/// [`Written::decode`]. Whatever this accepts, that reads as the same
/// fields (a property test holds it to that), so the fast path changes no
/// result, only the cost.
///
/// Issue 16, eighth pass: each base64url field is decoded where it is
/// read (its length is fixed by its bytes', so it is delimited by length,
/// not scanned), and an id's text is taken from the payload rather than
/// encoded again from its bytes. A field that does not decode is left to
/// serde, so its error comes where it always has (after the version).
pub(crate) fn read_written(bytes: &[u8]) -> Option<Written<'_>> {
    let mut r = Reader { bytes, at: 0 };
    // Tenth pass: the fixed-length fields are queued and decoded together
    // once the payload is read (`fields.rs`); any that would not decode
    // leaves the payload to serde, as when each was decoded where read.
    let mut batch = Batch::new();
    r.lit(b"{\"b\":")?;
    let b = batch.push::<32, 43>(r.fixed()?)?;
    r.lit(b",\"exp\":")?;
    let exp = r.u64()?;
    r.lit(b",\"fid\":")?;
    let fid_text: &[u8; 22] = r.fixed()?;
    let fid = batch.push::<ID_BYTES, 22>(fid_text)?;
    r.lit(b",\"fs\":")?;
    let fs = r.u64()?;
    r.lit(b",\"iat\":")?;
    let iat = r.u64()?;
    r.lit(b",\"p\":")?;
    let p = batch.push::<PRINCIPAL_TAG_BYTES, 22>(r.fixed()?)?;
    r.lit(b",\"q\":{")?;
    let mut q = BTreeMap::new();
    // The digests in the batch, by key; those past its room are decoded
    // where read. `seal` never repeats a key: a repeated one leaves the
    // payload to serde (whose map keeps the last), so the order in which
    // the two kinds are filled in cannot matter.
    let mut queued: [Option<(&str, Slot<32>)>; BATCH_QUESTIONS] = [None; BATCH_QUESTIONS];
    let mut n = 0;
    if r.lit(b"}").is_none() {
        loop {
            let key = r.key()?;
            r.lit(b":")?;
            let text: &[u8; 43] = r.fixed()?;
            let digest = match queued.get_mut(n) {
                Some(place) => {
                    *place = Some((key, batch.push::<32, 43>(text)?));
                    [0; 32]
                }
                None => decode_fixed::<32>(std::str::from_utf8(text).ok()?).ok()?,
            };
            n += 1;
            if q.insert(key.to_owned(), digest).is_some() {
                return None;
            }
            if r.lit(b"}").is_some() {
                break;
            }
            r.lit(b",")?;
        }
    }
    r.lit(b",\"r\":")?;
    let round = u32::try_from(r.u64()?).ok()?;
    let s = match r.lit(b",\"s\":") {
        Some(()) => Some(r.raw()?.get()),
        None => None,
    };
    r.lit(b",\"tid\":")?;
    let tid_text: &[u8; 22] = r.fixed()?;
    let tid = batch.push::<ID_BYTES, 22>(tid_text)?;
    r.lit(b",\"v\":")?;
    let v = r.u64()?;
    r.lit(b"}")?;
    if r.at != bytes.len() {
        return None;
    }
    let decoded = batch.decode()?;
    for (key, slot) in queued.iter().flatten() {
        *q.get_mut(*key)? = decoded.get(*slot)?;
    }
    Some(Written {
        v,
        iat,
        exp,
        fs,
        r: round,
        b: decoded.get(b)?,
        p: decoded.get(p)?,
        q,
        s,
        tid: (decoded.get(tid)?, IdText(*tid_text)),
        fid: (decoded.get(fid)?, IdText(*fid_text)),
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
        rest.get(..n).unwrap_or_default()
    }

    /// A string of exactly `T` bytes, its text (decoded later, with the
    /// payload's other fixed-length fields: see `fields.rs`). The decoder
    /// takes only the alphabet, with no padding and no stray trailing
    /// bits, so text it takes has no escape (serde reads the same string)
    /// and is the one encoding of its bytes.
    fn fixed<const T: usize>(&mut self) -> Option<&'a [u8; T]> {
        self.lit(b"\"")?;
        let end = self.at.checked_add(T)?;
        let text: &'a [u8; T] = self.bytes.get(self.at..end)?.try_into().ok()?;
        self.at = end;
        self.lit(b"\"")?;
        Some(text)
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
        if digits.is_empty() || (digits.len() > 1 && digits.first() == Some(&b'0')) {
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
