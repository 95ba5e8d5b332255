//! Issue 16: the streaming canonical writer against the reference (strict
//! parse to a tree, then the canonical writer), on random JSON text that
//! is often invalid: the same bytes, or the same error.
#![allow(clippy::unwrap_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::Value;

use crate::json::*;

const BOUND: usize = 1 << 20;

fn reference(text: &str) -> Result<Vec<u8>, JsonError> {
    parse(text.as_bytes(), BOUND).map(|v| canonical(&v))
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "-?(0|[1-9][0-9]{0,22})(\\.[0-9]{1,6})?([eE][+-]?[0-9]{1,4})?",
        1 => prop::sample::select(vec!["01", "1.", "-", "+1", ".5", "1e", "-0", "1E400", "NaN", "0x1"])
            .prop_map(str::to_owned),
    ]
}

fn string() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a",
        "b",
        "Z",
        " ",
        "é",
        "日本",
        "😀",
        "\\n",
        "\\t",
        "\\\"",
        "\\\\",
        "\\/",
        "\\u00e9",
        "\\u0000",
        "\\u001f",
        "\\ud83d\\ude00",
        "\\ud800",
        "\\udc00x",
        "\\uDBFF\\uDFFF",
        "\u{7f}",
        "\\b",
        "\\f",
        "\\r",
        "\\x",
        "\t",
    ]);
    prop::collection::vec(piece, 0..6).prop_map(|p| format!("\"{}\"", p.concat()))
}

fn key() -> impl Strategy<Value = String> {
    // Few keys, so duplicates (also spelled with escapes) are common.
    prop::sample::select(vec![
        "\"a\"",
        "\"b\"",
        "\"\\u0061\"",
        "\"arguments\"",
        "\"params\"",
        "\"é\"",
        "\"\\u00e9\"",
        "\"aa\"",
        "\"$serde_json::private::Number\"",
        "\"\"",
        "\"B\"",
    ])
    .prop_map(str::to_owned)
}

fn ws() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", "", " ", "\n", "\t "])
}

fn json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        number(),
        string(),
        prop::sample::select(vec!["true", "false", "null", "nul", "tru"]).prop_map(str::to_owned),
    ];
    leaf.prop_recursive(6, 80, 8, |inner| {
        prop_oneof![
            prop::collection::vec((ws(), inner.clone()), 0..6).prop_map(|v| format!(
                "[{}]",
                v.into_iter().map(|(w, x)| format!("{w}{x}")).collect::<Vec<_>>().join(",")
            )),
            prop::collection::vec((key(), ws(), inner), 0..7).prop_map(|v| {
                let body: Vec<String> = v.into_iter().map(|(k, w, x)| format!("{k}{w}:{x}")).collect();
                format!("{{{}}}", body.join(","))
            }),
        ]
    })
}

