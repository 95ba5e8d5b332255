//! Tests of the elicitation builders, request validation and answer reading.
#![allow(clippy::unwrap_used, deprecated)]

use serde_json::{Value, json};

use super::*;
use crate::answer::Answer;
use crate::error::ErrorCode;
use crate::schema;

// The builders' questions as their trees, for comparing with `json!`.
fn elicit_form(message: &str, schema: &Value) -> crate::Result<Value> {
    super::elicit_form(message, schema).map(Value::from)
}
fn elicit_url(message: &str, url: &str) -> crate::Result<Value> {
    super::elicit_url(message, url).map(Value::from)
}
fn sampling(params: &Value) -> crate::Result<Value> {
    super::sampling(params).map(Value::from)
}
fn list_roots() -> Value {
    super::list_roots().into()
}

fn code(r: crate::Result<impl std::fmt::Debug>) -> ErrorCode {
    r.unwrap_err().code()
}

fn name_schema() -> Value {
    json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]})
}

fn form(schema: Value) -> Value {
    json!({"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":schema}})
}

fn text(role: &str) -> Value {
    json!({"role": role, "content": {"type":"text","text":"hi"}})
}

fn sampling_with(messages: Value) -> Value {
    json!({"messages": messages, "maxTokens": 100})
}

/// EX/CreateMessageRequestParams/follow-up-with-tool-results.json, abridged.
fn tool_exchange(results: &[&str]) -> Value {
    let results: Vec<Value> = results
        .iter()
        .map(|id| json!({"type":"tool_result","toolUseId":id,"content":[{"type":"text","text":"18C"}]}))
        .collect();
    sampling_with(json!([
        text("user"),
        {"role":"assistant","content":[
            {"type":"tool_use","id":"call_abc123","name":"get_weather","input":{"city":"Paris"}},
            {"type":"tool_use","id":"call_def456","name":"get_weather","input":{"city":"London"}}]},
        {"role":"user","content":results},
    ]))
}

#[test]
fn form_builder() {
    // Vector 88: mode is always emitted; its absence is still form on input.
    let r = elicit_form("Please provide your GitHub username", &name_schema()).unwrap();
    assert_eq!(
        r,
        json!({"method":"elicitation/create","params":{"mode":"form",
        "message":"Please provide your GitHub username","requestedSchema":name_schema()}})
    );
    assert_eq!(validate_input_request(&r), Ok(RequestKind::Form));
    let mut no_mode = r.clone();
    no_mode["params"].as_object_mut().unwrap().remove("mode");
    assert_eq!(validate_input_request(&no_mode), Ok(RequestKind::Form));
    assert_eq!(code(elicit_form("", &name_schema())), ErrorCode::InputRequest);
    assert_eq!(code(elicit_form(" \n", &name_schema())), ErrorCode::InputRequest);
    assert_eq!(code(elicit_form("m", &json!({"type":"object"}))), ErrorCode::Schema);
}

#[test]
fn url_builder() {
    let r = elicit_url("Please provide your API key", "https://mcp.example.com/ui/set_api_key").unwrap();
    assert_eq!(
        r,
        json!({"method":"elicitation/create","params":{"mode":"url",
        "message":"Please provide your API key","url":"https://mcp.example.com/ui/set_api_key"}})
    );
    assert!(r["params"].get("elicitationId").is_none());
    assert_eq!(validate_input_request(&r), Ok(RequestKind::Url));
    assert_eq!(code(elicit_url("", "https://a.b")), ErrorCode::InputRequest);
    assert_eq!(code(elicit_url("m", "not a url")), ErrorCode::Url);
}

