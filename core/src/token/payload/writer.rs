//! The payload's writer (docs/token-format.md): the exact bytes `seal`
//! MACs (v1) or encrypts (v2).

use std::collections::BTreeMap;
use std::io::Write as _;

use base64::Engine as _;

use crate::json;

use super::*;

/// Appends the base64url (no padding) of `bytes` to `out`, encoded in
/// place.
pub(crate) fn put_b64(out: &mut Vec<u8>, bytes: &[u8]) {
    let start = out.len();
    let len = base64::encoded_len(bytes.len(), false).unwrap_or(0);
    out.resize(start + len, 0);
    let written =
        out.get_mut(start..).and_then(|tail| crate::token::b64::url().encode_slice(bytes, tail).ok());
    if written != Some(len) {
        // Not reached (the tail is exactly the encoded length); the plain
        // encoder rather than a panic.
        out.truncate(start);
        out.extend_from_slice(crate::token::b64::url().encode(bytes).as_bytes());
    }
}

/// The canonical payload: exactly `json::canonical` of
/// `{"b",b",\"exp\":",b",\"fid\":",b",\"fs\":",b",\"iat\":",b",\"p\":","q",b",\"r\":","s"?,b",\"tid\":","v"}`, written
/// field by field in that order (the keys' byte order). `q` holds each
/// question's digest by key, in key order; of a repeated key the last
/// digest, as a map insert keeps it. `state` is the state's canonical
/// text (`None`: no state). v1 and v2 write the same payload but for `v`.
/// The token vectors pin this byte for byte.
pub(crate) fn write_payload(
    ptag: &[u8; PRINCIPAL_TAG_BYTES],
    limits: &Limits,
    now: u64,
    input: &SealInput<'_>,
    state: Option<&[u8]>,
    ids: &Ids,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(320 + state.map_or(0, <[u8]>::len));
    // Each field after the first: `,"key":` then its value.
    let text = |out: &mut Vec<u8>, key: &[u8], bytes: &[u8]| {
        out.extend_from_slice(key);
        out.push(b'"');
        put_b64(out, bytes);
        out.push(b'"');
    };
    let num = |out: &mut Vec<u8>, key: &[u8], n: u64| {
        out.extend_from_slice(key);
        // Writing into a `Vec` cannot fail.
        let _ = write!(out, "{n}");
    };
    out.extend_from_slice(b"{\"b\":\"");
    put_b64(&mut out, input.binding);
    out.push(b'"');
    num(&mut out, b",\"exp\":", now.saturating_add(limits.ttl));
    text(&mut out, b",\"fid\":", &ids.flow);
    num(&mut out, b",\"fs\":", input.flow_start);
    num(&mut out, b",\"iat\":", now);
    text(&mut out, b",\"p\":", ptag);
    out.extend_from_slice(b",\"q\":{");
    let digests: BTreeMap<&str, &[u8; 32]> =
        input.questions.iter().map(|(k, q)| (k.as_str(), q.digest())).collect();
    for (i, (key, digest)) in digests.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json::write_string(key, &mut out);
        out.extend_from_slice(b":\"");
        put_b64(&mut out, digest);
        out.push(b'"');
    }
    out.push(b'}');
    num(&mut out, b",\"r\":", u64::from(input.round));
    if let Some(state) = state {
        out.extend_from_slice(b",\"s\":");
        out.extend_from_slice(state);
    }
    text(&mut out, b",\"tid\":", &ids.token);
    num(&mut out, b",\"v\":", u64::from(limits.version));
    out.push(b'}');
    out
}
