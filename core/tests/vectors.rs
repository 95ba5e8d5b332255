//! Runs every vector in `tests/vectors/*.json` (see tests/vectors/README.md).
//!
//! With `SNODO_REGEN_VECTORS=1` the exact outputs are rewritten from this
//! implementation, but only after every hand-written `check` passed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use snodo::{
    Answer, Begin, Bridge, Call, Config, Engine, Feed, Key, Outcome, PendingFlow, Principal, Question,
    SealInput, Session, binding_digest,
};

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

fn regen() -> bool {
    std::env::var_os("SNODO_REGEN_VECTORS").is_some()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn engine(config: &Value, now: u64) -> Engine {
    let keys = config["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| Key::new(k["id"].as_str().unwrap(), hex(k["hex"].as_str().unwrap())).unwrap())
        .collect();
    let mut c = Config::new(keys).fixed_time(now);
    // The vectors spell limits in camelCase; the core's one schema reads them.
    for limit in &snodo::LIMITS {
        if let Some(v) = config.get(limit.camel).and_then(Value::as_u64) {
            c.set_limit(limit.camel, v).unwrap();
        }
    }
    // The test-only seed is a setting of builds with the `test-knobs`
    // feature, not a row of LIMITS.
    if let Some(v) = config.get("testRandomSeed").and_then(Value::as_u64) {
        c.set_limit("testRandomSeed", v).unwrap();
    }
    if let Some(v) = config.get("supportedVersions") {
        c.supported_versions = serde_json::from_value(v.clone()).unwrap();
    }
    if let Some(v) = config.get("serverInfo") {
        c.server_info = Some(v.clone());
    }
    if let Some(v) = config.get("strictAnswers").and_then(Value::as_bool) {
        c.strict_answers = v;
    }
    if let Some(v) = config.get("audience").and_then(Value::as_str) {
        c.audience = Some(v.to_owned());
    }
    Engine::new(c).unwrap()
}

fn principal(v: Option<&Value>) -> Principal {
    match v {
        Some(Value::String(s)) => Principal::user(s.clone()).unwrap(),
        _ => Principal::anonymous(),
    }
}

fn answer_json(a: &Answer) -> Value {
    match a {
        Answer::Accepted(v) => json!({"kind": "accepted", "value": v}),
        other => json!({"kind": other.kind()}),
    }
}

/// Asserts the hand-written JSON Pointer checks against `out`.
fn assert_checks(ctx: &str, check: Option<&Value>, out: &Value) {
    let Some(Value::Object(check)) = check else { return };
    for (ptr, want) in check {
        let got =
            if let Some(field) = ptr.strip_prefix('#') { out.get(field) } else { out["body"].pointer(ptr) };
        assert_eq!(got, Some(want), "{ctx}: check {ptr}");
    }
}

fn run_flows(doc: &mut Value) {
    let file_config = doc["config"].clone();
    let tests = doc["tests"].as_array_mut().unwrap();
    for t in tests.iter_mut() {
        let id = t["tcId"].clone();
        let test_config = t.get("config").cloned().unwrap_or_else(|| file_config.clone());
        let now = t["now"].as_u64().unwrap();
        let test_principal = t.get("principal").cloned();
        let mut states: Vec<Option<String>> = Vec::new();
        let mut saw_error = false;
        let mut ids = FlowIds::default();
        for (si, s) in t["steps"].as_array_mut().unwrap().iter_mut().enumerate() {
            let ctx = format!("flows tc{id} step{}", si + 1);
            let cfg = s.get("config").cloned().unwrap_or_else(|| test_config.clone());
            let e = engine(&cfg, s.get("now").and_then(Value::as_u64).unwrap_or(now));
            let who = principal(s.get("principal").or(test_principal.as_ref()));
            let mut text = s["request"].as_str().unwrap().to_owned();
            for (i, st) in states.iter().enumerate() {
                if let Some(st) = st {
                    text = text.replace(&format!("{{{{state:{}}}}}", i + 1), st);
                }
            }
            let out = match e.begin(text.as_bytes(), &who) {
                Err(err) => {
                    saw_error = true;
                    json!({"error": err.code().name()})
                }
                Ok(Begin::Respond(r)) => json!({"httpStatus": r.http_status(), "body": r.body()}),
                Ok(Begin::Call(call)) => {
                    for a in s.get("answers").and_then(Value::as_array).cloned().unwrap_or_default() {
                        let got =
                            answer_json(&call.response(a["key"].as_str().unwrap(), &question(&a["request"])));
                        let want = &a["expected"];
                        if want["kind"] == "invalid" {
                            assert_eq!(got["kind"], "invalid", "{ctx}: answer {}", a["key"]);
                        } else {
                            assert_eq!(&got, want, "{ctx}: answer {}", a["key"]);
                        }
                    }
                    for a in s.get("rawAnswers").and_then(Value::as_array).cloned().unwrap_or_default() {
                        let got =
                            call.raw_response(a["key"].as_str().unwrap()).cloned().unwrap_or(Value::Null);
                        assert_eq!(got, a["expected"], "{ctx}: raw answer {}", a["key"]);
                    }
                    let opened = state_ref(s["request"].as_str().unwrap());
                    if let Some(c) = s.get_mut("call") {
                        assert_eq!(json!(call.round()), c["round"], "{ctx}: round");
                        assert_eq!(call.state().cloned().unwrap_or(Value::Null), c["state"], "{ctx}: state");
                        assert_eq!(json!(call.asked_keys()), c["askedKeys"], "{ctx}: askedKeys");
                        check_ids(&ctx, &call, c, &mut ids, opened);
                    }
                    let outcome = Outcome::from_value(s["outcome"].clone()).unwrap();
                    let r = e.decide(&call, outcome).unwrap();
                    // Optional: the start of the -32603 diagnostic, which
                    // names the field (never on the wire, so not in `expected`).
                    if let Some(want) = s.get("diagnostic").and_then(Value::as_str) {
                        let got = r.diagnostic().unwrap_or_default();
                        assert!(got.starts_with(want), "{ctx}: diagnostic {got:?}, want {want:?}");
                    }
                    json!({"httpStatus": r.http_status(), "body": r.body()})
                }
            };
            assert_checks(&ctx, s.get("check"), &out);
            if out["body"].get("error").is_some() {
                saw_error = true;
            }
            states.push(out["body"]["result"]["requestState"].as_str().map(str::to_owned));
            if regen() {
                s["expected"] = out;
            } else {
                assert_eq!(s.get("expected"), Some(&out), "{ctx}: expected output");
            }
        }
        let want_invalid = t["result"] == "invalid";
        assert_eq!(saw_error, want_invalid, "flows tc{id}: result {}", t["result"]);
    }
}

/// Substitutes `{{state:N}}` in `text` with step N's `requestState`.
fn with_states(text: &str, states: &[Option<String>]) -> String {
    let mut text = text.to_owned();
    for (i, st) in states.iter().enumerate() {
        if let Some(st) = st {
            text = text.replace(&format!("{{{{state:{}}}}}", i + 1), st);
        }
    }
    text
}

/// What one test's call blocks said so far, to assert what no
/// regenerated value may contradict: one test is one flow (a single flow
/// id), and a token id belongs to its token (steps that open the same
/// `{{state:N}}` share it, steps that open different ones do not).
#[derive(Default)]
struct FlowIds {
    flow: Option<Value>,
    tokens: Vec<(Option<usize>, Value)>,
}

/// The N of the `{{state:N}}` a request text opens, if any.
fn state_ref(text: &str) -> Option<usize> {
    let rest = &text[text.find("{{state:")? + 8..];
    rest[..rest.find("}}")?].parse().ok()
}

/// Checks (or, when regenerating, fills in) the call block's issue-17
/// fields `flowId`, `tokenId`, `tokenExpiresAt` and `answersDigest`. A value
/// the generator wrote by hand (nulls of a first round, expiries, digests
/// it computes itself) is never overwritten, only the missing ones are
/// filled; outside regeneration every field must be there.
fn check_ids(ctx: &str, call: &Call, c: &mut Value, ids: &mut FlowIds, opened: Option<usize>) {
    let got = json!({
        "flowId": call.flow_id(), "tokenId": call.token_id(),
        "tokenExpiresAt": call.token_expires_at(), "answersDigest": call.answers_digest(),
    });
    for (field, value) in got.as_object().unwrap() {
        match c.get(field.as_str()) {
            Some(want) => assert_eq!(want, value, "{ctx}: {field}"),
            None if regen() => c[field.as_str()] = value.clone(),
            None => panic!("{ctx}: the call block has no {field}"),
        }
    }
    assert_eq!(got["flowId"].is_null(), opened.is_none(), "{ctx}: flowId only when a token is opened");
    assert_eq!(got["tokenId"].is_null(), opened.is_none(), "{ctx}: tokenId only when a token is opened");
    assert_eq!(got["tokenExpiresAt"].is_null(), opened.is_none(), "{ctx}: tokenExpiresAt only on a retry");
    if opened.is_none() {
        return;
    }
    match &ids.flow {
        Some(f) => assert_eq!(f, &got["flowId"], "{ctx}: the flow id changed within a flow"),
        None => ids.flow = Some(got["flowId"].clone()),
    }
    for (n, tid) in &ids.tokens {
        assert_eq!(
            *n == opened,
            *tid == got["tokenId"],
            "{ctx}: token id vs token (state {n:?} and {opened:?})"
        );
    }
    ids.tokens.push((opened, got["tokenId"].clone()));
}

/// One begin + decide, as `{httpStatus, body}` (answers and readers checked).
fn begin_and_decide(
    ctx: &str,
    e: &Engine,
    s: &mut Value,
    begun: snodo::Result<Begin>,
    ids: &mut FlowIds,
) -> Value {
    match begun {
        Err(err) => json!({"error": err.code().name()}),
        Ok(Begin::Respond(r)) => json!({"httpStatus": r.http_status(), "body": r.body()}),
        Ok(Begin::Call(call)) => {
            for a in s.get("answers").and_then(Value::as_array).cloned().unwrap_or_default() {
                let got = answer_json(&call.response(a["key"].as_str().unwrap(), &question(&a["request"])));
                assert_eq!(got, a["expected"], "{ctx}: answer {}", a["key"]);
            }
            let opened = state_ref(s["request"].as_str().unwrap());
            if let Some(c) = s.get_mut("call") {
                assert_eq!(json!(call.round()), c["round"], "{ctx}: round");
                assert_eq!(call.state().cloned().unwrap_or(Value::Null), c["state"], "{ctx}: state");
                assert_eq!(json!(call.asked_keys()), c["askedKeys"], "{ctx}: askedKeys");
                check_ids(ctx, &call, c, ids, opened);
            }
            let outcome = Outcome::from_value(s["outcome"].clone()).unwrap();
            let r = e.decide(&call, outcome).unwrap();
            json!({"httpStatus": r.http_status(), "body": r.body()})
        }
    }
}

/// Each step runs `begin` on the request text and `begin_parts`
/// on the parsed parts; both must give the same response (token included).
fn run_parts(doc: &mut Value) {
    let config = doc["config"].clone();
    for t in doc["tests"].as_array_mut().unwrap().iter_mut() {
        let id = t["tcId"].clone();
        let e = engine(&config, t["now"].as_u64().unwrap());
        let who = principal(t.get("principal"));
        let mut states: Vec<Option<String>> = Vec::new();
        let mut saw_error = false;
        let mut ids = FlowIds::default();
        for (si, s) in t["steps"].as_array_mut().unwrap().iter_mut().enumerate() {
            let ctx = format!("parts tc{id} step{}", si + 1);
            let text = with_states(s["request"].as_str().unwrap(), &states);
            let bytes_out = begin_and_decide(&ctx, &e, s, e.begin(text.as_bytes(), &who), &mut ids);
            let parts: Value = serde_json::from_str(&with_states(&s["parts"].to_string(), &states)).unwrap();
            let method = parts["method"].as_str().unwrap();
            let begun = e.begin_parts(parts["id"].clone(), method, parts["params"].clone(), &who);
            // The parts must give the same ids and digest as the bytes.
            let parts_out = begin_and_decide(&ctx, &e, s, begun, &mut ids);
            assert_eq!(parts_out, bytes_out, "{ctx}: parts and bytes differ");
            assert_checks(&ctx, s.get("check"), &bytes_out);
            saw_error |= bytes_out["body"].get("error").is_some();
            states.push(bytes_out["body"]["result"]["requestState"].as_str().map(str::to_owned));
            if regen() {
                s["expected"] = bytes_out;
            } else {
                assert_eq!(s.get("expected"), Some(&bytes_out), "{ctx}: expected output");
            }
        }
        assert_eq!(saw_error, t["result"] == "invalid", "parts tc{id}: result {}", t["result"]);
    }
}

/// A vector's question (every one the vectors ask or pin is valid).
fn question(request: &Value) -> Question {
    Question::from_value(request.clone()).unwrap()
}

fn edit_token(token: &str, edit: &str) -> String {
    let (op, arg) = edit.split_once(':').unwrap();
    match op {
        "append" => format!("{token}{arg}"),
        "truncate" => token[..token.len() - arg.parse::<usize>().unwrap()].to_owned(),
        "flip" => {
            let i: usize = arg.parse().unwrap();
            let mut b = token.as_bytes().to_vec();
            b[i] = if b[i] == b'A' { b'B' } else { b'A' };
            String::from_utf8(b).unwrap()
        }
        "replace-prefix" => format!("{arg}{}", &token[token.find('.').unwrap()..]),
        // The key id (second part) replaced.
        "replace-kid" => {
            let mut parts: Vec<&str> = token.split('.').collect();
            parts[1] = arg;
            parts.join(".")
        }
        "keep" => token[..arg.parse::<usize>().unwrap()].to_owned(),
        _ => panic!("unknown edit {edit}"),
    }
}

fn run_tokens(doc: &mut Value) {
    let file_config = doc["config"].clone();
    let tests = doc["tests"].as_array_mut().unwrap();
    let mut sealed: Vec<(Value, Option<String>)> = Vec::new();
    for t in tests.iter_mut() {
        let id = t["tcId"].clone();
        let ctx = format!("tokens tc{id}");
        let cfg = t.get("config").cloned().unwrap_or_else(|| file_config.clone());
        let e = engine(&cfg, t["now"].as_u64().unwrap());
        let who = principal(t.get("principal"));
        let params = snodo::internal::json::parse(t["params"].as_str().unwrap().as_bytes(), 1 << 20).unwrap();
        let binding = binding_digest(t["method"].as_str().unwrap(), &params).unwrap();
        let out = match t["op"].as_str().unwrap() {
            "seal" => {
                let questions: Vec<(String, Question)> = t["questions"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), question(v)))
                    .collect();
                let state = t.get("state").filter(|s| !s.is_null());
                let input = SealInput {
                    principal: &who,
                    binding: &binding,
                    round: t["round"].as_u64().unwrap() as u32,
                    flow_start: t["flowStart"].as_u64().unwrap(),
                    questions: &questions,
                    state,
                };
                match e.seal(&input) {
                    Ok(tok) => json!({"token": tok}),
                    Err(err) => json!({"error": err.code().name()}),
                }
            }
            "open" => {
                let from = &t["tokenFrom"];
                // A literal token (sealed by an earlier release) has no source.
                let src = match from.is_null() {
                    true => t["token"].as_str().unwrap().to_owned(),
                    false => sealed
                        .iter()
                        .find(|(i, _)| *i == from["tcId"])
                        .and_then(|(_, tok)| tok.clone())
                        .unwrap(),
                };
                let tok = match from.get("edit").and_then(Value::as_str) {
                    Some(edit) => edit_token(&src, edit),
                    None => src,
                };
                if regen() {
                    t["token"] = json!(tok);
                } else {
                    assert_eq!(t["token"], json!(tok), "{ctx}: token");
                }
                match e.open(&tok, &who, &binding) {
                    Ok(o) => json!({
                        "round": o.round, "flowStart": o.flow_start, "issuedAt": o.issued_at,
                        "expiresAt": o.expires_at, "questionKeys": o.question_keys(),
                        "state": o.state(), "tokenId": o.token_id(), "flowId": o.flow_id(),
                    }),
                    Err(err) => json!({"reason": err.reason.name()}),
                }
            }
            op => panic!("{ctx}: unknown op {op}"),
        };
        if let Some(Value::Object(check)) = t.get("check") {
            for (k, v) in check {
                assert_eq!(out.get(k), Some(v), "{ctx}: check {k}");
            }
        }
        assert_eq!(
            out.get("error").is_some() || out.get("reason").is_some(),
            t["result"] == "invalid",
            "{ctx}: result"
        );
        sealed.push((id, out["token"].as_str().map(str::to_owned)));
        if regen()
            || t.get("expected").is_some_and(|x| x.get("error").is_some()) && t.get("expected") == Some(&out)
        {
            t["expected"] = out;
        } else {
            assert_eq!(t.get("expected"), Some(&out), "{ctx}: expected output");
        }
    }
}

