//! The Streamable HTTP edge check against web pages: `Origin` and `Host`
//! against allowed lists (`snodo::OriginPolicy`, `snodo::check_http_origin`).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use snodo::ErrorCode;

use crate::error::{raise, to_py_err};
use crate::http_headers::header_pairs;
use crate::response::Response;

/// Which `Host` and `Origin` values a server accepts. Immutable.
#[pyclass(frozen, module = "snodo_mrtr._native")]
#[derive(Debug)]
pub struct OriginPolicy {
    inner: snodo::OriginPolicy,
    /// Kept for `repr`: the lists as given (None for the loopback default).
    lists: Option<(Vec<String>, Vec<String>)>,
}

/// One list argument: a sequence of `str` (None = empty). A lone `str` is
/// refused: iterated, it would be a list of one-letter entries.
fn entries(py: Python<'_>, what: &str, list: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    let Some(list) = list.filter(|l| !l.is_none()) else {
        return Ok(Vec::new());
    };
    if list.is_instance_of::<PyString>() || list.is_instance_of::<PyBytes>() {
        return Err(raise(py, ErrorCode::Config, format!("origin policy: {what} must be a list of str")));
    }
    let mut out = Vec::new();
    for (i, item) in list.try_iter()?.enumerate() {
        let item = item?;
        let Ok(text) = item.extract::<String>() else {
            return Err(raise(py, ErrorCode::Config, format!("origin policy: {what}[{i}] must be a str")));
        };
        out.push(text);
    }
    Ok(out)
}

#[pymethods]
impl OriginPolicy {
    /// `hosts` entries are `name` (any port), `name:port` or `*`; `origins`
    /// entries are `scheme://host[:port]` (http or https) or `*`. Both None
    /// (the default) is the loopback policy: `LOOPBACK_HOSTS` on any port
    /// and no origin but the request's own. One of them given: the other is
    /// empty. A bad entry is a `ConfigError`.
    #[new]
    #[pyo3(signature = (hosts=None, origins=None))]
    fn new(
        py: Python<'_>,
        hosts: Option<&Bound<'_, PyAny>>,
        origins: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let given = |l: Option<&Bound<'_, PyAny>>| l.is_some_and(|l| !l.is_none());
        if !given(hosts) && !given(origins) {
            return Ok(OriginPolicy { inner: snodo::OriginPolicy::loopback(), lists: None });
        }
        let (hosts, origins) = (entries(py, "hosts", hosts)?, entries(py, "origins", origins)?);
        let h: Vec<&str> = hosts.iter().map(String::as_str).collect();
        let o: Vec<&str> = origins.iter().map(String::as_str).collect();
        let inner = snodo::OriginPolicy::new(&h, &o).map_err(|e| to_py_err(py, &e))?;
        Ok(OriginPolicy { inner, lists: Some((hosts, origins)) })
    }

    fn __repr__(&self) -> String {
        match &self.lists {
            None => "OriginPolicy(loopback)".to_owned(),
            Some((hosts, origins)) => format!("OriginPolicy(hosts={hosts:?}, origins={origins:?})"),
        }
    }
}

/// Checks `Origin` and `Host` of one HTTP request (its headers: (name,
/// value) pairs, or a mapping) against `policy`. None: go on. Otherwise the
/// ready refusal to send: HTTP 421 (`data.reason` "host") or 403
/// (`data.reason` "origin"). Run it on every request, before the body.
#[pyfunction]
pub fn check_http_origin(
    policy: &Bound<'_, OriginPolicy>,
    headers: &Bound<'_, PyAny>,
) -> PyResult<Option<Response>> {
    let pairs = header_pairs(headers)?;
    let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    Ok(snodo::check_http_origin(&policy.get().inner, &borrowed).map(|inner| Response { inner }))
}
