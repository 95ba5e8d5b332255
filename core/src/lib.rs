//! snodo: MCP multi round-trip requests (MRTR, protocol revision 2026-07-28)
//! done right, once, for servers in any language.
//!
//! Table of contents, bottom up (a module uses only the layers above it in
//! this list; `core/tests/layers.rs` checks it):
//!
//! 1. `error.rs`: the one misuse error type. `json/`: `strict.rs` (the one
//!    reader of attacker-controlled JSON) and `canonical.rs` (the one
//!    writer of the canonical form).
//! 2. Leaf rules: `answer.rs` ([`Answer`]), `schema/` (the form-schema
//!    subset and answer validation), `audience.rs` (the token audience),
//!    `error_policy.rs` and `result_check.rs` (the wire checks on handler
//!    errors and final results).
//! 3. Questions: `elicitation/` (`question`, `build`, `url`, `validate`,
//!    `read`, `sampling`, `lint`: input requests, the object a server
//!    asks, as [`Question`] values; its map key is the "key"). Protocol
//!    objects on them: `token/` (`keys`, `principal`, `reason`,
//!    `payload`, `binding`, `seal`: sealed `requestState` tokens, which
//!    pin the questions' digests), `capabilities.rs` (what a client can
//!    receive, `-32021`).
//! 4. `tasks/`: the Tasks extension: its checks and its stores (memory,
//!    Redis); `task_machine/`: the task machine (`Engine::task_step`).
//! 5. `call.rs` ([`Call`]), `response.rs` ([`Outcome`], [`Response`]),
//!    `config/` ([`Config`], the one table of limits, [`LIMITS`], and the
//!    `SNODO_KEYS` loader, [`parse_keys`] and [`Config::from_env`]).
//!    `once/`: at most once per flow, the sans-IO machine [`OnceRun`] on a
//!    call, the [`OnceStore`]s that run its commands ([`MemoryStore`],
//!    `RedisStore` with feature `redis`) and the Rust driver [`run_once`].
//! 6. `policy.rs`: a validated config as policy + token sealer + clock.
//! 7. `begin.rs` and `decide.rs`: the two steps, functions of policy,
//!    sealer and clock; `http_headers.rs` ([`check_http_headers`]) and
//!    `http_origin.rs` ([`check_http_origin`]), the HTTP edge checks.
//! 8. `legacy/`: 2025-era sessions through the same handlers, a
//!    sans-IO bridge on top of the two steps ([`Session`], `begin_legacy`,
//!    `decide_legacy` → [`Bridge`], [`PendingFlow`], [`Feed`]).
//! 9. `engine.rs`: [`Engine`], the thin front that holds them.
//! 10. Tools on the engine: `inspect/`, the `snodo-mrtr` command line
//!     ([`run_cli`]): a token inspector ([`inspect_token`]) and a key
//!     generator ([`keygen`]).
//!
//! Every public item is re-exported here, at one path; the modules are
//! private.
//!
//! # Example
//!
//! A tool handler asks one question, completes on an accepted answer and
//! ends the flow on a declined one (`handle` is the README's handler, word
//! for word; `make test` checks they agree). Below, a client's first call
//! gets `input_required`, and its retry with the user's decline gets a tool
//! error: a final result, not the same question again.
//!
//! ```
//! use serde_json::{Value, json};
//! use snodo::{Config, Key};
//! # use snodo::{elicit_form, Answer, Begin, Engine, Outcome, Principal, Response};
//! #
//! # fn handle(engine: &Engine, body: &[u8], user: Option<&str>) -> snodo::Result<Response> {
//! #     let principal = match user {
//! #         Some(name) => Principal::user(name)?,   // the verified subject
//! #         None => Principal::anonymous(),         // explicit, never a default
//! #     };
//! #     let call = match engine.begin(body, &principal)? { // Err(NOT_A_REQUEST): a notification, send nothing
//! #         Begin::Call(call) => call,
//! #         Begin::Respond(ready) => return Ok(ready),    // -32700, -32600, -32602, -32022
//! #     };
//! #     let question = elicit_form("Which colour?", &json!({"type": "object",
//! #         "properties": {"color": {"type": "string", "enum": ["red", "green"]}}, "required": ["color"]}))?;
//! #     let outcome = match call.response("color", &question) {
//! #         Answer::Accepted(c) => Outcome::Complete(json!({"content": [{"type": "text", "text": c["color"]}]})),
//! #         Answer::Declined | Answer::Cancelled => Outcome::ToolError("No colour chosen".into()),
//! #         _ => Outcome::InputRequired { requests: vec![("color".into(), question)], state: None },
//! #     };
//! #     engine.decide(&call, outcome) // send response.to_json() with response.http_status()
//! # }
//! #
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Once at start-up: keys come from your secret store (32+ random bytes).
//! let engine = Engine::new(Config::new(vec![Key::new("2026-11", vec![7u8; 32])?]))?;
//! let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
//!     "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
//! let first = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
//!     "params": {"name": "paint", "_meta": meta}});
//! let response = handle(&engine, first.to_string().as_bytes(), Some("alice"))?;
//! let body: Value = serde_json::from_str(&response.to_json())?;
//! assert_eq!(body["result"]["resultType"], "input_required");
//!
//! // The client echoes requestState with the user's answer: declined.
//! let retry = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "paint",
//!     "_meta": meta, "inputResponses": {"color": {"action": "decline"}},
//!     "requestState": body["result"]["requestState"]}});
//! let response = handle(&engine, retry.to_string().as_bytes(), Some("alice"))?;
//! assert_eq!(response.http_status(), 200);
//! assert!(response.to_json().contains(r#""isError":true"#));
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
// No panics on any input: besides unwrap/expect/panic (workspace lints),
// no unchecked indexing or slicing outside tests. The few sites left are
// hot paths whose bounds are proved in a comment beside a local allow.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]
#![deny(missing_docs)]

