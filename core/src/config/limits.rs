//! The one configuration schema: every numeric limit of [`Config`] with its
//! two spellings, range and default. The C setters, Python keyword
//! arguments and the Node config reader all go through [`Config::set_limit`],
//! and [`Engine::new`](crate::Engine::new) checks every limit from this
//! table, so adding a limit touches this table, the [`Config`] field, and at
//! most one line per binding. Errors name the field the way the caller
//! spelled it ([`Spelling`]).

use super::{
    Config, DEFAULT_CLOCK_SKEW_SECS, DEFAULT_MAX_FLOW_AGE_SECS, DEFAULT_MAX_INPUT_RESPONSES,
    DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_ROUNDS, DEFAULT_MAX_TOKEN_BYTES, DEFAULT_TOKEN_VERSION,
    DEFAULT_TTL_SECS, MAX_TTL_SECS,
};
use crate::error::{Error, ErrorCode, Result};

/// How the caller spells configuration names: Rust, C and Python use
/// `snake_case` (`ttl_secs`), Node uses `camelCase` (`ttlSecs`). Error
/// messages use the same spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Spelling {
    /// `ttl_secs` (Rust, C, Python).
    #[default]
    Snake,
    /// `ttlSecs` (Node).
    Camel,
}

/// One numeric limit of [`Config`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limit {
    /// The `snake_case` name (Rust field, C setter suffix, Python keyword).
    pub snake: &'static str,
    /// The `camelCase` name (Node config field, JSON vectors).
    pub camel: &'static str,
    /// Smallest accepted value.
    pub min: u64,
    /// Largest accepted value.
    pub max: u64,
    /// The default.
    pub default: u64,
    /// One line for documentation.
    pub doc: &'static str,
}

impl Limit {
    /// The name in `spelling`.
    pub fn name(&self, spelling: Spelling) -> &'static str {
        match spelling {
            Spelling::Snake => self.snake,
            Spelling::Camel => self.camel,
        }
    }
}

const fn limit(
    snake: &'static str,
    camel: &'static str,
    min: u64,
    max: u64,
    default: u64,
    doc: &'static str,
) -> Limit {
    Limit { snake, camel, min, max, default, doc }
}

/// Every numeric limit, in the order the docs list them.
pub const LIMITS: [Limit; 9] = [
    limit("ttl_secs", "ttlSecs", 1, MAX_TTL_SECS, DEFAULT_TTL_SECS, "token lifetime, seconds"),
    limit("max_rounds", "maxRounds", 1, 1000, DEFAULT_MAX_ROUNDS as u64, "most rounds in one flow"),
    limit(
        "max_flow_age_secs",
        "maxFlowAgeSecs",
        1,
        7 * 86_400,
        DEFAULT_MAX_FLOW_AGE_SECS,
        "oldest a flow may get, seconds (at least the token lifetime)",
    ),
    limit(
        "max_token_bytes",
        "maxTokenBytes",
        256,
        1 << 20,
        DEFAULT_MAX_TOKEN_BYTES as u64,
        "largest requestState issued or accepted, bytes",
    ),
    limit(
        "max_request_bytes",
        "maxRequestBytes",
        1024,
        64 << 20,
        DEFAULT_MAX_REQUEST_BYTES as u64,
        "largest request message begin reads, bytes",
    ),
    limit(
        "max_input_responses",
        "maxInputResponses",
        1,
        4096,
        DEFAULT_MAX_INPUT_RESPONSES as u64,
        "most inputResponses entries accepted",
    ),
    limit(
        "clock_skew_secs",
        "clockSkewSecs",
        0,
        300,
        DEFAULT_CLOCK_SKEW_SECS,
        "tolerated clock skew for tokens issued in the future, seconds",
    ),
    limit(
        "token_version",
        "tokenVersion",
        1,
        2,
        DEFAULT_TOKEN_VERSION as u64,
        "token format sealed: 1 signed (readable), 2 encrypted (confidential)",
    ),
    limit(
        "min_token_version",
        "minTokenVersion",
        1,
        2,
        1,
        "oldest token format opened: 1 opens both, 2 refuses v1 tokens (at most token_version)",
    ),
];

