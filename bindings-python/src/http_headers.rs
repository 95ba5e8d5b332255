//! The Streamable HTTP request-metadata headers (`snodo::check_http_headers`).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use snodo::ErrorCode;

use crate::error::raise;
use crate::json::{is_text, text_bytes, to_value, type_name};
use crate::response::Response;

/// One header name or value: `str`, or `bytes` read as Latin-1 (how WSGI
/// and http.server hand raw header bytes over; a byte above 0x7F then
/// stays non-ASCII, which the core treats as a mismatch).
fn header_text(item: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if let Ok(s) = item.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if let Ok(b) = item.cast::<PyBytes>() {
        return Ok(b.as_bytes().iter().map(|&c| char::from(c)).collect());
    }
    Err(raise(
        item.py(),
        ErrorCode::Argument,
        format!("headers: {what} must be str or bytes, got {}", type_name(item)),
    ))
}

/// `(name, value)` pairs from a list of pairs, or from anything with
/// `items()` (a dict, `http.client.HTTPMessage`, `email.message.Message`,
/// which list a repeated header once per occurrence).
pub(crate) fn header_pairs(headers: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    let py = headers.py();
    let items = if headers.is_instance_of::<PyDict>() || headers.hasattr(intern!(py, "items"))? {
        headers.call_method0(intern!(py, "items"))?
    } else if headers.is_instance_of::<PyString>() || headers.is_instance_of::<PyBytes>() {
        return Err(raise(py, ErrorCode::Argument, "headers: give (name, value) pairs or a mapping"));
    } else {
        headers.clone()
    };
    let mut out = Vec::new();
    for (i, pair) in items.try_iter()?.enumerate() {
        let pair = pair?;
        let Ok((name, value)) = pair.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>() else {
            return Err(raise(
                py,
                ErrorCode::Argument,
                format!("headers[{i}]: must be a (name, value) pair"),
            ));
        };
        out.push((header_text(&name, "a name")?, header_text(&value, "a value")?));
    }
    Ok(out)
}

/// Checks the Streamable HTTP request-metadata headers (`MCP-Protocol-Version`,
/// `Mcp-Method`, `Mcp-Name`) against the request (JSON text, bytes or dict).
/// Returns `None` when the request may go on to `Engine.begin`, or the
/// ready `-32020` response (HTTP 400) to send instead.
#[pyfunction]
pub fn check_http_headers(
    py: Python<'_>,
    headers: &Bound<'_, PyAny>,
    request: &Bound<'_, PyAny>,
) -> PyResult<Option<Response>> {
    let pairs = header_pairs(headers)?;
    let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let checked = if is_text(request) {
        let bytes = text_bytes(request)?;
        // Text that is not UTF-8 is not JSON: left to begin, as the core
        // leaves any unparsable text.
        match std::str::from_utf8(&bytes) {
            Ok(text) => py.detach(|| snodo::check_http_headers_text(&borrowed, text)),
            Err(_) => None,
        }
    } else {
        snodo::check_http_headers(&borrowed, &to_value(request)?)
    };
    Ok(checked.map(|inner| Response { inner }))
}
