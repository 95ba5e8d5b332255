//! `new Engine(config)` read through the core's one schema (`snodo::LIMITS`, camelCase): every
//! range, default and message is the core's, naming the field as Node spells it (`ttlSecs`).

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use serde_json::Value;
use snodo::{Config, Key};

use crate::error::{Coded, Result, config, core};
use crate::json;

/// One key of the ring.
// TypeScript shape only: read field by field below, so every mistake throws `CONFIG`.
#[napi(object)]
#[allow(missing_debug_implementations, dead_code)]
pub struct EngineKey {
    /// 1 to 32 characters of `A-Z a-z 0-9 _ -`; written into every token.
    pub id: String,
    /// 32 to 1024 random bytes. Never shown by the engine afterwards.
    pub secret: Buffer,
}

/// `new Engine(config)`. Every field but `keys` is optional; the limits' ranges and defaults are
/// the core's `LIMITS` table (docs/api.md).
// TypeScript shape only. A test checks its fields are the core's limits plus those `read` handles.
#[napi(object)]
#[allow(missing_debug_implementations, dead_code)]
pub struct EngineConfig {
    /// 1 to 8 keys: the first signs, all verify (rotation).
    pub keys: Vec<EngineKey>,
    /// Token lifetime, seconds.
    pub ttl_secs: Option<i64>,
    /// Most rounds per flow.
    pub max_rounds: Option<i64>,
    /// Oldest a flow may get, seconds.
    pub max_flow_age_secs: Option<i64>,
    /// Largest `requestState`, bytes.
    pub max_token_bytes: Option<i64>,
    /// Largest request message `begin` reads, bytes.
    pub max_request_bytes: Option<i64>,
    /// Most `inputResponses` entries.
    pub max_input_responses: Option<i64>,
    /// Tolerated clock skew, seconds.
    pub clock_skew_secs: Option<i64>,
    /// Accepted protocol versions (default `["2026-07-28"]`).
    pub supported_versions: Option<Vec<String>>,
    /// Accepted 2025-era revisions for `beginLegacy` (default the three 2025 ones; empty disables
    /// legacy serving).
    pub legacy_versions: Option<Vec<String>>,
    /// `io.modelcontextprotocol/serverInfo` stamped on every result's `_meta`.
    #[napi(ts_type = "Record<string, any>")]
    pub server_info: Option<()>,
    /// Tests only: a fixed clock (Unix seconds). Refused (`CONFIG`) unless the addon was built with
    /// the cargo feature `test-knobs`.
    pub fixed_time: Option<i64>,
    /// `true`: answers sent without `requestState` are never read (only a verified token pins what
    /// was asked). Default `false`.
    pub strict_answers: Option<bool>,
    /// This service's name, bound into every token (1 to 256 bytes).
    pub audience: Option<String>,
    /// Token format sealed: 1 signed (default), 2 encrypted.
    pub token_version: Option<i64>,
    /// Oldest token format opened: 1 (default, both) or 2 (v1 tokens are refused); at most
    /// `tokenVersion`.
    pub min_token_version: Option<i64>,
    /// Tests only: non-zero makes token ids and v2 nonces predictable. Refused (`CONFIG`) unless
    /// the addon was built with the cargo feature `test-knobs`.
    pub test_random_seed: Option<i64>,
}

/// The config fields that are not rows of the core's `LIMITS` (camelCase).
const OTHER_FIELDS: &str =
    "keys supportedVersions legacyVersions serverInfo fixedTime strictAnswers audience testRandomSeed";

/// The test-only settings, applied by a build with the cargo feature `test-knobs` (the test
/// suites'), refused by any other: an installed package never predicts its ids or stops its clock.
#[cfg(feature = "test-knobs")]
fn test_knob(mut c: Config, name: &str, value: u64) -> Result<Config> {
    match name {
        "fixedTime" => Ok(c.fixed_time(value)),
        _ => c.set_limit(name, value).map(|()| c).map_err(core),
    }
}

#[cfg(not(feature = "test-knobs"))]
fn test_knob(_: Config, name: &str, _: u64) -> Result<Config> {
    Err(config(format!(
        "{name}: a test-only setting, absent from this build (the addon was built without the cargo \
         feature test-knobs)"
    )))
}

/// Refuses a field the engine does not know, so that a misspelt or renamed one (`now` became
/// `fixedTime`) is an error, never silently ignored.
fn known_fields(obj: &Object) -> Result<()> {
    let names = obj.get_property_names().coded()?;
    for i in 0..names.get_array_length().coded()? {
        let name: String = names.get_element::<String>(i).coded()?;
        if !OTHER_FIELDS.split(' ').any(|f| f == name) && !snodo::LIMITS.iter().any(|l| l.camel == name) {
            let hint = if name == "now" { " (the fixed clock is `fixedTime`)" } else { "" };
            return Err(config(format!("{name}: unknown config field{hint}")));
        }
    }
    Ok(())
}

fn prop<'e>(obj: &Object<'e>, name: &str) -> Result<Option<Unknown<'e>>> {
    let v: Unknown = obj.get_named_property_unchecked(name).coded()?;
    if json::is_nullish(&v)? { Ok(None) } else { Ok(Some(v)) }
}

fn typed<'e>(obj: &Object<'e>, name: &str, ty: ValueType, what: &str) -> Result<Option<Unknown<'e>>> {
    match prop(obj, name)? {
        Some(v) if v.get_type().coded()? != ty => Err(config(format!("{name}: must be {what}"))),
        other => Ok(other),
    }
}

fn number(env: &Env, obj: &Object, name: &str) -> Result<Option<u64>> {
    let Some(v) = typed(obj, name, ValueType::Number, "a non-negative integer")? else { return Ok(None) };
    match json::read(env, v, name)? {
        Value::Number(n) if n.as_u64().is_some() => Ok(n.as_u64()),
        _ => Err(config(format!("{name}: must be a non-negative integer"))),
    }
}

