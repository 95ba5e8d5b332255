//! The [`Call`]: one request as the handler sees it, and the answers it
//! reads ([`Call::response`]).

use std::borrow::Cow;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::answer::Answer;
use crate::elicitation;
use crate::token::{self, Opened, Principal};

/// One request as the handler sees it.
#[derive(Debug, Clone)]
pub struct Call {
    pub(crate) id: Value,
    /// Issue 16, twelfth pass: the method and protocol version are not
    /// copied when snodo knows them (`json::interned`).
    pub(crate) method: Cow<'static, str>,
    pub(crate) params: Map<String, Value>,
    pub(crate) principal: Principal,
    pub(crate) protocol_version: Cow<'static, str>,
    pub(crate) mrtr: bool,
    /// Shared (issue 16, twelfth pass): a client's capabilities and info
    /// are the same tree on every request (`json/envelope/fast/memo.rs`).
    pub(crate) capabilities: Arc<Value>,
    pub(crate) client_info: Option<Arc<Value>>,
    pub(crate) meta: Map<String, Value>,
    pub(crate) round: u32,
    pub(crate) flow_start: u64,
    pub(crate) binding: [u8; 32],
    pub(crate) opened: Option<Opened>,
    /// The token's state, parsed on first read (parsing costs more than
    /// opening the token, and many handlers never read it).
    pub(crate) state_cache: OnceLock<Option<Value>>,
    /// The request's `inputResponses` (issue 16, seventh pass: kept as
    /// the checked text `begin` read and built on first read).
    pub(crate) responses: Answers,
    /// Set by the first `decide`: one request gets one response. Shared by
    /// clones, because a clone is the same request (same id, same token).
    pub(crate) decided: Arc<AtomicBool>,
    /// Issue 13: the engine's `strict_answers` (answers without a token ignored).
    pub(crate) strict_answers: bool,
    /// Issue 14: `Some(flow tag)` on a call that arrived on a 2025-era
    /// session (`legacy::begin_legacy`); the tag names the legacy bridge's
    /// outgoing request ids. `None` on every 2026 call.
    pub(crate) legacy_tag: Option<String>,
    /// Issue 16: `params.arguments` as `begin` streamed it, built into a
    /// tree only when the handler reads the params.
    pub(crate) lazy_args: LazyArgs,
}

/// `params.arguments` kept as canonical bytes (the map holds `null` in its
/// place) until first read; then `full` is the params with the tree.
#[derive(Debug, Clone, Default)]
pub(crate) struct LazyArgs {
    pub(crate) canonical: Option<Vec<u8>>,
    full: OnceLock<Map<String, Value>>,
}

impl LazyArgs {
    pub(crate) fn new(canonical: Option<Vec<u8>>) -> LazyArgs {
        LazyArgs { canonical, full: OnceLock::new() }
    }
}

/// `inputResponses` as a `Call` keeps it: a map, or (issue 16, seventh
/// pass) the text of an object `begin` has checked in full (syntax,
/// nesting, repeated keys, every entry an object, the entry count) but
/// not built, since building it was about a tenth of a retry's `begin`
/// and a handler that asks no question never reads it. The map is built
/// on first read, by the same reader that would have built it in `begin`
/// (`json::answers_tree`), so it is the same map; `begin`'s property
/// tests hold the two to that.
#[derive(Clone, Default)]
pub(crate) struct Answers {
    text: Option<Box<str>>,
    map: OnceLock<Map<String, Value>>,
}

impl Answers {
    /// Answers `begin` checked as text (see the type's docs).
    pub(crate) fn text(text: &str) -> Answers {
        Answers { text: Some(text.into()), map: OnceLock::new() }
    }

    pub(crate) fn get(&self) -> &Map<String, Value> {
        self.map.get_or_init(|| match self.text.as_deref().and_then(crate::json::answers_tree) {
            Some(Value::Object(map)) => map,
            // Text `begin` checked always reads back as an object (the
            // property tests); the fallback keeps the no-panic rule
            // mechanical.
            _ => Map::new(),
        })
    }
}

impl From<Map<String, Value>> for Answers {
    fn from(map: Map<String, Value>) -> Answers {
        Answers { text: None, map: OnceLock::from(map) }
    }
}

