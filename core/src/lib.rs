//! snodo: MCP multi round-trip requests (MRTR, protocol revision 2026-07-28)
//! done right, once, for servers in any language.
//!
//! Table of contents:
//!
//! * [`Engine`] (module `engine`): configuration, `begin` and `decide`.
//! * `envelope`: reading a request that may be a retry, into a [`Call`].
//! * `decide`: turning a handler's [`Outcome`] into the JSON-RPC [`Response`].
//! * `capabilities`: what a client can receive, `-32021`.
//! * `elicitation`: builders for input requests.
//! * `schema`: the restricted form-schema subset and answer validation.
//! * `token`: sealed continuation tokens (`requestState`).
//! * `json`: strict parsing and the canonical form.
//! * `error`: the one misuse error type.
#![forbid(unsafe_code)]

pub mod answer;
pub mod audience;
pub mod capabilities;
pub mod decide;
pub mod elicitation;
pub mod elicitation_lint;
pub mod engine;
pub mod envelope;
pub mod error;
pub mod error_policy;
pub mod http_headers;
pub mod json;
pub mod result_check;
pub mod schema;
pub mod tasks;
pub mod token;

pub use answer::Answer;
pub use capabilities::{filter_supported, missing_capabilities};
pub use decide::{Outcome, Response};
#[allow(deprecated)]
pub use elicitation::{
    elicit_form, elicit_form_without_lint, elicit_url, elicit_url_without_lint, list_roots, sampling,
};
pub use engine::{Config, Engine, Key};
pub use envelope::{Begin, Call, Principal};
pub use error::{Error, ErrorCode, Result};
pub use http_headers::{check_http_headers, check_http_headers_text};
pub use json::canonicalize;
pub use tasks::{TaskInputCheck, check_task_input_requests};
pub use token::{Opened, SealInput, TokenError, TokenReason, binding_digest};

/// The protocol revision that introduced MRTR.
pub const MRTR_VERSION: &str = "2026-07-28";

/// The three methods on which `input_required` may be answered.
pub const MRTR_METHODS: [&str; 3] = ["tools/call", "resources/read", "prompts/get"];

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
