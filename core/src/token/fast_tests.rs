//! Issue 16: the stack decoder of fixed-size token fields against the
//! reference (decode into a `Vec`, then check the length), on random text
//! that is often not base64url or not the right length: the same bytes,
//! or the same refusal.
#![allow(clippy::unwrap_used)]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use proptest::prelude::*;

use super::*;

fn reference<const N: usize>(s: &str) -> Option<[u8; N]> {
    URL_SAFE_NO_PAD.decode(s).ok().and_then(|v| v.try_into().ok())
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        // Encodings of 0 to 100 bytes: the right length, near it, and far
        // past the stack buffer.
        prop::collection::vec(any::<u8>(), 0..100).prop_map(|b| URL_SAFE_NO_PAD.encode(b)),
        // The same, spoiled: padding, a foreign byte, a cut.
        (prop::collection::vec(any::<u8>(), 14..34), 0u8..4, any::<prop::sample::Index>()).prop_map(
            |(b, how, at)| {
                let mut s = URL_SAFE_NO_PAD.encode(b);
                let i = at.index(s.len());
                match how {
                    0 => s.push('='),
                    1 => s.insert(i, '+'),
                    2 => s.truncate(i),
                    _ => s.insert(i, '.'),
                }
                s
            }
        ),
        "[A-Za-z0-9_=+/-]{0,90}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6000))]

    #[test]
    fn decode_fixed_matches_the_vec_decoder(s in text()) {
        prop_assert_eq!(decode_fixed::<32>(&s).ok(), reference::<32>(&s));
        prop_assert_eq!(decode_fixed::<PRINCIPAL_TAG_BYTES>(&s).ok(), reference::<PRINCIPAL_TAG_BYTES>(&s));
    }
}

#[test]
fn id_text_in_place_is_id_text() {
    for id in [[0u8; ID_BYTES], [255u8; ID_BYTES], *b"0123456789abcdef"] {
        assert_eq!(IdText::new(&id).as_str(), id_text(&id));
    }
}

#[test]
fn decode_fixed_refuses_with_malformed() {
    let long = URL_SAFE_NO_PAD.encode([7u8; 90]);
    for bad in ["", "AA=", &long, &URL_SAFE_NO_PAD.encode([1u8; 31])] {
        assert_eq!(decode_fixed::<32>(bad).unwrap_err().reason, TokenReason::Malformed, "{bad}");
    }
    let ok = URL_SAFE_NO_PAD.encode([9u8; 32]);
    assert_eq!(decode_fixed::<32>(&ok).unwrap(), [9u8; 32]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The payload's numbers, written without a `String` each, are the
    /// canonical form of the same payload built as a tree.
    #[test]
    fn payload_numbers_match_the_canonical_tree(
        now in any::<u64>(),
        ttl in any::<u64>(),
        flow_start in any::<u64>(),
        round in any::<u32>(),
    ) {
        let ring = KeyRing::new(&[Key::new("k", vec![3; 32]).unwrap()]).unwrap();
        let mac = &ring.signer().unwrap().mac;
        let limits = Limits { ttl, max_rounds: 16, max_flow_age: 3600, max_token_bytes: 16384, skew: 60, version: 1, min_version: 1 };
        let principal = Principal::user("alice").unwrap();
        let binding = [5u8; 32];
        let question = serde_json::json!({"method": "roots/list"});
        let questions = vec![("q".to_owned(), question.clone())];
        let state = serde_json::json!({"n": 1.50, "s": "é"});
        let input = SealInput { principal: &principal, binding: &binding, round, flow_start, questions: &questions, state: Some(&state) };
        let mut out = Vec::new();
        let ids = Ids { token: [7u8; 16], flow: [8u8; 16] };
        write_payload(&mut out, mac, &limits, now, &input, &ids, None);
        let tree = serde_json::json!({
            "b": b64(&binding), "exp": now.saturating_add(ttl), "fid": b64(&[8u8; 16]), "fs": flow_start, "iat": now,
            "p": b64(&principal_tag(mac, &principal)), "q": {"q": b64(&question_digest(&question))},
            "r": round, "s": state, "tid": b64(&[7u8; 16]), "v": FORMAT_VERSION,
        });
        prop_assert_eq!(out, crate::json::canonical(&tree));
    }
}

/// The payload as `open` read it before issue 16's fifth pass (owned
/// strings, a boxed raw state): the reference the borrowing reader is
/// held to.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OwnedPayload {
    v: u64,
    iat: u64,
    exp: u64,
    fs: u64,
    r: u32,
    b: String,
    p: String,
    q: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    s: Option<Box<serde_json::value::RawValue>>,
    #[serde(default)]
    fid: Option<String>,
    #[serde(default)]
    tid: Option<String>,
}

