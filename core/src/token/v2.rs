//! Token format v2, confidential. The payload is exactly v1's
//! (with `"v":2`), encrypted with XChaCha20-Poly1305 under a key derived
//! from the secret by HKDF-SHA256 (`keys.rs`):
//!
//! ```text
//! token = "v2." kid "." b64url( nonce(24) ‖ ciphertext ‖ tag(16) )
//! aad   = "v2." kid
//! ```
//!
//! The 192-bit nonce is drawn at random for every token: at that size
//! random nonces never need coordination between the processes of a
//! fleet. The version and key id are the associated data, so neither can
//! be swapped without failing authentication (`signature`).

use base64::Engine as _;
use chacha20poly1305::aead::AeadInOut;
use chacha20poly1305::{Tag, XNonce};

use crate::error::{Error, ErrorCode, Result};

use super::*;

/// The version word of a v2 token.
pub(crate) const PREFIX_V2: &str = "v2";
/// Bytes of the nonce at the start of a v2 body.
pub(crate) const NONCE_BYTES: usize = 24;
/// Bytes of the authentication tag at its end.
pub(crate) const TAG_BYTES: usize = 16;

fn aad(kid: &str) -> Vec<u8> {
    let mut aad = Vec::with_capacity(PREFIX_V2.len() + 1 + kid.len());
    aad.extend_from_slice(PREFIX_V2.as_bytes());
    aad.push(b'.');
    aad.extend_from_slice(kid.as_bytes());
    aad
}

/// Encrypts `payload` with the signing `key` into a v2 token.
pub(super) fn seal_v2(
    key: &RingKey,
    limits: &Limits,
    random: &Random,
    draw: &Draw<'_>,
    payload: &[u8],
) -> Result<String> {
    let raw_len = NONCE_BYTES + payload.len() + TAG_BYTES;
    let body_len = base64::encoded_len(raw_len, false).unwrap_or(usize::MAX);
    let len = (PREFIX_V2.len() + 1 + key.id.len() + 1).saturating_add(body_len);
    if len > limits.max_token_bytes {
        return Err(size_error(len, limits));
    }
    let mut raw = Vec::with_capacity(raw_len);
    raw.resize(NONCE_BYTES, 0);
    random.fill("nonce", draw, &mut raw)?;
    raw.extend_from_slice(payload);
    let (nonce, msg) = raw.split_at_mut(NONCE_BYTES);
    let nonce = XNonce::try_from(&*nonce)
        .map_err(|_| Error::new(ErrorCode::Config, "token v2: nonce of the wrong size"))?;
    let tag = key
        .aead
        .encrypt_inout_detached(&nonce, &aad(&key.id), msg.into())
        .map_err(|_| Error::new(ErrorCode::StateTooLarge, "token v2: payload too large to encrypt"))?;
    raw.extend_from_slice(&tag);
    let mut token = String::with_capacity(len);
    token.push_str(PREFIX_V2);
    token.push('.');
    token.push_str(&key.id);
    token.push('.');
    super::b64::url().encode_string(&raw, &mut token);
    Ok(token)
}

/// Opens a v2 token (size already checked, prefix already `v2`): three
/// parts, a known key id, a canonical base64url body of at least nonce +
/// tag, then the AEAD (any failure is `signature`), then the checks every
/// version shares.
pub(super) fn open_v2(ring: &KeyRing, check: &Check<'_>, token: &str) -> Result<Opened, TokenError> {
    let mut parts = token.splitn(3, '.');
    let (Some(_), Some(kid), Some(body)) = (parts.next(), parts.next(), parts.next()) else {
        return fail(TokenReason::Malformed);
    };
    let Some(key) = ring.find(kid) else {
        return fail(TokenReason::Key);
    };
    // Canonical base64url only (no padding, zero trailing bits; a `.` in
    // the body is not base64url either).
    let Ok(mut raw) = super::b64::url().decode(body) else {
        return fail(TokenReason::Malformed);
    };
    if raw.len() < NONCE_BYTES + TAG_BYTES {
        return fail(TokenReason::Malformed);
    }
    let tag_at = raw.len() - TAG_BYTES;
    let (head, tag) = raw.split_at_mut(tag_at);
    let (nonce, msg) = head.split_at_mut(NONCE_BYTES);
    let (Ok(nonce), Ok(tag)) = (XNonce::try_from(&*nonce), Tag::try_from(&*tag)) else {
        return fail(TokenReason::Malformed);
    };
    // The tag is compared in constant time by the AEAD.
    if key.aead.decrypt_inout_detached(&nonce, &aad(kid), (&mut *msg).into(), &tag).is_err() {
        return fail(TokenReason::Signature);
    }
    finish(key, check, msg, 2, None)
}

/// For the token inspector: the key id and decrypted payload of a v2
/// token, when a key of `ring` opens it (no other check is made).
pub(crate) fn decrypt_v2<'t>(ring: &KeyRing, token: &'t str) -> Option<(&'t str, Vec<u8>)> {
    let mut parts = token.splitn(3, '.');
    let (Some(PREFIX_V2), Some(kid), Some(body)) = (parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    let key = ring.find(kid)?;
    let mut raw = super::b64::url().decode(body).ok()?;
    if raw.len() < NONCE_BYTES + TAG_BYTES {
        return None;
    }
    let tag_at = raw.len() - TAG_BYTES;
    let (head, tag) = raw.split_at_mut(tag_at);
    let (nonce, msg) = head.split_at_mut(NONCE_BYTES);
    let nonce = XNonce::try_from(&*nonce).ok()?;
    let tag = Tag::try_from(&*tag).ok()?;
    key.aead.decrypt_inout_detached(&nonce, &aad(kid), (&mut *msg).into(), &tag).ok()?;
    Some((kid, msg.to_vec()))
}
