//! The [`Call`]: one request as the handler sees it, and the answers it
//! reads ([`Call::response`]).

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::answer::Answer;
use crate::elicitation::{self, Question};
use crate::json;
use crate::token::{Opened, Principal};

/// One request as the handler sees it.
#[derive(Debug, Clone)]
pub struct Call {
    pub(crate) id: Value,
    pub(crate) method: String,
    pub(crate) params: Map<String, Value>,
    pub(crate) principal: Principal,
    pub(crate) protocol_version: String,
    pub(crate) mrtr: bool,
    pub(crate) capabilities: Value,
    pub(crate) client_info: Option<Value>,
    pub(crate) meta: Map<String, Value>,
    pub(crate) round: u32,
    pub(crate) flow_start: u64,
    pub(crate) binding: [u8; 32],
    pub(crate) opened: Option<Opened>,
    /// The token's state, parsed on first read (parsing costs more than
    /// opening the token, and many handlers never read it).
    pub(crate) state_cache: OnceLock<Option<Value>>,
    /// The request's `inputResponses` (empty when absent or ignored).
    pub(crate) responses: Map<String, Value>,
    /// Set by the first `decide`: one request gets one response. Shared by
    /// clones, because a clone is the same request (same id, same token).
    pub(crate) decided: Arc<AtomicBool>,
    /// The engine's `strict_answers` (answers without a token ignored).
    pub(crate) strict_answers: bool,
    /// `Some(flow tag)` on a call that arrived on a 2025-era session
    /// (`legacy::begin_legacy`); the tag names the legacy bridge's
    /// outgoing request ids. `None` on every 2026 call.
    pub(crate) legacy_tag: Option<String>,
    /// `Some` on a run of a handler as a task (or as its inline
    /// continuation): the state and pinned questions come from the task, not
    /// from a token.
    pub(crate) task: Option<Box<TaskLeg>>,
}

/// What a task run reads instead of a token (`tasks::step`).
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskLeg {
    /// The task's id; `None` on an inline continuation (no task exists).
    pub(crate) task_id: Option<String>,
    /// The run's number in the task (`leg` in the store).
    pub(crate) leg: u64,
    pub(crate) state: Option<Value>,
    pub(crate) state_text: Option<String>,
    /// The digest of each question asked under the handler's key; an answer
    /// counts only for the same question, as with a token.
    pub(crate) pins: BTreeMap<String, [u8; 32]>,
    /// How many times in a row the handler handed itself on.
    pub(crate) hops: u64,
}

