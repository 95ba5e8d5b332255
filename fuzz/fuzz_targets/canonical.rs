//! Canonical JSON: parsing never panics, and canonical text is a fixed point
//! that re-parses to an equal value.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = snodo::internal::json::parse(data, 1 << 16) else { return };
    let canonical = snodo::internal::json::canonical(&value);
    let Ok(again) = snodo::internal::json::parse(&canonical, usize::MAX) else { std::process::abort() };
    if again != value || snodo::internal::json::canonical(&again) != canonical {
        std::process::abort();
    }
});
