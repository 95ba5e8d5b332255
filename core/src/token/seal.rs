//! Sealing and opening, with the limits that apply to both.

use base64::Engine as _;
use hmac::Mac;

use crate::error::{Error, ErrorCode, Result};
use crate::json;

use super::*;

/// Limits that apply to sealing and opening, and the version sealed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub ttl: u64,
    pub max_rounds: u32,
    pub max_flow_age: u64,
    pub max_token_bytes: usize,
    pub skew: u64,
    /// The format sealed (1 signed, 2 encrypted). Opening
    /// accepts both, whatever this says, so that an engine can move from
    /// one to the other without breaking live flows.
    pub version: u8,
    /// The oldest format opened: 1 opens both, 2 refuses v1 tokens
    /// (reason `version`), for a deployment that moved to v2.
    pub min_version: u8,
}

/// The token sealer: the key ring, the limits and the random source,
/// everything sealing and opening need besides the time (which the caller
/// passes, so `begin` and `decide` read one clock).
#[derive(Clone)]
pub(crate) struct Sealer {
    pub(crate) ring: KeyRing,
    pub(crate) limits: Limits,
    pub(crate) random: Random,
}

impl Sealer {
    /// Seals `input` at `now` with the signing key, as the first token of
    /// a new flow (a fresh flow id).
    pub(crate) fn seal(&self, now: u64, input: &SealInput<'_>) -> Result<String> {
        seal(self, now, input, None)
    }

    /// Seals `input` at `now` for the flow `flow` (the flow id of the token
    /// opened on this request), or a new flow when `None`.
    pub(crate) fn seal_in_flow(
        &self,
        now: u64,
        input: &SealInput<'_>,
        flow: Option<&[u8; ID_BYTES]>,
    ) -> Result<String> {
        seal(self, now, input, flow)
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

fn too_large(len: usize, limits: &Limits) -> Error {
    Error::new(
        ErrorCode::StateTooLarge,
        format!(
            "the token would be {len} bytes, over the {}-byte limit; keep less application state",
            limits.max_token_bytes
        ),
    )
}

/// Seals a token at time `now`, in the sealer's version.
fn seal(sealer: &Sealer, now: u64, input: &SealInput<'_>, flow: Option<&[u8; ID_BYTES]>) -> Result<String> {
    let limits = &sealer.limits;
    let Some(key) = sealer.ring.signer() else {
        return Err(Error::new(ErrorCode::Config, "keys: the key ring is empty"));
    };
    // A null state is no state, so that `open` gives back exactly `None`.
    // The state is written (and its depth checked) before the operating
    // system is asked for random bytes.
    let state = match input.state.filter(|s| !s.is_null()) {
        None => None,
        Some(s) => Some(json::canonical(s).ok_or_else(|| {
            Error::new(
                ErrorCode::Argument,
                format!("state and questions may nest at most {} levels", json::MAX_DEPTH),
            )
        })?),
    };
    let draw = Draw { now, round: input.round, flow_start: input.flow_start, binding: input.binding };
    let ids = sealer.random.ids(&draw, flow)?;
    let payload =
        write_payload(&key.principal_tag(input.principal), limits, now, input, state.as_deref(), &ids);
    if limits.version == 2 {
        return seal_v2(key, limits, &sealer.random, &draw, &payload);
    }
    let kid = key.id.as_str();
    let body_len = base64::encoded_len(payload.len(), false).unwrap_or(usize::MAX);
    let signed_len = (PREFIX.len() + 1 + kid.len() + 1).saturating_add(body_len);
    // 43 = base64url of a 32-byte tag, plus one separator.
    if signed_len.saturating_add(44) > limits.max_token_bytes {
        return Err(too_large(signed_len.saturating_add(44), limits));
    }
    let mut token = Vec::with_capacity(signed_len + 44);
    token.extend_from_slice(PREFIX.as_bytes());
    token.push(b'.');
    token.extend_from_slice(kid.as_bytes());
    token.push(b'.');
    put_b64(&mut token, &payload);
    let mut m = key.mac.clone();
    m.update(&token);
    let tag = m.finalize().into_bytes();
    token.push(b'.');
    put_b64(&mut token, &tag);
    // All ASCII (the prefix, a key id checked when the ring was made, and
    // base64url), so this never fails; an error rather than a panic.
    String::from_utf8(token).map_err(|_| Error::new(ErrorCode::Config, "keys: a key id is not text"))
}

/// Opens `token` at time `now` for `principal` and the request `binding`.
/// The version prefix chooses the format; a version older than
/// `limits.min_version` is refused before any key is touched.
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
    let check = Check { limits, now, principal, binding };
    match token.split('.').next() {
        Some(PREFIX) if limits.min_version > 1 => fail(TokenReason::Version),
        Some(PREFIX) => open_v1(ring, &check, token),
        Some(PREFIX_V2) => open_v2(ring, &check, token),
        Some(v) if is_version_word(v) => fail(TokenReason::Version),
        _ => fail(TokenReason::Malformed),
    }
}

/// What the checks after authentication compare against.
pub(super) struct Check<'a> {
    pub(super) limits: &'a Limits,
    pub(super) now: u64,
    pub(super) principal: &'a Principal,
    pub(super) binding: &'a [u8; 32],
}

