//! Issue 16, fourteenth pass: the streaming reader's key order check
//! (`key_less`, keys as zero-padded numbers) against byte order, and
//! objects whose keys share long prefixes, differ past the eighth or the
//! sixteenth byte, or hold bytes above 0x7f (the string scan's second,
//! UTF-8 checked, path), written by the fast path exactly as by the
//! strict writer.
#![allow(clippy::unwrap_used, clippy::panic)]

use proptest::prelude::*;

use crate::json::*;

/// Keys made of pieces that often repeat, so that two keys share a
/// prefix of any length and end on either side of 8 and 16 bytes; with
/// a space (0x20, the least byte a plain key can hold), DEL and
/// non-ASCII characters of two and four bytes.
fn key() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec!["a", "a", "b", " ", "~", "\u{7f}", "é", "😀", "abcdefg", "Z"]);
    prop::collection::vec(piece, 0..7).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20000))]

    /// `key_less` is `<` on the keys' bytes, for keys and for a key
    /// against itself with something appended (a proper prefix).
    #[test]
    fn key_less_is_byte_order(a in key(), b in key(), tail in key()) {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        prop_assert_eq!(super::fast::key_less(a, b), a < b, "{:?} {:?}", a, b);
        prop_assert_eq!(super::fast::key_less(b, a), b < a, "{:?} {:?}", b, a);
        let longer = [a, tail.as_bytes()].concat();
        prop_assert_eq!(super::fast::key_less(a, &longer), a < longer.as_slice());
        prop_assert_eq!(super::fast::key_less(&longer, a), false);
        prop_assert!(!super::fast::key_less(a, a));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6000))]

    /// Objects (one nested) with such keys, in the order given (sorted or
    /// not, repeated keys too): the fast path writes the strict writer's
    /// bytes, and `canonical_text` answers as the tree reference does.
    #[test]
    fn near_keys_are_written_as_the_strict_writer_writes(
        keys in prop::collection::vec(key(), 1..7),
        inner in prop::collection::vec(key(), 0..4),
        nest_at in any::<prop::sample::Index>(),
    ) {
        let nested: Vec<String> = inner.iter().enumerate().map(|(i, k)| format!("\"{k}\":{i}")).collect();
        let nested = format!("{{{}}}", nested.join(","));
        let at = nest_at.index(keys.len());
        let members: Vec<String> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| if i == at { format!("\"{k}\":{nested}") } else { format!("\"{k}\":\"{k}\"") })
            .collect();
        let text = format!("{{{}}}", members.join(","));
        if let Some(out) = super::fast::canonical(text.as_bytes()) {
            prop_assert_eq!(Ok(out), super::strict_canonical_text(text.as_bytes()), "{}", text);
        }
        prop_assert_eq!(
            canonical_text(text.as_bytes(), 1 << 20),
            parse(text.as_bytes(), 1 << 20).map(|v| canonical(&v)),
            "{}", text
        );
    }
}

/// Keys at the edges of the padded compare, by hand: equal up to 8 and
/// 16 bytes, one a prefix of the other, longer than 16 bytes.
#[test]
fn key_less_at_the_word_edges() {
    let keys: [&[u8]; 12] = [
        b"",
        b" ",
        b"a",
        b"abcdefg",
        b"abcdefgh",
        b"abcdefgh ",
        b"abcdefgha",
        b"abcdefghabcdefgh",
        b"abcdefghabcdefgh ",
        b"abcdefghabcdefgha",
        b"abcdefghabcdefgi",
        b"\xc3\xa9",
    ];
    for a in keys {
        for b in keys {
            assert_eq!(super::fast::key_less(a, b), a < b, "{a:?} {b:?}");
        }
    }
}
