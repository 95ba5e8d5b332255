//! Builders of input requests and capability helpers (core modules
//! `elicitation` and `capabilities`), plus the low-level canonical form and
//! request binding (`json`, `token`).

use napi::bindgen_prelude::*;
use serde_json::{Map, Value};

use crate::error::{Result, core};
use crate::json;

/// A form-elicitation input request: `message` and a flat
/// `requestedSchema` (JSON text or object). Throws `SCHEMA` if the schema is
/// outside the spec's subset.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn elicit_form<'e>(
    env: &'e Env,
    message: String,
    #[napi(ts_arg_type = "object | string | Buffer")] schema: Unknown,
) -> Result<Unknown<'e>> {
    let schema = json::read(env, schema, "schema")?;
    json::to_js(env, &snodo::elicit_form(&message, &schema).map_err(core)?)
}

/// A URL-elicitation input request (http/https, host required, no userinfo).
/// Throws `URL`. Accept means consent, not completion.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn elicit_url<'e>(env: &'e Env, message: String, url: String) -> Result<Unknown<'e>> {
    json::to_js(env, &snodo::elicit_url(&message, &url).map_err(core)?)
}

/// A sampling (`sampling/createMessage`) input request. Throws `SAMPLING`.
///
/// @deprecated Sampling is deprecated in MCP 2026-07-28.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
#[allow(deprecated)]
pub fn sampling<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "object | string | Buffer")] params: Unknown,
) -> Result<Unknown<'e>> {
    let params = json::read(env, params, "params")?;
    json::to_js(env, &snodo::sampling(&params).map_err(core)?)
}

/// A `roots/list` input request.
///
/// @deprecated Roots are deprecated in MCP 2026-07-28.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
#[allow(deprecated)]
pub fn list_roots(env: &Env) -> Result<Unknown<'_>> {
    json::to_js(env, &snodo::list_roots())
}

/// The capabilities the client must add to receive every request in
/// `requests` (an object by key, or an array), shaped like
/// ClientCapabilities; `{}` when all can be sent.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn missing_capabilities<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, object> | object[] | string")] requests: Unknown,
    #[napi(ts_arg_type = "object | string")] capabilities: Unknown,
) -> Result<Unknown<'e>> {
    let (requests, _) = json::requests(json::read(env, requests, "requests")?, "requests")?;
    let caps = json::read(env, capabilities, "capabilities")?;
    json::to_js(env, &snodo::missing_capabilities(requests.iter().map(|(_, r)| r), &caps))
}

/// Keeps only the requests the client can receive, in order: an object by
/// key gives an object, an array gives an array.
#[napi(catch_unwind, ts_return_type = "Record<string, object> | object[]")]
pub fn filter_supported<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, object> | object[] | string")] requests: Unknown,
    #[napi(ts_arg_type = "object | string")] capabilities: Unknown,
) -> Result<Unknown<'e>> {
    let (requests, was_array) = json::requests(json::read(env, requests, "requests")?, "requests")?;
    let caps = json::read(env, capabilities, "capabilities")?;
    let kept = snodo::filter_supported(requests, &caps);
    let out = if was_array {
        Value::Array(kept.into_iter().map(|(_, r)| r).collect())
    } else {
        Value::Object(kept.into_iter().collect::<Map<_, _>>())
    };
    json::to_js(env, &out)
}

/// The canonical form of a JSON value (docs/canonical-json.md): JSON text is
/// read exactly; throws `JSON` on invalid text or duplicate keys.
#[napi(catch_unwind)]
pub fn canonicalize(
    env: &Env,
    #[napi(ts_arg_type = "string | Buffer | object")] value: Unknown,
) -> Result<String> {
    let value = json::read(env, value, "value")?;
    Ok(String::from_utf8_lossy(&snodo::json::canonical(&value)).into_owned())
}

/// The 32-byte request binding a token pins: method + SHA-256 of the
/// canonical params without `_meta`, `inputResponses`, `requestState`.
#[napi(catch_unwind)]
pub fn binding_digest(
    env: &Env,
    method: String,
    #[napi(ts_arg_type = "string | Buffer | object")] params: Unknown,
) -> Result<Buffer> {
    let params = json::read(env, params, "params")?;
    Ok(snodo::token::binding_digest(&method, &params).to_vec().into())
}
