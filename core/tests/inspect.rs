//! The token inspector against `tests/vectors/tokens.json`: every open case
//! decodes to the vector's fields without a key, and with the vector's keys
//! verifies `ok` or names the vector's reason.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use serde_json::Value;
use snodo::{BindingCheck, InspectOptions, Key, Principal, TokenReason, Verdict, inspect_token};

fn ring(config: &Value) -> Vec<Key> {
    config["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let hex = k["hex"].as_str().unwrap();
            let bytes: Vec<u8> =
                (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
            Key::new(k["id"].as_str().unwrap(), bytes).unwrap()
        })
        .collect()
}

#[test]
fn token_vectors() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/tokens.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut opened = 0;
    for t in file["tests"].as_array().unwrap().iter().filter(|t| t["op"] == "open") {
        let id = &t["tcId"];
        let config = if t["config"].is_object() { &t["config"] } else { &file["config"] };
        let keys = ring(config);
        let token = t["token"].as_str().unwrap();
        let now = t["now"].as_u64().unwrap();
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":{},"params":{}}}"#,
            t["method"],
            t["params"].as_str().unwrap()
        );
        let mut base = InspectOptions::default();
        if let Some(n) = config["maxRounds"].as_u64() {
            base.max_rounds = u32::try_from(n).unwrap();
        }
        if let Some(n) = config["maxFlowAgeSecs"].as_u64() {
            base.max_flow_age_secs = n;
        }
        if let Some(n) = config["maxTokenBytes"].as_u64() {
            base.max_token_bytes = usize::try_from(n).unwrap();
        }
        let mut full = base.clone();
        full.principal = Some(Principal::from_option(t["principal"].as_str()).unwrap());
        full.request = Some(request);

        // Without a key: the fields, where the token decodes.
        let bare = inspect_token(token, None, now, &base).unwrap();
        assert_eq!(bare.verdict, Verdict::Unverified);
        let expected = &t["expected"];
        // A v2 token is unreadable without its key; its fields
        // come from the report with keys.
        let keyed = inspect_token(token, Some(&keys), now, &base).unwrap();
        let is_v2 = token.starts_with("v2.");
        if is_v2 {
            assert!(bare.fields.is_err(), "tc {id}");
        }
        if t["result"] == "valid" {
            let f = if is_v2 { keyed.fields.as_ref().unwrap() } else { bare.fields.as_ref().unwrap() };
            assert_eq!(f.round, expected["round"].as_u64().unwrap() as u32, "tc {id}");
            assert_eq!(f.issued_at, expected["issuedAt"].as_u64().unwrap(), "tc {id}");
            assert_eq!(f.expires_at, expected["expiresAt"].as_u64().unwrap(), "tc {id}");
            assert_eq!(f.flow_start, expected["flowStart"].as_u64().unwrap(), "tc {id}");
            assert_eq!(Value::from(f.question_keys.clone()), expected["questionKeys"], "tc {id}");
            let state =
                f.state_json.as_deref().map(|s| serde_json::from_str(s).unwrap()).unwrap_or(Value::Null);
            assert_eq!(state, expected["state"], "tc {id}");
            if !is_v2 {
                assert_eq!(bare.exit_code(), 0);
            }
        }

        // With the keys, principal and request: the vector's outcome.
        let checked = inspect_token(token, Some(&keys), now, &full).unwrap();
        let reason = expected["reason"].as_str();
        match reason {
            None => assert_eq!(checked.verdict, Verdict::Ok, "tc {id}"),
            Some(r) => assert_eq!(checked.verdict, Verdict::Refused(by_name(r)), "tc {id}"),
        }
        // With the keys only: the binding checks are not made.
        let partial = inspect_token(token, Some(&keys), now, &base).unwrap();
        assert_eq!(
            (partial.principal, partial.request),
            (BindingCheck::NotChecked, BindingCheck::NotChecked)
        );
        match reason {
            None | Some("principal" | "request") => assert_eq!(partial.verdict, Verdict::Ok, "tc {id}"),
            Some(r) => assert_eq!(partial.verdict, Verdict::Refused(by_name(r)), "tc {id}"),
        }
        opened += 1;
    }
    assert!(opened >= 20, "only {opened} open vectors");
}

fn by_name(name: &str) -> TokenReason {
    *TokenReason::ALL.iter().find(|r| r.name() == name).unwrap()
}

