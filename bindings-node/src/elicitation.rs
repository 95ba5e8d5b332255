//! Builders of input requests (the core's `elicitation`): each returns a `Question`.

use napi::bindgen_prelude::*;

use crate::error::Result;
use crate::json;
use crate::question::{Question, made};

/// A form-elicitation question: `message` and a flat `requestedSchema` (JSON text or object).
/// Throws `SCHEMA` if the schema is outside the spec's subset.
#[napi(catch_unwind)]
pub fn elicit_form(
    env: &Env,
    message: String,
    #[napi(ts_arg_type = "object | string | Buffer")] schema: Unknown,
) -> Result<Question> {
    made(snodo::elicit_form(&message, &json::read(env, schema, "schema")?))
}

/// `elicitForm` without the secret/URL lint on field names and formats: for a field the heuristic
/// flags wrongly (docs/policies.md). The schema rules still apply.
#[napi(catch_unwind)]
pub fn elicit_form_without_lint(
    env: &Env,
    message: String,
    #[napi(ts_arg_type = "object | string | Buffer")] schema: Unknown,
) -> Result<Question> {
    made(snodo::elicit_form_without_lint(&message, &json::read(env, schema, "schema")?))
}

/// A URL-elicitation question (http/https, host required, no userinfo, no credential-looking
/// parameters). Throws `URL`. Accept means consent, not completion.
#[napi(catch_unwind)]
pub fn elicit_url(message: String, url: String) -> Result<Question> {
    made(snodo::elicit_url(&message, &url))
}

/// `elicitUrl` without the credential/PII lint on query and fragment parameters (docs/policies.md).
/// The URL rules still apply.
#[napi(catch_unwind)]
pub fn elicit_url_without_lint(message: String, url: String) -> Result<Question> {
    made(snodo::elicit_url_without_lint(&message, &url))
}

/// A sampling (`sampling/createMessage`) question. Throws `SAMPLING`.
/// @deprecated Sampling is deprecated in MCP 2026-07-28.
#[napi(catch_unwind)]
#[allow(deprecated)]
pub fn sampling(
    env: &Env,
    #[napi(ts_arg_type = "object | string | Buffer")] params: Unknown,
) -> Result<Question> {
    made(snodo::sampling(&json::read(env, params, "params")?))
}

/// A `roots/list` question.
/// @deprecated Roots are deprecated in MCP 2026-07-28.
#[napi(catch_unwind)]
#[allow(deprecated)]
pub fn list_roots() -> Question {
    Question { inner: snodo::list_roots() }
}
