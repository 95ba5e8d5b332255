//! The exports of `once` against the core: header macros, readers, constants.

use std::ffi::{CStr, c_char};

use super::*;
use crate::error::snodo_status;

/// The value of `#define <name> "<value>"` in the committed header.
fn header_macro(name: &str) -> String {
    let header = include_str!("../../../include/snodo.h");
    let line = header
        .lines()
        .find(|l| l.starts_with(&format!("#define {name} ")))
        .unwrap_or_else(|| panic!("{name} not in include/snodo.h"));
    let value = line[format!("#define {name} ").len()..].trim();
    serde_json::from_str(value).unwrap()
}

#[test]
fn header_macros_are_the_cores() {
    assert_eq!(header_macro("SNODO_ONCE_DEFAULT_PREFIX"), snodo::DEFAULT_ONCE_PREFIX);
    assert_eq!(header_macro("SNODO_ONCE_CONSUMED"), snodo::ONCE_CONSUMED);
    assert_eq!(header_macro("SNODO_ONCE_PENDING"), snodo::ONCE_PENDING);
    assert_eq!(header_macro("SNODO_ONCE_DONE_PREFIX"), snodo::ONCE_DONE_PREFIX);
    assert_eq!(header_macro("SNODO_ONCE_WON"), snodo::ONCE_WON);
    assert_eq!(header_macro("SNODO_ONCE_REPLAYED_MESSAGE"), snodo::ONCE_REPLAYED_MESSAGE);
}

/// The C readers return what the core's `Call` says, for a first round
/// (no ids) and for a request whose answers are on the wire in another
/// key order (the digest is over the canonical form).
#[test]
fn readers_are_the_cores() {
    let engine = snodo::Engine::development().unwrap();
    let request = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{}},
        "inputResponses":{"b":{"action":"decline"},"a":{"content":{"y":1,"x":2},"action":"accept"}}}}"#;
    let call = match engine.begin(request, &snodo::Principal::anonymous()).unwrap() {
        snodo::Begin::Call(call) => call,
        snodo::Begin::Respond(r) => panic!("not a call: {r:?}"),
    };
    let want = call.answers_digest();
    // Not the digest of `{}`: the answers are read on this request.
    assert_ne!(want, "RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o");
    let c = crate::call::snodo_call::new(*call);
    let mut out: *mut c_char = std::ptr::null_mut();
    let mut len = 0usize;
    let mut at = 7u64;
    // SAFETY: a live call and valid out-pointers; strings freed below.
    unsafe {
        assert_eq!(snodo_call_answers_digest(&c, &mut out, &mut len), snodo_status::Ok);
        assert_eq!(CStr::from_ptr(out).to_str().unwrap(), want);
        assert_eq!(len, 43);
        crate::ffi::snodo_string_free(out);
        assert_eq!(snodo_call_flow_id(&c, &mut out, &mut len), snodo_status::Ok);
        assert!(out.is_null() && len == 0);
        assert_eq!(snodo_call_token_expires_at(&c, &mut at), snodo_status::Ok);
        assert_eq!(at, 0);
    }
}

#[test]
fn constants_are_the_cores() {
    assert_eq!(SNODO_ONCE_DEFAULT_MAX_ENTRIES as usize, snodo::DEFAULT_ONCE_MAX_ENTRIES);
    assert_eq!(u64::from(SNODO_ONCE_DEFAULT_LEASE_SECS), snodo::DEFAULT_ONCE_LEASE_SECS);
    let read = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
    assert_eq!(read(snodo_once_claim_script()), snodo::ONCE_CLAIM_SCRIPT);
    assert_eq!(read(snodo_once_complete_script()), snodo::ONCE_COMPLETE_SCRIPT);
    assert_eq!(read(snodo_once_release_script()), snodo::ONCE_RELEASE_SCRIPT);
}
