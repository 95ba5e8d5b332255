//! Final results checked against the 2026-07-28 schema, per method.
//!
//! A pure function over the result object, so it can live in any layer;
//! `decide` calls it once on every complete result. What is checked:
//!
//! * every method: a complete result never carries `inputRequests` or
//!   `requestState` (those belong to `input_required` only); `_meta`, when
//!   present, is an object. One exception: a `tasks/get` result (the Tasks
//!   extension's `DetailedTask`) whose `status` is `input_required` carries
//!   the task's outstanding `inputRequests`; the server checks them against
//!   the client with `check_task_input_requests`;
//! * `tools/call` (`CallToolResult`): `content` an array of content blocks;
//!   `isError` a boolean when present. `structuredContent` may be any JSON
//!   value: the 2026-07-28 schema widened it from an object (`unknown`);
//! * `resources/read` (`ReadResourceResult`): `contents` an array of items
//!   with a string `uri` and exactly one of a string `text` or `blob`; on a
//!   2026-07-28-era request the cache hints the schema requires, `ttlMs` an
//!   integer ≥ 0 and `cacheScope` `"public"` or `"private"`;
//! * `prompts/get` (`GetPromptResult`): `messages` an array of
//!   `{role: "user"|"assistant", content: <content block>}`, `description` a
//!   string when present.
//!
//! Content blocks: `text` (string `text`), `image`/`audio` (string `data`
//! and `mimeType`), `resource_link` (string `uri` and `name`), `resource`
//! (an embedded text or blob resource); `annotations` an object whose
//! `audience` lists roles and whose `priority` is a number in 0..=1.
//! Other methods' results are checked only for the common rules: snodo does
//! not know their shape. Unknown extra fields are allowed everywhere, as the
//! schema allows them.
//!
//! A failure names the field as a JSON pointer into the result, for
//! `Response::diagnostic`.

use serde_json::{Map, Value};

/// Checks a complete result for `method`. `modern` is whether the request
/// is in the 2026-07-28 dialect or later (cache hints are required there).
/// `Err` is a diagnostic naming the field as a JSON pointer.
pub fn check_result(method: &str, result: &Map<String, Value>, modern: bool) -> Result<(), String> {
    let task_waits =
        method == "tasks/get" && result.get("status").and_then(Value::as_str) == Some("input_required");
    for key in ["inputRequests", "requestState"] {
        if result.contains_key(key) && !(key == "inputRequests" && task_waits) {
            return Err(format!("/{key}: a complete result must not carry {key}"));
        }
    }
    if result.get("_meta").is_some_and(|m| !m.is_object()) {
        return Err("/_meta: must be an object".to_owned());
    }
    match method {
        "tools/call" => {
            let blocks = array(result, "content", "")?;
            for (i, b) in blocks.iter().enumerate() {
                content_block(b, &format!("/content/{i}"))?;
            }
            if result.get("isError").is_some_and(|v| !v.is_boolean()) {
                return Err("/isError: must be a boolean".to_owned());
            }
        }
        "resources/read" => {
            let items = array(result, "contents", "")?;
            for (i, item) in items.iter().enumerate() {
                resource_contents(item, &format!("/contents/{i}"))?;
            }
            if modern {
                match result.get("ttlMs") {
                    Some(Value::Number(n)) if n.as_u64().is_some() => {}
                    Some(_) => return Err("/ttlMs: must be an integer >= 0".to_owned()),
                    None => return Err("/ttlMs: required on a resources/read result".to_owned()),
                }
                match result.get("cacheScope").and_then(Value::as_str) {
                    Some("public" | "private") => {}
                    Some(_) | None if result.contains_key("cacheScope") => {
                        return Err("/cacheScope: must be \"public\" or \"private\"".to_owned());
                    }
                    _ => return Err("/cacheScope: required on a resources/read result".to_owned()),
                }
            }
        }
        "prompts/get" => {
            let messages = array(result, "messages", "")?;
            for (i, m) in messages.iter().enumerate() {
                let at = format!("/messages/{i}");
                let Value::Object(m) = m else { return Err(format!("{at}: must be an object")) };
                match m.get("role").and_then(Value::as_str) {
                    Some("user" | "assistant") => {}
                    _ => return Err(format!("{at}/role: must be \"user\" or \"assistant\"")),
                }
                match m.get("content") {
                    Some(c) => content_block(c, &format!("{at}/content"))?,
                    None => return Err(format!("{at}/content: required")),
                }
            }
            if result.get("description").is_some_and(|v| !v.is_string()) {
                return Err("/description: must be a string".to_owned());
            }
        }
        _ => {}
    }
    Ok(())
}