type View = (
    u64,
    u64,
    u64,
    u64,
    u32,
    String,
    String,
    Vec<(String, String)>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// What a borrowing `Payload` holds, as owned values to compare.
fn view_of(p: Payload<'_>) -> View {
    let text = |t: &Text<'_>| t.as_str().to_owned();
    (
        p.v,
        p.iat,
        p.exp,
        p.fs,
        p.r,
        text(&p.b),
        text(&p.p),
        p.q.iter().map(|(k, v)| (k.clone(), text(v))).collect(),
        p.s.map(|raw| raw.get().to_owned()),
        p.fid.as_ref().map(text),
        p.tid.as_ref().map(text),
    )
}

fn view_of_borrowed(bytes: &[u8]) -> Option<View> {
    serde_json::from_slice(bytes).ok().map(view_of)
}

/// Decoded fields spelled again in base64url (the one spelling of those
/// bytes), the ids as the text held, which must be that spelling too.
fn view_of_fields(w: Written<'_>) -> View {
    for (id, text) in [&w.tid, &w.fid] {
        assert_eq!(text.as_str(), id_text(id), "an id's text is its bytes' spelling");
    }
    let q = w.q.iter().map(|(k, v)| (k.clone(), b64(v))).collect();
    let (fid, tid) = (Some(w.fid.1.as_str().to_owned()), Some(w.tid.1.as_str().to_owned()));
    (w.v, w.iat, w.exp, w.fs, w.r, b64(&w.b), b64(&w.p), q, w.s.map(str::to_owned), fid, tid)
}

/// The hand reader's view, when it takes the bytes at all.
fn view_of_written(bytes: &[u8]) -> Option<View> {
    read_written(bytes).map(view_of_fields)
}

/// Serde's payload decoded as `open` decodes it when the hand reader
/// declines (issue 16, eighth pass).
fn view_of_decoded(bytes: &[u8]) -> Option<View> {
    Written::decode(serde_json::from_slice(bytes).ok()?, None).ok().map(view_of_fields)
}

fn view_of_owned(bytes: &[u8]) -> Option<View> {
    let p: OwnedPayload = serde_json::from_slice(bytes).ok()?;
    Some((
        p.v,
        p.iat,
        p.exp,
        p.fs,
        p.r,
        p.b,
        p.p,
        p.q.into_iter().collect(),
        p.s.map(|raw| raw.get().to_owned()),
        p.fid,
        p.tid,
    ))
}

/// A payload as `seal` writes it, with `n` questions and a small state.
fn written_payload(n: usize, state: &serde_json::Value) -> String {
    let ring = KeyRing::new(&[Key::new("k", vec![3; 32]).unwrap()]).unwrap();
    let limits = Limits {
        ttl: 300,
        max_rounds: 16,
        max_flow_age: 3600,
        max_token_bytes: 16384,
        skew: 60,
        version: 1,
        min_version: 1,
    };
    let principal = Principal::user("alice").unwrap();
    let questions: Vec<(String, serde_json::Value)> =
        (0..n).map(|i| (format!("q{i}"), serde_json::json!({"method": "roots/list", "i": i}))).collect();
    let input = SealInput {
        principal: &principal,
        binding: &[5u8; 32],
        round: 2,
        flow_start: 9,
        questions: &questions,
        state: Some(state),
    };
    let mut out = Vec::new();
    write_payload(
        &mut out,
        &ring.signer().unwrap().mac,
        &limits,
        1_800_000_000,
        &input,
        &Ids { token: [7u8; 16], flow: [8u8; 16] },
        None,
    );
    String::from_utf8(out).unwrap()
}

/// One edit of a payload text: a character spelled as an escape, a
/// repeated or unknown key, a cut, a foreign character.
fn mutated_payload() -> impl Strategy<Value = String> {
    let state = prop_oneof![
        Just(serde_json::json!(null)),
        Just(serde_json::json!({"a": [1, 2.5, "x\"y"], "é": true})),
        Just(serde_json::json!("s")),
    ];
    (
        0usize..7,
        state,
        0u8..10,
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        "[{}\\[\\]\",:\\\\0a ]",
        "[AQgw_9z-]",
    )
        .prop_map(|(n, state, how, at, len, foreign, letter)| {
            let mut s = written_payload(n, &state);
            let i = at.index(s.len());
            let i = (0..=i).rev().find(|&j| s.is_char_boundary(j)).unwrap_or(0);
            match how {
                // A letter or digit spelled as a \u escape (keys and values).
                0 | 1 => {
                    if let Some((j, c)) = s[i..].char_indices().find(|(_, c)| c.is_ascii_alphanumeric()) {
                        s.replace_range(i + j..i + j + 1, &format!("\\u{:04x}", c as u32));
                    }
                }
                2 => s.insert_str(1, "\"b\":\"AA\","),
                7 => {
                    // Spellings serde reads and the hand reader must not
                    // take differently: leading zeros, spaces, a null or
                    // spaced state, escaped or odd question keys, numbers
                    // past u32/u64, exponents.
                    let edits: [(&str, &str); 12] = [
                        ("\"exp\":", "\"exp\":0"),
                        ("\"r\":", "\"r\":4294967296"),
                        ("\"iat\":", "\"iat\":99999999999999999999"),
                        ("\"s\":\"s\"", "\"s\":null"),
                        ("\"s\":", "\"s\": "),
                        ("\"q\":{", "\"q\":{\"a\\u0062\":\"AA\","),
                        ("\"q\":{", "\"q\":{\"\":\"AA\",\"\":\"BB\","),
                        ("\"v\":1", "\"v\":1.0"),
                        ("\"v\":1", "\"v\":1e0"),
                        (",\"tid\"", " ,\"tid\""),
                        ("\"fs\":9", "\"fs\":-9"),
                        ("\"q\":{", "\"q\":{\"é\\n\":\"AA\","),
                    ];
                    let (from, to) = edits[at.index(edits.len())];
                    s = s.replacen(from, to, 1);
                }
                8 => {}
                // Issue 16, eighth pass: a letter of the base64url
                // alphabet for another, the length kept (a last letter
                // with stray trailing bits, a field that still decodes).
                9 => {
                    if let Some((j, _)) = s[i..].char_indices().find(|(_, c)| c.is_ascii_alphanumeric()) {
                        s.replace_range(i + j..i + j + 1, &letter);
                    }
                }
                3 => s.insert_str(1, "\"x\":1,"),
                4 => {
                    let end = (i + len.index(8)).min(s.len());
                    let end = (end..=s.len()).find(|&j| s.is_char_boundary(j)).unwrap_or(s.len());
                    s.replace_range(i..end, "");
                }
                5 => s.insert_str(i, &foreign),
                _ => s = s.replacen("\"q\":{", "\"q\":{\"k\":\"AA\\/\",", 1),
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Issue 16, fifth pass: the borrowing payload reader accepts exactly
    /// the payloads the owning one did, with the same fields.
    #[test]
    fn borrowed_payload_reads_as_the_owned_one(text in mutated_payload()) {
        prop_assert_eq!(view_of_borrowed(text.as_bytes()), view_of_owned(text.as_bytes()), "{}", text);
        // Issue 16: the hand reader takes a subset, read the same way.
        if let Some(fast) = view_of_written(text.as_bytes()) {
            prop_assert_eq!(Some(fast.clone()), view_of_owned(text.as_bytes()), "{}", text);
            // Issue 16, eighth pass: and as serde's fields decode.
            prop_assert_eq!(Some(fast), view_of_decoded(text.as_bytes()), "{}", text);
        }
    }
}

#[test]
fn the_hand_reader_takes_what_seal_writes() {
    for n in 0..4 {
        for state in
            [serde_json::json!(null), serde_json::json!({"a": [1, "x\\"], "b": -0.5}), serde_json::json!(7)]
        {
            let text = written_payload(n, &state);
            assert!(view_of_written(text.as_bytes()).is_some(), "{text}");
            assert_eq!(view_of_written(text.as_bytes()), view_of_owned(text.as_bytes()));
        }
    }
    // A v1 token of before issue 17 (no ids) is left to serde.
    let old =
        written_payload(1, &serde_json::json!(1)).replacen(",\"fid\":\"CAgICAgICAgICAgICAgICA\"", "", 1);
    assert!(old.len() < written_payload(1, &serde_json::json!(1)).len());
    assert!(view_of_written(old.as_bytes()).is_none());
}

#[test]
fn an_escaped_payload_field_is_read_as_before() {
    let text = written_payload(1, &serde_json::json!({"a": 1})).replacen("\"p\":\"", "\"p\":\"\\u0041", 1);
    let view = view_of_borrowed(text.as_bytes()).unwrap();
    assert!(view.6.starts_with('A'));
    assert_eq!(Some(view), view_of_owned(text.as_bytes()));
}

/// Fifth review pass: spellings a leaked key could sign that the hand
/// reader must refuse or read exactly as serde does: a repeated question
/// key, `s` out of its place or glued to what follows, trailing bytes, a
/// state nested far past any bound (no stack overflow on either reader).
#[test]
fn the_hand_reader_agrees_with_serde_on_odd_payloads() {
    let base = written_payload(2, &serde_json::json!({"a": 1}));
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases = [
        base.replacen("\"q\":{", "\"q\":{\"q0\":\"AA\",", 1),
        base.replacen(
            "\"q\":{",
            &format!("\"q\":{{\"q1\":\"{}\",\"q1\":\"{}\",", b64(&[1; 32]), b64(&[2; 32])),
            1,
        ),
        base.replacen(",\"s\":{\"a\":1}", "", 1).replacen("\"q\":{", "\"s\":1,\"q\":{", 1),
        base.replacen(",\"s\":{\"a\":1}", "", 1).replacen(",\"v\":1", ",\"v\":1,\"s\":1", 1),
        base.replacen("\"s\":{\"a\":1}", "\"s\":{\"a\":1}{}", 1),
        base.replacen("\"s\":{\"a\":1}", "\"s\":12", 1),
        base.replacen("\"s\":{\"a\":1}", "\"s\":12x", 1),
        base.replacen("\"s\":{\"a\":1}", "\"s\":truex", 1),
        base.replacen("\"s\":{\"a\":1}", "\"s\":\"\\ud800\"", 1),
        base.replacen("\"s\":{\"a\":1}", &format!("\"s\":{deep}"), 1),
        base.replacen("\"s\":{\"a\":1}", "\"s\":{\"a\":1,\"a\":2}", 1),
        format!("{base} "),
        format!("{base}{{}}"),
        format!("{base}\u{0}"),
        base.replacen("\"v\":1}", "\"v\":1,\"v\":1}", 1),
        base.replacen("\"r\":2", "\"r\":02", 1),
        base.replacen("\"r\":2", "\"r\":", 1),
    ];
    for text in &cases {
        assert_ne!(text, &base, "edit did not apply");
        let serde = view_of_owned(text.as_bytes());
        if let Some(fast) = view_of_written(text.as_bytes()) {
            assert_eq!(Some(fast), serde, "{}", &text[..text.len().min(300)]);
        }
    }
    // The repeated question key: serde keeps the last. Since the tenth
    // pass the hand reader leaves such a payload (which `seal` never
    // writes) to serde, so the digests it decodes together cannot be
    // filled in out of order; `open` reads the same map either way.
    assert!(view_of_written(cases[1].as_bytes()).is_none());
    assert!(view_of_owned(cases[1].as_bytes()).is_some());
}
