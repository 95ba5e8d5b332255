//! Which JSON-RPC error codes a handler may send, and with what `data`
//! (MCP 2026-07-28, basic/index "Error Codes").
//!
//! A pure function over plain inputs, so it can move to any layer: `decide`
//! calls it once on every handler error.
//!
//! * `-32002` (resource not found before 2026-07-28, which must no longer be
//!   emitted) is sent as `-32602`, its replacement, with the same message and
//!   data.
//! * `-32021` must carry `data.requiredCapabilities` (an object): without it
//!   the client cannot learn what to declare, so it becomes `-32603`.
//! * `-32022` must carry `data.supported` (strings) and `data.requested` (a
//!   string). snodo knows both (the engine's versions and the request's
//!   version), so absent `data` is filled in; present but malformed `data`
//!   becomes `-32603` (snodo will not guess which part the handler meant).
//! * `-32020` is passed through (its `data` is free-form).
//! * Every other code in the JSON-RPC reserved range -32768..=-32000 that
//!   is not a standard JSON-RPC code becomes `-32603`: the MCP sub-range
//!   -32099..=-32020 holds only codes the spec defines (MUST NOT), `-32042` is
//!   retired (MUST NOT), -32019..=-32000 is legacy (new implementations
//!   SHOULD NOT use it; snodo is new, so it does not), and the rest is
//!   reserved by JSON-RPC itself. Application codes belong outside the range.

use serde_json::{Value, json};

/// A handler error as it will be sent: code and data.
pub type CheckedError = (i64, Option<Value>);

/// Checks a handler's error code and data. `supported` are the engine's
/// protocol versions and `requested` the request's, used to fill a bare
/// `-32022`. `Err` carries the diagnostic for a `-32603` replacement.
pub fn check_error(
    code: i64,
    data: Option<Value>,
    supported: &[String],
    requested: &str,
) -> Result<CheckedError, String> {
    match code {
        -32700 | -32600 | -32601 | -32602 | -32603 | -32020 => Ok((code, data)),
        -32002 => Ok((-32602, data)),
        -32021 => {
            let ok = data.as_ref().and_then(|d| d.get("requiredCapabilities")).is_some_and(Value::is_object);
            if ok {
                Ok((code, data))
            } else {
                Err("error -32021 needs data.requiredCapabilities, a ClientCapabilities object".to_owned())
            }
        }
        -32022 => match data {
            None => Ok((code, Some(json!({"supported": supported, "requested": requested})))),
            Some(d) => {
                let supported_ok = d
                    .get("supported")
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().all(Value::is_string));
                let requested_ok = d.get("requested").is_some_and(Value::is_string);
                if supported_ok && requested_ok {
                    Ok((code, Some(d)))
                } else {
                    Err("error -32022 needs data.supported (strings) and data.requested (a string); omit data and snodo fills it".to_owned())
                }
            }
        },
        -32042 => Err("error code -32042 was retired in 2026-07-28 and must not be sent".to_owned()),
        -32019..=-32000 => Err(format!(
            "error code {code} is in the legacy range -32019..-32000 that new implementations should not use; use a code outside -32768..-32000"
        )),
        -32099..=-32020 => Err(format!("error code {code} is reserved by MCP and not defined by the spec")),
        -32768..=-32000 => Err(format!("error code {code} is reserved by JSON-RPC")),
        _ => Ok((code, data)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn check(code: i64, data: Option<Value>) -> Result<CheckedError, String> {
        check_error(code, data, &["2026-07-28".to_owned()], "2026-07-28")
    }

    #[test]
    fn standard_and_application_codes_pass() {
        for code in [-32700, -32600, -32601, -32602, -32603, -32020, -31999, -32769, 1, 0, -1] {
            assert_eq!(check(code, Some(json!(1))).unwrap(), (code, Some(json!(1))), "{code}");
        }
    }

    #[test]
    fn retired_resource_not_found_becomes_invalid_params() {
        assert_eq!(check(-32002, Some(json!({"uri":"x"}))).unwrap(), (-32602, Some(json!({"uri":"x"}))));
    }

    #[test]
    fn reserved_legacy_and_retired_codes_are_refused() {
        for code in [-32042, -32000, -32001, -32019, -32023, -32050, -32099, -32100, -32604, -32768] {
            assert!(check(code, None).is_err(), "{code}");
        }
    }

    #[test]
    fn missing_capability_needs_its_data() {
        assert!(check(-32021, None).is_err());
        assert!(check(-32021, Some(json!({"requiredCapabilities":"elicitation"}))).is_err());
        let d = json!({"requiredCapabilities":{"elicitation":{}}});
        assert_eq!(check(-32021, Some(d.clone())).unwrap(), (-32021, Some(d)));
    }

    #[test]
    fn unsupported_version_is_filled_or_checked() {
        assert_eq!(
            check_error(-32022, None, &["2026-07-28".to_owned()], "2025-11-25").unwrap(),
            (-32022, Some(json!({"supported":["2026-07-28"],"requested":"2025-11-25"})))
        );
        assert!(check(-32022, Some(json!({"supported":"2026-07-28","requested":"x"}))).is_err());
        assert!(check(-32022, Some(json!({"supported":["a"]}))).is_err());
        let d = json!({"supported":["a"],"requested":"b"});
        assert_eq!(check(-32022, Some(d.clone())).unwrap(), (-32022, Some(d)));
    }
}
