//! The [`Engine`]: built once from a validated [`Config`], immutable, and
//! shareable across threads (`Send + Sync`; wrap it in an `Arc`).

use std::fmt;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::config::Spelling;
use crate::decide::{Outcome, Response};
use crate::envelope::{self, Begin, Call};
use crate::error::{Error, ErrorCode, Result};
pub use crate::token::Key;
use crate::token::{self, KeyRing, Limits, Opened, Principal, SealInput, TokenError};

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

/// Issue 14: the 2025-era revisions accepted by default on a legacy session,
/// newest first (the first is the counter-offer of
/// [`Engine::legacy_version_for`]).
pub const DEFAULT_LEGACY_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// The message of a second `decide`, in every language.
pub const ALREADY_DECIDED_MESSAGE: &str = "call: already decided";

/// Engine configuration. Build with [`Config::new`], adjust fields (or set
/// limits by name with [`Config::set_limit`], the schema in
/// [`LIMITS`](crate::LIMITS)), then [`Engine::new`] validates it.
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
    /// Issue 14: the 2025-era revisions a session may have negotiated at
    /// `initialize` for [`Engine::begin_legacy`] (default
    /// [`DEFAULT_LEGACY_VERSIONS`]); each earlier than 2026-07-28. Empty
    /// refuses every legacy call. (camelCase: `legacyVersions`.)
    pub legacy_versions: Vec<String>,
    /// Tolerated clock skew for tokens issued in the future, 0 to 300 s (default 60).
    pub clock_skew_secs: u64,
    /// Optional `io.modelcontextprotocol/serverInfo` stamped on every result's `_meta`.
    pub server_info: Option<Value>,
    /// Issue 13: when `false` (the default) an answer sent *without* a
    /// `requestState` counts for the question the handler passes to
    /// `Call::response`, validated against it. `true` restores the strict
    /// rule: only questions pinned by a verified token count.
    /// (camelCase: `strictAnswers`.)
    pub strict_answers: bool,
    /// Issue 13: an optional audience (this service's name) bound into every
    /// token, so tokens never open at another service sharing a key. `None`
    /// (the default) leaves every token byte as before. (camelCase: `audience`.)
    pub audience: Option<String>,
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
            clock: None,
            spelling: Spelling::Snake,
        }
    }

    /// Sets a fixed clock (Unix seconds), for tests and vectors. The one
    /// name for it: `fixed_time` (C `snodo_config_set_fixed_time`, Python
    /// `fixed_time=`, Node `fixedTime`).
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
            .field("clock", &self.clock.as_ref().map(|_| "custom"))
            .finish_non_exhaustive()
    }
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<()> {
    if ok { Ok(()) } else { Err(Error::new(ErrorCode::Config, what())) }
}

fn is_version(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
}

