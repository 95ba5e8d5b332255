//! Issue 16, twelfth pass: `begin`'s hand reader against the whole-message
//! tree it is held to, on the same bytes. The hand reader keeps the last
//! few `_meta` objects per thread (capabilities, client info) and hands a
//! later request the kept tree when its bytes start with a kept text; the
//! fuzzer runs every input in one thread, so what earlier inputs left in
//! that memo is in play. Any difference in the result (the call with every
//! field, the ready response, the error) aborts.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use snodo::Principal;

fuzz_target!(|data: &[u8]| {
    let e = common::engine();
    let who = Principal::user("alice").unwrap_or_else(|_| std::process::abort());
    let fast = format!("{:?}", e.begin(data, &who));
    let slow = format!("{:?}", snodo::internal::begin_reference(e, data, &who));
    if fast != slow {
        eprintln!("begin paths differ on {:?}\nfast: {fast}\nslow: {slow}", String::from_utf8_lossy(data));
        std::process::abort();
    }
});
