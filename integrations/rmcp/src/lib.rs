//! snodo as the MRTR engine of an [rmcp](https://crates.io/crates/rmcp)
//! 3.11 server (`docs/with-rmcp.md`).
//!
//! [`Snodo`] wraps any [`ServerHandler`] that also implements [`Flows`]:
//! the `tools/call`, `prompts/get` and `resources/read` of the names the
//! handler [owns](Flows::owns) go through snodo (`begin_parts` → the
//! handler's [`Flows::flow`] → `decide`); every other request, and every
//! other name, goes to the handler's own `ServerHandler` methods. rmcp keeps
//! the transports, eras, lists and its own gates.
//!
//! snodo seals the one `requestState` (rmcp's `request-state` codec is not
//! enabled), answers `-32021` with `data.requiredCapabilities`, and sends
//! every rejection (`data.reason`) as a JSON-RPC error. A 2025-era session
//! (`initialize`) gets its questions as real `elicitation/create` (and
//! sampling, roots) requests over rmcp's peer handle, the answers fed to
//! snodo's legacy bridge, instead of rmcp's `-32600` for an
//! `input_required` result on that era.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use rmcp::model::*;
use rmcp::service::{
    MaybeSendFuture, NotificationContext, PeerRequestOptions, RequestContext, RequestHandle,
};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceError};
use serde_json::{Map, Value};
use snodo::{
    Begin, Bridge, Call, Engine, Feed, OnceLease, OnceOptions, OnceStore, Outcome, Principal, Response,
    Session,
};

pub use snodo;

/// docs/with-rmcp.md's Rust blocks, compiled as this crate's doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/with-rmcp.md")]
struct WithRmcpPage;

/// The three methods a flow may answer with `input_required`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `tools/call`, keyed by the tool's name.
    Tool,
    /// `prompts/get`, keyed by the prompt's name.
    Prompt,
    /// `resources/read`, keyed by the resource's URI.
    Resource,
}

impl Kind {
    /// The JSON-RPC method.
    pub fn method(self) -> &'static str {
        match self {
            Kind::Tool => "tools/call",
            Kind::Prompt => "prompts/get",
            Kind::Resource => "resources/read",
        }
    }

    fn of(method: &str) -> Option<Kind> {
        match method {
            "tools/call" => Some(Kind::Tool),
            "prompts/get" => Some(Kind::Prompt),
            "resources/read" => Some(Kind::Resource),
            _ => None,
        }
    }
}

/// What an rmcp handler adds to be served by [`Snodo`]: which names snodo
/// serves, and the handler body each round (read the answers from the
/// [`Call`], return an [`Outcome`]).
pub trait Flows: ServerHandler {
    /// Whether snodo serves `name` (a tool or prompt name, a resource URI)
    /// of `kind`; the others go to this handler's `ServerHandler` methods.
    fn owns(&self, kind: Kind, name: &str) -> bool;

    /// One round of an owned flow. An `Err` goes out as that JSON-RPC error
    /// and ends the flow; a tool's failure the user should read is
    /// `Outcome::ToolError`.
    fn flow(
        &self,
        call: &Call,
        context: &RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<Outcome, ErrorData>> + Send;
}

type PrincipalOf = dyn Fn(&RequestContext<RoleServer>) -> Option<String> + Send + Sync;
type DiagnosticSink = dyn Fn(&str) + Send + Sync;

/// An rmcp server whose owned flows snodo decides. Cheap to clone (the
/// engine and hooks are shared), as `StreamableHttpService`'s factory needs.
pub struct Snodo<H> {
    inner: H,
    engine: Arc<Engine>,
    principal: Arc<PrincipalOf>,
    diagnostic: Arc<DiagnosticSink>,
}

impl<H: Clone> Clone for Snodo<H> {
    fn clone(&self) -> Self {
        Snodo {
            inner: self.inner.clone(),
            engine: Arc::clone(&self.engine),
            principal: Arc::clone(&self.principal),
            diagnostic: Arc::clone(&self.diagnostic),
        }
    }
}

impl<H> std::fmt::Debug for Snodo<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snodo").finish_non_exhaustive()
    }
}

impl<H: Flows> Snodo<H> {
    /// `inner` served through `engine`, every request from the anonymous
    /// principal (set a verified one with [`Snodo::with_principal`]).
    pub fn new(inner: H, engine: Arc<Engine>) -> Snodo<H> {
        Snodo {
            inner,
            engine,
            principal: Arc::new(|_| None),
            diagnostic: Arc::new(|d| eprintln!("snodo: {d}")),
        }
    }

