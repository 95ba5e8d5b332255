//! The `snodo-mrtr` command line (`bin/snodo-mrtr.js`): one call of `snodo::run_cli`, which parses,
//! runs and renders, so the Node and Python tools print the same bytes.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Result, argument};

/// What the `snodo-mrtr` command prints and how it exits.
#[napi(object)]
#[derive(Debug)]
pub struct CliOutput {
    /// Text for standard output.
    pub stdout: String,
    /// Text for standard error.
    pub stderr: String,
    /// 0 ok, 1 token refused or undecodable, 2 usage or configuration error.
    pub exit_code: i32,
}

/// Runs the command line `args` (no program name) with `keys` (`SNODO_KEYS`, or null) at `now`
/// (Unix seconds; absent: the system clock). Throws `ARGUMENT` on a negative `now`.
#[napi(catch_unwind)]
pub fn run_cli(args: Vec<String>, keys: Option<String>, now: Option<i64>) -> Result<CliOutput> {
    let now = match now {
        Some(n) => u64::try_from(n).map_err(|_| argument("now: must be Unix seconds, not negative"))?,
        None => SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
    };
    let out = snodo::run_cli(&args, keys.as_deref(), now, &|path| {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    });
    Ok(CliOutput { stdout: out.stdout, stderr: out.stderr, exit_code: out.exit_code })
}
