//! The `snodo-mrtr` command line (`snodo_mrtr.cli`): argument conversion
//! and one call of `snodo::run_cli`, which parses, runs and renders, so the
//! Python and Node tools print the same bytes.

use std::time::{SystemTime, UNIX_EPOCH};

use pyo3::prelude::*;

/// Runs the command line `args` (without the program name) with `keys`
/// (the value of `SNODO_KEYS`, or None) at `now` (Unix seconds; None = the
/// system clock). Returns `(stdout, stderr, exit_code)`.
#[pyfunction]
#[pyo3(signature = (args, keys=None, now=None))]
pub fn run_cli(
    py: Python<'_>,
    args: Vec<String>,
    keys: Option<String>,
    now: Option<u64>,
) -> (String, String, i32) {
    let now =
        now.unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0));
    // No Python object is touched while it runs (it may read --request's file).
    let out = py.detach(|| {
        snodo::run_cli(&args, keys.as_deref(), now, &|path| {
            std::fs::read_to_string(path).map_err(|e| e.to_string())
        })
    });
    (out.stdout, out.stderr, out.exit_code)
}