    /// The verified user of a request, or `None` for the anonymous
    /// principal. On Streamable HTTP the request's `http::request::Parts`
    /// are in `context.extensions` (where an authentication layer leaves
    /// its result); stdio has none.
    pub fn with_principal(
        mut self,
        principal: impl Fn(&RequestContext<RoleServer>) -> Option<String> + Send + Sync + 'static,
    ) -> Snodo<H> {
        self.principal = Arc::new(principal);
        self
    }

    /// Where a response's diagnostic goes (why snodo replaced an outcome
    /// with `-32603`; never on the wire). Default: a line on stderr.
    pub fn with_diagnostics(mut self, sink: impl Fn(&str) + Send + Sync + 'static) -> Snodo<H> {
        self.diagnostic = Arc::new(sink);
        self
    }

    /// The wrapped handler.
    pub fn inner(&self) -> &H {
        &self.inner
    }

    /// The engine.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    fn principal_of(&self, context: &RequestContext<RoleServer>) -> Result<Principal, ErrorData> {
        let name = (self.principal)(context);
        Principal::from_option(name.as_deref())
            .map_err(|e| internal(format!("snodo: principal: {}", e.message())))
    }

    /// `begin_parts` → flow → `decide` (2026), or the legacy bridge on a
    /// 2025-era session; the final response as a JSON-RPC result value.
    async fn serve(
        &self,
        kind: Kind,
        params: Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let principal = self.principal_of(context)?;
        let id =
            serde_json::to_value(&context.id).map_err(|e| internal(format!("snodo: request id: {e}")))?;
        let meta = context.meta.0.0.clone();
        if let Some(session) = self.legacy_session(context, &principal)? {
            return self.serve_legacy(kind, id, params, meta, session, principal, context).await;
        }
        let params = with_meta(params, meta);
        let call = match self.engine.begin_parts(id, kind.method(), params, &principal) {
            Ok(Begin::Call(call)) => call,
            Ok(Begin::Respond(response)) => return self.deliver(response),
            Err(e) => return Err(internal(format!("snodo: {}", e.message()))),
        };
        let outcome = self.inner.flow(&call, context).await?;
        let response =
            self.engine.decide(&call, outcome).map_err(|e| internal(format!("snodo: {}", e.message())))?;
        self.deliver(response)
    }

    /// The snodo session of a 2025-era connection: the request carries no
    /// 2026 `_meta` claim and the connection opened with `initialize`.
    fn legacy_session(
        &self,
        context: &RequestContext<RoleServer>,
        principal: &Principal,
    ) -> Result<Option<Session>, ErrorData> {
        if context.meta.protocol_version().is_some() {
            return Ok(None);
        }
        let Some(info) = context.peer.peer_info() else {
            return Ok(None);
        };
        let initialize =
            serde_json::to_value(&*info).map_err(|e| internal(format!("snodo: initialize: {e}")))?;
        let requested = info.protocol_version.as_str();
        // The version snodo's bridge speaks (e.g. `mode: "form"` only on
        // 2025-11-25): the requested one when the engine accepts it.
        let negotiated = self.engine.legacy_version_for(requested).unwrap_or(requested).to_owned();
        Session::from_initialize(&initialize, &negotiated, principal)
            .map(Some)
            .map_err(|e| internal(format!("snodo: {}", e.message())))
    }

    #[allow(clippy::too_many_arguments)]
    async fn serve_legacy(
        &self,
        kind: Kind,
        id: Value,
        params: Value,
        meta: Map<String, Value>,
        session: Session,
        principal: Principal,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let params = if meta.is_empty() { params } else { with_meta(params, meta) };
        let mut message = Map::new();
        message.insert("jsonrpc".into(), Value::from("2.0"));
        message.insert("id".into(), id);
        message.insert("method".into(), Value::from(kind.method()));
        message.insert("params".into(), params);
        let mut call = match self.engine.begin_legacy_value(Value::Object(message), &session, &principal) {
            Ok(Begin::Call(call)) => call,
            Ok(Begin::Respond(response)) => return self.deliver(response),
            Err(e) => return Err(internal(format!("snodo: {}", e.message()))),
        };
        loop {
            let outcome = self.inner.flow(&call, context).await?;
            match self
                .engine
                .decide_legacy(&call, outcome)
                .map_err(|e| internal(format!("snodo: {}", e.message())))?
            {
                Bridge::Respond(response) => return self.deliver(response),
                Bridge::Resume(next) => {
                    // A round with state but nothing to ask: the engine's
                    // round cap bounds this loop; yield so it never starves.
                    tokio::task::yield_now().await;
                    call = next;
                }
                Bridge::Send(pending) => match self.ask(pending, &principal, context).await? {
                    Asked::Resume(next) => call = next,
                    Asked::Respond(response) => return self.deliver(response),
                },
            }
        }
    }

    /// Sends one round's requests on the session (from the handler's own
    /// task, so rmcp routes them onto the originating request's stream),
    /// feeds each answer to the engine under snodo's own request id, and
    /// returns when the round is answered, failed, timed out or cancelled.
    async fn ask(
        &self,
        mut pending: Box<snodo::PendingFlow>,
        principal: &Principal,
        context: &RequestContext<RoleServer>,
    ) -> Result<Asked, ErrorData> {
        // rmcp numbers its own requests: keep which snodo id each one is.
        let mut legs: Vec<(String, Option<RequestHandle<RoleServer>>)> = Vec::new();
        for request in pending.requests().to_vec() {
            let snodo_id = request.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
            let method = request.get("method").and_then(Value::as_str).unwrap_or_default().to_owned();
            let outgoing =
                ServerRequest::CustomRequest(CustomRequest::new(method, request.get("params").cloned()));
            match context.peer.send_request_with_option(outgoing, PeerRequestOptions::no_options()).await {
                Ok(handle) => legs.push((snodo_id, Some(handle))),
                Err(e) => {
                    cancel_all(&mut legs, Some("the flow ended")).await;
                    return Err(internal(format!("snodo: cannot send {snodo_id}: {e}")));
                }
            }
        }
        let deadline = pending.deadline();
        loop {
            let wait = Duration::from_secs(deadline.saturating_sub(self.engine.now()).max(1));
            let answer = tokio::select! {
                answered = next_answer(&mut legs) => Some(answered),
                () = tokio::time::sleep(wait), if self.engine.now() < deadline => None,
                () = context.ct.cancelled() => {
                    // The client cancelled the originating request: no response is sent.
                    pending.cancel(None);
                    cancel_all(&mut legs, Some("the request was cancelled")).await;
                    return Err(internal("snodo: the request was cancelled"));
                }
                () = std::future::ready(()), if self.engine.now() >= deadline => None,
            };
            let fed = match answer {
                Some((snodo_id, result)) => {
                    let reply = match result {
                        Ok(result) => {
                            let result = serde_json::to_value(&result).unwrap_or(Value::Null);
                            serde_json::json!({"jsonrpc": "2.0", "id": snodo_id, "result": result})
                        }
                        Err(ServiceError::McpError(error)) => {
                            let error = serde_json::to_value(&error).unwrap_or(Value::Null);
                            serde_json::json!({"jsonrpc": "2.0", "id": snodo_id, "error": error})
                        }
                        Err(e) => {
                            cancel_all(&mut legs, Some("the flow ended")).await;
                            return Err(internal(format!("snodo: no answer to {snodo_id}: {e}")));
                        }
                    };
                    self.engine.feed_value(&mut pending, reply, principal)
                }
                None => self.engine.timeout(&mut pending),
            };
            match fed.map_err(|e| internal(format!("snodo: {}", e.message())))? {
                Feed::Waiting => {}
                Feed::Resume(call) => return Ok(Asked::Resume(call)),
                Feed::Respond { response, cancellations } => {
                    let reason = cancellations
                        .first()
                        .and_then(|c| c.pointer("/params/reason"))
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    cancel_all(&mut legs, reason.as_deref()).await;
                    return Ok(Asked::Respond(response));
                }
            }
        }
    }

    /// The decided response as rmcp's handler result: the result value, or
    /// the JSON-RPC error (code, message and `data` as snodo made them).
    fn deliver(&self, response: Response) -> Result<Value, ErrorData> {
        if let Some(diagnostic) = response.diagnostic() {
            (self.diagnostic)(diagnostic);
        }
        let mut body = response.into_body();
        if let Some(error) = body.get_mut("error").map(Value::take) {
            return Err(error_data(error));
        }
        Ok(body.get_mut("result").map(Value::take).unwrap_or(Value::Null))
    }
}

