//! Elicitation safety heuristics applied by the builders.
//!
//! The spec leaves three duties to the server that only a heuristic can
//! check from the request: never collect secrets by form (MUST NOT: passwords,
//! API keys, access tokens, payment credentials), no clickable URLs in a form
//! request (SHOULD NOT), and no credentials or personal data in a URL-mode URL
//! (MUST NOT). `elicit_form` and `elicit_url` refuse what these functions
//! flag; `elicit_form_without_lint` and `elicit_url_without_lint` are the
//! explicit opt-outs for a false positive. `decide` does not apply them (a
//! heuristic is not a protocol rule), so hand-built requests are unchecked.
//!
//! Names are normalised (lowercase ASCII letters and digits only, so
//! `API-Key`, `api_key` and `apiKey` are all `apikey`) and matched against
//! the word lists below.

use serde_json::Value;

/// A form field whose normalised name or title *contains* one of these is a
/// secret (checked with `contains`: `user_password`, `githubToken`).
const SECRET_PARTS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "apikey",
    "secret",
    "token",
    "privatekey",
    "credential",
    "cardnumber",
    "creditcard",
    "ccnumber",
    "cvv",
    "cvc",
    "iban",
    "accountnumber",
    "routingnumber",
];
/// A form field whose normalised name or title *equals* one of these is a
/// secret (too short to match inside other words).
const SECRET_WORDS: &[&str] = &["pin", "pwd", "otp", "ssn", "cvv2", "pan"];
/// URL query or fragment parameters that carry credentials or personal data.
const URL_PARAM_PARTS: &[&str] = &[
    "token",
    "apikey",
    "password",
    "passwd",
    "secret",
    "session",
    "auth",
    "credential",
    "email",
    "phone",
    "ssn",
    "birth",
    "address",
    "creditcard",
    "cardnumber",
];

fn normalise(s: &str) -> String {
    s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

fn is_secret_label(label: &str) -> bool {
    let n = normalise(label);
    SECRET_PARTS.iter().any(|p| n.contains(p)) || SECRET_WORDS.contains(&n.as_str())
}

/// Whether `text` contains something a client could render as a link.
fn has_link(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("http://") || lower.contains("https://") || lower.contains("www.")
}

/// The first problem in a form request's message and schema: a property
/// that looks like a secret (by name, title or `format`), or a URL in the
/// message or in a title/description. `None` when clean.
pub fn form_problem(message: &str, schema: &Value) -> Option<String> {
    if has_link(message) {
        return Some(
            "message: contains a URL; form requests should not carry clickable URLs (use URL mode)"
                .to_owned(),
        );
    }
    let props = schema.get("properties").and_then(Value::as_object)?;
    for (name, prop) in props {
        let title = prop.get("title").and_then(Value::as_str).unwrap_or("");
        if is_secret_label(name) || is_secret_label(title) {
            return Some(format!(
                "properties.{name}: looks like a secret (password, API key, token or payment credential); the spec forbids collecting those by form: use URL mode"
            ));
        }
        for field in ["title", "description"] {
            if prop.get(field).and_then(Value::as_str).is_some_and(has_link) {
                return Some(format!(
                    "properties.{name}.{field}: contains a URL; form requests should not carry clickable URLs"
                ));
            }
        }
    }
    None
}

/// The first problem with a URL-mode URL: a query or fragment parameter
/// whose name suggests credentials or personal data, or a value that looks
/// like an e-mail address. `None` when clean.
pub fn url_problem(url: &str) -> Option<String> {
    let after = url.split_once('?').map(|(_, q)| q).or_else(|| url.split_once('#').map(|(_, f)| f))?;
    for pair in after.split(['&', '#', ';']) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let n = normalise(name);
        if !n.is_empty() && URL_PARAM_PARTS.iter().any(|p| n.contains(p)) {
            return Some(format!(
                "url: parameter {name:?} looks like a credential or personal data; the spec forbids those in a URL-mode URL (keep them server-side, keyed by an opaque id)"
            ));
        }
        if value.contains('@') || value.to_ascii_lowercase().contains("%40") {
            return Some(format!("url: parameter {name:?} looks like an e-mail address (personal data)"));
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema(name: &str, prop: Value) -> Value {
        json!({"type":"object","properties":{name: prop}})
    }

    #[test]
    fn secrets_by_name_or_title() {
        for name in [
            "password",
            "api_key",
            "apiKey",
            "API-Key",
            "githubToken",
            "card_number",
            "cvv",
            "pin",
            "client_secret",
        ] {
            assert!(form_problem("m", &schema(name, json!({"type":"string"}))).is_some(), "{name}");
        }
        assert!(form_problem("m", &schema("x", json!({"type":"string","title":"Password"}))).is_some());
        for name in ["name", "email", "pinned", "spinach", "color", "tokenizer_name_is_fine?"] {
            let flagged = form_problem("m", &schema(name, json!({"type":"string"}))).is_some();
            assert_eq!(flagged, name.contains("token"), "{name}");
        }
    }

    #[test]
    fn links_in_forms() {
        assert!(form_problem("See https://evil.example", &schema("a", json!({"type":"string"}))).is_some());
        assert!(
            form_problem("m", &schema("a", json!({"type":"string","description":"www.x.example"}))).is_some()
        );
        assert!(form_problem("Pick a color", &schema("a", json!({"type":"string"}))).is_none());
    }

    #[test]
    fn urls() {
        assert!(url_problem("https://a.example/cb?access_token=abc").is_some());
        assert!(url_problem("https://a.example/cb?x=1&email=a%40b.c").is_some());
        assert!(url_problem("https://a.example/cb?user=alice@example.com").is_some());
        assert!(url_problem("https://a.example/cb#id_token=abc").is_some());
        assert!(url_problem("https://a.example/ui/set_api_key").is_none());
        assert!(url_problem("https://a.example/cb?flow=7f3a&step=2").is_none());
    }
}
