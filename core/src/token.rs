//! Sealed continuation tokens: the `requestState` snodo issues and opens.
//!
//! `requestState` is attacker-controlled input (MCP 2026-07-28, MRTR). A token
//! is HMAC-SHA256 over a compact, versioned payload. It is *readable*, not
//! encrypted: never put secrets in application state. The exact bytes are in
//! `docs/token-format.md`:
//!
//! ```text
//! token   = "v1." kid "." b64url(payload) "." b64url(HMAC-SHA256(key[kid], "v1." kid "." b64url(payload)))
//! payload = canonical JSON {"b","exp","fs","iat","p","q","r","s"?,"v"}
//! ```
//!
//! Opening checks, in order and each before any more expensive step: size,
//! shape and version, key id, MAC (constant time), payload syntax, clock,
//! flow age, rounds, principal, request binding. Every failure has a reason
//! ([`TokenReason`]) and nothing of the token is ever echoed.

use std::collections::BTreeMap;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::error::{Error, ErrorCode, Result};
use crate::json;

type HmacSha256 = Hmac<Sha256>;

/// The only token format version this build issues and accepts.
pub const FORMAT_VERSION: u64 = 1;
const PREFIX: &str = "v1";
/// Shortest key accepted, in bytes.
pub const MIN_KEY_BYTES: usize = 32;
/// Longest key accepted, in bytes.
pub const MAX_KEY_BYTES: usize = 1024;
/// Most keys in a ring.
pub const MAX_KEYS: usize = 8;
/// Longest key id, in bytes.
pub const MAX_KEY_ID_BYTES: usize = 32;
/// Bytes of the principal tag kept in the token.
const PRINCIPAL_TAG_BYTES: usize = 16;

/// The message of every empty-principal refusal, in every language.
pub const EMPTY_PRINCIPAL_MESSAGE: &str = "principal: empty name; use the anonymous principal";

/// Who is making a request, as the application verified it.
///
/// Opaque and validated: built only by [`Principal::anonymous`],
/// [`Principal::user`] or [`Principal::from_option`], so an empty name can
/// never reach a token.
#[derive(Clone, PartialEq, Eq)]
pub struct Principal {
    /// `None` is the explicit anonymous principal.
    name: Option<String>,
}

impl Principal {
    /// No authenticated user (for example a local stdio server). Explicit, and
    /// distinct from every named principal.
    pub fn anonymous() -> Principal {
        Principal { name: None }
    }

    /// An authenticated principal, such as an OAuth `sub` (optionally with the
    /// issuer or client id folded in by the application). An empty name is
    /// `ARGUMENT` (use [`Principal::anonymous`]).
    pub fn user(name: impl Into<String>) -> Result<Principal> {
        let name = name.into();
        if name.is_empty() {
            return Err(Error::new(ErrorCode::Argument, EMPTY_PRINCIPAL_MESSAGE));
        }
        Ok(Principal { name: Some(name) })
    }

    /// The one conversion every binding uses for its principal argument:
    /// `None` (C `NULL`, Python `None`, JS `null`) is anonymous, a non-empty
    /// string a user, an empty string `ARGUMENT`. The argument itself is
    /// required in every language; only its value may be "anonymous".
    pub fn from_option(name: Option<&str>) -> Result<Principal> {
        match name {
            None => Ok(Principal::anonymous()),
            Some(n) => Principal::user(n),
        }
    }

    /// The user's name, or `None` for the anonymous principal.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Whether this is the anonymous principal.
    pub fn is_anonymous(&self) -> bool {
        self.name.is_none()
    }
}

// The principal is personal data: keep it out of logs by default.
impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name {
            None => f.write_str("Principal::Anonymous"),
            Some(_) => f.write_str("Principal::User(..)"),
        }
    }
}

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

