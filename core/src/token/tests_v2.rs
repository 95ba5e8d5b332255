//! Token v2, the ids every token carries, and v1 tokens sealed
//! before the ids.
#![allow(clippy::unwrap_used, deprecated)]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::*;
use crate::error::ErrorCode;

const NOW: u64 = 1_800_000_000;

fn limits(version: u8) -> Limits {
    Limits {
        ttl: 300,
        max_rounds: 16,
        max_flow_age: 3600,
        max_token_bytes: 16384,
        skew: 60,
        version,
        min_version: 1,
    }
}

fn ring(ids: &[(&str, u8)]) -> KeyRing {
    let keys: Vec<Key> = ids.iter().map(|(id, b)| Key::new(*id, vec![*b; 32]).unwrap()).collect();
    KeyRing::new(&keys).unwrap()
}

fn sealer(version: u8, random: Random) -> Sealer {
    Sealer { ring: ring(&[("k1", 1), ("k2", 2)]), limits: limits(version), random }
}

fn alice() -> Principal {
    Principal::user("alice").unwrap()
}

fn binding() -> [u8; 32] {
    binding_digest("tools/call", &json!({"name":"t","arguments":{"a":1}})).unwrap()
}

fn seal_with(s: &Sealer, round: u32, state: Option<&Value>, flow: Option<&[u8; ID_BYTES]>) -> String {
    let b = binding();
    let questions = vec![("q".to_string(), crate::list_roots())];
    let p = alice();
    let input =
        SealInput { principal: &p, binding: &b, round, flow_start: NOW, questions: &questions, state };
    s.seal_in_flow(NOW, &input, flow).unwrap()
}

fn reason(s: &Sealer, token: &str) -> TokenReason {
    s.open(NOW, token, &alice(), &binding()).unwrap_err().reason
}

#[test]
fn v2_round_trip_hides_the_payload() {
    let s = sealer(2, Random::Os);
    let state = json!({"address": "12 Secret Street", "n": 1});
    let t = seal_with(&s, 1, Some(&state), None);
    assert!(t.starts_with("v2.k1."));
    assert_eq!(t.split('.').count(), 3);
    let o = s.open(NOW + 10, &t, &alice(), &binding()).unwrap();
    assert_eq!(o.state(), Some(state));
    assert_eq!(o.version(), 2);
    assert_eq!((o.round, o.expires_at, o.key_id.as_str()), (1, NOW + 300, "k1"));
    assert_eq!(o.question_keys(), vec!["q"]);
    assert_eq!((o.token_id().len(), o.flow_id().len()), (22, 22));
    // Neither the state, nor any payload field name, in clear or in base64.
    let raw = URL_SAFE_NO_PAD.decode(t.split('.').nth(2).unwrap()).unwrap();
    for needle in [&b"Secret Street"[..], b"\"exp\"", b"\"fid\"", b"alice"] {
        assert!(!raw.windows(needle.len()).any(|w| w == needle));
    }
    assert!(!t.contains("U2VjcmV0") && !t.contains("Secret"));
}

#[test]
fn every_engine_opens_both_versions() {
    let (v1, v2) = (sealer(1, Random::Os), sealer(2, Random::Os));
    let t1 = seal_with(&v1, 1, None, None);
    let t2 = seal_with(&v2, 1, None, None);
    assert!(t1.starts_with("v1.") && t2.starts_with("v2."));
    for s in [&v1, &v2] {
        assert_eq!(s.open(NOW, &t1, &alice(), &binding()).unwrap().version(), 1);
        assert_eq!(s.open(NOW, &t2, &alice(), &binding()).unwrap().version(), 2);
    }
}

