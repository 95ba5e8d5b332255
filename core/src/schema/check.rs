//! Checking one answered value against its property.

use std::cmp::Ordering;
use std::collections::HashSet;

use serde_json::Value;

use super::*;

/// Checks one value (an answer or a default) against a property. The reason
/// names the rule broken but never quotes the value.
pub(super) fn check_value(kind: &Kind<'_>, v: &Value) -> Result<(), String> {
    match kind {
        Kind::String { min_length, max_length, format } => {
            let Value::String(s) = v else {
                return Err("expected a string".to_owned());
            };
            // JSON Schema counts code points: "😀" is one, "e\u{301}" is two.
            let len = s.chars().count() as u64;
            if let Some(min) = min_length.filter(|m| len < *m) {
                return Err(format!("shorter than minLength {min}"));
            }
            if let Some(max) = max_length.filter(|m| len > *m) {
                return Err(format!("longer than maxLength {max}"));
            }
            if let Some(f) = format.filter(|f| !f.accepts(s)) {
                return Err(format!("not a valid {}", f.name()));
            }
            Ok(())
        }
        Kind::Number { integer, minimum, maximum } => {
            let Value::Number(n) = v else {
                return Err(if *integer { "expected an integer" } else { "expected a number" }.to_owned());
            };
            if json::number_f64(n).is_none() {
                return Err("number out of range".to_owned());
            }
            if *integer && !json::number_is_integer(n) {
                return Err("expected an integer".to_owned());
            }
            if let Some(min) = minimum.filter(|m| number::compare(n, m) == Some(Ordering::Less)) {
                return Err(format!("below minimum {min}"));
            }
            if let Some(max) = maximum.filter(|m| number::compare(n, m) == Some(Ordering::Greater)) {
                return Err(format!("above maximum {max}"));
            }
            Ok(())
        }
        Kind::Boolean => match v {
            Value::Bool(_) => Ok(()),
            _ => Err("expected a boolean".to_owned()),
        },
        Kind::SingleSelect { options } => match v {
            Value::String(s) if options.contains(&s.as_str()) => Ok(()),
            Value::String(_) => Err("not one of the allowed values".to_owned()),
            _ => Err("expected a string".to_owned()),
        },
        Kind::MultiSelect { options, min_items, max_items, unique } => {
            let Value::Array(items) = v else {
                return Err("expected an array of strings".to_owned());
            };
            let mut seen = HashSet::new();
            for (i, item) in items.iter().enumerate() {
                let Value::String(s) = item else {
                    return Err(format!("item {i}: expected a string"));
                };
                if !options.contains(&s.as_str()) {
                    return Err(format!("item {i}: not one of the allowed values"));
                }
                if !seen.insert(s.as_str()) && *unique {
                    return Err(format!("item {i}: duplicate selection"));
                }
            }
            let count = items.len() as u64;
            if let Some(min) = min_items.filter(|m| count < *m) {
                return Err(format!("fewer than minItems {min} selections"));
            }
            if let Some(max) = max_items.filter(|m| count > *m) {
                return Err(format!("more than maxItems {max} selections"));
            }
            Ok(())
        }
    }
}