#[test]
fn urls() {
    // Vector 89 (http is allowed: HTTPS is only a SHOULD outside development).
    for ok in [
        "https://mcp.example.com/ui/set_api_key",
        "http://mcp.example.com/x",
        "HTTPS://EXAMPLE.COM",
        "https://a.b:8443/p?q=1&r=%20#frag",
        "https://[::1]:65535/",
        "https://127.0.0.1:1",
        "https://b\u{fc}cher.example/caf\u{e9}",
        "https://example.com./",
        "https://a_b.example/~u/(x)",
    ] {
        assert_eq!(validate_url(ok), Ok(()), "{ok}");
    }
    let long = format!("https://a.b/{}", "x".repeat(MAX_URL_BYTES));
    for bad in [
        "",
        "not a url",
        "https://user:pass@mcp.example.com/",
        "https://user@mcp.example.com/",
        "javascript:alert(1)",
        "data:text/html,x",
        "file:///etc/passwd",
        "ftp://a.b/",
        "https://",
        "https:///path",
        "https://:443/",
        "https:example.com",
        "//example.com",
        "https://exa mple.com",
        "https://a.b/c d",
        "https://a.b/\t",
        "https://a.b/\u{0}",
        "https://a.b/\u{85}",
        "https://a.b\\@evil.example",
        "https://a.b:0/",
        "https://a.b:65536/",
        "https://a.b:/",
        "https://a.b:8x/",
        "https://a.b:1:2/",
        "https://[::1/",
        "https://[zz]/",
        "https://[::1]x/",
        "https://a..b/",
        "https://.a.b/",
        "https://a.b/%zz",
        "https://a.b/#x#y",
        "https://a.b/<script>",
        "https://a%2eb/",
        "https://a.b\u{3000}/",
        &long,
    ] {
        assert_eq!(code(validate_url(bad)), ErrorCode::Url, "{bad:?}");
    }
    assert!(validate_url("https://u:p@x.y").unwrap_err().message().contains("userinfo"));
}

#[test]
fn keys() {
    for ok in ["user_name", "a", "ключ", &"k".repeat(64), "a b"] {
        assert_eq!(validate_key(ok), Ok(()), "{ok:?}");
    }
    for bad in ["", " ", "\t\n", "a\u{0}", "a\u{7f}", "a\u{9f}", &"k".repeat(65), &"é".repeat(33)] {
        assert_eq!(code(validate_key(bad)), ErrorCode::InputRequest, "{bad:?}");
    }
}

