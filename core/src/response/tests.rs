//! Issue 16, seventh pass: an `input_required` response kept as its parts
//! is the message `decide` built before as a tree. Held to that tree (the
//! reference) for random ids, keys (escapes, non-ASCII, any order),
//! questions, tokens and `_meta`: the same `body`, the same `to_json`
//! bytes, the same `into_body`, `Debug`, equality and `is_error`.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(json!(2.5)),
        Just(json!(1e300)),
        "[a-z\"\\\\\u{1}\u{7f}\n é\u{2028}😀]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-c\"_]{1,3}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn arb_id() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        "[a-z\"\\\\\u{1}é]{0,8}".prop_map(Value::from),
        Just(Value::Null),
        Just(json!(7.0)),
    ]
}

/// Unique keys in any order (as `decide` hands them over).
fn arb_requests() -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::btree_map(
        "[a-zA-Z0-9_\"\\\\\u{1}\u{8}\u{c}\t\r\n\u{1f}\u{7f}é/.-]{0,6}",
        arb_value(),
        0..5,
    )
    .prop_flat_map(|m| {
        let v: Vec<(String, Value)> = m.into_iter().collect();
        Just(v).prop_shuffle()
    })
}

/// The reference: the tree `decide` built before the seventh pass.
fn reference(id: Value, requests: Vec<(String, Value)>, token: String, meta: Option<Value>) -> Response {
    let mut result = Map::new();
    result.insert("resultType".into(), Value::String("input_required".to_owned()));
    if !requests.is_empty() {
        let mut asked = Map::new();
        for (key, request) in requests {
            asked.insert(key, request);
        }
        result.insert("inputRequests".into(), Value::Object(asked));
    }
    result.insert("requestState".into(), Value::String(token));
    if let Some(m) = meta {
        result.insert("_meta".into(), m);
    }
    Response::result(id, Value::Object(result))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parts_give_the_reference_message(
        id in arb_id(),
        requests in arb_requests(),
        token in prop_oneof![
            "v1\\.[a-z0-9]{1,4}\\.[A-Za-z0-9_-]{0,40}\\.[A-Za-z0-9_-]{43}",
            "[a-z\"\\\\\u{1}\t\u{7f}é]{0,12}",
        ],
        meta in prop::option::of(prop::collection::btree_map("[a-z/_.]{1,8}", arb_value(), 0..3)),
    ) {
        let meta = meta.map(|m| Value::Object(m.into_iter().collect()));
        let want = reference(id.clone(), requests.clone(), token.clone(), meta.clone());
        let got = Response::input_required(id, requests, token, meta);
        // The text first, while no tree has been built; and (eighth pass:
        // every value of it through the canonical writer) serde's own text.
        prop_assert_eq!(got.to_json(), want.to_json());
        prop_assert_eq!(got.to_json(), serde_json::to_string(want.body()).unwrap());
        prop_assert_eq!(got.is_error(), want.is_error());
        prop_assert_eq!(got.http_status(), want.http_status());
        prop_assert_eq!(got.diagnostic(), want.diagnostic());
        prop_assert_eq!(got.clone().into_body(), want.body().clone());
        prop_assert_eq!(got.body(), want.body());
        // And again once the tree exists.
        prop_assert_eq!(got.to_json(), want.to_json());
        prop_assert_eq!(format!("{got:?}"), format!("{want:?}"));
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(got.clone().into_body(), want.into_body());
    }
}

#[test]
fn a_response_made_of_parts_is_not_an_error_and_differs_from_another() {
    let a = Response::input_required(
        json!(1),
        vec![("b".into(), json!({})), ("a".into(), json!(2))],
        "t".into(),
        None,
    );
    let b = Response::input_required(json!(1), vec![("a".into(), json!(2))], "t".into(), None);
    assert!(!a.is_error());
    assert_ne!(a, b);
    assert_eq!(
        a.to_json(),
        r#"{"id":1,"jsonrpc":"2.0","result":{"inputRequests":{"a":2,"b":{}},"requestState":"t","resultType":"input_required"}}"#
    );
    let e = Response::internal(json!(1), "x".into());
    assert!(e.is_error());
    assert_ne!(a, e);
}
