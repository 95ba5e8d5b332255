//! Python bindings of snodo: the native module `snodo_mrtr._native`.
//!
//! The pure-Python package `snodo_mrtr` (in `python/`) re-exports this
//! module, adds the exception classes and the outcome helpers. One file per
//! class or concept, named as in the core and the other bindings: `engine`,
//! `call`, `answer`, `response`, `token` (Opened, binding digest),
//! `elicitation` (builders), `capabilities`, `http_headers`,
//! `http_origin` (the Origin/Host edge check), `tasks`,
//! `error`, `json` (Python <-> JSON, canonical form), `outcome` (`decide`'s
//! outcome dict read member by member) and `legacy` (issue 14:
//! `Session`, `PendingFlow`, `Feed`) and `once` (the core's once machine
//! `OnceRun` and its steps, `MemoryStore`, the Redis scripts).

// No index or slice that could panic outside tests (as in the core); a
// site that must index says why it is in bounds beside a local allow.
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
mod json_fast;
mod legacy;
mod once;
mod outcome;
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
    m.add_class::<token::Opened>()?;
    m.add_class::<json::RawJson>()?;
    m.add_class::<legacy::Session>()?;
    m.add_class::<legacy::PendingFlow>()?;
    m.add_class::<legacy::Feed>()?;
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
    m.add_function(wrap_pyfunction!(tasks::check_task_input_requests, m)?)?;
    m.add_function(wrap_pyfunction!(tasks::declares_tasks, m)?)?;
    m.add("TASKS_EXTENSION", snodo::TASKS_EXTENSION)?;
    m.add_function(wrap_pyfunction!(json::canonicalize, m)?)?;
    m.add_function(wrap_pyfunction!(json_fast::_canonical_of, m)?)?;
    m.add_function(wrap_pyfunction!(json_fast::_from_text, m)?)?;
    m.add_function(wrap_pyfunction!(json_fast::_state_text_of, m)?)?;
    m.add_function(wrap_pyfunction!(json_fast::_memo_canonical_of, m)?)?;
    m.add_function(wrap_pyfunction!(engine::_seal_reference, m)?)?;
    m.add_function(wrap_pyfunction!(engine::_seal_text, m)?)?;
    m.add_function(wrap_pyfunction!(engine::_decide_reference, m)?)?;
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
