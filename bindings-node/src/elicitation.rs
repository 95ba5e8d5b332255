//! Builders of input requests and capability helpers (core modules
//! `elicitation` and `capabilities`), plus the low-level canonical form and
//! request binding (`json`, `token`).

use napi::bindgen_prelude::*;

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
/// `requests` (an object by key; anything else throws ARGUMENT), shaped like
/// ClientCapabilities; `{}` when all can be sent.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn missing_capabilities<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, object> | string")] requests: Unknown,
    #[napi(ts_arg_type = "object | string")] capabilities: Unknown,
) -> Result<Unknown<'e>> {
    let requests = json::read(env, requests, "requests")?;
    let caps = json::read(env, capabilities, "capabilities")?;
    json::to_js(env, &snodo::missing_capabilities(&requests, &caps).map_err(core)?)
}

/// Keeps only the requests the client can receive, in order, as an object
/// by key (anything but an object throws ARGUMENT).
#[napi(catch_unwind, ts_return_type = "Record<string, object>")]
pub fn filter_supported<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, object> | string")] requests: Unknown,
    #[napi(ts_arg_type = "object | string")] capabilities: Unknown,
) -> Result<Unknown<'e>> {
    let requests = json::read(env, requests, "requests")?;
    let caps = json::read(env, capabilities, "capabilities")?;
    json::to_js(env, &snodo::filter_supported(&requests, &caps).map_err(core)?)
}

/// The canonical form of a JSON value (docs/canonical-json.md): JSON text is
/// read exactly; throws `JSON` on invalid text or duplicate keys.
#[napi(catch_unwind)]
pub fn canonicalize(
    env: &Env,
    #[napi(ts_arg_type = "string | Buffer | object")] value: Unknown,
) -> Result<String> {
    // The core's canonicalize: strict UTF-8, the core's one size cap.
    snodo::canonicalize(json::text_of(env, value, "value")?).map_err(core)
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
    Ok(snodo::binding_digest(&method, &params).map_err(core)?.to_vec().into())
}
