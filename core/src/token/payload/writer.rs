//! The payload's writer (docs/token-format.md): the exact bytes `seal`
//! MACs (v1) or encrypts (v2), written in place. Split from `payload.rs`
//! in the sixth pass of issue 16, when `seal` came to write the state
//! straight into the payload between [`write_head`] and [`write_tail`].

use base64::Engine as _;
use serde_json::Value;

use crate::json;

use super::*;

/// Appends the base64url (no padding) of `bytes` to `out`, encoded in
/// place rather than through a `String` per field (issue 16: five of them
/// per seal).
pub(crate) fn put_b64(out: &mut Vec<u8>, bytes: &[u8]) {
    let start = out.len();
    let len = base64::encoded_len(bytes.len(), false).unwrap_or(0);
    out.resize(start + len, 0);
    let written = match out.get_mut(start..) {
        Some(tail) => crate::token::b64::url().encode_slice(bytes, tail).ok(),
        None => None,
    };
    if written != Some(len) {
        // Not reached (the tail is exactly the encoded length); kept as
        // the plain encoder rather than a panic.
        out.truncate(start);
        out.extend_from_slice(b64(bytes).as_bytes());
    }
}

/// The canonical payload, written directly rather than built as a `Value`
/// and canonicalised: that saves a deep copy of the state and a map per
/// seal. The bytes are exactly `json::canonical` of
/// `{"b","exp","fid","fs","iat","p","q","r","s"?,"tid","v"}` (keys in byte
/// order, which is the order written here; `q` keeps the last digest of a
/// repeated key, as a map insert would). v1 and v2 write the same payload
/// but for `v`. The token vectors pin this byte for byte.
#[cfg(test)]
pub(crate) fn write_payload(
    out: &mut Vec<u8>,
    mac: &HmacSha256,
    limits: &Limits,
    now: u64,
    input: &SealInput<'_>,
    ids: &Ids,
    text: Option<&json::StateText>,
) {
    // A null state is no state, so that `open` gives back exactly `None`.
    // State given as text (issue 16) is canonical already: written as is,
    // the same bytes as its tree would write (`seal` allows one or the other).
    let tree = input.state.filter(|s| !s.is_null()).map(json::canonical);
    let state = match text {
        Some(t) => (!t.is_null()).then(|| t.as_str().as_bytes()),
        None => tree.as_deref(),
    };
    write_payload_with(out, mac, limits, now, input, ids, state, None)
}

/// [`write_payload`] with the state as its canonical bytes (`None`: no
/// state) and the questions' digests perhaps already taken (issue 16:
/// `decide` takes them first; used only when there is one per question).
/// `seal` writes the same bytes in three steps ([`write_head`], the state
/// straight into the buffer, [`write_tail`]); this composes them, and the
/// tests hold it to the payload built as a tree.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_payload_with(
    out: &mut Vec<u8>,
    mac: &HmacSha256,
    limits: &Limits,
    now: u64,
    input: &SealInput<'_>,
    ids: &Ids,
    state: Option<&[u8]>,
    digests: Option<&[[u8; 32]]>,
) {
    use json::Sink as _;
    let taken: Vec<[u8; 32]>;
    let digests = match digests.filter(|d| d.len() == input.questions.len()) {
        Some(d) => d,
        None => {
            taken = input.questions.iter().map(|(_, r)| question_digest(r)).collect();
            &taken
        }
    };
    let head = write_head(out, &principal_tag(mac, input.principal), limits, now, &input.parts(), digests);
    if let Some(state) = state {
        out.put(b",\"s\":");
        out.put(state);
    }
    write_tail(out, head, limits, ids);
}

/// The digest of a question nested at most [`json::MAX_DEPTH`] levels, or
/// `None` for a deeper one (which `seal` refuses): the depth check and the
/// hashing in one walk (issue 16, sixth pass: they were two). The same
/// digest as [`question_digest`].
pub(crate) fn question_digest_within(request: &Value) -> Option<[u8; 32]> {
    question_digest_and_len_within(request).map(|(digest, _)| digest)
}

/// [`question_digest_within`] with the length of the canonical form it
/// hashed (what the question memo's size cap reads).
pub(crate) fn question_digest_and_len_within(request: &Value) -> Option<([u8; 32], usize)> {
    use sha2::Digest as _;
    let mut h = json::HashSink::new(sha2::Sha256::new());
    json::write_canonical_within(request, &mut h, json::MAX_DEPTH).then(|| {
        let len = h.written();
        (h.finish().finalize().into(), len)
    })
}

