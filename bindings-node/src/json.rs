//! How JSON crosses the boundary. In: text (`string`, `Buffer`, `Uint8Array`) is read exactly by
//! the core's strict reader; a JS value means what `JSON.stringify` sends (`undefined` vanishes,
//! `toJSON` is honoured, a number is already a double). Out: `JSON.parse` of the core's wire text
//! (integers above 2^53 lose precision; the exact text is there too, as `Response.json`).

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use serde_json::Value;

use crate::error::{Coded, Result, argument, core};

/// `JSON.stringify` and `JSON.parse` of one JS environment (the main thread's or a worker's), kept as
/// its instance data: looking them up on the global object cost three N-API calls a conversion.
struct JsonFunctions {
    stringify: FunctionRef<Unknown<'static>, Unknown<'static>>,
    parse: FunctionRef<Unknown<'static>, Unknown<'static>>,
}

/// `JSON.stringify` (or with `parse`, `JSON.parse`) as it was when this environment first needed it.
fn json_function(env: &Env, parse: bool) -> Result<Function<'_, Unknown<'static>, Unknown<'static>>> {
    if env.get_instance_data::<JsonFunctions>().coded()?.is_none() {
        let json: Object = env.get_global().coded()?.get_named_property("JSON").coded()?;
        let named = |name| json.get_named_property::<Function<Unknown, Unknown>>(name)?.create_ref();
        let fns = JsonFunctions { stringify: named("stringify").coded()?, parse: named("parse").coded()? };
        env.set_instance_data(fns, (), |_| {}).coded()?;
    }
    match env.get_instance_data::<JsonFunctions>().coded()? {
        Some(fns) => if parse { &fns.parse } else { &fns.stringify }.borrow_back(env).coded(),
        None => Err(argument("internal: JSON functions not kept")),
    }
}

/// `JSON.stringify(value)`, or `ARGUMENT` for what it cannot write (a BigInt, a cycle, a throwing
/// `toJSON`: the exception is cleared) or writes as nothing (`undefined`, a function).
pub fn stringify(env: &Env, value: Unknown<'_>, what: &str) -> Result<String> {
    match json_function(env, false)?.call(value) {
        Ok(text) if text.get_type().coded()? == ValueType::String => String::from_unknown(text).coded(),
        Ok(_) => Err(argument(format!("{what}: not representable as JSON"))),
        Err(_) => {
            Err(argument(format!("{what}: JSON.stringify failed (a BigInt, a cycle, or a throwing toJSON)")))
        }
    }
}

/// The bytes of a JSON argument: text as it is, a value through `JSON.stringify`.
pub fn text_of(env: &Env, value: Unknown<'_>, what: &str) -> Result<Vec<u8>> {
    if value.get_type().coded()? == ValueType::String {
        return Ok(String::from_unknown(value).coded()?.into_bytes());
    }
    if value.is_buffer().coded()? {
        return Ok(Buffer::from_unknown(value).coded()?.to_vec());
    }
    if value.is_typedarray().coded()?
        && let Ok(bytes) = Uint8Array::from_unknown(value)
    {
        return Ok(bytes.to_vec());
    }
    Ok(stringify(env, value, what)?.into_bytes())
}

/// A JSON argument (text or value) read by the core's strict reader (errors say `what`).
pub fn read(env: &Env, value: Unknown<'_>, what: &str) -> Result<Value> {
    snodo::parse_json(&text_of(env, value, what)?, what).map_err(core)
}

/// A plain JS value for `value`, by `JSON.parse` of its wire text.
pub fn to_js<'e>(env: &'e Env, value: &Value) -> Result<Unknown<'e>> {
    parse_to_js(env, &snodo::to_wire(value))
}

/// `JSON.parse(text)` of JSON text snodo wrote (so it cannot throw).
pub fn parse_to_js<'e>(env: &'e Env, text: &str) -> Result<Unknown<'e>> {
    let text = env.create_string(text).coded()?.to_unknown();
    json_function(env, true)?.call(text).coded()
}

/// `value` as an array of strings, or `None`.
pub fn strings(value: &Value) -> Option<Vec<String>> {
    value.as_array()?.iter().map(|v| v.as_str().map(str::to_owned)).collect()
}

/// `undefined` or `null`.
pub fn is_nullish(value: &Unknown<'_>) -> Result<bool> {
    Ok(matches!(value.get_type().coded()?, ValueType::Undefined | ValueType::Null))
}

/// The principal: a non-empty string, or `null` for the explicit anonymous principal. `undefined`
/// is refused so that a forgotten argument never silently means "anonymous".
pub fn principal(value: Unknown<'_>) -> Result<snodo::Principal> {
    match value.get_type().coded()? {
        ValueType::Null => Ok(snodo::Principal::anonymous()),
        ValueType::String => {
            let name = String::from_unknown(value).coded()?;
            snodo::Principal::from_option(Some(&name)).map_err(core)
        }
        _ => Err(argument("principal: must be a string, or null for anonymous")),
    }
}

/// A JSON-RPC id argument: a value, never text (a string id is a JSON string).
pub fn id(env: &Env, value: Unknown<'_>) -> Result<Value> {
    snodo::parse_json(stringify(env, value, "id")?.as_bytes(), "id").map_err(core)
}

/// The canonical form of a JSON value (docs/canonical-json.md): JSON text is read exactly; throws
/// `JSON` on invalid text or duplicate keys.
#[napi(catch_unwind)]
pub fn canonicalize(
    env: &Env,
    #[napi(ts_arg_type = "string | Buffer | object")] value: Unknown,
) -> Result<String> {
    snodo::canonicalize(text_of(env, value, "value")?).map_err(core)
}