enum Asked {
    Resume(Box<Call>),
    Respond(Response),
}

/// The next answered leg: its snodo id and rmcp's result for it.
async fn next_answer(
    legs: &mut [(String, Option<RequestHandle<RoleServer>>)],
) -> (String, Result<ClientResult, ServiceError>) {
    std::future::poll_fn(|cx| {
        for (id, leg) in legs.iter_mut() {
            let Some(handle) = leg else { continue };
            if let Poll::Ready(result) = Pin::new(&mut handle.rx).poll(cx) {
                *leg = None;
                let result = result.unwrap_or(Err(ServiceError::TransportClosed));
                return Poll::Ready((id.clone(), result));
            }
        }
        Poll::Pending
    })
    .await
}

/// `notifications/cancelled` for every leg still unanswered (rmcp's ids).
async fn cancel_all(legs: &mut [(String, Option<RequestHandle<RoleServer>>)], reason: Option<&str>) {
    for (_, leg) in legs.iter_mut() {
        if let Some(handle) = leg.take() {
            // The peer may be gone already; there is nobody left to tell.
            let _ = handle.cancel(reason.map(str::to_owned)).await;
        }
    }
}

fn with_meta(params: Value, meta: Map<String, Value>) -> Value {
    let mut params = match params {
        Value::Object(p) => p,
        _ => Map::new(),
    };
    params.remove("_meta");
    params.insert("_meta".into(), Value::Object(meta));
    Value::Object(params)
}

