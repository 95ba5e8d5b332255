//! Serving 2025-era (`initialize`) sessions through the same handlers (`docs/legacy.md`): thin
//! translations of the core's; its `Bridge` and `Feed` become tagged objects (`{kind, …}`).

use std::collections::BTreeMap;

use napi::bindgen_prelude::*;
use serde_json::Value;

use crate::call::Call;
use crate::engine::{Engine, begun};
use crate::error::{Coded, Result, core};
use crate::json;
use crate::response::{Response, outcome_arg};

/// What a 2025-era session negotiated at `initialize`, and the principal that opened it (immutable):
/// pass it to every `engine.beginLegacy`; run `checkPrincipal` on every message routed to it.
#[napi]
#[derive(Debug, Clone)]
pub struct Session {
    pub(crate) inner: snodo::Session,
}

#[napi]
impl Session {
    /// A session that negotiated `protocolVersion`, with the client's `capabilities` and optional
    /// `clientInfo` (objects or JSON text), opened by `principal` (required; `null` for anonymous).
    /// Its id is random (set the transport's with `withId`). Throws `ARGUMENT` naming the field.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        protocol_version: String,
        #[napi(ts_arg_type = "Record<string, any> | string")] capabilities: Unknown,
        #[napi(ts_arg_type = "Record<string, any> | string | null")] client_info: Option<Unknown>,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
    ) -> Result<Session> {
        let principal = json::principal(principal)?;
        let capabilities = json::read(&env, capabilities, "capabilities")?;
        let client_info = match client_info {
            Some(v) if !json::is_nullish(&v)? => Some(json::read(&env, v, "clientInfo")?),
            _ => None,
        };
        let inner =
            snodo::Session::new(&protocol_version, capabilities, client_info, &principal).map_err(core)?;
        Ok(Session { inner })
    }
    /// A session from the client's `initialize` request (message or params, object or text), with
    /// `negotiated` the version answered, opened by `principal` (required; `null` for anonymous).
    #[napi(factory, catch_unwind)]
    pub fn from_initialize(
        env: Env,
        #[napi(ts_arg_type = "Record<string, any> | string | Buffer")] initialize: Unknown,
        negotiated: String,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
    ) -> Result<Session> {
        let principal = json::principal(principal)?;
        let initialize = json::read(&env, initialize, "initialize")?;
        let inner = snodo::Session::from_initialize(&initialize, &negotiated, &principal).map_err(core)?;
        Ok(Session { inner })
    }
    /// The principal that opened the session: its name, or `null` for anonymous.
    #[napi(getter, catch_unwind)]
    pub fn principal(&self) -> Option<String> {
        self.inner.principal().name().map(str::to_owned)
    }
    /// Checks that a message on this session comes from `principal`, the one that opened it: `null`
    /// to go on, else the refusal to send (404 `-32001`, as for an unknown session).
    #[napi(catch_unwind)]
    pub fn check_principal(
        &self,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
    ) -> Result<Option<Response>> {
        let principal = json::principal(principal)?;
        Ok(self.inner.check_principal(&principal).map(|r| Response::from(&r)))
    }
    /// The same session with the transport's id (the `Mcp-Session-Id`, or any unique string for a
    /// stdio connection): a new `Session`.
    #[napi(catch_unwind)]
    pub fn with_id(&self, id: String) -> Result<Session> {
        Ok(Session { inner: self.inner.clone().with_id(&id).map_err(core)? })
    }
    /// The session id.
    #[napi(getter, catch_unwind)]
    pub fn id(&self) -> String {
        self.inner.id().to_owned()
    }
    /// The negotiated protocol revision.
    #[napi(getter, catch_unwind)]
    pub fn protocol_version(&self) -> String {
        self.inner.protocol_version().to_owned()
    }
    /// The capabilities the client declared, as given.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn client_capabilities<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, self.inner.client_capabilities())
    }
    /// The client info from `initialize`, or `null`. Informational only.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any> | null")]
    pub fn client_info<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, self.inner.client_info().unwrap_or(&Value::Null))
    }
    /// The declared capabilities minus what the revision lacks: what a legacy `Call` reports and
    /// admission checks.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn usable_capabilities<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, &self.inner.usable_capabilities())
    }
    /// The `notifications/elicitation/complete` message for `elicitationId` (2025-11-25 sessions
    /// with `elicitation.url` only; `ARGUMENT` otherwise).
    #[napi(catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn elicitation_complete<'e>(&self, env: &'e Env, elicitation_id: String) -> Result<Unknown<'e>> {
        json::to_js(env, &self.inner.elicitation_complete(&elicitation_id).map_err(core)?)
    }
    /// A summary without capabilities, client info or principal (for logs).
    #[napi(js_name = "toJSON", catch_unwind)]
    pub fn to_json(&self) -> String {
        format!("Session({} {})", self.inner.id(), self.inner.protocol_version())
    }
}

