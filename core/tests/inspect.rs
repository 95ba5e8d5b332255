//! The token inspector against `tests/vectors/tokens.json`: every open case
//! decodes to the vector's fields without a key, and with the vector's keys
//! verifies `ok` or names the vector's reason (issue 18, item 7).
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
        if t["result"] == "valid" {
            let f = bare.fields.as_ref().unwrap();
            assert_eq!(f.round, expected["round"].as_u64().unwrap() as u32, "tc {id}");
            assert_eq!(f.issued_at, expected["issuedAt"].as_u64().unwrap(), "tc {id}");
            assert_eq!(f.expires_at, expected["expiresAt"].as_u64().unwrap(), "tc {id}");
            assert_eq!(f.flow_start, expected["flowStart"].as_u64().unwrap(), "tc {id}");
            assert_eq!(Value::from(f.question_keys.clone()), expected["questionKeys"], "tc {id}");
            let state =
                f.state_json.as_deref().map(|s| serde_json::from_str(s).unwrap()).unwrap_or(Value::Null);
            assert_eq!(state, expected["state"], "tc {id}");
            assert_eq!(bare.exit_code(), 0);
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