#[allow(deprecated)]
fn run_builders(doc: &mut Value) {
    for t in doc["tests"].as_array_mut().unwrap().iter_mut() {
        let ctx = format!("builders tc{}", t["tcId"]);
        let str_of = |k: &str| t[k].as_str().unwrap_or_default().to_owned();
        let res = match t["op"].as_str().unwrap() {
            "elicit_form" => {
                snodo::elicit_form(&str_of("message"), &t["schema"]).map(|r| json!({"request": r}))
            }
            "elicit_url" => {
                snodo::elicit_url(&str_of("message"), &str_of("url")).map(|r| json!({"request": r}))
            }
            "sampling" => snodo::sampling(&t["params"]).map(|r| json!({"request": r})),
            "list_roots" => Ok(json!({"request": snodo::list_roots()})),
            "missing_capabilities" => {
                snodo::missing_capabilities(&t["requests"], &t["capabilities"]).map(|m| json!({"missing": m}))
            }
            "filter_supported" => snodo::filter_supported(&t["requests"], &t["capabilities"])
                .map(|kept| json!({"keys": kept.as_object().map(|m| m.keys().collect::<Vec<_>>())})),
            // The opt-outs of the elicitation safety heuristics.
            "elicit_form_without_lint" => snodo::elicit_form_without_lint(&str_of("message"), &t["schema"])
                .map(|r| json!({"request": r})),
            "elicit_url_without_lint" => snodo::elicit_url_without_lint(&str_of("message"), &str_of("url"))
                .map(|r| json!({"request": r})),
            // The tasks/get input-request helper.
            "task_input_requests" => {
                Ok(match snodo::check_task_input_requests(&t["task"], &t["capabilities"]) {
                    Ok(()) => json!({"missing": {}}),
                    Err(snodo::TaskInputCheck::MissingCapabilities(m)) => json!({"missing": m}),
                    Err(snodo::TaskInputCheck::Invalid(_)) => json!({"error": "INVALID_TASK"}),
                })
            }
            op => panic!("{ctx}: unknown op {op}"),
        };
        let out = match res {
            Ok(v) => v,
            Err(e) => json!({"error": e.code().name()}),
        };
        assert_eq!(out.get("error").is_some(), t["result"] == "invalid", "{ctx}: result {out}");
        if regen() && t.get("expected").is_none_or(|e| e.get("error").is_none()) {
            t["expected"] = out;
        } else {
            assert_eq!(t.get("expected"), Some(&out), "{ctx}: expected output");
        }
    }
}

