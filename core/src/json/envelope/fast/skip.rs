//! Issue 16, sixth pass: a plain JSON value measured, not built (a
//! token's state, which `seal` writes canonical).

use super::super::super::strict::MAX_DEPTH;

/// How many bytes of `rest` come before the first `"`, `\\` or control
/// character (where a plain JSON string ends, and where the canonical
/// writer's escaping starts); all of them if none. Property tests hold it
/// to a byte-by-byte scan.
///
/// Issue 16, seventh pass: eight bytes at a time from the first byte,
/// the stop found in the word by its lowest flagged byte, rather than a
/// table lookup per byte for the first sixteen. A token's state and a
/// request are mostly short keys and values (three to ten bytes), which
/// this reads in one step; the per-byte head was about a third of
/// measuring a 4 KiB state (callgrind).
///
/// Issue 16, eighth pass: a run longer than two words (a token in a
/// request, a long string in a state) goes on out of line, where it is
/// tested 32 bytes at a time ([`long_len`]); the two words stay inline,
/// as most strings of a state end in them.
#[inline(always)]
pub(crate) fn plain_len(rest: &[u8]) -> usize {
    run_len::<false>(rest)
}

/// Issue 16, fourteenth pass: [`plain_len`] that also stops at the first
/// byte above 0x7f, so a run it measures is plain ASCII: a reader over
/// text not yet checked as UTF-8 (the streaming canonicaliser) knows a
/// string needs no UTF-8 check when this stops at its closing quote, in
/// the same pass that finds the quote (a second pass per string,
/// `is_ascii`, was about 8 % of canonicalising plain text). A property
/// test holds it to the first escape or non-ASCII byte.
#[inline(always)]
pub(crate) fn plain_ascii_len(rest: &[u8]) -> usize {
    run_len::<true>(rest)
}

/// [`plain_len`] (`ASCII` false) or [`plain_ascii_len`] (true).
#[inline(always)]
fn run_len<const ASCII: bool>(rest: &[u8]) -> usize {
    match word_stop::<ASCII>(rest, 0) {
        Some(first) if first < 8 => first,
        Some(_) => match word_stop::<ASCII>(rest, 8) {
            Some(second) if second < 8 => 8 + second,
            Some(_) => long_len::<ASCII>(rest),
            None => short_len::<ASCII>(rest, 8),
        },
        None => short_len::<ASCII>(rest, 0),
    }
}

/// Whether `b` ends a run: an escape, or (`ASCII`) a byte above 0x7f.
/// Bitwise, not short-circuit: the block loop stays branch-free (vector
/// code).
#[inline(always)]
fn stops<const ASCII: bool>(b: u8) -> bool {
    (b < 0x20) | (b == b'"') | (b == b'\\') | (ASCII & (b > 0x7f))
}

/// [`run_len`] of a run with no stop in its first sixteen bytes: from
/// there, blocks of 32 bytes each tested with no early exit, which the
/// compiler does in vector registers; then the word loop finds the stop
/// in the block that has one.
#[inline(never)]
fn long_len<const ASCII: bool>(rest: &[u8]) -> usize {
    let mut at = 16;
    while let Some(block) = rest.get(at..at + BLOCK).and_then(|b| <&[u8; BLOCK]>::try_from(b).ok()) {
        let found = block.iter().fold(0u8, |acc, &b| acc | u8::from(stops::<ASCII>(b)));
        if found != 0 {
            break;
        }
        at += BLOCK;
    }
    while let Some(stop) = word_stop::<ASCII>(rest, at) {
        if stop < 8 {
            return at + stop;
        }
        at += 8;
    }
    short_len::<ASCII>(rest, at)
}

/// Bytes per block of [`run_len`]'s long-run loop.
const BLOCK: usize = 32;

/// Where the first stop of the eight bytes at `at` is (8: none), or
/// `None` when fewer than eight bytes are left.
#[inline(always)]
fn word_stop<const ASCII: bool>(rest: &[u8], at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word: [u8; 8] = rest.get(at..at + 8)?.try_into().ok()?;
    let v = u64::from_le_bytes(word);
    // The high bit of each byte below 0x20, equal to '"' or to '\\'.
    // A borrow can flag a byte only above (after) a truly flagged
    // one, so the lowest flag is exact. A byte above 0x7f has its own
    // high bit: exact too.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let mut found =
        below(v, 0x20) | below(v ^ (ONES * u64::from(b'"')), 1) | below(v ^ (ONES * u64::from(b'\\')), 1);
    if ASCII {
        found |= v & HIGH;
    }
    Some(if found == 0 { 8 } else { (found.trailing_zeros() / 8) as usize })
}

