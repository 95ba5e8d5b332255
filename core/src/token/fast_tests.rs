//! Issue 16: the stack decoder of fixed-size token fields against the
//! reference (decode into a `Vec`, then check the length), on random text
//! that is often not base64url or not the right length: the same bytes,
//! or the same refusal.
#![allow(clippy::unwrap_used)]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use proptest::prelude::*;

use super::*;

fn reference<const N: usize>(s: &str) -> Option<[u8; N]> {
    URL_SAFE_NO_PAD.decode(s).ok().and_then(|v| v.try_into().ok())
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        // Encodings of 0 to 100 bytes: the right length, near it, and far
        // past the stack buffer.
        prop::collection::vec(any::<u8>(), 0..100).prop_map(|b| URL_SAFE_NO_PAD.encode(b)),
        // The same, spoiled: padding, a foreign byte, a cut.
        (prop::collection::vec(any::<u8>(), 14..34), 0u8..4, any::<prop::sample::Index>()).prop_map(
            |(b, how, at)| {
                let mut s = URL_SAFE_NO_PAD.encode(b);
                let i = at.index(s.len());
                match how {
                    0 => s.push('='),
                    1 => s.insert(i, '+'),
                    2 => s.truncate(i),
                    _ => s.insert(i, '.'),
                }
                s
            }
        ),
        "[A-Za-z0-9_=+/-]{0,90}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6000))]

    #[test]
    fn decode_fixed_matches_the_vec_decoder(s in text()) {
        prop_assert_eq!(decode_fixed::<32>(&s).ok(), reference::<32>(&s));
        prop_assert_eq!(decode_fixed::<PRINCIPAL_TAG_BYTES>(&s).ok(), reference::<PRINCIPAL_TAG_BYTES>(&s));
    }
}

#[test]
fn decode_fixed_refuses_with_malformed() {
    let long = URL_SAFE_NO_PAD.encode([7u8; 90]);
    for bad in ["", "AA=", &long, &URL_SAFE_NO_PAD.encode([1u8; 31])] {
        assert_eq!(decode_fixed::<32>(bad).unwrap_err().reason, TokenReason::Malformed, "{bad}");
    }
    let ok = URL_SAFE_NO_PAD.encode([9u8; 32]);
    assert_eq!(decode_fixed::<32>(&ok).unwrap(), [9u8; 32]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The payload's numbers, written without a `String` each, are the
    /// canonical form of the same payload built as a tree.
    #[test]
    fn payload_numbers_match_the_canonical_tree(
        now in any::<u64>(),
        ttl in any::<u64>(),
        flow_start in any::<u64>(),
        round in any::<u32>(),
    ) {
        let ring = KeyRing::new(&[Key::new("k", vec![3; 32]).unwrap()]).unwrap();
        let mac = &ring.signer().unwrap().mac;
        let limits = Limits { ttl, max_rounds: 16, max_flow_age: 3600, max_token_bytes: 16384, skew: 60, version: 1 };
        let principal = Principal::user("alice").unwrap();
        let binding = [5u8; 32];
        let question = serde_json::json!({"method": "roots/list"});
        let questions = vec![("q".to_owned(), question.clone())];
        let state = serde_json::json!({"n": 1.50, "s": "é"});
        let input = SealInput { principal: &principal, binding: &binding, round, flow_start, questions: &questions, state: Some(&state) };
        let mut out = Vec::new();
        let ids = Ids { token: [7u8; 16], flow: [8u8; 16] };
        write_payload(&mut out, mac, &limits, now, &input, &ids, None);
        let tree = serde_json::json!({
            "b": b64(&binding), "exp": now.saturating_add(ttl), "fid": b64(&[8u8; 16]), "fs": flow_start, "iat": now,
            "p": b64(&principal_tag(mac, &principal)), "q": {"q": b64(&question_digest(&question))},
            "r": round, "s": state, "tid": b64(&[7u8; 16]), "v": FORMAT_VERSION,
        });
        prop_assert_eq!(out, crate::json::canonical(&tree));
    }
}
