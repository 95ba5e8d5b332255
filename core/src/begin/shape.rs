//! A request's JSON-RPC shape (id, jsonrpc, method, params, `_meta`),
//! checked the same way whether the message came as a tree (the legacy
//! bridge, `begin_value`) or as text (`begin`, through the strict reader's
//! tree).

use serde_json::{Map, Value};

use super::{Begin, jsonrpc_error};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{self, JsonError};

fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => json::number_is_integer(n) && n.as_f64().is_some(),
        _ => false,
    }
}

/// A request message's members as `begin` reads them, from a tree or
/// from text.
#[derive(Debug, Default)]
pub(crate) struct Envelope {
    /// Whether the message is an object at all (if not, nothing else is set).
    pub(crate) object: bool,
    pub(crate) id: Option<Value>,
    /// Whether `jsonrpc` is the string "2.0", if present.
    pub(crate) jsonrpc: Option<bool>,
    pub(crate) method: Option<Value>,
    /// Whether it has a `result` or an `error` member.
    pub(crate) answer: bool,
    /// `Some(None)`: `params` is present but not an object.
    pub(crate) params: Option<Option<Params>>,
}

/// `params` when it is an object, split into what `begin` reads.
#[derive(Debug, Default)]
pub(crate) struct Params {
    /// Every other member: what the token binds.
    pub(crate) rest: Map<String, Value>,
    pub(crate) meta: Option<Value>,
    pub(crate) input_responses: Option<Value>,
    pub(crate) request_state: Option<Value>,
}

impl Params {
    fn split(members: impl IntoIterator<Item = (String, Value)>) -> Params {
        let mut params = Params::default();
        for (key, value) in members {
            match key.as_str() {
                "_meta" => params.meta = Some(value),
                "inputResponses" => params.input_responses = Some(value),
                "requestState" => params.request_state = Some(value),
                _ => {
                    params.rest.insert(key, value);
                }
            }
        }
        params
    }
}

impl Envelope {
    /// The envelope of a parsed message.
    pub(crate) fn from_tree(value: Value) -> Envelope {
        let Value::Object(mut msg) = value else { return Envelope::default() };
        Envelope {
            object: true,
            answer: msg.contains_key("result") || msg.contains_key("error"),
            id: msg.remove("id"),
            jsonrpc: msg.remove("jsonrpc").map(|v| v.as_str() == Some("2.0")),
            method: msg.remove("method"),
            params: msg.remove("params").map(|p| match p {
                Value::Object(members) => Some(Params::split(members)),
                _ => None,
            }),
        }
    }

    /// The envelope of a request text, read by the strict reader.
    pub(crate) fn from_text(bytes: &[u8], max_bytes: usize) -> std::result::Result<Envelope, JsonError> {
        Ok(Envelope::from_tree(json::parse(bytes, max_bytes)?))
    }
}

/// A request's JSON-RPC shape, read the same way in every dialect: the
/// id, the method, the params and their `_meta`, `inputResponses` and
/// `requestState` (each split off).
pub(crate) struct Shape {
    pub(crate) id: Value,
    pub(crate) method: String,
    pub(crate) params: Map<String, Value>,
    pub(crate) meta: Map<String, Value>,
    pub(crate) input_responses: Option<Value>,
    pub(crate) request_state: Option<Value>,
}

/// The request-shape checks `begin` and the legacy bridge share: an
/// object, an id (absent: a notification, an `Err`), not a response (an
/// `Err` saying `on_response`), `jsonrpc` "2.0", a method, object params
/// and `_meta`. A bad shape is the ready `-32600`/`-32602` (`Ok(Err)`).
pub(crate) fn read_shape(value: Value, on_response: &str) -> Result<std::result::Result<Shape, Begin>> {
    check_shape(Envelope::from_tree(value), on_response)
}

/// The checks of [`read_shape`], in its order, on an envelope from a
/// tree or from text.
pub(super) fn check_shape(env: Envelope, on_response: &str) -> Result<std::result::Result<Shape, Begin>> {
    let bad = |id: Value, code: i64, message: &str| {
        Ok(Err(Begin::Respond(jsonrpc_error(id, code, message, None, 400))))
    };
    if !env.object {
        return bad(Value::Null, -32600, "Invalid Request");
    }
    let has_method = env.method.is_some();
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
    let method = match env.method {
        Some(Value::String(m)) if !m.is_empty() => m,
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
    Ok(Ok(Shape {
        id,
        method,
        params: params.rest,
        meta,
        input_responses: params.input_responses,
        request_state: params.request_state,
    }))
}

/// The request's client capabilities, taken out of `_meta`: an object,
/// each of `elicitation`, `sampling`, `roots` an object when present.
/// `Err` is the `-32602` message.
pub(super) fn capabilities(meta: &mut Map<String, Value>) -> std::result::Result<Value, String> {
    let capabilities = match meta.remove(super::META_CLIENT_CAPABILITIES) {
        Some(c @ Value::Object(_)) => c,
        None => return Err("Missing required _meta field io.modelcontextprotocol/clientCapabilities".into()),
        Some(_) => {
            return Err(
                "Invalid _meta field io.modelcontextprotocol/clientCapabilities: must be an object".into()
            );
        }
    };
    for cap in ["elicitation", "sampling", "roots"] {
        if capabilities.get(cap).is_some_and(|c| !c.is_object()) {
            return Err(format!("Invalid clientCapabilities.{cap}: must be an object"));
        }
    }
    Ok(capabilities)
}

/// The request's protocol version, taken out of `_meta`. `Err` is the
/// `-32602` message.
pub(super) fn version(meta: &mut Map<String, Value>) -> std::result::Result<String, &'static str> {
    match meta.remove(super::META_PROTOCOL_VERSION) {
        Some(Value::String(v)) => Ok(v),
        None => Err("Missing required _meta field io.modelcontextprotocol/protocolVersion"),
        Some(_) => Err("Invalid _meta field io.modelcontextprotocol/protocolVersion: must be a string"),
    }
}