/// The test-only seed's two spellings: a setting only with the cargo
/// feature `test-knobs`, and not a row of [`LIMITS`] (those are what a
/// deployment may set).
#[cfg(feature = "test-knobs")]
const TEST_RANDOM_SEED: (&str, &str) = ("test_random_seed", "testRandomSeed");

/// The limit named `name` in either spelling.
pub fn find_limit(name: &str) -> Option<&'static Limit> {
    LIMITS.iter().find(|l| l.snake == name || l.camel == name)
}

fn out_of_range(l: &Limit, spelling: Spelling, value: u64) -> Error {
    Error::new(ErrorCode::Config, format!("{}: {value} is outside {}..={}", l.name(spelling), l.min, l.max))
}

fn to_field<T: TryFrom<u64>>(l: &Limit, spelling: Spelling, value: u64) -> Result<T> {
    T::try_from(value).map_err(|_| out_of_range(l, spelling, value))
}

impl Config {
    /// Sets the limit `name` (either spelling) to `value`. The range is
    /// checked by [`Engine::new`](crate::Engine::new), as for the fields set
    /// directly; only an unknown name, or a value too large for the field's
    /// type, fails here (`CONFIG`).
    pub fn set_limit(&mut self, name: &str, value: u64) -> Result<()> {
        let spelling = self.spelling;
        #[cfg(feature = "test-knobs")]
        if name == TEST_RANDOM_SEED.0 || name == TEST_RANDOM_SEED.1 {
            self.test_random_seed = value;
            return Ok(());
        }
        let Some(l) = find_limit(name) else {
            return Err(Error::new(ErrorCode::Config, format!("{name}: unknown configuration limit")));
        };
        match l.snake {
            "ttl_secs" => self.ttl_secs = value,
            "max_rounds" => self.max_rounds = to_field(l, spelling, value)?,
            "max_flow_age_secs" => self.max_flow_age_secs = value,
            "max_token_bytes" => self.max_token_bytes = to_field(l, spelling, value)?,
            "max_request_bytes" => self.max_request_bytes = to_field(l, spelling, value)?,
            "max_input_responses" => self.max_input_responses = to_field(l, spelling, value)?,
            "clock_skew_secs" => self.clock_skew_secs = value,
            "token_version" => self.token_version = to_field(l, spelling, value)?,
            "min_token_version" => self.min_token_version = to_field(l, spelling, value)?,
            _ => return Err(Error::new(ErrorCode::Config, format!("{name}: unknown configuration limit"))),
        }
        Ok(())
    }

    /// The current value of the limit `name` (either spelling).
    pub fn limit(&self, name: &str) -> Option<u64> {
        #[cfg(feature = "test-knobs")]
        if name == TEST_RANDOM_SEED.0 || name == TEST_RANDOM_SEED.1 {
            return Some(self.test_random_seed);
        }
        let l = find_limit(name)?;
        Some(match l.snake {
            "ttl_secs" => self.ttl_secs,
            "max_rounds" => u64::from(self.max_rounds),
            "max_flow_age_secs" => self.max_flow_age_secs,
            "max_token_bytes" => self.max_token_bytes as u64,
            "max_request_bytes" => self.max_request_bytes as u64,
            "max_input_responses" => self.max_input_responses as u64,
            "clock_skew_secs" => self.clock_skew_secs,
            "token_version" => u64::from(self.token_version),
            "min_token_version" => u64::from(self.min_token_version),
            _ => return None,
        })
    }