/// A JSON-pointer segment (RFC 6901 escaping).
fn seg(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn array<'a>(obj: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a Vec<Value>, String> {
    match obj.get(key) {
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(format!("{at}/{}: must be an array", seg(key))),
        None => Err(format!("{at}/{}: required", seg(key))),
    }
}

fn string_field(obj: &Map<String, Value>, key: &str, at: &str, required: bool) -> Result<(), String> {
    match obj.get(key) {
        Some(Value::String(_)) => Ok(()),
        Some(_) => Err(format!("{at}/{}: must be a string", seg(key))),
        None if required => Err(format!("{at}/{}: required", seg(key))),
        None => Ok(()),
    }
}

fn meta_and_annotations(b: &Map<String, Value>, at: &str) -> Result<(), String> {
    if b.get("_meta").is_some_and(|m| !m.is_object()) {
        return Err(format!("{at}/_meta: must be an object"));
    }
    let Some(a) = b.get("annotations") else { return Ok(()) };
    let Value::Object(a) = a else { return Err(format!("{at}/annotations: must be an object")) };
    if let Some(aud) = a.get("audience") {
        let ok = aud
            .as_array()
            .is_some_and(|l| l.iter().all(|r| matches!(r.as_str(), Some("user" | "assistant"))));
        if !ok {
            return Err(format!("{at}/annotations/audience: must be an array of \"user\"/\"assistant\""));
        }
    }
    if let Some(p) = a.get("priority") {
        let ok = p.as_f64().is_some_and(|p| (0.0..=1.0).contains(&p));
        if !ok {
            return Err(format!("{at}/annotations/priority: must be a number from 0 to 1"));
        }
    }
    string_field(a, "lastModified", &format!("{at}/annotations"), false)
}

fn content_block(b: &Value, at: &str) -> Result<(), String> {
    let Value::Object(b) = b else { return Err(format!("{at}: must be an object")) };
    match b.get("type").and_then(Value::as_str) {
        Some("text") => string_field(b, "text", at, true)?,
        Some("image" | "audio") => {
            string_field(b, "data", at, true)?;
            string_field(b, "mimeType", at, true)?;
        }
        Some("resource_link") => {
            string_field(b, "uri", at, true)?;
            string_field(b, "name", at, true)?;
            for k in ["title", "description", "mimeType"] {
                string_field(b, k, at, false)?;
            }
            if b.get("size").is_some_and(|s| !s.is_number()) {
                return Err(format!("{at}/size: must be a number"));
            }
        }
        Some("resource") => match b.get("resource") {
            Some(r) => resource_contents(r, &format!("{at}/resource"))?,
            None => return Err(format!("{at}/resource: required")),
        },
        _ => {
            return Err(format!("{at}/type: must be text, image, audio, resource_link or resource"));
        }
    }
    meta_and_annotations(b, at)
}

