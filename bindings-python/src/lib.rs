//! Python bindings of snodo: the native module `snodo_mrtr._native`.
//!
//! The pure-Python package `snodo_mrtr` (in `python/`) re-exports this
//! module, adds the exception classes and the outcome helpers. Module names
//! mirror the core: `engine` (Engine, Call, Answer, Response, Opened),
//! `builders` (input requests, capabilities, canonical JSON), `errors`,
//! and `convert` (Python <-> JSON).

use pyo3::prelude::*;

mod builders;
mod convert;
mod engine;
mod errors;
mod inspect;

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<engine::Engine>()?;
    m.add_class::<engine::Call>()?;
    m.add_class::<engine::Answer>()?;
    m.add_class::<engine::Response>()?;
    m.add_class::<engine::Opened>()?;
    m.add_class::<convert::RawJson>()?;
    m.add_function(wrap_pyfunction!(builders::elicit_form, m)?)?;
    m.add_function(wrap_pyfunction!(builders::elicit_url, m)?)?;
    m.add_function(wrap_pyfunction!(builders::sampling, m)?)?;
    m.add_function(wrap_pyfunction!(builders::list_roots, m)?)?;
    m.add_function(wrap_pyfunction!(builders::missing_capabilities, m)?)?;
    m.add_function(wrap_pyfunction!(builders::filter_supported, m)?)?;
    m.add_function(wrap_pyfunction!(builders::canonicalize, m)?)?;
    m.add_function(wrap_pyfunction!(inspect::run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(builders::binding_digest, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_register_errors, m)?)?;
    m.add("ERROR_CODES", errors::error_codes(py)?)?;
    m.add("TOKEN_REASONS", errors::token_reasons())?;
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
                builders::canonicalize(py, &pyo3::types::PyString::new(py, "{\"b\":1.0,\"a\":[]}")).unwrap();
            assert_eq!(canon, "{\"a\":[],\"b\":1.0}");
        });
    }
}
