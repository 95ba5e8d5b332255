//! Reading a form schema into its properties, refusing anything outside
//! the restricted subset.

use std::cmp::Ordering;
use std::collections::HashSet;

use serde_json::{Map, Number, Value};

use super::formats::Format;
use super::*;

pub(super) const ROOT_KEYWORDS: &[&str] = &["$schema", "type", "properties", "required"];
pub(super) const STRING_KEYWORDS: &[&str] =
    &["type", "title", "description", "minLength", "maxLength", "format", "default"];
pub(super) const NUMBER_KEYWORDS: &[&str] =
    &["type", "title", "description", "minimum", "maximum", "default"];
pub(super) const BOOLEAN_KEYWORDS: &[&str] = &["type", "title", "description", "default"];
pub(super) const ENUM_KEYWORDS: &[&str] = &["type", "title", "description", "enum", "enumNames", "default"];
pub(super) const ONE_OF_KEYWORDS: &[&str] = &["type", "title", "description", "oneOf", "default"];
pub(super) const ARRAY_KEYWORDS: &[&str] =
    &["type", "title", "description", "items", "minItems", "maxItems", "uniqueItems", "default"];

/// The one dialect snodo validates form schemas in: the spec's default,
/// JSON Schema 2020-12. Any other `$schema` is refused at build, as the spec
/// requires for an unsupported dialect.
pub const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";
pub(super) const UNTITLED_ITEMS_KEYWORDS: &[&str] = &["type", "enum"];
pub(super) const TITLED_ITEMS_KEYWORDS: &[&str] = &["anyOf"];
pub(super) const OPTION_KEYWORDS: &[&str] = &["const", "title"];

pub(super) fn parse_schema(schema: &Value) -> Result<Parsed<'_>, String> {
    let Value::Object(root) = schema else {
        return Err("schema: must be an object".to_owned());
    };
    only_keywords(root, ROOT_KEYWORDS, "")?;
    match root.get("$schema") {
        None => {}
        Some(Value::String(d)) if d.strip_suffix('#').unwrap_or(d) == SCHEMA_DIALECT => {}
        Some(Value::String(d)) => {
            return Err(format!("$schema: unsupported dialect {d:?}; only {SCHEMA_DIALECT} is supported"));
        }
        Some(_) => return Err("$schema: must be a string".to_owned()),
    }
    match root.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        Some(_) => return Err("type: must be \"object\"".to_owned()),
        None => return Err("type: required (\"object\")".to_owned()),
    }
    let Some(props) = root.get("properties") else {
        return Err("properties: required".to_owned());
    };
    let Value::Object(props) = props else {
        return Err("properties: must be an object".to_owned());
    };
    let mut properties = Vec::with_capacity(props.len());
    // One buffer for every property's path (it only ever appears in an
    // error), not a `format!` each: `decide` reads every form schema.
    let mut path = String::new();
    for (name, prop) in props {
        if name.is_empty() {
            return Err("properties: property names must be non-empty".to_owned());
        }
        path.clear();
        path.push_str("properties.");
        path.push_str(name);
        properties.push((name.as_str(), parse_property(&path, prop)?));
    }
    let required = match root.get("required") {
        None => Vec::new(),
        Some(v) => unique_strings(v, "required", false)?,
    };
    if let Some(name) = required.iter().find(|n| !props.contains_key(**n)) {
        return Err(format!("required: names {name:?}, which is not in properties"));
    }
    Ok(Parsed { properties, required })
}