fn run_canonical(doc: &mut Value) {
    for t in doc["tests"].as_array_mut().unwrap().iter_mut() {
        let ctx = format!("canonical tc{}", t["tcId"]);
        let out = match t["op"].as_str().unwrap() {
            "canonical" => match snodo::canonicalize(t["input"].as_str().unwrap()) {
                Ok(c) => json!({"canonical": c}),
                Err(e) => json!({"error": e.code().name()}),
            },
            "binding" => {
                let params =
                    snodo::internal::json::parse(t["params"].as_str().unwrap().as_bytes(), 1 << 20).unwrap();
                json!({"digestHex": to_hex(&binding_digest(t["method"].as_str().unwrap(), &params).unwrap())})
            }
            op => panic!("{ctx}: unknown op {op}"),
        };
        assert_eq!(out.get("error").is_some(), t["result"] == "invalid", "{ctx}: result");
        if regen() && t.get("expected").is_none_or(|e| e.get("error").is_none()) {
            t["expected"] = out;
        } else {
            assert_eq!(t.get("expected"), Some(&out), "{ctx}: expected output");
        }
    }
}

fn run(name: &str, f: fn(&mut Value)) {
    let path = vectors_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["schema"], "snodo-vectors-v1");
    f(&mut doc);
    if regen() {
        let mut out = serde_json::to_string_pretty(&doc).unwrap();
        out.push('\n');
        std::fs::write(&path, out).unwrap();
    }
}