/// One legacy round in flight (the core's `PendingFlow`), owned by the application: drop it on
/// disconnect (snodo holds nothing else).
#[napi]
#[derive(Debug)]
pub struct PendingFlow {
    pub(crate) inner: Box<snodo::PendingFlow>,
}

#[napi]
impl PendingFlow {
    /// The server-to-client JSON-RPC requests of this round, in order.
    #[napi(getter, catch_unwind, ts_return_type = "Array<Record<string, any>>")]
    pub fn requests<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, &Value::Array(self.inner.requests().to_vec()))
    }
    /// Their ids (strings starting `snodo-`).
    #[napi(getter, catch_unwind)]
    pub fn request_ids(&self) -> Vec<String> {
        self.inner.request_ids().into_iter().map(str::to_owned).collect()
    }
    /// Whether a response with this `id` belongs to this flow and is still awaited.
    #[napi(catch_unwind)]
    pub fn awaits(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string | number | null")] id: Unknown,
    ) -> Result<bool> {
        Ok(self.inner.awaits(&json::id(&env, id)?))
    }
    /// The request ids still unanswered.
    #[napi(getter, catch_unwind)]
    pub fn outstanding(&self) -> Vec<String> {
        self.inner.outstanding().into_iter().map(str::to_owned).collect()
    }
    /// URL elicitations of this round: input key → `elicitationId`.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, string>")]
    pub fn elicitation_ids(&self) -> BTreeMap<String, String> {
        self.inner.elicitation_ids().into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
    }
    /// Unix seconds after which the application calls `engine.timeout`.
    #[napi(getter, catch_unwind)]
    pub fn deadline(&self) -> i64 {
        i64::try_from(self.inner.deadline()).unwrap_or(i64::MAX)
    }
    /// The round these requests belong to (1 = first).
    #[napi(getter, catch_unwind)]
    pub fn round(&self) -> u32 {
        self.inner.round()
    }
    /// Unix seconds when the flow began.
    #[napi(getter, catch_unwind)]
    pub fn flow_start(&self) -> i64 {
        i64::try_from(self.inner.flow_start()).unwrap_or(i64::MAX)
    }
    /// The originating request's JSON-RPC id.
    #[napi(getter, catch_unwind, ts_return_type = "string | number")]
    pub fn id<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::to_js(env, self.inner.id())
    }
    /// The originating request's method.
    #[napi(getter, catch_unwind)]
    pub fn method(&self) -> String {
        self.inner.method().to_owned()
    }
    /// Whether the flow ended (answered, failed, timed out or cancelled).
    #[napi(getter, catch_unwind)]
    pub fn is_ended(&self) -> bool {
        self.inner.is_ended()
    }
    /// The client cancelled the originating request (or the application abandons it): ends the flow
    /// and returns the `notifications/cancelled` to send for unanswered requests. Send no response.
    #[napi(catch_unwind, ts_return_type = "Array<Record<string, any>>")]
    pub fn cancel<'e>(&mut self, env: &'e Env, reason: Option<String>) -> Result<Unknown<'e>> {
        json::to_js(env, &Value::Array(self.inner.cancel(reason.as_deref())))
    }
    /// A summary without questions or answers (for logs).
    #[napi(js_name = "toJSON", catch_unwind)]
    pub fn to_json(&self) -> String {
        format!("PendingFlow({} round {})", self.inner.method(), self.inner.round())
    }
}

/// What `decideLegacy` says: `respond` (send `response`), `send` (send `pending.requests`, then
/// `feed` the client's responses) or `resume` (a round with state only: run the handler again).
#[napi(discriminant = "kind", discriminant_case = "lowercase", object_from_js = false)]
#[allow(missing_debug_implementations)]
pub enum Bridge {
    /// Send `response`.
    Respond { response: Response },
    /// Send `pending.requests`.
    Send { pending: PendingFlow },
    /// Run the handler again with `call`.
    Resume { call: Call },
}

