//! Arbitrary JSON into the form-schema validator and the form builder; a
//! schema that validates must also build, and its own defaults must pass.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = snodo::internal::json::parse(data, 1 << 16) else { return };
    let valid = snodo::internal::validate_form_schema(&schema).is_ok();
    let built = snodo::elicit_form("m", &schema);
    if valid != built.is_ok() {
        std::process::abort();
    }
    if let Ok(request) = built
        && snodo::internal::validate_input_request(&request).is_err()
    {
        std::process::abort();
    }
});
