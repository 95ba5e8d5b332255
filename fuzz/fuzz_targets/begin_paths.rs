//! Issue 16, twelfth pass: `begin`'s hand reader against the whole-message
//! tree it is held to, on the same bytes. The hand reader keeps the last
//! few `_meta` objects per thread (capabilities, client info) and hands a
//! later request the kept tree when its bytes start with a kept text; the
//! fuzzer runs every input in one thread, so what earlier inputs left in
//! that memo is in play. Any difference in the result (the call with every
//! field, the ready response, the error) aborts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use snodo::{Config, Engine, Key, Principal};
use std::sync::OnceLock;

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        let key = Key::new("k1", (0u8..32).collect::<Vec<_>>()).unwrap_or_else(|_| std::process::abort());
        Engine::new(Config::new(vec![key]).fixed_time(1_800_000_000)).unwrap_or_else(|_| std::process::abort())
    })
}

fuzz_target!(|data: &[u8]| {
    let e = engine();
    let who = Principal::user("alice").unwrap_or_else(|_| std::process::abort());
    let fast = format!("{:?}", e.begin(data, &who));
    let slow = format!("{:?}", snodo::internal::begin_reference(e, data, &who));
    if fast != slow {
        eprintln!("begin paths differ on {:?}\nfast: {fast}\nslow: {slow}", String::from_utf8_lossy(data));
        std::process::abort();
    }
});