// Modules are private: every public item has exactly one path, at the crate
// root, so files can move without breaking callers (docs/api.md lists it).
// Layers, bottom up; a module imports only from layers below its own
// (tests/layers.rs checks it).

// 1. Foundations: strict JSON and the canonical form; the one error type.
mod error;
mod json;
// 2. Leaf rules, each on its own: answers, the form-schema subset, the
//    token audience, and the wire checks on handler errors and results.
mod answer;
mod audience;
mod error_policy;
mod result_check;
mod schema;
// 3. Questions: input requests as values.
mod elicitation;
// 3b. Protocol objects on questions: sealed tokens, client capabilities.
mod capabilities;
mod token;
// 4. Rules built on those: the Tasks extension.
mod task_machine;
mod tasks;
// 5. The request and the reply: the handler's call, outcome and response,
//    and the configuration.
mod call;
mod config;
mod response;
// 5b. At most once per flow: the machine on a call, and its stores.
mod once;
// 6. The validated configuration: policy, token sealer, clock.
mod policy;
// 7. The two steps, as functions of policy + sealer + clock, and the HTTP
//    header check on a request.
mod begin;
mod decide;
mod http_headers;
mod http_origin;
// 8. The legacy bridge: 2025-era sessions on top of the two steps.
mod legacy;
// 9. The thin front.
mod engine;
// 10. Tools built on the engine: the snodo-mrtr command line.
mod inspect;

