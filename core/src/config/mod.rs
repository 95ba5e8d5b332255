//! [`Config`]: the engine's settings, with their defaults; `limits.rs` is
//! the one schema of the numeric limits (names, ranges, spellings).

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::token::Key;

mod keys_env;
mod limits;

pub use keys_env::{KEYS_ENV, parse_keys};
pub use limits::*;

/// A clock returning Unix seconds. Inject one in tests.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Default token lifetime, seconds.
pub const DEFAULT_TTL_SECS: u64 = 300;
/// Hard cap on the token lifetime, seconds.
pub const MAX_TTL_SECS: u64 = 900;
/// Default maximum rounds per flow.
pub const DEFAULT_MAX_ROUNDS: u32 = 16;
/// Default maximum flow age, seconds.
pub const DEFAULT_MAX_FLOW_AGE_SECS: u64 = 3600;
/// Default maximum token size, bytes.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 16 * 1024;
/// Default maximum request size, bytes.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;
/// Default maximum number of `inputResponses` entries.
pub const DEFAULT_MAX_INPUT_RESPONSES: usize = 64;
/// Default allowed clock skew for tokens issued "in the future", seconds.
pub const DEFAULT_CLOCK_SKEW_SECS: u64 = 60;

/// Default token format sealed: 1, signed and readable.
pub const DEFAULT_TOKEN_VERSION: u8 = 1;

/// The 2025-era revisions accepted by default on a legacy session,
/// newest first (the first is the counter-offer of
/// [`Engine::legacy_version_for`](crate::Engine::legacy_version_for)).
pub const DEFAULT_LEGACY_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// Engine configuration. Build with [`Config::new`], adjust fields (or set
/// limits by name with [`Config::set_limit`], the schema in
/// [`LIMITS`](crate::LIMITS)), then [`Engine::new`](crate::Engine::new) validates it.
///
/// `#[non_exhaustive]`: build it with [`Config::new`], so that a new limit
/// is not a breaking change.
#[derive(Clone)]
#[non_exhaustive]
pub struct Config {
    /// 1 to 8 keys: the first signs, all verify.
    pub keys: Vec<Key>,
    /// Token lifetime in seconds, 1 to 900 (default 300).
    pub ttl_secs: u64,
    /// Most rounds in one flow, 1 to 1000 (default 16).
    pub max_rounds: u32,
    /// Oldest a flow may get, in seconds, at least `ttl_secs` (default 3600).
    pub max_flow_age_secs: u64,
    /// Largest `requestState` issued or accepted, 256 B to 1 MiB (default 16 KiB).
    pub max_token_bytes: usize,
    /// Largest request message `begin` reads, 1 KiB to 64 MiB (default 4 MiB).
    pub max_request_bytes: usize,
    /// Most `inputResponses` entries accepted, 1 to 4096 (default 64).
    pub max_input_responses: usize,
    /// Protocol versions accepted (default `["2026-07-28"]`). MRTR is on for
    /// versions from 2026-07-28 on and off for earlier ones.
    pub supported_versions: Vec<String>,
    /// The 2025-era revisions a session may have negotiated at
    /// `initialize` for [`Engine::begin_legacy`](crate::Engine::begin_legacy)
    /// (default [`DEFAULT_LEGACY_VERSIONS`]); each earlier than 2026-07-28.
    /// Empty refuses every legacy call. (camelCase: `legacyVersions`.)
    pub legacy_versions: Vec<String>,
    /// Tolerated clock skew for tokens issued in the future, 0 to 300 s (default 60).
    pub clock_skew_secs: u64,
    /// Optional `io.modelcontextprotocol/serverInfo` stamped on every result's `_meta`.
    pub server_info: Option<Value>,
    /// When `false` (the default) an answer sent *without* a
    /// `requestState` counts for the question the handler passes to
    /// `Call::response`, validated against it. `true` restores the strict
    /// rule: only questions pinned by a verified token count.
    /// (camelCase: `strictAnswers`.)
    pub strict_answers: bool,
    /// An optional audience (this service's name) bound into every
    /// token, so tokens never open at another service sharing a key. `None`
    /// (the default) leaves every token byte as before. (camelCase: `audience`.)
    pub audience: Option<String>,
    /// The token format sealed, 1 (signed, readable; the default)
    /// or 2 (XChaCha20-Poly1305, confidential). Tokens of either version
    /// always open, so switching does not break live flows.
    /// (camelCase: `tokenVersion`.)
    pub token_version: u8,
    /// The oldest token format opened, 1 (the default: both open) or 2
    /// (v1 tokens are refused with reason `version`), for a deployment
    /// that moved to v2 and no longer wants readable tokens accepted. At
    /// most `token_version`. (camelCase: `minTokenVersion`.)
    pub min_token_version: u8,
    /// **Tests only** (cargo feature `test-knobs`): when non-zero, token
    /// ids, flow ids and v2 nonces are derived from this seed and the
    /// seal's inputs instead of the operating system, so that vectors are
    /// byte-exact in every language. With it, two users' identical
    /// requests in one second get the same v2 nonce under the same key.
    /// 0 (the default) is the operating system. (camelCase: `testRandomSeed`.)
    #[cfg(feature = "test-knobs")]
    pub test_random_seed: u64,
    /// The clock; `None` means system time.
    pub clock: Option<Clock>,
    /// How error messages spell field names (the binding sets it: Node
    /// uses camelCase).
    pub spelling: Spelling,
}

