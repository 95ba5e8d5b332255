//! Rust-side tests of the exports (the C suite in tests/c/ is the main one).

use std::ffi::{CStr, c_char};
use std::ptr::{null, null_mut};

use crate::call::*;
use crate::config::*;
use crate::engine::*;
use crate::error::*;
use crate::ffi::{guard, snodo_string_free};
use crate::*;

#[test]
fn version_macros_match_cargo_toml() {
    assert_eq!(SNODO_VERSION_MAJOR.to_string(), env!("CARGO_PKG_VERSION_MAJOR"));
    assert_eq!(SNODO_VERSION_MINOR.to_string(), env!("CARGO_PKG_VERSION_MINOR"));
    assert_eq!(SNODO_VERSION_PATCH.to_string(), env!("CARGO_PKG_VERSION_PATCH"));
    // SAFETY: static NUL-terminated string.
    let v = unsafe { CStr::from_ptr(snodo_version()) };
    assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    assert_eq!(v.to_str().unwrap(), snodo::VERSION);
    assert_eq!(snodo_abi_version(), SNODO_ABI_VERSION);
}

fn last_error() -> String {
    let mut s: *mut c_char = null_mut();
    // SAFETY: valid out-pointer; the string is freed below.
    unsafe {
        assert_eq!(snodo_last_error(&mut s, null_mut()), snodo_status::Ok);
        let out = CStr::from_ptr(s).to_str().unwrap().to_owned();
        snodo_string_free(s);
        out
    }
}

#[test]
fn panics_become_a_status_and_a_last_error() {
    let status = guard(|| panic!("boom"));
    assert_eq!(status, snodo_status::Panic);
    assert_eq!(last_error(), "PANIC: panic: boom");
    assert_eq!(guard(|| Ok(())), snodo_status::Ok);
    assert_eq!(last_error(), "");
}

#[test]
fn nulls_are_statuses_and_outs_stay_untouched() {
    let sentinel = 0x1234 as *mut snodo_engine;
    let mut out = sentinel;
    // SAFETY: NULL handles are checked before any use.
    unsafe {
        assert_eq!(snodo_engine_new(null(), &mut out), snodo_status::NullArgument);
        assert_eq!(out, sentinel);
        assert_eq!(snodo_engine_development(null_mut()), snodo_status::NullArgument);
        snodo_engine_free(null_mut());
        snodo_config_free(null_mut());
        snodo_call_free(null_mut());
        snodo_string_free(null_mut());
    }
    assert_eq!(last_error(), "NULL_ARGUMENT: out: NULL");
}

