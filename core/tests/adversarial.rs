//! Hostile input: every case must end in a clear error response (or a clean
//! call), never a panic, a hang or unbounded allocation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use snodo::{Begin, Config, Engine, Key, Outcome, Principal, binding_digest, internal::json as sjson};

const NOW: u64 = 1_800_000_000;

fn engine_with(f: impl FnOnce(&mut Config)) -> Engine {
    let mut c = Config::new(vec![Key::new("k1", vec![1; 32]).unwrap()]).fixed_time(NOW);
    f(&mut c);
    Engine::new(c).unwrap()
}

fn engine() -> Engine {
    engine_with(|_| {})
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;

fn request(params_body: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{params_body},{META}}}}}"#)
}

fn error_of(e: &Engine, text: &[u8]) -> (i64, u16) {
    match e.begin(text, &Principal::anonymous()).unwrap() {
        Begin::Respond(r) => (r.body()["error"]["code"].as_i64().unwrap(), r.http_status()),
        Begin::Call(_) => panic!("expected an error response"),
    }
}

#[test]
fn ten_thousand_levels_of_nesting() {
    let e = engine();
    for (open, close) in [("[", "]"), (r#"{"a":"#, "}")] {
        let text =
            request(&format!(r#""name":"t","arguments":{}1{}"#, open.repeat(10_000), close.repeat(10_000)));
        assert_eq!(error_of(&e, text.as_bytes()), (-32602, 400));
    }
}

#[test]
fn hundred_megabyte_string_rejected_by_the_size_bound() {
    let e = engine();
    let mut text = request(r#""name":"t","arguments":{"s":""}"#).into_bytes();
    let at = text.windows(5).position(|w| w == b"\"s\":\"").unwrap() + 5;
    text.splice(at..at, std::iter::repeat_n(b'x', 100 << 20));
    assert_eq!(error_of(&e, &text), (-32602, 400));
}

#[test]
fn a_million_input_responses_rejected() {
    let entries: Vec<String> = (0..1_000_000).map(|i| format!(r#""k{i}":{{}}"#)).collect();
    let text = request(&format!(r#""name":"t","inputResponses":{{{}}}"#, entries.join(",")));
    // Default bound: the text alone is too large.
    assert_eq!(error_of(&engine(), text.as_bytes()), (-32602, 400));
    // With the largest request bound, the entry count is refused.
    let big = engine_with(|c| c.max_request_bytes = 64 << 20);
    assert_eq!(error_of(&big, text.as_bytes()), (-32602, 200));
}

#[test]
fn duplicate_keys_at_every_level() {
    let e = engine();
    let cases = [
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{}}"#.to_owned(),
        request(r#""name":"t","name":"u""#),
        request(r#""name":"t","arguments":{"a":1,"a":1}"#),
        request(r#""name":"t","arguments":{"x":[{"y":{"z":1,"z":2}}]}"#),
        request(r#""name":"t","inputResponses":{"k":{"action":"accept","action":"decline"}}"#),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#.to_owned(),
    ];
    for c in cases {
        assert_eq!(error_of(&e, c.as_bytes()), (-32602, 400), "{c}");
    }
}

#[test]
fn lone_surrogates_and_invalid_utf8() {
    let e = engine();
    assert_eq!(error_of(&e, request(r#""name":"\ud800""#).as_bytes()).0, -32700);
    assert_eq!(error_of(&e, request(r#""name":"\udc00x""#).as_bytes()).0, -32700);
    let mut bytes = request(r#""name":"ab""#).into_bytes();
    let at = bytes.windows(4).position(|w| w == b"\"ab\"").unwrap() + 1;
    bytes[at] = 0xff;
    assert_eq!(error_of(&e, &bytes).0, -32700);
    // A valid surrogate pair is fine.
    assert!(matches!(
        e.begin(request(r#""name":"\ud83d\ude00""#).as_bytes(), &Principal::anonymous()),
        Ok(Begin::Call(_))
    ));
}

#[test]
fn extreme_numbers_are_kept_exact_and_distinct() {
    let e = engine();
    let numbers = ["1e400", "-0", "0", "1.0", "1", "18446744073709551616", "-9223372036854775809", "1e-400"];
    let mut digests = Vec::new();
    for n in numbers {
        let text = request(&format!(r#""name":"t","arguments":{{"n":{n}}}"#));
        let Begin::Call(call) = e.begin(text.as_bytes(), &Principal::anonymous()).unwrap() else {
            panic!("{n}")
        };
        assert_eq!(call.arguments().unwrap()["n"].to_string(), n.replace("e4", "e+4"));
        digests.push(binding_digest("tools/call", &Value::Object(call.params().clone())).unwrap());
    }
    let unique: std::collections::HashSet<_> = digests.iter().collect();
    assert_eq!(unique.len(), numbers.len());
}

fn first_token(e: &Engine) -> (String, String) {
    let text = request(r#""name":"t","arguments":{}"#);
    let Begin::Call(call) = e.begin(text.as_bytes(), &Principal::anonymous()).unwrap() else { panic!() };
    let q = snodo::elicit_form("m", &json!({"type":"object","properties":{"x":{"type":"string"}}})).unwrap();
    let r = e
        .decide(
            &call,
            Outcome::InputRequired { requests: vec![("x".into(), q)], state: Some(json!({"n": 1})) },
        )
        .unwrap();
    (r.body()["result"]["requestState"].as_str().unwrap().to_owned(), text)
}

fn retry_reason(e: &Engine, text: &str, token: &str) -> Option<String> {
    let with = text.replacen(
        r#""arguments":{}"#,
        &format!(r#""arguments":{{}},"requestState":{}"#, Value::String(token.into())),
        1,
    );
    match e.begin(with.as_bytes(), &Principal::anonymous()).unwrap() {
        Begin::Call(_) => None,
        Begin::Respond(r) => Some(r.body()["error"]["data"]["reason"].as_str().unwrap_or("?").to_owned()),
    }
}

#[test]
fn every_byte_flipped_truncated_or_extended_token_is_rejected() {
    let e = engine();
    let (token, text) = first_token(&e);
    assert_eq!(retry_reason(&e, &text, &token), None);
    let bytes = token.as_bytes();
    for i in 0..bytes.len() {
        for bit in [1u8, 2, 4, 8, 16, 32, 64, 128] {
            let mut b = bytes.to_vec();
            b[i] ^= bit;
            // Flips that leave ASCII are sent as escaped JSON strings.
            let t = String::from_utf8_lossy(&b).into_owned();
            assert!(retry_reason(&e, &text, &t).is_some(), "flip {bit} at {i}");
        }
        assert!(retry_reason(&e, &text, &token[..i]).is_some(), "truncated at {i}");
    }
    for tail in ["=", "==", "A", "AA", ".", ".x", "-TAMPERED"] {
        assert!(retry_reason(&e, &text, &format!("{token}{tail}")).is_some(), "extended by {tail}");
    }
}

#[test]
fn non_canonical_base64_future_version_unknown_key() {
    let e = engine();
    let (token, text) = first_token(&e);
    let parts: Vec<&str> = token.split('.').collect();
    // The tag is 43 characters encoding 32 bytes: its last character carries
    // 2 unused bits. Setting one gives the same bytes in non-canonical form.
    let tag = parts[3];
    let last = tag.chars().last().unwrap();
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let idx = alphabet.find(last).unwrap();
    let twin = alphabet.chars().nth(idx ^ 1).unwrap();
    let non_canonical = format!("{}.{}.{}.{}{}", parts[0], parts[1], parts[2], &tag[..tag.len() - 1], twin);
    assert_eq!(retry_reason(&e, &text, &non_canonical).as_deref(), Some("malformed"));
    let repadded = format!("{token}=");
    assert_eq!(retry_reason(&e, &text, &repadded).as_deref(), Some("malformed"));
    let future = token.replacen("v1.", "v3.", 1);
    assert_eq!(retry_reason(&e, &text, &future).as_deref(), Some("version"));
    // `v2` is a known format; a v1 body under it is malformed.
    let v2_prefix = token.replacen("v1.", "v2.", 1);
    assert_eq!(retry_reason(&e, &text, &v2_prefix).as_deref(), Some("malformed"));
    let unknown = token.replacen("v1.k1.", "v1.k9.", 1);
    assert_eq!(retry_reason(&e, &text, &unknown).as_deref(), Some("key"));
    // A body re-encoded with padding inside: the MAC no longer matches.
    let body_padded = format!("{}.{}.{}=.{}", parts[0], parts[1], parts[2], parts[3]);
    assert!(retry_reason(&e, &text, &body_padded).is_some());
}

#[test]
fn decide_refuses_hostile_outcomes_cleanly() {
    let e = engine();
    let text = request(r#""name":"t","arguments":{}"#);
    // A call is decided once: each hostile outcome gets a fresh call.
    let fresh = || match e.begin(text.as_bytes(), &Principal::anonymous()).unwrap() {
        Begin::Call(call) => call,
        Begin::Respond(r) => panic!("{}", r.to_json()),
    };
    let huge_state = json!("x".repeat(1 << 20));
    let r = e.decide(&fresh(), Outcome::InputRequired { requests: vec![], state: Some(huge_state) }).unwrap();
    assert_eq!(r.body()["error"]["code"], -32603);
    assert!(r.diagnostic().unwrap().contains("limit"));
    #[allow(deprecated)]
    let roots = snodo::list_roots();
    let many: Vec<(String, snodo::Question)> =
        (0..10_000).map(|i| (format!("k{i}"), roots.clone())).collect();
    let r = e.decide(&fresh(), Outcome::InputRequired { requests: many, state: None }).unwrap();
    assert!(r.is_error());
    // Keys must be unique within one result (MRTR: "MUST be unique").
    let dup = vec![("k".to_owned(), roots.clone()), ("k".to_owned(), roots)];
    let r = e.decide(&fresh(), Outcome::InputRequired { requests: dup, state: None }).unwrap();
    assert_eq!(r.body()["error"]["code"], -32603);
    assert!(r.diagnostic().unwrap().contains("duplicate"));
    let r =
        e.decide(&fresh(), Outcome::Error { code: i64::MIN, message: String::new(), data: None }).unwrap();
    assert_eq!(r.body()["error"]["code"], json!(i64::MIN));
    let _ = sjson::canonical(r.body());
}
