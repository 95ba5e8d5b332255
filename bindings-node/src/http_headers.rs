//! The Streamable HTTP request-metadata headers (`snodo::check_http_headers`). `req.headers` joins
//! a repeated header with ", ", hiding it from the check: pass `req.rawHeaders`.

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use serde_json::Value;

use crate::error::{Coded, Result, argument};
use crate::json;
use crate::response::Response;

const SHAPES: &str = "headers: give [name, value] pairs, req.rawHeaders, a Headers or Map, \
                      or an object of name to string or string[]";

/// `(name, value)` pairs from any of the shapes `SHAPES` lists, read as the JSON of a list: the
/// list itself, `Array.from` of a `Headers` or a `Map`, or `Object.entries` of a plain object
/// (`req.headers`, or `req.headersDistinct` with a string[] of one value per occurrence).
pub(crate) fn header_pairs(env: &Env, headers: Unknown) -> Result<Vec<(String, String)>> {
    let list = match (headers.is_array().coded()?, headers.get_type().coded()?) {
        (true, _) => headers,
        (false, ValueType::Object) => {
            let obj = Object::from_unknown(headers).coded()?;
            let entries: Unknown = obj.get_named_property("entries").coded()?;
            let (class, method) = match entries.get_type().coded()? {
                ValueType::Function => ("Array", "from"),
                _ => ("Object", "entries"),
            };
            let class: Object = env.get_global().coded()?.get_named_property_unchecked(class).coded()?;
            let f: Function<Unknown, Unknown> = class.get_named_property(method).coded()?;
            f.call(headers).coded()?
        }
        _ => return Err(argument(SHAPES)),
    };
    let Value::Array(items) = json::read(env, list, "headers")? else { return Err(argument(SHAPES)) };
    let text = |v: &Value, at: &dyn Fn() -> String| match v {
        Value::String(s) => Ok(s.clone()),
        _ => Err(argument(format!("headers{}: must be a string", at()))),
    };
    if !items.is_empty() && items.iter().all(Value::is_string) {
        // `req.rawHeaders`: name, value, name, value, … as received.
        if !items.len().is_multiple_of(2) {
            return Err(argument("headers: a flat list (req.rawHeaders) must have an even length"));
        }
        return Ok(items
            .chunks(2)
            .filter_map(|p| Some((p.first()?.as_str()?.into(), p.get(1)?.as_str()?.into())))
            .collect());
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some([name, value]) = item.as_array().map(Vec::as_slice) else {
            return Err(argument(format!("headers[{i}]: must be a [name, value] pair")));
        };
        let name = text(name, &|| format!("[{i}][0]"))?;
        match value {
            // `undefined` in a plain object (JSON null): no such header.
            Value::Null => {}
            Value::Array(values) => {
                for (j, v) in values.iter().enumerate() {
                    out.push((name.clone(), text(v, &|| format!(".{name}[{j}]"))?));
                }
            }
            v => out.push((name.clone(), text(v, &|| format!("[{i}][1]"))?)),
        }
    }
    Ok(out)
}

/// Checks `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` against the request (text or
/// object): `null` to go on to `engine.begin` (also for text that is not JSON), or the `-32020`
/// response (400) to send. Pass `req.rawHeaders`: `req.headers` joins a repeated header.
#[napi(catch_unwind)]
pub fn check_http_headers(
    env: &Env,
    #[napi(
        ts_arg_type = "Array<[string, string]> | string[] | Headers | Map<string, string> | Record<string, string | string[] | undefined>"
    )]
    headers: Unknown,
    #[napi(ts_arg_type = "string | Buffer | object")] request: Unknown,
) -> Result<Option<Response>> {
    let pairs = header_pairs(env, headers)?;
    let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    // Text that is not UTF-8 is not JSON either: left to `begin` (-32700).
    let text = json::text_of(env, request, "request")?;
    let response = std::str::from_utf8(&text).ok().and_then(|t| snodo::check_http_headers_text(&borrowed, t));
    Ok(response.map(|r| Response::from(&r)))
}
