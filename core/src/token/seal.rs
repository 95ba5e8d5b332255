//! Sealing and opening, with the limits that apply to both.

use std::borrow::Borrow;
use std::cell::Cell;

use base64::Engine as _;
use hmac::Mac;
use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};
use crate::json::{self, StateText};

use super::*;

/// Limits that apply to sealing and opening, and the version sealed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub ttl: u64,
    pub max_rounds: u32,
    pub max_flow_age: u64,
    pub max_token_bytes: usize,
    pub skew: u64,
    /// Issue 17: the format sealed (1 signed, 2 encrypted). Opening
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
        seal(self, now, &input.parts(), None, None)
    }

    /// Seals `input` at `now` for the flow `flow` (the flow id of the token
    /// opened on this request), or a new flow when `None`.
    pub(crate) fn seal_in_flow(
        &self,
        now: u64,
        input: &SealInput<'_>,
        flow: Option<&[u8; ID_BYTES]>,
    ) -> Result<String> {
        seal(self, now, &input.parts(), flow, None)
    }

    /// [`Sealer::seal_in_flow`] with the state given as canonical text
    /// (issue 16): `text` is written into the payload as it is, with no
    /// tree. `input.state` must then be `None` (or `null`).
    pub(crate) fn seal_text_in_flow(
        &self,
        now: u64,
        input: &SealInput<'_>,
        flow: Option<&[u8; ID_BYTES]>,
        text: &StateText,
    ) -> Result<String> {
        seal(self, now, &input.parts(), flow, Some(text))
    }

    /// `decide`'s seal (issue 16): as above, with the questions' digests
    /// already taken (used only if there is one per question).
    pub(crate) fn seal_with_digests<Q: Borrow<Value>>(
        &self,
        now: u64,
        input: &SealParts<'_, Q>,
        flow: Option<&[u8; ID_BYTES]>,
        text: Option<&StateText>,
        digests: Option<&[[u8; 32]]>,
    ) -> Result<String> {
        seal_digests(self, now, input, flow, text, digests)
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

thread_local! {
    /// The length of the last payload sealed on this thread from a state
    /// tree: the capacity the next one starts with (a size, not a buffer:
    /// nothing of one seal is kept for the next).
    static LAST_PAYLOAD: Cell<usize> = const { Cell::new(0) };
}

/// Seals a token at time `now`, in the sealer's version.
pub(crate) fn seal<Q: Borrow<Value>>(
    sealer: &Sealer,
    now: u64,
    input: &SealParts<'_, Q>,
    flow: Option<&[u8; ID_BYTES]>,
    text: Option<&StateText>,
) -> Result<String> {
    seal_digests(sealer, now, input, flow, text, None)
}

/// [`seal`] with the questions' digests already taken, when `digests`
/// has one per question (issue 16, `decide`).
fn seal_digests<Q: Borrow<Value>>(
    sealer: &Sealer,
    now: u64,
    input: &SealParts<'_, Q>,
    flow: Option<&[u8; ID_BYTES]>,
    text: Option<&StateText>,
    digests: Option<&[[u8; 32]]>,
) -> Result<String> {
    let limits = &sealer.limits;
    if text.is_some() && input.state.is_some_and(|s| !s.is_null()) {
        return Err(Error::new(ErrorCode::Argument, "give the state as a value or as text, not both"));
    }
    let Some(key) = sealer.ring.signer() else {
        return Err(Error::new(ErrorCode::Config, "keys: the key ring is empty"));
    };
    let too_deep = || {
        Error::new(
            ErrorCode::Argument,
            format!("state and questions may nest at most {} levels", json::MAX_DEPTH),
        )
    };
    // The questions' digests: `decide` took them with the depth bound
    // checked; otherwise they are taken here, each depth check in its
    // hashing walk (sixth pass: one walk, not a depth walk and a hash walk).
    let taken: Vec<[u8; 32]>;
    let digests = match digests.filter(|d| d.len() == input.questions.len()) {
        Some(d) => d,
        None => {
            let all: Option<Vec<[u8; 32]>> =
                input.questions.iter().map(|(_, q)| question_digest_within(q.borrow())).collect();
            taken = all.ok_or_else(too_deep)?;
            &taken
        }
    };
    // One buffer for the payload (sixth pass): the state's canonical bytes
    // are written straight into it, with the depth bound checked on the
    // way, rather than into a buffer of their own and copied. Room for the
    // fields (about 250 bytes with one question) and the state: its length
    // when given as text, else as long as this thread's last payload (a
    // server seals states of much the same size; growing the buffer three
    // or four times cost a tenth of `decide` at 4 KiB, as each large
    // `realloc` made glibc consolidate the chunks the last state freed).
    let tree = input.state.filter(|s| !s.is_null() && text.is_none());
    let room = match (text, tree) {
        (Some(t), _) => 384 + t.as_str().len(),
        (None, Some(_)) => {
            LAST_PAYLOAD.with(Cell::get).saturating_add(64).clamp(896, limits.max_token_bytes.max(896))
        }
        (None, None) => 384,
    };
    let mut payload = Vec::with_capacity(room);
    let head = write_head(&mut payload, &key.principal_tag(input.principal), limits, now, input, digests);
    match (text, tree) {
        (Some(t), _) if !t.is_null() => {
            payload.extend_from_slice(b",\"s\":");
            payload.extend_from_slice(t.as_str().as_bytes());
        }
        (None, Some(s)) => {
            payload.extend_from_slice(b",\"s\":");
            if !json::write_canonical_within(s, &mut payload, json::MAX_DEPTH) {
                return Err(too_deep());
            }
        }
        _ => {}
    }
    let draw = Draw { now, round: input.round, flow_start: input.flow_start, binding: input.binding };
    let ids = sealer.random.ids(&draw, flow)?;
    write_tail(&mut payload, head, limits, &ids);
    if tree.is_some() {
        LAST_PAYLOAD.with(|last| last.set(payload.len()));
    }
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
    // The token's bytes in one buffer of its final size: the payload's
    // base64url encoded straight into it (not in chunks through a
    // `String`), the MAC over it in place, then the tag.
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
    // Issue 16, eighth pass: split from both ends (the key id after the
    // first dot, the tag after the last), not by a scan of the body for
    // its end. A body with a dot in it is then found only when the MAC
    // fails, and is malformed there, as when the tag was everything after
    // the third dot (that tag never decoded); with a valid MAC its dot
    // fails the body's decoding, malformed again.
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
    // Compared in constant time, a word at a time (tenth pass; `ct.rs`).
    if !super::ct::same(&m.finalize().into_bytes().into(), &tag_bytes) {
        return fail(if body.contains('.') { TokenReason::Malformed } else { TokenReason::Signature });
    }
    // Issue 16, fifth pass: a per-thread buffer for the body was tried and
    // dropped: it saved ~140 instructions of ~72k per open, and the
    // long-lived chunk cost glibc's malloc 15k more per 32 KiB-argument
    // begin (callgrind), so the body is decoded into a fresh `Vec`.
    // Sixth pass: a small body is decoded on the stack (`decode_body`).
    let (mut small, mut heap) = ([0u8; SMALL_PAYLOAD], Vec::new());
    let payload_bytes = decode_body(body, &mut small, &mut heap)?;
    finish(key, check, payload_bytes, FORMAT_VERSION, Some(&tag_bytes))
}

/// Largest v1 payload decoded on the stack by `open_v1` (bytes).
const SMALL_PAYLOAD: usize = 1024;

/// The token body decoded (issue 16, sixth pass): into `small` when the
/// decoder's upper bound fits (a state up to about 600 bytes: no
/// allocation at all), else into `heap`. The same bytes or the same error
/// as decoding into a fresh `Vec` (a unit test holds it to that).
fn decode_body<'b>(
    body: &str,
    small: &'b mut [u8; SMALL_PAYLOAD],
    heap: &'b mut Vec<u8>,
) -> Result<&'b [u8], TokenError> {
    let malformed = |_| TokenError { reason: TokenReason::Malformed };
    if base64::decoded_len_estimate(body.len()) <= SMALL_PAYLOAD {
        let n = super::b64::url().decode_slice(body, small).map_err(malformed)?;
        return Ok(small.get(..n).unwrap_or_default());
    }
    *heap = super::b64::url().decode(body).map_err(|_| TokenError { reason: TokenReason::Malformed })?;
    Ok(heap)
}