impl Call {
    /// The JSON-RPC id, exactly as received (string or number; `0` is valid).
    pub fn id(&self) -> &Value {
        &self.id
    }
    /// The method, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        &self.method
    }
    /// The salient params: everything but `_meta`, `inputResponses` and
    /// `requestState`. This is exactly what the token binds.
    pub fn params(&self) -> &Map<String, Value> {
        &self.params
    }
    /// `params.name` (tools/call, prompts/get), if a string.
    pub fn name(&self) -> Option<&str> {
        self.params.get("name").and_then(Value::as_str)
    }
    /// `params.uri` (resources/read), if a string.
    pub fn uri(&self) -> Option<&str> {
        self.params.get("uri").and_then(Value::as_str)
    }
    /// `params.arguments`, if present.
    pub fn arguments(&self) -> Option<&Value> {
        self.params.get("arguments")
    }
    /// The principal the application passed to `begin`.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }
    /// The request's protocol version.
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }
    /// Whether input_required may be answered: one of the three MRTR methods
    /// in the 2026-07-28 dialect or later.
    pub fn mrtr_allowed(&self) -> bool {
        self.mrtr && crate::MRTR_METHODS.contains(&self.method.as_str())
    }
    /// Whether the request arrived on a 2025-era session
    /// (`Engine::begin_legacy`): decide it with `Engine::decide_legacy`.
    pub fn is_legacy(&self) -> bool {
        self.legacy_tag.is_some()
    }
    /// This request's client capabilities (never an earlier request's).
    pub fn client_capabilities(&self) -> &Value {
        &self.capabilities
    }
    /// The self-reported client info, if sent. Informational only: never
    /// use it for security decisions.
    pub fn client_info(&self) -> Option<&Value> {
        self.client_info.as_ref()
    }
    /// The rest of the request's `_meta` (for example `progressToken`),
    /// without the protocol version, client capabilities and client info
    /// that snodo reads itself. snodo makes no decision on these keys.
    pub fn meta(&self) -> &Map<String, Value> {
        &self.meta
    }
    /// 1 for a first call, n+1 for a retry of round n.
    pub fn round(&self) -> u32 {
        self.round
    }
    /// Whether this request carried a valid token.
    pub fn is_retry(&self) -> bool {
        self.opened.is_some()
    }
    /// Unix seconds when the flow began (this request's time on round 1).
    pub fn flow_start(&self) -> u64 {
        self.flow_start
    }
    /// The flow id of the token opened on this retry (the same
    /// for every round of one flow), base64url without padding of 16
    /// bytes; `None` on a first round.
    pub fn flow_id(&self) -> Option<&str> {
        self.opened.as_ref().map(Opened::flow_id)
    }
    /// The random id of the token opened on this retry (the key
    /// for consume-once), base64url without padding of 16 bytes; `None` on
    /// a first round.
    pub fn token_id(&self) -> Option<&str> {
        self.opened.as_ref().map(Opened::token_id)
    }
    /// When the token opened on this retry expires (Unix seconds;
    /// it is refused from then on), so that a consume-once entry can expire
    /// with it; `None` on a first round.
    pub fn token_expires_at(&self) -> Option<u64> {
        self.opened.as_ref().map(|o| o.expires_at)
    }
    /// The last Unix second at which any token of this retry's flow can
    /// still be accepted by an engine of this configuration: the flow start
    /// plus `max_flow_age_secs` plus `clock_skew_secs`. A once store keeps
    /// the flow's record at least this long (docs/once.md); `None` on a
    /// first round.
    pub fn flow_expires_at(&self) -> Option<u64> {
        self.opened.as_ref().map(Opened::flow_expires_at)
    }
    /// SHA-256 over the canonical JSON (docs/canonical-json.md)
    /// of this request's `inputResponses` object as the call reads it
    /// ([`Call::input_responses`]; `{}` when absent), base64url without
    /// padding. With [`Call::flow_id`] it keys a remembered final response:
    /// the same answers in the same flow give the same digest, whatever
    /// their key order or spacing on the wire.
    pub fn answers_digest(&self) -> String {
        // The entries came from the strict reader: within the depth bound.
        let mut canonical = Vec::new();
        json::write_members(&self.responses, &[], &mut canonical, 1, json::MAX_DEPTH);
        let digest: [u8; 32] = Sha256::digest(&canonical).into();
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest)
    }
    /// The application state carried by the token, if any.
    pub fn state(&self) -> Option<&Value> {
        if let Some(task) = &self.task {
            return task.state.as_ref();
        }
        self.state_cache.get_or_init(|| self.opened.as_ref().and_then(Opened::state)).as_ref()
    }
    /// The token's state as canonical JSON text, if any.
    pub fn state_text(&self) -> Option<&str> {
        if let Some(task) = &self.task {
            return task.state_text.as_deref();
        }
        self.opened.as_ref().and_then(Opened::state_json)
    }
    /// The task this run of the handler belongs to: `Some` while the
    /// handler runs as a task (in the background), `None` in a request.
    pub fn task_id(&self) -> Option<&str> {
        self.task.as_ref().and_then(|t| t.task_id.as_deref())
    }
    /// The keys asked in the previous round (empty on round 1).
    pub fn asked_keys(&self) -> Vec<&str> {
        self.opened
            .as_ref()
            .map(|o| o.question_digests.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// The answer to input request `key`, which the handler asks as
    /// `question`. On a call with a verified token it counts only if that
    /// exact question was asked under that key in the previous round (its
    /// digest is pinned in the token); otherwise it is [`Answer::Missing`]
    /// (or [`Answer::Changed`] when an answer was sent for a question that
    /// changed since) and the handler simply asks again. On a call
    /// *without* a token an answer sent under `key` counts for `question`,
    /// unless the engine is configured with `strict_answers`. Either way
    /// accepted content is validated against the question's schema.
    pub fn response(&self, key: &str, question: &Question) -> Answer {
        let pins = self.task.as_ref().map(|t| &t.pins).or(self.opened.as_ref().map(|o| &o.question_digests));
        match pins {
            Some(pins) => {
                let Some(pinned) = pins.get(key) else { return Answer::Missing };
                if pinned != question.digest() {
                    // An answer to a question that changed since sealing
                    // is its own state, not silently missing.
                    return if self.responses.contains_key(key) { Answer::Changed } else { Answer::Missing };
                }
            }
            // No token: nothing pins the question, so the handler's own
            // question is the one answered (the client answers what it
            // likes in any case; pinning guards only against an answer to a
            // *different* question across rounds). Strict mode ignores it.
            // tasks/update never has a token: strict mode does not apply.
            None if self.strict_answers && self.method != crate::tasks::TASKS_UPDATE => {
                return Answer::Missing;
            }
            None => {}
        }
        let Some(answer) = self.responses.get(key) else { return Answer::Missing };
        elicitation::read_answer(question.value(), question.kind(), answer)
    }

    /// Every entry of the request's `inputResponses`, exactly as received
    /// and unvalidated: for logging, or for handlers that need
    /// to see keys they did not ask. Prefer [`Call::response`], which
    /// validates. Empty when the request had none or its method ignores them.
    pub fn input_responses(&self) -> &Map<String, Value> {
        &self.responses
    }

    /// The raw answer for `key`, without pinning the question: only for keys
    /// asked in the previous round, and the handler validates it itself. For
    /// handlers that cannot rebuild the same request each round.
    pub fn raw_response(&self, key: &str) -> Option<&Value> {
        let opened = self.opened.as_ref()?;
        if !opened.question_digests.contains_key(key) {
            return None;
        }
        self.responses.get(key)
    }
}
