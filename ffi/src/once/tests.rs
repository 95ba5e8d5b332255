//! The exports of `once` against the core: header macros, constants,
//! readers, and one run driven through the exports beside the core's own
//! commands.

use std::ffi::{CStr, c_char};
use std::ptr::{null, null_mut};

use serde_json::{Value, json};

use super::*;
use crate::call::*;
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
    assert_eq!(header_macro("SNODO_ONCE_REPLAYED_MESSAGE"), snodo::ONCE_REPLAYED_MESSAGE);
    assert_eq!(header_macro("SNODO_ONCE_SAFE_EVICTION_POLICY"), snodo::ONCE_SAFE_EVICTION_POLICY);
}

#[test]
fn constants_are_the_cores() {
    assert_eq!(SNODO_ONCE_DEFAULT_LEASE_MS, snodo::DEFAULT_ONCE_LEASE_SECS * 1000);
    let wait = snodo::OnceOptions::default().wait;
    assert_eq!(u128::from(SNODO_ONCE_DEFAULT_WAIT_MS), wait.as_millis());
    assert_eq!(SNODO_ONCE_DEFAULT_MAX_BYTES, snodo::DEFAULT_ONCE_MAX_BYTES);
    assert_eq!(SNODO_ONCE_DEFAULT_MAX_BYTES_PER_PRINCIPAL, snodo::DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL);
    let read = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
    assert_eq!(read(snodo_once_claim_script()), snodo::ONCE_CLAIM_SCRIPT);
    assert_eq!(read(snodo_once_complete_script()), snodo::ONCE_COMPLETE_SCRIPT);
    assert_eq!(read(snodo_once_release_script()), snodo::ONCE_RELEASE_SCRIPT);
    assert_eq!(read(snodo_once_extend_script()), snodo::ONCE_EXTEND_SCRIPT);
    assert_eq!(read(snodo_once_lookup_script()), snodo::ONCE_LOOKUP_SCRIPT);
}

fn begin(engine: &snodo::Engine, request: &Value) -> snodo_call {
    let text = request.to_string();
    match engine.begin(text.as_bytes(), &snodo::Principal::user("alice").unwrap()).unwrap() {
        snodo::Begin::Call(call) => snodo_call { inner: *call },
        snodo::Begin::Respond(r) => panic!("not a call: {r:?}"),
    }
}

fn request(token: Option<&str>, answers: Option<Value>) -> Value {
    let mut params = json!({"name": "t", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}});
    if let Some(t) = token {
        params["requestState"] = json!(t);
    }
    if let Some(a) = answers {
        params["inputResponses"] = a;
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
}

/// A final round: round 1 asks, the retry answers `nights`.
fn final_round(engine: &snodo::Engine, nights: u64) -> snodo_call {
    let first = begin(engine, &request(None, None));
    let question = snodo::elicit_form(
        "Nights?",
        &json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
    )
    .unwrap();
    let outcome = snodo::Outcome::InputRequired { requests: vec![("q".into(), question)], state: None };
    let response = engine.decide(&first.inner, outcome).unwrap();
    let token = response.body().pointer("/result/requestState").and_then(Value::as_str).unwrap().to_owned();
    let answers = json!({"q": {"action": "accept", "content": {"n": nights}}});
    begin(engine, &request(Some(&token), Some(answers)))
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
    let c = snodo_call { inner: *call };
    let mut out: *mut c_char = null_mut();
    let mut len = 0usize;
    let (mut at, mut flow_at) = (7u64, 7u64);
    // SAFETY: a live call and valid out-pointers; strings freed below.
    unsafe {
        assert_eq!(snodo_call_answers_digest(&c, &mut out, &mut len), snodo_status::Ok);
        assert_eq!(CStr::from_ptr(out).to_str().unwrap(), want);
        assert_eq!(len, 43);
        crate::ffi::snodo_string_free(out);
        assert_eq!(snodo_call_flow_id(&c, &mut out, &mut len), snodo_status::Ok);
        assert!(out.is_null() && len == 0);
        assert_eq!(snodo_call_token_expires_at(&c, &mut at), snodo_status::Ok);
        assert_eq!(snodo_call_flow_expires_at(&c, &mut flow_at), snodo_status::Ok);
        assert_eq!((at, flow_at), (0, 0));
    }
    let engine = snodo::Engine::development().unwrap();
    let retry = final_round(&engine, 2);
    // SAFETY: as above.
    unsafe {
        assert_eq!(snodo_call_flow_expires_at(&retry, &mut flow_at), snodo_status::Ok);
    }
    assert_eq!(Some(flow_at), retry.inner.flow_expires_at());
    assert!(flow_at > retry.inner.token_expires_at().unwrap());
}