/// The ring: the first key signs, every key verifies (rotation).
#[derive(Clone)]
pub(crate) struct KeyRing {
    keys: Vec<(String, HmacSha256)>,
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.keys.iter().map(|(id, _)| id)).finish()
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
            if out.iter().any(|(id, _)| id == &k.id) {
                return Err(Error::new(ErrorCode::Config, format!("keys: duplicate key id {:?}", k.id)));
            }
            // The keyed HMAC state is computed once per key; each use clones
            // it. hmac's `zeroize` feature wipes these states on drop.
            let mac = HmacSha256::new_from_slice(&k.secret)
                .map_err(|_| Error::new(ErrorCode::Config, format!("key {:?}: unusable", k.id)))?;
            out.push((k.id.clone(), mac));
        }
        Ok(KeyRing { keys: out })
    }

    fn signer(&self) -> Option<&(String, HmacSha256)> {
        self.keys.first()
    }

    fn find(&self, id: &str) -> Option<&HmacSha256> {
        self.keys.iter().find(|(k, _)| k == id).map(|(_, m)| m)
    }
}

/// Limits that apply to sealing and opening.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub ttl: u64,
    pub max_rounds: u32,
    pub max_flow_age: u64,
    pub max_token_bytes: usize,
    pub skew: u64,
}

/// Why a token was refused. On the wire every reason is the same `-32602`
/// `Invalid or expired requestState`, with `data.reason` set to [`TokenReason::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TokenReason {
    /// Not a token of this format (shape, base64, payload).
    Malformed,
    /// A format version this build does not know.
    Version,
    /// A key id not in the ring.
    Key,
    /// The MAC does not match: tampered, or sealed with another key.
    Signature,
    /// Presented at or after its expiry.
    Expired,
    /// Issued further in the future than the allowed clock skew.
    NotYetValid,
    /// Presented by another principal.
    Principal,
    /// Presented on another method, tool, resource, prompt or arguments.
    Request,
    /// The flow has used up its rounds.
    Rounds,
    /// The flow started longer ago than the maximum flow age.
    FlowAge,
    /// Longer than the configured maximum token size.
    Size,
}

impl TokenReason {
    /// Every reason, for bindings and documentation.
    pub const ALL: [TokenReason; 11] = [
        TokenReason::Malformed,
        TokenReason::Version,
        TokenReason::Key,
        TokenReason::Signature,
        TokenReason::Expired,
        TokenReason::NotYetValid,
        TokenReason::Principal,
        TokenReason::Request,
        TokenReason::Rounds,
        TokenReason::FlowAge,
        TokenReason::Size,
    ];

    /// The stable name used as `data.reason`.
    pub fn name(self) -> &'static str {
        match self {
            TokenReason::Malformed => "malformed",
            TokenReason::Version => "version",
            TokenReason::Key => "key",
            TokenReason::Signature => "signature",
            TokenReason::Expired => "expired",
            TokenReason::NotYetValid => "not_yet_valid",
            TokenReason::Principal => "principal",
            TokenReason::Request => "request",
            TokenReason::Rounds => "rounds",
            TokenReason::FlowAge => "flow_age",
            TokenReason::Size => "size",
        }
    }
}

/// A token that failed to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenError {
    /// Why.
    pub reason: TokenReason,
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Invalid or expired requestState ({})", self.reason.name())
    }
}

impl std::error::Error for TokenError {}

impl From<TokenError> for Error {
    fn from(e: TokenError) -> Error {
        // One message in every language: the Display text, which names the
        // reason (bindings expose the reason name separately as well).
        Error::new(ErrorCode::Token, e.to_string())
    }
}

fn fail<T>(reason: TokenReason) -> Result<T, TokenError> {
    Err(TokenError { reason })
}

/// What goes into a token.
#[derive(Debug, Clone, Copy)]
pub struct SealInput<'a> {
    /// The principal the token is bound to.
    pub principal: &'a Principal,
    /// The request binding, from [`binding_digest`].
    pub binding: &'a [u8; 32],
    /// The round that produced this token (1 for a first call).
    pub round: u32,
    /// When the flow started (Unix seconds).
    pub flow_start: u64,
    /// The questions asked this round, by key.
    pub questions: &'a [(String, Value)],
    /// The application's state, carried readable (never put secrets here).
    /// `None` and JSON `null` both mean no state. Nesting is limited to
    /// 63 levels, so that the state always parses back.
    pub state: Option<&'a Value>,
}

/// What an opened token says.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    /// Key id that signed it.
    pub key_id: String,
    /// Issued at (Unix seconds).
    pub issued_at: u64,
    /// Expires at (Unix seconds); valid strictly before.
    pub expires_at: u64,
    /// Flow start (Unix seconds).
    pub flow_start: u64,
    /// The round that produced it.
    pub round: u32,
    /// SHA-256 of the canonical form of each input request asked, by key.
    pub question_digests: BTreeMap<String, [u8; 32]>,
    /// The application's state as canonical JSON text, if any.
    state_json: Option<String>,
}

