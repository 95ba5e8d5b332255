//! Sealing and opening, with the limits that apply to both.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::Mac;
use subtle::ConstantTimeEq;

use crate::error::{Error, ErrorCode, Result};
use crate::json;

use super::*;

/// Limits that apply to sealing and opening.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub ttl: u64,
    pub max_rounds: u32,
    pub max_flow_age: u64,
    pub max_token_bytes: usize,
    pub skew: u64,
}

/// The token sealer: the key ring and the limits, everything sealing and
/// opening need besides the time (which the caller passes, so `begin` and
/// `decide` read one clock).
#[derive(Clone)]
pub(crate) struct Sealer {
    pub(crate) ring: KeyRing,
    pub(crate) limits: Limits,
}

impl Sealer {
    /// Seals `input` at `now` with the signing key.
    pub(crate) fn seal(&self, now: u64, input: &SealInput<'_>) -> Result<String> {
        seal(&self.ring, &self.limits, now, input)
    }

    /// Opens `token` at `now` for `principal` and the request `binding`.
    pub(crate) fn open(
        &self,
        now: u64,
        token: &str,
        principal: &Principal,
        binding: &[u8; 32],
    ) -> Result<Opened, TokenError> {
        open(&self.ring, &self.limits, now, token, principal, binding)
    }
}

/// Seals a token at time `now`.
pub(crate) fn seal(ring: &KeyRing, limits: &Limits, now: u64, input: &SealInput<'_>) -> Result<String> {
    let Some((kid, mac)) = ring.signer() else {
        return Err(Error::new(ErrorCode::Config, "keys: the key ring is empty"));
    };
    if input.state.is_some_and(|s| json::deeper_than(s, json::MAX_DEPTH))
        || input.questions.iter().any(|(_, q)| json::deeper_than(q, json::MAX_DEPTH))
    {
        return Err(Error::new(
            ErrorCode::Argument,
            format!("state and questions may nest at most {} levels", json::MAX_DEPTH),
        ));
    }
    let mut payload = Vec::with_capacity(256);
    write_payload(&mut payload, mac, limits, now, input);
    let body_len = base64::encoded_len(payload.len(), false).unwrap_or(usize::MAX);
    let signed_len = (PREFIX.len() + 1 + kid.len() + 1).saturating_add(body_len);
    // 43 = base64url of a 32-byte tag, plus one separator.
    if signed_len.saturating_add(44) > limits.max_token_bytes {
        return Err(Error::new(
            ErrorCode::StateTooLarge,
            format!(
                "the token would be {} bytes, over the {}-byte limit; keep less application state",
                signed_len.saturating_add(44),
                limits.max_token_bytes
            ),
        ));
    }
    let mut token = String::with_capacity(signed_len + 44);
    token.push_str(PREFIX);
    token.push('.');
    token.push_str(kid);
    token.push('.');
    URL_SAFE_NO_PAD.encode_string(&payload, &mut token);
    let mut m = mac.clone();
    m.update(token.as_bytes());
    let tag = m.finalize().into_bytes();
    token.push('.');
    URL_SAFE_NO_PAD.encode_string(tag, &mut token);
    Ok(token)
}

/// Opens `token` at time `now` for `principal` and the request `binding`.
pub(crate) fn open(
    ring: &KeyRing,
    limits: &Limits,
    now: u64,
    token: &str,
    principal: &Principal,
    binding: &[u8; 32],
) -> Result<Opened, TokenError> {
    // Size first: no base64 or JSON work on oversized input.
    if token.len() > limits.max_token_bytes {
        return fail(TokenReason::Size);
    }
    let mut parts = token.splitn(4, '.');
    let (Some(version), Some(kid), Some(body), Some(tag)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return fail(match token.split('.').next() {
            Some(v) if v != PREFIX && is_version_word(v) => TokenReason::Version,
            _ => TokenReason::Malformed,
        });
    };
    if version != PREFIX {
        return fail(if is_version_word(version) { TokenReason::Version } else { TokenReason::Malformed });
    }
    let Some(mac) = ring.find(kid) else {
        return fail(TokenReason::Key);
    };
    // The tag must be exactly the canonical base64url of 32 bytes (the
    // decoder rejects padding and non-zero trailing bits).
    let Ok(tag_bytes) = decode_fixed::<32>(tag) else {
        return fail(TokenReason::Malformed);
    };
    let Some(signed) = token.get(..PREFIX.len() + 1 + kid.len() + 1 + body.len()) else {
        return fail(TokenReason::Malformed);
    };
    let mut m = mac.clone();
    m.update(signed.as_bytes());
    // verify_slice compares in constant time.
    if m.verify_slice(&tag_bytes).is_err() {
        return fail(TokenReason::Signature);
    }
    // From here on the bytes are ours; a failure means a bug or a key leak,
    // but is still handled as malformed rather than trusted. The payload is
    // read into a typed struct (unknown and repeated fields are errors) and
    // the application state is kept as its JSON text: building a Value for
    // it costs far more than everything else in `open`, and a handler that
    // never reads the state should not pay for it (see `Opened::state`).
    let payload_bytes =
        URL_SAFE_NO_PAD.decode(body).map_err(|_| TokenError { reason: TokenReason::Malformed })?;
    let payload: Payload =
        serde_json::from_slice(&payload_bytes).map_err(|_| TokenError { reason: TokenReason::Malformed })?;
    if payload.v != FORMAT_VERSION {
        return fail(TokenReason::Version);
    }
    let (issued_at, expires_at, flow_start, round) = (payload.iat, payload.exp, payload.fs, payload.r);
    let bound: [u8; 32] = decode_fixed(&payload.b)?;
    let ptag: [u8; PRINCIPAL_TAG_BYTES] = decode_fixed(&payload.p)?;
    let mut questions = BTreeMap::new();
    for (k, v) in payload.q {
        questions.insert(k, decode_fixed::<32>(&v)?);
    }
    if issued_at > now.saturating_add(limits.skew) {
        return fail(TokenReason::NotYetValid);
    }
    if now >= expires_at {
        return fail(TokenReason::Expired);
    }
    if now.saturating_sub(flow_start) > limits.max_flow_age {
        return fail(TokenReason::FlowAge);
    }
    if round >= limits.max_rounds {
        return fail(TokenReason::Rounds);
    }
    if !bool::from(ptag.ct_eq(&principal_tag(mac, principal))) {
        return fail(TokenReason::Principal);
    }
    if !bool::from(bound.ct_eq(binding)) {
        return fail(TokenReason::Request);
    }
    Ok(Opened {
        key_id: kid.to_owned(),
        issued_at,
        expires_at,
        flow_start,
        round,
        question_digests: questions,
        state_json: payload.s.map(|raw| raw.get().to_owned()),
    })
}
