#![allow(clippy::unwrap_used, deprecated)]

use serde_json::{Value, json};

use super::*;
use crate::error::{ErrorCode, Result};
use crate::json;

fn ring(ids: &[(&str, u8)]) -> KeyRing {
    let keys: Vec<Key> = ids.iter().map(|(id, b)| Key::new(*id, vec![*b; 32]).unwrap()).collect();
    KeyRing::new(&keys).unwrap()
}
const LIM: Limits = Limits {
    ttl: 300,
    max_rounds: 16,
    max_flow_age: 3600,
    max_token_bytes: 16384,
    skew: 60,
    version: 1,
    min_version: 1,
};
const NOW: u64 = 1_800_000_000;

/// A sealer of `ring` and `limits`, starting a new flow.
fn seal(ring: &KeyRing, limits: &Limits, now: u64, input: &SealInput<'_>) -> Result<String> {
    let sealer = Sealer { ring: ring.clone(), limits: *limits, random: Random::Seeded(7) };
    sealer.seal(now, input)
}

fn sealed(r: &KeyRing, state: Option<&Value>) -> (String, [u8; 32]) {
    let binding = binding_digest("tools/call", &json!({"name":"t","arguments":{"a":1}})).unwrap();
    let questions = vec![("q".to_string(), crate::list_roots())];
    let input = SealInput {
        principal: &Principal::user("alice").unwrap(),
        binding: &binding,
        round: 1,
        flow_start: NOW,
        questions: &questions,
        state,
    };
    (seal(r, &LIM, NOW, &input).unwrap(), binding)
}

fn alice() -> Principal {
    Principal::user("alice").unwrap()
}

#[test]
fn round_trip() {
    let r = ring(&[("k1", 1)]);
    let st = json!({"step":1,"x":[1.0,"é"]});
    let (t, b) = sealed(&r, Some(&st));
    let o = open(&r, &LIM, NOW + 10, &t, &alice(), &b).unwrap();
    assert_eq!(o.state(), Some(st));
    assert_eq!(o.round, 1);
    assert_eq!(o.expires_at, NOW + 300);
    assert_eq!(o.question_digests.len(), 1);
    assert!(!t.contains("alice"));
}

#[test]
fn key_rules() {
    assert_eq!(Key::new("k", vec![0; 31]).unwrap_err().code(), ErrorCode::Config);
    assert!(Key::new("", vec![0; 32]).is_err());
    assert!(Key::new("a.b", vec![0; 32]).is_err());
    assert!(Key::new("k".repeat(33), vec![0; 32]).is_err());
    let k = Key::new("k1", vec![0xAB; 32]).unwrap();
    assert!(!format!("{k:?}").to_lowercase().contains("ab, "));
    assert!(format!("{k:?}").contains("redacted"));
    assert!(KeyRing::new(&[]).is_err());
    let dup = [Key::new("a", vec![1; 32]).unwrap(), Key::new("a", vec![2; 32]).unwrap()];
    assert!(KeyRing::new(&dup).unwrap_err().message().contains("duplicate"));
    let nine: Vec<Key> = (0..9).map(|i| Key::new(format!("k{i}"), vec![1; 32]).unwrap()).collect();
    assert!(KeyRing::new(&nine).is_err());
}

#[test]
fn rotation() {
    let (t, b) = sealed(&ring(&[("k1", 1)]), None);
    let rotated = ring(&[("k2", 2), ("k1", 1)]);
    assert!(open(&rotated, &LIM, NOW, &t, &alice(), &b).is_ok());
    let (t2, _) = sealed(&rotated, None);
    assert!(t2.starts_with("v1.k2."));
    let only_new = ring(&[("k2", 2)]);
    assert_eq!(open(&only_new, &LIM, NOW, &t, &alice(), &b).unwrap_err().reason, TokenReason::Key);
    // Same id, different bytes: the MAC fails.
    let impostor = ring(&[("k1", 9)]);
    assert_eq!(open(&impostor, &LIM, NOW, &t, &alice(), &b).unwrap_err().reason, TokenReason::Signature);
}

#[test]
fn clock_edges() {
    let r = ring(&[("k1", 1)]);
    let (t, b) = sealed(&r, None);
    assert!(open(&r, &LIM, NOW + 299, &t, &alice(), &b).is_ok());
    assert_eq!(open(&r, &LIM, NOW + 300, &t, &alice(), &b).unwrap_err().reason, TokenReason::Expired);
    assert!(open(&r, &LIM, NOW - 60, &t, &alice(), &b).is_ok());
    assert_eq!(open(&r, &LIM, NOW - 61, &t, &alice(), &b).unwrap_err().reason, TokenReason::NotYetValid);
}

#[test]
fn binding_and_principal() {
    let r = ring(&[("k1", 1)]);
    let (t, b) = sealed(&r, None);
    let bob = Principal::user("bob").unwrap();
    assert_eq!(open(&r, &LIM, NOW, &t, &bob, &b).unwrap_err().reason, TokenReason::Principal);
    assert_eq!(
        open(&r, &LIM, NOW, &t, &Principal::anonymous(), &b).unwrap_err().reason,
        TokenReason::Principal
    );
    let other = binding_digest("tools/call", &json!({"name":"t","arguments":{"a":2}})).unwrap();
    assert_eq!(open(&r, &LIM, NOW, &t, &alice(), &other).unwrap_err().reason, TokenReason::Request);
    let other_method = binding_digest("prompts/get", &json!({"name":"t","arguments":{"a":1}})).unwrap();
    assert_eq!(open(&r, &LIM, NOW, &t, &alice(), &other_method).unwrap_err().reason, TokenReason::Request);
    let reordered =
        binding_digest("tools/call", &json!({"arguments":{"a":1},"name":"t","_meta":{"x":1}})).unwrap();
    assert!(open(&r, &LIM, NOW, &t, &alice(), &reordered).is_ok());
}

