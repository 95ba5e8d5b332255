//! The hand reader against the serde walk (see `fast.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::Cell;

use proptest::prelude::*;

const VALID: [&str; 8] = [
    r#"{"a":[1,2.50,-0,1e5,-2.5E-3,true,false,null],"b":{"c":"é"},"d":""}"#,
    r#"[[],{},[{}],"x"]"#,
    "-12.5e+7",
    r#""plain""#,
    "null",
    r#"{"$serde_json::private::Number":"1"}"#,
    r#"{"a":1,"a":2}"#,
    "0",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// What `plain_value_len` measures, serde_json's raw value reader
    /// reads as one value of that length, at the start of the same text.
    #[test]
    fn plain_value_len_is_serde_raw_value(
        base in prop::sample::select(VALID.to_vec()),
        at in any::<prop::sample::Index>(),
        cut in any::<bool>(),
        extra in "[\\[\\]{}\",:0-9a-z.eE+\\- é\\\\\n]{0,6}",
    ) {
        let mut text = base.to_owned();
        let i = at.index(text.len() + 1);
        let i = (0..=i).rev().find(|&j| text.is_char_boundary(j)).unwrap_or(0);
        if cut {
            text.truncate(i);
            text.push_str(&extra);
        } else {
            text.insert_str(i, &extra);
        }
        if let Some(len) = super::plain_value_len(text.as_bytes()).map(str::len) {
            let mut values =
                serde_json::Deserializer::from_slice(text.as_bytes()).into_iter::<&serde_json::value::RawValue>();
            let raw = values.next();
            prop_assert!(matches!(raw, Some(Ok(r)) if r.get().len() == len), "{}", text);
            prop_assert_eq!(values.byte_offset(), len, "{}", text);
        }
    }
}

/// Where a plain JSON string ends, byte by byte: the first `"`, `\\` or
/// control byte, or the end (the reference of the word scans).
fn first_stop(rest: &[u8]) -> usize {
    rest.iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\').unwrap_or(rest.len())
}

/// `len` bytes repeating `pattern`, with each `(place, byte)` of `stops`
/// put in (long runs with a few stops, for the string scans).
fn run_with_stops(pattern: &[u8], len: usize, stops: &[(prop::sample::Index, u8)]) -> Vec<u8> {
    let mut bytes: Vec<u8> = pattern.iter().copied().cycle().take(len).collect();
    for (at, stop) in stops {
        if !bytes.is_empty() {
            let i = at.index(bytes.len());
            bytes[i] = *stop;
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Issue 16, seventh pass: the word-at-a-time string end is the
    /// first stop found byte by byte, on bytes where every stop (quote,
    /// backslash, control byte, a high byte that is not one, 0x7f, 0x20)
    /// falls at every place in and across the eight-byte words.
    #[test]
    fn plain_len_is_the_first_stop(
        bytes in prop::collection::vec(prop::sample::select(vec![b'a', b'a', b'a', b'a', b'"', b'\\', 0x00, 0x1f, 0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xdf, 0xff, b'\n']), 0..70),
        from in any::<prop::sample::Index>(),
    ) {
        let rest = &bytes[from.index(bytes.len() + 1)..];
        prop_assert_eq!(super::plain_len(rest), first_stop(rest), "{:?}", rest);
    }

    /// Issue 16, eighth pass: long runs (tested 32 bytes at a time) with
    /// at most a few stops, at every place in and across the blocks.
    #[test]
    fn plain_len_is_the_first_stop_on_long_runs(
        len in 0usize..300,
        stops in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(vec![b'"', b'\\', 0x00, 0x1f, b'\n'])), 0..3),
        from in 0usize..12,
    ) {
        let bytes = run_with_stops(b"aZ09-_.~ \x7f\xc3\xa9", len, &stops);
        let rest = bytes.get(from..).unwrap_or_default();
        prop_assert_eq!(super::plain_len(rest), first_stop(rest), "{:?}", rest);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Issue 16, fourteenth pass: `plain_ascii_len` stops at the first
    /// byte that ends a plain string or is above 0x7f, short runs and long
    /// (the block loop), wherever the stop falls.
    #[test]
    fn plain_ascii_len_stops_at_escapes_and_high_bytes(
        len in 0usize..300,
        stops in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(vec![b'"', b'\\', 0x00, 0x1f, 0x80, 0xc3, 0xff])), 0..3),
        from in 0usize..12,
    ) {
        let bytes = run_with_stops(b"aZ09-_.~ \x7f!}", len, &stops);
        let rest = bytes.get(from..).unwrap_or_default();
        let expected = rest
            .iter()
            .position(|&b| b < 0x20 || b == b'"' || b == b'\\' || b > 0x7f)
            .unwrap_or(rest.len());
        prop_assert_eq!(super::plain_ascii_len(rest), expected, "{:?}", rest);
        // Where the ASCII run ends on a plain byte above 0x7f, `plain_len` goes on.
        prop_assert!(super::plain_len(rest) >= expected);
    }
}

