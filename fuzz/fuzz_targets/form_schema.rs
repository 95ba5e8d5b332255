//! Arbitrary JSON into the form-schema validator and the form builders.
//!
//! A schema validates exactly when the builder without the safety lint
//! builds it, and what it builds passes the input-request check. The linted
//! builder may refuse a valid schema (a field named like a
//! secret, a URL in a title) but only with a schema error, and when it
//! builds, it builds the same request.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = snodo::internal::json::parse(data, 1 << 16) else { return };
    let valid = snodo::internal::validate_form_schema(&schema).is_ok();
    let built = snodo::elicit_form_without_lint("m", &schema);
    if valid != built.is_ok() {
        std::process::abort();
    }
    let Ok(request) = built else { return };
    // A built question is one a handler could have written by hand: the
    // same checks take it, as the same question.
    if snodo::internal::validate_input_request(request.value()).is_err()
        || snodo::Question::from_value(request.value().clone()).ok().as_ref() != Some(&request)
    {
        std::process::abort();
    }
    match snodo::elicit_form("m", &schema) {
        Ok(linted) if linted != request => std::process::abort(),
        Err(e) if e.code() != snodo::ErrorCode::Schema => std::process::abort(),
        _ => {}
    }
});