impl Config {
    /// A configuration with `keys` and every default.
    pub fn new(keys: Vec<Key>) -> Config {
        Config {
            keys,
            ttl_secs: DEFAULT_TTL_SECS,
            max_rounds: DEFAULT_MAX_ROUNDS,
            max_flow_age_secs: DEFAULT_MAX_FLOW_AGE_SECS,
            max_token_bytes: DEFAULT_MAX_TOKEN_BYTES,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            max_input_responses: DEFAULT_MAX_INPUT_RESPONSES,
            supported_versions: vec![crate::MRTR_VERSION.to_owned()],
            legacy_versions: DEFAULT_LEGACY_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
            clock_skew_secs: DEFAULT_CLOCK_SKEW_SECS,
            server_info: None,
            strict_answers: false,
            audience: None,
            token_version: DEFAULT_TOKEN_VERSION,
            min_token_version: 1,
            #[cfg(feature = "test-knobs")]
            test_random_seed: 0,
            clock: None,
            spelling: Spelling::Snake,
        }
    }

    /// **Tests only** (cargo feature `test-knobs`): a fixed clock (Unix
    /// seconds), for vectors; with it tokens never expire. The one name for
    /// it: `fixed_time` (C `snodo_config_set_fixed_time`, Python
    /// `fixed_time=`, Node `fixedTime`), refused by every binding built
    /// without the feature. A Rust server that needs its own time source
    /// sets [`Config::clock`].
    #[cfg(feature = "test-knobs")]
    pub fn fixed_time(mut self, now: u64) -> Config {
        self.clock = Some(Arc::new(move || now));
        self
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("keys", &self.keys)
            .field("ttl_secs", &self.ttl_secs)
            .field("max_rounds", &self.max_rounds)
            .field("max_flow_age_secs", &self.max_flow_age_secs)
            .field("max_token_bytes", &self.max_token_bytes)
            .field("max_request_bytes", &self.max_request_bytes)
            .field("max_input_responses", &self.max_input_responses)
            .field("supported_versions", &self.supported_versions)
            .field("legacy_versions", &self.legacy_versions)
            .field("clock_skew_secs", &self.clock_skew_secs)
            .field("strict_answers", &self.strict_answers)
            .field("audience", &self.audience)
            .field("token_version", &self.token_version)
            .field("min_token_version", &self.min_token_version)
            .field("clock", &self.clock.as_ref().map(|_| "custom"))
            .finish_non_exhaustive()
    }
}