#[test]
fn begin_and_decide_round_trip() {
    let req = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let outcome = br#"{"type":"complete","result":{"content":[]}}"#;
    // SAFETY: every pointer is valid for its length; handles are freed.
    unsafe {
        let mut config = null_mut();
        assert_eq!(snodo_config_new(&mut config), snodo_status::Ok);
        assert_eq!(snodo_config_add_key(config, b"k1".as_ptr(), 2, [7u8; 32].as_ptr(), 32), snodo_status::Ok);
        let mut engine = null_mut();
        assert_eq!(snodo_engine_new(config, &mut engine), snodo_status::Ok);
        snodo_config_free(config);
        let (mut call, mut resp) = (null_mut(), null_mut());
        assert_eq!(
            snodo_engine_begin(engine, req.as_ptr(), req.len(), null(), 0, &mut call, &mut resp),
            snodo_status::Ok
        );
        assert!(!call.is_null() && resp.is_null());
        let mut r = null_mut();
        assert_eq!(
            snodo_engine_decide(engine, call, outcome.as_ptr(), outcome.len(), &mut r),
            snodo_status::Ok
        );
        let mut again = null_mut();
        assert_eq!(
            snodo_engine_decide(engine, call, outcome.as_ptr(), outcome.len(), &mut again),
            snodo_status::AlreadyDecided
        );
        assert!(again.is_null());
        let (mut body, mut len) = (null_mut(), 0usize);
        assert_eq!(crate::call::snodo_response_body(r, &mut body, &mut len), snodo_status::Ok);
        let text = CStr::from_ptr(body).to_str().unwrap().to_owned();
        assert_eq!(text.len(), len);
        assert!(text.contains(r#""resultType":"complete""#), "{text}");
        snodo_string_free(body);
        crate::call::snodo_response_free(r);
        snodo_call_free(call);
        snodo_engine_free(engine);
    }
}

/// The test-only settings follow this crate's `test-knobs` feature: applied
/// in the test suites' build, CONFIG saying so in any other, with the
/// config left as it was.
#[test]
fn test_knobs_only_with_the_feature() {
    let seed = b"test_random_seed";
    // SAFETY: every pointer is valid for its length; handles are freed.
    unsafe {
        let mut config = null_mut();
        assert_eq!(snodo_config_new(&mut config), snodo_status::Ok);
        let fixed = snodo_config_set_fixed_time(config, 1_800_000_000);
        let fixed_error = last_error();
        let seeded = snodo_config_set_limit(config, seed.as_ptr(), seed.len(), 1);
        let seed_error = last_error();
        let camel = snodo_config_set_limit(config, b"testRandomSeed".as_ptr(), 14, 1);
        if cfg!(feature = "test-knobs") {
            assert_eq!((fixed, seeded, camel), (snodo_status::Ok, snodo_status::Ok, snodo_status::Ok));
            assert_eq!((*config).inner.limit("test_random_seed"), Some(1));
            assert_eq!((*config).inner.clock.as_ref().map(|now| now()), Some(1_800_000_000));
        } else {
            let test_only = "a test-only setting, absent from this build (libsnodo was built without the \
                             cargo feature test-knobs)";
            assert_eq!(
                (fixed, seeded, camel),
                (snodo_status::Config, snodo_status::Config, snodo_status::Config)
            );
            assert_eq!(fixed_error, format!("CONFIG: fixed_time: {test_only}"));
            assert_eq!(seed_error, format!("CONFIG: test_random_seed: {test_only}"));
            assert!((*config).inner.clock.is_none());
            // The core of this test build has the seed (a dev-dependency's
            // feature): the refusal left it at its default.
            assert_eq!((*config).inner.limit("test_random_seed"), Some(0));
        }
        // The deployment limits work in either build.
        let min = b"min_token_version";
        assert_eq!(snodo_config_set_limit(config, min.as_ptr(), min.len(), 2), snodo_status::Ok);
        assert_eq!((*config).inner.limit("min_token_version"), Some(2));
        snodo_config_free(config);
    }
}

/// The response body of `decide` on a first round of an engine with pinned
/// time and randomness.
fn pinned_first_round(
    decide: impl FnOnce(*const snodo_engine, *const snodo_call, *mut *mut snodo_response) -> snodo_status,
) -> String {
    let mut config =
        snodo::Config::new(vec![snodo::Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(1_800_000_000);
    config.set_limit("test_random_seed", 5).unwrap();
    let engine = snodo_engine { inner: snodo::Engine::new(config).unwrap() };
    let req = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;
    let snodo::Begin::Call(call) = engine.inner.begin(req, &snodo::Principal::anonymous()).unwrap() else {
        panic!("not a call")
    };
    let call = snodo_call { inner: *call };
    let mut r = null_mut();
    assert_eq!(decide(&engine, &call, &mut r), snodo_status::Ok, "{}", last_error());
    // SAFETY: a response from the export, freed here.
    unsafe {
        let body = (*r).inner.to_json();
        snodo_response_free(r);
        body
    }
}

/// A builder's question, its JSON text and the question read back from it
/// are one question; asking it with `snodo_engine_decide_input_required`
/// and with the outcome as JSON text gives the same bytes.
#[test]
fn questions_through_the_exports() {
    let (message, schema) = ("Seat?", br#"{"type":"object","properties":{"seat":{"type":"string"}}}"#);
    let mut q = null_mut();
    // SAFETY: every pointer is valid for its length; handles are freed.
    unsafe {
        let st =
            crate::question::snodo_elicit_form(message.as_ptr(), 5, schema.as_ptr(), schema.len(), &mut q);
        assert_eq!(st, snodo_status::Ok);
        let (mut text, mut len) = (null_mut(), 0usize);
        assert_eq!(crate::question::snodo_question_to_json(q, &mut text, &mut len), snodo_status::Ok);
        let json = CStr::from_ptr(text).to_str().unwrap().to_owned();
        snodo_string_free(text);
        assert_eq!(json, (*q).inner.to_json());
        assert_eq!(len, json.len());
        let mut back = null_mut();
        assert_eq!(
            crate::question::snodo_question_from_json(json.as_ptr(), json.len(), &mut back),
            snodo_status::Ok
        );
        assert_eq!((*back).inner, (*q).inner);
        crate::question::snodo_question_free(back);

        let state = br#"{"b":[1,1.0],"a":null}"#;
        let asks = [crate::question::snodo_input_request { key: b"seat".as_ptr(), key_len: 4, question: q }];
        let by_questions = pinned_first_round(|e, c, r| {
            snodo_engine_decide_input_required(e, c, asks.as_ptr(), 1, state.as_ptr(), state.len(), r)
        });
        let outcome = format!(
            r#"{{"type":"input_required","inputRequests":{{"seat":{json}}},"state":{}}}"#,
            std::str::from_utf8(state).unwrap()
        );
        let by_text =
            pinned_first_round(|e, c, r| snodo_engine_decide(e, c, outcome.as_ptr(), outcome.len(), r));
        assert_eq!(by_questions, by_text);
        assert!(by_text.contains(r#""requestState":""#), "{by_text}");
        crate::question::snodo_question_free(q);
    }
}
