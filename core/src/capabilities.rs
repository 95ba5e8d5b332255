//! What a client can receive: capability admission for input requests.
//!
//! Capabilities are read from *this* request's
//! `_meta["io.modelcontextprotocol/clientCapabilities"]` only; a server must
//! never infer them from earlier requests (a retry may declare less).
//!
//! Rules:
//! * form elicitation (mode absent or `"form"`) needs `elicitation.form`, or an
//!   `elicitation` capability naming neither `form` nor `url` (the spec's
//!   backwards-compatible `{}`; we extend it to objects with only unknown keys);
//! * URL elicitation needs `elicitation.url`;
//! * sampling needs `sampling`, plus `sampling.tools` when `tools` or
//!   `toolChoice` is present, plus `sampling.context` when `includeContext` is
//!   present and not `"none"`;
//! * `roots/list` needs `roots`;
//! * any other method needs nothing.

use serde_json::{Map, Value, json};

use crate::error::{Error, ErrorCode, Result};

/// One capability an input request needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Need {
    ElicitForm,
    ElicitUrl,
    Sampling,
    SamplingTools,
    SamplingContext,
    Roots,
}

fn needs(request: &Value) -> impl Iterator<Item = Need> {
    // A fixed array, not a `Vec` per request (`decide` asks
    // this of every question): at most three needs.
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    let params = request.get("params");
    let param = |k: &str| params.and_then(|p| p.get(k));
    let found: [Option<Need>; 3] = match method {
        "elicitation/create" => match param("mode").and_then(Value::as_str) {
            Some("url") => [Some(Need::ElicitUrl), None, None],
            _ => [Some(Need::ElicitForm), None, None],
        },
        "sampling/createMessage" => [
            Some(Need::Sampling),
            (param("tools").is_some() || param("toolChoice").is_some()).then_some(Need::SamplingTools),
            param("includeContext")
                .is_some_and(|c| c.as_str() != Some("none"))
                .then_some(Need::SamplingContext),
        ],
        "roots/list" => [Some(Need::Roots), None, None],
        _ => [None, None, None],
    };
    found.into_iter().flatten()
}

fn has(caps: &Value, path: &[&str]) -> bool {
    let mut cur = caps;
    for p in path {
        match cur.get(p) {
            Some(v) if v.is_object() => cur = v,
            _ => return false,
        }
    }
    true
}

fn satisfied(need: Need, caps: &Value) -> bool {
    match need {
        Need::ElicitForm => {
            has(caps, &["elicitation", "form"])
                || (has(caps, &["elicitation"])
                    && !has(caps, &["elicitation", "url"])
                    && caps.get("elicitation").and_then(|e| e.get("form")).is_none())
        }
        Need::ElicitUrl => has(caps, &["elicitation", "url"]),
        Need::Sampling => has(caps, &["sampling"]),
        Need::SamplingTools => has(caps, &["sampling", "tools"]),
        Need::SamplingContext => has(caps, &["sampling", "context"]),
        Need::Roots => has(caps, &["roots"]),
    }
}

/// Whether the client declaring `caps` can receive `request`.
pub fn can_receive(request: &Value, caps: &Value) -> bool {
    needs(request).all(|n| satisfied(n, caps))
}

/// The one message for a `requests` argument that is not an object mapping
/// key → input request (arrays, strings and `null` included), in every
/// language.
pub const INPUT_REQUESTS_MESSAGE: &str = "requests: must be an object mapping each key to an input request";

/// Reads the `requests` argument of [`missing_capabilities`],
/// [`filter_supported`] and the `input_required` outcome: an object mapping
/// key → input request, and nothing else (`ARGUMENT`).
pub fn input_requests(requests: &Value) -> Result<&Map<String, Value>> {
    match requests {
        Value::Object(m) => Ok(m),
        _ => Err(Error::new(ErrorCode::Argument, INPUT_REQUESTS_MESSAGE)),
    }
}