/// [`run_len`] of the last (fewer than eight) bytes, from `at`.
#[inline(always)]
fn short_len<const ASCII: bool>(rest: &[u8], at: usize) -> usize {
    let tail = rest.get(at..).unwrap_or_default();
    at + tail.iter().position(|&b| stops::<ASCII>(b)).unwrap_or(tail.len())
}

/// Issue 16, sixth pass: the JSON value at the start of `bytes`, as
/// text, if it is plain (no whitespace, no escapes, nesting at most
/// [`MAX_DEPTH`]) and valid, else `None`; for a token's state, which
/// `seal` writes canonical. Whatever it returns, serde_json reads as one
/// value of that text (grammar checked here, UTF-8 over the slice).
///
/// One loop over the bytes with the open containers as bits (1 for an
/// object), not a call per value: the state is most of a large token.
// Kept out of line: inlined into the payload reader it ran about 10 %
// slower (callgrind, 4 KiB state), the loop's registers spilled.
#[inline(never)]
pub(crate) fn plain_value_len(bytes: &[u8]) -> Option<&str> {
    let mut at = 0;
    // Bit 0 is the innermost open container; `depth` of them are open.
    let (mut stack, mut depth) = (0u64, 0usize);
    loop {
        // A value starts at `at`.
        match *bytes.get(at)? {
            open @ (b'{' | b'[') => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                let object = open == b'{';
                at += 1;
                if bytes.get(at) == Some(if object { &b'}' } else { &b']' }) {
                    at += 1;
                } else {
                    stack = (stack << 1) | u64::from(object);
                    depth += 1;
                    if object {
                        at = key_end(bytes, at)?;
                    }
                    continue;
                }
            }
            b'"' => at = string_end(bytes, at)?,
            b'-' | b'0'..=b'9' => at = number_end(bytes, at)?,
            b't' => at = word_end(bytes, at, b"true")?,
            b'f' => at = word_end(bytes, at, b"false")?,
            b'n' => at = word_end(bytes, at, b"null")?,
            _ => return None,
        }
        // A value ended at `at`: close containers until one goes on.
        loop {
            if depth == 0 {
                return finish(bytes, at);
            }
            let object = stack & 1 == 1;
            match *bytes.get(at)? {
                b',' => {
                    at += 1;
                    if object {
                        at = key_end(bytes, at)?;
                    }
                    break;
                }
                b'}' if object => {}
                b']' if !object => {}
                _ => return None,
            }
            at += 1;
            stack >>= 1;
            depth -= 1;
        }
    }
}

/// The value is `bytes[..at]`: a number or word must end where
/// serde_json's stream reader ends one; then the UTF-8 check.
fn finish(bytes: &[u8], at: usize) -> Option<&str> {
    let delimited = matches!(bytes.first(), Some(b'{' | b'[' | b'"'));
    if !delimited
        && !matches!(
            bytes.get(at),
            None | Some(b' ' | b'\n' | b'\t' | b'\r' | b'"' | b'[' | b']' | b'{' | b'}' | b',' | b':')
        )
    {
        return None;
    }
    std::str::from_utf8(bytes.get(..at)?).ok()
}

/// Past a string without escapes or control characters starting at `at`
/// (UTF-8 is checked over the whole value at the end).
#[inline(always)]
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let rest = bytes.get(at + 1..)?;
    let len = plain_len(rest);
    (rest.get(len) == Some(&b'"')).then_some(at + 1 + len + 1)
}

/// Past a key and its colon.
#[inline(always)]
fn key_end(bytes: &[u8], at: usize) -> Option<usize> {
    let at = string_end(bytes, at)?;
    (bytes.get(at) == Some(&b':')).then_some(at + 1)
}

fn word_end(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    let end = at.checked_add(word.len())?;
    (bytes.get(at..end)? == word).then_some(end)
}

// Issue 16, seventh pass: the helpers of the loop above inlined into it
// and the digit run a plain loop: 43.2k -> 38.5k instructions to measure
// a 4 KiB state (callgrind).
#[inline(always)]
fn digits_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    at
}

/// Past any JSON number (exponents too), by the grammar.
#[inline(always)]
fn number_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    if bytes.get(at) == Some(&b'-') {
        at += 1;
    }
    match *bytes.get(at)? {
        b'0' => at += 1,
        b'1'..=b'9' => at = digits_end(bytes, at + 1),
        _ => return None,
    }
    if bytes.get(at) == Some(&b'.') {
        if !bytes.get(at + 1)?.is_ascii_digit() {
            return None;
        }
        at = digits_end(bytes, at + 1);
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        if !bytes.get(at)?.is_ascii_digit() {
            return None;
        }
        at = digits_end(bytes, at);
    }
    Some(at)
}