/// Reads a lent text.
fn lent(f: impl FnOnce(*mut *const c_char, *mut usize) -> snodo_status) -> String {
    let (mut p, mut n): (*const c_char, usize) = (null(), 0);
    assert_eq!(f(&mut p, &mut n), snodo_status::Ok);
    // SAFETY: the export lent `n` bytes at `p`.
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n) };
    assert_eq!(unsafe { *p.add(n) }, 0, "NUL-terminated");
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// One run through the exports on the memory store: every command's op,
/// key, script and arguments are the core's own command's; the effect's
/// text comes back as DONE; a second run gets the remembered text.
#[test]
fn a_run_through_the_exports_is_the_cores_run() {
    let engine = snodo::Engine::development().unwrap();
    let call = final_round(&engine, 3);
    let settings = snodo::OnceSettings::new("app:", std::time::Duration::from_millis(5000)).unwrap();
    let mut core_run = snodo::OnceRun::new(&call.inner, &settings, &snodo::OnceOptions::default()).unwrap();
    let snodo::OnceStep::Command(core_claim) = core_run.start().unwrap() else { panic!() };
    // SAFETY: live handles and valid out-pointers throughout; every handle
    // and string is freed before the end.
    unsafe {
        let mut store = null_mut();
        assert_eq!(snodo_once_memory_new(0, 0, &mut store), snodo_status::Ok);
        let mut run = null_mut();
        let prefix = b"app:";
        assert_eq!(snodo_once_run_new(&call, prefix.as_ptr(), 4, 5000, 0, &mut run), snodo_status::Ok);
        let mut step = null_mut();
        assert_eq!(snodo_once_run_start(run, &mut step), snodo_status::Ok);
        let mut command = null();
        assert_eq!(snodo_once_step_command(step, &mut command), snodo_status::Ok);
        let mut op = snodo_once_op::Lookup;
        assert_eq!(snodo_once_command_op(command, &mut op), snodo_status::Ok);
        assert_eq!(op, snodo_once_op::Claim);
        assert_eq!(lent(|p, n| snodo_once_command_key(command, p, n)), core_claim.key());
        assert_eq!(lent(|p, n| snodo_once_command_script(command, p, n)), snodo::ONCE_CLAIM_SCRIPT);
        let mut count = 0usize;
        assert_eq!(snodo_once_command_arg_count(command, &mut count), snodo_status::Ok);
        let args: Vec<String> =
            (0..count).map(|i| lent(|p, n| snodo_once_command_arg(command, i, p, n))).collect();
        let want = core_claim.args();
        // The owner is drawn per run; everything else is the core's.
        assert_eq!((args.len(), &args[0], &args[2..]), (4, &want[0], &want[2..]));
        let (mut p, mut n) = (null(), 7usize);
        assert_eq!(snodo_once_command_arg(command, 4, &mut p, &mut n), snodo_status::Argument);
        assert!(p.is_null() && n == 7, "outs untouched");

        // The store answers the claim; the effect's text completes it.
        let mut reply = null_mut();
        let mut reply_len = 0usize;
        assert_eq!(
            snodo_once_memory_execute(store, command, 0, &mut reply, &mut reply_len),
            snodo_status::Ok
        );
        assert_eq!(CStr::from_ptr(reply).to_str().unwrap(), "won 1");
        let mut next = null_mut();
        assert_eq!(snodo_once_run_feed(run, reply.cast(), reply_len, &mut next), snodo_status::Ok);
        crate::ffi::snodo_string_free(reply);
        snodo_once_step_free(step);
        step = next;
        let mut kind = snodo_once_step_kind::Open;
        assert_eq!(snodo_once_step_get_kind(step, &mut kind), snodo_status::Ok);
        assert_eq!(kind, snodo_once_step_kind::Effect);
        let mut fence = 0u64;
        assert_eq!(snodo_once_step_fence(step, &mut fence), snodo_status::Ok);
        let mut run_fence = 0u64;
        assert_eq!(snodo_once_run_fence(run, &mut run_fence), snodo_status::Ok);
        assert_eq!((fence, run_fence), (1, 1));
        let text = b"{\"booked\":3}";
        assert_eq!(snodo_once_run_effect_done(run, text.as_ptr(), text.len(), &mut next), snodo_status::Ok);
        snodo_once_step_free(step);
        step = next;
        assert_eq!(snodo_once_step_command(step, &mut command), snodo_status::Ok);
        assert_eq!(lent(|p, n| snodo_once_command_arg(command, 1, p, n)), r#"{"booked":3}"#);
        assert_eq!(
            snodo_once_memory_execute(store, command, 0, &mut reply, &mut reply_len),
            snodo_status::Ok
        );
        assert_eq!(snodo_once_run_feed(run, reply.cast(), reply_len, &mut next), snodo_status::Ok);
        crate::ffi::snodo_string_free(reply);
        snodo_once_step_free(step);
        step = next;
        let mut done = null_mut();
        assert_eq!(snodo_once_step_text(step, &mut done, null_mut()), snodo_status::Ok);
        assert_eq!(CStr::from_ptr(done).to_str().unwrap(), r#"{"booked":3}"#);
        crate::ffi::snodo_string_free(done);
        snodo_once_step_free(step);
        snodo_once_run_free(run);

        // A lookup of the same flow finds it (the prefix is part of the key).
        assert_eq!(snodo_once_lookup_new(&call, prefix.as_ptr(), 4, &mut run), snodo_status::Ok);
        assert_eq!(snodo_once_run_start(run, &mut step), snodo_status::Ok);
        assert_eq!(snodo_once_step_command(step, &mut command), snodo_status::Ok);
        assert_eq!(
            snodo_once_memory_execute(store, command, 0, &mut reply, &mut reply_len),
            snodo_status::Ok
        );
        assert!(CStr::from_ptr(reply).to_str().unwrap().starts_with("done 1 "));
        assert_eq!(snodo_once_run_feed(run, reply.cast(), reply_len, &mut next), snodo_status::Ok);
        crate::ffi::snodo_string_free(reply);
        assert_eq!(snodo_once_step_get_kind(next, &mut kind), snodo_status::Ok);
        assert_eq!(kind, snodo_once_step_kind::Done);
        snodo_once_step_free(next);
        snodo_once_step_free(step);
        snodo_once_run_free(run);
        snodo_once_memory_free(store);
    }
}

#[test]
fn ops_are_the_cores() {
    use snodo::OnceOp;
    let ops = [OnceOp::Claim, OnceOp::Complete, OnceOp::Release, OnceOp::Extend, OnceOp::Lookup];
    for (n, op) in ops.into_iter().enumerate() {
        assert_eq!(snodo_once_op::from(op) as usize, n);
        assert_eq!(super::store::script_of(op).strip_suffix(&[0]).unwrap(), op_script(op).as_bytes());
    }
}

fn op_script(op: snodo::OnceOp) -> &'static str {
    match op {
        snodo::OnceOp::Claim => snodo::ONCE_CLAIM_SCRIPT,
        snodo::OnceOp::Complete => snodo::ONCE_COMPLETE_SCRIPT,
        snodo::OnceOp::Release => snodo::ONCE_RELEASE_SCRIPT,
        snodo::OnceOp::Extend => snodo::ONCE_EXTEND_SCRIPT,
        snodo::OnceOp::Lookup => snodo::ONCE_LOOKUP_SCRIPT,
    }
}
