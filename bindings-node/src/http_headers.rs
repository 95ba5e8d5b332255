//! The Streamable HTTP request-metadata headers (`snodo::check_http_headers`).
//!
//! Node's `req.headers` joins a repeated header with ", " (and lowercases
//! names), which hides "a standard header sent twice" from the core's
//! check: pass `req.rawHeaders` (or `req.headersDistinct`) to get the truth.

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};

use crate::error::{Result, argument, napi_failure};
use crate::json;
use crate::response::response_object;

const SHAPES: &str = "headers: give [name, value] pairs, req.rawHeaders, a Headers or Map, \
                      or an object of name to string or string[]";

fn text(v: Unknown, what: impl Fn() -> String) -> Result<String> {
    if v.get_type().map_err(napi_failure)? != ValueType::String {
        return Err(argument(format!("headers: {} must be a string", what())));
    }
    String::from_unknown(v).map_err(napi_failure)
}

fn from_array(arr: &Array) -> Result<Vec<(String, String)>> {
    let items: Vec<Unknown> = (0..arr.len())
        .map(|i| arr.get::<Unknown>(i).map_err(napi_failure)?.ok_or_else(|| argument(SHAPES)))
        .collect::<Result<_>>()?;
    let mut flat = true;
    for item in &items {
        if item.get_type().map_err(napi_failure)? != ValueType::String {
            flat = false;
        }
    }
    if flat && !items.is_empty() {
        // `req.rawHeaders`: name, value, name, value, … as received.
        if !items.len().is_multiple_of(2) {
            return Err(argument("headers: a flat list (req.rawHeaders) must have an even length"));
        }
        let mut out = Vec::with_capacity(items.len() / 2);
        let mut it = items.into_iter().enumerate();
        while let (Some((i, name)), Some((j, value))) = (it.next(), it.next()) {
            out.push((text(name, || format!("[{i}]"))?, text(value, || format!("[{j}]"))?));
        }
        return Ok(out);
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        if !item.is_array().map_err(napi_failure)? {
            return Err(argument(format!("headers[{i}]: must be a [name, value] pair")));
        }
        let pair = Array::from_unknown(item).map_err(napi_failure)?;
        let (Some(name), Some(value), 2) = (
            pair.get::<Unknown>(0).map_err(napi_failure)?,
            pair.get::<Unknown>(1).map_err(napi_failure)?,
            pair.len(),
        ) else {
            return Err(argument(format!("headers[{i}]: must be a [name, value] pair")));
        };
        out.push((text(name, || format!("[{i}][0]"))?, text(value, || format!("[{i}][1]"))?));
    }
    Ok(out)
}

/// `(name, value)` pairs from any of the shapes `SHAPES` lists.
pub(crate) fn header_pairs(env: &Env, headers: Unknown) -> Result<Vec<(String, String)>> {
    if headers.is_array().map_err(napi_failure)? {
        return from_array(&Array::from_unknown(headers).map_err(napi_failure)?);
    }
    if headers.get_type().map_err(napi_failure)? != ValueType::Object {
        return Err(argument(SHAPES));
    }
    let obj = Object::from_unknown(headers).map_err(napi_failure)?;
    let entries: Unknown = obj.get_named_property_unchecked("entries").map_err(napi_failure)?;
    if entries.get_type().map_err(napi_failure)? == ValueType::Function {
        // A fetch `Headers` or a `Map`: iterable of [name, value] pairs.
        let array_ctor: Object = env
            .get_global()
            .map_err(napi_failure)?
            .get_named_property_unchecked("Array")
            .map_err(napi_failure)?;
        let from: Function<Unknown, Unknown> =
            array_ctor.get_named_property_unchecked("from").map_err(napi_failure)?;
        let pairs = from.call(headers).map_err(napi_failure)?;
        return from_array(&Array::from_unknown(pairs).map_err(napi_failure)?);
    }
    // A plain object: `req.headers` (string values; repeats already joined)
    // or `req.headersDistinct` (string[] values, one per occurrence).
    let names = obj.get_property_names().map_err(napi_failure)?;
    let mut out = Vec::new();
    for i in 0..names.get_array_length().map_err(napi_failure)? {
        let name: String = names.get_element::<String>(i).map_err(napi_failure)?;
        let value: Unknown = obj.get_named_property_unchecked(&name).map_err(napi_failure)?;
        match value.get_type().map_err(napi_failure)? {
            ValueType::Undefined => {}
            ValueType::String => out.push((name, String::from_unknown(value).map_err(napi_failure)?)),
            _ if value.is_array().map_err(napi_failure)? => {
                let values = Array::from_unknown(value).map_err(napi_failure)?;
                for j in 0..values.len() {
                    let v =
                        values.get::<Unknown>(j).map_err(napi_failure)?.ok_or_else(|| argument(SHAPES))?;
                    out.push((name.clone(), text(v, || format!("{name}[{j}]"))?));
                }
            }
            _ => return Err(argument(format!("headers.{name}: must be a string or string[]"))),
        }
    }
    Ok(out)
}

/// Checks the Streamable HTTP request-metadata headers (`MCP-Protocol-Version`,
/// `Mcp-Method`, `Mcp-Name`) against the request (JSON text, Buffer or
/// object). Returns `null` when the request may go on to `engine.begin`, or
/// the ready `-32020` response (HTTP 400) to send instead. Text that is not
/// JSON is left to `begin` (`null`). Pass `req.rawHeaders`: `req.headers`
/// joins a repeated header, which the check must see twice.
#[napi(catch_unwind, ts_return_type = "Response | null")]
pub fn check_http_headers<'e>(
    env: &'e Env,
    #[napi(
        ts_arg_type = "Array<[string, string]> | string[] | Headers | Map<string, string> | Record<string, string | string[] | undefined>"
    )]
    headers: Unknown,
    #[napi(ts_arg_type = "string | Buffer | object")] request: Unknown,
) -> Result<Option<Unknown<'e>>> {
    let pairs = header_pairs(env, headers)?;
    let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let response = match request.get_type().map_err(napi_failure)? {
        ValueType::String => {
            snodo::check_http_headers_text(&borrowed, &String::from_unknown(request).map_err(napi_failure)?)
        }
        _ if request.is_buffer().map_err(napi_failure)? => {
            let bytes = Buffer::from_unknown(request).map_err(napi_failure)?;
            match std::str::from_utf8(&bytes) {
                Ok(text) => snodo::check_http_headers_text(&borrowed, text),
                // Not UTF-8, so not JSON: left to `begin` (-32700).
                Err(_) => None,
            }
        }
        _ => snodo::check_http_headers(&borrowed, &json::read(env, request, "request")?),
    };
    response.map(|r| response_object(env, &r)).transpose()
}
