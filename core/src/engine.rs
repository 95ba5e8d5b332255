//! The [`Engine`]: a thin front. It turns a validated [`Config`] into a
//! policy, a token sealer and a clock once, and hands them to `begin` and
//! `decide`. Immutable and shareable across threads (`Send + Sync`; wrap it
//! in an `Arc`).

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::begin::{self, Begin};
use crate::call::Call;
use crate::config::{Clock, Config};
use crate::decide;
use crate::error::Result;
use crate::legacy::{self, Bridge, Feed, PendingFlow, Session};
use crate::policy::{self, Policy};
use crate::response::{Outcome, Response};
use crate::token::{Key, Opened, Principal, SealInput, Sealer, TokenError};

/// The MRTR engine. Cheap to share: every method takes `&self`.
#[derive(Clone)]
pub struct Engine {
    policy: Policy,
    sealer: Sealer,
    clock: Option<Clock>,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("key_ids", &self.sealer.ring)
            .field("limits", &self.sealer.limits)
            .field("versions", &self.policy.versions)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Validates `config` and builds the engine.
    pub fn new(config: Config) -> Result<Engine> {
        let parts = policy::from_config(config)?;
        Ok(Engine { policy: parts.policy, sealer: parts.sealer, clock: parts.clock })
    }

    /// `Engine::new(Config::from_env()?)`: every default and the key ring
    /// of `SNODO_KEYS` ([`Config::from_env`], whose `CONFIG` errors name
    /// the bad entry). To change a setting, start from
    /// [`Config::from_env`] instead.
    pub fn from_env() -> Result<Engine> {
        Engine::new(Config::from_env()?)
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
        begin::begin(&self.policy, &self.sealer, &|| self.now(), request, principal)
    }

    /// [`Engine::begin`] at the time `now` (Unix seconds) instead of a
    /// reading of the engine's clock: `begin` reads the clock once, so
    /// `begin_at(r, p, engine.now())` is `begin(r, p)`, and with the same
    /// request, principal and `now` the same engine gives the same result
    /// every time. The token's expiry is checked against `now`: pass only
    /// a reading of this engine's clock ([`Engine::now`]), never a time
    /// from the request.
    pub fn begin_at(&self, request: &[u8], principal: &Principal, now: u64) -> Result<Begin> {
        begin::begin(&self.policy, &self.sealer, &|| now, request, principal)
    }

    /// Like [`Engine::begin`] for an already parsed message. Numbers keep
    /// whatever lexical form the value carries; a value nested deeper than
    /// [`MAX_DEPTH`](crate::MAX_DEPTH) is refused as its text would be.
    pub fn begin_value(&self, request: Value, principal: &Principal) -> Result<Begin> {
        begin::begin_value(&self.policy, &self.sealer, &|| self.now(), request, principal)
    }

    /// Like [`Engine::begin`] for a request an SDK has already parsed into
    /// its parts: the JSON-RPC `id`, the `method` and the `params` as
    /// received (with `_meta`, `inputResponses` and `requestState` left in;
    /// `Value::Null` means no params). Same checks, same binding, same
    /// token as `begin` on the bytes of that request: the binding is over
    /// the canonical form, so re-serialising cannot change it (the
    /// `parts.json` vectors prove it in every language). Not checked here:
    /// the message size (the SDK read the body under its own cap) and
    /// duplicate keys (a parsed value has none left).
    pub fn begin_parts(
        &self,
        id: Value,
        method: &str,
        params: Value,
        principal: &Principal,
    ) -> Result<Begin> {
        let mut msg = serde_json::Map::new();
        msg.insert("jsonrpc".into(), Value::from("2.0"));
        msg.insert("id".into(), id);
        msg.insert("method".into(), Value::from(method));
        if !params.is_null() {
            msg.insert("params".into(), params);
        }
        self.begin_value(Value::Object(msg), principal)
    }

    /// Turns the handler's outcome for `call` into the response to send.
    ///
    /// A call is decided once: a second `decide` of the same call (or of a
    /// clone of it) is [`ErrorCode::AlreadyDecided`](crate::ErrorCode::AlreadyDecided),
    /// so one request never gets two responses or two tokens. Only a
    /// produced response marks the call; a binding that fails to read its
    /// outcome argument (`ARGUMENT`) never reaches here, so the call may
    /// still be decided.
    pub fn decide(&self, call: &Call, outcome: Outcome) -> Result<Response> {
        decide::decide(&self.policy, &self.sealer, &|| self.now(), call, outcome)
    }

