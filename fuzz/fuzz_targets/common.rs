//! What the request targets share: one engine per process, key `k1` =
//! bytes 0..32, the clock fixed, so a result is a function of the input.
//! Failures abort, as libFuzzer expects.

use snodo::{Config, Engine, Key};
use std::sync::OnceLock;

pub fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        let key = Key::new("k1", (0u8..32).collect::<Vec<_>>()).unwrap_or_else(|_| std::process::abort());
        Engine::new(Config::new(vec![key]).fixed_time(1_800_000_000))
            .unwrap_or_else(|_| std::process::abort())
    })
}