impl Opened {
    /// The keys of the input requests asked, in key order.
    pub fn question_keys(&self) -> Vec<&str> {
        self.question_digests.keys().map(String::as_str).collect()
    }

    /// The readable fields as one JSON object, with the names every binding
    /// exposes (camelCase here, in C and in Node; Python and Rust spell the
    /// same names in snake_case): `keyId`, `issuedAt`, `expiresAt`,
    /// `flowStart`, `round`, `questionKeys`, `state` (`null` when none).
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "keyId": self.key_id,
            "issuedAt": self.issued_at,
            "expiresAt": self.expires_at,
            "flowStart": self.flow_start,
            "round": self.round,
            "questionKeys": self.question_keys(),
            "state": self.state().unwrap_or(Value::Null),
        })
    }

    /// The application's state as canonical JSON text, if any.
    pub fn state_json(&self) -> Option<&str> {
        self.state_json.as_deref()
    }

    /// The application's state, parsed. Parsing is done on demand because
    /// it costs more than opening the token; `Call::state` caches it.
    /// The text was written by `seal` and authenticated by the MAC, and
    /// `seal` refuses state nested deeper than the parser accepts, so the
    /// parse cannot fail for a token this library sealed.
    pub fn state(&self) -> Option<Value> {
        let text = self.state_json.as_deref()?;
        json::parse(text.as_bytes(), usize::MAX).ok()
    }
}

/// The request binding: SHA-256 over a domain label, the method, and the
/// canonical form of `params` without its top-level `_meta`, `inputResponses`
/// and `requestState`. The JSON-RPC id is outside params and so unbound.
///
/// `params` must be an object (`ARGUMENT` otherwise, with
/// [`BINDING_PARAMS_MESSAGE`]): a request's params are always one.
pub fn binding_digest(method: &str, params: &Value) -> Result<[u8; 32]> {
    match params {
        Value::Object(m) => Ok(binding_digest_map(method, m)),
        _ => Err(Error::new(ErrorCode::Argument, BINDING_PARAMS_MESSAGE)),
    }
}

/// [`binding_digest`] over params given as JSON text, read strictly
/// (`JSON` on bad text, [`crate::MAX_ARGUMENT_BYTES`]), so that numbers keep
/// their exact spelling.
pub fn binding_digest_text(method: &str, params: impl AsRef<[u8]>) -> Result<[u8; 32]> {
    binding_digest(method, &json::parse_json(params.as_ref(), "params")?)
}

/// The message for binding params that are not an object, in every language.
pub const BINDING_PARAMS_MESSAGE: &str = "params: must be an object";

/// [`binding_digest`] of a params object.
pub fn binding_digest_map(method: &str, params: &Map<String, Value>) -> [u8; 32] {
    let mut h = json::HashSink::new(binding_hasher(method));
    json::write_map_except(params, &BINDING_SKIP, &mut h);
    h.finish().finalize().into()
}

/// Top-level params keys that are not part of the request binding.
const BINDING_SKIP: [&str; 3] = ["_meta", "inputResponses", "requestState"];

fn binding_hasher(method: &str) -> Sha256 {
    let mut h = Sha256::new();
    h.update(b"snodo/v1/binding\0");
    h.update(method.as_bytes());
    h.update(b"\0");
    h
}

/// The digest that pins one question: SHA-256 of its canonical form.
pub fn question_digest(request: &Value) -> [u8; 32] {
    json::digest(request)
}

