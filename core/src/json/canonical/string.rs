//! JSON strings in the canonical form (docs/canonical-json.md): the one
//! escaping, and the scan that finds where escaping starts (shared with the
//! streaming canonicaliser). Split from `canonical.rs` in the sixth pass of
//! issue 16, when the buffer sink gained its own way to write short strings.

use super::Sink;

/// Writes the canonical form of the JSON string `s`. One escaping for
/// strings: `"` and `\` escaped, the short escapes
/// `\b \f \n \r \t`, other control characters below U+0020 as `\u00xx`
/// (lowercase hex), everything else as raw UTF-8.
#[inline]
pub fn write_string<S: Sink>(s: &str, out: &mut S) {
    let bytes = s.as_bytes();
    // Almost no string needs an escape, and most are short (keys, small
    // values): up to 16 bytes, two overlapping words say so at once
    // (eighth pass: the byte-by-byte scan of the first 16 bytes, with a
    // mispredicted exit per string, was most of writing a 4 KiB state).
    // That case is inlined into the walk; the rest is a call.
    if bytes.len() <= 16 && short_is_plain(bytes) {
        out.put_quoted(bytes);
        return;
    }
    write_long_string(bytes, out);
}

/// [`write_string`] of a string longer than 16 bytes or with an escape.
#[inline(never)]
fn write_long_string<S: Sink>(bytes: &[u8], out: &mut S) {
    // One table lookup per byte finds the first escape, and a
    // plain string is written in one piece (issue 16), its quotes stored
    // as bytes rather than copied as slices (sixth pass).
    // The first escape, found by the envelope reader's word scan (the
    // one scan for where a plain JSON string ends).
    let first = crate::json::plain_len(bytes);
    if first == bytes.len() {
        out.put_quoted(bytes);
        return;
    }
    out.put_byte(b'"');
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate().skip(first) {
        if !escapes(b) {
            continue;
        }
        let esc: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            0x08 => Some(b"\\b"),
            0x0c => Some(b"\\f"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            _ => None,
        };
        // `start` is 0 or one past an earlier `i`, so `start <= i < len`.
        out.put(bytes.get(start..i).unwrap_or_default());
        match esc {
            Some(e) => out.put(e),
            None => out.put(&[b'\\', b'u', b'0', b'0', hex_digit(b >> 4), hex_digit(b)]),
        }
        start = i + 1;
    }
    out.put(bytes.get(start..).unwrap_or_default());
    out.put_byte(b'"');
}

/// Whether `write_string` escapes `b` (the `ESCAPE` set).
#[inline(always)]
// Indexing, proved in bounds: the table has an entry for each of the 256
// values of a byte.
#[allow(clippy::indexing_slicing)]
fn escapes(b: u8) -> bool {
    ESCAPE[usize::from(b)]
}

/// The lowercase hex digit of the low four bits of `n`.
#[inline(always)]
fn hex_digit(n: u8) -> u8 {
    b"0123456789abcdef".get(usize::from(n & 15)).copied().unwrap_or(b'0')
}

/// The bytes `write_string` escapes: control characters, `"` and `\`.
// Indexing, proved in bounds (and checked by the compiler, this being a
// constant): every index is below 0x20 or is `"` or `\`.
#[allow(clippy::indexing_slicing)]
static ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Non-zero if some byte of `v` is below `n` (n at most 128). Exact as to
/// whether there is one (a borrow only runs on past a byte that is below
/// `n`), though not as to which.
#[inline]
const fn below(v: u64, n: u64) -> u64 {
    v.wrapping_sub(ONES * n) & !v & HIGH
}

/// Whether some byte of `v` is one `write_string` escapes (the `ESCAPE`
/// set: below U+0020, `"` or `\`).
#[inline]
const fn word_escapes(v: u64) -> bool {
    below(v, 0x20) | below(v ^ (ONES * b'"' as u64), 1) | below(v ^ (ONES * b'\\' as u64), 1) != 0
}

/// Whether no byte of `bytes` (at most 16) is in the `ESCAPE` set, in a
/// fixed number of steps: 8 to 16 bytes as two overlapping words, 4 to 7
/// as two overlapping halves of one word, fewer one by one. A property
/// test holds it to the table.
#[inline]
fn short_is_plain(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if let (Some(a), Some(b)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        return !word_escapes(u64::from_le_bytes(*a)) && !word_escapes(u64::from_le_bytes(*b));
    }
    if let (Some(a), Some(b)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        let v = u64::from(u32::from_le_bytes(*a)) | u64::from(u32::from_le_bytes(*b)) << 32;
        return !word_escapes(v);
    }
    // 0 to 3 bytes: the first, middle and last cover them all.
    match (bytes.first(), bytes.get(n / 2), bytes.last()) {
        (Some(&a), Some(&b), Some(&c)) => !(escapes(a) | escapes(b) | escapes(c)),
        _ => true,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Bytes near every edge of the `ESCAPE` set (controls, 0x1f/0x20,
    /// quote and backslash and their neighbours, high bytes), often.
    fn arb_byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            prop::sample::select(vec![
                0u8, 1, 0x08, 0x0a, 0x1f, 0x20, 0x21, b'"', 0x23, b'[', b'\\', b']', 0x7f, 0x80, 0xa2, 0xdc,
                0xff
            ]),
            any::<u8>(),
            Just(b'a'),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20000))]

        /// Eighth pass: the fixed-step test of a short string says what the
        /// table says, byte by byte, at every length up to 16.
        #[test]
        fn short_is_plain_is_the_table(bytes in prop::collection::vec(arb_byte(), 0..=16)) {
            prop_assert_eq!(short_is_plain(&bytes), !bytes.iter().any(|&b| ESCAPE[b as usize]));
        }

        /// And the strings written are serde_json's (whose escaping the
        /// canonical form shares), at lengths around the short cut-off.
        #[test]
        fn write_string_is_serdes(chars in prop::collection::vec(
            prop_oneof![Just('a'), Just('"'), Just('\\'), Just('\n'), Just('\u{1}'), Just('\u{1f}'), Just('é'), Just('\u{1F600}'), any::<char>()],
            0..24,
        )) {
            let s: String = chars.into_iter().collect();
            let mut out = b"prefix".to_vec();
            write_string(&s, &mut out);
            let serde = serde_json::to_string(&s).unwrap();
            prop_assert_eq!(&out[6..], serde.as_bytes());
        }
    }

    /// Every single byte at every position of every length up to 16, in a
    /// string otherwise plain.
    #[test]
    fn short_is_plain_sees_each_position() {
        for n in 1..=16usize {
            for at in 0..n {
                for b in 0..=255u8 {
                    let mut bytes = vec![b'a'; n];
                    bytes[at] = b;
                    assert_eq!(short_is_plain(&bytes), !ESCAPE[b as usize], "n {n} at {at} byte {b}");
                }
            }
        }
    }
}