#[test]
fn parts() {
    run("parts.json", run_parts);
}

#[test]
fn flows() {
    run("flows.json", run_flows);
}

// Wire correctness: flows and builders in their own files so they
// merge without renumbering the older vectors.
#[test]
fn wire() {
    run("wire.json", run_flows);
}

#[test]
fn wire_builders() {
    run("wire-builders.json", run_builders);
}

// The request-metadata header rules: `expected` is the -32020
// response or null when the request may go on to begin.
fn run_headers(doc: &mut Value) {
    for t in doc["tests"].as_array_mut().unwrap().iter_mut() {
        let ctx = format!("headers tc{}", t["tcId"]);
        let pairs: Vec<(String, String)> = t["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_str().unwrap().to_owned(), p[1].as_str().unwrap().to_owned()))
            .collect();
        let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let out = match snodo::check_http_headers_text(&borrowed, t["request"].as_str().unwrap()) {
            None => Value::Null,
            Some(r) => json!({"httpStatus": r.http_status(), "body": r.body()}),
        };
        assert_eq!(out.is_null(), t["result"] == "valid", "{ctx}: result {out}");
        assert_checks(&ctx, t.get("check"), &out);
        if let Some(prefix) = t.get("messageStartsWith").and_then(Value::as_str) {
            let msg = out["body"]["error"]["message"].as_str().unwrap_or_default();
            assert!(msg.starts_with(prefix), "{ctx}: message {msg:?}, want {prefix:?}");
        }
        if regen() {
            t["expected"] = out;
        } else {
            assert_eq!(t.get("expected"), Some(&out), "{ctx}: expected output");
        }
    }
}

#[test]
fn headers() {
    run("headers.json", run_headers);
}

fn run_origin(doc: &mut Value) {
    for t in doc["tests"].as_array_mut().unwrap().iter_mut() {
        let ctx = format!("origin tc{}", t["tcId"]);
        let policy = match &t["policy"] {
            Value::Null => snodo::OriginPolicy::loopback(),
            p => {
                let list = |k: &str| -> Vec<String> { serde_json::from_value(p[k].clone()).unwrap() };
                let (hosts, origins) = (list("hosts"), list("origins"));
                let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
                let origins: Vec<&str> = origins.iter().map(String::as_str).collect();
                snodo::OriginPolicy::new(&hosts, &origins).unwrap()
            }
        };
        let pairs: Vec<(String, String)> = t["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_str().unwrap().to_owned(), p[1].as_str().unwrap().to_owned()))
            .collect();
        let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let out = match snodo::check_http_origin(&policy, &borrowed) {
            None => Value::Null,
            Some(r) => json!({"httpStatus": r.http_status(), "body": r.body()}),
        };
        assert_eq!(out.is_null(), t["result"] == "valid", "{ctx}: result {out}");
        assert_checks(&ctx, t.get("check"), &out);
        if regen() {
            t["expected"] = out;
        } else {
            assert_eq!(t.get("expected"), Some(&out), "{ctx}: expected output");
        }
    }
}

#[test]
fn origin() {
    run("origin.json", run_origin);
}

#[test]
fn tokens() {
    run("tokens.json", run_tokens);
}

#[test]
fn builders() {
    run("builders.json", run_builders);
}

#[test]
fn canonical() {
    run("canonical.json", run_canonical);
}

/// One error as the consistency vectors spell it: code name and message.
fn err_json(e: &snodo::Error) -> Value {
    json!({"error": e.code().name(), "message": e.message()})
}

fn consistency_case(t: &Value, file_config: &Value) -> Value {
    let input = &t["input"];
    let now = t["now"].as_u64().unwrap();
    let e = engine(file_config, now);
    let principal_of = |v: &Value| Principal::from_option(v.as_str());
    match t["op"].as_str().unwrap() {
        "decide_twice" => {
            let who = principal_of(&input["principal"]).unwrap();
            let Begin::Call(call) = e.begin(input["request"].as_str().unwrap().as_bytes(), &who).unwrap()
            else {
                panic!("begin refused the request")
            };
            let first = e.decide(&call, Outcome::from_value(input["outcome"].clone()).unwrap());
            assert!(first.is_ok(), "first decide");
            let again = Outcome::from_value(input["outcome"].clone()).unwrap();
            match e.decide(&call, again) {
                Ok(r) => json!({"second": r.body()}),
                Err(err) => err_json(&err),
            }
        }
        "principal" => {
            // Omission cannot be expressed in Rust (the argument is typed and
            // required); the vector says every language refuses it.
            let Some(p) = input.get("principal") else { return json!({"error": "OMITTED"}) };
            match principal_of(p) {
                Ok(who) => match e.begin(input["request"].as_str().unwrap().as_bytes(), &who).unwrap() {
                    Begin::Call(call) => json!({"principal": call.principal().name()}),
                    Begin::Respond(r) => json!({"response": r.body()}),
                },
                Err(err) => err_json(&err),
            }
        }
        "missing_capabilities" => {
            match snodo::missing_capabilities(&input["requests"], &input["capabilities"]) {
                Ok(v) => json!({"result": v}),
                Err(err) => err_json(&err),
            }
        }
        "filter_supported" => match snodo::filter_supported(&input["requests"], &input["capabilities"]) {
            Ok(v) => json!({"result": v}),
            Err(err) => err_json(&err),
        },
        "binding_digest" => {
            let method = input["method"].as_str().unwrap();
            match snodo::binding_digest_text(method, input["params"].as_str().unwrap()) {
                Ok(d) => json!({"digestHex": to_hex(&d)}),
                Err(err) => err_json(&err),
            }
        }
        "canonicalize" => {
            let bytes = if let Some(h) = input.get("hex") {
                hex(h.as_str().unwrap())
            } else {
                let pad = input.get("padSpaces").and_then(Value::as_u64).unwrap_or(0) as usize;
                let mut b = vec![b' '; pad];
                b.extend_from_slice(input["text"].as_str().unwrap().as_bytes());
                b
            };
            match snodo::canonicalize(&bytes) {
                Ok(c) => json!({"canonical": c}),
                Err(err) => err_json(&err),
            }
        }
        "opened" => {
            let who = principal_of(&input["principal"]).unwrap();
            let binding = snodo::binding_digest_text(
                input["method"].as_str().unwrap(),
                input["params"].as_str().unwrap(),
            )
            .unwrap();
            let questions: Vec<(String, Question)> = input
                .get("questions")
                .and_then(Value::as_object)
                .map(|m| m.iter().map(|(k, v)| (k.clone(), question(v))).collect())
                .unwrap_or_default();
            // Only the fields the vector gives; the rest are the core's defaults.
            let mut seal = e.seal_input(&who, &binding);
            if let Some(r) = input.get("round").and_then(Value::as_u64) {
                seal.round = r as u32;
            }
            if let Some(f) = input.get("flowStart").and_then(Value::as_u64) {
                seal.flow_start = f;
            }
            seal.questions = &questions;
            seal.state = input.get("state").filter(|s| !s.is_null());
            let token = e.seal(&seal).unwrap();
            let open_as = match input.get("openAs") {
                Some(p) => principal_of(p).unwrap(),
                None => who.clone(),
            };
            match e.open(&token, &open_as, &binding) {
                Ok(o) => json!({"opened": o.to_json()}),
                Err(err) => {
                    let as_error = snodo::Error::from(err);
                    json!({"error": as_error.code().name(), "reason": err.reason.name(), "message": as_error.message()})
                }
            }
        }
        "config" => {
            let mut c = Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]);
            c.spelling = match input["spelling"].as_str().unwrap() {
                "camel" => snodo::Spelling::Camel,
                _ => snodo::Spelling::Snake,
            };
            let name = input["name"].as_str().unwrap();
            match c.set_limit(name, input["value"].as_u64().unwrap()).and_then(|()| Engine::new(c)) {
                Ok(_) => json!({"ok": true}),
                Err(err) => err_json(&err),
            }
        }
        op => panic!("unknown op {op}"),
    }
}

