//! Issue 16, eighth pass: `open_v1` splits a token from both ends (the key
//! id after the first dot, the tag after the last) instead of taking the
//! first four dot-separated parts. Held here to the way it split before,
//! on sealed tokens spoiled with dots put in, taken out or moved, other
//! bytes changed, and bodies with a dot signed under the right key: the
//! same `Opened` or the same reason.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::Mac;
use proptest::prelude::*;
use serde_json::json;

use super::*;

/// `open_v1` as it was before the eighth pass.
fn reference(ring: &KeyRing, check: &Check<'_>, token: &str) -> Result<Opened, TokenError> {
    let mut parts = token.splitn(4, '.');
    let (Some(_), Some(kid), Some(body), Some(tag)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return fail(TokenReason::Malformed);
    };
    let Some(key) = ring.find(kid) else {
        return fail(TokenReason::Key);
    };
    let Ok(tag_bytes) = decode_fixed::<32>(tag) else {
        return fail(TokenReason::Malformed);
    };
    let Some(signed) = token.get(..PREFIX.len() + 1 + kid.len() + 1 + body.len()) else {
        return fail(TokenReason::Malformed);
    };
    let mut m = key.mac.clone();
    m.update(signed.as_bytes());
    if m.verify_slice(&tag_bytes).is_err() {
        return fail(TokenReason::Signature);
    }
    let (mut small, mut heap) = ([0u8; SMALL_PAYLOAD], Vec::new());
    let payload_bytes = decode_body(body, &mut small, &mut heap)?;
    finish(key, check, payload_bytes, FORMAT_VERSION, Some(&tag_bytes))
}

fn sealer() -> Sealer {
    let ring = KeyRing::new(&[Key::new("k1", vec![5; 32]).unwrap(), Key::new("k2", vec![6; 32]).unwrap()]);
    let limits = Limits {
        ttl: 300,
        max_rounds: 16,
        max_flow_age: 3600,
        max_token_bytes: 1 << 16,
        skew: 60,
        version: 1,
        min_version: 1,
    };
    Sealer { ring: ring.unwrap(), limits, random: Random::Seeded(11) }
}

/// `signed` with a tag under `kid`'s key (a forger who holds the key).
fn signed_by(s: &Sealer, kid: &str, signed: &str) -> String {
    let Some(key) = s.ring.find(kid) else { return format!("{signed}.AAAA") };
    let mut m = key.mac.clone();
    m.update(signed.as_bytes());
    format!("{signed}.{}", URL_SAFE_NO_PAD.encode(m.finalize().into_bytes()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn the_split_from_both_ends_opens_as_before(
        how in 0u8..7,
        at in any::<prop::sample::Index>(),
        to in any::<prop::sample::Index>(),
        byte in "[.A_=\\-]",
    ) {
        let s = sealer();
        let (binding, who) = ([4u8; 32], Principal::user("bob").unwrap());
        let questions = vec![("q".to_owned(), json!({"method": "roots/list"}))];
        let state = json!({"n": 1});
        let input = SealInput { principal: &who, binding: &binding, round: 1, flow_start: 1_000, questions: &questions, state: Some(&state) };
        let token = s.seal(2_000, &input).unwrap();
        let (signed, _) = token.rsplit_once('.').unwrap();
        let i = at.index(token.len() + 1);
        let mut t = token.clone();
        match how {
            // A byte put in, anywhere (a dot, or a letter).
            0 => t.insert_str(i, &byte),
            // A byte taken out (perhaps a dot).
            1 => { t.remove(i.min(t.len() - 1)); }
            // A dot moved.
            2 => {
                let dots: Vec<usize> = t.match_indices('.').map(|(j, _)| j).collect();
                let d = dots[to.index(dots.len())];
                t.remove(d);
                t.insert(i.min(t.len()), '.');
            }
            // A dot in the body, signed with the right key.
            3 => {
                let j = "v1.k1.".len() + i % (signed.len() - "v1.k1.".len());
                let mut spoiled = signed.to_owned();
                spoiled.insert_str(j, &byte);
                t = signed_by(&s, "k1", &spoiled);
            }
            // Another key of the ring.
            4 => t = signed_by(&s, "k2", &signed.replacen("v1.k1.", "v1.k2.", 1)),
            // Cut short.
            5 => t.truncate(i),
            _ => {}
        }
        // `open` hands `open_v1` only tokens whose first part is `v1`.
        prop_assume!(t.split('.').next() == Some(PREFIX));
        let check = Check { limits: &s.limits, now: 2_010, principal: &who, binding: &binding };
        let got = open_v1(&s.ring, &check, &t).map_err(|e| e.reason);
        let want = reference(&s.ring, &check, &t).map_err(|e| e.reason);
        prop_assert_eq!(got, want, "{}", t);
    }
}