#[test]
fn input_request_envelope() {
    let ir = |v: Value| validate_input_request(&v);
    assert_eq!(code(ir(json!([]))), ErrorCode::InputRequest);
    assert_eq!(code(ir(json!({"params":{}}))), ErrorCode::InputRequest);
    assert_eq!(code(ir(json!({"method":5}))), ErrorCode::InputRequest);
    assert_eq!(code(ir(json!({"method":"tools/call","params":{}}))), ErrorCode::InputRequest);
    // §0.11: input requests carry no id or jsonrpc.
    assert_eq!(code(ir(json!({"method":"roots/list","id":"list-roots-example"}))), ErrorCode::InputRequest);
    assert_eq!(code(ir(json!({"jsonrpc":"2.0","method":"roots/list"}))), ErrorCode::InputRequest);
    assert_eq!(ir(json!({"method":"roots/list"})), Ok(RequestKind::Roots));
    assert_eq!(ir(list_roots()), Ok(RequestKind::Roots));
    assert_eq!(ir(json!({"method":"roots/list","params":{"_meta":{}}})), Ok(RequestKind::Roots));
    assert_eq!(code(ir(json!({"method":"roots/list","params":{"x":1}}))), ErrorCode::InputRequest);
    assert_eq!(code(ir(json!({"method":"roots/list","params":{"_meta":1}}))), ErrorCode::InputRequest);
    assert_eq!(code(ir(json!({"method":"roots/list","params":[]}))), ErrorCode::InputRequest);
    // Elicitation envelope.
    let el = |params: Value| ir(json!({"method":"elicitation/create","params":params}));
    let schema = name_schema();
    assert_eq!(el(json!({"message":"m","requestedSchema":schema})), Ok(RequestKind::Form));
    assert_eq!(el(json!({"message":"m","requestedSchema":schema,"_meta":{"k":1}})), Ok(RequestKind::Form));
    assert_eq!(code(ir(json!({"method":"elicitation/create"}))), ErrorCode::InputRequest);
    assert_eq!(code(el(json!({"requestedSchema":schema}))), ErrorCode::InputRequest);
    assert_eq!(code(el(json!({"message":"","requestedSchema":schema}))), ErrorCode::InputRequest);
    assert_eq!(code(el(json!({"message":7,"requestedSchema":schema}))), ErrorCode::InputRequest);
    assert_eq!(code(el(json!({"message":"m"}))), ErrorCode::InputRequest);
    assert_eq!(
        code(el(json!({"message":"m","requestedSchema":schema,"url":"https://a.b"}))),
        ErrorCode::InputRequest
    );
    assert_eq!(code(el(json!({"message":"m","requestedSchema":schema,"_meta":[]}))), ErrorCode::InputRequest);
    assert_eq!(
        code(el(json!({"mode":"Form","message":"m","requestedSchema":schema}))),
        ErrorCode::InputRequest
    );
    assert_eq!(
        code(el(json!({"mode":null,"message":"m","requestedSchema":schema}))),
        ErrorCode::InputRequest
    );
    assert_eq!(
        code(el(
            json!({"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}})
        )),
        ErrorCode::Schema
    );
    assert_eq!(el(json!({"mode":"url","message":"m","url":"https://a.b"})), Ok(RequestKind::Url));
    assert_eq!(
        code(el(json!({"mode":"url","message":"m","url":"https://a.b","elicitationId":"x"}))),
        ErrorCode::InputRequest
    );
    assert_eq!(
        code(el(json!({"mode":"url","message":"m","url":"https://a.b","requestedSchema":schema}))),
        ErrorCode::InputRequest
    );
    assert_eq!(code(el(json!({"mode":"url","message":"m"}))), ErrorCode::InputRequest);
    assert_eq!(code(el(json!({"mode":"url","message":"m","url":"javascript:alert(1)"}))), ErrorCode::Url);
    // Sampling envelope.
    assert_eq!(code(ir(json!({"method":"sampling/createMessage"}))), ErrorCode::InputRequest);
    assert_eq!(code(ir(json!({"method":"sampling/createMessage","params":[]}))), ErrorCode::Sampling);
    assert_eq!(ir(sampling(&sampling_with(json!([text("user")]))).unwrap()), Ok(RequestKind::Sampling));
}

#[test]
fn sampling_requests() {
    // EX/CreateMessageRequest/sampling-request.json.
    let example = json!({
        "messages": [{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],
        "modelPreferences": {"hints":[{"name":"claude-3-sonnet"}],"intelligencePriority":0.8,"speedPriority":0.5},
        "systemPrompt": "You are a helpful assistant.",
        "maxTokens": 100
    });
    assert_eq!(sampling(&example).unwrap(), json!({"method":"sampling/createMessage","params":example}));
    let full = json!({
        "messages": [text("user"), text("assistant"),
            {"role":"user","content":[{"type":"image","data":"AA==","mimeType":"image/png"},
                                      {"type":"audio","data":"AA==","mimeType":"audio/wav"}],"_meta":{}}],
        "tools": [{"name":"get_weather","description":"d","inputSchema":{"type":"object"}}],
        "toolChoice": {"mode":"auto"}, "includeContext":"none", "temperature": 0.7, "stopSequences": ["\n"],
        "metadata": {"a":1}, "_meta": {}, "maxTokens": 1000.0
    });
    sampling(&full).unwrap();
    // Vectors 90-93, plus every parameter's type.
    let mut cases = vec![
        json!([]),
        json!({"maxTokens":100}),
        sampling_with(json!([])),
        sampling_with(json!({})),
        json!({"messages":[text("user")]}),
        json!({"messages":[text("user")],"maxTokens":"100"}),
        json!({"messages":[text("user")],"maxTokens":0}),
        json!({"messages":[text("user")],"maxTokens":1.5}),
        sampling_with(json!([text("system")])),
        sampling_with(json!([{"content":{"type":"text","text":"x"}}])),
        sampling_with(json!([{"role":"user"}])),
        sampling_with(json!([{"role":"user","content":"hi"}])),
        sampling_with(json!([{"role":"user","content":[{"type":"video"}]}])),
        sampling_with(json!([{"role":"user","content":[{"text":"x"}]}])),
        sampling_with(json!([{"role":"user","content":[{"type":"text"}]}])),
        sampling_with(json!([{"role":"user","content":[{"type":"image","data":"AA=="}]}])),
        sampling_with(json!([{"role":"user","content":[1]}])),
        sampling_with(json!([{"role":"user","content":{"type":"text","text":"x"},"name":"n"}])),
        sampling_with(
            json!([{"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","toolUseId":"a","content":[]}]}]),
        ),
        sampling_with(
            json!([{"role":"user","content":[{"type":"tool_use","id":"a","name":"n","input":{}}]}]),
        ),
        sampling_with(
            json!([{"role":"user","content":[{"type":"tool_result","toolUseId":"a","content":[]}]}]),
        ),
        sampling_with(json!([{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"n"}]}])),
        sampling_with(
            json!([{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"n","input":{}},
                                                           {"type":"tool_use","id":"a","name":"n","input":{}}]}]),
        ),
        sampling_with(
            json!([{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"n","input":{}}]}, text("assistant")]),
        ),
        tool_exchange(&["call_abc123"]),
        tool_exchange(&["call_abc123", "call_def456", "call_zzz"]),
        tool_exchange(&["call_abc123", "call_abc123", "call_def456"]),
    ];
    for (key, bad) in [
        ("systemPrompt", json!(1)),
        ("temperature", json!("0.5")),
        ("stopSequences", json!(["a", 1])),
        ("stopSequences", json!("a")),
        ("metadata", json!([])),
        ("_meta", json!("m")),
        ("modelPreferences", json!([])),
        ("modelPreferences", json!({"costPriority": 1.5})),
        ("modelPreferences", json!({"speedPriority": -0.1})),
        ("modelPreferences", json!({"intelligencePriority": "1"})),
        ("modelPreferences", json!({"hints": {"name": "x"}})),
        ("modelPreferences", json!({"hints": ["x"]})),
        ("modelPreferences", json!({"hints": [{"name": 1}]})),
        ("modelPreferences", json!({"other": 1})),
        ("tools", json!({})),
        ("tools", json!([1])),
        ("tools", json!([{"inputSchema":{}}])),
        ("tools", json!([{"name":"t"}])),
        ("tools", json!([{"name":"t","inputSchema":"x"}])),
        ("toolChoice", json!("auto")),
        ("toolChoice", json!({"mode":"sometimes"})),
        ("toolChoice", json!({"x":1})),
        ("includeContext", json!("everything")),
        ("includeContext", json!(null)),
        ("stream", json!(true)),
    ] {
        let mut p = sampling_with(json!([text("user")]));
        p[key] = bad;
        cases.push(p);
    }
    for bad in cases {
        assert_eq!(code(sampling(&bad)), ErrorCode::Sampling, "{bad}");
        let req = json!({"method":"sampling/createMessage","params":bad});
        assert_eq!(code(validate_input_request(&req)), ErrorCode::Sampling, "{req}");
    }
    // Vector 92: the follow-up example with every tool_use answered is fine;
    // a conversation that ends on the assistant's tool_use is not (
    // every tool_use needs its tool_result).
    sampling(&tool_exchange(&["call_def456", "call_abc123"])).unwrap();
    let pending = sampling_with(json!([text("user"),
        {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"n","input":{}}]}]));
    let why = sampling(&pending).unwrap_err();
    assert!(why.message().contains("tool_use \"a\" is not answered"), "{why}");
    for p in [0.0, 1.0, 0.5] {
        sampling(&json!({"messages":[text("user")],"maxTokens":1,"modelPreferences":{"costPriority":p,"hints":[{}]}})).unwrap();
    }
    let msg = sampling(&tool_exchange(&["call_abc123"])).unwrap_err();
    assert!(msg.message().contains("call_def456"), "{msg}");
}

