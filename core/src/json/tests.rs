#![allow(clippy::unwrap_used)]

use super::*;

fn p(s: &str) -> Result<Value, JsonError> {
    parse(s.as_bytes(), 1 << 20)
}

#[test]
fn numbers_keep_their_lexical_form() {
    for s in ["1", "1.0", "-0", "-0.0", "1.50", "12345678901234567890", "-9223372036854775809", "1e-2"] {
        let v = p(s).unwrap();
        assert_eq!(String::from_utf8(canonical(&v).unwrap()).unwrap(), s, "number {s}");
    }
    // The exponent marker is the one normalisation: lowercase `e` and an
    // explicit sign (docs/canonical-json.md).
    for (s, c) in [("1e2", "1e+2"), ("1E2", "1e+2"), ("1E+2", "1e+2"), ("1E-2", "1e-2"), ("1e400", "1e+400")]
    {
        assert_eq!(String::from_utf8(canonical(&p(s).unwrap()).unwrap()).unwrap(), c, "number {s}");
    }
    assert_ne!(p("1").unwrap(), p("1.0").unwrap());
}

#[test]
fn duplicate_keys_rejected_at_any_depth() {
    assert_eq!(p(r#"{"a":1,"a":2}"#), Err(JsonError::DuplicateKey("a".into())));
    assert_eq!(p(r#"{"x":[{"b":{"c":1,"c":1}}]}"#), Err(JsonError::DuplicateKey("c".into())));
    // Same key in sibling objects is fine.
    assert!(p(r#"[{"a":1},{"a":2}]"#).is_ok());
}

#[test]
fn the_reserved_number_key_is_refused_in_input() {
    // Without the guard each of these parsed as the number 1, colliding
    // with the text `1` (a parser differential found by fuzzing).
    for text in [
        r#"{"$serde_json::private::Number":"1"}"#,
        r#"{"\u0024serde_json::private::Number":"1"}"#,
        r#"{"$serde_json::private::Number":1}"#,
        r#"{"$serde_json::private::Number":"1","x":2}"#,
        r#"[{"$serde_json::private::Number":{}}]"#,
    ] {
        assert!(matches!(p(text), Err(JsonError::Syntax(_))), "{text}");
    }
    // Only the first key is special to serde_json; later it is a key.
    assert!(p(r#"{"a":1,"$serde_json::private::Number":"1"}"#).is_ok());
    assert_eq!(canonical(&p("[1,1.0,-0]").unwrap()).unwrap(), b"[1,1.0,-0]");
}

#[test]
fn depth_is_bounded() {
    let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    assert!(p(&ok).is_ok());
    let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    assert_eq!(p(&deep), Err(JsonError::TooDeep));
    let obj = r#"{"a":"#.repeat(10_000) + "1" + &"}".repeat(10_000);
    assert_eq!(p(&obj), Err(JsonError::TooDeep));
    let arr = "[".repeat(100_000);
    assert!(p(&arr).is_err());
}

#[test]
fn size_checked_first() {
    assert_eq!(parse(b"[1,2,3]", 3), Err(JsonError::TooLarge));
    assert!(parse(b"[1]", 3).is_ok());
}

#[test]
fn bad_text_rejected() {
    for s in ["", "{", "[1,]", r#"{"a":1} x"#, r#""\ud800""#, "nul", "01", "NaN"] {
        assert!(matches!(p(s), Err(JsonError::Syntax(_))), "{s:?}");
    }
    assert!(matches!(parse(b"\"\xff\"", 100), Err(JsonError::Syntax(_))));
}

#[test]
fn canonical_sorts_keys_and_escapes_once() {
    let v = p(
        r#"{ "b" : [1, 2.50, "x"], "a": {"z": null, "é": true, "A": false}, "s": "q\"\\\/\u0001\u00e9\n" }"#,
    )
    .unwrap();
    let c = String::from_utf8(canonical(&v).unwrap()).unwrap();
    assert_eq!(
        c,
        "{\"a\":{\"A\":false,\"z\":null,\"é\":true},\"b\":[1,2.50,\"x\"],\"s\":\"q\\\"\\\\/\\u0001é\\n\"}"
    );
    // Canonical output re-parses to the same value and is a fixed point.
    assert_eq!(canonical(&p(&c).unwrap()).unwrap(), c.as_bytes());
}

#[test]
fn skip_only_top_level() {
    let v = p(r#"{"_meta":1,"name":"t","arguments":{"_meta":2}}"#).unwrap();
    let Value::Object(map) = v else { unreachable!() };
    let mut out = Vec::new();
    assert!(write_members(&map, &["_meta"], &mut out, 1, MAX_DEPTH));
    assert_eq!(out, br#"{"arguments":{"_meta":2},"name":"t"}"#);
}

#[test]
fn integer_by_value() {
    let n = |s: &str| match p(s).unwrap() {
        Value::Number(n) => n,
        _ => unreachable!(),
    };
    assert!(number_is_integer(&n("30")));
    assert!(number_is_integer(&n("30.0")));
    assert!(number_is_integer(&n("1e3")));
    assert!(!number_is_integer(&n("30.5")));
    assert!(!number_is_integer(&n("1e400")));
}

#[test]
fn a_deep_value_is_refused_by_the_writer_not_overflowing() {
    // Far past any bound: the writer stops one level past it, and
    // `deeper_than` keeps its own stack.
    let v = (0..200_000).fold(Value::from(1), |inner, _| Value::Array(vec![inner]));
    assert!(deeper_than(&v, MAX_DEPTH));
    assert!(deeper_than(&v, 3));
    assert_eq!(canonical(&v), None);
    // Leak it: dropping 200 000 nested arrays would itself recurse.
    std::mem::forget(v);
    let ok = (0..MAX_DEPTH - 1).fold(Value::Array(vec![]), |inner, _| Value::Array(vec![inner]));
    assert!(!deeper_than(&ok, MAX_DEPTH) && deeper_than(&ok, MAX_DEPTH - 1));
    assert!(canonical(&ok).is_some());
}

mod properties {
    //! The one reader and the one writer, on random trees and texts.
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use super::super::*;

    fn arb_string() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{0,12}",
            "[a-zé\u{1F600}\"\\\\\n\u{1}\u{1f}\u{7f} ]{0,16}",
            prop::collection::vec(any::<char>(), 0..12).prop_map(|c| c.into_iter().collect()),
        ]
    }

    fn arb_number() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            prop::sample::select(vec![
                "1.0",
                "-0",
                "-0.0",
                "1.50",
                "1e2",
                "1E-2",
                "1e400",
                "123456789012345678901234"
            ])
            .prop_map(|t| Value::Number(t.parse().unwrap())),
        ]
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            arb_number(),
            arb_string().prop_map(Value::from),
        ];
        leaf.prop_recursive(6, 60, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((arb_string(), inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    /// JSON text of `v` with whitespace and keys in reverse order, which
    /// the reader must take as the same value.
    fn loose_text(v: &Value) -> String {
        match v {
            Value::Object(m) => {
                let members: Vec<String> = m
                    .iter()
                    .rev()
                    .map(|(k, v)| format!(" {} : {} ", to_wire(&Value::from(k.as_str())), loose_text(v)))
                    .collect();
                format!("{{ {} }}", members.join(","))
            }
            Value::Array(items) => {
                format!("[ {} ]", items.iter().map(loose_text).collect::<Vec<_>>().join(" , "))
            }
            other => to_wire(other),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// parse → canonical → parse gives the same value, and the
        /// canonical text is a fixed point of the writer.
        #[test]
        fn canonical_round_trips_and_is_idempotent(v in arb_value()) {
            let text = loose_text(&v);
            let parsed = parse(text.as_bytes(), 1 << 20).unwrap();
            prop_assert_eq!(&parsed, &v);
            let c = canonical(&parsed).unwrap();
            let again = parse(&c, 1 << 20).unwrap();
            prop_assert_eq!(&again, &v);
            prop_assert_eq!(canonical(&again).unwrap(), c.clone());
            prop_assert_eq!(canonicalize(text.as_bytes()).unwrap().into_bytes(), c.clone());
            // serde_json's compact text of a sorted tree is the canonical text.
            prop_assert_eq!(to_wire(&v).into_bytes(), c);
        }

        /// A key repeated in any object, at any depth, is refused, naming
        /// the key.
        #[test]
        fn duplicate_keys_are_refused_at_every_depth(
            v in arb_value(),
            key in arb_string(),
            depth in 0usize..20,
        ) {
            let k = to_wire(&Value::from(key.as_str()));
            let dup = format!("{{{k}:1,\"x\":{},{k}:2}}", loose_text(&v));
            let text = (0..depth).fold(dup, |inner, i| {
                if i % 2 == 0 { format!("[0,{inner}]") } else { format!("{{\"a\":{inner}}}") }
            });
            let want = Err(JsonError::DuplicateKey(key.clone()));
            prop_assert_eq!(parse(text.as_bytes(), 1 << 20), want);
        }

        /// The string writer is serde_json's escaping, byte for byte.
        #[test]
        fn write_string_is_serdes(s in arb_string()) {
            let mut out = b"prefix".to_vec();
            write_string(&s, &mut out);
            let serde = serde_json::to_string(&s).unwrap();
            prop_assert_eq!(&out[6..], serde.as_bytes());
        }
    }
}
