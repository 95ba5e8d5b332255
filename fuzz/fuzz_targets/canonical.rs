//! The one reader and the one writer on arbitrary bytes: reading never
//! panics; `parse_json` and `canonicalize` are the reader and the writer
//! with their error wording; canonical text is a fixed point of the writer
//! and reads back as the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use snodo::internal::json::{canonical, parse};

fuzz_target!(|data: &[u8]| {
    let strict = parse(data, snodo::MAX_ARGUMENT_BYTES);
    let same = match (snodo::parse_json(data, "fuzz"), &strict) {
        (Ok(via), Ok(value)) => via == *value,
        (Err(via), Err(why)) => via.to_string() == format!("JSON: fuzz: {why}"),
        _ => false,
    };
    if !same {
        std::process::abort();
    }
    let Ok(value) = strict else { return };
    // Every value the reader gives is within the writer's depth bound.
    let Some(text) = canonical(&value) else { std::process::abort() };
    if snodo::canonicalize(data).ok().map(String::into_bytes).as_ref() != Some(&text) {
        std::process::abort();
    }
    let Ok(again) = parse(&text, usize::MAX) else { std::process::abort() };
    if again != value || canonical(&again).as_ref() != Some(&text) {
        std::process::abort();
    }
});