#[test]
fn form_answers() {
    // Vectors 64-71 via read_answer.
    let req = form(json!({"type":"object","properties":{
        "name":{"type":"string"},"email":{"type":"string","format":"email"},"age":{"type":"number","minimum":18}},
        "required":["name","email"]}));
    let read = |a: Value| read_answer(&req, RequestKind::Form, &a);
    assert_eq!(
        read(json!({"action":"accept","content":{"name":"M","email":"o@g.com","age":30.5,"nickname":"x"}})),
        Answer::Accepted(json!({"name":"M","email":"o@g.com","age":30.5}))
    );
    assert_eq!(
        read(json!({"action":"accept","content":{"name":"M","email":"o@g.com","age":17}})),
        Answer::Invalid("age: below minimum 18".into())
    );
    assert!(
        matches!(read(json!({"action":"accept","content":{"name":"M"}})), Answer::Invalid(r) if r.starts_with("email:"))
    );
    assert!(matches!(read(json!({"action":"accept"})), Answer::Invalid(r) if r.starts_with("name:")));
    assert!(
        matches!(read(json!({"action":"accept","content":[]})), Answer::Invalid(r) if r.starts_with("content:"))
    );
    assert_eq!(read(json!({"action":"decline"})), Answer::Declined);
    assert_eq!(read(json!({"action":"cancel"})), Answer::Cancelled);
    assert_eq!(read(json!({"action":"decline","content":{"name":1}})), Answer::Declined);
    // Vector 62: extra top-level keys are ignored.
    assert_eq!(
        read(
            json!({"action":"accept","content":{"name":"M","email":"o@g.com"},"_meta":{},"resultType":"complete"})
        ),
        Answer::Accepted(json!({"name":"M","email":"o@g.com"}))
    );
    for bad in [
        json!({"content":{"name":"A"}}),
        json!({"action":"reject"}),
        json!({"action":1}),
        json!("accept"),
        json!(null),
    ] {
        assert!(matches!(read(bad.clone()), Answer::Invalid(_)), "{bad}");
    }
    // An optional-only form accepts an answer with no content.
    let optional = form(json!({"type":"object","properties":{"n":{"type":"string"}}}));
    assert_eq!(
        read_answer(&optional, RequestKind::Form, &json!({"action":"accept"})),
        Answer::Accepted(json!({}))
    );
}