fn open_v1(ring: &KeyRing, check: &Check<'_>, token: &str) -> Result<Opened, TokenError> {
    // Split from both ends: the key id after the first dot, the tag after
    // the last. A body with a dot in it is found when the MAC fails, and
    // is malformed there; with a valid MAC its dot fails the body's
    // decoding, malformed again.
    let split = token
        .strip_prefix(PREFIX)
        .and_then(|t| t.strip_prefix('.'))
        .and_then(|t| t.split_once('.'))
        .and_then(|(kid, rest)| Some((kid, rest.rsplit_once('.')?)));
    let Some((kid, (body, tag))) = split else {
        return fail(TokenReason::Malformed);
    };
    let Some(key) = ring.find(kid) else {
        return fail(TokenReason::Key);
    };
    // The tag must be exactly the canonical base64url of 32 bytes (the
    // decoder rejects padding and non-zero trailing bits).
    let Ok(tag_bytes) = decode_fixed::<32>(tag) else {
        return fail(TokenReason::Malformed);
    };
    let Some(signed) = token.get(..token.len().saturating_sub(tag.len() + 1)) else {
        return fail(TokenReason::Malformed);
    };
    let mut m = key.mac.clone();
    m.update(signed.as_bytes());
    // Compared in constant time (`ct.rs`).
    if !super::ct::same(&m.finalize().into_bytes().into(), &tag_bytes) {
        return fail(if body.contains('.') { TokenReason::Malformed } else { TokenReason::Signature });
    }
    let payload_bytes =
        super::b64::url().decode(body).map_err(|_| TokenError { reason: TokenReason::Malformed })?;
    finish(key, check, &payload_bytes, FORMAT_VERSION, Some(&tag_bytes))
}

/// The checks after authentication, the same for every version: payload
/// syntax, clock, flow age, rounds, principal, binding. `legacy_tag` is the
/// v1 MAC tag, from which the ids of a token of the first layout are
/// derived.
pub(super) fn finish(
    key: &RingKey,
    check: &Check<'_>,
    payload_bytes: &[u8],
    version: u64,
    legacy_tag: Option<&[u8]>,
) -> Result<Opened, TokenError> {
    let (limits, now) = (check.limits, check.now);
    // From here on the bytes are ours; a failure means a bug or a key leak,
    // but is still handled as malformed rather than trusted. The payload is
    // read by serde into a typed struct (unknown and repeated fields are
    // errors). The state stays JSON text until a handler reads it
    // (`Opened::state`).
    let payload: Payload =
        serde_json::from_slice(payload_bytes).map_err(|_| TokenError { reason: TokenReason::Malformed })?;
    if payload.v != version {
        return fail(TokenReason::Version);
    }
    let fields = Fields::decode(payload, legacy_tag)?;
    let (issued_at, expires_at, flow_start, round) = (fields.iat, fields.exp, fields.fs, fields.r);
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
    let principal_tag = key.principal_tag(check.principal);
    if !super::ct::same(&fields.p, &principal_tag) {
        return fail(TokenReason::Principal);
    }
    if !super::ct::same(&fields.b, check.binding) {
        return fail(TokenReason::Request);
    }
    Ok(Opened {
        key_id: key.id.clone(),
        issued_at,
        expires_at,
        flow_start,
        round,
        question_digests: fields.q,
        state_json: fields.s.map(str::to_owned),
        token_id: fields.tid.1,
        flow_id: fields.fid.1,
        flow_id_bytes: fields.fid.0,
        version,
        flow_expires_at: flow_start.saturating_add(limits.max_flow_age).saturating_add(limits.skew),
        clock_skew: limits.skew,
    })
}

pub(super) fn size_error(len: usize, limits: &Limits) -> Error {
    too_large(len, limits)
}
