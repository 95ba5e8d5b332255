//! A request's JSON-RPC shape (id, jsonrpc, method, params, `_meta`),
//! checked the same way whether the message came as a tree (the legacy
//! bridge, `begin_value`, the reference path) or through the envelope
//! reader (`begin`).

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::{Begin, jsonrpc_error};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{self, Envelope, Params};

fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => json::number_is_integer(n) && n.as_f64().is_some(),
        _ => false,
    }
}

/// A request's JSON-RPC shape, read the same way in every dialect: the
/// id, the method, the params and their `_meta` (both split off).
pub(crate) struct Shape {
    pub(crate) id: Value,
    /// Issue 16, twelfth pass: a method snodo knows is not copied.
    pub(crate) method: Cow<'static, str>,
    pub(crate) params: Map<String, Value>,
    pub(crate) meta: Map<String, Value>,
}

/// The request-shape checks `begin` and the legacy bridge share: an
/// object, an id (absent: a notification, an `Err`), not a response (an
/// `Err` saying `on_response`), `jsonrpc` "2.0", a method, object params
/// and `_meta`. A bad shape is the ready `-32600`/`-32602` (`Ok(Err)`).
pub(crate) fn read_shape(value: Value, on_response: &str) -> Result<std::result::Result<Shape, Begin>> {
    let Value::Object(mut msg) = value else {
        return check_shape(Envelope::default(), on_response);
    };
    // The message as the envelope reader would hand it over, but for
    // `inputResponses` and `requestState`, which stay in the params.
    let env = Envelope {
        object: true,
        answer: msg.contains_key("result") || msg.contains_key("error"),
        id: msg.remove("id"),
        jsonrpc: msg.remove("jsonrpc").map(|v| v.as_str() == Some("2.0")),
        method: msg.remove("method"),
        method_known: None,
        params: msg.remove("params").map(|p| match p {
            Value::Object(mut rest) => Some(Params { meta: rest.remove("_meta"), rest, ..Params::default() }),
            _ => None,
        }),
        args: None,
    };
    check_shape(env, on_response)
}

/// The checks of [`read_shape`], in its order, on a message as the
/// envelope reader splits it (both paths share them).
pub(super) fn check_shape(env: Envelope<'_>, on_response: &str) -> Result<std::result::Result<Shape, Begin>> {
    let bad = |id: Value, code: i64, message: &str| {
        Ok(Err(Begin::Respond(jsonrpc_error(id, code, message, None, 400))))
    };
    if !env.object {
        return bad(Value::Null, -32600, "Invalid Request");
    }
    let has_method = env.method.is_some() || env.method_known.is_some();
    let Some(id) = env.id else {
        return Err(Error::new(
            ErrorCode::NotARequest,
            if has_method {
                "a notification (no id): send no response"
            } else {
                "not a request (no id, no method)"
            },
        ));
    };
    if !has_method && env.answer {
        return Err(Error::new(ErrorCode::NotARequest, on_response));
    }
    if !valid_id(&id) {
        return bad(Value::Null, -32600, "Invalid Request: bad id");
    }
    if env.jsonrpc != Some(true) {
        return bad(id, -32600, "Invalid Request: jsonrpc must be \"2.0\"");
    }
    let method = match (env.method_known, env.method) {
        (Some(m), _) => Cow::Borrowed(m),
        (None, Some(Value::String(m))) if !m.is_empty() => Cow::Owned(m),
        _ => return bad(id, -32600, "Invalid Request: method must be a string"),
    };
    let params = match env.params {
        Some(Some(p)) => p,
        None => Params::default(),
        Some(None) => return bad(id, -32602, "Invalid params: params must be an object"),
    };
    let meta = match params.meta {
        Some(Value::Object(m)) => m,
        None => Map::new(),
        Some(_) => return bad(id, -32602, "Invalid params: _meta must be an object"),
    };
    Ok(Ok(Shape { id, method, params: params.rest, meta }))
}

/// The request's client capabilities: the tree the hand reader shared
/// (issue 16, twelfth pass), else the `_meta` member as read; each of
/// `elicitation`, `sampling`, `roots` an object when present. `Err` is
/// the `-32602` message.
pub(super) fn capabilities(
    shared: Option<Arc<Value>>,
    read: Option<Value>,
    meta: &mut Map<String, Value>,
) -> std::result::Result<Arc<Value>, String> {
    let capabilities = match shared {
        Some(c) => c,
        None => match read.or_else(|| meta.remove(super::META_CLIENT_CAPABILITIES)) {
            Some(c @ Value::Object(_)) => Arc::new(c),
            None => {
                return Err("Missing required _meta field io.modelcontextprotocol/clientCapabilities".into());
            }
            Some(_) => {
                return Err(
                    "Invalid _meta field io.modelcontextprotocol/clientCapabilities: must be an object"
                        .into(),
                );
            }
        },
    };
    for cap in ["elicitation", "sampling", "roots"] {
        if capabilities.get(cap).is_some_and(|c| !c.is_object()) {
            return Err(format!("Invalid clientCapabilities.{cap}: must be an object"));
        }
    }
    Ok(capabilities)
}

/// The request's protocol version: the one the hand reader found among
/// those snodo knows (issue 16, twelfth pass: not copied), else the
/// `_meta` member as read. `Err` is the `-32602` message.
pub(super) fn version(
    known: Option<&'static str>,
    read: Option<Value>,
    meta: &mut Map<String, Value>,
) -> std::result::Result<Cow<'static, str>, &'static str> {
    if let Some(v) = known {
        return Ok(Cow::Borrowed(v));
    }
    match read.or_else(|| meta.remove(super::META_PROTOCOL_VERSION)) {
        Some(Value::String(v)) => Ok(Cow::Owned(v)),
        None => Err("Missing required _meta field io.modelcontextprotocol/protocolVersion"),
        Some(_) => Err("Invalid _meta field io.modelcontextprotocol/protocolVersion: must be a string"),
    }
}