fn internal(message: impl Into<Cow<'static, str>>) -> ErrorData {
    ErrorData::new(ErrorCode::INTERNAL_ERROR, message, None)
}

/// A snodo error object as rmcp's `ErrorData`.
fn error_data(error: Value) -> ErrorData {
    let code =
        error.get("code").and_then(Value::as_i64).and_then(|c| i32::try_from(c).ok()).unwrap_or(-32603);
    let message = error.get("message").and_then(Value::as_str).unwrap_or("Internal error").to_owned();
    ErrorData::new(ErrorCode(code), message, error.get("data").cloned())
}

/// A decided result in rmcp's typed form (rmcp re-serialises it).
fn typed<T: serde::de::DeserializeOwned>(result: Value, what: &str) -> Result<T, ErrorData> {
    serde_json::from_value(result).map_err(|e| internal(format!("snodo: rmcp cannot carry this {what}: {e}")))
}

fn asks(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("input_required")
}

fn to_params<T: serde::Serialize>(params: &T) -> Result<Value, ErrorData> {
    serde_json::to_value(params).map_err(|e| internal(format!("snodo: params: {e}")))
}

/// At most once per flow: `effect` runs on a retry of `call` unless a run
/// of this flow already completed (its result is returned again), on a
/// blocking thread (the store may block). A flow completed with other
/// answers is `-32602` `Invalid or expired requestState` with
/// `data.reason == "replayed"`; a store failure `-32603` `once store
/// unavailable: …` (nothing ran; the client may retry).
pub async fn run_once<S, F>(store: Arc<S>, call: &Call, effect: F) -> Result<Value, ErrorData>
where
    S: OnceStore + 'static,
    F: FnOnce(&OnceLease<'_, S>) -> Value + Send + 'static,
{
    let call = call.clone();
    let text = tokio::task::spawn_blocking(move || {
        snodo::run_once(&*store, &call, &OnceOptions::default(), |lease| snodo::to_wire(&effect(lease)))
    })
    .await
    .map_err(|e| internal(format!("snodo: once: {e}")))?
    .map_err(once_error)?;
    snodo::parse_json(text.as_bytes(), "once result").map_err(once_error)
}

/// On a retry, the result a completed run of this flow remembered for
/// these answers, else `None` (also on a first call, which has no flow
/// yet). Errors as [`run_once`].
pub async fn check_once<S: OnceStore + 'static>(
    store: Arc<S>,
    call: &Call,
) -> Result<Option<Value>, ErrorData> {
    if call.flow_id().is_none() {
        return Ok(None);
    }
    let call = call.clone();
    let text = tokio::task::spawn_blocking(move || snodo::check_once(&*store, &call))
        .await
        .map_err(|e| internal(format!("snodo: once: {e}")))?
        .map_err(once_error)?;
    text.map(|t| snodo::parse_json(t.as_bytes(), "once result").map_err(once_error)).transpose()
}