/// Random text, sometimes spoiled: cut short, nested past the depth
/// bound, or followed by a trailing byte.
fn text() -> impl Strategy<Value = String> {
    (json(), 0u8..10, 0usize..400, 55usize..70).prop_map(|(t, how, cut, deep)| match how {
        0 => t.chars().take(cut % (t.chars().count() + 1)).collect(),
        1 => format!("{}{t}{}", "[".repeat(deep), "]".repeat(deep)),
        2 => format!("{}{t}{}", "{\"a\":".repeat(deep), "}".repeat(deep)),
        3 => format!("{t} x"),
        _ => t,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6000))]

    #[test]
    fn streaming_matches_parse_then_canonical(t in text()) {
        prop_assert_eq!(canonical_text(t.as_bytes(), BOUND), reference(&t));
    }

    /// Issue 16: the depth-bounded writer `seal` uses answers what
    /// `deeper_than` answers and, within the bound, writes the canonical
    /// bytes.
    #[test]
    fn bounded_writer_matches_depth_walk_and_writer(t in text(), max in 0usize..8) {
        if let Ok(v) = parse(t.as_bytes(), BOUND) {
            let mut out = Vec::new();
            let within = write_canonical_within(&v, &mut out, max);
            prop_assert_eq!(within, !deeper_than(&v, max));
            if within {
                prop_assert_eq!(out, canonical(&v));
            }
        }
    }

    /// Issue 16: `write_canonical`'s plain walk (no skip list or splice,
    /// the escape table) writes what the general writer writes.
    #[test]
    fn plain_writer_matches_general_writer(t in text()) {
        if let Ok(v) = parse(t.as_bytes(), BOUND) {
            let mut general = Vec::new();
            write_object_except(&v, &[], &mut general);
            prop_assert_eq!(canonical(&v), general);
        }
    }

    /// A request: `params.arguments` streamed, the rest a tree with a
    /// placeholder. Same error as `parse`; on success the same message
    /// once the arguments are put back, and the same binding digest.
    #[test]
    fn request_path_matches_reference(args in prop_oneof![text(), plain()], other in json(), first in any::<bool>()) {
        let (a, b) = if first { ("arguments", "zz") } else { ("zz", "arguments") };
        let t = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","{a}":{args},"{b}":{other}}}}}"#
        );
        let fast = parse_request(t.as_bytes(), BOUND);
        let slow = parse(t.as_bytes(), BOUND);
        match (fast, slow) {
            (Err(f), Err(s)) => prop_assert_eq!(f, s),
            (Ok((v, None)), Ok(s)) => {
                // Only the reserved-key case keeps the tree (see above).
                prop_assert!(t.contains("private::Number"));
                prop_assert_eq!(v, s);
            }
            (Ok((mut v, Some(bytes))), Ok(s)) => {
                let Some(Value::Object(params)) = v.get_mut("params") else { panic!("no params") };
                let binding = crate::token::binding_digest_spliced("tools/call", params, Some(&bytes));
                let Some(Value::Object(ref_params)) = s.get("params") else { panic!("no params") };
                prop_assert_eq!(binding, crate::token::binding_digest_map("tools/call", ref_params));
                prop_assert_eq!(params.get("arguments"), Some(&Value::Null));
                params.insert("arguments".into(), parse(&bytes, usize::MAX).unwrap());
                prop_assert_eq!(v, s);
            }
            (f, s) => prop_assert!(false, "fast {:?} vs reference {:?}", f, s),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Objects of 0 to 40 members: the duplicate check scans while an
    /// object has few keys and switches to a set at `SCAN_BELOW`; either
    /// way the first repeated key (in document order) is the error.
    #[test]
    fn duplicate_check_across_the_scan_bound(
        all in Just((0u8..40).collect::<Vec<_>>()).prop_shuffle(),
        n in 0usize..40,
        dup in prop::option::of((any::<prop::sample::Index>(), any::<prop::sample::Index>())),
    ) {
        // n distinct keys in random order, sometimes one repeated later.
        let mut keys = all[..n].to_vec();
        if let (Some((from, to)), false) = (dup, keys.is_empty()) {
            let i = from.index(keys.len());
            let j = i + 1 + to.index(keys.len() - i);
            keys.insert(j, keys[i]);
        }
        let body: Vec<String> = keys.iter().map(|k| format!("\"k{k}\":{k}")).collect();
        let t = format!("{{{}}}", body.join(","));
        prop_assert_eq!(canonical_text(t.as_bytes(), BOUND), reference(&t));
    }
}

