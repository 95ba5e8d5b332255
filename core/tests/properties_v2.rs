//! Property tests for token v2 (and the ids of every token), as
//! `properties.rs` has for the request binding: round trip of any state,
//! any single changed character refused with the right reason, and no
//! plaintext of the state in the token.
#![allow(clippy::unwrap_used, missing_docs)]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use proptest::prelude::*;
use serde_json::{Value, json};
use snodo::{Config, Engine, Key, Principal, SealInput, TokenReason, binding_digest};

const NOW: u64 = 1_800_000_000;

fn engine(version: u8) -> Engine {
    let mut c = Config::new(vec![Key::new("k1", vec![5; 32]).unwrap(), Key::new("k2", vec![6; 32]).unwrap()])
        .fixed_time(NOW);
    c.token_version = version;
    Engine::new(c).unwrap()
}

fn arb_state() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-zA-Z0-9 é\"\\\\]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn binding() -> [u8; 32] {
    binding_digest("tools/call", &json!({"name": "t", "arguments": {"x": 1}})).unwrap()
}

fn seal(e: &Engine, state: &Value) -> String {
    let p = Principal::user("alice").unwrap();
    let b = binding();
    let mut input: SealInput<'_> = e.seal_input(&p, &b);
    input.state = Some(state);
    e.seal(&input).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn v2_round_trips_any_state(state in arb_state()) {
        let e = engine(2);
        let t = seal(&e, &state);
        prop_assert!(t.starts_with("v2.k1."));
        let o = e.open(&t, &Principal::user("alice").unwrap(), &binding()).unwrap();
        let want = if state.is_null() { None } else { Some(state) };
        prop_assert_eq!(o.state(), want);
        prop_assert_eq!(o.version(), 2);
        // Both engines open it: token_version only chooses what is sealed.
        prop_assert!(engine(1).open(&t, &Principal::user("alice").unwrap(), &binding()).is_ok());
    }

    #[test]
    fn v2_any_changed_character_is_refused(state in arb_state(), pick in any::<prop::sample::Index>(),
                                           with in prop::sample::select(b"AQgw_-.9zv".to_vec())) {
        let e = engine(2);
        let t = seal(&e, &state);
        let i = pick.index(t.len());
        prop_assume!(t.as_bytes()[i] != with);
        let mut b = t.clone().into_bytes();
        b[i] = with;
        let edited = String::from_utf8(b).unwrap();
        let reason = e.open(&edited, &Principal::user("alice").unwrap(), &binding()).unwrap_err().reason;
        // The prefix: another version word, or not one; the key id: another
        // key (`key`) or the ring's other key (`signature`, as associated
        // data); the body: not base64url (`malformed`) or not authentic.
        let allowed: &[TokenReason] = if i < 2 {
            &[TokenReason::Version, TokenReason::Malformed]
        } else if i < 6 {
            &[TokenReason::Key, TokenReason::Malformed, TokenReason::Signature]
        } else {
            &[TokenReason::Signature, TokenReason::Malformed]
        };
        prop_assert!(allowed.contains(&reason), "{:?} at {}", reason, i);
    }

    #[test]
    fn v2_never_shows_the_state(secret in "[A-Za-z0-9]{12,24}") {
        let e = engine(2);
        let state = json!({"card": secret});
        let t = seal(&e, &state);
        let raw = URL_SAFE_NO_PAD.decode(t.rsplit('.').next().unwrap()).unwrap();
        prop_assert!(!raw.windows(secret.len()).any(|w| w == secret.as_bytes()));
        prop_assert!(!t.contains(&secret));
        // And a v1 token of the same state does show it (base64 of the JSON).
        let v1 = seal(&engine(1), &state);
        let body = URL_SAFE_NO_PAD.decode(v1.split('.').nth(2).unwrap()).unwrap();
        prop_assert!(body.windows(secret.len()).any(|w| w == secret.as_bytes()));
    }

    #[test]
    fn every_token_has_fresh_ids(version in 1u8..=2) {
        let e = engine(version);
        let a = seal(&e, &Value::Null);
        let b = seal(&e, &Value::Null);
        prop_assert_ne!(&a, &b);
        let who = Principal::user("alice").unwrap();
        let (oa, ob) = (e.open(&a, &who, &binding()).unwrap(), e.open(&b, &who, &binding()).unwrap());
        prop_assert_ne!(oa.token_id(), ob.token_id());
        prop_assert_ne!(oa.flow_id(), ob.flow_id());
    }
}