fn principal_tag(mac: &HmacSha256, principal: &Principal) -> [u8; PRINCIPAL_TAG_BYTES] {
    let mut m = mac.clone();
    match principal.name() {
        None => m.update(b"snodo/v1/principal\0anonymous"),
        Some(name) => {
            m.update(b"snodo/v1/principal\0user\0");
            m.update(name.as_bytes());
        }
    }
    let full = m.finalize().into_bytes();
    let mut out = [0u8; PRINCIPAL_TAG_BYTES];
    out.copy_from_slice(&full[..PRINCIPAL_TAG_BYTES]);
    out
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The canonical payload, written directly rather than built as a `Value`
/// and canonicalised: that saves a deep copy of the state and a map per
/// seal. The bytes are exactly `json::canonical` of
/// `{"b","exp","fs","iat","p","q","r","s"?,"v"}` (keys in byte order, which
/// is the order written here; `q` keeps the last digest of a repeated key,
/// as a map insert would). The token vectors pin this byte for byte.
fn write_payload(out: &mut Vec<u8>, mac: &HmacSha256, limits: &Limits, now: u64, input: &SealInput<'_>) {
    use json::Sink as _;
    let mut questions: BTreeMap<&str, [u8; 32]> = BTreeMap::new();
    for (key, request) in input.questions {
        questions.insert(key, question_digest(request));
    }
    let num = |out: &mut Vec<u8>, key: &[u8], n: u64| {
        out.put(key);
        out.put(n.to_string().as_bytes());
    };
    out.put(b"{\"b\":\"");
    out.put(b64(input.binding).as_bytes());
    out.put(b"\"");
    num(out, b",\"exp\":", now.saturating_add(limits.ttl));
    num(out, b",\"fs\":", input.flow_start);
    num(out, b",\"iat\":", now);
    out.put(b",\"p\":\"");
    out.put(b64(&principal_tag(mac, input.principal)).as_bytes());
    out.put(b"\",\"q\":{");
    for (i, (key, digest)) in questions.iter().enumerate() {
        if i > 0 {
            out.put(b",");
        }
        json::write_string(key, out);
        out.put(b":\"");
        out.put(b64(digest).as_bytes());
        out.put(b"\"");
    }
    out.put(b"}");
    num(out, b",\"r\":", u64::from(input.round));
    // A null state is no state, so that `open` gives back exactly `None`.
    if let Some(state) = input.state.filter(|s| !s.is_null()) {
        out.put(b",\"s\":");
        json::write_canonical(state, out);
    }
    num(out, b",\"v\":", FORMAT_VERSION);
    out.put(b"}");
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
    let Ok(tag_bytes) = URL_SAFE_NO_PAD.decode(tag) else {
        return fail(TokenReason::Malformed);
    };
    if tag_bytes.len() != 32 {
        return fail(TokenReason::Malformed);
    }
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

/// The token payload as `open` reads it (docs/token-format.md).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Payload {
    v: u64,
    iat: u64,
    exp: u64,
    fs: u64,
    r: u32,
    b: String,
    p: String,
    q: BTreeMap<String, String>,
    #[serde(default)]
    s: Option<Box<RawValue>>,
}

fn decode_fixed<const N: usize>(s: &str) -> Result<[u8; N], TokenError> {
    let bytes = URL_SAFE_NO_PAD.decode(s).map_err(|_| TokenError { reason: TokenReason::Malformed })?;
    bytes.try_into().map_err(|_| TokenError { reason: TokenReason::Malformed })
}

/// `v` followed by one or more digits: a format version word.
fn is_version_word(s: &str) -> bool {
    s.strip_prefix('v').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ring(ids: &[(&str, u8)]) -> KeyRing {
        let keys: Vec<Key> = ids.iter().map(|(id, b)| Key::new(*id, vec![*b; 32]).unwrap()).collect();
        KeyRing::new(&keys).unwrap()
    }
    const LIM: Limits =
        Limits { ttl: 300, max_rounds: 16, max_flow_age: 3600, max_token_bytes: 16384, skew: 60 };
    const NOW: u64 = 1_800_000_000;

    fn sealed(r: &KeyRing, state: Option<&Value>) -> (String, [u8; 32]) {
        let binding = binding_digest("tools/call", &json!({"name":"t","arguments":{"a":1}})).unwrap();
        let questions = vec![("q".to_string(), json!({"method":"roots/list"}))];
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
        assert_eq!(
            open(&r, &LIM, NOW, &t, &alice(), &other_method).unwrap_err().reason,
            TokenReason::Request
        );
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
        assert_eq!(reason("v2.k1.e30.AAAA"), TokenReason::Version);
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
        assert_eq!(
            open(&r, &LIM, NOW, &mk(16, NOW), &anon, &binding).unwrap_err().reason,
            TokenReason::Rounds
        );
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
}
