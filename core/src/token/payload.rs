//! What a token carries: [`SealInput`] in, [`Opened`] out, and the exact
//! payload bytes (docs/token-format.md).

use std::borrow::Cow;
use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::elicitation::Question;
use crate::error::Result;
use crate::json;

use super::*;

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
    /// The questions asked this round, by key: the token pins each
    /// one's digest.
    pub questions: &'a [(String, Question)],
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
    pub(super) state_json: Option<String>,
    /// This token's id and its flow's id (base64url of 16 bytes).
    pub(super) token_id: IdText,
    pub(super) flow_id: IdText,
    pub(super) flow_id_bytes: [u8; ID_BYTES],
    /// The format version it was sealed in (1 or 2).
    pub(super) version: u64,
    /// The last Unix second at which any token of this flow can still be
    /// accepted by an engine with these limits: the flow start, plus the
    /// maximum flow age, plus the clock skew another instance may have.
    pub(super) flow_expires_at: u64,
    /// The engine's clock skew, which a store adds once more for its own clock.
    pub(super) clock_skew: u64,
}

impl Opened {
    /// The keys of the input requests asked, in key order.
    pub fn question_keys(&self) -> Vec<&str> {
        self.question_digests.keys().map(String::as_str).collect()
    }

    /// The readable fields as one JSON object, with the names every binding
    /// exposes (camelCase here, in C and in Node; Python and Rust spell the
    /// same names in snake_case): `keyId`, `issuedAt`, `expiresAt`,
    /// `flowStart`, `round`, `questionKeys`, `state` (`null` when none),
    /// `tokenId` and `flowId`.
    pub fn to_json(&self) -> Value {
        let mut fields = self.fields_json();
        if let Value::Object(map) = &mut fields {
            map.insert("state".into(), self.state().unwrap_or(Value::Null));
        }
        fields
    }

    /// [`Opened::to_json`] without `state`: for a binding that hands the
    /// state's text ([`Opened::state_json`]) to its host's own JSON parser
    /// rather than have it parsed here and converted again.
    pub fn fields_json(&self) -> Value {
        serde_json::json!({
            "keyId": self.key_id,
            "tokenId": self.token_id(),
            "flowId": self.flow_id(),
            "issuedAt": self.issued_at,
            "expiresAt": self.expires_at,
            "flowStart": self.flow_start,
            "round": self.round,
            "questionKeys": self.question_keys(),
        })
    }

    /// This token's random 128-bit id, base64url without padding (22
    /// characters). A v1 token of the format's first layout has none
    /// written; its id is derived from its MAC tag (docs/token-format.md).
    pub fn token_id(&self) -> &str {
        self.token_id.as_str()
    }

    /// The id of the flow this token belongs to, the same for every
    /// round of one flow; base64url without padding (22 characters).
    pub fn flow_id(&self) -> &str {
        self.flow_id.as_str()
    }

    /// The last Unix second at which any token of this flow can still be
    /// accepted (flow start + maximum flow age + clock skew).
    pub fn flow_expires_at(&self) -> u64 {
        self.flow_expires_at
    }

    /// The clock skew of the engine that opened it, in seconds.
    pub fn clock_skew(&self) -> u64 {
        self.clock_skew
    }

    /// The token format version it was sealed in: 1 (signed) or 2 (encrypted).
    pub fn version(&self) -> u64 {
        self.version
    }