/// An array of strings, or `None` when absent.
fn strings(env: &Env, obj: &Object, name: &str) -> Result<Option<Vec<String>>> {
    let Some(v) = typed(obj, name, ValueType::Object, "an array of strings")? else { return Ok(None) };
    let bad = || config(format!("{name}: must be an array of strings"));
    json::strings(&json::read(env, v, name).map_err(|_| bad())?).map(Some).ok_or_else(bad)
}

fn read_key(item: Unknown, i: usize) -> Result<Key> {
    let what = format!("keys[{i}]");
    if item.get_type().coded()? != ValueType::Object {
        return Err(config(format!("{what}: must be {{id, secret}}")));
    }
    let obj = Object::from_unknown(item).coded()?;
    let id = match prop(&obj, "id")? {
        Some(v) if v.get_type().coded()? == ValueType::String => String::from_unknown(v).coded()?,
        _ => return Err(config(format!("{what}.id: must be a string"))),
    };
    let bad_secret = || config(format!("{what}.secret: must be a Buffer or Uint8Array"));
    let secret = match prop(&obj, "secret")? {
        Some(v) if v.is_buffer().coded()? => Buffer::from_unknown(v).coded()?.to_vec(),
        Some(v) if v.is_typedarray().coded()? => {
            Uint8Array::from_unknown(v).map_err(|_| bad_secret())?.to_vec()
        }
        _ => return Err(bad_secret()),
    };
    Key::new(id, secret).map_err(core)
}

/// Reads `new Engine(config)`'s argument into the core's `Config`; with `from_env` (the ring
/// `Engine.fromEnv` read from `SNODO_KEYS`), its options: the same fields but `keys`.
pub(crate) fn read(env: &Env, value: Unknown, from_env: Option<Vec<Key>>) -> Result<Config> {
    let obj = match value.get_type().coded()? {
        ValueType::Object => Object::from_unknown(value).coded()?,
        ValueType::Undefined | ValueType::Null if from_env.is_some() => Object::new(env).coded()?,
        _ => return Err(config("config: must be an object")),
    };
    known_fields(&obj)?;
    let keys = match (prop(&obj, "keys")?, from_env) {
        (None, Some(ring)) => Err(ring),
        (Some(_), Some(_)) => return Err(config("keys: Engine.fromEnv reads them from SNODO_KEYS")),
        (None, None) => return Err(config("keys: required, an array of {id, secret}")),
        (Some(keys), None) if keys.is_array().coded()? => Ok(Array::from_unknown(keys).coded()?),
        (Some(_), None) => return Err(config("keys: must be an array of {id, secret}")),
    };
    let ring = match keys {
        Err(ring) => ring,
        Ok(keys) => (0..keys.len())
            .map(|i| read_key(keys.get(i).coded()?.ok_or_else(|| config("keys: hole"))?, i as usize))
            .collect::<Result<Vec<Key>>>()?,
    };
    let mut c = Config::new(ring);
    // Node spells config names in camelCase; the core's errors follow.
    c.spelling = snodo::Spelling::Camel;
    // Every numeric limit from the core's one schema: no line per limit here.
    for limit in &snodo::LIMITS {
        if let Some(n) = number(env, &obj, limit.camel)? {
            c.set_limit(limit.camel, n).map_err(core)?;
        }
    }
    if let Some(v) = strings(env, &obj, c.field_name("supported_versions"))? {
        c.supported_versions = v;
    }
    if let Some(v) = strings(env, &obj, c.field_name("legacy_versions"))? {
        c.legacy_versions = v;
    }
    let name = c.field_name("server_info");
    if let Some(v) = prop(&obj, name)? {
        c.server_info = Some(json::read(env, v, name).map_err(|e| config(e.reason.clone()))?);
    }
    for name in ["fixedTime", "testRandomSeed"] {
        if let Some(value) = number(env, &obj, name)? {
            c = test_knob(c, name, value)?;
        }
    }
    if let Some(v) = typed(&obj, c.field_name("strict_answers"), ValueType::Boolean, "a boolean")? {
        c.strict_answers = bool::from_unknown(v).coded()?;
    }
    if let Some(v) = typed(&obj, c.field_name("audience"), ValueType::String, "a string")? {
        c.audience = Some(String::from_unknown(v).coded()?);
    }
    Ok(c)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    /// The TypeScript `EngineConfig` lists exactly the core's limits plus
    /// the fields `read` handles itself: it cannot drift from the core's
    /// table (the old second copy in `types.rs` did).
    #[test]
    fn engine_config_type_matches_core_table() {
        let src = include_str!("config.rs");
        let body = &src[src.find("pub struct EngineConfig {").unwrap()..];
        let body = &body[..body.find("\n}").unwrap()];
        let fields: Vec<String> = body
            .lines()
            .filter_map(|l| l.trim().strip_prefix("pub ")?.split_once(':').map(|(n, _)| n.to_owned()))
            .filter(|n| !n.starts_with("struct"))
            .collect();
        let camel = |snake: &str| {
            let mut parts = snake.split('_');
            let first = parts.next().unwrap_or_default().to_owned();
            parts.fold(first, |acc, p| acc + &p[..1].to_uppercase() + &p[1..])
        };
        let mut fields: Vec<String> = fields.iter().map(|f| camel(f)).collect();
        let mut want: Vec<String> = snodo::LIMITS.iter().map(|l| l.camel.to_owned()).collect();
        want.extend(super::OTHER_FIELDS.split(' ').map(str::to_owned));
        fields.sort();
        want.sort();
        assert_eq!(fields, want);
    }
}