pub use answer::Answer;
pub use audience::{MAX_AUDIENCE_BYTES, audience_binding};
pub use begin::{Begin, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION};
pub use call::Call;
pub use capabilities::{INPUT_REQUESTS_MESSAGE, filter_supported, input_requests, missing_capabilities};
pub use config::{
    Clock, Config, DEFAULT_CLOCK_SKEW_SECS, DEFAULT_LEGACY_VERSIONS, DEFAULT_MAX_FLOW_AGE_SECS,
    DEFAULT_MAX_INPUT_RESPONSES, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_ROUNDS, DEFAULT_MAX_TOKEN_BYTES,
    DEFAULT_TOKEN_VERSION, DEFAULT_TTL_SECS, KEYS_ENV, LIMITS, Limit, MAX_TTL_SECS, Spelling, find_limit,
    parse_keys,
};
pub use decide::ALREADY_DECIDED_MESSAGE;
#[allow(deprecated)]
pub use elicitation::{
    Question, RequestKind, elicit_form, elicit_form_without_lint, elicit_url, elicit_url_without_lint,
    list_roots, sampling,
};
pub use engine::Engine;
pub use error::{Error, ErrorCode, Result};
pub use http_headers::{
    HEADER_METHOD, HEADER_NAME, HEADER_PROTOCOL_VERSION, check_http_headers, check_http_headers_text,
};
pub use http_origin::{LOOPBACK_HOSTS, OriginPolicy, check_http_origin};
pub use inspect::{
    BindingCheck, CliOutput, InspectOptions, InspectReport, TokenFields, Verdict, decode_token,
    default_key_id, inspect_token, keygen, run_cli,
};
pub use json::{MAX_ARGUMENT_BYTES, MAX_DEPTH, canonicalize, parse_json, to_wire};
pub use legacy::{
    Bridge, Feed, LEGACY_ID_PREFIX, MAX_SESSION_ID_BYTES, PendingFlow, Session, unknown_session,
    usable_capabilities,
};
pub use once::{
    DEFAULT_ONCE_LEASE_SECS, DEFAULT_ONCE_MAX_BYTES, DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL,
    DEFAULT_ONCE_PREFIX, MAX_ONCE_ID_BYTES, MAX_ONCE_PREFIX_BYTES, MemoryStore, ONCE_CLAIM_SCRIPT,
    ONCE_COMPLETE_SCRIPT, ONCE_EXTEND_SCRIPT, ONCE_FLOW_KEY_PART, ONCE_LOOKUP_SCRIPT, ONCE_RELEASE_SCRIPT,
    ONCE_REPLAYED_MESSAGE, ONCE_SAFE_EVICTION_POLICY, OnceCommand, OnceLease, OnceOp, OnceOptions, OnceRun,
    OnceSettings, OnceStep, OnceStore, OnceTicket, check_once, check_once_eviction_policy, check_once_id,
    check_once_prefix, once_flow_key, run_once, try_run_once,
};
// Only with the `redis` feature (docs/once.md).
#[cfg(feature = "redis")]
pub use once::{DEFAULT_REDIS_TIMEOUT_MS, RedisStore};
pub use response::{Outcome, Response};
pub use task_machine::{DEFAULT_TASK_POLL_MS, DEFAULT_TASK_TTL_MS, MAX_TASK_HOPS, TaskDone, TaskStep};
pub use tasks::{
    DEFAULT_MAX_TASKS, MemoryTaskStore, TASK_ANSWER_SCRIPT, TASK_CANCEL_SCRIPT, TASK_CREATE_SCRIPT,
    TASK_FINISH_SCRIPT, TASK_GET_SCRIPT, TASK_METHODS, TASK_PARK_SCRIPT, TASKS_EXTENSION, TASKS_UPDATE,
    TaskCommand, TaskInputCheck, TaskOp, TaskStore, check_create_task_result, check_task_input_requests,
    declares_tasks, task_required_capabilities,
};
pub use token::{
    BINDING_PARAMS_MESSAGE, EMPTY_PRINCIPAL_MESSAGE, FORMAT_VERSION, FORMAT_VERSION_V2, Key, MAX_KEY_BYTES,
    MAX_KEY_ID_BYTES, MAX_KEYS, MIN_KEY_BYTES, Opened, Principal, SealInput, TokenError, TokenReason,
    binding_digest, binding_digest_text,
};

/// Not API: internals re-exported for snodo's own tests, fuzz targets and
/// benches. Bindings must not use it; it may change in any release.
#[doc(hidden)]
pub mod internal {
    /// The strict reader and the canonical writer.
    pub mod json {
        pub use crate::json::{JsonError, parse};

        /// The canonical form of `value`, `None` past the depth bound (a
        /// function: the writer's module shares its name and stays private).
        pub fn canonical(value: &serde_json::Value) -> Option<Vec<u8>> {
            crate::json::canonical(value)
        }
    }
    pub use crate::elicitation::{read_answer, validate_input_request};
    pub use crate::schema::{validate_content, validate_form_schema};
    pub use crate::token::binding_digest_map;
}

/// The protocol revision that introduced MRTR.
pub const MRTR_VERSION: &str = "2026-07-28";

/// The three methods on which `input_required` may be answered.
pub const MRTR_METHODS: [&str; 3] = ["tools/call", "resources/read", "prompts/get"];

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The Rust blocks of `docs/once.md` are doctests: the page's code compiles
/// as a reader copies it.
#[cfg(doctest)]
#[doc = include_str!("../../docs/once.md")]
struct OnceDocs;
