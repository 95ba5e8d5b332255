#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::parse_keys;

const NOW: u64 = 1_800_000_000;
const SECRET: [u8; 32] = [0x5a; 32];

fn key() -> Key {
    Key::new("k1", SECRET.to_vec()).unwrap()
}

/// A token sealed for alice on `request` (round 2, one question, a state).
fn sealed(request: &str) -> String {
    let engine = Engine::new(Config::new(vec![key()]).fixed_time(NOW)).unwrap();
    let v: Value = serde_json::from_str(request).unwrap();
    let binding = crate::binding_digest(v["method"].as_str().unwrap(), &v["params"]).unwrap();
    let alice = Principal::user("alice").unwrap();
    #[allow(deprecated)]
    let questions = vec![("color".to_owned(), crate::list_roots())];
    let state = json!({"step": 2});
    let mut input = engine.seal_input(&alice, &binding);
    input.round = 2;
    input.flow_start = NOW - 100;
    input.questions = &questions;
    input.state = Some(&state);
    engine.seal(&input).unwrap()
}

const REQUEST: &str =
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"paint","arguments":{"a":1}}}"#;
const OTHER: &str =
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"paint","arguments":{"a":2}}}"#;

fn opts(principal: Option<Principal>, request: Option<&str>) -> InspectOptions {
    InspectOptions { principal, request: request.map(str::to_owned), ..InspectOptions::default() }
}