fn run_consistency(doc: &mut Value) {
    let file_config = doc["config"].clone();
    for t in doc["tests"].as_array_mut().unwrap().iter_mut() {
        let ctx = format!("consistency tc{} ({})", t["tcId"], t["comment"]);
        let out = consistency_case(t, &file_config);
        assert_eq!(out.get("error").is_some(), t["result"] == "invalid", "{ctx}: result {out}");
        // Hand-written expectations are never overwritten; missing ones
        // (exact messages of the JSON reader, digests) are filled by regen.
        if regen() && t.get("expected").is_none() {
            t["expected"] = out;
        } else {
            assert_eq!(t.get("expected"), Some(&out), "{ctx}: expected output");
        }
    }
}

#[test]
fn consistency() {
    run("consistency.json", run_consistency);
}

#[test]
fn every_vector_file_is_run() {
    let mut names: Vec<String> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "builders.json",
            "canonical.json",
            "consistency.json",
            "flows.json",
            "headers.json",
            "legacy.json",
            "origin.json",
            "parts.json",
            "tokens.json",
            "wire-builders.json",
            "wire.json"
        ]
    );
    let _ = Map::<String, Value>::new();
}

// The legacy bridge (legacy.json, format in README.md).
fn legacy_call_json(c: &Call) -> Value {
    json!({"id": c.id(), "method": c.method(), "round": c.round(), "protocolVersion": c.protocol_version(),
        "capabilities": c.client_capabilities(), "mrtrAllowed": c.mrtr_allowed(), "legacy": c.is_legacy(),
        "state": c.state().cloned().unwrap_or(Value::Null), "askedKeys": c.asked_keys()})
}

