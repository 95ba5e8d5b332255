//! The fast paths of issue 16 against their slow references, for random
//! inputs: the one-search duplicate check in the strict parser refuses
//! exactly the first repeated key in document order (before reading its
//! value) and otherwise builds the same value as serde_json's own reader;
//! the binding digest (through the inline-buffered SHA-256 sink) is the
//! SHA-256 of the plain canonical bytes. The sink's cut independence is a
//! unit test in `src/json/tests.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashSet;

use proptest::prelude::*;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use snodo::internal::json as sjson;

/// An object tree as written: members in order, keys possibly repeated.
#[derive(Debug, Clone)]
enum Tree {
    Leaf(String),
    Arr(Vec<Tree>),
    Obj(Vec<(String, Tree)>),
}

fn arb_tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("-0".to_owned()),
        Just("1.0".to_owned()),
        Just("12345678901234567890".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        (any::<i32>(), 0u32..1000).prop_map(|(a, b)| format!("{a}.{b}e-3")),
        "[a-z é😀\"\\\\\u{1}\n]{0,6}".prop_map(|s| Value::String(s).to_string()),
        // Long strings cross the sink's buffer.
        (0usize..3000).prop_map(|n| format!("\"{}\"", "ab\\n".repeat(n / 4))),
    ];
    leaf.prop_map(Tree::Leaf).prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Tree::Arr),
            // A three-letter alphabet, so repeated keys are common.
            prop::collection::vec(("[abc]|\\\\u0061|é", inner), 0..5).prop_map(Tree::Obj),
        ]
    })
}

fn text(t: &Tree) -> String {
    match t {
        Tree::Leaf(s) => s.clone(),
        Tree::Arr(items) => format!("[{}]", items.iter().map(text).collect::<Vec<_>>().join(",")),
        Tree::Obj(members) => format!(
            "{{{}}}",
            members.iter().map(|(k, v)| format!("\"{k}\":{}", text(v))).collect::<Vec<_>>().join(",")
        ),
    }
}

