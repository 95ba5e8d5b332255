//! Crossing the JSON boundary.
//!
//! In: a JSON argument is either *text* (a `string` or a `Buffer`), parsed by
//! the core exactly (number spellings kept, `1.0` ≠ `1`, big integers exact,
//! duplicate keys refused), or a plain *value*, which is converted with
//! `JSON.stringify` and that text parsed. So value input means exactly what
//! `JSON.stringify` sends: `undefined` properties vanish, `NaN` becomes
//! `null`, `toJSON` is honoured, and a JS number carries no `1.0` spelling.
//!
//! Out: values are built with `JSON.parse` of the compact wire text, so
//! integers above 2^53 lose precision in the object; the exact text is always
//! available too (`Response.json`).

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use serde_json::Value;

use crate::error::{Result, argument, core, napi_failure};

/// `JSON.stringify(value)` without letting a JS exception escape uncoded.
pub fn stringify(env: &Env, value: Unknown<'_>, what: &str) -> Result<String> {
    let text = stringify_value(env, value, what)?;
    // `JSON.stringify` gives well-formed UTF-16 (lone surrogates escaped),
    // so the UTF-8 bytes are valid; checked all the same, as napi's own
    // `String` conversion does.
    String::from_utf8(string_bytes(env, &text)?).map_err(|_| argument(format!("{what}: not valid UTF-8")))
}

/// `JSON.stringify(value)` as the JS string it returns.
fn stringify_value<'e>(env: &'e Env, value: Unknown<'_>, what: &str) -> Result<Unknown<'e>> {
    let f = crate::response::js_stringify(env)?;
    match f.call(value.raw()) {
        Ok(text) if text.get_type().map_err(napi_failure)? == ValueType::String => Ok(text),
        Ok(_) => Err(argument(format!("{what}: not representable as JSON"))),
        Err(_) => {
            clear_exception(env);
            Err(argument(format!("{what}: JSON.stringify failed (a BigInt, a cycle, or a throwing toJSON)")))
        }
    }
}

fn clear_exception(env: &Env) {
    let mut pending = std::ptr::null_mut();
    // SAFETY: `env` is the live environment of the current callback, on its
    // own thread; the call only reads and clears that environment's pending
    // exception, which is then dropped (we throw our own coded error).
    unsafe {
        napi::sys::napi_get_and_clear_last_exception(env.raw(), &mut pending);
    }
}

/// Strings up to this many UTF-16 units are converted in one pass into a
/// buffer of the worst-case size (3 bytes a unit); longer ones are measured
/// first, so that a huge string never reserves three times its size.
const ONE_PASS_UNITS: usize = 1 << 20;

/// The UTF-8 bytes of a JS string (lone surrogates become U+FFFD, as in
/// napi's own `String` conversion, which makes the same call).
///
/// Why not `String::from_unknown`: it asks V8 for the UTF-8 length (a pass
/// over the string), zero-fills a buffer, then converts (a second pass).
/// The UTF-16 length is known without a pass, and 3 bytes a unit always
/// suffice (a surrogate pair is 2 units and 4 bytes), so one conversion
/// into an unfilled buffer does (issue 16: the request, the outcome and
/// every value's `JSON.stringify` text cross this way).
pub fn string_bytes(env: &Env, value: &Unknown<'_>) -> Result<Vec<u8>> {
    let (env, value) = (env.raw(), value.raw());
    let mut units = 0usize;
    // SAFETY: `env` and `value` are live handles of the current callback,
    // on its thread; a null buffer asks only for the length.
    let status =
        unsafe { napi::sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &mut units) };
    if status != napi::sys::Status::napi_ok {
        return Err(argument("internal: not a string"));
    }
    let capacity = if units <= ONE_PASS_UNITS {
        units * 3 + 1
    } else {
        let mut bytes = 0usize;
        // SAFETY: as above (a null buffer asks for the UTF-8 length).
        let status =
            unsafe { napi::sys::napi_get_value_string_utf8(env, value, std::ptr::null_mut(), 0, &mut bytes) };
        if status != napi::sys::Status::napi_ok {
            return Err(argument("internal: not a string"));
        }
        bytes.checked_add(1).ok_or_else(|| argument("internal: string too long"))?
    };
    let mut buf: Vec<u8> = Vec::with_capacity(capacity);
    let mut written = 0usize;
    // SAFETY: `buf` has room for `capacity` bytes; napi writes at most
    // `capacity - 1` bytes and a terminating NUL, and reports the bytes
    // written without the NUL in `written`.
    let status = unsafe {
        napi::sys::napi_get_value_string_utf8(env, value, buf.as_mut_ptr().cast(), capacity, &mut written)
    };
    if status != napi::sys::Status::napi_ok || written >= capacity {
        return Err(argument("internal: string conversion failed"));
    }
    // SAFETY: the first `written` bytes were initialised by napi just above.
    unsafe { buf.set_len(written) };
    Ok(buf)
}