#[test]
fn v2_reasons() {
    let s = sealer(2, Random::Seeded(9));
    let t = seal_with(&s, 1, Some(&json!({"x": 1})), None);
    let body = t.split('.').nth(2).unwrap().to_owned();
    // Another key id in the ring: the key id is associated data.
    assert_eq!(reason(&s, &format!("v2.k2.{body}")), TokenReason::Signature);
    assert_eq!(reason(&s, &format!("v2.k9.{body}")), TokenReason::Key);
    // A v1 prefix on a v2 body: v1 wants four parts.
    assert_eq!(reason(&s, &format!("v1.k1.{body}")), TokenReason::Malformed);
    assert_eq!(reason(&s, &format!("{t}.x")), TokenReason::Malformed);
    assert_eq!(reason(&s, &format!("{t}=")), TokenReason::Malformed);
    assert_eq!(reason(&s, "v2.k1.AAAA"), TokenReason::Malformed);
    assert_eq!(reason(&s, "v2.k1"), TokenReason::Malformed);
    // Every truncation is refused.
    for i in 0..t.len() {
        assert!(s.open(NOW, &t[..i], &alice(), &binding()).is_err(), "truncated at {i}");
    }
    // The checks after decryption, as in v1.
    assert_eq!(s.open(NOW + 300, &t, &alice(), &binding()).unwrap_err().reason, TokenReason::Expired);
    assert_eq!(s.open(NOW - 61, &t, &alice(), &binding()).unwrap_err().reason, TokenReason::NotYetValid);
    assert_eq!(
        s.open(NOW, &t, &Principal::anonymous(), &binding()).unwrap_err().reason,
        TokenReason::Principal
    );
    assert_eq!(s.open(NOW, &t, &alice(), &[0; 32]).unwrap_err().reason, TokenReason::Request);
    let last = seal_with(&s, 16, None, None);
    assert_eq!(reason(&s, &last), TokenReason::Rounds);
    let small = Sealer { limits: Limits { max_token_bytes: t.len() - 1, ..s.limits }, ..s.clone() };
    assert_eq!(reason(&small, &t), TokenReason::Size);
    let big = json!("x".repeat(16_384));
    let b = binding();
    let p = alice();
    let input = SealInput {
        principal: &p,
        binding: &b,
        round: 1,
        flow_start: NOW,
        questions: &[],
        state: Some(&big),
    };
    assert_eq!(s.seal(NOW, &input).unwrap_err().code(), ErrorCode::StateTooLarge);
}

#[test]
fn v2_any_changed_character_is_refused() {
    let s = sealer(2, Random::Seeded(3));
    let t = seal_with(&s, 1, Some(&json!([1, 2])), None);
    let bytes = t.as_bytes();
    for i in 0..bytes.len() {
        for c in [b'A', b'_', b'.', b'z'] {
            if bytes[i] == c {
                continue;
            }
            let mut d = bytes.to_vec();
            d[i] = c;
            let d = String::from_utf8(d).unwrap();
            let r = reason(&s, &d);
            let ok = [TokenReason::Signature, TokenReason::Malformed, TokenReason::Key, TokenReason::Version];
            assert!(ok.contains(&r), "{r:?} at {i}");
        }
    }
}

#[test]
fn ids_fresh_per_token_flow_kept_across_rounds() {
    for version in [1, 2] {
        let s = sealer(version, Random::Os);
        let a = s.open(NOW, &seal_with(&s, 1, None, None), &alice(), &binding()).unwrap();
        let b = s.open(NOW, &seal_with(&s, 1, None, None), &alice(), &binding()).unwrap();
        // Identical requests in the same second: distinct tokens, flows.
        assert_ne!(a.token_id(), b.token_id());
        assert_ne!(a.flow_id(), b.flow_id());
        let next = seal_with(&s, 2, None, Some(a.flow_id_bytes()));
        let c = s.open(NOW, &next, &alice(), &binding()).unwrap();
        assert_eq!(c.flow_id(), a.flow_id());
        assert_ne!(c.token_id(), a.token_id());
    }
}

