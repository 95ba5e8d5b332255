//! Builders of input requests (the core's `elicitation`), with the lint
//! opt-outs of issue 13.

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

/// `elicitForm` without the secret/URL lint on field names and formats:
/// for a field the heuristic flags wrongly (docs/policies.md). The schema
/// rules still apply.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn elicit_form_without_lint<'e>(
    env: &'e Env,
    message: String,
    #[napi(ts_arg_type = "object | string | Buffer")] schema: Unknown,
) -> Result<Unknown<'e>> {
    let schema = json::read(env, schema, "schema")?;
    json::to_js(env, &snodo::elicit_form_without_lint(&message, &schema).map_err(core)?)
}

/// `elicitUrl` without the credential/PII lint on query and fragment
/// parameters (docs/policies.md). The URL rules still apply.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn elicit_url_without_lint<'e>(env: &'e Env, message: String, url: String) -> Result<Unknown<'e>> {
    json::to_js(env, &snodo::elicit_url_without_lint(&message, &url).map_err(core)?)
}

/// A URL-elicitation input request (http/https, host required, no userinfo, no
/// credential-looking parameters). Throws `URL`. Accept means consent, not completion.
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
