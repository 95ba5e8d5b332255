//! The [`Policy`]: a validated [`Config`] split into what `begin` and
//! `decide` read (the limits and rules) and the token [`Sealer`] (keys and
//! token limits). Built once by `Engine::new`; `begin` and `decide` take it
//! as an argument, so they can be read and tested without an engine.

use serde_json::Value;

use crate::config::{Clock, Config};
use crate::error::{Error, ErrorCode, Result};
use crate::token::{KeyRing, Limits, Random, Sealer};

/// The rules `begin` and `decide` apply, from a validated configuration.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    /// Largest request message `begin` reads, bytes.
    pub(crate) max_request_bytes: usize,
    /// Most `inputResponses` entries accepted.
    pub(crate) max_input_responses: usize,
    /// Protocol versions accepted.
    pub(crate) versions: Vec<String>,
    /// The 2025-era revisions a legacy session may use.
    pub(crate) legacy_versions: Vec<String>,
    /// `io.modelcontextprotocol/serverInfo` stamped on results, if set.
    pub(crate) server_info: Option<Value>,
    /// Answers without a token ignored.
    pub(crate) strict_answers: bool,
    /// The audience bound into every token.
    pub(crate) audience: Option<String>,
}

/// What a validated configuration becomes: the policy, the sealer and the
/// clock (`None`: system time).
pub(crate) struct Parts {
    pub(crate) policy: Policy,
    pub(crate) sealer: Sealer,
    pub(crate) clock: Option<Clock>,
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<()> {
    if ok { Ok(()) } else { Err(Error::new(ErrorCode::Config, what())) }
}

fn is_version(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
}

/// Validates `config` (keys, the limits table, versions, legacy versions,
/// audience, server info, in that order; errors in the config's spelling)
/// and splits it.
pub(crate) fn from_config(config: Config) -> Result<Parts> {
    let ring = KeyRing::new(&config.keys)?;
    crate::config::check_limits(&config)?;
    let versions = config.field_name("supported_versions");
    check(!config.supported_versions.is_empty(), || format!("{versions}: empty"))?;
    for (i, v) in config.supported_versions.iter().enumerate() {
        check(is_version(v), || format!("{versions}[{i}]: {v:?} is not a YYYY-MM-DD version"))?;
        check(!config.supported_versions.iter().take(i).any(|x| x == v), || {
            format!("{versions}[{i}]: duplicate {v:?}")
        })?;
    }
    // Legacy revisions are dates before MRTR, no duplicates;
    // empty turns legacy sessions off.
    let legacy = config.field_name("legacy_versions");
    for (i, v) in config.legacy_versions.iter().enumerate() {
        check(is_version(v) && v.as_str() < crate::MRTR_VERSION, || {
            format!("{legacy}[{i}]: {v:?} is not a YYYY-MM-DD version before {}", crate::MRTR_VERSION)
        })?;
        check(!config.legacy_versions.iter().take(i).any(|x| x == v), || {
            format!("{legacy}[{i}]: duplicate {v:?}")
        })?;
    }
    if let Some(a) = &config.audience {
        check(crate::audience::valid_audience(a), || {
            format!(
                "{}: must be 1 to {} bytes without control characters",
                config.field_name("audience"),
                crate::audience::MAX_AUDIENCE_BYTES
            )
        })?;
    }
    if let Some(info) = &config.server_info {
        check(info.is_object(), || format!("{}: must be an object", config.field_name("server_info")))?;
    }
    let random = random(&config);
    let limits = Limits {
        ttl: config.ttl_secs,
        max_rounds: config.max_rounds,
        max_flow_age: config.max_flow_age_secs,
        max_token_bytes: config.max_token_bytes,
        skew: config.clock_skew_secs,
        version: config.token_version,
        min_version: config.min_token_version,
    };
    Ok(Parts {
        policy: Policy {
            max_request_bytes: config.max_request_bytes,
            max_input_responses: config.max_input_responses,
            versions: config.supported_versions,
            legacy_versions: config.legacy_versions,
            server_info: config.server_info,
            strict_answers: config.strict_answers,
            audience: config.audience,
        },
        sealer: Sealer { ring, limits, random },
        clock: config.clock,
    })
}

/// Where the sealer's random bytes come from: the operating system, or
/// (tests only) the seed.
#[cfg(feature = "test-knobs")]
fn random(config: &Config) -> Random {
    Random::from_seed(config.test_random_seed)
}

#[cfg(not(feature = "test-knobs"))]
fn random(_config: &Config) -> Random {
    Random::Os
}