#[test]
fn a_seed_makes_tokens_reproducible_and_rounds_distinct() {
    for version in [1, 2] {
        let s = sealer(version, Random::Seeded(42));
        assert_eq!(seal_with(&s, 1, None, None), seal_with(&s, 1, None, None));
        let other = sealer(version, Random::Seeded(43));
        assert_ne!(seal_with(&s, 1, None, None), seal_with(&other, 1, None, None));
        let r1 = s.open(NOW, &seal_with(&s, 1, None, None), &alice(), &binding()).unwrap();
        let r2 =
            s.open(NOW, &seal_with(&s, 2, None, Some(r1.flow_id_bytes())), &alice(), &binding()).unwrap();
        assert_ne!(r1.token_id(), r2.token_id());
        assert_eq!(r1.flow_id(), r2.flow_id());
    }
}

/// A v1 token of the first layout, without ids (the published vector tcId 1, key
/// `k1` = bytes 0..32): it has no ids, still opens, and reads ids derived
/// from its MAC tag.
const PRE_17: &str = "v1.k1.eyJiIjoiamlzNWJlRTVEWVQyZUI2Vi0zRF9jWXBjTnRMelNmbjljNkZRc3RmS1JIWSIsImV4cCI6MTgwMDAwMDMwMCwiZnMiOjE4MDAwMDAwMDAsImlhdCI6MTgwMDAwMDAwMCwicCI6IkR0dUd3QTFaYXRXbEstRkpLclhIblEiLCJxIjp7ImNvbG9yIjoiMWlwZHMyampXOUYxWkJmVlFxclZxajhfbDFVTVUteG5lUHpKZWhULWd6byJ9LCJyIjoxLCJzIjp7Im5vdGUiOiLDqSIsInN0ZXAiOjF9LCJ2IjoxfQ.b--qNkbSGHWC_ZGeEDbFQ3hgBmBjmjgyMNTqMjn-1lA";

#[test]
fn a_v1_token_without_ids_still_opens() {
    let key = Key::new("k1", (0u8..32).collect::<Vec<u8>>()).unwrap();
    for version in [1, 2] {
        let s = Sealer {
            ring: KeyRing::new(std::slice::from_ref(&key)).unwrap(),
            limits: limits(version),
            random: Random::Os,
        };
        let b =
            binding_digest("tools/call", &json!({"name":"pick","arguments":{"a":1,"b":[1.0,"x"]}})).unwrap();
        let o = s.open(NOW + 10, PRE_17, &alice(), &b).unwrap();
        assert_eq!(o.state(), Some(json!({"note": "é", "step": 1})));
        let tag = URL_SAFE_NO_PAD.decode(PRE_17.rsplit('.').next().unwrap()).unwrap();
        let (tid, fid) = legacy_ids(&tag);
        assert_eq!((o.token_id(), o.flow_id()), (id_text(&tid).as_str(), id_text(&fid).as_str()));
        assert_ne!(o.token_id(), o.flow_id());
    }
}

#[test]
fn the_v2_key_is_derived_not_the_secret() {
    // HKDF-SHA256(no salt, secret, info) ≠ the secret: a v2 token sealed
    // with a cipher keyed by the raw secret does not open.
    use chacha20poly1305::aead::{AeadInOut, KeyInit};
    let s = sealer(2, Random::Seeded(1));
    let t = seal_with(&s, 1, None, None);
    let raw = URL_SAFE_NO_PAD.decode(t.split('.').nth(2).unwrap()).unwrap();
    let naive = chacha20poly1305::XChaCha20Poly1305::new_from_slice(&[1u8; 32]).unwrap();
    let (head, tag) = raw.split_at(raw.len() - TAG_BYTES);
    let (nonce, msg) = head.split_at(NONCE_BYTES);
    let mut msg = msg.to_vec();
    let nonce = chacha20poly1305::XNonce::try_from(nonce).unwrap();
    let tag = chacha20poly1305::Tag::try_from(tag).unwrap();
    assert!(naive.decrypt_inout_detached(&nonce, b"v2.k1", msg.as_mut_slice().into(), &tag).is_err());
}
