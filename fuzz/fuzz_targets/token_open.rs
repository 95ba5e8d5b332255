//! Arbitrary `requestState` strings into the token opener.
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
        Engine::new(Config::new(vec![k1, k2]).fixed_time(1_800_000_000))
            .unwrap_or_else(|_| std::process::abort())
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(token) = std::str::from_utf8(data) else { return };
    let binding = binding_digest("tools/call", &json!({"name": "pick", "arguments": {}})).unwrap();
    for who in [Principal::anonymous(), Principal::user("alice").unwrap()] {
        // Seeds include genuine tokens, so success is possible; what must
        // never happen is a panic, a hang or unbounded work.
        let _ = engine().open(token, &who, &binding);
    }
});