    /// The task machine's step for `call` (`docs/tasks.md`): for a
    /// `tasks/get`, `tasks/update` or `tasks/cancel` request (no `outcome`),
    /// or for the handler's `outcome` on a request or on a run of the
    /// handler as a task; a run with no `outcome` reads its own task (the
    /// `tasks/get` result: a long run learns it was cancelled). Run the
    /// step's command on a [`TaskStore`](crate::TaskStore), then
    /// [`TaskStep::finish`](crate::TaskStep::finish) gives the response to
    /// send and the next run of the handler, if any. An outcome other
    /// than [`Outcome::Task`] on a request is decided as [`Engine::decide`]
    /// decides it. `ARGUMENT` when a request has no outcome; `ALREADY_DECIDED`
    /// as for `decide`.
    pub fn task_step(&self, call: &Call, outcome: Option<Outcome>) -> Result<crate::TaskStep> {
        let ctx =
            crate::task_machine::Ctx { policy: &self.policy, sealer: &self.sealer, now: &|| self.now() };
        crate::task_machine::step(&ctx, call, outcome)
    }

    /// One step of the task machine on `store`, for Rust servers: runs the
    /// step's command, if any, and reads its reply. A store that fails makes
    /// the step answer `-32603` "task store unavailable" (the error goes to
    /// the response's diagnostic), never a guess; only a reply no script
    /// gives is an `Err` ([`ErrorCode::Store`](crate::ErrorCode::Store)).
    /// `call` and `outcome` as for [`Engine::task_step`].
    pub fn run_task_step(
        &self,
        store: &dyn crate::TaskStore,
        call: &Call,
        outcome: Option<Outcome>,
    ) -> Result<crate::TaskDone> {
        let step = self.task_step(call, outcome)?;
        let reply = match step.command().map(|c| store.execute(c)) {
            None => None,
            Some(Ok(reply)) => Some(reply),
            Some(Err(e)) => {
                let mut done = step.finish(None)?;
                let why = format!("task store unavailable: {}", e.message());
                done.response = done.response.map(|r| r.with_diagnostic(&why));
                return Ok(done);
            }
        };
        step.finish(reply.as_deref())
    }

    /// Reads a request that arrived on a 2025-era `session` into
    /// the same [`Call`] a 2026 request gives (see `docs/legacy.md`).
    pub fn begin_legacy(&self, request: &[u8], session: &Session, principal: &Principal) -> Result<Begin> {
        legacy::begin_legacy(&self.policy, &self.sealer, &|| self.now(), request, session, principal)
    }

    /// Like [`Engine::begin_legacy`] for an already parsed message.
    pub fn begin_legacy_value(
        &self,
        request: Value,
        session: &Session,
        principal: &Principal,
    ) -> Result<Begin> {
        legacy::begin_legacy_value(&self.policy, &self.sealer, &|| self.now(), request, session, principal)
    }

    /// Decides a call from [`Engine::begin_legacy`]. An
    /// `input_required` outcome becomes server-to-client requests and a
    /// [`PendingFlow`] instead of `-32603`; every other outcome is decided
    /// as by [`Engine::decide`]. On a 2026 call it is exactly `decide`. A
    /// call is decided once (`ALREADY_DECIDED`).
    pub fn decide_legacy(&self, call: &Call, outcome: Outcome) -> Result<Bridge> {
        legacy::decide_legacy(&self.policy, &self.sealer, &|| self.now(), call, outcome)
    }

    /// Feeds the client's JSON-RPC response (text as received),
    /// sent by `principal`, to one of `pending`'s requests. A response that
    /// is malformed, not for this flow, a duplicate, late (the flow ended),
    /// or from another principal than the flow's is an error (`JSON` or
    /// `ARGUMENT`) and changes nothing.
    pub fn feed(&self, pending: &mut PendingFlow, response: &[u8], principal: &Principal) -> Result<Feed> {
        legacy::feed(&self.policy, &self.sealer, &|| self.now(), pending, response, principal)
    }

    /// Like [`Engine::feed`] for an already parsed response.
    pub fn feed_value(
        &self,
        pending: &mut PendingFlow,
        response: Value,
        principal: &Principal,
    ) -> Result<Feed> {
        legacy::feed_value(&self.policy, &self.sealer, &|| self.now(), pending, response, principal)
    }

    /// The application's timer for `pending` fired (see
    /// [`PendingFlow::deadline`]): the flow ends with a failure response and
    /// cancellations for unanswered requests.
    pub fn timeout(&self, pending: &mut PendingFlow) -> Result<Feed> {
        legacy::timeout(pending)
    }

    /// The protocol version to answer an `initialize` that asked
    /// for `requested`: `requested` itself when it is an accepted legacy
    /// revision, else the first of `legacy_versions` (the spec's
    /// counter-offer); `None` when legacy sessions are disabled.
    pub fn legacy_version_for(&self, requested: &str) -> Option<&str> {
        let versions = &self.policy.legacy_versions;
        versions.iter().find(|v| v.as_str() == requested).or_else(|| versions.first()).map(String::as_str)
    }