/// The capabilities the client must add to receive every request in
/// `requests`, shaped like a `ClientCapabilities` object and merged across
/// requests; `{}` when every request can be sent.
///
/// When the client has no `elicitation` capability at all and only form mode
/// is missing, the answer is `{"elicitation":{}}`, which the spec defines as
/// form-only. When URL mode is missing and form is also needed (even if the
/// client's `{}` implies it today), both are listed explicitly
/// (`{"form":{},"url":{}}`), because declaring `url` alone would drop the
/// implied form: the listed set, once declared, admits every request.
///
/// `requests` is an object mapping key → input request; anything else is
/// `ARGUMENT` ([`INPUT_REQUESTS_MESSAGE`]).
pub fn missing_capabilities(requests: &Value, caps: &Value) -> Result<Value> {
    Ok(missing_of(input_requests(requests)?.values(), caps))
}

/// [`missing_capabilities`] over any list of input requests (used by `decide`).
pub(crate) fn missing_of<'a>(requests: impl IntoIterator<Item = &'a Value>, caps: &Value) -> Value {
    let all: Vec<Need> = requests.into_iter().flat_map(needs).collect();
    let wants_form = all.contains(&Need::ElicitForm);
    let mut missing: Vec<Need> = all.into_iter().filter(|n| !satisfied(*n, caps)).collect();
    missing.sort();
    missing.dedup();

    let mut out = Map::new();
    let form = missing.contains(&Need::ElicitForm);
    let url = missing.contains(&Need::ElicitUrl);
    if form || url {
        let mut e = Map::new();
        // `{}` already means "form" when the client declared no elicitation.
        let bare_form_ok = !has(caps, &["elicitation"]) && !url;
        // Form that was only *implied* (by `{}`) stops being implied
        // once the client declares `url`, so whenever form is needed at all
        // and something else is listed, form is listed explicitly: declaring
        // exactly what we list then admits every request.
        if (form || wants_form) && !bare_form_ok {
            e.insert("form".into(), json!({}));
        }
        if url {
            e.insert("url".into(), json!({}));
        }
        out.insert("elicitation".into(), Value::Object(e));
    }
    let tools = missing.contains(&Need::SamplingTools);
    let context = missing.contains(&Need::SamplingContext);
    if missing.contains(&Need::Sampling) || tools || context {
        let mut s = Map::new();
        if tools {
            s.insert("tools".into(), json!({}));
        }
        if context {
            s.insert("context".into(), json!({}));
        }
        out.insert("sampling".into(), Value::Object(s));
    }
    if missing.contains(&Need::Roots) {
        out.insert("roots".into(), json!({}));
    }
    Value::Object(out)
}

