//! `write_payload` (fields written in their order) is the canonical form
//! of the payload built as a tree, for random question lists with
//! repeated keys, states and ids.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;

fn question() -> impl Strategy<Value = crate::elicitation::Question> {
    prop_oneof![
        Just(json!({"method": "roots/list"})),
        "[a-z é\"\\\\\n]{0,12}"
            .prop_map(|m| json!({"method": "elicitation/create", "params": {"mode": "url", "message": format!("{m}."), "url": "https://a.b/"}})),
        (1i64..).prop_map(|n| json!({"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": n}})),
    ]
    .prop_map(|v| crate::elicitation::Question::from_value(v).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn payload_matches_the_canonical_tree(
        questions in prop::collection::vec(("[abé]{1,2}", question()), 0..8),
        state in prop::option::of(prop_oneof![Just(json!(null)), "[ -~é]{0,20}".prop_map(Value::from), Just(json!({"z": [1, {"b": 2.50, "a": "\u{1}"}]}))]),
        token in any::<[u8; 16]>(),
        flow in any::<[u8; 16]>(),
        binding in any::<[u8; 32]>(),
        now in any::<u64>(),
        user in "[a-z]{0,8}",
    ) {
        let ring = KeyRing::new(&[Key::new("k", vec![3; 32]).unwrap()]).unwrap();
        let mac = &ring.signer().unwrap().mac;
        let limits = Limits { ttl: 300, max_rounds: 16, max_flow_age: 3600, max_token_bytes: 16384, skew: 60, version: 2, min_version: 1 };
        let principal = if user.is_empty() { Principal::anonymous() } else { Principal::user(user.clone()).unwrap() };
        let input = SealInput { principal: &principal, binding: &binding, round: 3, flow_start: 9, questions: &questions, state: state.as_ref() };
        let bytes = state.as_ref().filter(|s| !s.is_null()).map(|s| crate::json::canonical(s).unwrap());
        let out = write_payload(&principal_tag(mac, &principal), &limits, now, &input, bytes.as_deref(), &Ids { token, flow });
        let mut q = Map::new();
        for (k, r) in &questions {
            q.insert(k.clone(), Value::from(b64(r.digest())));
        }
        let mut tree = json!({
            "b": b64(&binding), "exp": now.saturating_add(300), "fid": b64(&flow), "fs": 9, "iat": now,
            "p": b64(&principal_tag(mac, &principal)), "q": q, "r": 3, "tid": b64(&token), "v": 2,
        });
        if let Some(s) = state.filter(|s| !s.is_null()) {
            tree.as_object_mut().unwrap().insert("s".into(), s);
        }
        let reference = crate::json::canonical(&tree).unwrap();
        prop_assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(reference).unwrap());
    }
}
