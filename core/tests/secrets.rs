//! Key bytes never appear in any output; the principal never appears in a token.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::json;
use snodo::{Begin, Config, Engine, Key, Outcome, Principal};

/// Every spelling of the key bytes a log line could plausibly contain.
fn spellings(secret: &[u8]) -> Vec<String> {
    let hex: String = secret.iter().map(|b| format!("{b:02x}")).collect();
    vec![
        hex.clone(),
        hex.to_uppercase(),
        STANDARD.encode(secret),
        URL_SAFE_NO_PAD.encode(secret),
        String::from_utf8_lossy(secret).into_owned(),
        format!("{secret:?}"),
        secret.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", "),
    ]
}

#[test]
fn key_bytes_never_in_debug_errors_or_responses() {
    let secret: Vec<u8> = b"correct-horse-battery-staple-0123456789".to_vec();
    let key = Key::new("prod", secret.clone()).unwrap();
    let config = Config::new(vec![key.clone()]).fixed_time(1_800_000_000);
    let engine = Engine::new(config.clone()).unwrap();
    let mut outputs = vec![format!("{key:?}"), format!("{config:?}"), format!("{engine:?}")];
    // Errors that mention keys.
    outputs.push(Key::new("short", secret[..20].to_vec()).unwrap_err().to_string());
    outputs.push(Engine::new(Config::new(vec![key.clone(), key.clone()])).unwrap_err().to_string());
    // A whole flow's responses and diagnostics.
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}});
    let req = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":meta}});
    let Begin::Call(call) =
        engine.begin(req.to_string().as_bytes(), &Principal::user("octocat").unwrap()).unwrap()
    else {
        panic!()
    };
    outputs.push(format!("{call:?}"));
    let r = engine
        .decide(&call, Outcome::InputRequired { requests: vec![], state: Some(json!({"k": 1})) })
        .unwrap();
    outputs.push(r.to_json());
    outputs.push(format!("{r:?}"));
    let token = r.body()["result"]["requestState"].as_str().unwrap().to_owned();
    for out in &outputs {
        for s in spellings(&secret) {
            assert!(!out.contains(&s), "key bytes ({s}) in {out}");
        }
    }
    // The principal is only a keyed tag inside the token, and Debug hides it.
    let decoded: Vec<u8> =
        token.split('.').filter_map(|p| URL_SAFE_NO_PAD.decode(p).ok()).flatten().collect();
    assert!(!String::from_utf8_lossy(&decoded).contains("octocat"));
    assert!(!token.contains("octocat"));
    assert!(!format!("{call:?}").contains("octocat"));
}