/// The reference: the first key repeated within one object, in document
/// order (a key is checked before its value is read).
fn first_duplicate(t: &Tree) -> Option<String> {
    match t {
        Tree::Leaf(_) => None,
        Tree::Arr(items) => items.iter().find_map(first_duplicate),
        Tree::Obj(members) => {
            let mut seen = HashSet::new();
            for (k, v) in members {
                let key: String = serde_json::from_str(&format!("\"{k}\"")).unwrap();
                if !seen.insert(key.clone()) {
                    return Some(key);
                }
                if let Some(d) = first_duplicate(v) {
                    return Some(d);
                }
            }
            None
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn strict_parse_refuses_the_first_duplicate_key(t in arb_tree()) {
        let src = text(&t);
        let got = sjson::parse_str(&src, usize::MAX);
        match first_duplicate(&t) {
            Some(k) => prop_assert_eq!(got.unwrap_err().to_string(), format!("duplicate object key {k:?}")),
            None => {
                // No duplicates: the same value as serde_json's own reader,
                // and canonical bytes that are a fixed point.
                let v = got.unwrap();
                let reference: Value = serde_json::from_str(&src).unwrap();
                prop_assert_eq!(&v, &reference);
                let c = sjson::canonical(&v);
                prop_assert_eq!(sjson::canonical(&sjson::parse(&c, usize::MAX).unwrap()), c);
            }
        }
    }

    #[test]
    fn binding_digest_is_the_digest_of_the_canonical_bytes(t in arb_tree()) {
        let Ok(v) = sjson::parse_str(&text(&t), usize::MAX) else { return Ok(()) };
        let Value::Object(params) = &v else { return Ok(()) };
        // The reference: the documented preimage, hashed in one piece.
        let mut pre = b"snodo/v1/binding\0tools/call\0".to_vec();
        pre.extend(sjson::canonical(&v));
        let expected: [u8; 32] = Sha256::digest(&pre).into();
        prop_assert_eq!(snodo::internal::binding_digest_map("tools/call", params), expected);
    }
}

/// `text` with JSON whitespace put between its tokens where `spaces` says
/// (a byte per token boundary, cycled), outside strings.
fn spaced(text: &str, spaces: &[u8]) -> String {
    let (mut out, mut in_string, mut escaped, mut n) = (String::new(), false, false, 0usize);
    for c in text.chars() {
        let boundary = !in_string && matches!(c, '{' | '}' | '[' | ']' | ',' | ':');
        if boundary && !spaces.is_empty() {
            out.push_str(match spaces[n % spaces.len()] % 5 {
                0 => " ",
                1 => "\n",
                2 => "\t ",
                3 => "\r\n",
                _ => "",
            });
            n += 1;
        }
        out.push(c);
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        }
    }
    out
}

/// Thirteenth pass: `parse_json` reads plain text by hand first. Where the
/// hand reader gives a value, the strict parser gives the same one;
/// `parse_json` gives the strict parser's value or error in every case,
/// with whitespace between tokens and around the text. A seeded runner,
/// so the count of texts the hand reader took is the same on every run.
#[test]
fn parse_json_is_the_strict_parse() {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config { cases: 2048, failure_persistence: None, ..Config::default() },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let (taken, total) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    runner
        .run(&(arb_tree(), prop::collection::vec(any::<u8>(), 0..8)), |(t, spaces)| {
            let src = format!(
                "{}{}{}",
                if spaces.len() % 2 == 1 { " \n" } else { "" },
                spaced(&text(&t), &spaces),
                if spaces.len() % 3 == 1 { "\t" } else { "" }
            );
            let strict = sjson::parse_str(&src, usize::MAX).map_err(|e| format!("JSON: what: {e}"));
            total.set(total.get() + 1);
            if let Some(v) = sjson::value_tree(src.as_bytes()) {
                taken.set(taken.get() + 1);
                prop_assert_eq!(Ok(v), strict.clone(), "{}", src);
            }
            let got = snodo::parse_json(src.as_bytes(), "what").map_err(|e| e.to_string());
            prop_assert_eq!(got, strict, "{}", src);
            Ok(())
        })
        .unwrap();
    // Both ways were taken often.
    let (taken, total) = (taken.get(), total.get());
    assert!(taken > total / 5 && taken < total * 4 / 5, "{taken} of {total} read by hand");
}

/// The plain texts the bindings hand over are read by hand (so the
/// property above compares something), and text with anything unusual
/// is not.
#[test]
fn the_hand_reader_takes_plain_text_and_leaves_the_rest() {
    let plain = [
        r#"{"type":"complete","result":{"content":[{"type":"text","text":"booked"}]}}"#,
        r#" [1, -0, 1.0, 12345678901234567890, true, false, null, "é😀", {}, []] "#,
        "7",
    ];
    for text in plain {
        assert_eq!(
            sjson::value_tree(text.as_bytes()),
            Some(sjson::parse_str(text, usize::MAX).unwrap()),
            "{text}"
        );
    }
    let unusual = [
        r#"{"a":"line\nbreak"}"#,
        r#"{"a":1e3}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"$serde_json::private::Number":"1"}"#,
        r#"{"a":1} x"#,
        r#""\ud800""#,
        "",
    ];
    for text in unusual {
        assert_eq!(sjson::value_tree(text.as_bytes()), None, "{text}");
    }
    assert_eq!(sjson::value_tree(b"[\"\xff\"]"), None);
}

/// At the nesting bound the hand reader gives up a level before the strict
/// parser would, so `parse_json` still gives the strict parser's value or
/// error for every depth around it.
#[test]
fn parse_json_at_the_nesting_bound() {
    for depth in snodo::MAX_DEPTH - 3..=snodo::MAX_DEPTH + 1 {
        for (open, close, inner) in
            [("[", "]", "1"), ("{\"a\":", "}", "1"), ("[", "]", ""), ("{\"a\":", "}", "{}")]
        {
            let text = format!("{}{inner}{}", open.repeat(depth), close.repeat(depth));
            let strict = sjson::parse_str(&text, usize::MAX).map_err(|e| format!("JSON: what: {e}"));
            if let Some(v) = sjson::value_tree(text.as_bytes()) {
                assert_eq!(Ok(v), strict.clone(), "depth {depth} {open}");
            }
            assert_eq!(
                snodo::parse_json(text.as_bytes(), "what").map_err(|e| e.to_string()),
                strict,
                "depth {depth} {open}"
            );
        }
    }
}

#[test]
fn an_empty_object_and_a_map_of_one_still_parse() {
    let v = sjson::parse_str(r#"{"a":{},"b":[{"c":1}]}"#, 1 << 10).unwrap();
    let mut m = Map::new();
    m.insert("c".into(), Value::Number(1.into()));
    assert_eq!(v["b"][0], Value::Object(m));
}