/// What `feed` and `timeout` say: `waiting`, `resume` (run the handler with `call`) or `respond`
/// (send `response`, and `cancellations` for the requests left unanswered).
// The TypeScript shape only: `fed` builds the objects (the cancellations are JSON values).
#[napi(discriminant = "kind", discriminant_case = "lowercase", object_from_js = false)]
#[allow(missing_debug_implementations, dead_code)]
pub enum Feed {
    /// More responses are awaited.
    Waiting,
    /// Run the handler again with `call`.
    Resume { call: Call },
    /// The flow ended.
    Respond {
        response: Response,
        #[napi(ts_type = "Array<Record<string, any>>")]
        cancellations: Vec<String>,
    },
}

fn fed<'e>(env: &'e Env, feed: snodo::Feed) -> Result<Object<'e>> {
    let mut o = Object::new(env).coded()?;
    match feed {
        snodo::Feed::Waiting => o.set("kind", "waiting").coded()?,
        snodo::Feed::Resume(call) => {
            o.set("kind", "resume").coded()?;
            o.set("call", Call::new(call)).coded()?;
        }
        snodo::Feed::Respond { response, cancellations } => {
            o.set("kind", "respond").coded()?;
            o.set("response", Response::from(&response)).coded()?;
            o.set("cancellations", json::to_js(env, &Value::Array(cancellations))?).coded()?;
        }
    }
    Ok(o)
}

/// The refusal for an unknown session id (404, `-32001`): the same bytes as
/// `session.checkPrincipal`'s, so an unknown session and another user's cannot be told apart.
#[napi(catch_unwind)]
pub fn unknown_session() -> Response {
    Response::from(&snodo::unknown_session())
}

#[napi]
impl Engine {
    /// Reads a request that arrived on a 2025-era `session` (see `docs/legacy.md`): the same `Call`
    /// a 2026 request gives (`mrtrAllowed` false, `isLegacy` true), or a ready `Response`.
    #[napi(catch_unwind)]
    pub fn begin_legacy(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "string | Buffer | object")] request: Unknown,
        session: &Session,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
    ) -> Result<Either<Call, Response>> {
        let principal = json::principal(principal)?;
        let bytes = json::text_of(env, request, "request")?;
        Ok(begun(self.inner.begin_legacy(&bytes, &session.inner, &principal).map_err(core)?))
    }
    /// Decides a call from `beginLegacy` (once per call; on a 2026 call it is `decide`, as `{kind:
    /// 'respond'}`).
    #[napi(catch_unwind)]
    pub fn decide_legacy(
        &self,
        env: &Env,
        call: &Call,
        #[napi(ts_arg_type = "Outcome | string | Buffer")] outcome: Unknown,
    ) -> Result<Bridge> {
        let outcome = outcome_arg(env, outcome)?;
        Ok(match self.inner.decide_legacy(&call.inner, outcome).map_err(core)? {
            snodo::Bridge::Respond(r) => Bridge::Respond { response: Response::from(&r) },
            snodo::Bridge::Send(pending) => Bridge::Send { pending: PendingFlow { inner: pending } },
            snodo::Bridge::Resume(call) => Bridge::Resume { call: Call::new(call) },
        })
    }
    /// Feeds the client's JSON-RPC response (text or object), sent by `principal` (required), to
    /// `pending`. Throws (`JSON`, `ARGUMENT`) for a malformed, foreign, repeated, late or
    /// other-principal response; the flow is then unchanged.
    #[napi(catch_unwind, ts_return_type = "Feed")]
    pub fn feed<'e>(
        &self,
        env: &'e Env,
        pending: &mut PendingFlow,
        #[napi(ts_arg_type = "string | Buffer | object")] response: Unknown,
        #[napi(ts_arg_type = "string | null")] principal: Unknown,
    ) -> Result<Object<'e>> {
        let principal = json::principal(principal)?;
        let bytes = json::text_of(env, response, "response")?;
        fed(env, self.inner.feed(&mut pending.inner, &bytes, &principal).map_err(core)?)
    }
    /// The application's timer for `pending` fired (at `pending.deadline`): the flow fails with
    /// `timeout` unless it already ended.
    #[napi(catch_unwind, ts_return_type = "Feed")]
    pub fn timeout<'e>(&self, env: &'e Env, pending: &mut PendingFlow) -> Result<Object<'e>> {
        fed(env, self.inner.timeout(&mut pending.inner).map_err(core)?)
    }
    /// The protocol version to answer an `initialize` that asked for `requested`: itself if
    /// accepted, else the first configured legacy version; `null` when legacy serving is disabled.
    #[napi(catch_unwind)]
    pub fn legacy_version_for(&self, requested: String) -> Option<String> {
        self.inner.legacy_version_for(&requested).map(str::to_owned)
    }
}
