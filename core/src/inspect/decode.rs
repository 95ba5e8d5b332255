//! Reading a token's fields without a key. The input is untrusted and
//! unauthenticated, so this is at least as strict as `open` about shape and
//! size (the same reasons, in the same order, for the checks that need no
//! key), and stricter about form: the payload must be canonical JSON, as
//! every sealer writes it.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::value::RawValue;

use crate::TokenReason;

/// A token's readable fields, as decoded without a key: unauthenticated
/// unless the report's verdict is `Ok`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenFields {
    /// The format version (`1`).
    pub version: u64,
    /// The id of the key that (says it) signed the token.
    pub key_id: String,
    /// Issued at (Unix seconds).
    pub issued_at: u64,
    /// Expires at (Unix seconds); valid strictly before.
    pub expires_at: u64,
    /// Flow start (Unix seconds).
    pub flow_start: u64,
    /// The round that produced the token.
    pub round: u32,
    /// The keys of the questions asked that round, sorted.
    pub question_keys: Vec<String>,
    /// The application state as canonical JSON text, if any.
    pub state_json: Option<String>,
    /// The request binding digest the token carries.
    pub binding: [u8; 32],
    /// The token's id (base64url, 22 characters), as `Call::token_id`
    /// gives it: carried, or for a v1 token of the first layout derived
    /// from its tag as `open` derives it.
    pub token_id: String,
    /// The flow's id, the same for every token of one flow, as
    /// `Call::flow_id` gives it: what a once store keys the flow on.
    pub flow_id: String,
}

/// The payload fields (docs/token-format.md); unknown or repeated fields
/// are refused, as by `open`.
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
    // The flow and token ids (absent in v1 tokens of the first layout).
    #[serde(default)]
    fid: Option<String>,
    #[serde(default)]
    tid: Option<String>,
}

/// Decodes `token`'s fields without verifying it. Refuses, with the reason
/// `open` would give: longer than `max_token_bytes` (`size`, before any
/// decoding), not four parts or a non-canonical part (`malformed`), another
/// format version (`version`).
pub fn decode_token(token: &str, max_token_bytes: usize) -> Result<TokenFields, TokenReason> {
    use TokenReason::{Malformed, Version};
    if token.len() > max_token_bytes {
        return Err(TokenReason::Size);
    }
    let parts: Vec<&str> = token.splitn(5, '.').collect();
    let is_version_word =
        |s: &str| s.strip_prefix('v').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    let &[version, kid, body, tag] = parts.as_slice() else {
        return Err(match parts.first() {
            Some(v) if *v != "v1" && is_version_word(v) => Version,
            _ => Malformed,
        });
    };
    if version != "v1" {
        return Err(if is_version_word(version) { Version } else { Malformed });
    }
    let kid_ok = !kid.is_empty()
        && kid.len() <= crate::MAX_KEY_ID_BYTES
        && kid.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !kid_ok {
        return Err(Malformed);
    }
    // Canonical base64url only: no padding, zero trailing bits.
    let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| Malformed)?;
    if tag.len() != 32 {
        return Err(Malformed);
    }
    let payload = URL_SAFE_NO_PAD.decode(body).map_err(|_| Malformed)?;
    decode_payload(kid, &payload, crate::FORMAT_VERSION, Some(&tag))
}

/// The fields of a v2 token, decrypted with `keys` (only the
/// key that sealed it can read it). `None` when it does not decrypt.
pub(crate) fn decode_v2(token: &str, keys: &[crate::Key]) -> Option<Result<TokenFields, TokenReason>> {
    let ring = crate::token::KeyRing::new(keys).ok()?;
    let (kid, payload) = crate::token::decrypt_v2(&ring, token)?;
    Some(decode_payload(kid, &payload, crate::FORMAT_VERSION_V2, None))
}

/// The fields of a payload (v1 as carried, v2 decrypted), refused unless
/// canonical and of `version`. `legacy_tag` is the v1 MAC tag, from which
/// the ids of a token of the first layout (none carried) are derived.
fn decode_payload(
    kid: &str,
    payload: &[u8],
    version: u64,
    legacy_tag: Option<&[u8]>,
) -> Result<TokenFields, TokenReason> {
    use TokenReason::{Malformed, Version};
    // Repeated or unknown top-level fields are refused here, as by `open`.
    let p: Payload = serde_json::from_slice(payload).map_err(|_| Malformed)?;
    if p.v != version {
        return Err(Version);
    }
    let binding: [u8; 32] = decode_fixed(&p.b)?;
    let _principal_tag: [u8; 16] = decode_fixed(&p.p)?;
    for digest in p.q.values() {
        decode_fixed::<32>(digest)?;
    }
    // The same rule as `open`'s (token::Fields::decode), ids as text.
    let (token_id, flow_id) = match (&p.tid, &p.fid, legacy_tag) {
        (Some(t), Some(f), _) => {
            decode_fixed::<16>(t)?;
            decode_fixed::<16>(f)?;
            (t.clone(), f.clone())
        }
        (None, None, Some(tag)) => {
            let (t, f) = crate::token::legacy_ids(tag);
            (URL_SAFE_NO_PAD.encode(t), URL_SAFE_NO_PAD.encode(f))
        }
        _ => return Err(Malformed),
    };
    // The payload must be exactly its canonical form. It is rebuilt from
    // its parts rather than canonicalised whole, because a state may nest
    // as deep as the parser allows and the payload adds one level.
    let questions = serde_json::to_string(&p.q).map_err(|_| Malformed)?;
    let fid = p.fid.as_ref().map(|f| format!(r#","fid":"{f}""#)).unwrap_or_default();
    let mut canonical = format!(
        r#"{{"b":"{}","exp":{}{fid},"fs":{},"iat":{},"p":"{}","q":{},"r":{}"#,
        p.b,
        p.exp,
        p.fs,
        p.iat,
        p.p,
        crate::canonicalize(questions).map_err(|_| Malformed)?,
        p.r
    );
    if let Some(state) = &p.s {
        canonical.push_str(r#","s":"#);
        canonical.push_str(&crate::canonicalize(state.get()).map_err(|_| Malformed)?);
    }
    if let Some(t) = &p.tid {
        canonical.push_str(&format!(r#","tid":"{t}""#));
    }
    canonical.push_str(&format!(r#","v":{}}}"#, p.v));
    if canonical.as_bytes() != payload {
        return Err(Malformed);
    }
    Ok(TokenFields {
        version: p.v,
        key_id: kid.to_owned(),
        issued_at: p.iat,
        expires_at: p.exp,
        flow_start: p.fs,
        round: p.r,
        question_keys: p.q.into_keys().collect(),
        state_json: p.s.map(|raw| raw.get().to_owned()),
        binding,
        token_id,
        flow_id,
    })
}

fn decode_fixed<const N: usize>(s: &str) -> Result<[u8; N], TokenReason> {
    let bytes = URL_SAFE_NO_PAD.decode(s).map_err(|_| TokenReason::Malformed)?;
    bytes.try_into().map_err(|_| TokenReason::Malformed)
}