pub(super) fn parse_property<'a>(path: &str, prop: &'a Value) -> Result<Kind<'a>, String> {
    let Value::Object(p) = prop else {
        return Err(format!("{path}: must be an object"));
    };
    let kind = match p.get("type") {
        None => return Err(format!("{path}.type: required")),
        Some(Value::String(t)) => t.as_str(),
        Some(_) => return Err(format!("{path}.type: must be a string")),
    };
    for annotation in ["title", "description"] {
        if p.get(annotation).is_some_and(|v| !v.is_string()) {
            return Err(format!("{path}.{annotation}: must be a string"));
        }
    }
    let parsed = match kind {
        "string" => match (p.get("enum"), p.get("oneOf")) {
            (Some(_), Some(_)) => return Err(format!("{path}: enum and oneOf cannot be combined")),
            (Some(values), None) => {
                only_keywords(p, ENUM_KEYWORDS, path)?;
                let options = unique_strings(values, &format!("{path}.enum"), true)?;
                if let Some(names) = p.get("enumNames") {
                    let names = strings(names, &format!("{path}.enumNames"))?;
                    if names.len() != options.len() {
                        return Err(format!("{path}.enumNames: must have as many entries as enum"));
                    }
                }
                Kind::SingleSelect { options }
            }
            (None, Some(one_of)) => {
                only_keywords(p, ONE_OF_KEYWORDS, path)?;
                Kind::SingleSelect { options: titled_options(one_of, &format!("{path}.oneOf"))? }
            }
            (None, None) => {
                only_keywords(p, STRING_KEYWORDS, path)?;
                let (min_length, max_length) = count_bounds(p, path, "minLength", "maxLength")?;
                let format = match p.get("format") {
                    None => None,
                    Some(Value::String(f)) => Some(Format::from_name(f).ok_or_else(|| {
                        format!("{path}.format: must be one of email, uri, date, date-time")
                    })?),
                    Some(_) => return Err(format!("{path}.format: must be a string")),
                };
                Kind::String { min_length, max_length, format }
            }
        },
        "number" | "integer" => {
            only_keywords(p, NUMBER_KEYWORDS, path)?;
            let minimum = finite_number(p, path, "minimum")?;
            let maximum = finite_number(p, path, "maximum")?;
            if let (Some(lo), Some(hi)) = (minimum, maximum)
                && number::compare(lo, hi) == Some(Ordering::Greater)
            {
                return Err(format!("{path}.minimum: greater than maximum"));
            }
            Kind::Number { integer: kind == "integer", minimum, maximum }
        }
        "boolean" => {
            only_keywords(p, BOOLEAN_KEYWORDS, path)?;
            Kind::Boolean
        }
        "array" => {
            only_keywords(p, ARRAY_KEYWORDS, path)?;
            let options = match p.get("items") {
                None => return Err(format!("{path}.items: required for a multi-select")),
                Some(items) => multi_select_options(items, &format!("{path}.items"))?,
            };
            let (min_items, max_items) = count_bounds(p, path, "minItems", "maxItems")?;
            let unique = match p.get("uniqueItems") {
                None => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(format!("{path}.uniqueItems: must be a boolean")),
            };
            Kind::MultiSelect { options, min_items, max_items, unique }
        }
        other => {
            return Err(format!(
                "{path}.type: {other:?} is not allowed (string, number, integer, boolean or array)"
            ));
        }
    };
    if let Some(default) = p.get("default") {
        check_value(&parsed, default).map_err(|why| format!("{path}.default: {why}"))?;
    }
    Ok(parsed)
}

/// The options of a multi-select's `items`: `{type:"string", enum:[...]}` or
/// `{anyOf:[{const,title}...]}`, nothing else.
pub(super) fn multi_select_options<'a>(items: &'a Value, path: &str) -> Result<Vec<&'a str>, String> {
    let Value::Object(items) = items else {
        return Err(format!("{path}: must be an object"));
    };
    if let Some(any_of) = items.get("anyOf") {
        only_keywords(items, TITLED_ITEMS_KEYWORDS, path)?;
        return titled_options(any_of, &format!("{path}.anyOf"));
    }
    only_keywords(items, UNTITLED_ITEMS_KEYWORDS, path)?;
    match items.get("type") {
        Some(Value::String(t)) if t == "string" => {}
        Some(_) => return Err(format!("{path}.type: must be \"string\"")),
        None => return Err(format!("{path}: must be {{type:\"string\", enum}} or {{anyOf}}")),
    }
    match items.get("enum") {
        Some(values) => unique_strings(values, &format!("{path}.enum"), true),
        None => Err(format!("{path}.enum: required")),
    }
}

