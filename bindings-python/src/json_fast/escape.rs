//! JSON string escaping for the wheel's own canonical writer (`text.rs`)
//! and reader (`read/scalars.rs`): which bytes a JSON string escapes, found
//! eight at a time, and how canonical text escapes them.

/// A JSON string (UTF-8 `s`) as canonical text writes it: `"` and `\`
/// escaped, the five short escapes, every other control character as
/// `\u00xx` (lowercase), everything else as it is.
pub(super) fn write_string(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    let mut run = 0;
    let mut i = 0;
    while i < s.len() {
        // Eight bytes at a time while none needs escaping (most text); in a
        // chunk that has one, straight to the first such byte.
        if let Some(chunk) = s.get(i..i + 8).and_then(|c| <[u8; 8]>::try_from(c).ok()) {
            let mask = escape_mask(u64::from_le_bytes(chunk));
            if mask == 0 {
                i += 8;
                continue;
            }
            i += first_marked(mask);
        } else {
            // Fewer than eight bytes left.
            match s.get(i..).and_then(|tail| tail.iter().position(|&b| ESCAPED[usize::from(b)])) {
                Some(at) => i += at,
                None => break,
            }
        }
        let Some(&b) = s.get(i) else { break };
        out.extend_from_slice(s.get(run..i).unwrap_or_default());
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xf)]);
            }
        }
        i += 1;
        run = i;
    }
    out.extend_from_slice(s.get(run..).unwrap_or_default());
    out.push(b'"');
}

/// The bytes a JSON string escapes: control characters, `"` and `\`.
const ESCAPED: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// The bytes of `x` (eight, little-endian) that are below 0x20, `"` or
/// `\`, marked by their high bit: the classic "has a zero byte" test (`(v -
/// 0x01..) & !v & 0x80..` marks each zero byte of `v`, plus false marks
/// only above a true one) on `x ^ '"'`, `x ^ '\'` and `x & 0xe0` (zero for
/// bytes below 0x20). So the lowest mark is always a true one
/// ([`first_marked`]), and no mark means no such byte.
pub(super) fn escape_mask(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    zero(x ^ (ONES * u64::from(b'"'))) | zero(x ^ (ONES * u64::from(b'\\'))) | zero(x & (ONES * 0xe0))
}

/// The index of the first byte `mask` (from [`escape_mask`], not zero)
/// marks.
pub(super) fn first_marked(mask: u64) -> usize {
    (mask.trailing_zeros() / 8) as usize
}
