//! The Streamable HTTP request-metadata header rules of 2026-07-28
//! (`basic/transports/streamable-http`, "Request Metadata" and "Server
//! Validation"), in one place instead of in every server.
//!
//! For a JSON-RPC *request* (an object with a `method` and a string or
//! integer `id`), in this order:
//!
//! 1. `MCP-Protocol-Version` is required and must equal
//!    `_meta["io.modelcontextprotocol/protocolVersion"]`. When that body
//!    field is absent or not a string the comparison is skipped: `begin`
//!    answers `-32602` for it (the conformance suite expects that code).
//! 2. `Mcp-Method` is required and must equal `method`.
//! 3. On `tools/call` and `prompts/get` (`params.name`), `resources/read`
//!    (`params.uri`) and the Tasks extension's `tasks/get`, `tasks/update`
//!    and `tasks/cancel` (`params.taskId`, the extension's routing-header
//!    rule), when that body value is a string, `Mcp-Name` is
//!    required and must equal it after decoding the `=?base64?…?=` form
//!    (standard base64 with padding, of UTF-8; markers case-sensitive). When
//!    the body value is absent or not a string the header is not expected
//!    and, if sent, not compared (the handler refuses the request anyway).
//!
//! Header names are compared case-insensitively, values exactly, after
//! removing the optional whitespace HTTP allows around a field value. A
//! value with characters outside visible ASCII, space and tab, a standard
//! header sent twice (with values that differ or not: an intermediary
//! may have routed on either), or an undecodable base64 form is a mismatch.
//! Anything else (parse errors, notifications, responses, a bad id) is left
//! to `begin`, which answers it. A missing `MCP-Protocol-Version` is always a
//! mismatch: snodo does not implement the pre-2025-06-18 fallback the spec
//! allows (treating it as 2025-03-26).
//!
//! A mismatch is `-32020` with HTTP 400 and the message
//! `Header mismatch: <what>`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::response::Response;

/// The header that must equal `_meta`'s protocol version.
pub const HEADER_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// The header that must equal `method`.
pub const HEADER_METHOD: &str = "Mcp-Method";
/// The header that must equal `params.name` / `params.uri`.
pub const HEADER_NAME: &str = "Mcp-Name";

/// Checks the request-metadata headers of `request` (the parsed JSON-RPC
/// message). `headers` are the request's `(name, value)` pairs in any case.
/// Returns the ready `-32020` response (HTTP 400) on a mismatch, or `None`
/// when the request may go on to `begin`.
pub fn check_http_headers(headers: &[(&str, &str)], request: &Value) -> Option<Response> {
    let (id, what) = header_mismatch(headers, request)?;
    Some(Response::error(id, -32020, &format!("Header mismatch: {what}"), None, 400))
}

/// The same, on the request's JSON text, read by the strict reader; text
/// it refuses is left to `begin` (which answers it).
pub fn check_http_headers_text(headers: &[(&str, &str)], request: &str) -> Option<Response> {
    let value = crate::json::parse(request.as_bytes(), crate::json::MAX_ARGUMENT_BYTES).ok()?;
    check_http_headers(headers, &value)
}

/// The id to answer with and what is wrong, or `None`.
pub fn header_mismatch(headers: &[(&str, &str)], request: &Value) -> Option<(Value, String)> {
    let msg = request.as_object()?;
    let method = msg.get("method")?.as_str()?;
    let id = msg.get("id")?;
    let id_ok = match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
    };
    if !id_ok {
        return None;
    }
    let fail = |what: String| Some((id.clone(), what));
    let params = msg.get("params").and_then(Value::as_object);
    let version = match header(headers, HEADER_PROTOCOL_VERSION) {
        Err(why) => return fail(why),
        Ok(None) => return fail(format!("{HEADER_PROTOCOL_VERSION} header missing")),
        Ok(Some(v)) => v,
    };
    let meta_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str);
    if let Some(body) = meta_version
        && body != version
    {
        return fail(format!(
            "{HEADER_PROTOCOL_VERSION} header value {version:?} does not match _meta protocolVersion {body:?}"
        ));
    }
    match header(headers, HEADER_METHOD) {
        Err(why) => return fail(why),
        Ok(None) => return fail(format!("{HEADER_METHOD} header missing")),
        Ok(Some(m)) if m != method => {
            return fail(format!("{HEADER_METHOD} header value {m:?} does not match method {method:?}"));
        }
        Ok(Some(_)) => {}
    }
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    // Absent or not a string in the body: the header is not expected.
    let body = params.and_then(|p| p.get(field)).and_then(Value::as_str)?;
    let raw = match header(headers, HEADER_NAME) {
        Err(why) => return fail(why),
        Ok(None) => return fail(format!("{HEADER_NAME} header missing")),
        Ok(Some(n)) => n,
    };
    let name = match decode_sentinel(raw) {
        Ok(n) => n,
        Err(()) => return fail(format!("{HEADER_NAME} header is not valid =?base64?…?= UTF-8")),
    };
    if name != body {
        return fail(format!("{HEADER_NAME} header value {name:?} does not match params.{field} {body:?}"));
    }
    None
}

