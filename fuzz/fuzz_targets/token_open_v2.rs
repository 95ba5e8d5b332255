//! Arbitrary `requestState` strings into the opener of an engine
//! sealing v2 (encrypted) tokens, with the vectors' keys so that genuine v2
//! tokens from the seeds decrypt and reach the checks after the AEAD.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use snodo::{Config, Engine, Key, Principal, binding_digest};
use std::sync::OnceLock;

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        let k1 = Key::new("k1", (0u8..32).collect::<Vec<_>>()).unwrap_or_else(|_| std::process::abort());
        let k2 = Key::new("k2", (32u8..64).collect::<Vec<_>>()).unwrap_or_else(|_| std::process::abort());
        let mut config = Config::new(vec![k1, k2]).fixed_time(1_800_000_010);
        config.token_version = 2;
        Engine::new(config).unwrap_or_else(|_| std::process::abort())
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(token) = std::str::from_utf8(data) else { return };
    let binding =
        binding_digest("tools/call", &json!({"name": "pick", "arguments": {"a": 1, "b": [1.0, "x"]}}))
            .unwrap_or_else(|_| std::process::abort());
    for who in [Principal::anonymous(), Principal::user("alice").unwrap_or_else(|_| std::process::abort())] {
        // Seeds include genuine v2 tokens, so success is possible; what
        // must never happen is a panic, a hang or unbounded work.
        let _ = engine().open(token, &who, &binding);
    }
});
