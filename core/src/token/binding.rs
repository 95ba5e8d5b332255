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
/// [`BINDING_PARAMS_MESSAGE`]): a request's params are always one.
pub fn binding_digest(method: &str, params: &Value) -> Result<[u8; 32]> {
    match params {
        Value::Object(m) => Ok(binding_digest_map(method, m)),
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

/// [`binding_digest`] of a params object.
pub fn binding_digest_map(method: &str, params: &Map<String, Value>) -> [u8; 32] {
    binding_digest_spliced(method, params, None)
}

/// [`binding_digest_map`] where `params.arguments`, if `arguments` is
/// `Some`, is given as its canonical bytes (issue 16: `begin` streams them
/// and leaves a placeholder in the map). The same digest as over the tree.
pub(crate) fn binding_digest_spliced(
    method: &str,
    params: &Map<String, Value>,
    arguments: Option<&[u8]>,
) -> [u8; 32] {
    let mut h = json::HashSink::new(binding_hasher(method));
    json::write_map_spliced(params, &BINDING_SKIP, arguments.map(|a| ("arguments", a)), &mut h);
    h.finish().finalize().into()
}

/// Top-level params keys that are not part of the request binding.
pub(crate) const BINDING_SKIP: [&str; 3] = ["_meta", "inputResponses", "requestState"];

pub(crate) fn binding_hasher(method: &str) -> Sha256 {
    let mut h = Sha256::new();
    h.update(b"snodo/v1/binding\0");
    h.update(method.as_bytes());
    h.update(b"\0");
    h
}

/// The digest that pins one question: SHA-256 of its canonical form.
pub fn question_digest(request: &Value) -> [u8; 32] {
    json::digest(request)
}