/// Keeps only the input requests the client declaring `caps` can receive,
/// in order, as an object mapping key → input request. Use it for optional
/// questions; for required ones let `decide` answer `-32021`. `requests`
/// must be an object (`ARGUMENT` otherwise, [`INPUT_REQUESTS_MESSAGE`]).
pub fn filter_supported(requests: &Value, caps: &Value) -> Result<Value> {
    let kept = input_requests(requests)?
        .iter()
        .filter(|(_, r)| can_receive(r, caps))
        .map(|(k, r)| (k.clone(), r.clone()))
        .collect::<Map<String, Value>>();
    Ok(Value::Object(kept))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn form() -> Value {
        json!({"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}})
    }
    fn url() -> Value {
        json!({"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x.example/"}})
    }
    fn sampling(extra: Value) -> Value {
        let mut p = json!({"messages":[],"maxTokens":10});
        if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        json!({"method":"sampling/createMessage","params":p})
    }
    fn roots() -> Value {
        json!({"method":"roots/list"})
    }
    fn miss(reqs: &[Value], caps: Value) -> Value {
        missing_of(reqs.iter(), &caps)
    }

    #[test]
    fn elicitation_modes() {
        assert_eq!(miss(&[form()], json!({})), json!({"elicitation":{}}));
        assert_eq!(miss(&[form()], json!({"elicitation":{}})), json!({}));
        assert_eq!(miss(&[form()], json!({"elicitation":{"foo":{}}})), json!({}));
        assert_eq!(miss(&[url()], json!({"elicitation":{}})), json!({"elicitation":{"url":{}}}));
        assert_eq!(miss(&[form()], json!({"elicitation":{"url":{}}})), json!({"elicitation":{"form":{}}}));
        assert_eq!(miss(&[form(), url()], json!({"elicitation":{"form":{},"url":{}}})), json!({}));
        assert_eq!(miss(&[form(), url()], json!({})), json!({"elicitation":{"form":{},"url":{}}}));
        // Implied form made explicit once url is listed.
        assert_eq!(
            miss(&[form(), url()], json!({"elicitation":{}})),
            json!({"elicitation":{"form":{},"url":{}}})
        );
        assert_eq!(miss(&[form(), url()], json!({"elicitation":{"form":{},"url":{}}})), json!({}));
        // Form declared explicitly: only url is missing, and declaring the
        // listed set still keeps form.
        assert_eq!(
            miss(&[form(), url()], json!({"elicitation":{"form":{}}})),
            json!({"elicitation":{"form":{},"url":{}}})
        );
    }

    #[test]
    fn sampling_sub_capabilities() {
        assert_eq!(miss(&[sampling(json!({}))], json!({"sampling":{}})), json!({}));
        assert_eq!(
            miss(&[sampling(json!({"tools":[]}))], json!({"sampling":{}})),
            json!({"sampling":{"tools":{}}})
        );
        assert_eq!(
            miss(&[sampling(json!({"toolChoice":{"mode":"auto"}}))], json!({"sampling":{}})),
            json!({"sampling":{"tools":{}}})
        );
        assert_eq!(miss(&[sampling(json!({"tools":[]}))], json!({"sampling":{"tools":{}}})), json!({}));
        assert_eq!(
            miss(&[sampling(json!({"includeContext":"thisServer"}))], json!({"sampling":{}})),
            json!({"sampling":{"context":{}}})
        );
        assert_eq!(miss(&[sampling(json!({"includeContext":"none"}))], json!({"sampling":{}})), json!({}));
        assert_eq!(miss(&[sampling(json!({"tools":[]}))], json!({})), json!({"sampling":{"tools":{}}}));
    }

    #[test]
    fn roots_and_merge() {
        assert_eq!(miss(&[roots()], json!({"roots":{"listChanged":true}})), json!({}));
        assert_eq!(miss(&[roots()], json!({})), json!({"roots":{}}));
        assert_eq!(
            miss(&[form(), sampling(json!({})), roots()], json!({})),
            json!({"elicitation":{},"sampling":{},"roots":{}})
        );
        assert_eq!(miss(&[json!({"method":"ping"})], json!({})), json!({}));
    }

    #[test]
    fn filter_keeps_receivable_in_order() {
        let reqs = json!({"a": form(), "b": sampling(json!({})), "c": roots()});
        let kept = filter_supported(&reqs, &json!({"sampling":{}})).unwrap();
        assert_eq!(kept.as_object().unwrap().keys().collect::<Vec<_>>(), vec!["b"]);
    }

    #[test]
    fn requests_must_be_an_object() {
        for bad in [json!([form()]), json!("x"), Value::Null] {
            for e in [
                filter_supported(&bad, &json!({})).unwrap_err(),
                missing_capabilities(&bad, &json!({})).unwrap_err(),
            ] {
                assert_eq!((e.code(), e.message()), (ErrorCode::Argument, INPUT_REQUESTS_MESSAGE));
            }
        }
    }

    #[test]
    fn non_object_capabilities_do_not_count() {
        assert_eq!(miss(&[form()], json!({"elicitation":true})), json!({"elicitation":{}}));
        assert_eq!(miss(&[roots()], json!({"roots":1})), json!({"roots":{}}));
    }
}