/// The one value of header `name`: `Ok(None)` when absent, `Err` when sent
/// twice or with characters HTTP does not allow in a field value.
fn header<'a>(headers: &[(&'a str, &'a str)], name: &str) -> Result<Option<&'a str>, String> {
    let mut found = None;
    for (n, v) in headers {
        if !n.eq_ignore_ascii_case(name) {
            continue;
        }
        if found.is_some() {
            return Err(format!("{name} header sent more than once"));
        }
        if !v.chars().all(|c| c == '\t' || (' '..='~').contains(&c)) {
            return Err(format!("{name} header contains invalid characters"));
        }
        found = Some(v.trim_matches([' ', '\t']));
    }
    Ok(found)
}

/// Decodes `=?base64?…?=` (standard alphabet, padded, UTF-8); any other
/// value is itself.
fn decode_sentinel(value: &str) -> Result<String, ()> {
    let Some(inner) = value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?=")) else {
        return Ok(value.to_owned());
    };
    let bytes = STANDARD.decode(inner).map_err(|_| ())?;
    String::from_utf8(bytes).map_err(|_| ())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(method: &str, params: Value) -> Value {
        let mut p = params;
        p["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        json!({"jsonrpc":"2.0","id":7,"method":method,"params":p})
    }
    fn what(h: &[(&str, &str)], r: &Value) -> Option<String> {
        header_mismatch(h, r).map(|(_, w)| w)
    }
    const OK: [(&str, &str); 3] =
        [("mcp-protocol-version", "2026-07-28"), ("MCP-METHOD", "tools/call"), ("Mcp-Name", "get_weather")];

    #[test]
    fn matching_headers_pass() {
        let r = call("tools/call", json!({"name":"get_weather"}));
        assert_eq!(what(&OK, &r), None);
        let padded = [("MCP-Protocol-Version", " 2026-07-28\t"), OK[1], OK[2]];
        assert_eq!(what(&padded, &r), None);
    }

    #[test]
    fn each_rule() {
        let r = call("tools/call", json!({"name":"get_weather"}));
        assert!(what(&OK[1..], &r).unwrap().starts_with("MCP-Protocol-Version header missing"));
        let v = [("MCP-Protocol-Version", "2025-11-25"), OK[1], OK[2]];
        assert!(what(&v, &r).unwrap().contains("does not match _meta"));
        assert!(what(&[OK[0], OK[2]], &r).unwrap().starts_with("Mcp-Method header missing"));
        let m = [OK[0], ("Mcp-Method", "Tools/Call"), OK[2]];
        assert!(what(&m, &r).unwrap().contains("does not match method"));
        assert!(what(&OK[..2], &r).unwrap().starts_with("Mcp-Name header missing"));
        let n = [OK[0], OK[1], ("Mcp-Name", "other")];
        assert!(what(&n, &r).unwrap().contains("does not match params.name"));
        let twice = [OK[0], OK[1], OK[2], ("mcp-name", "get_weather")];
        assert!(what(&twice, &r).unwrap().contains("more than once"));
        let bad = [OK[0], OK[1], ("Mcp-Name", "get_wéather")];
        assert!(what(&bad, &r).unwrap().contains("invalid characters"));
    }

    /// The text is read by the strict reader: a request `begin` refuses
    /// (here a repeated `method`, whose last value a lax reader would
    /// take) is left to `begin` rather than checked as another request.
    #[test]
    fn text_is_read_strictly() {
        let text = |m2: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","method":"{m2}","params":{{"name":"get_weather","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}}}"#
            )
        };
        assert!(check_http_headers_text(&OK, &text("tools/list")).is_none());
        assert!(check_http_headers_text(&OK, &text("tools/call")).is_none());
        let plain = call("tools/call", json!({"name":"get_weather"})).to_string();
        let wrong = [OK[0], ("Mcp-Method", "tools/list"), OK[2]];
        assert_eq!(check_http_headers_text(&wrong, &plain).map(|r| r.http_status()), Some(400));
    }

    #[test]
    fn base64_form() {
        let r = call("tools/call", json!({"name":"Hello, 世界"}));
        let h = [OK[0], OK[1], ("Mcp-Name", "=?base64?SGVsbG8sIOS4lueVjA==?=")];
        assert_eq!(what(&h, &r), None);
        let h = [OK[0], OK[1], ("Mcp-Name", "=?base64?not base64?=")];
        assert!(what(&h, &r).unwrap().contains("not valid"));
        // Markers are case-sensitive: an upper-case form is a plain value.
        let h = [OK[0], OK[1], ("Mcp-Name", "=?BASE64?SGVsbG8sIOS4lueVjA==?=")];
        assert!(what(&h, &r).unwrap().contains("does not match"));
        // A literal that looks like the sentinel travels encoded.
        let r = call("tools/call", json!({"name":"=?base64?literal?="}));
        let h = [OK[0], OK[1], ("Mcp-Name", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")];
        assert_eq!(what(&h, &r), None);
    }

    #[test]
    fn skipped_cases() {
        // No name in the body: Mcp-Name not expected.
        assert_eq!(what(&OK[..2], &call("tools/call", json!({}))), None);
        // Other methods need no Mcp-Name.
        let h = [OK[0], ("Mcp-Method", "tools/list")];
        assert_eq!(what(&h, &call("tools/list", json!({}))), None);
        // resources/read compares the uri.
        let h = [OK[0], ("Mcp-Method", "resources/read"), ("Mcp-Name", "file:///a")];
        assert_eq!(what(&h, &call("resources/read", json!({"uri":"file:///a"}))), None);
        // Version not a string in the body: left to begin (-32602).
        let r = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}});
        assert_eq!(what(&[OK[0], ("Mcp-Method", "tools/list")], &r), None);
        // Notifications, bad ids and non-objects are begin's.
        assert_eq!(what(&[], &json!({"jsonrpc":"2.0","method":"notifications/x"})), None);
        assert_eq!(what(&[], &json!({"jsonrpc":"2.0","id":null,"method":"x"})), None);
        assert_eq!(what(&[], &json!([1])), None);
    }

    #[test]
    fn tasks_methods_compare_the_task_id() {
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let r = call(method, json!({"taskId":"t-1"}));
            let h = [OK[0], ("Mcp-Method", method), ("Mcp-Name", "t-1")];
            assert_eq!(what(&h, &r), None, "{method}");
            let h = [OK[0], ("Mcp-Method", method), ("Mcp-Name", "t-2")];
            assert!(what(&h, &r).unwrap().contains("does not match params.taskId"), "{method}");
            let h = [OK[0], ("Mcp-Method", method)];
            assert!(what(&h, &r).unwrap().starts_with("Mcp-Name header missing"), "{method}");
        }
    }

    #[test]
    fn response_shape() {
        let r = check_http_headers(&[], &call("tools/call", json!({"name":"n"}))).unwrap();
        assert_eq!(r.http_status(), 400);
        assert_eq!(r.body()["error"]["code"], -32020);
        assert_eq!(r.body()["id"], 7);
        assert!(r.body()["error"]["message"].as_str().unwrap().starts_with("Header mismatch: "));
        assert!(check_http_headers_text(&[], "{not json").is_none());
    }
}
