//! The request binding and question digests a token pins.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorCode, Result};
use crate::json;

/// The request binding: SHA-256 over a domain label, the method, and the
/// canonical form of `params` without its top-level `_meta`, `inputResponses`
/// and `requestState`. The JSON-RPC id is outside params and so unbound.
///
/// `params` must be an object (`ARGUMENT` otherwise, with
/// [`BINDING_PARAMS_MESSAGE`]): a request's params are always one; and
/// nested at most [`MAX_DEPTH`](crate::MAX_DEPTH) levels (`ARGUMENT`), as
/// every request the strict reader reads is.
pub fn binding_digest(method: &str, params: &Value) -> Result<[u8; 32]> {
    match params {
        Value::Object(m) => binding_digest_map(method, m).ok_or_else(|| {
            Error::new(ErrorCode::Argument, format!("params: may nest at most {} levels", json::MAX_DEPTH))
        }),
        _ => Err(Error::new(ErrorCode::Argument, BINDING_PARAMS_MESSAGE)),
    }
}

/// [`binding_digest`] over params given as JSON text, read strictly
/// (`JSON` on bad text, [`crate::MAX_ARGUMENT_BYTES`]), so that numbers keep
/// their exact spelling.
pub fn binding_digest_text(method: &str, params: impl AsRef<[u8]>) -> Result<[u8; 32]> {
    binding_digest(method, &json::parse_json(params.as_ref(), "params")?)
}

/// The message for binding params that are not an object, in every language.
pub const BINDING_PARAMS_MESSAGE: &str = "params: must be an object";

/// [`binding_digest`] of a params object; `None` when it nests deeper
/// than [`json::MAX_DEPTH`] levels (no request that passed the strict
/// reader does).
pub fn binding_digest_map(method: &str, params: &Map<String, Value>) -> Option<[u8; 32]> {
    let mut h = Sha256::new();
    h.update(b"snodo/v1/binding\0");
    h.update(method.as_bytes());
    h.update(b"\0");
    let mut canonical = Vec::new();
    if !json::write_members(params, &BINDING_SKIP, &mut canonical, 1, json::MAX_DEPTH) {
        return None;
    }
    h.update(&canonical);
    Some(h.finalize().into())
}

/// Top-level params keys that are not part of the request binding.
pub(crate) const BINDING_SKIP: [&str; 3] = ["_meta", "inputResponses", "requestState"];