/// The MRTR engine. Cheap to share: every method takes `&self`.
#[derive(Clone)]
pub struct Engine {
    ring: KeyRing,
    pub(crate) limits: Limits,
    pub(crate) max_request_bytes: usize,
    pub(crate) max_input_responses: usize,
    pub(crate) versions: Vec<String>,
    pub(crate) legacy_versions: Vec<String>,
    pub(crate) server_info: Option<Value>,
    pub(crate) strict_answers: bool,
    pub(crate) audience: Option<String>,
    clock: Option<Clock>,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("key_ids", &self.ring)
            .field("limits", &self.limits)
            .field("versions", &self.versions)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Validates `config` and builds the engine.
    pub fn new(config: Config) -> Result<Engine> {
        let ring = KeyRing::new(&config.keys)?;
        crate::config::check_limits(&config)?;
        let versions = config.field_name("supported_versions");
        check(!config.supported_versions.is_empty(), || format!("{versions}: empty"))?;
        for (i, v) in config.supported_versions.iter().enumerate() {
            check(is_version(v), || format!("{versions}[{i}]: {v:?} is not a YYYY-MM-DD version"))?;
            check(!config.supported_versions[..i].contains(v), || {
                format!("{versions}[{i}]: duplicate {v:?}")
            })?;
        }
        // Issue 14: legacy revisions are dates before MRTR, no duplicates.
        let legacy = config.field_name("legacy_versions");
        for (i, v) in config.legacy_versions.iter().enumerate() {
            check(is_version(v) && v.as_str() < crate::MRTR_VERSION, || {
                format!("{legacy}[{i}]: {v:?} is not a YYYY-MM-DD version before {}", crate::MRTR_VERSION)
            })?;
            check(!config.legacy_versions[..i].contains(v), || format!("{legacy}[{i}]: duplicate {v:?}"))?;
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
        Ok(Engine {
            ring,
            limits: Limits {
                ttl: config.ttl_secs,
                max_rounds: config.max_rounds,
                max_flow_age: config.max_flow_age_secs,
                max_token_bytes: config.max_token_bytes,
                skew: config.clock_skew_secs,
            },
            max_request_bytes: config.max_request_bytes,
            max_input_responses: config.max_input_responses,
            versions: config.supported_versions,
            legacy_versions: config.legacy_versions,
            server_info: config.server_info,
            strict_answers: config.strict_answers,
            audience: config.audience,
            clock: config.clock,
        })
    }

    /// An engine with one random key that lives as long as the process.
    ///
    /// **Development only, single process only**: tokens it seals cannot be
    /// opened by any other process or after a restart. Real deployments give
    /// every instance the same key ring.
    pub fn development() -> Result<Engine> {
        Engine::new(Config::new(vec![Key::random("dev")?]))
    }

    /// Unix seconds from the engine's clock.
    pub fn now(&self) -> u64 {
        match &self.clock {
            Some(c) => c(),
            None => SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        }
    }

    /// Reads a request message (the whole JSON-RPC request, bytes as
    /// received) that may be an MRTR retry. Returns the [`Call`] for the
    /// handler, or a ready error [`Response`] to send as is.
    ///
    /// Errors only on misuse: the message is not a request (a notification
    /// or a response) — send nothing back for those.
    pub fn begin(&self, request: &[u8], principal: &Principal) -> Result<Begin> {
        envelope::begin(self, request, principal)
    }

    /// Like [`Engine::begin`] for an already parsed message. Numbers keep
    /// whatever lexical form the value carries.
    pub fn begin_value(&self, request: Value, principal: &Principal) -> Result<Begin> {
        envelope::begin_value(self, request, principal)
    }

    /// Turns the handler's outcome for `call` into the response to send.
    ///
    /// A call is decided once: a second `decide` of the same call (or of a
    /// clone of it) is [`ErrorCode::AlreadyDecided`], so one request never
    /// gets two responses or two tokens. Only a produced response marks the
    /// call; a binding that fails to read its outcome argument (`ARGUMENT`)
    /// never reaches here, so the call may still be decided.
    pub fn decide(&self, call: &Call, outcome: Outcome) -> Result<Response> {
        if call.decided.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return Err(Error::new(ErrorCode::AlreadyDecided, ALREADY_DECIDED_MESSAGE));
        }
        Ok(crate::decide::decide(self, call, outcome))
    }

    /// Issue 14: reads a request that arrived on a 2025-era `session` into
    /// the same [`Call`] a 2026 request gives (see `docs/legacy.md`).
    pub fn begin_legacy(
        &self,
        request: &[u8],
        session: &crate::legacy::Session,
        principal: &Principal,
    ) -> Result<Begin> {
        crate::legacy::begin_legacy(self, request, session, principal)
    }

    /// Like [`Engine::begin_legacy`] for an already parsed message.
    pub fn begin_legacy_value(
        &self,
        request: Value,
        session: &crate::legacy::Session,
        principal: &Principal,
    ) -> Result<Begin> {
        crate::legacy::begin_legacy_value(self, request, session, principal)
    }