/// As the map: a `Call` prints the same whichever way it holds it.
impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
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
        let Some(bytes) = &self.lazy_args.canonical else { return &self.params };
        self.lazy_args.full.get_or_init(|| {
            let mut full = self.params.clone();
            // Canonical bytes the strict parser wrote always parse (no
            // size bound: the request's own bound already applied); the
            // fallback keeps the no-panic rule mechanical.
            let args = crate::json::parse(bytes, usize::MAX).unwrap_or(Value::Null);
            full.insert("arguments".to_owned(), args);
            full
        })
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
        self.params().get("arguments")
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
        self.mrtr && crate::MRTR_METHODS.contains(&self.method.as_ref())
    }
    /// Whether the request arrived on a 2025-era session (issue 14,
    /// `Engine::begin_legacy`): decide it with `Engine::decide_legacy`.
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
        self.client_info.as_deref()
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
    /// Issue 17: the flow id of the token opened on this retry (the same
    /// for every round of one flow), base64url without padding of 16
    /// bytes; `None` on a first round.
    pub fn flow_id(&self) -> Option<&str> {
        self.opened.as_ref().map(Opened::flow_id)
    }
    /// Issue 17: the random id of the token opened on this retry (the key
    /// for consume-once), base64url without padding of 16 bytes; `None` on
    /// a first round.
    pub fn token_id(&self) -> Option<&str> {
        self.opened.as_ref().map(Opened::token_id)
    }
    /// Issue 17: when the token opened on this retry expires (Unix seconds;
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
    /// Issue 17: SHA-256 over the canonical JSON (docs/canonical-json.md)
    /// of this request's `inputResponses` object as the call reads it
    /// ([`Call::input_responses`]; `{}` when absent), base64url without
    /// padding. With [`Call::flow_id`] it keys a remembered final response:
    /// the same answers in the same flow give the same digest, whatever
    /// their key order or spacing on the wire.
    pub fn answers_digest(&self) -> String {
        let mut h = crate::json::HashSink::new(Sha256::new());
        crate::json::write_map_spliced(self.responses.get(), &[], None, &mut h);
        let digest: [u8; 32] = h.finish().finalize().into();
        base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, digest)
    }
    /// The application state carried by the token, if any.
    pub fn state(&self) -> Option<&Value> {
        self.state_cache.get_or_init(|| self.opened.as_ref().and_then(Opened::state)).as_ref()
    }
    /// The token's state as canonical JSON text, if any (issue 16): for a
    /// binding that parses it with its own fast parser rather than through
    /// [`Call::state`]'s tree.
    pub fn state_text(&self) -> Option<&str> {
        self.opened.as_ref().and_then(Opened::state_json)
    }
    /// The keys asked in the previous round (empty on round 1).
    pub fn asked_keys(&self) -> Vec<&str> {
        self.opened
            .as_ref()
            .map(|o| o.question_digests.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// The answer to input request `key`, which the handler would ask as
    /// `request`. On a call with a verified token it counts only if that
    /// exact request was asked under that key in the previous round (its
    /// digest is pinned in the token); otherwise it is [`Answer::Missing`]
    /// and the handler simply asks again. On a call *without* a token
    /// (issue 13) an answer sent under `key` counts for `request`, unless the
    /// engine is configured with `strict_answers`. Either way accepted
    /// content is validated against the request's schema.
    pub fn response(&self, key: &str, request: &Value) -> Answer {
        // The question's digest within the depth bound, when the token
        // pinned one: it also says whether the question passed validation
        // on this thread before (below).
        let mut within = None;
        match &self.opened {
            Some(opened) => {
                let Some(pinned) = opened.question_digests.get(key) else { return Answer::Missing };
                // Ninth pass: the digest from this thread's kept copy when
                // `decide` (or an earlier answer) kept an equal question:
                // the same bytes as digesting it (token/payload/asked.rs
                // says why), without writing and hashing it again. The
                // memo only supplies the digest. A question past the depth
                // bound gets no digest there (seal would have refused it),
                // so it is digested unbounded as before: an old token that
                // pinned one still compares the same way.
                within = token::question_digest_asked(request, &elicitation::passed_before);
                let asked = within.unwrap_or_else(|| token::question_digest(request));
                if *pinned != asked {
                    // Issue 13: an answer to a question that changed since
                    // sealing is its own state, not silently missing.
                    return if self.responses.get().contains_key(key) {
                        Answer::Changed
                    } else {
                        Answer::Missing
                    };
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
        let Some(answer) = self.responses.get().get(key) else { return Answer::Missing };
        // Thirteenth pass: a question with the digest of one that passed
        // validation on this thread (in `decide`, or an earlier answer) is
        // that very value, so it passes again with the same kind
        // (`elicitation/seen.rs` says why); only a question not seen pass
        // is validated, and remembered when it passes. The answer itself is
        // always read and checked against the question's schema.
        let kind = match within.and_then(|d| elicitation::passed_kind(&d)) {
            Some(kind) => kind,
            None => match elicitation::validate_input_request(request) {
                Ok(kind) => {
                    if let Some(d) = within {
                        elicitation::remember_passed(d, kind);
                    }
                    kind
                }
                // The question itself is invalid: decide would never have sent it.
                Err(e) => return Answer::Invalid(format!("request: {}", e.message())),
            },
        };
        elicitation::read_answer(request, kind, answer)
    }

    /// Every entry of the request's `inputResponses`, exactly as received
    /// and unvalidated (issue 13): for logging, or for handlers that need
    /// to see keys they did not ask. Prefer [`Call::response`], which
    /// validates. Empty when the request had none or its method ignores them.
    pub fn input_responses(&self) -> &Map<String, Value> {
        self.responses.get()
    }

    /// The raw answer for `key`, without pinning the question: only for keys
    /// asked in the previous round, and the handler validates it itself. For
    /// handlers that cannot rebuild the same request each round.
    pub fn raw_response(&self, key: &str) -> Option<&Value> {
        let opened = self.opened.as_ref()?;
        if !opened.question_digests.contains_key(key) {
            return None;
        }
        self.responses.get().get(key)
    }
}