/// Where [`write_head`] left room for the flow id, which [`write_tail`]
/// fills in: the ids are drawn after the state is written, so that a state
/// nested too deep is refused before the operating system is asked for
/// random bytes (the order of errors `seal` has always had).
pub(crate) struct Head {
    fid_at: usize,
}

/// The payload up to and including `"r"`: `{"b":…,"exp":…,"fid":"<room>",
/// "fs":…,"iat":…,"p":…,"q":{…},"r":…`, with `ptag` the principal tag of
/// `input.principal` under the sealing key and `digests[i]` the digest of
/// `input.questions[i]` (the caller makes sure there is one per question).
pub(crate) fn write_head<Q>(
    out: &mut Vec<u8>,
    ptag: &[u8; PRINCIPAL_TAG_BYTES],
    limits: &Limits,
    now: u64,
    input: &SealParts<'_, Q>,
    digests: &[[u8; 32]],
) -> Head {
    use json::Sink as _;
    let num = |out: &mut Vec<u8>, key: &[u8], n: u64| {
        out.put(key);
        put_u64(out, n);
    };
    out.put(b"{\"b\":\"");
    put_b64(out, input.binding);
    out.put(b"\"");
    num(out, b",\"exp\":", now.saturating_add(limits.ttl));
    out.put(b",\"fid\":\"");
    let fid_at = out.len();
    out.put(&[b'-'; ID_TEXT_BYTES]);
    out.put(b"\"");
    num(out, b",\"fs\":", input.flow_start);
    num(out, b",\"iat\":", now);
    out.put(b",\"p\":\"");
    put_b64(out, ptag);
    out.put(b"\",\"q\":{");
    let pairs = input.questions.iter().zip(digests).map(|((key, _), d)| (key.as_str(), d));
    // Keys in byte order, and the last digest of a repeated key as a map
    // insert keeps it. Questions usually come in order already (one, or a
    // map's keys): then they are written as they are, with no list made
    // (sixth pass); otherwise a stable sort, keeping the last of each run.
    let in_order = input.questions.windows(2).all(|w| matches!(w, [a, b] if a.0 < b.0));
    if in_order {
        put_questions(out, pairs);
    } else {
        let mut sorted: Vec<(&str, &[u8; 32])> = pairs.collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        sorted.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = later.1;
            }
            same
        });
        put_questions(out, sorted.into_iter());
    }
    out.put(b"}");
    num(out, b",\"r\":", u64::from(input.round));
    Head { fid_at }
}

fn put_questions<'a>(out: &mut Vec<u8>, pairs: impl Iterator<Item = (&'a str, &'a [u8; 32])>) {
    use json::Sink as _;
    for (i, (key, digest)) in pairs.enumerate() {
        if i > 0 {
            out.put(b",");
        }
        json::write_string(key, out);
        out.put(b":\"");
        put_b64(out, digest);
        out.put(b"\"");
    }
}

/// The rest of the payload after `"r"` (and the state, if any): the flow
/// id in the room [`write_head`] left, then `,"tid":…,"v":…}`.
pub(crate) fn write_tail(out: &mut Vec<u8>, head: Head, limits: &Limits, ids: &Ids) {
    use json::Sink as _;
    if let Some(room) = out.get_mut(head.fid_at..head.fid_at + ID_TEXT_BYTES) {
        room.copy_from_slice(&IdText::new(&ids.flow).0);
    }
    out.put(b",\"tid\":\"");
    out.put(&IdText::new(&ids.token).0);
    out.put(b"\",\"v\":");
    put_u64(out, u64::from(limits.version));
    out.put(b"}");
}

/// Appends the decimal digits of `n`, as `{n}` formats it: straight into
/// the buffer, not through a `String` per number (issue 16), and without
/// the formatting machinery, which cost about a quarter of a thousand
/// instructions per number, five numbers per seal (sixth pass).
pub(crate) fn put_u64(out: &mut Vec<u8>, mut n: u64) {
    // Twenty places hold u64::MAX; filled from the right.
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    for slot in digits.iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        at -= 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(digits.get(at..).unwrap_or_default());
}