/// The bytes of a JSON argument: text as is, a value through `JSON.stringify`.
pub fn text_of(env: &Env, value: Unknown<'_>, what: &str) -> Result<Vec<u8>> {
    if value.get_type().map_err(napi_failure)? == ValueType::String {
        return string_bytes(env, &value);
    }
    if value.is_buffer().map_err(napi_failure)? {
        return Ok(Buffer::from_unknown(value).map_err(napi_failure)?.to_vec());
    }
    if value.is_typedarray().map_err(napi_failure)?
        && let Ok(bytes) = Uint8Array::from_unknown(value)
    {
        return Ok(bytes.to_vec());
    }
    string_bytes(env, &stringify_value(env, value, what)?)
}

/// Parses a JSON argument (text or value) with the core's strict parser.
pub fn read(env: &Env, value: Unknown<'_>, what: &str) -> Result<Value> {
    let bytes = text_of(env, value, what)?;
    parse(&bytes, what)
}

/// Strict parse of JSON text, with the core's one argument reader and cap.
pub fn parse(bytes: &[u8], what: &str) -> Result<Value> {
    snodo::parse_json(bytes, what).map_err(crate::error::core)
}

/// A plain JS value for `value`, by `JSON.parse` of its wire text.
pub fn to_js<'e>(env: &'e Env, value: &Value) -> Result<Unknown<'e>> {
    parse_to_js(env, snodo::to_wire(value))
}

/// `JSON.parse(text)` for JSON text snodo wrote (so it cannot throw).
pub fn parse_to_js(env: &Env, text: String) -> Result<Unknown<'_>> {
    crate::response::js_parse(env)?.call(js_string(env, &text)?).map_err(napi_failure)
}

/// A JS string of `text`. ASCII text (every token, most responses and
/// states) is handed over as Latin-1, which V8 copies as it is; UTF-8 it
/// must decode and measure first, about 4 instructions a byte (issue 16,
/// sixth pass: a 4 KiB opened state, a response's `json`). An ASCII byte
/// means the same character in both, so the string is the same.
pub fn js_string(env: &Env, text: &str) -> Result<napi::sys::napi_value> {
    let mut out = std::ptr::null_mut();
    // SAFETY: `env` is the live environment of the current callback, on
    // its thread; `text` is valid for `text.len()` bytes (an explicit
    // length, so no NUL is needed) and is only read during the call.
    let status = unsafe {
        if text.is_ascii() {
            napi::sys::napi_create_string_latin1(
                env.raw(),
                text.as_ptr().cast(),
                text.len() as isize,
                &mut out,
            )
        } else {
            napi::sys::napi_create_string_utf8(env.raw(), text.as_ptr().cast(), text.len() as isize, &mut out)
        }
    };
    if status != napi::sys::Status::napi_ok || out.is_null() {
        return Err(argument("internal: string creation failed"));
    }
    Ok(out)
}

/// A JS number of `n`.
pub fn js_u32(env: &Env, n: u32) -> Result<napi::sys::napi_value> {
    let mut out = std::ptr::null_mut();
    // SAFETY: `env` is the live environment of the current callback, on
    // its thread; `out` is written by the call.
    let status = unsafe { napi::sys::napi_create_uint32(env.raw(), n, &mut out) };
    if status != napi::sys::Status::napi_ok || out.is_null() {
        return Err(argument("internal: number creation failed"));
    }
    Ok(out)
}

/// A string argument.
pub fn string(value: Unknown<'_>, what: &str) -> Result<String> {
    if value.get_type().map_err(napi_failure)? != ValueType::String {
        return Err(argument(format!("{what}: must be a string")));
    }
    String::from_unknown(value).map_err(napi_failure)
}

/// `undefined` or `null`.
pub fn is_nullish(value: &Unknown<'_>) -> Result<bool> {
    Ok(matches!(value.get_type().map_err(napi_failure)?, ValueType::Undefined | ValueType::Null))
}

/// The principal: a non-empty string, or `null` for the explicit anonymous
/// principal. `undefined` is refused so that a forgotten argument never
/// silently means "anonymous".
pub fn principal(value: Unknown<'_>) -> Result<snodo::Principal> {
    match value.get_type().map_err(napi_failure)? {
        ValueType::Null => Ok(snodo::Principal::anonymous()),
        ValueType::String => {
            let name = String::from_unknown(value).map_err(napi_failure)?;
            snodo::Principal::from_option(Some(&name)).map_err(crate::error::core)
        }
        _ => Err(argument("principal: must be a string, or null for anonymous")),
    }
}

/// `Principal` back to JS: the name, or `null` for anonymous.
pub fn principal_name(p: &snodo::Principal) -> Option<String> {
    p.name().map(str::to_owned)
}

/// A non-negative integer field of a parsed JSON object.
pub fn u64_field(obj: &serde_json::Map<String, Value>, key: &str, what: &str) -> Result<Option<u64>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .map(Some)
            .ok_or_else(|| argument(format!("{what}.{key}: must be a non-negative integer"))),
        Some(_) => Err(argument(format!("{what}.{key}: must be a non-negative integer"))),
    }
}

/// The canonical form of a JSON value (docs/canonical-json.md): JSON text is
/// read exactly; throws `JSON` on invalid text or duplicate keys.
#[napi(catch_unwind)]
pub fn canonicalize(
    env: &Env,
    #[napi(ts_arg_type = "string | Buffer | object")] value: Unknown,
) -> Result<String> {
    // The core's canonicalize: strict UTF-8, the core's one size cap.
    snodo::canonicalize(text_of(env, value, "value")?).map_err(core)
}