#[test]
fn only_the_request_arguments_are_streamed() {
    // Not an object's params, nested `arguments`, top-level `arguments`:
    // all stay trees, with nothing streamed.
    for t in [
        r#"{"params":[{"arguments":1}]}"#,
        r#"{"params":{"x":{"arguments":1}}}"#,
        r#"{"arguments":{"a":1}}"#,
        r#"[{"params":{"arguments":1}}]"#,
        r#"{"x":{"params":{"arguments":1}}}"#,
    ] {
        let (v, args) = parse_request(t.as_bytes(), BOUND).unwrap();
        assert_eq!(args, None, "{t}");
        assert_eq!(v, parse(t.as_bytes(), BOUND).unwrap(), "{t}");
    }
    // The reserved number key after the first key is an ordinary key to
    // the tree parser, but first in the canonical form, which does not
    // parse back: such arguments are built as a tree.
    let t = r#"{"params":{"arguments":{"a":0,"\u0024serde_json::private::Number":0}}}"#;
    let (v, args) = parse_request(t.as_bytes(), BOUND).unwrap();
    assert_eq!(args, None);
    assert_eq!(v, parse(t.as_bytes(), BOUND).unwrap());
    let (_, args) = parse_request(br#"{"params":{"arguments":{"b":1.50,"a":"\u00e9"}}}"#, BOUND).unwrap();
    assert_eq!(args.as_deref(), Some(r#"{"a":"é","b":1.50}"#.as_bytes()));
}

#[test]
fn many_unordered_keys_stay_linear_and_duplicates_are_found() {
    // Keys out of order switch the duplicate check to a set; a late
    // duplicate among many is still found, before its value is read.
    let body: Vec<String> = (0..20_000).rev().map(|i| format!("\"k{i}\":{i}")).collect();
    let ok = format!("{{{}}}", body.join(","));
    assert_eq!(canonical_text(ok.as_bytes(), 1 << 24), reference_big(&ok));
    let dup = format!("{{{},\"k7\":[}}", body.join(","));
    assert_eq!(canonical_text(dup.as_bytes(), 1 << 24), Err(JsonError::DuplicateKey("k7".into())));
}

#[test]
fn numbers_written_as_spelled() {
    // Numbers without an exponent are written straight from the text.
    let long = format!("[{0},-{0}.{0},-0,-0.0,0.10,1E2,1e-0]", "9".repeat(400));
    assert_eq!(canonical_text(long.as_bytes(), BOUND), reference(&long));
}

fn reference_big(text: &str) -> Result<Vec<u8>, JsonError> {
    parse(text.as_bytes(), 1 << 24).map(|v| canonical(&v))
}

/// JSON the fast path takes: plain strings and keys (few, so unsorted
/// objects and duplicates are common), numbers without an exponent, some
/// whitespace; sometimes spoiled as `text()` spoils.
fn plain() -> impl Strategy<Value = String> {
    let key =
        prop::sample::select(vec!["\"a\"", "\"b\"", "\"B\"", "\"aa\"", "\"é\"", "\"\"", "\"z9\"", "\"a b\""]);
    let leaf = prop_oneof![
        "-?(0|[1-9][0-9]{0,22})(\\.[0-9]{1,6})?",
        "\"[ -!#-\\[\\]-~é日😀\u{7f}]{0,12}\"",
        prop::sample::select(vec!["true", "false", "null", "-0", "0.0", "1.", "01", "-", "1e5", "\"\\n\""])
            .prop_map(str::to_owned),
    ];
    let json = leaf.prop_recursive(6, 80, 8, move |inner| {
        prop_oneof![
            prop::collection::vec((ws(), inner.clone(), ws()), 0..6).prop_map(|v| format!(
                "[{}]",
                v.into_iter().map(|(w, x, w2)| format!("{w}{x}{w2}")).collect::<Vec<_>>().join(",")
            )),
            prop::collection::vec((key.clone(), ws(), inner), 0..7).prop_map(|v| {
                let body: Vec<String> = v.into_iter().map(|(k, w, x)| format!("{w}{k}{w}:{w}{x}")).collect();
                format!("{{{}}}", body.join(","))
            }),
        ]
    });
    (json, 0u8..12, 0usize..400, 55usize..70).prop_map(|(t, how, cut, deep)| match how {
        0 => t.chars().take(cut % (t.chars().count() + 1)).collect(),
        1 => format!("{}{t}{}", "[".repeat(deep), "]".repeat(deep)),
        2 => format!("{}{t}{}", "{\"a\":".repeat(deep), "}".repeat(deep)),
        3 => format!("{t} x"),
        4 => format!(" \n{t}\t"),
        _ => t,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6000))]

    /// Issue 16: what the fast path writes is what the strict writer
    /// writes; where it gives up, `canonical_text` still matches the
    /// reference (bytes or error).
    #[test]
    fn fast_path_writes_what_the_strict_writer_writes(t in prop_oneof![plain(), text()]) {
        if let Some(out) = super::fast::canonical(t.as_bytes()) {
            prop_assert_eq!(Ok(out), super::strict_canonical_text(t.as_bytes()));
        }
        prop_assert_eq!(canonical_text(t.as_bytes(), BOUND), reference(&t));
    }
}

#[test]
fn fast_path_takes_plain_text_and_leaves_the_rest() {
    // Plain text, sorted or not, nested: the fast path writes it.
    for (t, want) in [
        (
            r#"{"b":[1,-0.50,{"z":null,"a":true}],"a":"é x","B":{}}"#,
            r#"{"B":{},"a":"é x","b":[1,-0.50,{"a":true,"z":null}]}"#,
        ),
        (" [ ] ", "[]"),
        (r#"{"a":{"a":{"a":[]}}}"#, r#"{"a":{"a":{"a":[]}}}"#),
        ("-12.0", "-12.0"),
    ] {
        assert_eq!(super::fast::canonical(t.as_bytes()).as_deref(), Some(want.as_bytes()), "{t}");
    }
    for payload in ["state-256.json", "state-4096.json", "args-32768.json"] {
        let path = format!("{}/benches/payloads/{payload}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read(path).unwrap();
        assert!(super::fast::canonical(&text).is_some(), "{payload}");
    }
    // Escapes, exponents, duplicates, the reserved key, trailing bytes,
    // invalid UTF-8, nesting at the bound: the strict writer decides.
    let deep = format!("{}{}", "[".repeat(64), "]".repeat(64));
    for t in [
        r#""a\nb""#.as_bytes(),
        b"1e2",
        br#"{"a":1,"a":2}"#,
        br#"{"b":1,"a":2,"b":3}"#,
        br#"{"$serde_json::private::Number":"1"}"#,
        b"[1] x",
        b"\"\xff\"",
        b"\"\x01\"",
        deep.as_bytes(),
        b"",
        b"01",
    ] {
        assert_eq!(super::fast::canonical(t), None, "{}", String::from_utf8_lossy(t));
    }
}

#[test]
fn request_arguments_errors_are_placed_in_the_request() {
    // Issue 16: the arguments' fast path gives up on these (a duplicate
    // before a syntax error, a lone surrogate, nesting past the bound,
    // the reserved key), and the second reading in place gives the error
    // `parse` gives, line and column in the request included.
    let deep = format!("{}{}", "[".repeat(70), "]".repeat(70));
    for args in [
        "{\"a\":1,\"a\":2,\"b\":[}",
        "{\n\"a\":\"\\ud800\"}",
        "{\"b\":1,\n\n\"a\":\"x\u{1}\"}",
        deep.as_str(),
        "{\"a\":0,\"\\u0024serde_json::private::Number\":0,\"a\":1}",
        "[1,2,]",
    ] {
        let t = format!("{{\"jsonrpc\":\"2.0\",\n\"params\":{{\"name\":\"x\",\n\"arguments\":{args}}}}}");
        let want = parse(t.as_bytes(), BOUND);
        assert!(want.is_err(), "{t}");
        assert_eq!(parse_request(t.as_bytes(), BOUND).map(|_| ()), want.clone().map(|_| ()), "{t}");
        // `begin`'s envelope reader streams the arguments the same way.
        assert_eq!(read_envelope(t.as_bytes(), BOUND).map(|_| ()), want.map(|_| ()), "{t}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Issue 16: the word-at-a-time scan stops where the byte-by-byte
    /// scan stops (the first `"`, `\` or control byte, or the end).
    #[test]
    fn word_scan_stops_where_the_byte_scan_stops(
        bytes in prop::collection::vec(prop_oneof![
            8 => 0x20u8..0x7f,
            1 => Just(b'"'),
            1 => Just(b'\\'),
            1 => 0u8..0x20,
            2 => 0x80u8..=0xff,
        ], 0..40)
    ) {
        let slow = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(bytes.len());
        prop_assert_eq!(crate::json::plain_len(&bytes), slow);
    }
}

/// Fifth review pass: every byte the string scan must stop at (and some
/// it must not), at every position around the 16-byte head and the
/// 8-byte words, in values and in keys, sorted and unsorted, including
/// invalid UTF-8: the fast path writes what the strict writer writes, and
/// `canonical_text` answers what the tree reference answers.
#[test]
fn string_scan_boundaries_agree_with_the_strict_writer() {
    let specials: [&[u8]; 12] = [
        b"\"",
        b"\\",
        b"\\n",
        b"\\u0061",
        b"\x00",
        b"\x1f",
        b"\x7f",
        b"\x80",
        b"\xc3",
        b"\xc3\xa9",
        b"\xed\xa0\x80",
        b"\xf0\x9f\x98\x80",
    ];
    let check = |text: &[u8]| {
        if let Some(out) = super::fast::canonical(text) {
            assert_eq!(Ok(out), super::strict_canonical_text(text), "{}", String::from_utf8_lossy(text));
        }
        let want = parse(text, BOUND).map(|v| canonical(&v));
        assert_eq!(canonical_text(text, BOUND), want, "{}", String::from_utf8_lossy(text));
    };
    for len in 0..42usize {
        for at in 0..=len {
            for s in specials {
                let mut body = vec![b'a'; at];
                body.extend_from_slice(s);
                body.extend(std::iter::repeat_n(b'b', len - at));
                let quoted = [&b"\""[..], &body, b"\""].concat();
                check(&quoted);
                check(&[&b"["[..], &quoted, b",1]"].concat());
                // As a key, before and after a plain one (sorted and not).
                check(&[&b"{"[..], &quoted, b":1,\"m\":2}"].concat());
                check(&[&b"{\"m\":2,"[..], &quoted, b":1}"].concat());
            }
        }
    }
    // Keys equal once unescaped, in either order and at depth.
    for t in [
        r#"{"a":1,"\u0061":2}"#,
        r#"{"\u0061":1,"a":2}"#,
        r#"{"x":{"b":1,"a":2,"b":3}}"#,
        r#"{"x":[{"a":1},{"a":1,"a":1}]}"#,
        r#"{"b":1,"a":2}"#,
        r#"{"a":1,"b":2}"#,
        r#"{"aa":1,"a":2,"a":3}"#,
    ] {
        check(t.as_bytes());
    }
}

/// Fifth review pass: nesting exactly at the bound and one past it, and
/// the size bound exactly and one past, on the fast path's entries.
#[test]
fn depth_and_size_bounds_agree_with_the_reference() {
    for deep in MAX_DEPTH - 2..=MAX_DEPTH + 2 {
        for t in [
            format!("{}{}", "[".repeat(deep), "]".repeat(deep)),
            format!("{}1{}", "[".repeat(deep), "]".repeat(deep)),
            format!("{}{}{}", "{\"a\":".repeat(deep - 1), "{}", "}".repeat(deep - 1)),
        ] {
            let want = parse(t.as_bytes(), BOUND).map(|v| canonical(&v));
            assert_eq!(canonical_text(t.as_bytes(), BOUND), want, "{deep}");
        }
    }
    let t = br#"{"a":[1,2]}"#;
    assert!(canonical_text(t, t.len()).is_ok());
    assert_eq!(canonical_text(t, t.len() - 1), Err(JsonError::TooLarge));
}

/// Fifth review pass: `begin`'s envelope reader on arguments nested up to
/// the bound and one past it, with plain strings at the scan boundaries
/// and equal-once-unescaped keys: the same error as `parse`, or the same
/// canonical arguments; and the size bound exactly and one past.
#[test]
fn envelope_arguments_at_the_bounds_agree_with_parse() {
    let mut cases: Vec<String> = Vec::new();
    for deep in 58..=66usize {
        cases.push(format!("{}{}", "[".repeat(deep), "]".repeat(deep)));
        cases.push(format!("{}{}{}", "{\"a\":".repeat(deep), "1", "}".repeat(deep)));
    }
    for len in [15usize, 16, 17, 23, 24, 25] {
        for at in [0, len / 2, len] {
            let mut s = "a".repeat(at);
            s.push_str("\\\"");
            s.push_str(&"b".repeat(len - at));
            cases.push(format!("{{\"k\":\"{s}\",\"{}\":1}}", "c".repeat(len)));
        }
    }
    cases.extend(
        [r#"{"a":1,"\u0061":2}"#, r#"{"b":{"a":1,"\u0061":2}}"#, r#"{"b":1,"a":[-0,0.10,1E5,1e-0]}"#]
            .map(str::to_owned),
    );
    for args in cases {
        let t = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"x\",\"arguments\":{args}}}}}"
        );
        let want = parse(t.as_bytes(), BOUND);
        let got = read_envelope(t.as_bytes(), BOUND);
        match (&got, &want) {
            (Ok(Some(env)), Ok(v)) => {
                let bytes = env.args.clone().unwrap();
                assert_eq!(bytes, canonical(&v["params"]["arguments"]), "{t}");
            }
            (Err(g), Err(w)) => assert_eq!(g, w, "{t}"),
            _ => panic!("{t}: {got:?} vs {want:?}"),
        }
        assert!(read_envelope(t.as_bytes(), t.len()).is_ok() == want.is_ok(), "{t}");
        assert_eq!(read_envelope(t.as_bytes(), t.len() - 1).map(|_| ()), Err(JsonError::TooLarge));
    }
}

/// Plain JSON with strings and keys long enough for the word scan (up to
/// 40 bytes), then one byte replaced or inserted anywhere: a quote, a
/// backslash, a control or non-JSON whitespace byte, a stray UTF-8 byte.
fn plain_bytes() -> impl Strategy<Value = Vec<u8>> {
    let s = "[a-zA-Z0-9 é~\u{7f}]{0,40}";
    let leaf = prop_oneof![
        s.prop_map(|s| format!("\"{s}\"")),
        "-?(0|[1-9][0-9]{0,30})(\\.[0-9]{1,8})?",
        Just("true".to_owned()),
        Just("null".to_owned()),
    ];
    let json = leaf.prop_recursive(5, 60, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((s, inner), 0..6).prop_map(|v| {
                let body: Vec<String> = v.into_iter().map(|(k, x)| format!("\"{k}\":{x}")).collect();
                format!("{{{}}}", body.join(","))
            }),
        ]
    });
    let byte = prop::sample::select(vec![
        b'"', b'\\', 0u8, 0x0b, 0x0c, 0x1f, b'\r', b' ', 0x80, 0xc3, 0xff, b',', b'}', b']', b'e', b'0',
        b'-', b'.',
    ]);
    (json, any::<prop::sample::Index>(), byte, 0u8..3).prop_map(|(t, at, b, how)| {
        let mut v = t.into_bytes();
        let i = at.index(v.len() + 1);
        match how {
            0 if i < v.len() => v[i] = b,
            1 => v.insert(i, b),
            _ => {}
        }
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6000))]

    /// Fifth review pass: byte-level edits of plain text with long
    /// strings: the fast path writes what the strict writer writes, and
    /// `canonical_text` answers what the tree reference answers.
    #[test]
    fn fast_path_on_edited_bytes_matches_the_strict_writer(t in plain_bytes()) {
        if let Some(out) = super::fast::canonical(&t) {
            prop_assert_eq!(Ok(out), super::strict_canonical_text(&t));
        }
        prop_assert_eq!(canonical_text(&t, BOUND), parse(&t, BOUND).map(|v| canonical(&v)));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Fifth review pass: the same edited bytes as a request's arguments:
    /// `begin`'s envelope reader gives `parse`'s error, or the canonical
    /// form of the arguments `parse` reads.
    #[test]
    fn envelope_on_edited_argument_bytes_matches_parse(t in plain_bytes()) {
        let mut req = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":"#.to_vec();
        req.extend_from_slice(&t);
        req.extend_from_slice(br#","z":[1]}}"#);
        match (read_envelope(&req, BOUND), parse(&req, BOUND)) {
            (Ok(Some(env)), Ok(v)) => {
                prop_assert_eq!(env.args, v.pointer("/params/arguments").map(canonical));
            }
            (Ok(None), Ok(_)) => {}
            (Err(g), Err(w)) => prop_assert_eq!(g, w),
            (g, w) => prop_assert!(false, "{:?} vs {:?}", g.map(|_| ()), w),
        }
    }
}

/// From a thread-local's destructor, when the spare lists' thread-local
/// may be gone already: the same canonical bytes, no panic (with `with`
/// the read panicked there, and the process aborted).
#[test]
fn usable_from_a_thread_local_destructor() {
    const UNSORTED: &str = r#"{"b":1,"a":{"d":[2,{"y":0,"x":1}],"c":"z"}}"#;
    const SORTED: &str = r#"{"a":{"c":"z","d":[2,{"x":1,"y":0}]},"b":1}"#;
    struct Late;
    impl Drop for Late {
        fn drop(&mut self) {
            // Twice: the first read would take the lists, the second give them back.
            for _ in 0..2 {
                assert_eq!(canonical_text(UNSORTED.as_bytes(), BOUND).unwrap(), SORTED.as_bytes());
            }
        }
    }
    thread_local! {
        static LATE: std::cell::RefCell<Option<Late>> = const { std::cell::RefCell::new(None) };
    }
    std::thread::spawn(|| {
        LATE.with(|l| *l.borrow_mut() = Some(Late));
        // The spare lists' thread-local registers after LATE's, so it is
        // destroyed first.
        assert_eq!(canonical_text(UNSORTED.as_bytes(), BOUND).unwrap(), SORTED.as_bytes());
    })
    .join()
    .unwrap();
}
