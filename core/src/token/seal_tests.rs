//! Issue 16, sixth pass: `seal` writes the state straight into the
//! payload (depth bound checked on the way), takes the questions' digests
//! with their depth check in the same walk, sizes the payload from the
//! thread's last one, and builds the token in one buffer. Held here to the
//! reference way: the depth checked by `deeper_than` first, the payload by
//! `write_payload` (the state canonicalised on its own, digests by
//! `question_digest`), encoded and MACed through `String`s. The same token
//! bytes, or the same error, for random and often too deep inputs.
#![allow(clippy::unwrap_used)]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::Mac;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::json;

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(json!(2.5)),
        "[a-z\"\\\\\u{1}\n é]{0,20}".prop_map(Value::from),
    ];
    let tree = leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-c\"]{1,3}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    });
    // Wrapped in arrays to about the depth bound, on either side of it.
    (tree, prop_oneof![3 => Just(0usize), 1 => 55usize..70]).prop_map(|(mut v, wraps)| {
        for _ in 0..wraps {
            v = Value::Array(vec![v]);
        }
        v
    })
}

fn sealer(max_token_bytes: usize) -> Sealer {
    let ring = KeyRing::new(&[Key::new("k1", vec![5; 32]).unwrap()]).unwrap();
    let limits = Limits {
        ttl: 300,
        max_rounds: 16,
        max_flow_age: 3600,
        max_token_bytes,
        skew: 60,
        version: 1,
        min_version: 1,
    };
    Sealer { ring, limits, random: Random::Seeded(11) }
}

/// The reference: what `seal` did before the sixth pass.
fn reference(
    s: &Sealer,
    now: u64,
    input: &SealInput<'_>,
    flow: Option<&[u8; ID_BYTES]>,
    text: Option<&StateText>,
) -> Result<String> {
    if text.is_some() && input.state.is_some_and(|v| !v.is_null()) {
        return Err(Error::new(ErrorCode::Argument, "give the state as a value or as text, not both"));
    }
    let key = s.ring.signer().unwrap();
    let state = input.state.filter(|v| !v.is_null() && text.is_none());
    if state.is_some_and(|v| json::deeper_than(v, json::MAX_DEPTH))
        || input.questions.iter().any(|(_, q)| json::deeper_than(q, json::MAX_DEPTH))
    {
        return Err(Error::new(
            ErrorCode::Argument,
            format!("state and questions may nest at most {} levels", json::MAX_DEPTH),
        ));
    }
    let draw = Draw { now, round: input.round, flow_start: input.flow_start, binding: input.binding };
    let ids = s.random.ids(&draw, flow)?;
    let mut payload = Vec::new();
    write_payload(&mut payload, &key.mac, &s.limits, now, input, &ids, text);
    let mut token = format!("{PREFIX}.{}.{}", key.id, URL_SAFE_NO_PAD.encode(&payload));
    if token.len() + 44 > s.limits.max_token_bytes {
        return Err(size_error(token.len() + 44, &s.limits));
    }
    let mut m = key.mac.clone();
    m.update(token.as_bytes());
    token.push('.');
    token.push_str(&URL_SAFE_NO_PAD.encode(m.finalize().into_bytes()));
    Ok(token)
}

fn same(new: Result<String>, old: Result<String>) -> std::result::Result<(), TestCaseError> {
    match (new, old) {
        (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
        (Err(a), Err(b)) => {
            prop_assert_eq!(a.code(), b.code());
            prop_assert_eq!(a.message(), b.message());
        }
        (a, b) => prop_assert!(false, "seal {a:?}, reference {b:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn seal_matches_the_reference(
        questions in prop::collection::vec(("[ab]{1,2}", arb_value()), 0..4),
        state in prop::option::of(arb_value()),
        as_text in any::<bool>(),
        both in any::<bool>(),
        flow in prop::option::of(any::<[u8; ID_BYTES]>()),
        round in 1u32..5,
        small_limit in any::<bool>(),
    ) {
        let s = sealer(if small_limit { 700 } else { 1 << 20 });
        let (binding, who) = ([4u8; 32], Principal::user("bob").unwrap());
        let input = SealInput { principal: &who, binding: &binding, round, flow_start: 1_000, questions: &questions, state: state.as_ref() };
        // The state as canonical text too, when it is within the bound.
        let text = state
            .as_ref()
            .filter(|v| as_text && !json::deeper_than(v, json::MAX_DEPTH))
            .map(|v| StateText::new(json::canonical(v)).unwrap());
        let with_text = SealInput { state: if both { input.state } else { None }, ..input };
        let flow = flow.as_ref();
        same(s.seal_in_flow(2_000, &input, flow), reference(&s, 2_000, &input, flow, None))?;
        if let Some(t) = &text {
            same(s.seal_text_in_flow(2_000, &with_text, flow, t), reference(&s, 2_000, &with_text, flow, Some(t)))?;
        }
        // `decide`'s way: digests taken first (none for a question too deep).
        let digests: Option<Vec<[u8; 32]>> = questions.iter().map(|(_, q)| question_digest_within(q)).collect();
        same(
            s.seal_with_digests(2_000, &input.parts(), flow, None, digests.as_deref()),
            reference(&s, 2_000, &input, flow, None),
        )?;
    }

    /// The digest with its depth check in one walk: `question_digest`
    /// within the bound, `None` past it.
    #[test]
    fn digest_within_is_the_digest_or_none(q in arb_value()) {
        let expected = (!json::deeper_than(&q, json::MAX_DEPTH)).then(|| question_digest(&q));
        prop_assert_eq!(question_digest_within(&q), expected);
    }
}

/// The stack decoding of a token body (read side, sixth pass).
#[path = "decode_tests.rs"]
mod decode;

/// Splitting a token from both ends (read side, eighth pass).
#[path = "split_tests.rs"]
mod split;