/// A non-empty array of `{const: string, title: string}` with unique consts.
pub(super) fn titled_options<'a>(v: &'a Value, path: &str) -> Result<Vec<&'a str>, String> {
    let Value::Array(entries) = v else {
        return Err(format!("{path}: must be an array"));
    };
    if entries.is_empty() {
        return Err(format!("{path}: must not be empty"));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let Value::Object(o) = entry else {
            return Err(format!("{at}: must be an object with const and title"));
        };
        only_keywords(o, OPTION_KEYWORDS, &at)?;
        let Some(Value::String(c)) = o.get("const") else {
            return Err(format!("{at}.const: required, a string"));
        };
        if !matches!(o.get("title"), Some(Value::String(_))) {
            return Err(format!("{at}.title: required, a string"));
        }
        if !seen.insert(c.as_str()) {
            return Err(format!("{at}.const: duplicate value"));
        }
        out.push(c.as_str());
    }
    Ok(out)
}

/// An array of strings, unique; optionally required to be non-empty.
pub(super) fn unique_strings<'a>(v: &'a Value, path: &str, non_empty: bool) -> Result<Vec<&'a str>, String> {
    let out = strings(v, path)?;
    if non_empty && out.is_empty() {
        return Err(format!("{path}: must not be empty"));
    }
    // The first entry equal to an earlier one. A short list (a schema's
    // `required`, most enums) is scanned; a long one goes through a set.
    let repeated = if out.len() <= 16 {
        (1..out.len()).find(|&i| {
            out.split_at_checked(i)
                .is_some_and(|(before, after)| after.first().is_some_and(|s| before.contains(s)))
        })
    } else {
        let mut seen = HashSet::new();
        out.iter().position(|s| !seen.insert(*s))
    };
    if let Some(i) = repeated {
        return Err(format!("{path}[{i}]: duplicate value"));
    }
    Ok(out)
}

pub(super) fn strings<'a>(v: &'a Value, path: &str) -> Result<Vec<&'a str>, String> {
    let Value::Array(items) = v else {
        return Err(format!("{path}: must be an array of strings"));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| item.as_str().ok_or_else(|| format!("{path}[{i}]: must be a string")))
        .collect()
}

/// Refuses the first keyword not in `allowed` (the map is sorted, so the
/// report is deterministic).
pub(super) fn only_keywords(obj: &Map<String, Value>, allowed: &[&str], path: &str) -> Result<(), String> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) if path.is_empty() => Err(format!("{k}: keyword not allowed in requestedSchema")),
        Some(k) => Err(format!("{path}.{k}: keyword not allowed here")),
    }
}

/// A pair of optional non-negative integer bounds with `lo <= hi`.
pub(super) fn count_bounds(
    p: &Map<String, Value>,
    path: &str,
    lo_key: &str,
    hi_key: &str,
) -> Result<(Option<u64>, Option<u64>), String> {
    let lo = non_negative_integer(p, path, lo_key)?;
    let hi = non_negative_integer(p, path, hi_key)?;
    if let (Some(lo), Some(hi)) = (lo, hi)
        && lo > hi
    {
        return Err(format!("{path}.{lo_key}: greater than {hi_key}"));
    }
    Ok((lo, hi))
}

pub(super) fn non_negative_integer(
    p: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<Option<u64>, String> {
    let Some(v) = p.get(key) else {
        return Ok(None);
    };
    let bad = || format!("{path}.{key}: must be a non-negative integer");
    let Value::Number(n) = v else {
        return Err(bad());
    };
    match json::number_f64(n) {
        // 2020-12 judges integers by value, so 3.0 is 3. The float-to-int
        // `as` cast saturates, and counts that large are meaningless anyway.
        Some(f) if f >= 0.0 && json::number_is_integer(n) => Ok(Some(f as u64)),
        _ => Err(bad()),
    }
}

pub(super) fn finite_number<'a>(
    p: &'a Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<Option<&'a Number>, String> {
    match p.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) if json::number_f64(n).is_some() => Ok(Some(n)),
        Some(_) => Err(format!("{path}.{key}: must be a finite number")),
    }
}