/// Plain messages are read here, and exactly as the serde walk reads them.
#[test]
fn plain_messages_take_this_path_with_the_same_result() {
    let texts = [
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"b","arguments":{"z":[1,2.50,-0,true,null,{}],"a":"é"},"inputResponses":{"k":{"action":"accept","content":{"k":"12A"}}},"requestState":"v1.k1.abc.def","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","x":[],"io.modelcontextprotocol/clientInfo":{"n":1}}}}"#,
        " { \"id\" : \"a\" , \"method\":\"m\",\"extra\":[1, {\"b\":false}],\"params\":{\"arguments\": [ 1 , \"x\" ] } } \n",
        r#"{"id":-0.0,"params":{"arguments":7},"result":1}"#,
        r#"{"params":{"arguments":"s","other":null}}"#,
        r#"{"params":{}}"#,
        r#"{}"#,
        r#"{"id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{ "elicitation" : {"form":{}} },"io.modelcontextprotocol/clientInfo":"c"}}}"#,
        r#"{"id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c","v":[1]},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ];
    // Twice: the first read with the `_meta` memo empty (its objects
    // built and kept), the second with them kept (read from it).
    super::memo::clear();
    for text in texts.iter().chain(texts.iter()) {
        let fast = fast_as_serde_reads(text).unwrap_or_else(|| panic!("not read: {text}"));
        assert_eq!(fast, serde_reads(text), "{text}");
    }
}

/// The hand reader's result for `text` (Debug), put the way the serde
/// walk reads it: the `_meta` members split off back in `_meta`, answers
/// kept as text built.
fn fast_as_serde_reads(text: &str) -> Option<String> {
    let mut fast = super::read(text.as_bytes())?;
    // A method or version snodo knows (twelfth pass) is the serde walk's string.
    if let Some(m) = fast.method_known.take() {
        assert!(fast.method.is_none());
        fast.method = Some(serde_json::Value::from(m));
    }
    if let Some(Some(p)) = &mut fast.params {
        if let Some(v) = p.version_known.take() {
            assert!(p.meta_known[0].is_none());
            p.meta_known[0] = Some(serde_json::Value::from(v));
        }
        let shared = std::mem::take(&mut p.meta_shared).map(|v| v.map(|v| (*v).clone()));
        let [version, caps, info] = std::mem::take(&mut p.meta_known);
        let [shared_caps, shared_info] = shared;
        assert!(!(caps.is_some() && shared_caps.is_some() || info.is_some() && shared_info.is_some()));
        for (key, v) in
            super::super::META_KNOWN.iter().zip([version, shared_caps.or(caps), shared_info.or(info)])
        {
            if let (Some(v), Some(serde_json::Value::Object(meta))) = (v, &mut p.meta) {
                meta.insert((*key).to_owned(), v);
            }
        }
        // Answers kept as text (seventh pass) are the tree the serde
        // walk builds.
        if let Some(raw) = p.answers_text.take() {
            p.input_responses = super::answers_tree(raw.text);
            assert!(p.input_responses.is_some(), "{text}");
        }
    }
    Some(format!("{fast:?}"))
}

/// The serde walk's result for `text` (Debug).
fn serde_reads(text: &str) -> String {
    match super::super::read_once(text.as_bytes(), &Cell::new(false)) {
        Ok(Some(env)) => format!("{env:?}"),
        other => format!("not a message: {other:?}"),
    }
}