/// `tests/vectors/cli/cli.json` (a subfolder: C has no command line, so the
/// four-language `*.json` runners skip it): whole command lines and their exact output,
/// which the Python console script and the Node `bin` must print byte for
/// byte. Built from tokens.json; `SNODO_BLESS=1` rewrites it after a
/// deliberate change of the output (review the diff).
#[test]
fn cli_vectors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let tokens: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tokens.json")).unwrap()).unwrap();
    let mut cases = vec![
        case(1, "help", &["--help"], None, None),
        case(2, "inspect help", &["inspect", "--help"], None, None),
        case(3, "keygen help", &["keygen", "--help"], None, None),
        case(4, "no command", &[], None, None),
        case(5, "inspect without a token", &["inspect"], None, None),
        case(6, "unknown option", &["inspect", "--bogus", "x"], None, None),
        case(7, "not a token", &["inspect", "--now", "1800000000", "hello"], None, None),
        case(8, "malformed SNODO_KEYS, no secret echoed", &["inspect", "hello"], Some("k1:00010203"), None),
        case(
            9,
            "SNODO_KEYS with a trailing comma",
            &["inspect", "hello"],
            Some(&format!("k1:{}, ", "ab".repeat(32))),
            None,
        ),
    ];
    for t in tokens["tests"].as_array().unwrap().iter().filter(|t| t["op"] == "open") {
        let config = if t["config"].is_object() { &t["config"] } else { &tokens["config"] };
        let keys: Vec<String> = config["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| format!("{}:{}", k["id"].as_str().unwrap(), k["hex"].as_str().unwrap()))
            .collect();
        let mut base = vec!["inspect".to_owned(), "--now".to_owned(), t["now"].to_string()];
        for (field, flag) in [
            ("maxRounds", "--max-rounds"),
            ("maxFlowAgeSecs", "--max-flow-age"),
            ("maxTokenBytes", "--max-token-bytes"),
        ] {
            if let Some(n) = config[field].as_u64() {
                base.extend([flag.to_owned(), n.to_string()]);
            }
        }
        let token = t["token"].as_str().unwrap().to_owned();
        let tc = t["tcId"].as_u64().unwrap();
        let comment = t["comment"].as_str().unwrap();
        let bare: Vec<String> = base.iter().cloned().chain([token.clone()]).collect();
        cases.push(case_owned(100 + tc, &format!("tokens.json {tc} ({comment}), no keys"), bare, None, None));
        let mut full = base.clone();
        match t["principal"].as_str() {
            Some(p) => full.extend(["--principal".to_owned(), p.to_owned()]),
            None => full.push("--anonymous".to_owned()),
        }
        full.extend(["--request".to_owned(), "{{request}}".to_owned(), token.clone()]);
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":{},"params":{}}}"#,
            t["method"],
            t["params"].as_str().unwrap()
        );
        let name = format!("tokens.json {tc} ({comment}), keys, principal and request");
        cases.push(case_owned(200 + tc, &name, full.clone(), Some(keys.join(",")), Some(request.clone())));
        let keys_only: Vec<String> = base.iter().cloned().chain([token.clone()]).collect();
        let name = format!("tokens.json {tc} ({comment}), keys only");
        cases.push(case_owned(300 + tc, &name, keys_only, Some(keys.join(",")), None));
        // One input of the two: the lines say which one was missing.
        if tc == 4 {
            let only: Vec<String> = base
                .iter()
                .cloned()
                .chain(["--request".to_owned(), "{{request}}".to_owned(), token])
                .collect();
            let name = format!("tokens.json {tc} ({comment}), keys and request, no principal");
            cases.push(case_owned(400 + tc, &name, only, Some(keys.join(",")), Some(request.clone())));
            let mut only = full.clone();
            only.retain(|a| a != "--request" && a != "{{request}}");
            let name = format!("tokens.json {tc} ({comment}), keys and principal, no request");
            cases.push(case_owned(500 + tc, &name, only, Some(keys.join(",")), None));
        }
    }
    // Expected outputs from the core, the single renderer.
    for c in &mut cases {
        let args: Vec<String> = serde_json::from_value(c["args"].clone()).unwrap();
        let request = c["request"].as_str().map(str::to_owned);
        let read = move |p: &str| {
            if p == "{{request}}" {
                request.clone().ok_or_else(|| "no request".to_owned())
            } else {
                Err("no such file".into())
            }
        };
        let out = snodo::run_cli(&args, c["keys"].as_str(), 1_700_000_000, &read);
        c["expected"] =
            serde_json::json!({"stdout": out.stdout, "stderr": out.stderr, "exitCode": out.exit_code});
    }
    let file = serde_json::json!({
        "schema": "snodo-vectors-v1",
        "description": "the snodo-mrtr command line: args (\"{{request}}\" = the path of a file holding `request`), SNODO_KEYS (`keys`, null = unset), exact stdout, stderr and exit code; runs without --now use 1700000000",
        "tests": cases,
    });
    let text = serde_json::to_string_pretty(&file).unwrap() + "\n";
    let path = dir.join("cli/cli.json");
    if std::env::var_os("SNODO_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "tests/vectors/cli/cli.json differs from the core's output; rerun with SNODO_BLESS=1 and review"
    );
    // The outcomes the vectors promise, checked here so a bless cannot hide a regression.
    for c in cases.iter().filter(|c| (200..400).contains(&c["tcId"].as_u64().unwrap())) {
        let stdout = c["expected"]["stdout"].as_str().unwrap();
        let tc = c["tcId"].as_u64().unwrap() % 100;
        let t = tokens["tests"].as_array().unwrap().iter().find(|t| t["tcId"] == tc).unwrap();
        let reason = t["expected"]["reason"].as_str();
        let full = c["tcId"].as_u64().unwrap() < 300;
        let want = match reason {
            Some("principal" | "request") if !full => "verified:   ok, ".to_owned(),
            Some(r) => format!("verified:   refused: {r} "),
            None => "verified:   ok, ".to_owned(),
        };
        assert!(stdout.contains(&want), "case {}: {stdout}", c["tcId"]);
    }
}

fn case(id: u64, comment: &str, args: &[&str], keys: Option<&str>, request: Option<String>) -> Value {
    case_owned(id, comment, args.iter().map(|s| (*s).to_owned()).collect(), keys.map(str::to_owned), request)
}

fn case_owned(
    id: u64,
    comment: &str,
    args: Vec<String>,
    keys: Option<String>,
    request: Option<String>,
) -> Value {
    serde_json::json!({"tcId": id, "comment": comment, "args": args, "keys": keys, "request": request})
}