/// The checks after authentication, the same for every version: payload
/// syntax, clock, flow age, rounds, principal, binding. `legacy_tag` is the
/// v1 MAC tag, from which the ids of a pre-issue-17 token are derived.
pub(super) fn finish(
    key: &RingKey,
    check: &Check<'_>,
    payload_bytes: &[u8],
    version: u64,
    legacy_tag: Option<&[u8]>,
) -> Result<Opened, TokenError> {
    let (limits, now) = (check.limits, check.now);
    // From here on the bytes are ours; a failure means a bug or a key leak,
    // but is still handled as malformed rather than trusted. The payload as
    // `seal` writes it is read by hand; anything else (an older token, or a
    // leaked key's creation) by serde into a typed struct (unknown and
    // repeated fields are errors). The state stays JSON text until a
    // handler reads it (`Opened::state`).
    let fields = match read_written(payload_bytes) {
        Some(w) if w.v != version => return fail(TokenReason::Version),
        Some(w) => w,
        None => {
            let payload: Payload = serde_json::from_slice(payload_bytes)
                .map_err(|_| TokenError { reason: TokenReason::Malformed })?;
            if payload.v != version {
                return fail(TokenReason::Version);
            }
            Written::decode(payload, legacy_tag)?
        }
    };
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
    // Ninth pass: the tag this thread kept for this key and principal (the
    // seal of the same call's answer then finds it too); see `RingKey`.
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

#[cfg(test)]
#[path = "seal_tests.rs"]
mod tests;