/// `_meta` objects that share prefixes and lengths, for the memo.
const META_OBJECTS: [&str; 12] = [
    r#"{"name":"c"}"#,
    r#"{"name":"d"}"#,
    r#"{"name":"cc"}"#,
    r#"{"name":"c","v":1}"#,
    r#"{"elicitation":{"form":{}}}"#,
    r#"{"elicitation":{"url":{}}}"#,
    r#"{"elicitation":{"form":{}},"sampling":{}}"#,
    r#"{ "elicitation":{"form":{}}}"#,
    r#"{"elicitation":{"form":{}}} "#,
    r#"{"elicitation":{"form":[]}}"#,
    r#"{}"#,
    r#"{"a":{"a":{"a":{"a":1}}}}"#,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Issue 16, twelfth pass: with the `_meta` memo holding whatever
    /// earlier cases left (objects of the same prefixes and lengths),
    /// messages whose capabilities and client info are such objects, or
    /// cut or grown versions of them, are read as the serde walk reads
    /// them, or left to it.
    #[test]
    fn meta_objects_from_the_memo_are_the_serde_walks(
        caps in any::<prop::sample::Index>(),
        info in any::<prop::sample::Index>(),
        cut in 0usize..4,
        tail in prop::sample::select(vec!["", "}", ",", " ", "]", "1", "\"x\":1}"]),
        order in any::<bool>(),
    ) {
        let caps = META_OBJECTS[caps.index(META_OBJECTS.len())];
        let info = META_OBJECTS[info.index(META_OBJECTS.len())];
        let info = format!("{}{tail}", &info[..info.len() - cut.min(info.len() - 1)]);
        let members = [
            format!(r#""io.modelcontextprotocol/clientCapabilities":{caps}"#),
            format!(r#""io.modelcontextprotocol/clientInfo":{info}"#),
        ];
        let (a, b) = if order { (&members[0], &members[1]) } else { (&members[1], &members[0]) };
        let text = format!(r#"{{"id":1,"method":"m","params":{{"_meta":{{{a},{b},"x":1}}}}}}"#);
        if let Some(fast) = fast_as_serde_reads(&text) {
            prop_assert_eq!(fast, serde_reads(&text), "{}", text);
        }
    }
}

/// What it leaves to the serde walk: escapes, `$` keys, exponents,
/// repeats, deep nesting, odd types, bad syntax.
#[test]
fn unusual_messages_are_left_to_the_serde_walk() {
    let deep = format!(r#"{{"params":{{"arguments":{}1{}}}}}"#, "[".repeat(62), "]".repeat(62));
    let texts = [
        r#"{"id":"\u0041"}"#,
        r#"{"$serde_json::private::Number":"1"}"#,
        r#"{"params":{"arguments":{"$a":1}}}"#,
        r#"{"id":1e3}"#,
        r#"{"id":1,"id":2}"#,
        r#"{"x":1,"x":2}"#,
        r#"{"params":{"a":1,"a":1}}"#,
        r#"{"params":{"arguments":{"a":1,"a":1}}}"#,
        r#"{"params":7}"#,
        r#"{"params":{"requestState":7}}"#,
        r#"{"params":{"_meta":7}}"#,
        r#"{"params":{"_meta":{"io.modelcontextprotocol/clientInfo":{},"io.modelcontextprotocol/clientInfo":1}}}"#,
        r#"{"params":{"_meta":{"x":1,"x":1}}}"#,
        r#"{"params":{"arguments":[1}}"#,
        r#"{"params":{"arguments":tru}}"#,
        r#"{"id":1}x"#,
        r#"[1]"#,
        &deep,
    ];
    for text in texts {
        assert!(super::read(text.as_bytes()).is_none(), "{text}");
    }
}

/// Nesting at and past the bound: measured up to it, left to serde past it.
#[test]
fn plain_value_len_at_the_nesting_bound() {
    for n in [1usize, 2, 63, 64, 65, 200] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let text = format!("{}1{}", open.repeat(n), close.repeat(n));
            let got = super::plain_value_len(text.as_bytes());
            assert_eq!(got.is_some(), n <= 64, "{n} {open}");
            if let Some(t) = got {
                assert_eq!(t, text);
                assert!(serde_json::from_str::<&serde_json::value::RawValue>(&text).is_ok());
            }
        }
    }
}

/// Arguments as clients send them, and at and past the nesting bound
/// (arguments sit at nesting 2).
const ARGS: [&str; 9] = [
    r#"{"filters":{"cabin":"economy","max_fare":400},"items":[{"fare":129.5,"ok":true,"seats":0,"sku":"FL-0"},{"fare":-0.25,"ok":false,"seats":null,"sku":""}]}"#,
    r#"{"z":1,"a":[1,2.50,-0],"m":{"y":"é","b":{}}}"#,
    r#"[ "x" , { "b" : 1 , "a" : [ ] } ]"#,
    r#""$not a key""#,
    "12.5",
    "true",
    "null",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
];

/// Edits that break or bend arguments: escapes, exponents, `$` keys and
/// strings, repeated keys, whitespace, glued and stray characters.
const BITS: [&str; 16] = [
    "\\u0041",
    "\\\"",
    "1e5",
    "-2.5E-3",
    "\"$serde_json::private::Number\":",
    "\"$x\"",
    "\"a\":1,",
    " ",
    "\n\t",
    ",",
    "}",
    "]",
    "{",
    "01",
    "\"",
    "é",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Issue 16, sixth pass (late): the one-read `arguments` against the
    /// scan-then-write path it replaced, on arguments edited and broken at
    /// random, with message text after them. Where the old path reads the
    /// value, the new one writes the same bytes and ends at the same byte;
    /// where only the new one reads it, its bytes are the strict writer's
    /// for the text it spans (the serde walk's arguments). A give-up of the
    /// new path is the old path by construction (`arguments` falls back).
    #[test]
    fn one_read_arguments_are_the_scanned_ones(
        base in prop::sample::select(ARGS.to_vec()),
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(BITS.to_vec()), 0u8..3), 0..3),
        tail in prop::sample::select(vec!["", ",\"_meta\":{}}}", "}}", " }", "x", "e5}", "0}", "\"", ",]"]),
    ) {
        let mut args = base.to_owned();
        for (at, bit, how) in edits {
            let i = at.index(args.len() + 1);
            let i = (0..=i).rev().find(|&j| args.is_char_boundary(j)).unwrap_or(0);
            match how {
                0 => args.insert_str(i, bit),
                1 => args.truncate(i),
                _ => {
                    let end = (i + bit.len()).min(args.len());
                    let end = (end..=args.len()).find(|&j| args.is_char_boundary(j)).unwrap_or(args.len());
                    args.replace_range(i..end, bit);
                }
            }
        }
        let text = format!("{args}{tail}");
        let mut new = super::Reader::new(&text);
        let mut old = super::Reader::new(&text);
        let got = new.arguments();
        let want = arguments_scanned(&mut old);
        if let Some(want) = want {
            prop_assert_eq!(got.as_deref(), Some(&want[..]), "{}", text);
            prop_assert_eq!(new.at, old.at, "{}", text);
        } else if let Some(got) = got {
            let strict = crate::json::canonical_text(&text.as_bytes()[..new.at], usize::MAX);
            prop_assert_eq!(Ok(got), strict, "{}", text);
        }
    }
}

