#![allow(clippy::unwrap_used)]

use super::*;

fn p(s: &str) -> Result<Value, JsonError> {
    parse_str(s, 1 << 20)
}

#[test]
fn numbers_keep_their_lexical_form() {
    for s in ["1", "1.0", "-0", "-0.0", "1.50", "12345678901234567890", "-9223372036854775809", "1e-2"] {
        let v = p(s).unwrap();
        assert_eq!(String::from_utf8(canonical(&v)).unwrap(), s, "number {s}");
    }
    // The exponent marker is the one normalisation: lowercase `e` and an
    // explicit sign (docs/canonical-json.md).
    for (s, c) in [("1e2", "1e+2"), ("1E2", "1e+2"), ("1E+2", "1e+2"), ("1E-2", "1e-2"), ("1e400", "1e+400")]
    {
        assert_eq!(String::from_utf8(canonical(&p(s).unwrap())).unwrap(), c, "number {s}");
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
    assert_eq!(canonical(&p("[1,1.0,-0]").unwrap()), b"[1,1.0,-0]");
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
    let c = String::from_utf8(canonical(&v)).unwrap();
    assert_eq!(
        c,
        "{\"a\":{\"A\":false,\"z\":null,\"é\":true},\"b\":[1,2.50,\"x\"],\"s\":\"q\\\"\\\\/\\u0001é\\n\"}"
    );
    // Canonical output re-parses to the same value and is a fixed point.
    assert_eq!(canonical(&p(&c).unwrap()), c.as_bytes());
}

#[test]
fn skip_only_top_level() {
    let v = p(r#"{"_meta":1,"name":"t","arguments":{"_meta":2}}"#).unwrap();
    let mut out = Vec::new();
    write_object_except(&v, &["_meta"], &mut out);
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

proptest::proptest! {
    // Issue 16: the inline-buffered sink hashes exactly the bytes it is
    // given, however they are cut (pieces smaller than, equal to and larger
    // than its buffer), like a plain SHA-256 over their concatenation.
    #[test]
    fn hash_sink_is_cut_independent(
        data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..6000),
        cuts in proptest::collection::vec(0usize..2500, 0..12),
    ) {
        use sha2::Digest as _;
        let mut sink = super::HashSink::new(sha2::Sha256::new());
        let mut rest: &[u8] = &data;
        for c in cuts {
            let (a, b) = rest.split_at(c.min(rest.len()));
            super::Sink::put(&mut sink, a);
            rest = b;
        }
        super::Sink::put(&mut sink, rest);
        proptest::prop_assert_eq!(sink.finish().finalize(), sha2::Sha256::digest(&data));
    }
}

mod depth {
    //! Issue 16: the recursive depth check against the iterative walk.
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::super::strict::deeper_than_iterative;
    use super::*;

    fn bushy() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![Just(Value::Null), Just(json!(1)), Just(json!("s"))];
        leaf.prop_recursive(5, 40, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(("[a-d]", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    /// A bushy value under a spine of `wraps` arrays and objects (each
    /// with a sibling or not), so depths on both sides of 64 are common.
    fn deep() -> impl Strategy<Value = Value> {
        (bushy(), prop::collection::vec((any::<bool>(), any::<bool>()), 0..75)).prop_map(|(v, wraps)| {
            wraps.into_iter().fold(v, |inner, (object, sibling)| match (object, sibling) {
                // Built by hand: `json!` would copy `inner` at every level.
                (false, false) => Value::Array(vec![inner]),
                (false, true) => Value::Array(vec![json!(1), inner, json!({})]),
                (true, false) => Value::Object([("k".to_owned(), inner)].into_iter().collect()),
                (true, true) => Value::Object(
                    [("a".to_owned(), json!([])), ("k".to_owned(), inner), ("z".to_owned(), json!(2))]
                        .into_iter()
                        .collect(),
                ),
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn recursive_depth_check_matches_the_iterative_walk(v in deep(), max in 0usize..80) {
            prop_assert_eq!(deeper_than(&v, max), deeper_than_iterative(&v, max));
            prop_assert_eq!(deeper_than(&v, MAX_DEPTH), deeper_than_iterative(&v, MAX_DEPTH));
        }
    }

    #[test]
    fn a_very_deep_value_is_safe() {
        // Far past any bound: the recursion stops one level past it.
        let v = (0..200_000).fold(json!(1), |inner, _| Value::Array(vec![inner]));
        assert!(deeper_than(&v, MAX_DEPTH));
        assert!(deeper_than(&v, 3));
        // Leak it: dropping 200 000 nested arrays would itself recurse.
        std::mem::forget(v);
    }
}
