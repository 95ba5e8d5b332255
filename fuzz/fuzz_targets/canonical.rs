//! Canonical JSON: parsing never panics, and canonical text is a fixed point
//! that re-parses to an equal value. Since issue 16's thirteenth pass also:
//! `parse_json`, which tries the hand reader first, gives exactly the strict
//! parser's value or error, and the hand reader never gives a value the
//! strict parser would not. Since the fourteenth pass: `canonicalize`
//! (the streaming canonicaliser, its hand-read fast path first) writes
//! exactly the bytes of the tree reference, or gives its error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let strict = snodo::internal::json::parse(data, snodo::MAX_ARGUMENT_BYTES);
    if let Some(fast) = snodo::internal::json::value_tree(data) {
        if strict.as_ref().ok() != Some(&fast) {
            std::process::abort();
        }
    }
    let same = match (snodo::parse_json(data, "fuzz"), &strict) {
        (Ok(via), Ok(value)) => via == *value,
        (Err(via), Err(why)) => via.to_string() == format!("JSON: fuzz: {why}"),
        _ => false,
    };
    if !same {
        std::process::abort();
    }
    let streamed = match (snodo::canonicalize(data), &strict) {
        (Ok(text), Ok(value)) => text.as_bytes() == snodo::internal::json::canonical(value).as_slice(),
        (Err(e), Err(why)) => e.to_string() == format!("JSON: text: {why}"),
        _ => false,
    };
    if !streamed {
        std::process::abort();
    }
    let Ok(value) = snodo::internal::json::parse(data, 1 << 16) else { return };
    let canonical = snodo::internal::json::canonical(&value);
    let Ok(again) = snodo::internal::json::parse(&canonical, usize::MAX) else { std::process::abort() };
    if again != value || snodo::internal::json::canonical(&again) != canonical {
        std::process::abort();
    }
});
