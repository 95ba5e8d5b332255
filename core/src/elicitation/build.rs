//! The builders: form and URL elicitation, sampling, roots. Each returns
//! a [`Question`].

use serde_json::{Value, json};

use crate::error::{Error, ErrorCode};
use crate::schema;

use super::*;

/// Builds a form-mode `elicitation/create` request.
///
/// `message` must not be empty (or whitespace only): [`ErrorCode::InputRequest`].
/// `schema` must pass [`schema::validate_form_schema`]: [`ErrorCode::Schema`].
/// The result always carries `"mode":"form"`, although the spec lets form
/// mode omit it, so that clients never have to guess.
pub fn elicit_form(message: &str, schema: &Value) -> crate::Result<Question> {
    let request = elicit_form_without_lint(message, schema)?;
    // The safety heuristics: secrets asked by form, clickable URLs.
    if let Some(why) = super::lint::form_problem(message, schema) {
        return Err(Error::new(ErrorCode::Schema, why));
    }
    Ok(request)
}

/// [`elicit_form`] without the safety heuristics of `elicitation/lint.rs`
/// (fields that look like secrets, URLs in the form): the explicit opt-out
/// for a false positive. The spec's rules still hold; the application owns
/// them for this request.
pub fn elicit_form_without_lint(message: &str, schema: &Value) -> crate::Result<Question> {
    check_message(message, "message")?;
    schema::validate_form_schema(schema)?;
    let request = json!({
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": schema},
    });
    Question::new(request, RequestKind::Form)
}

/// Builds a URL-mode `elicitation/create` request.
///
/// `message` must not be empty ([`ErrorCode::InputRequest`]); `url` must pass
/// the crate's URL checks ([`ErrorCode::Url`]). No `elicitationId` is emitted: it
/// was removed in 2026-07-28, and a server that needs to correlate the
/// out-of-band flow keeps its own identifier in the sealed state.
pub fn elicit_url(message: &str, url: &str) -> crate::Result<Question> {
    let request = elicit_url_without_lint(message, url)?;
    // No credentials or personal data in the URL's query or fragment.
    if let Some(why) = super::lint::url_problem(url) {
        return Err(Error::new(ErrorCode::Url, why));
    }
    Ok(request)
}

/// [`elicit_url`] without the credential/PII heuristic of
/// `elicitation/lint.rs`: the explicit opt-out for a false positive.
pub fn elicit_url_without_lint(message: &str, url: &str) -> crate::Result<Question> {
    check_message(message, "message")?;
    validate_url(url)?;
    let request = json!({
        "method": "elicitation/create",
        "params": {"mode": "url", "message": message, "url": url},
    });
    Question::new(request, RequestKind::Url)
}

/// Builds a (deprecated) `sampling/createMessage` request from its params.
///
/// [`ErrorCode::Sampling`] if `params` is not a well-formed
/// `CreateMessageRequestParams`; see [`validate_input_request`].
#[deprecated(note = "sampling is deprecated in MCP 2026-07-28; prefer elicitation")]
pub fn sampling(params: &Value) -> crate::Result<Question> {
    check_sampling(params)?;
    Question::new(json!({"method": "sampling/createMessage", "params": params}), RequestKind::Sampling)
}

/// Builds a (deprecated) `roots/list` request.
#[deprecated(note = "roots are deprecated in MCP 2026-07-28")]
pub fn list_roots() -> Question {
    Question::within(json!({"method": "roots/list"}), RequestKind::Roots)
}
