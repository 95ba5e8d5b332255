//! Keys and the key ring: the first key signs, every key verifies.

use std::fmt;

use chacha20poly1305::XChaCha20Poly1305;
use hmac::KeyInit;
use zeroize::Zeroizing;

use crate::error::{Error, ErrorCode, Result};

use super::*;

/// Shortest key accepted, in bytes.
pub const MIN_KEY_BYTES: usize = 32;
/// Longest key accepted, in bytes.
pub const MAX_KEY_BYTES: usize = 1024;
/// Most keys in a ring.
pub const MAX_KEYS: usize = 8;
/// Longest key id, in bytes.
pub const MAX_KEY_ID_BYTES: usize = 32;

/// One secret key of the ring. The bytes are zeroized on drop and never
/// shown by `Debug` or in any error.
#[derive(Clone)]
pub struct Key {
    id: String,
    secret: Zeroizing<Vec<u8>>,
}

impl Key {
    /// A key with an id (1 to 32 bytes of `A-Z a-z 0-9 _ -`) and 32 to 1024
    /// secret bytes, which should be random.
    pub fn new(id: impl Into<String>, secret: impl Into<Vec<u8>>) -> Result<Key> {
        let id = id.into();
        let secret = Zeroizing::new(secret.into());
        if id.is_empty()
            || id.len() > MAX_KEY_ID_BYTES
            || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(Error::new(
                ErrorCode::Config,
                format!("key id must be 1 to {MAX_KEY_ID_BYTES} characters of A-Z a-z 0-9 _ -"),
            ));
        }
        if secret.len() < MIN_KEY_BYTES {
            return Err(Error::new(
                ErrorCode::Config,
                format!("key {id:?}: {} bytes is too short, at least {MIN_KEY_BYTES} required", secret.len()),
            ));
        }
        if secret.len() > MAX_KEY_BYTES {
            return Err(Error::new(
                ErrorCode::Config,
                format!("key {id:?}: longer than {MAX_KEY_BYTES} bytes"),
            ));
        }
        Ok(Key { id, secret })
    }

    /// A key of 32 fresh random bytes from the operating system.
    pub fn random(id: impl Into<String>) -> Result<Key> {
        let mut bytes = Zeroizing::new(vec![0u8; 32]);
        getrandom::fill(&mut bytes)
            .map_err(|_| Error::new(ErrorCode::Config, "the operating system gave no random bytes"))?;
        Key::new(id, bytes.to_vec())
    }

    /// The key id (public; it is written into every token).
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key").field("id", &self.id).field("secret", &"[redacted]").finish()
    }
}

/// The HKDF-SHA256 `info` label of the token v2 encryption key. v1 keys
/// its HMAC with the secret itself, exactly as v1 always has, so v1
/// bytes are unchanged; the AEAD key is derived, never the same bytes.
pub(crate) const V2_KEY_INFO: &[u8] = b"snodo/token/v2/xchacha20poly1305";

/// The HKDF-SHA256 `info` label of the legacy bridge's request-id key: the
/// ids it sends are MACs under it, so they cannot be computed from what a
/// session holder knows.
pub(crate) const LEGACY_TAG_INFO: &[u8] = b"snodo/legacy/request-ids";

/// One key of the ring, ready to use: its id, the keyed HMAC state (v1
/// tags, principal tags), the derived v2 cipher and the derived legacy
/// request-id MAC state. All are computed once, when the engine is built,
/// and are part of the ring (nothing derived from a secret is kept
/// anywhere else); each use clones a keyed state. All wipe their key bytes
/// on drop (hmac's and chacha20poly1305's `zeroize` features).
#[derive(Clone)]
pub(crate) struct RingKey {
    pub(crate) id: String,
    pub(crate) mac: HmacSha256,
    pub(crate) aead: XChaCha20Poly1305,
    /// HMAC-SHA256 keyed with the derived legacy request-id key.
    legacy: HmacSha256,
}