fn resource_contents(item: &Value, at: &str) -> Result<(), String> {
    let Value::Object(r) = item else { return Err(format!("{at}: must be an object")) };
    string_field(r, "uri", at, true)?;
    string_field(r, "mimeType", at, false)?;
    match (r.get("text"), r.get("blob")) {
        (Some(_), Some(_)) => return Err(format!("{at}: exactly one of text or blob, not both")),
        (None, None) => return Err(format!("{at}: exactly one of text or blob is required")),
        (Some(t), None) if !t.is_string() => return Err(format!("{at}/text: must be a string")),
        (None, Some(b)) if !b.is_string() => return Err(format!("{at}/blob: must be a string")),
        _ => {}
    }
    if r.get("_meta").is_some_and(|m| !m.is_object()) {
        return Err(format!("{at}/_meta: must be an object"));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(method: &str, v: Value) -> Result<(), String> {
        check_result(method, v.as_object().unwrap(), true)
    }

    #[test]
    fn tool_results() {
        check("tools/call", json!({"content": []})).unwrap();
        check(
            "tools/call",
            json!({"content": [{"type":"text","text":"a","annotations":{"audience":["user"],"priority":0.5}}],
            "structuredContent": [1, 2], "isError": false}),
        )
        .unwrap();
        check(
            "tools/call",
            json!({"content": [
            {"type":"image","data":"AA==","mimeType":"image/png"},
            {"type":"audio","data":"AA==","mimeType":"audio/wav"},
            {"type":"resource_link","uri":"file:///a","name":"a"},
            {"type":"resource","resource":{"uri":"file:///a","blob":"AA=="}}]}),
        )
        .unwrap();
        for (bad, field) in [
            (json!({}), "/content: required"),
            (json!({"content": 5}), "/content: must be an array"),
            (json!({"content": [{"type":"text","text":{"a":1}}]}), "/content/0/text: must be a string"),
            (json!({"content": [{"type":"video"}]}), "/content/0/type:"),
            (json!({"content": [{"type":"image","data":"AA=="}]}), "/content/0/mimeType: required"),
            (json!({"content": [{"type":"resource_link","uri":"x"}]}), "/content/0/name: required"),
            (
                json!({"content": [{"type":"resource","resource":{"uri":"x","text":"a","blob":"b"}}]}),
                "/content/0/resource: exactly one",
            ),
            (json!({"content": [], "isError": "yes"}), "/isError:"),
            (
                json!({"content": [{"type":"text","text":"a","annotations":{"priority":2}}]}),
                "/content/0/annotations/priority",
            ),
            (json!({"content": [], "requestState": "forged", "inputRequests": {}}), "/inputRequests:"),
            (json!({"content": [], "_meta": 1}), "/_meta:"),
        ] {
            let why = check("tools/call", bad.clone()).unwrap_err();
            assert!(why.starts_with(field), "{bad}: {why}");
        }
    }

    #[test]
    fn a_waiting_task_carries_its_input_requests() {
        let asks = json!({"k-1": {"method": "roots/list"}});
        let task = |status: &str| json!({"taskId": "t", "status": status, "inputRequests": asks});
        check("tasks/get", task("input_required")).unwrap();
        for status in ["working", "completed"] {
            assert!(check("tasks/get", task(status)).unwrap_err().starts_with("/inputRequests:"));
        }
        assert!(
            check("tools/call", json!({"content": [], "status": "input_required", "inputRequests": asks}))
                .is_err()
        );
        let mut forged = task("input_required");
        forged["requestState"] = json!("s");
        assert!(check("tasks/get", forged).unwrap_err().starts_with("/requestState:"));
    }

    #[test]
    fn resource_results() {
        check(
            "resources/read",
            json!({"contents": [{"uri":"a://b","text":"x"}], "ttlMs": 0, "cacheScope": "private"}),
        )
        .unwrap();
        for (bad, field) in [
            (json!({"contents": [], "cacheScope": "public"}), "/ttlMs: required"),
            (json!({"contents": [], "ttlMs": -1, "cacheScope": "public"}), "/ttlMs: must be"),
            (json!({"contents": [], "ttlMs": 1.5, "cacheScope": "public"}), "/ttlMs: must be"),
            (json!({"contents": [], "ttlMs": 0, "cacheScope": "shared"}), "/cacheScope: must be"),
            (json!({"contents": [], "ttlMs": 0}), "/cacheScope: required"),
            (
                json!({"contents": [{"uri":"a://b"}], "ttlMs": 0, "cacheScope": "public"}),
                "/contents/0: exactly one",
            ),
            (
                json!({"contents": [{"text":"x"}], "ttlMs": 0, "cacheScope": "public"}),
                "/contents/0/uri: required",
            ),
        ] {
            let why = check("resources/read", bad.clone()).unwrap_err();
            assert!(why.starts_with(field), "{bad}: {why}");
        }
        // Before 2026-07-28 the cache hints did not exist.
        check_result("resources/read", json!({"contents": []}).as_object().unwrap(), false).unwrap();
    }

    #[test]
    fn prompt_results() {
        check("prompts/get", json!({"messages": [{"role":"user","content":{"type":"text","text":"hi"}}]}))
            .unwrap();
        for (bad, field) in [
            (json!({}), "/messages: required"),
            (
                json!({"messages": [{"role":"system","content":{"type":"text","text":"hi"}}]}),
                "/messages/0/role",
            ),
            (json!({"messages": [{"role":"user"}]}), "/messages/0/content: required"),
            (
                json!({"messages": [{"role":"user","content":{"type":"text"}}]}),
                "/messages/0/content/text: required",
            ),
            (json!({"messages": [], "description": 1}), "/description"),
        ] {
            let why = check("prompts/get", bad.clone()).unwrap_err();
            assert!(why.starts_with(field), "{bad}: {why}");
        }
    }

    #[test]
    fn other_methods_only_common_rules() {
        check("tools/list", json!({"tools": 5})).unwrap();
        assert!(check("tools/list", json!({"requestState": "x"})).is_err());
    }

    #[test]
    fn pointer_segments_are_escaped() {
        assert_eq!(seg("a/b~c"), "a~1b~0c");
    }
}
