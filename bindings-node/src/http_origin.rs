//! The Streamable HTTP edge check of `Origin` and `Host` (`snodo::check_http_origin`): a hostile
//! page POSTing to a local server, or DNS rebinding, is refused before the body is read.

use napi::ValueType;
use napi::bindgen_prelude::*;
use serde_json::Value;

use crate::error::{Coded, Result, config, core};
use crate::http_headers::header_pairs;
use crate::json;
use crate::response::Response;

/// The hosts a loopback server answers to (`OriginPolicy.loopback()`), on any port.
#[napi]
pub const LOOPBACK_HOSTS: [&str; 3] = snodo::LOOPBACK_HOSTS;

/// Which `Host` and `Origin` values a server accepts (the core's `OriginPolicy`). Immutable; build
/// it once at start-up.
#[napi]
#[derive(Debug, Clone)]
pub struct OriginPolicy {
    pub(crate) inner: snodo::OriginPolicy,
}

/// `options[name]`: absent (`None`), or a list of strings.
fn list(options: &serde_json::Map<String, Value>, name: &str) -> Result<Option<Vec<String>>> {
    match options.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => json::strings(v)
            .map(Some)
            .ok_or_else(|| config(format!("origin policy: {name} must be an array of strings"))),
    }
}

#[napi]
impl OriginPolicy {
    /// `new OriginPolicy({ hosts?, origins? })`; neither list: `OriginPolicy.loopback()`. `hosts`:
    /// `name`, `name:port` or `*` (only behind a proxy checking `Host`); `origins`:
    /// `scheme://host[:port]` or `*`. The request's own origin is always accepted, `null` never. A
    /// bad entry or option throws `CONFIG`.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        #[napi(ts_arg_type = "{ hosts?: string[]; origins?: string[] } | null")] options: Option<Unknown>,
    ) -> Result<OriginPolicy> {
        let not_object = || config("origin policy: options must be an object { hosts?, origins? }");
        let options = match options {
            Some(v) if !json::is_nullish(&v)? => {
                // An object only: a string would be read as JSON text.
                if v.get_type().coded()? != ValueType::Object {
                    return Err(not_object());
                }
                json::read(&env, v, "options")?
            }
            _ => return Ok(OriginPolicy::loopback()),
        };
        let Value::Object(options) = options else { return Err(not_object()) };
        if let Some(name) = options.keys().find(|k| !matches!(k.as_str(), "hosts" | "origins")) {
            return Err(config(format!("origin policy: {name}: unknown option (hosts, origins)")));
        }
        let (hosts, origins) = match (list(&options, "hosts")?, list(&options, "origins")?) {
            (None, None) => return Ok(OriginPolicy::loopback()),
            (hosts, origins) => (hosts.unwrap_or_default(), origins.unwrap_or_default()),
        };
        let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
        let origins: Vec<&str> = origins.iter().map(String::as_str).collect();
        Ok(OriginPolicy { inner: snodo::OriginPolicy::new(&hosts, &origins).map_err(core)? })
    }
    /// The loopback default: `LOOPBACK_HOSTS` on any port, and no origin but the request's own.
    #[napi(factory, catch_unwind)]
    pub fn loopback() -> OriginPolicy {
        OriginPolicy { inner: snodo::OriginPolicy::loopback() }
    }
}

/// Checks `Origin` and `Host` of a request against `policy`, before reading the body: `null` to go
/// on, or the refusal to send (421 `reason` `host`, 403 `reason` `origin`). Pass `req.rawHeaders`.
#[napi(catch_unwind)]
pub fn check_http_origin(
    env: &Env,
    policy: &OriginPolicy,
    #[napi(
        ts_arg_type = "Array<[string, string]> | string[] | Headers | Map<string, string> | Record<string, string | string[] | undefined>"
    )]
    headers: Unknown,
) -> Result<Option<Response>> {
    let pairs = header_pairs(env, headers)?;
    let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    Ok(snodo::check_http_origin(&policy.inner, &borrowed).map(|r| Response::from(&r)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn loopback_hosts_are_the_core_s() {
        assert_eq!(super::LOOPBACK_HOSTS, snodo::LOOPBACK_HOSTS);
    }
}