impl RingKey {
    /// The MAC of `parts` under the legacy request-id key, each part
    /// preceded by its length (8 bytes, big-endian).
    pub(crate) fn legacy_tag(&self, parts: &[&[u8]]) -> [u8; 32] {
        use hmac::Mac;
        let mut mac = self.legacy.clone();
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        mac.finalize().into_bytes().into()
    }

    /// [`principal_tag`] under this key's secret.
    pub(crate) fn principal_tag(&self, principal: &Principal) -> [u8; PRINCIPAL_TAG_BYTES] {
        principal_tag(&self.mac, principal)
    }
}

/// The ring: the first key signs, every key verifies (rotation).
#[derive(Clone)]
pub(crate) struct KeyRing {
    keys: Vec<RingKey>,
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.keys.iter().map(|k| &k.id)).finish()
    }
}

impl KeyRing {
    pub(crate) fn new(keys: &[Key]) -> Result<KeyRing> {
        if keys.is_empty() {
            return Err(Error::new(ErrorCode::Config, "keys: the key ring is empty; give 1 to 8 keys"));
        }
        if keys.len() > MAX_KEYS {
            return Err(Error::new(
                ErrorCode::Config,
                format!("keys: {} keys, at most {MAX_KEYS}", keys.len()),
            ));
        }
        let mut out = Vec::with_capacity(keys.len());
        for k in keys {
            if out.iter().any(|r: &RingKey| r.id == k.id) {
                return Err(Error::new(ErrorCode::Config, format!("keys: duplicate key id {:?}", k.id)));
            }
            // The keyed HMAC state is computed once per key; each use clones
            // it. hmac's `zeroize` feature wipes these states on drop.
            let mac = HmacSha256::new_from_slice(&k.secret)
                .map_err(|_| Error::new(ErrorCode::Config, format!("key {:?}: unusable", k.id)))?;
            let unusable = || Error::new(ErrorCode::Config, format!("key {:?}: unusable", k.id));
            let aead = derive_aead(&k.secret).ok_or_else(unusable)?;
            let legacy = derive_mac(&k.secret, LEGACY_TAG_INFO).ok_or_else(unusable)?;
            out.push(RingKey { id: k.id.clone(), mac, aead, legacy });
        }
        Ok(KeyRing { keys: out })
    }

    pub(super) fn signer(&self) -> Option<&RingKey> {
        self.keys.first()
    }

    /// The legacy bridge's 8-byte flow tag over `parts`, under the signing
    /// key's legacy request-id key ([`RingKey::legacy_tag`]).
    pub(crate) fn legacy_tag(&self, parts: &[&[u8]]) -> [u8; 8] {
        let mut out = [0u8; 8];
        // A ring is never empty (checked when the engine is built).
        if let Some(key) = self.signer() {
            for (o, t) in out.iter_mut().zip(key.legacy_tag(parts)) {
                *o = t;
            }
        }
        out
    }

    pub(super) fn find(&self, id: &str) -> Option<&RingKey> {
        self.keys.iter().find(|k| k.id == id)
    }
}

/// An HMAC-SHA256 state keyed with `HKDF-SHA256(salt = none, ikm = secret,
/// info)`, 32 bytes: a key for one purpose, never the secret itself.
fn derive_mac(secret: &[u8], info: &[u8]) -> Option<HmacSha256> {
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(None, secret);
    let mut okm = Zeroizing::new([0u8; 32]);
    hk.expand(info, okm.as_mut_slice()).ok()?;
    HmacSha256::new_from_slice(okm.as_slice()).ok()
}

/// The v2 cipher of a secret: XChaCha20-Poly1305 under
/// `HKDF-SHA256(salt = none, ikm = secret, info = V2_KEY_INFO)`, 32 bytes.
fn derive_aead(secret: &[u8]) -> Option<XChaCha20Poly1305> {
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(None, secret);
    let mut okm = Zeroizing::new([0u8; 32]);
    hk.expand(V2_KEY_INFO, okm.as_mut_slice()).ok()?;
    XChaCha20Poly1305::new_from_slice(okm.as_slice()).ok()
}