    /// The name of a configuration field in this config's spelling (for
    /// the non-numeric fields: `keys`, `supported_versions`, `server_info`,
    /// `strict_answers`, `audience`, `legacy_versions`).
    pub fn field_name(&self, snake: &'static str) -> &'static str {
        match (self.spelling, snake) {
            (Spelling::Camel, "supported_versions") => "supportedVersions",
            (Spelling::Camel, "server_info") => "serverInfo",
            (Spelling::Camel, "fixed_time") => "fixedTime",
            (Spelling::Camel, "strict_answers") => "strictAnswers",
            (Spelling::Camel, "legacy_versions") => "legacyVersions",
            _ => find_limit(snake).map_or(snake, |l| l.name(self.spelling)),
        }
    }
}

/// Checks every limit of `config` against the table (and the flow age
/// against the token lifetime), naming fields in the config's spelling.
pub(crate) fn check_limits(config: &Config) -> Result<()> {
    let spelling = config.spelling;
    for l in &LIMITS {
        let value = config.limit(l.snake).unwrap_or(l.default);
        if value < l.min || value > l.max {
            return Err(out_of_range(l, spelling, value));
        }
    }
    if config.min_token_version > config.token_version {
        return Err(Error::new(
            ErrorCode::Config,
            format!(
                "{}: {} is newer than {} ({}): the engine could not open its own tokens",
                config.field_name("min_token_version"),
                config.min_token_version,
                config.field_name("token_version"),
                config.token_version
            ),
        ));
    }
    if config.max_flow_age_secs < config.ttl_secs {
        return Err(Error::new(
            ErrorCode::Config,
            format!(
                "{}: {} must be at least {} ({})",
                config.field_name("max_flow_age_secs"),
                config.max_flow_age_secs,
                config.field_name("ttl_secs"),
                config.ttl_secs
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::Key;

    fn config(spelling: Spelling) -> Config {
        let mut c = Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]);
        c.spelling = spelling;
        c
    }

    #[test]
    fn defaults_match_the_table() {
        let c = config(Spelling::Snake);
        for l in &LIMITS {
            assert_eq!(c.limit(l.snake), Some(l.default), "{}", l.snake);
            assert_eq!(c.limit(l.camel), Some(l.default), "{}", l.camel);
            assert!((l.min..=l.max).contains(&l.default), "{}", l.snake);
        }
    }

    #[test]
    fn errors_use_the_callers_spelling() {
        let mut snake = config(Spelling::Snake);
        snake.set_limit("ttl_secs", 901).unwrap();
        assert_eq!(check_limits(&snake).unwrap_err().message(), "ttl_secs: 901 is outside 1..=900");
        let mut camel = config(Spelling::Camel);
        camel.set_limit("ttlSecs", 901).unwrap();
        assert_eq!(check_limits(&camel).unwrap_err().message(), "ttlSecs: 901 is outside 1..=900");
        let mut camel = config(Spelling::Camel);
        assert_eq!(
            camel.set_limit("maxRounds", u64::MAX).unwrap_err().message(),
            format!("maxRounds: {} is outside 1..=1000", u64::MAX)
        );
        assert_eq!(camel.set_limit("nope", 1).unwrap_err().code(), ErrorCode::Config);
        camel.set_limit("maxFlowAgeSecs", 10).unwrap();
        assert_eq!(
            check_limits(&camel).unwrap_err().message(),
            "maxFlowAgeSecs: 10 must be at least ttlSecs (300)"
        );
    }

    #[test]
    fn issue_13_fields_are_named_in_the_callers_spelling() {
        assert_eq!(config(Spelling::Snake).field_name("strict_answers"), "strict_answers");
        assert_eq!(config(Spelling::Camel).field_name("strict_answers"), "strictAnswers");
        assert_eq!(config(Spelling::Camel).field_name("audience"), "audience");
        let mut camel = config(Spelling::Camel);
        camel.audience = Some(String::new());
        let err = crate::Engine::new(camel).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Config);
        assert!(err.message().starts_with("audience: must be 1 to 256 bytes"), "{}", err.message());
    }
}
