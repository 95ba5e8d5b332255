//! The restricted form-schema subset, and answers checked against it.
//!
//! Form elicitation may only ask for a flat object of primitive properties
//! (MCP 2026-07-28, `PrimitiveSchemaDefinition`). [`validate_form_schema`]
//! enforces that with an explicit keyword allowlist per property variant, so a
//! keyword the spec does not list (`pattern`, `$ref`, `additionalProperties`,
//! ...) is refused instead of being silently ignored by some clients and
//! honoured by others. [`validate_content`] checks the content of an `accept`
//! answer against a schema that passed.
//!
//! Both functions read the schema through the same parser ([`parse_schema`]),
//! and a property's `default` is checked with the same code as an answer, so
//! "the default satisfies its own schema" and "the answer satisfies the
//! schema" can never drift apart.

mod check;
mod formats;
mod number;
mod parse;

use serde_json::{Map, Number, Value};

use crate::error::{Error, ErrorCode};
use crate::json;
use check::*;
use formats::Format;
use parse::*;

/// Validates a form-elicitation `requestedSchema` against the spec's
/// restricted flat subset.
///
/// Errors have code [`ErrorCode::Schema`] and a message that starts with the
/// offending path, e.g. `properties.age.minimum: must be a number`.
pub fn validate_form_schema(schema: &Value) -> crate::Result<()> {
    parse_schema(schema).map(|_| ()).map_err(|m| Error::new(ErrorCode::Schema, m))
}

/// Validates accepted form content against a schema that passed
/// [`validate_form_schema`].
///
/// On success, returns the content with only the properties the schema names:
/// properties it does not name are dropped, never an error. On failure,
/// returns a reason that starts with the offending property, e.g.
/// `age: below minimum 18`. Reasons never quote the submitted value.
pub fn validate_content(schema: &Value, content: &Value) -> Result<Map<String, Value>, String> {
    let parsed = parse_schema(schema).map_err(|m| format!("requestedSchema: {m}"))?;
    let Value::Object(content) = content else {
        return Err("content: must be an object".to_owned());
    };
    for name in &parsed.required {
        if !content.contains_key(*name) {
            return Err(format!("{name}: required property is missing"));
        }
    }
    let mut out = Map::new();
    for (name, kind) in &parsed.properties {
        if let Some(value) = content.get(*name) {
            check_value(kind, value).map_err(|why| format!("{name}: {why}"))?;
            out.insert((*name).to_owned(), value.clone());
        }
    }
    Ok(out)
}

/// A schema of the subset, borrowed from the JSON it was read from.
struct Parsed<'a> {
    properties: Vec<(&'a str, Kind<'a>)>,
    required: Vec<&'a str>,
}

/// What one property accepts. The titled/untitled and legacy enum variants
/// differ only in presentation, so they share a kind.
enum Kind<'a> {
    String {
        min_length: Option<u64>,
        max_length: Option<u64>,
        format: Option<Format>,
    },
    Number {
        integer: bool,
        minimum: Option<&'a Number>,
        maximum: Option<&'a Number>,
    },
    Boolean,
    SingleSelect {
        options: Vec<&'a str>,
    },
    /// `unique`: the schema says `uniqueItems: true`; without it a repeated
    /// selection is valid, as JSON Schema says.
    MultiSelect {
        options: Vec<&'a str>,
        min_items: Option<u64>,
        max_items: Option<u64>,
        unique: bool,
    },
}

#[cfg(test)]
mod tests;