#[test]
fn url_answers() {
    // Vector 80: accept is consent only; content is ignored.
    let req = elicit_url("m", "https://a.b/").unwrap();
    let read = |a: Value| read_answer(&req, RequestKind::Url, &a);
    assert_eq!(read(json!({"action":"accept"})), Answer::Accepted(Value::Null));
    assert_eq!(read(json!({"action":"accept","content":{"x":1}})), Answer::Accepted(Value::Null));
    assert_eq!(read(json!({"action":"decline"})), Answer::Declined);
    assert_eq!(read(json!({"action":"cancel"})), Answer::Cancelled);
    assert!(matches!(read(json!({"action":"done"})), Answer::Invalid(_)));
}

#[test]
fn sampling_answers() {
    // Vectors 59-60.
    let req = sampling(&sampling_with(json!([text("user")]))).unwrap();
    let read = |a: Value| read_answer(&req, RequestKind::Sampling, &a);
    let ok = json!({"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m","stopReason":"endTurn"});
    assert_eq!(read(ok.clone()), Answer::Accepted(ok));
    let tools = json!({"role":"assistant","model":"m","stopReason":"toolUse","content":[
        {"type":"tool_use","id":"call_abc123","name":"get_weather","input":{"city":"Paris"}}]});
    assert_eq!(read(tools.clone()), Answer::Accepted(tools));
    for bad in [
        json!({"action":"accept"}),
        json!({"role":"assistant","content":{"type":"text","text":"x"}}),
        json!({"role":"system","model":"m","content":{"type":"text","text":"x"}}),
        json!({"role":"assistant","model":1,"content":{"type":"text","text":"x"}}),
        json!({"role":"assistant","model":"m"}),
        json!({"role":"assistant","model":"m","content":"x"}),
        json!({"role":"assistant","model":"m","content":[{"text":"x"}]}),
        json!({"role":"assistant","model":"m","content":{"type":"text"},"stopReason":1}),
        json!([]),
    ] {
        assert!(matches!(read(bad.clone()), Answer::Invalid(_)), "{bad}");
    }
}

