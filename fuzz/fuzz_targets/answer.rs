//! `[schema, answer]` pairs into answer validation, through the questions
//! a handler asks: a form built on the schema, and the deprecated sampling
//! and roots requests.
#![no_main]
#![allow(deprecated)]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use snodo::internal::read_answer;

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(pair)) = snodo::internal::json::parse(data, 1 << 16) else { return };
    let [schema, answer] = pair.as_slice() else { return };
    let _ = snodo::internal::validate_content(schema, answer);
    let mut questions = vec![snodo::list_roots()];
    if let Ok(q) = snodo::elicit_form("m", schema) {
        questions.push(q);
    }
    let params = serde_json::json!({"messages": [{"role": "user", "content": {"type": "text", "text": "m"}}], "maxTokens": 1});
    if let Ok(q) = snodo::sampling(&params) {
        questions.push(q);
    }
    for q in &questions {
        let _ = read_answer(q.value(), q.kind(), answer);
    }
});
