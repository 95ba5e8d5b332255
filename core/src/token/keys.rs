//! Keys and the key ring: the first key signs, every key verifies.

use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

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
/// its HMAC with the secret itself, exactly as before issue 17, so v1
/// bytes are unchanged; the AEAD key is derived, never the same bytes.
pub(crate) const V2_KEY_INFO: &[u8] = b"snodo/token/v2/xchacha20poly1305";

/// The HKDF-SHA256 `info` label of the legacy bridge's request-id key: the
/// ids it sends are MACs under it, so they cannot be computed from what a
/// session holder knows.
pub(crate) const LEGACY_TAG_INFO: &[u8] = b"snodo/legacy/request-ids";

/// One key of the ring, ready to use: its id, the keyed HMAC state (v1
/// tags, principal tags) and the derived v2 cipher. Both are computed once,
/// when the engine is built; both wipe their key bytes on drop (hmac's and
/// chacha20poly1305's `zeroize` features).
#[derive(Clone)]
pub(crate) struct RingKey {
    pub(crate) id: String,
    pub(crate) mac: HmacSha256,
    pub(crate) aead: XChaCha20Poly1305,
    /// HMAC-SHA256 keyed with the derived legacy request-id key.
    legacy: HmacSha256,
    /// A number no other ring key made in this process has (a clone keeps
    /// it, with the same secret): what this thread's principal tags are
    /// remembered under (eighth pass; see [`RingKey::principal_tag`]).
    serial: u64,
}

/// The next [`RingKey::serial`]. 64 bits: never wraps in practice.
static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

/// Principal tags kept per thread; the oldest is replaced.
const KEPT_TAGS: usize = 4;

/// A remembered principal tag: the key's serial, the principal, the tag.
type KeptTag = (u64, Principal, [u8; PRINCIPAL_TAG_BYTES]);

thread_local! {
    /// The last few principal tags made on this thread, and the slot the
    /// next one replaces.
    static TAGS: RefCell<(Vec<KeptTag>, usize)> = const { RefCell::new((Vec::new(), 0)) };
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

    /// [`principal_tag`] under this key's secret, remembered per thread
    /// (issue 16, eighth pass: two SHA-256 blocks and a copy of the keyed
    /// state, about a twentieth of a 256 B `decide`, for a tag that is the
    /// same on every seal for the same user). Kept under the key's
    /// `serial`, not its id: an id does not name a secret (a reloaded
    /// config may reuse it for another; the sixth pass's reuse of `open`'s
    /// tag fell to that), while a serial belongs to one `RingKey`, made
    /// once from one secret, and to its clones. Principals compare by
    /// name; at most four names (shared, not copied) stay alive per
    /// thread. A test holds the kept tag to a fresh one across keys that
    /// share an id.
    pub(crate) fn principal_tag(&self, principal: &Principal) -> [u8; PRINCIPAL_TAG_BYTES] {
        // `try_with`: a seal from another thread-local's destructor finds
        // this one gone, and simply makes the tag.
        let kept = TAGS
            .try_with(|t| {
                let t = t.try_borrow().ok()?;
                t.0.iter().find(|(s, p, _)| *s == self.serial && p == principal).map(|(_, _, tag)| *tag)
            })
            .ok()
            .flatten();
        if let Some(tag) = kept {
            return tag;
        }
        let tag = principal_tag(&self.mac, principal);
        let _gone = TAGS.try_with(|t| {
            // Nothing here calls back, so never busy; skipped, not a panic.
            let Ok(mut t) = t.try_borrow_mut() else { return };
            let (kept, next) = &mut *t;
            let entry = (self.serial, principal.clone(), tag);
            if kept.len() < KEPT_TAGS {
                kept.push(entry);
            } else if let Some(slot) = kept.get_mut(*next) {
                *slot = entry;
                *next = (*next + 1) % KEPT_TAGS;
            }
        });
        tag
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
            let serial = NEXT_SERIAL.fetch_add(1, Ordering::Relaxed);
            out.push(RingKey { id: k.id.clone(), mac, aead, legacy, serial });
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod kept_tag_tests {
    use super::*;

    /// Eighth pass: the remembered principal tag is always the tag made
    /// afresh, for rings whose keys share an id but not a secret (a config
    /// reload), their clones, and more principals than are kept, in a
    /// mixed order.
    #[test]
    fn kept_tag_is_the_fresh_tag() {
        let ring = |secret: u8| KeyRing::new(&[Key::new("k1", vec![secret; 32]).unwrap()]).unwrap();
        let rings = [ring(1), ring(2), ring(1).clone(), ring(3)];
        let signers: Vec<&RingKey> = rings.iter().map(|r| r.signer().unwrap()).collect();
        let mut principals = vec![Principal::anonymous()];
        for name in ["alice", "bob", "carol", "dave", "erin", "alice\0", "ALICE"] {
            principals.push(Principal::user(name).unwrap());
        }
        let mut seen = std::collections::HashSet::new();
        for round in 0..5usize {
            for (i, p) in principals.iter().enumerate() {
                for (j, key) in signers.iter().enumerate() {
                    let at = (i * 7 + j * 3 + round) % signers.len();
                    let key = if round % 2 == 0 { key } else { &signers[at] };
                    let fresh = principal_tag(&key.mac, p);
                    assert_eq!(key.principal_tag(p), fresh, "round {round}, principal {i}, key {j}");
                    seen.insert(fresh);
                }
            }
        }
        // Three distinct secrets, eight principals: every tag differs.
        assert_eq!(seen.len(), 3 * principals.len());
        // From a thread-local's destructor, when the memos' own
        // thread-locals may be gone already: the same tag and digest, no
        // panic.
        struct Late(RingKey, Principal);
        impl Drop for Late {
            fn drop(&mut self) {
                let q = serde_json::json!({"method": "elicitation/create", "params": {"message": "late"}});
                let digest = question_digest_within(&q);
                assert_eq!(crate::token::question_digest_asked(&q, &|_| true), digest);
                assert_eq!(crate::token::question_digest_asked(&q, &|_| true), digest);
                assert_eq!(self.0.principal_tag(&self.1), principal_tag(&self.0.mac, &self.1));
            }
        }
        thread_local! {
            static LATE: std::cell::RefCell<Option<Late>> = const { std::cell::RefCell::new(None) };
        }
        let (key, who) = (signers[0].clone(), principals[1].clone());
        std::thread::spawn(move || {
            LATE.with(|l| *l.borrow_mut() = Some(Late(key.clone(), who.clone())));
            // The memos' thread-locals registered after LATE's.
            assert_eq!(key.principal_tag(&who), principal_tag(&key.mac, &who));
            let q = serde_json::json!({"method": "elicitation/create", "params": {"message": "early"}});
            assert_eq!(crate::token::question_digest_asked(&q, &|_| true), question_digest_within(&q));
        })
        .join()
        .unwrap();
        // A clone keeps the serial, with the same secret.
        let clone = signers[1].clone();
        assert_eq!(clone.principal_tag(&principals[1]), principal_tag(&signers[1].mac, &principals[1]));
    }
}