#[test]
fn roots_answers() {
    // Vector 61.
    let req = list_roots();
    let read = |a: Value| read_answer(&req, RequestKind::Roots, &a);
    let roots =
        json!([{"uri":"file:///home/user/repos/frontend","name":"Frontend Repository"},{"uri":"file:///b"}]);
    assert_eq!(read(json!({"roots":roots})), Answer::Accepted(roots));
    assert_eq!(read(json!({"roots":[]})), Answer::Accepted(json!([])));
    for bad in [
        json!({"roots":[{"uri":"https://x"}]}),
        json!({"roots":[{"name":"x"}]}),
        json!({"roots":[{"uri":"file:///a","name":1}]}),
        json!({"roots":{}}),
        json!({"roots":["file:///a"]}),
        json!({}),
        json!({"action":"accept"}),
    ] {
        assert!(matches!(read(bad.clone()), Answer::Invalid(_)), "{bad}");
    }
}

/// Tiny deterministic generator (xorshift64*), so the no-panic test needs
/// no extra dependency and fails reproducibly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items.get(self.below(items.len())).copied().unwrap_or("")
    }
}

const WORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "$schema",
    "title",
    "description",
    "default",
    "enum",
    "enumNames",
    "oneOf",
    "anyOf",
    "items",
    "const",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "format",
    "string",
    "number",
    "integer",
    "boolean",
    "array",
    "object",
    "email",
    "uri",
    "date",
    "date-time",
    "method",
    "params",
    "mode",
    "form",
    "url",
    "message",
    "requestedSchema",
    "elicitation/create",
    "sampling/createMessage",
    "roots/list",
    "messages",
    "role",
    "user",
    "assistant",
    "content",
    "text",
    "tool_use",
    "tool_result",
    "id",
    "toolUseId",
    "input",
    "name",
    "maxTokens",
    "action",
    "accept",
    "decline",
    "cancel",
    "model",
    "roots",
    "a",
    "",
    "https://a.b/c",
    "http://[::1]:0/",
    "file:///x",
    "2024-02-29",
    "1998-12-31T23:59:60Z",
    "o@g.com",
    "\u{1F600}",
    "e\u{301}",
    "\u{7}",
    "%",
    "@",
    "[",
    "https://u@h",
    "javascript:x",
    "modelPreferences",
    "hints",
    "_meta",
];
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "18",
    "30.0",
    "30.5",
    "1e2",
    "1e400",
    "-1e400",
    "1e-400",
    "12345678901234567890",
    "0.5",
    "65535",
    "65536",
    "2.5e-3",
];

fn gen_value(rng: &mut Rng, depth: usize) -> Value {
    let scalar_only = depth >= 4;
    match rng.below(if scalar_only { 5 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => Value::Number(rng.pick(NUMBERS).parse().unwrap()),
        3 | 4 => Value::String(rng.pick(WORDS).to_owned()),
        5 => Value::Array((0..rng.below(4)).map(|_| gen_value(rng, depth + 1)).collect()),
        _ => Value::Object(
            (0..rng.below(5)).map(|_| (rng.pick(WORDS).to_owned(), gen_value(rng, depth + 1))).collect(),
        ),
    }
}

/// Replaces one randomly chosen node of `v` with a random value.
fn mutate(rng: &mut Rng, v: &mut Value, depth: usize) {
    let children = match v {
        Value::Array(a) => a.len(),
        Value::Object(o) => o.len(),
        _ => 0,
    };
    if children == 0 || rng.below(10) == 0 {
        *v = gen_value(rng, depth);
        return;
    }
    let i = rng.below(children);
    let child = match v {
        Value::Array(a) => a.get_mut(i),
        Value::Object(o) => o.values_mut().nth(i),
        _ => None,
    };
    if let Some(c) = child {
        mutate(rng, c, depth + 1);
    }
}

#[test]
fn no_panic_on_arbitrary_input() {
    let seeds = [
        form(json!({"type":"object","properties":{
            "s":{"type":"string","minLength":1,"maxLength":5,"format":"date","default":"2024-02-29"},
            "n":{"type":"integer","minimum":1,"maximum":9,"default":3},
            "b":{"type":"boolean"},"e":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},
            "t":{"type":"string","oneOf":[{"const":"x","title":"X"}]},
            "m":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]},"minItems":0,"maxItems":1},
            "u":{"type":"array","items":{"type":"string","enum":["a"]}}},"required":["s","n"]})),
        elicit_url("m", "https://a.b:1/p?q#f").unwrap(),
        sampling(&tool_exchange(&["call_abc123", "call_def456"])).unwrap(),
        list_roots(),
    ];
    let answers = [
        json!({"action":"accept","content":{"s":"2024-02-29","n":3,"b":true,"e":"a","t":"x","m":["x"],"u":[]}}),
        json!({"role":"assistant","model":"m","content":[{"type":"text","text":"x"}]}),
        json!({"roots":[{"uri":"file:///a","name":"n"}]}),
    ];
    let kinds = [RequestKind::Form, RequestKind::Url, RequestKind::Sampling, RequestKind::Roots];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut accepted = 0;
    for round in 0..600 {
        let mut request = seeds.get(round % seeds.len()).cloned().unwrap();
        // Leave a third of the requests intact so read_answer sees valid ones.
        if round >= seeds.len() && rng.below(3) > 0 {
            mutate(&mut rng, &mut request, 0);
        }
        let mut answer = answers.get(rng.below(answers.len())).cloned().unwrap();
        if rng.below(3) > 0 {
            mutate(&mut rng, &mut answer, 0);
        }
        let schema =
            request.pointer("/params/requestedSchema").cloned().unwrap_or_else(|| gen_value(&mut rng, 0));
        let _ = schema::validate_form_schema(&schema);
        let _ = schema::validate_content(&schema, &answer);
        let _ = schema::validate_content(&schema, answer.get("content").unwrap_or(&Value::Null));
        if let Ok(kind) = validate_input_request(&request) {
            accepted += 1;
            let _ = read_answer(&request, kind, &answer);
        }
        for kind in kinds {
            let _ = read_answer(&request, kind, &answer);
        }
        let _ =
            validate_url(request.pointer("/params/url").and_then(Value::as_str).unwrap_or(rng.pick(WORDS)));
        let _ = validate_key(rng.pick(WORDS));
    }
    // The mutations must leave some requests valid, or the test only
    // exercises the first check of each function.
    assert!(accepted > 30, "only {accepted} valid requests");
}

