//! Capability helpers (the core's `capabilities`): which input requests a client can receive.
//! `requests` must be an object by key (the core's one rule, `INPUT_REQUESTS_MESSAGE`).

use napi::bindgen_prelude::*;

use crate::error::{Result, core};
use crate::json;

/// The capabilities the client must add to receive every request in `requests` (an object by key;
/// anything else throws ARGUMENT), shaped like ClientCapabilities; `{}` when all can be sent.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn missing_capabilities<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, object> | string")] requests: Unknown,
    #[napi(ts_arg_type = "object | string")] capabilities: Unknown,
) -> Result<Unknown<'e>> {
    let requests = json::read(env, requests, "requests")?;
    let caps = json::read(env, capabilities, "capabilities")?;
    json::to_js(env, &snodo::missing_capabilities(&requests, &caps).map_err(core)?)
}

/// Keeps only the requests the client can receive, in order, as an object by key (anything but an
/// object throws ARGUMENT).
#[napi(catch_unwind, ts_return_type = "Record<string, object>")]
pub fn filter_supported<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "Record<string, object> | string")] requests: Unknown,
    #[napi(ts_arg_type = "object | string")] capabilities: Unknown,
) -> Result<Unknown<'e>> {
    let requests = json::read(env, requests, "requests")?;
    let caps = json::read(env, capabilities, "capabilities")?;
    json::to_js(env, &snodo::filter_supported(&requests, &caps).map_err(core)?)
}
