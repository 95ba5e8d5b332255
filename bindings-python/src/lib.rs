//! Python bindings of snodo: the native module `snodo_mrtr._native`.
//!
//! Each export converts its arguments, makes one core call and converts
//! the result. The pure-Python package `snodo_mrtr` (in `python/`)
//! re-exports this module and adds the exception classes, the outcome
//! helpers and the once drivers. One file per class or concept, named as
//! in the core: `engine`, `call`, `answer`, `response`, `question` (the
//! `Question` class), `elicitation` (its builders), `outcome` (`decide`'s
//! argument), `token` (`Opened`, binding digest), `capabilities`,
//! `http_headers`, `http_origin`, `tasks`, `legacy` (2025-era sessions:
//! `Session`, `PendingFlow`, `Feed`), `once` (the once machine and its
//! in-memory store), `inspect` (the command line), `error` and `json`
//! (Python values <-> JSON, `RawJSON`).

// No index or slice that could panic outside tests (as in the core).
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use pyo3::prelude::*;

mod answer;
mod call;
mod capabilities;
mod elicitation;
mod engine;
mod error;
mod http_headers;
mod http_origin;
mod inspect;
mod json;
mod legacy;
mod once;
mod outcome;
mod question;
mod response;
mod tasks;
mod token;

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<engine::Engine>()?;
    m.add_class::<call::Call>()?;
    m.add_class::<answer::Answer>()?;
    m.add_class::<response::Response>()?;
    m.add_class::<question::Question>()?;
    m.add_class::<token::Opened>()?;
    m.add_class::<json::RawJson>()?;
    m.add_class::<legacy::Session>()?;
    m.add_class::<legacy::PendingFlow>()?;
    m.add_class::<legacy::Feed>()?;
    m.add_function(wrap_pyfunction!(legacy::unknown_session, m)?)?;
    m.add("LEGACY_ID_PREFIX", snodo::LEGACY_ID_PREFIX)?;
    m.add("DEFAULT_LEGACY_VERSIONS", snodo::DEFAULT_LEGACY_VERSIONS.to_vec())?;
    m.add_function(wrap_pyfunction!(elicitation::elicit_form, m)?)?;
    m.add_function(wrap_pyfunction!(elicitation::elicit_form_without_lint, m)?)?;
    m.add_function(wrap_pyfunction!(elicitation::elicit_url, m)?)?;
    m.add_function(wrap_pyfunction!(elicitation::elicit_url_without_lint, m)?)?;
    m.add_function(wrap_pyfunction!(elicitation::sampling, m)?)?;
    m.add_function(wrap_pyfunction!(elicitation::list_roots, m)?)?;
    m.add_function(wrap_pyfunction!(capabilities::missing_capabilities, m)?)?;
    m.add_function(wrap_pyfunction!(capabilities::filter_supported, m)?)?;
    m.add_function(wrap_pyfunction!(http_headers::check_http_headers, m)?)?;
    m.add_class::<http_origin::OriginPolicy>()?;
    m.add_function(wrap_pyfunction!(http_origin::check_http_origin, m)?)?;
    m.add("LOOPBACK_HOSTS", snodo::LOOPBACK_HOSTS.to_vec())?;
    tasks::register(m)?;
    m.add_function(wrap_pyfunction!(json::canonicalize, m)?)?;
    m.add_function(wrap_pyfunction!(inspect::run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(token::binding_digest, m)?)?;
    m.add_function(wrap_pyfunction!(error::_register_errors, m)?)?;
    once::register(m)?;
    m.add("ERROR_CODES", error::error_codes(py)?)?;
    m.add("TOKEN_REASONS", error::token_reasons())?;
    m.add("VERSION", snodo::VERSION)?;
    m.add("MRTR_VERSION", snodo::MRTR_VERSION)?;
    m.add("MRTR_METHODS", snodo::MRTR_METHODS.to_vec())?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// The embedded-interpreter path links and runs: the guard against the
    /// `extension-module` linking trap (an undefined-symbol link error in cargo test).
    #[test]
    fn module_initialises_in_an_embedded_interpreter() {
        Python::initialize();
        Python::attach(|py| {
            let m = PyModule::new(py, "_native").unwrap();
            native(&m).unwrap();
            let codes: Vec<(u32, String, String)> = m.getattr("ERROR_CODES").unwrap().extract().unwrap();
            assert_eq!(codes.len(), snodo::ErrorCode::ALL.len());
            let canon =
                json::canonicalize(py, &pyo3::types::PyString::new(py, "{\"b\":1.0,\"a\":[]}")).unwrap();
            assert_eq!(canon, "{\"a\":[],\"b\":1.0}");
        });
    }
}