/// A question is the request validated once: `from_value` refuses what
/// `validate_input_request` refuses, with its error, and what no token
/// could pin (past the depth bound); it carries the kind, the canonical
/// text and its SHA-256; equal requests make equal questions whatever
/// their members' order, and a changed number's spelling does not.
#[test]
fn questions_are_validated_values() {
    use sha2::Digest as _;
    for bad in [json!([]), json!({"method":"tools/call"}), form(json!({"type":"object"}))] {
        assert_eq!(Question::from_value(bad.clone()).unwrap_err(), validate_input_request(&bad).unwrap_err());
    }
    let mut deep = json!(1);
    for _ in 0..crate::json::MAX_DEPTH {
        deep = json!([deep]);
    }
    let q = json!({"method":"roots/list","params":{"_meta":{"d":deep}}});
    assert_eq!(validate_input_request(&q), Ok(RequestKind::Roots));
    assert_eq!(code(Question::from_value(q)), ErrorCode::Argument);

    let built = super::elicit_form(
        "Seat?",
        &json!({"type":"object","properties":{"n":{"type":"integer","default":1}}}),
    )
    .unwrap();
    let by_hand = Question::from_value(built.value().clone()).unwrap();
    assert_eq!(built, by_hand);
    assert_eq!((built.kind(), built.kind().name()), (RequestKind::Form, "form"));
    assert_eq!(built.to_json(), String::from_utf8(crate::json::canonical(built.value()).unwrap()).unwrap());
    assert_eq!(built.digest(), &<[u8; 32]>::from(sha2::Sha256::digest(built.to_json())));
    let one_point_oh: Value =
        crate::json::parse(built.to_json().replace("\"default\":1", "\"default\":1.0").as_bytes(), 1 << 20)
            .unwrap();
    let changed = Question::from_value(one_point_oh).unwrap();
    assert_ne!(built, changed);
    assert_ne!(built.digest(), changed.digest());
    assert_eq!(super::list_roots().kind(), RequestKind::Roots);
    assert_eq!(Question::from_json(built.to_json()).unwrap(), built);
    assert_eq!(
        code(Question::from_json(r#"{"method":"roots/list","method":"roots/list"}"#)),
        ErrorCode::Json
    );
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Question>();
}