/// The bound: arguments nested to just under it are read in one pass,
/// one level more is left to the serde walk by both paths.
#[test]
fn one_read_arguments_at_the_nesting_bound() {
    let (under, over) = (ARGS[7], ARGS[8]);
    let mut r = super::Reader::new(under);
    assert_eq!(r.arguments().as_deref(), Some(under.as_bytes()));
    assert!(super::super::super::stream::canonical_prefix(under.as_bytes(), 2).is_some());
    let mut r = super::Reader::new(over);
    assert_eq!(r.arguments(), None);
}

/// `arguments` as read before the one-read path, the reference the tests
/// hold it to: the scan, then `canonical_text` over the slice.
fn arguments_scanned(r: &mut super::Reader<'_>) -> Option<Vec<u8>> {
    let start = r.at;
    r.scan_value()?;
    crate::json::canonical_text(r.text.get(start..r.at)?, usize::MAX).ok()
}

/// Issue 16, twelfth pass: the texts a `Call` holds without a copy cover
/// what the layers above name (the list in `meta.rs` restates some of
/// them, as the reader sits below those layers), and only those texts.
#[test]
fn interned_texts_are_the_crates_own() {
    let named = crate::MRTR_METHODS
        .iter()
        .chain([&crate::tasks::TASKS_UPDATE, &crate::MRTR_VERSION])
        .chain(crate::DEFAULT_LEGACY_VERSIONS.iter());
    for text in named {
        assert_eq!(super::interned(text), Some(*text), "{text}");
    }
    for text in ["", "tools/cal", "tools/call ", "2026-07-29", "Tools/call"] {
        assert_eq!(super::interned(text), None, "{text}");
    }
}
