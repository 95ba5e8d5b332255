//! `[schema, answer]` pairs into answer validation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use snodo::internal::{RequestKind, read_answer, validate_input_request};

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(pair)) = snodo::internal::json::parse(data, 1 << 16) else { return };
    let [schema, answer] = pair.as_slice() else { return };
    let _ = snodo::internal::validate_content(schema, answer);
    if let Ok(request) = snodo::elicit_form("m", schema) {
        let kind = validate_input_request(&request).unwrap_or(RequestKind::Form);
        let _ = read_answer(&request, kind, answer);
    }
    for method in ["sampling/createMessage", "roots/list"] {
        let request = serde_json::json!({"method": method, "params": {"messages": [], "maxTokens": 1}});
        let kind = if method == "roots/list" { RequestKind::Roots } else { RequestKind::Sampling };
        let _ = read_answer(&request, kind, answer);
    }
});