fn legacy_pending_json(p: &PendingFlow) -> Value {
    let eids: Map<String, Value> =
        p.elicitation_ids().into_iter().map(|(k, v)| (k.to_owned(), json!(v))).collect();
    json!({"send": p.requests(), "deadline": p.deadline(), "round": p.round(), "elicitationIds": eids})
}

fn run_legacy(doc: &mut Value) {
    let file_config = doc["config"].clone();
    for t in doc["tests"].as_array_mut().unwrap() {
        let id = t["tcId"].clone();
        let cfg = t.get("config").cloned().unwrap_or_else(|| file_config.clone());
        let now = t["now"].as_u64().unwrap();
        let who = principal(t.get("principal"));
        let s = &t["session"];
        // The session's opener: its own `principal`, else the test's.
        let opener = if s.get("principal").is_some() { principal(s.get("principal")) } else { who.clone() };
        let session = Session::new(
            s["protocolVersion"].as_str().unwrap(),
            s["capabilities"].clone(),
            s.get("clientInfo").cloned().filter(|v| !v.is_null()),
            &opener,
        )
        .unwrap()
        .with_id(s["id"].as_str().unwrap())
        .unwrap();
        let e = engine(&cfg, now);
        let mut saw_error = false;
        let mut call: Option<Box<Call>> = None;
        let mut pending: Option<Box<PendingFlow>> = None;
        let begin = match e.begin_legacy(t["request"].as_str().unwrap().as_bytes(), &session, &who).unwrap() {
            Begin::Call(c) => {
                let out = json!({"call": legacy_call_json(&c)});
                call = Some(c);
                out
            }
            Begin::Respond(r) => {
                saw_error = true;
                json!({"respond": {"httpStatus": r.http_status(), "body": r.body()}})
            }
        };
        if regen() {
            t["begin"] = begin;
        } else {
            assert_eq!(t.get("begin"), Some(&begin), "legacy tc{id}: begin");
        }
        for (si, st) in t["steps"].as_array_mut().unwrap().iter_mut().enumerate() {
            let ctx = format!("legacy tc{id} step{}", si + 1);
            let e = engine(&cfg, st.get("now").and_then(Value::as_u64).unwrap_or(now));
            let respond = |r: &snodo::Response| json!({"httpStatus": r.http_status(), "body": r.body()});
            let feed_json = |f: Feed, call: &mut Option<Box<Call>>| match f {
                Feed::Waiting => json!({"waiting": true}),
                Feed::Resume(c) => {
                    let out = json!({"resume": legacy_call_json(&c)});
                    *call = Some(c);
                    out
                }
                Feed::Respond { response, cancellations } => {
                    json!({"respond": respond(&response), "cancellations": cancellations})
                }
            };
            let out = match st["op"].as_str().unwrap() {
                "decide" => {
                    let c = call.take().expect("a call to decide");
                    for a in st.get("answers").and_then(Value::as_array).cloned().unwrap_or_default() {
                        let got =
                            answer_json(&c.response(a["key"].as_str().unwrap(), &question(&a["request"])));
                        if a["expected"]["kind"] == "invalid" {
                            assert_eq!(got["kind"], "invalid", "{ctx}: answer");
                        } else {
                            assert_eq!(got, a["expected"], "{ctx}: answer");
                        }
                    }
                    match e.decide_legacy(&c, Outcome::from_value(st["outcome"].clone()).unwrap()).unwrap() {
                        Bridge::Respond(r) => json!({"respond": respond(&r)}),
                        Bridge::Send(p) => {
                            let out = legacy_pending_json(&p);
                            pending = Some(p);
                            out
                        }
                        Bridge::Resume(c) => {
                            let out = json!({"resume": legacy_call_json(&c)});
                            call = Some(c);
                            out
                        }
                    }
                }
                "feed" => {
                    let p = pending.as_mut().expect("a pending flow");
                    let mut text = st["response"].as_str().unwrap().to_owned();
                    for (i, leg) in p.request_ids().iter().enumerate() {
                        text = text.replace(&format!("{{{{leg:{}}}}}", i + 1), leg);
                    }
                    // The answering principal: the step's own, else the test's.
                    let by = if st.get("principal").is_some() {
                        principal(st.get("principal"))
                    } else {
                        who.clone()
                    };
                    match e.feed(p, text.as_bytes(), &by) {
                        Ok(f) => feed_json(f, &mut call),
                        Err(err) => json!({"error": err.code().name(), "message": err.message()}),
                    }
                }
                "timeout" => match e.timeout(pending.as_mut().expect("a pending flow")) {
                    Ok(f) => feed_json(f, &mut call),
                    Err(err) => json!({"error": err.code().name(), "message": err.message()}),
                },
                "cancel" => {
                    let reason = st.get("reason").and_then(Value::as_str);
                    json!({"cancellations": pending.as_mut().expect("a pending flow").cancel(reason)})
                }
                other => panic!("{ctx}: unknown op {other}"),
            };
            if out.get("error").is_some() || out["respond"]["body"].get("error").is_some() {
                saw_error = true;
            }
            if regen() {
                st["expected"] = out;
            } else {
                assert_eq!(st.get("expected"), Some(&out), "{ctx}: expected output");
            }
        }
        assert_eq!(saw_error, t["result"] == "invalid", "legacy tc{id}: result {}", t["result"]);
    }
}

#[test]
fn legacy() {
    run("legacy.json", run_legacy);
}