fn once_error(e: snodo::Error) -> ErrorData {
    match e.code() {
        snodo::ErrorCode::Token if e.message() == snodo::ONCE_REPLAYED_MESSAGE => ErrorData::new(
            ErrorCode::INVALID_PARAMS,
            "Invalid or expired requestState",
            Some(serde_json::json!({"reason": "replayed"})),
        ),
        snodo::ErrorCode::Store => internal(format!("once store unavailable: {}", e.message())),
        _ => internal(format!("snodo: once: {}", e.message())),
    }
}

impl<H: Flows> ServerHandler for Snodo<H> {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.inner.owns(Kind::Tool, &request.name) {
            return self.inner.call_tool(request, context).await;
        }
        let result = self.serve(Kind::Tool, to_params(&request)?, &context).await?;
        match result.get("resultType").and_then(Value::as_str) {
            Some("input_required") => {
                Ok(CallToolResponse::InputRequired(typed(result, "input_required result")?))
            }
            Some("task") => Ok(CallToolResponse::Task(typed(result, "task result")?)),
            _ => Ok(CallToolResponse::Complete(typed(result, "tool result")?)),
        }
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if !self.inner.owns(Kind::Prompt, &request.name) {
            return self.inner.get_prompt(request, context).await;
        }
        let result = self.serve(Kind::Prompt, to_params(&request)?, &context).await?;
        if asks(&result) {
            return Ok(GetPromptResponse::InputRequired(typed(result, "input_required result")?));
        }
        Ok(GetPromptResponse::Complete(typed(result, "prompt result")?))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if !self.inner.owns(Kind::Resource, &request.uri) {
            return self.inner.read_resource(request, context).await;
        }
        let result = self.serve(Kind::Resource, to_params(&request)?, &context).await?;
        if asks(&result) {
            return Ok(ReadResourceResponse::InputRequired(typed(result, "input_required result")?));
        }
        Ok(ReadResourceResponse::Complete(typed(result, "resource result")?))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // rmcp reads an MRTR method whose params fail its typed model (an
        // `inputResponses` that is not an object, a `requestState` that is
        // not a string) as a custom request. For an owned name snodo
        // answers it as on every other path (-32602 before any token is
        // opened) instead of rmcp's -32601.
        if let Some(kind) = Kind::of(&request.method) {
            let params = request.params.clone().unwrap_or(Value::Null);
            let key = if kind == Kind::Resource { "uri" } else { "name" };
            let owned = params.get(key).and_then(Value::as_str).is_some_and(|n| self.inner.owns(kind, n));
            if owned {
                return self.serve(kind, params, &context).await.map(CustomResult);
            }
        }
        self.inner.on_custom_request(request, context).await
    }

    // Everything else is the wrapped handler's.

    fn ping(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.ping(context)
    }
    fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<InitializeResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.initialize(request, context)
    }
    fn negotiate_initialize(&self, request: &InitializeRequestParams) -> Result<InitializeResult, ErrorData> {
        self.inner.negotiate_initialize(request)
    }
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }
    fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<DiscoverResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.discover(context)
    }
    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CompleteResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.complete(request, context)
    }
    #[allow(deprecated)]
    fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.set_level(request, context)
    }
    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListPromptsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.list_prompts(request, context)
    }
    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourcesResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.list_resources(request, context)
    }
    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourceTemplatesResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.list_resource_templates(request, context)
    }
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        self.inner.accepted_subscription_filter(requested)
    }
    fn listen(
        &self,
        context: rmcp::service::SubscriptionContext,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.listen(context)
    }
    #[allow(deprecated)]
    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.subscribe(request, context)
    }
    #[allow(deprecated)]
    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.unsubscribe(request, context)
    }
    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.list_tools(request, context)
    }
    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.get_tool(name)
    }
    fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_cancelled(notification, context)
    }
    fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_progress(notification, context)
    }
    fn on_initialized(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_initialized(context)
    }
    fn on_roots_list_changed(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_roots_list_changed(context)
    }
    fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_custom_notification(notification, context)
    }
    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }
    fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetTaskResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.get_task(request, context)
    }
    fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.update_task(request, context)
    }
    fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.cancel_task(request, context)
    }
    fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListSkillsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.list_skills(request, context)
    }
    fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetSkillResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.get_skill(request, context)
    }
    fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceDirectoryResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.read_resource_directory(request, context)
    }
}