    /// Issue 14: decides a call from [`Engine::begin_legacy`]. An
    /// `input_required` outcome becomes server-to-client requests and a
    /// [`PendingFlow`](crate::PendingFlow) instead of `-32603`; every other
    /// outcome is decided as by [`Engine::decide`]. On a 2026 call it is
    /// exactly `decide`. A call is decided once (`ALREADY_DECIDED`).
    pub fn decide_legacy(&self, call: &Call, outcome: Outcome) -> Result<crate::legacy::Bridge> {
        if call.decided.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return Err(Error::new(ErrorCode::AlreadyDecided, ALREADY_DECIDED_MESSAGE));
        }
        Ok(crate::legacy::decide_legacy(self, call, outcome))
    }

    /// Issue 14: feeds the client's JSON-RPC response (text as received)
    /// to one of `pending`'s requests. A response that is malformed, not
    /// for this flow, a duplicate, or late (the flow ended) is an error
    /// (`JSON` or `ARGUMENT`) and changes nothing.
    pub fn feed(
        &self,
        pending: &mut crate::legacy::PendingFlow,
        response: &[u8],
    ) -> Result<crate::legacy::Feed> {
        crate::legacy::feed(self, pending, response)
    }

    /// Like [`Engine::feed`] for an already parsed response.
    pub fn feed_value(
        &self,
        pending: &mut crate::legacy::PendingFlow,
        response: Value,
    ) -> Result<crate::legacy::Feed> {
        crate::legacy::feed_value(self, pending, response)
    }

    /// Issue 14: the application's timer for `pending` fired (see
    /// [`PendingFlow::deadline`](crate::PendingFlow::deadline)): the flow
    /// ends with a failure response and cancellations for unanswered requests.
    pub fn timeout(&self, pending: &mut crate::legacy::PendingFlow) -> Result<crate::legacy::Feed> {
        crate::legacy::timeout(self, pending)
    }

    /// Issue 14: the protocol version to answer an `initialize` that asked
    /// for `requested`: `requested` itself when it is an accepted legacy
    /// revision, else the first of `legacy_versions` (the spec's
    /// counter-offer); `None` when legacy sessions are disabled.
    pub fn legacy_version_for(&self, requested: &str) -> Option<&str> {
        self.legacy_versions
            .iter()
            .find(|v| v.as_str() == requested)
            .or_else(|| self.legacy_versions.first())
            .map(String::as_str)
    }

    /// The defaults of the low-level `seal`, the same in every language:
    /// round 1 (a first call), the flow starting now (the engine's clock), no
    /// input requests asked, no state. Override fields as needed.
    pub fn seal_input<'a>(&self, principal: &'a Principal, binding: &'a [u8; 32]) -> SealInput<'a> {
        SealInput { principal, binding, round: 1, flow_start: self.now(), questions: &[], state: None }
    }

    /// Low-level: seals a token with the signing key at the engine's time.
    pub fn seal(&self, input: &SealInput<'_>) -> Result<String> {
        token::seal(&self.ring, &self.limits, self.now(), input)
    }

    pub(crate) fn open_at(
        &self,
        now: u64,
        token: &str,
        principal: &Principal,
        binding: &[u8; 32],
    ) -> Result<Opened, TokenError> {
        token::open(&self.ring, &self.limits, now, token, principal, binding)
    }

    pub(crate) fn seal_at(&self, now: u64, input: &SealInput<'_>) -> Result<String> {
        token::seal(&self.ring, &self.limits, now, input)
    }

    /// Low-level: opens a token for `principal` and the request `binding`
    /// (see [`crate::binding_digest`]) at the engine's time.
    pub fn open(&self, token: &str, principal: &Principal, binding: &[u8; 32]) -> Result<Opened, TokenError> {
        token::open(&self.ring, &self.limits, self.now(), token, principal, binding)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn key() -> Key {
        Key::new("k1", vec![7; 32]).unwrap()
    }

    #[test]
    fn config_limits() {
        let bad = |f: fn(&mut Config)| {
            let mut c = Config::new(vec![key()]);
            f(&mut c);
            Engine::new(c).unwrap_err()
        };
        assert!(bad(|c| c.ttl_secs = 901).message().contains("ttl_secs"));
        assert!(bad(|c| c.ttl_secs = 0).message().contains("ttl_secs"));
        assert!(bad(|c| c.max_rounds = 0).message().contains("max_rounds"));
        assert!(bad(|c| c.max_flow_age_secs = 10).message().contains("max_flow_age_secs"));
        assert!(bad(|c| c.max_token_bytes = 10).message().contains("max_token_bytes"));
        assert!(bad(|c| c.supported_versions = vec![]).message().contains("supported_versions"));
        assert!(
            bad(|c| c.supported_versions = vec!["latest".into()]).message().contains("supported_versions")
        );
        assert!(bad(|c| c.keys = vec![]).message().contains("empty"));
        assert!(Engine::new(Config::new(vec![key()])).is_ok());
    }

    #[test]
    fn debug_never_shows_key_bytes() {
        let e = Engine::new(Config::new(vec![Key::new("k1", vec![0x5a; 32]).unwrap()])).unwrap();
        let d = format!("{e:?}");
        assert!(d.contains("k1"));
        assert!(!d.contains("90")); // 0x5a
        assert!(!d.contains("5a"));
    }

    #[test]
    fn engine_is_send_sync() {
        fn ok<T: Send + Sync>() {}
        ok::<Engine>();
    }
}
