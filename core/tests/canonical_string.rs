//! Strings through the one reader and the one writer: `canonicalize` of a
//! JSON string spelled in any legal way (raw, short escape, `\u` in either
//! case, a surrogate pair) is serde_json's own text for that string, for
//! random strings of control characters, quotes, backslashes, non-ASCII
//! and plain runs. serde_json's escaping is the canonical form's, and is a
//! reference from outside the crate.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;

use proptest::prelude::*;
use snodo::canonicalize;

/// Characters near every edge of the escaping rule, often; any, sometimes.
fn arb_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => Just('a'),
        1 => prop::sample::select(vec![
            '\u{0}', '\u{1}', '\u{8}', '\t', '\n', '\u{b}', '\u{c}', '\r', '\u{1f}', ' ', '!', '"', '#', '/',
            '[', '\\', ']', '\u{7f}', '\u{80}', 'é', '\u{2028}', '\u{fffd}', '😀', '\u{10ffff}',
        ]),
        1 => (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap()),
        1 => any::<char>(),
    ]
}

/// How the input text spells one character: 0 raw where JSON allows it,
/// 1 its short escape if it has one, 2 `\u` lowercase, 3 `\u` uppercase.
fn spell(c: char, how: u8, out: &mut String) {
    let short = match c {
        '"' => Some("\\\""),
        '\\' => Some("\\\\"),
        '/' => Some("\\/"),
        '\u{8}' => Some("\\b"),
        '\u{c}' => Some("\\f"),
        '\n' => Some("\\n"),
        '\r' => Some("\\r"),
        '\t' => Some("\\t"),
        _ => None,
    };
    let raw_ok = c >= ' ' && c != '"' && c != '\\';
    match (how, short) {
        (0, _) if raw_ok => out.push(c),
        (1, Some(s)) => out.push_str(s),
        _ => {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                if how == 3 {
                    write!(out, "\\u{u:04X}").unwrap();
                } else {
                    write!(out, "\\u{u:04x}").unwrap();
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn canonicalize_writes_every_spelling_as_serde_does(
        chars in prop::collection::vec((arb_char(), 0u8..4), 0..48),
    ) {
        let s: String = chars.iter().map(|&(c, _)| c).collect();
        let mut text = String::from("\"");
        for &(c, how) in &chars {
            spell(c, how, &mut text);
        }
        text.push('"');
        let canonical = canonicalize(&text).unwrap();
        prop_assert_eq!(&canonical, &serde_json::to_string(&s).unwrap());
        // Inside a container too.
        let canonical = canonicalize(format!("[1, {{\"k\" : {text}}}]")).unwrap();
        prop_assert_eq!(canonical, format!("[1,{{\"k\":{}}}]", serde_json::to_string(&s).unwrap()));
    }

    /// Long strings that are mostly plain (a padded state's shape), with
    /// an occasional character to escape anywhere in them.
    #[test]
    fn long_mostly_plain_strings_too(
        len in 0usize..300,
        marks in prop::collection::vec((0usize..300, arb_char()), 0..3),
    ) {
        let mut chars = vec!['x'; len];
        for (at, c) in marks {
            if let Some(slot) = chars.get_mut(at) {
                *slot = c;
            }
        }
        let s: String = chars.into_iter().collect();
        let serde = serde_json::to_string(&s).unwrap();
        prop_assert_eq!(canonicalize(&serde).unwrap(), serde);
    }
}