#[test]
fn every_single_edit_is_rejected() {
    let r = ring(&[("k1", 1)]);
    let (t, b) = sealed(&r, Some(&json!({"a":"b"})));
    let bytes = t.as_bytes();
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=";
    for i in 0..bytes.len() {
        for &c in alphabet {
            if c == bytes[i] {
                continue;
            }
            let mut m = bytes.to_vec();
            m[i] = c;
            let s = String::from_utf8(m).unwrap();
            assert!(open(&r, &LIM, NOW, &s, &alice(), &b).is_err(), "substitution at {i}");
        }
        let mut d = bytes.to_vec();
        d.remove(i);
        assert!(
            open(&r, &LIM, NOW, &String::from_utf8(d).unwrap(), &alice(), &b).is_err(),
            "deletion at {i}"
        );
        assert!(open(&r, &LIM, NOW, &t[..i], &alice(), &b).is_err(), "truncation at {i}");
    }
    for suffix in ["-TAMPERED", "=", "A", "."] {
        assert!(open(&r, &LIM, NOW, &format!("{t}{suffix}"), &alice(), &b).is_err());
    }
}

#[test]
fn reasons_for_shapes() {
    let r = ring(&[("k1", 1)]);
    let b = [0u8; 32];
    let reason = |s: &str| open(&r, &LIM, NOW, s, &alice(), &b).unwrap_err().reason;
    assert_eq!(reason(""), TokenReason::Malformed);
    assert_eq!(reason("foo"), TokenReason::Malformed);
    assert_eq!(reason("v3.k1.e30.AAAA"), TokenReason::Version);
    // `v2` is a format now; a v1-shaped body is not base64url.
    assert_eq!(reason("v2.k1.e30.AAAA"), TokenReason::Malformed);
    assert_eq!(reason("v9"), TokenReason::Version);
    assert_eq!(reason("v1.nope.e30.AAAA"), TokenReason::Key);
    assert_eq!(reason("v1.k1.e30.AAAA"), TokenReason::Malformed);
    assert_eq!(reason(&"x".repeat(16385)), TokenReason::Size);
}

#[test]
fn rounds_and_flow_age() {
    let r = ring(&[("k1", 1)]);
    let binding = [7u8; 32];
    let mk = |round, fs| {
        let input = SealInput {
            principal: &Principal::anonymous(),
            binding: &binding,
            round,
            flow_start: fs,
            questions: &[],
            state: None,
        };
        seal(&r, &LIM, NOW, &input).unwrap()
    };
    let anon = Principal::anonymous();
    assert!(open(&r, &LIM, NOW, &mk(15, NOW), &anon, &binding).is_ok());
    assert_eq!(open(&r, &LIM, NOW, &mk(16, NOW), &anon, &binding).unwrap_err().reason, TokenReason::Rounds);
    assert!(open(&r, &LIM, NOW, &mk(1, NOW - 3600), &anon, &binding).is_ok());
    assert_eq!(
        open(&r, &LIM, NOW, &mk(1, NOW - 3601), &anon, &binding).unwrap_err().reason,
        TokenReason::FlowAge
    );
}

#[test]
fn null_state_is_no_state_and_deep_state_is_refused() {
    let r = ring(&[("k1", 1)]);
    let (with_null, b) = sealed(&r, Some(&Value::Null));
    let (without, _) = sealed(&r, None);
    assert_eq!(with_null, without);
    assert_eq!(open(&r, &LIM, NOW, &with_null, &alice(), &b).unwrap().state(), None);
    let mut deep = json!(1);
    for _ in 0..json::MAX_DEPTH {
        deep = json!([deep]);
    }
    let (ok, b) = sealed(&r, Some(&deep));
    let opened = open(&r, &LIM, NOW, &ok, &alice(), &b).unwrap();
    assert_eq!(opened.state(), Some(deep.clone()));
    assert!(opened.state_json().is_some_and(|t| t.starts_with("[[")));
    let deeper = json!([deep]);
    assert_eq!(seal_anonymous_state(&r, &deeper).unwrap_err().code(), ErrorCode::Argument);
}

/// Seals `state` for the anonymous principal on a zero binding, round 1.
fn seal_anonymous_state(r: &KeyRing, state: &Value) -> Result<String> {
    let input = SealInput {
        principal: &Principal::anonymous(),
        binding: &[0; 32],
        round: 1,
        flow_start: NOW,
        questions: &[],
        state: Some(state),
    };
    seal(r, &LIM, NOW, &input)
}

#[test]
fn oversized_state_is_an_error_not_a_cut() {
    let r = ring(&[("k1", 1)]);
    let big = json!("x".repeat(20_000));
    assert_eq!(seal_anonymous_state(&r, &big).unwrap_err().code(), ErrorCode::StateTooLarge);
}