#[test]
fn decodes_without_a_key() {
    let t = sealed(REQUEST);
    let r = inspect_token(&t, None, NOW + 10, &InspectOptions::default()).unwrap();
    let f = r.fields.as_ref().unwrap();
    assert_eq!((f.version, f.key_id.as_str(), f.round), (1, "k1", 2));
    assert_eq!((f.issued_at, f.expires_at, f.flow_start), (NOW, NOW + 300, NOW - 100));
    assert_eq!(f.question_keys, vec!["color"]);
    assert_eq!(f.state_json.as_deref(), Some(r#"{"step":2}"#));
    assert_eq!(r.verdict, Verdict::Unverified);
    assert_eq!(r.exit_code(), 0);
    let text = r.to_text();
    assert!(text.contains("issued at:  2027-01-15T08:00:00Z (1800000000)\n"), "{text}");
    assert!(text.contains("questions:  [\"color\"]\n"), "{text}");
    assert!(text.contains("principal:  not checked (no --principal NAME or --anonymous)\n"), "{text}");
    assert!(text.contains("request:    not checked (no --request FILE)\n"), "{text}");
    assert!(text.contains("verified:   not verified"), "{text}");
}

/// The ids printed are the ones `open` gives the handler (`Call::flow_id`,
/// `Call::token_id`), so the replay line names the record a once store keeps.
#[test]
fn prints_the_ids_the_once_store_keys_on() {
    let t = sealed(REQUEST);
    let engine = Engine::new(Config::new(vec![key()]).fixed_time(NOW + 10)).unwrap();
    let v: Value = serde_json::from_str(REQUEST).unwrap();
    let binding = crate::binding_digest("tools/call", &v["params"]).unwrap();
    let opened = engine.open(&t, &Principal::user("alice").unwrap(), &binding).unwrap();
    let r = inspect_token(&t, Some(&[key()]), NOW + 10, &opts(None, Some(REQUEST))).unwrap();
    let f = r.fields.as_ref().unwrap();
    assert_eq!((f.token_id.as_str(), f.flow_id.as_str()), (opened.token_id(), opened.flow_id()));
    let text = r.to_text();
    assert!(text.contains(&format!("token id:   {}\n", opened.token_id())), "{text}");
    assert!(text.contains(&format!("flow id:    {}\n", opened.flow_id())), "{text}");
    let record = crate::once_flow_key(crate::DEFAULT_ONCE_PREFIX, opened.flow_id()).unwrap();
    assert!(text.contains("replay:     not checked here: a server with a once store judges it"), "{text}");
    assert!(text.contains(&format!("its record is {record} (default prefix)\n")), "{text}");
    // --request without a principal: each line says what it lacked or covered.
    assert!(text.contains("principal:  not checked (no --principal NAME or --anonymous)\n"), "{text}");
    assert!(
        text.contains("request:    ok (the retry's method and arguments are the first call's)\n"),
        "{text}"
    );
    assert!(text.contains("verified:   ok, for the checks made here"), "{text}");
    let alice = Some(Principal::user("alice").unwrap());
    let text = inspect_token(&t, Some(&[key()]), NOW + 10, &opts(alice, None)).unwrap().to_text();
    assert!(text.contains("principal:  ok (the retry's principal is the first call's)\n"), "{text}");
    assert!(text.contains("request:    not checked (no --request FILE)\n"), "{text}");
    let text = inspect_token("v1.k1.x.y", None, NOW, &InspectOptions::default()).unwrap().to_text();
    assert!(text.contains("replay:     not checked (no flow id: the token did not decode)\n"), "{text}");
}

#[test]
fn verifies_and_names_the_first_failing_check() {
    let t = sealed(REQUEST);
    let keys = [key()];
    let alice = || Some(Principal::user("alice").unwrap());
    let run = |now, o: &InspectOptions| inspect_token(&t, Some(&keys), now, o).unwrap();
    let ok = run(NOW + 10, &opts(None, None));
    assert_eq!(
        (ok.verdict, ok.principal, ok.request),
        (Verdict::Ok, BindingCheck::NotChecked, BindingCheck::NotChecked)
    );
    let full = run(NOW + 10, &opts(alice(), Some(REQUEST)));
    assert_eq!(
        (full.verdict, full.principal, full.request),
        (Verdict::Ok, BindingCheck::Ok, BindingCheck::Ok)
    );
    let bob = run(NOW + 10, &opts(Some(Principal::user("bob").unwrap()), Some(REQUEST)));
    assert_eq!(
        (bob.verdict, bob.principal, bob.request),
        (Verdict::Refused(TokenReason::Principal), BindingCheck::Mismatch, BindingCheck::NotReached)
    );
    // Without a principal the binding is still compared.
    let other = run(NOW + 10, &opts(None, Some(OTHER)));
    assert_eq!(
        (other.verdict, other.request),
        (Verdict::Refused(TokenReason::Request), BindingCheck::Mismatch)
    );
    let same = run(NOW + 10, &opts(None, Some(REQUEST)));
    assert_eq!((same.verdict, same.request), (Verdict::Ok, BindingCheck::Ok));
    let other = run(NOW + 10, &opts(alice(), Some(OTHER)));
    assert_eq!((other.verdict, other.principal), (Verdict::Refused(TokenReason::Request), BindingCheck::Ok));
    let late = run(NOW + 300, &opts(alice(), Some(REQUEST)));
    assert_eq!(
        (late.verdict, late.principal),
        (Verdict::Refused(TokenReason::Expired), BindingCheck::NotReached)
    );
    assert_eq!(late.exit_code(), 1);
    assert!(late.to_text().contains("verified:   refused: expired"));
    let early = run(NOW - 61, &opts(None, None));
    assert_eq!(early.verdict, Verdict::Refused(TokenReason::NotYetValid));
    let mut o = opts(None, None);
    o.max_rounds = 2;
    assert_eq!(run(NOW, &o).verdict, Verdict::Refused(TokenReason::Rounds));
    let mut o = opts(None, None);
    o.max_flow_age_secs = 300;
    assert_eq!(run(NOW + 201, &o).verdict, Verdict::Refused(TokenReason::FlowAge));
    let mut o = opts(None, Some(REQUEST));
    o.audience = Some("svc".into());
    assert_eq!(run(NOW, &o).verdict, Verdict::Refused(TokenReason::Request));
    let wrong = [Key::new("k1", vec![1; 32]).unwrap()];
    let r = inspect_token(&t, Some(&wrong), NOW, &opts(None, None)).unwrap();
    assert_eq!(r.verdict, Verdict::Refused(TokenReason::Signature));
    let other_id = [Key::new("k2", vec![1; 32]).unwrap()];
    let r = inspect_token(&t, Some(&other_id), NOW, &opts(None, None)).unwrap();
    assert_eq!(r.verdict, Verdict::Refused(TokenReason::Key));
}

#[test]
fn bad_options_are_errors_not_reports() {
    let t = sealed(REQUEST);
    let bad_request = opts(None, Some("[1]"));
    assert_eq!(inspect_token(&t, None, NOW, &bad_request).unwrap_err().code(), ErrorCode::Argument);
    assert_eq!(inspect_token(&t, None, NOW, &opts(None, Some("{"))).unwrap_err().code(), ErrorCode::Json);
    let o = InspectOptions { max_token_bytes: 1, ..InspectOptions::default() };
    assert_eq!(inspect_token(&t, Some(&[key()]), NOW, &o).unwrap_err().code(), ErrorCode::Config);
}

#[test]
fn decoding_refuses_what_open_refuses() {
    let t = sealed(REQUEST);
    let reason = |s: &str| decode_token(s, 16384).unwrap_err();
    assert_eq!(reason(""), TokenReason::Malformed);
    assert_eq!(reason("v2.k1.e30.AAAA"), TokenReason::Version);
    assert_eq!(reason("v9"), TokenReason::Version);
    assert_eq!(reason(&format!("{t}=")), TokenReason::Malformed);
    assert_eq!(reason(&format!("{t}.x")), TokenReason::Malformed);
    assert_eq!(reason(&t[..t.len() - 1]), TokenReason::Malformed);
    assert_eq!(decode_token(&t, t.len() - 1).unwrap_err(), TokenReason::Size);
    assert!(decode_token(&t, t.len()).is_ok());
    // A payload that is valid JSON but not canonical (a space) is refused.
    let body = URL_SAFE_NO_PAD.encode(br#"{"b":"", "v":1}"#);
    let tag = URL_SAFE_NO_PAD.encode([0u8; 32]);
    assert_eq!(reason(&format!("v1.k1.{body}.{tag}")), TokenReason::Malformed);
    // A real payload with one space added.
    let body = t.split('.').nth(2).unwrap();
    let text = String::from_utf8(URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap();
    for edited in [text.replacen(',', ", ", 1), text.replacen(r#""b":"#, r#""b" :"#, 1)] {
        let body = URL_SAFE_NO_PAD.encode(edited.as_bytes());
        assert_eq!(reason(&format!("v1.k1.{body}.{tag}")), TokenReason::Malformed, "{edited}");
    }
    // Unknown field, canonical.
    let body = URL_SAFE_NO_PAD.encode(br#"{"zz":1}"#);
    assert_eq!(reason(&format!("v1.k1.{body}.{tag}")), TokenReason::Malformed);
    assert_eq!(reason(&format!("v1.k.1.{body}.{tag}")), TokenReason::Malformed);
}

#[test]
fn never_prints_key_bytes() {
    let t = sealed(REQUEST);
    let spec = format!("k1:{}", STANDARD.encode(SECRET));
    let hex: String = SECRET.iter().map(|b| format!("{b:02x}")).collect();
    let args: Vec<String> = vec!["inspect".into(), "--principal".into(), "alice".into(), t.clone()];
    for keys in [spec.clone(), format!("k1:{hex}"), format!("zz:{hex}"), format!("k1:{}", &hex[..40])] {
        let o = run_cli(&args, Some(&keys), NOW, &|_| Err("no files".into()));
        for text in [&o.stdout, &o.stderr] {
            for secret in
                [STANDARD.encode(SECRET), URL_SAFE_NO_PAD.encode(SECRET), hex.clone(), hex[..40].to_owned()]
            {
                assert!(!text.contains(&secret), "{text}");
            }
        }
    }
}

#[test]
fn keys_parse_like_the_servers() {
    let hex: String = (0u8..32).map(|b| format!("{b:02x}")).collect();
    let b64 = STANDARD.encode((0u8..32).collect::<Vec<u8>>());
    let url = URL_SAFE_NO_PAD.encode([0xfbu8; 32]);
    let ring = parse_keys(&format!("new:{b64}, old:{hex},u:{url}")).unwrap();
    assert_eq!(ring.iter().map(Key::id).collect::<Vec<_>>(), ["new", "old", "u"]);
    for bad in ["", "k1", "k1:", "k1:%%%%", "k1:00", &format!(":{hex}"), &format!("a.b:{hex}")] {
        let e = parse_keys(bad).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Config, "{bad}");
        assert!(!e.message().contains(&hex), "{}", e.message());
    }
}

#[test]
fn keygen_makes_a_usable_key() {
    let line = keygen("2026-11-30").unwrap();
    let (id, b64) = line.split_once(':').unwrap();
    assert_eq!((id, STANDARD.decode(b64).unwrap().len()), ("2026-11-30", 32));
    assert_ne!(keygen("a").unwrap(), keygen("a").unwrap());
    assert_eq!(parse_keys(&line).unwrap()[0].id(), "2026-11-30");
    assert_eq!(keygen("a.b").unwrap_err().code(), ErrorCode::Config);
    assert_eq!(default_key_id(NOW), "2027-01-15");
    assert_eq!(default_key_id(0), "1970-01-01");
    assert_eq!(default_key_id(951_782_400), "2000-02-29");
    assert!(utc_time(u64::MAX).ends_with(&format!("({})", u64::MAX)));
}

#[test]
fn cli_usage() {
    let run = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        run_cli(&args, None, NOW, &|p| {
            if p == "req.json" { Ok(REQUEST.into()) } else { Err("not found".into()) }
        })
    };
    for help in [&["--help"][..], &["inspect", "--help"], &["keygen", "--help"]] {
        let o = run(help);
        assert_eq!((o.exit_code, o.stderr.as_str()), (0, ""));
        assert!(o.stdout.starts_with("Usage") || o.stdout.starts_with("snodo-mrtr"), "{}", o.stdout);
    }
    assert!(run(&["keygen"]).stdout.starts_with("2027-01-15:"));
    assert!(run(&["keygen", "--id=x"]).stdout.starts_with("x:"));
    for bad in [
        &[][..],
        &["nope"],
        &["inspect"],
        &["inspect", "--now", "x", "t"],
        &["inspect", "--bogus", "t"],
        &["inspect", "a", "b"],
        &["keygen", "--id"],
        &["keygen", "--id", "a.b"],
        &["inspect", "--request", "zz", "t"],
        &["inspect", "--principal", "", "t"],
        &["inspect", "--anonymous", "--principal", "a", "t"],
    ] {
        let o = run(bad);
        assert_eq!((o.exit_code, o.stdout.as_str()), (2, ""), "{bad:?}");
        assert!(o.stderr.starts_with("snodo-mrtr: "), "{}", o.stderr);
    }
    let t = sealed(REQUEST);
    let o = run(&["inspect", "--request", "req.json", "--now", "1800000010", &t]);
    assert_eq!(o.exit_code, 0);
    assert!(o.stdout.contains("request:    not checked (SNODO_KEYS not set)\n"), "{}", o.stdout);
    assert_eq!(run(&["inspect", "garbage"]).exit_code, 1);
}

proptest! {
    #[test]
    fn no_input_panics(s in "\\PC{0,200}", cut in 0usize..400, byte in any::<u8>()) {
        let t = sealed(REQUEST);
        let _ = decode_token(&s, 16384);
        let _ = inspect_token(&s, Some(&[key()]), NOW, &InspectOptions::default());
        // Edits of a real token: a cut, and one byte replaced.
        let cut = cut.min(t.len());
        let _ = inspect_token(&t[..cut], Some(&[key()]), NOW, &InspectOptions::default());
        let mut b = t.clone().into_bytes();
        b[cut % t.len()] = byte;
        if let Ok(edited) = String::from_utf8(b) {
            let r = inspect_token(&edited, Some(&[key()]), NOW, &InspectOptions::default()).unwrap();
            prop_assert!(edited == t || r.verdict != Verdict::Ok);
        }
    }
}

#[test]
fn the_deepest_sealable_state_decodes() {
    let engine = Engine::new(Config::new(vec![key()]).fixed_time(NOW)).unwrap();
    let mut deep = json!(1);
    for _ in 0..crate::MAX_DEPTH {
        deep = json!([deep]);
    }
    let anon = Principal::anonymous();
    let mut input = engine.seal_input(&anon, &[0; 32]);
    input.state = Some(&deep);
    let t = engine.seal(&input).unwrap();
    let f = decode_token(&t, 16384).unwrap();
    assert_eq!(serde_json::from_str::<Value>(f.state_json.as_deref().unwrap()).ok(), Some(deep));
}
