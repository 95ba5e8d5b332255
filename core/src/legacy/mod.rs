//! Serving 2025-era (`initialize`) sessions through the same
//! handlers, sans-IO (`docs/legacy.md`).
//!
//! * `session.rs`: [`Session`], what `initialize` negotiated.
//! * `mod.rs` (here): `begin_legacy`, a legacy request into a [`Call`].
//! * `bridge.rs`: `decide_legacy` ([`Bridge`]): an `input_required`
//!   outcome becomes server-to-client requests and a [`PendingFlow`].
//! * `pending.rs`: [`PendingFlow`], the client's responses fed back
//!   ([`Feed`]), timeout and cancellation.
//!
//! A layer above `begin` and `decide` (`core/tests/layers.rs`): like them
//! it is a function of the policy, the token sealer and the clock; the
//! request-shape checks are `begin`'s own, and every outcome but a legacy
//! `input_required` is decided by `decide`'s code.

mod bridge;
mod pending;
mod session;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

use crate::begin::{self, Begin};
use crate::call::Call;
use crate::error::Result;
use crate::json;
use crate::policy::Policy;
use crate::response::Response;
use crate::token::{self, Principal, Sealer};

pub use bridge::Bridge;
pub(crate) use bridge::decide_legacy;
pub use pending::{Feed, PendingFlow};
pub(crate) use pending::{feed, feed_value, timeout};
pub use session::{MAX_SESSION_ID_BYTES, Session, unknown_session, usable_capabilities};

/// The prefix of every request id the bridge sends: a client's own ids
/// live in the other direction anyway, and the prefix keeps them apart in
/// an application's routing table too.
pub const LEGACY_ID_PREFIX: &str = "snodo-";

/// What the bridge's steps read, as `begin` and `decide` do: the policy,
/// the token sealer and the clock.
pub(crate) struct Ctx<'a> {
    pub(crate) policy: &'a Policy,
    pub(crate) sealer: &'a Sealer,
    pub(crate) now: &'a dyn Fn() -> u64,
}

/// Reads a request that arrived on a 2025-era `session` into a [`Call`]
/// (`docs/legacy.md`), with `begin`'s text rules.
pub(crate) fn begin_legacy(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    bytes: &[u8],
    session: &Session,
    principal: &Principal,
) -> Result<Begin> {
    match begin::parse_text(bytes, policy.max_request_bytes) {
        Ok(value) => begin_legacy_value(policy, sealer, now, value, session, principal),
        Err(respond) => Ok(respond),
    }
}

/// The flow tag in the bridge's request ids (and URL `elicitationId`s): a
/// MAC, under a key derived from the ring's signing key, of the session
/// id, the originating request id, its binding and the flow start. Unique
/// per flow (a client never reuses a request id within a session, and the
/// session id separates sessions), identical in every language for the
/// same keys (the vectors pin it), and not computable by whoever knows
/// only those public inputs: an id that could be guessed would let a
/// holder of the session id answer another user's question.
fn flow_tag(sealer: &Sealer, session: &Session, id: &Value, binding: &[u8; 32], flow_start: u64) -> String {
    let (id, start) = (json::to_wire(id), flow_start.to_string());
    let parts: [&[u8]; 4] = [session.id().as_bytes(), id.as_bytes(), start.as_bytes(), binding];
    sealer.ring.legacy_tag(&parts).iter().map(|b| format!("{b:02x}")).collect()
}

/// [`begin_legacy`] for an already parsed message.
pub(crate) fn begin_legacy_value(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    value: Value,
    session: &Session,
    principal: &Principal,
) -> Result<Begin> {
    // The request shape is `begin`'s, rule for rule, the depth bound too.
    if json::deeper_than(&value, json::MAX_DEPTH) {
        return Ok(begin::too_deep());
    }
    let shape = match begin::read_shape(value, "a response, not a request (feed it to its PendingFlow)")? {
        Ok(shape) => shape,
        Err(respond) => return Ok(respond),
    };
    // MRTR fields mean nothing on the legacy wire: split off, never
    // honoured (as on a 2026 request to a method without MRTR).
    let begin::Shape { id, method, params, meta, .. } = shape;
    // Another principal's session does not exist for this caller.
    if session.check_principal(principal).is_some() {
        return Ok(Begin::Respond(session::session_not_found(id)));
    }
    // The 2025 spec's answer to a version the server cannot serve is
    // -32602 with supported/requested (-32022 is 2026 vocabulary).
    let version = session.protocol_version();
    if !policy.legacy_versions.iter().any(|v| v == version) {
        return Ok(Begin::Respond(Response::error(
            id,
            -32602,
            "Unsupported protocol version",
            Some(json!({"supported": policy.legacy_versions, "requested": version})),
            400,
        )));
    }
    // Within the depth bound (checked above).
    let Some(binding) = token::binding_digest_map(&method, &params) else {
        return Ok(begin::too_deep());
    };
    let binding = crate::audience::audience_binding(&binding, policy.audience.as_deref());
    let flow_start = now();
    let tag = flow_tag(sealer, session, &id, &binding, flow_start);
    Ok(Begin::Call(Box::new(Call {
        id,
        method,
        params,
        principal: principal.clone(),
        protocol_version: version.to_owned(),
        mrtr: false,
        capabilities: session.usable_capabilities(),
        client_info: session.client_info().cloned(),
        meta,
        round: 1,
        flow_start,
        binding,
        opened: None,
        state_cache: OnceLock::new(),
        responses: Map::new(),
        decided: Arc::new(AtomicBool::new(false)),
        strict_answers: policy.strict_answers,
        legacy_tag: Some(tag),
        task: None,
    })))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, deprecated)]
mod tests;