    pub(crate) fn flow_id_bytes(&self) -> &[u8; ID_BYTES] {
        &self.flow_id_bytes
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

/// The text of an id (`id_text`), held in place rather than in a `String`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IdText([u8; ID_TEXT_BYTES]);

/// base64url without padding of [`ID_BYTES`] bytes.
const ID_TEXT_BYTES: usize = (ID_BYTES * 8).div_ceil(6);

impl IdText {
    pub(crate) fn new(id: &[u8; ID_BYTES]) -> IdText {
        let mut out = [0u8; ID_TEXT_BYTES];
        // 16 bytes always encode to exactly 22 characters; the length is
        // checked by the unit test against `id_text`.
        let _ = URL_SAFE_NO_PAD.encode_slice(id, &mut out);
        IdText(out)
    }

    pub(crate) fn as_str(&self) -> &str {
        // base64url is ASCII, so this never takes the fallback.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

#[cfg(test)]
pub(crate) fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The token payload as `open` reads it (docs/token-format.md), borrowing
/// from the decoded payload bytes (text fields, the state's raw text); a
/// field spelled with escapes (only possible with a leaked key) is read as
/// owned text. Unknown and repeated fields are errors.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Payload<'a> {
    pub(super) v: u64,
    pub(super) iat: u64,
    pub(super) exp: u64,
    pub(super) fs: u64,
    pub(super) r: u32,
    #[serde(borrow)]
    pub(super) b: Text<'a>,
    #[serde(borrow)]
    pub(super) p: Text<'a>,
    #[serde(borrow)]
    pub(super) q: BTreeMap<String, Text<'a>>,
    #[serde(default, borrow)]
    pub(super) s: Option<RawText<'a>>,
    /// Absent only in v1 tokens of the first layout (both or neither).
    #[serde(default, borrow)]
    pub(super) fid: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(super) tid: Option<Text<'a>>,
}

/// The state's JSON text in a payload, as serde_json's raw value reader
/// delimits it.
pub(crate) struct RawText<'a>(pub(super) &'a str);

impl<'a> RawText<'a> {
    pub(super) fn get(&self) -> &'a str {
        self.0
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for RawText<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        <&'de RawValue as serde::Deserialize<'de>>::deserialize(d).map(|raw| RawText(raw.get()))
    }
}

/// A JSON string of the payload: borrowed when it has no escapes (always,
/// for what `seal` writes), owned otherwise. serde's own `Cow<str>` would
/// always copy inside a map, hence this small reader.
pub(crate) struct Text<'a>(Cow<'a, str>);

impl Text<'_> {
    pub(super) fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> std::result::Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> std::result::Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The two ids a token is sealed with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ids {
    pub(crate) token: [u8; ID_BYTES],
    pub(crate) flow: [u8; ID_BYTES],
}

pub(crate) fn decode_fixed<const N: usize>(s: &str) -> Result<[u8; N], TokenError> {
    let malformed = || TokenError { reason: TokenReason::Malformed };
    // Text that does not fit decodes to more than N bytes: malformed.
    let mut buf = [0u8; 64];
    let n = URL_SAFE_NO_PAD.decode_slice(s, &mut buf).map_err(|_| malformed())?;
    buf.get(..n).and_then(|b| b.try_into().ok()).ok_or_else(malformed)
}

/// `v` followed by one or more digits: a format version word.
pub(crate) fn is_version_word(s: &str) -> bool {
    s.strip_prefix('v').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// A payload's fields as `open` checks them, its base64url fields
/// decoded.
pub(crate) struct Fields<'a> {
    pub(crate) iat: u64,
    pub(crate) exp: u64,
    pub(crate) fs: u64,
    pub(crate) r: u32,
    pub(crate) b: [u8; 32],
    pub(crate) p: [u8; PRINCIPAL_TAG_BYTES],
    pub(crate) q: BTreeMap<String, [u8; 32]>,
    /// The state's JSON text, borrowed from the payload.
    pub(crate) s: Option<&'a str>,
    /// The token's id and its flow's id, each as bytes and as text.
    pub(crate) tid: ([u8; ID_BYTES], IdText),
    pub(crate) fid: ([u8; ID_BYTES], IdText),
}

impl<'a> Fields<'a> {
    /// The fields of a payload, decoded in the order `open` has always
    /// decoded them (the binding, the principal tag, the questions by key,
    /// the ids), each failure malformed; the ids of a v1 token of the
    /// first layout (neither written) derived from `legacy_tag`, its MAC
    /// tag.
    pub(crate) fn decode(p: Payload<'a>, legacy_tag: Option<&[u8]>) -> Result<Fields<'a>, TokenError> {
        let b = decode_fixed(p.b.as_str())?;
        let ptag = decode_fixed(p.p.as_str())?;
        let mut q = BTreeMap::new();
        for (k, v) in p.q {
            q.insert(k, decode_fixed::<32>(v.as_str())?);
        }
        let (token, flow) = match (&p.tid, &p.fid, legacy_tag) {
            (Some(t), Some(f), _) => {
                (decode_fixed::<ID_BYTES>(t.as_str())?, decode_fixed::<ID_BYTES>(f.as_str())?)
            }
            (None, None, Some(tag)) => legacy_ids(tag),
            _ => return Err(TokenError { reason: TokenReason::Malformed }),
        };
        Ok(Fields {
            iat: p.iat,
            exp: p.exp,
            fs: p.fs,
            r: p.r,
            b,
            p: ptag,
            q,
            s: p.s.map(|raw| raw.get()),
            tid: (token, IdText::new(&token)),
            fid: (flow, IdText::new(&flow)),
        })
    }
}

mod writer;
pub(crate) use writer::*;

#[cfg(test)]
#[path = "payload_tests.rs"]
mod tests;