    /// The defaults of the low-level `seal`, the same in every language:
    /// round 1 (a first call), the flow starting now (the engine's clock), no
    /// input requests asked, no state. Override fields as needed.
    pub fn seal_input<'a>(&self, principal: &'a Principal, binding: &'a [u8; 32]) -> SealInput<'a> {
        SealInput { principal, binding, round: 1, flow_start: self.now(), questions: &[], state: None }
    }

    /// Low-level: seals a token with the signing key at the engine's time.
    pub fn seal(&self, input: &SealInput<'_>) -> Result<String> {
        self.sealer.seal(self.now(), input)
    }

    /// Low-level: opens a token for `principal` and the request `binding`
    /// (see [`crate::binding_digest`]) at the engine's time.
    pub fn open(&self, token: &str, principal: &Principal, binding: &[u8; 32]) -> Result<Opened, TokenError> {
        self.sealer.open(self.now(), token, principal, binding)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
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
    fn begin_parts_refuses_depth_like_the_bytes_path() {
        let e = Engine::new(Config::new(vec![key()])).unwrap();
        let mut deep = serde_json::json!(1);
        for _ in 0..crate::json::MAX_DEPTH {
            deep = serde_json::json!([deep]);
        }
        let params = serde_json::json!({"name": "t", "arguments": {"x": deep}});
        let text = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let from_bytes = match e.begin(text.to_string().as_bytes(), &Principal::anonymous()).unwrap() {
            Begin::Respond(r) => r.body().clone(),
            Begin::Call(_) => panic!("bytes: a call"),
        };
        let from_parts =
            match e.begin_parts(Value::from(1), "tools/call", params, &Principal::anonymous()).unwrap() {
                Begin::Respond(r) => r.body().clone(),
                Begin::Call(_) => panic!("parts: a call"),
            };
        assert_eq!(from_parts, from_bytes);
        assert_eq!(from_parts["error"]["message"], "Request is nested too deeply");
    }

    /// `begin_at` at the clock's reading is `begin`.
    #[test]
    fn begin_at_is_begin_at_that_time() {
        let mut c = Config::new(vec![key()]);
        c.clock = Some(std::sync::Arc::new(|| 1_800_000_000));
        let e = Engine::new(c).unwrap();
        let alice = Principal::from_option(Some("alice")).unwrap();
        let r1 = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"a":[1,2.50]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;
        let call = |b: Begin| match b {
            Begin::Call(c) => c,
            Begin::Respond(r) => panic!("{}", r.to_json()),
        };
        let plain = call(e.begin(r1, &alice).unwrap());
        let at = call(e.begin_at(r1, &alice, e.now()).unwrap());
        assert_eq!(format!("{plain:?}"), format!("{at:?}"));
        let done = || Outcome::Complete(serde_json::json!({"content": []}));
        let first = e.decide(&plain, done()).unwrap();
        assert!(e.decide(&plain, done()).is_err(), "decided once");
        assert_eq!(e.decide(&at, done()).unwrap().to_json(), first.to_json());
        // Another time is another call (the flow starts then).
        let later = call(e.begin_at(r1, &alice, 1_800_000_001).unwrap());
        assert_eq!(later.flow_start(), 1_800_000_001);
    }

    #[test]
    fn min_token_version_2_refuses_v1_tokens_only() {
        let engine = |version: u8, min: u8| {
            let mut c = Config::new(vec![key()]);
            c.token_version = version;
            c.min_token_version = min;
            Engine::new(c)
        };
        let err = engine(1, 2).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::Config);
        assert!(
            err.message().starts_with("min_token_version: 2 is newer than token_version (1)"),
            "{}",
            err.message()
        );
        let (v1, v2, only_v2) = (engine(1, 1).unwrap(), engine(2, 1).unwrap(), engine(2, 2).unwrap());
        let alice = Principal::user("alice").unwrap();
        let binding = [9u8; 32];
        let t1 = v1.seal(&v1.seal_input(&alice, &binding)).unwrap();
        let t2 = v2.seal(&v2.seal_input(&alice, &binding)).unwrap();
        assert!(v2.open(&t1, &alice, &binding).is_ok(), "the default opens both");
        assert_eq!(only_v2.open(&t1, &alice, &binding).unwrap_err().reason, crate::TokenReason::Version);
        assert!(only_v2.open(&t2, &alice, &binding).is_ok());
    }

    #[test]
    fn engine_is_send_sync() {
        fn ok<T: Send + Sync>() {}
        ok::<Engine>();
    }
}
