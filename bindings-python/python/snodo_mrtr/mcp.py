"""snodo inside the official MCP Python SDK (`mcp` 2.3.0): ``pip install snodo-mrtr[mcp]``.

snodo owns every MRTR decision of the tools, prompts and resources you give it:
it reads the retry envelope, opens and seals ``requestState`` (once, with its
own keys, TTL and principal binding), pins and validates answers, checks
capabilities (-32021) and stamps the result. The SDK keeps the transport, the
session/era handling, argument validation, the lists and everything else.

How (public API only, no monkeypatching):

* a ``ServerMiddleware`` placed *before* ``MCPServer``'s ``RequestStateBoundary``
  (``Snodo.install``). For a request snodo owns it runs ``Engine.begin_parts``
  on the raw wire params, removes ``requestState``/``inputResponses`` before
  the SDK sees them (so the boundary never seals or opens a snodo token),
  lets the SDK run the tool, then turns the tool's outcome into the response
  with ``Engine.decide`` and returns it from the middleware, which the
  boundary never touches. Protocol errors (a rejected token with its
  ``data.reason``, -32021, -32602, -32022) are raised as ``MCPError``: JSON-RPC
  errors, never ``isError`` results.
* the functions you register through ``Snodo.tool``/``prompt``/``resource``
  (``MCPServer``) or ``Snodo.call_tool``/``get_prompt``/``read_resource``
  (low-level ``Server``) take the snodo ``Call`` first and return an outcome
  (``snodo_mrtr.complete(...)``, ``input_required(...)``, ``tool_error(...)``,
  ``error(...)``), exactly as in a server without the SDK: questions are
  ``Question`` values built once (``elicit_form(...)`` at import), passed to
  ``input_required`` to ask and to ``call.response`` to read the answer.

* a request on a 2025-era session (``ctx.protocol_version`` before
  2026-07-28) goes through the core's legacy bridge instead: ``begin_legacy``
  with a ``Session`` built from what the SDK negotiated, the same function,
  ``decide_legacy``, and each ``PendingFlow`` request sent with
  ``ctx.session.send_request`` on the request's own stream, its answer fed to
  ``Engine.feed``. HTTP needs SSE responses (``json_response=False``) for that.
* the adapter keeps no sessions: each 2025-era request gets a ``Session`` of
  the request's principal, built from what the SDK negotiated, and the
  answers to its questions are fed as that principal's. Who may post on a
  2025 session at all (a call, an answer, a cancellation, GET, DELETE) is
  decided before the SDK sees the message, in front of its HTTP app:
  record the principal of each session's ``initialize`` and refuse anyone
  else with ``Session.check_principal`` (interop/servers/python/sdk_server.py
  does).

* a function that is not a coroutine function runs in a worker thread
  (``anyio.to_thread.run_sync``, with a copy of the context, so
  ``current_call`` works there), never on the event loop: one that blocks (a
  database, a once store waiting for another caller) holds its thread, not
  the server.
* at most once per flow (``docs/once.md``): ``Snodo(engine, once=store)`` and,
  in an effectful tool, ``snodo.check_once(call)`` on every retry before
  asking and ``snodo.run_once(call, effect)`` on the final round (or their
  ``_async`` forms in a coroutine function). They drive ``snodo_mrtr.once``
  and give back the outcome to return: the effect's result or the one
  remembered for the flow, the ``-32602`` ``replayed`` refusal, or ``-32603``
  "once store unavailable"; the middleware sends both refusals as JSON-RPC
  errors.

``mcp`` is imported lazily, so ``import snodo_mrtr`` never needs it.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import functools
import inspect
import json
from typing import Any, Awaitable, Callable, Dict, List, Optional, Set, Tuple, Union

from . import once as _once
from ._native import DEFAULT_ONCE_WAIT_SECS, Call, Engine, MemoryStore, OnceCommand, Response
from .errors import ArgumentError, StoreError, TokenError
from .outcomes import Outcome, complete, error

__all__ = ["Snodo", "current_call"]

#: The three methods where ``input_required`` is legal (MRTR).
MRTR_METHODS = ("tools/call", "prompts/get", "resources/read")
_ENVELOPE = ("requestState", "inputResponses")
_STATE_ROUND_PACE_SECS = 0.25


class _Flow:
    """One request snodo owns: its Call and, once the handler ran, its outcome.

    Mutable on purpose: the SDK may run a sync function in a worker thread
    with a *copy* of the context, so the outcome travels by mutation.
    """

    __slots__ = ("call", "outcome")

    def __init__(self, call: Call) -> None:
        self.call = call
        self.outcome: Optional[Dict[str, Any]] = None


_CURRENT: contextvars.ContextVar[Optional[_Flow]] = contextvars.ContextVar("snodo_mrtr_mcp_flow", default=None)


def current_call() -> Optional[Call]:
    """The snodo ``Call`` of the request being handled, or ``None`` outside one."""
    flow = _CURRENT.get()
    return flow.call if flow else None


def _mcp_error(response: Response) -> Exception:
    from mcp.shared.exceptions import MCPError  # type: ignore[import-not-found, unused-ignore]  # the optional extra

    err = json.loads(response.to_json())["error"]
    return MCPError(err["code"], err["message"], err.get("data"))


def _is_legacy(version: Any) -> bool:
    """A 2025-era session (``initialize`` handshake): revisions are dates, MRTR starts at 2026-07-28."""
    return isinstance(version, str) and version < "2026-07-28"


def _answer(response: Response) -> Any:
    """The result dict the SDK sends, or the JSON-RPC error raised as ``MCPError``."""
    if response.diagnostic:
        import logging

        logging.getLogger("snodo_mrtr.mcp").warning("snodo: %s", response.diagnostic)
    body = json.loads(response.to_json())
    if "error" in body:
        raise _mcp_error(response)  # -32021 with requiredCapabilities, handler errors
    return body["result"]  # complete or input_required, resultType stamped, sealed once


def _without_call(fn: Callable[..., Any]) -> inspect.Signature:
    """``fn``'s signature minus its first parameter (the Call), annotations resolved,
    so the SDK builds the argument schema from the remaining parameters."""
    sig = inspect.signature(fn, eval_str=True)
    params = list(sig.parameters.values())
    if not params:
        raise TypeError(f"{getattr(fn, '__name__', fn)!r}: the first parameter must take the snodo Call")
    return sig.replace(parameters=params[1:], return_annotation=inspect.Signature.empty)


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


async def _invoke(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Runs a function snodo was given: a coroutine function on the loop, any
    other in a worker thread with a copy of this context (the flow rides in a
    context variable); an awaitable it returns is awaited on the loop."""
    if _is_async(fn):
        result = fn(*args, **kwargs)
    else:
        import anyio  # type: ignore[import-not-found, unused-ignore]  # comes with the optional extra

        run = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        result = await anyio.to_thread.run_sync(run)
    if inspect.isawaitable(result):
        result = await result
    return result


def _off_the_loop(name: str) -> None:
    """The sync once methods wait (for the store, for another caller of the
    flow, up to ``wait``): refused on the event loop's thread, where they
    would stall every request."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return  # a worker thread, where snodo runs sync functions
    raise ArgumentError(f"Snodo.{name} blocks: in a coroutine function use `await snodo.{name}_async(...)`")


def _refusal(e: Exception) -> Outcome:
    """A once failure as the JSON-RPC error the client gets: ``replayed``
    (the flow completed with other answers) is the usual rejected-token
    ``-32602``; a store failure (or the flow's effect still running
    elsewhere) ``-32603``, after which a retry of the same round may succeed."""
    # "replayed" is the once machine's word, beside the token's own reasons.
    reason: Optional[str] = e.reason if isinstance(e, TokenError) else None
    if reason == "replayed":
        return error(-32602, "Invalid or expired requestState", {"reason": "replayed"})
    if isinstance(e, StoreError):
        return error(-32603, f"once store unavailable: {e}")
    raise e


class _Threaded:
    """A sync store (``RedisStore``, or your own) for the async once driver:
    each command runs in a worker thread, so a Redis round trip never stalls
    the loop."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.prefix, self.lease_ms = store.prefix, store.lease_ms

    async def execute(self, command: OnceCommand, **kwargs: Any) -> Any:
        import anyio  # type: ignore[import-not-found, unused-ignore]  # comes with the optional extra

        return await anyio.to_thread.run_sync(functools.partial(self._store.execute, command, **kwargs))


def _loop_safe(store: Any) -> Any:
    if isinstance(store, MemoryStore) or not all(hasattr(store, a) for a in ("prefix", "lease_ms", "execute")):
        return store  # in memory (no I/O); not a store at all: the once driver says what is missing
    return store if inspect.iscoroutinefunction(store.execute) else _Threaded(store)


class Snodo:
    """snodo as the MRTR engine of an ``mcp`` server.

    ``principal(ctx)`` returns the verified user name (or ``None`` for the
    explicit anonymous principal) from the SDK's ``ServerRequestContext``;
    the default is anonymous for every request. Tokens are bound to it.

    ``once`` is the store of the effects that run at most once per flow
    (``MemoryStore()`` for one process; ``RedisStore``/``AsyncRedisStore``
    for a fleet; ``docs/once.md``), used by :meth:`run_once` and
    :meth:`check_once`.
    """

    def __init__(
        self,
        engine: Engine,
        principal: Optional[Callable[[Any], Optional[str]]] = None,
        *,
        once: Any = None,
    ) -> None:
        self.engine = engine
        self.principal = principal or (lambda ctx: None)
        if once is not None and not all(hasattr(once, a) for a in ("prefix", "lease_ms", "execute")):
            # At start-up, not on the first final round.
            raise ArgumentError("Snodo: once must be a once store (MemoryStore, RedisStore, AsyncRedisStore)")
        self.once = once
        self._claims: Dict[str, Set[str]] = {m: set() for m in MRTR_METHODS}
        self._whole: Set[str] = set()  # methods owned outright (low-level handlers)

    # -- the middleware ----------------------------------------------------

    def owns(self, method: str, params: Any) -> bool:
        """Whether snodo decides this request (a registered tool, prompt or resource)."""
        if method in self._whole:
            return True
        names = self._claims.get(method)
        if not names or not isinstance(params, dict):
            return False
        name = params.get("uri" if method == "resources/read" else "name")
        return isinstance(name, str) and name in names

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        params = ctx.params
        if not self.owns(ctx.method, params):
            return await call_next(ctx)
        raw = dict(params) if params is not None else None
        if _is_legacy(ctx.protocol_version):
            return await self._legacy(ctx, call_next, raw)
        begun = self.engine.begin_parts(ctx.request_id, ctx.method, raw, self.principal(ctx))
        if isinstance(begun, Response):
            raise _mcp_error(begun)  # -32602 (bad _meta, bad token + data.reason), -32022, ...
        flow = _Flow(begun)
        reset = _CURRENT.set(flow)
        try:
            # snodo consumed the envelope: the SDK (and its boundary) never sees the token.
            inner = {k: v for k, v in (raw or {}).items() if k not in _ENVELOPE}
            sdk_result = await call_next(dataclasses.replace(ctx, params=inner))
        finally:
            _CURRENT.reset(reset)
        if flow.outcome is None:
            # The SDK answered before the function ran (bad arguments, unknown
            # name, a raised exception): its own answer stands, nothing sealed.
            return sdk_result
        return _answer(self.engine.decide(begun, flow.outcome))

    # -- 2025-era sessions: the core's legacy bridge over the SDK's back-channel --

    async def _run(self, call: Call, ctx: Any, call_next: Any, raw: Optional[Dict[str, Any]]) -> Tuple[_Flow, Any]:
        """Runs the SDK's chain (argument validation, then the function) for one round of ``call``."""
        flow = _Flow(call)
        reset = _CURRENT.set(flow)
        try:
            inner = {k: v for k, v in (raw or {}).items() if k not in _ENVELOPE}
            sdk_result = await call_next(dataclasses.replace(ctx, params=inner))
        finally:
            _CURRENT.reset(reset)
        return flow, sdk_result

    async def _legacy(self, ctx: Any, call_next: Any, raw: Optional[Dict[str, Any]]) -> Any:
        """A request on a 2025-era session: the same function, its ``input_required``
        turned by ``decide_legacy`` into real server-to-client requests sent on
        this request's back-channel, each answer fed to the engine, until one
        final response for the originating request."""
        import anyio  # type: ignore[import-not-found, unused-ignore]  # comes with the optional extra

        from . import Session

        sdk = ctx.session
        caps = sdk.client_capabilities
        client = sdk.client_params
        info = client.client_info.model_dump(by_alias=True, mode="json", exclude_none=True) if client else None
        principal = self.principal(ctx)
        session = Session(
            ctx.protocol_version,
            caps.model_dump(by_alias=True, mode="json", exclude_none=True) if caps is not None else {},
            info,
            principal=principal,
        )
        request = {"jsonrpc": "2.0", "id": ctx.request_id, "method": ctx.method}
        if raw is not None:
            request["params"] = raw
        begun = self.engine.begin_legacy(request, session, principal)
        if isinstance(begun, Response):
            raise _mcp_error(begun)  # an unsupported 2025 revision, bad _meta, ...
        call: Call = begun
        while True:
            flow, sdk_result = await self._run(call, ctx, call_next, raw)
            if flow.outcome is None:
                return sdk_result  # the SDK answered itself (bad arguments, an exception)
            decided = self.engine.decide_legacy(call, flow.outcome)
            if isinstance(decided, Response):
                return _answer(decided)
            if isinstance(decided, Call):
                # A round with state only: run the function again, never in a tight loop.
                await anyio.sleep(_STATE_ROUND_PACE_SECS)
                call = decided
                continue
            fed = await self._ask(ctx, decided, principal)
            if fed.kind == "resume" and fed.call is not None:
                call = fed.call
                continue
            if fed.response is None:
                raise RuntimeError("snodo_mrtr.mcp: the legacy flow ended without a response")
            return _answer(fed.response)

    async def _ask(self, ctx: Any, pending: Any, principal: Optional[str]) -> Any:
        """Sends one round's requests through ``ServerSession.send_request`` (on the
        originating request's stream) and feeds every answer, result or error,
        to ``Engine.feed``; ``Engine.timeout`` at the flow's deadline. A request
        still unanswered when the flow moves on or times out is cancelled; the
        SDK sends the client its ``notifications/cancelled``.

        The answers arrive through the SDK's session, which does not say who
        sent them: they are fed as the flow's ``principal``. Who may post on
        the session at all is decided in front of the SDK (see the module's
        docstring)."""
        import anyio  # type: ignore[import-not-found, unused-ignore]  # comes with the optional extra
        from mcp.shared.exceptions import MCPError  # type: ignore[import-not-found, unused-ignore]  # the optional extra
        from mcp.shared.message import ServerMessageMetadata  # type: ignore[import-not-found, unused-ignore]
        from mcp_types import server_request_adapter  # type: ignore[import-not-found, unused-ignore]
        from pydantic import RootModel  # type: ignore[import-not-found, unused-ignore]

        # Any result object, kept whole: the engine, not the SDK, judges the answer.
        whole = RootModel[Dict[str, Any]]

        engine = self.engine
        outcome: List[Any] = []
        related = ServerMessageMetadata(related_request_id=ctx.request_id)

        async def one(req: Dict[str, Any]) -> None:
            reply: Dict[str, Any] = {"jsonrpc": "2.0", "id": req["id"]}
            try:
                typed = server_request_adapter.validate_python({"method": req["method"], "params": req.get("params")})
                result = await ctx.session.send_request(typed, whole, metadata=related)
                reply["result"] = result.model_dump(mode="json")
            except MCPError as e:
                err: Dict[str, Any] = {"code": e.code, "message": e.message}
                if e.data is not None:
                    err["data"] = e.data
                reply["error"] = err
            except Exception as e:  # a result the SDK could not validate: the engine sees an error
                reply["error"] = {"code": -32603, "message": f"client answer not usable: {e}"}
            try:
                fed = engine.feed(pending, reply, principal)
            except Exception as e:  # not of this flow, late, twice: the flow is unchanged
                import logging

                logging.getLogger("snodo_mrtr.mcp").warning("snodo: answer refused: %s", e)
                return
            if fed.kind != "waiting":
                outcome.append(fed)
                # The flow moved on (every answer is in, or a client error
                # failed the round): stop waiting for the legs still open.
                # Cancelling their send_request makes the SDK send each a
                # notifications/cancelled under the id it gave it (the ids
                # in fed.cancellations are the bridge's, not the wire's).
                tg.cancel_scope.cancel()

        with anyio.move_on_after(max(0.0, pending.deadline - engine.now())):
            async with anyio.create_task_group() as tg:
                for req in pending.requests:
                    tg.start_soon(one, req)
        if outcome:
            return outcome[-1]
        return engine.timeout(pending)

    # -- at most once per flow ---------------------------------------------

    def _store(self, name: str) -> Any:
        if self.once is None:
            raise ArgumentError(f"Snodo.{name}: no once store: Snodo(engine, once=snodo_mrtr.MemoryStore())")
        return self.once

    def check_once(self, call: Call) -> Optional[Outcome]:
        """On every retry of an effectful tool, before asking anything (a
        function that is not a coroutine function). ``None``: nothing is
        remembered for the flow (or ``call`` is a first round): go on. Else
        the outcome to return: the result remembered for these answers, the
        ``-32602`` ``replayed`` refusal (the flow completed with other
        answers, or none), or ``-32603`` when the store failed."""
        _off_the_loop("check_once")
        if call.flow_id is None:
            return None
        try:
            remembered = _once.check_once(self._store("check_once"), call)
        except (TokenError, StoreError) as e:
            return _refusal(e)
        return None if remembered is None else complete(remembered)

    async def check_once_async(self, call: Call) -> Optional[Outcome]:
        """:meth:`check_once` in a coroutine function (a sync store's
        commands run in a worker thread)."""
        if call.flow_id is None:
            return None
        try:
            remembered = await _once.check_once_async(_loop_safe(self._store("check_once_async")), call)
        except (TokenError, StoreError) as e:
            return _refusal(e)
        return None if remembered is None else complete(remembered)

    def run_once(
        self, call: Call, effect: Callable[[_once.OnceLease], Any], *, wait: float = DEFAULT_ONCE_WAIT_SECS
    ) -> Outcome:
        """On the final round (``call`` a retry, every answer accepted):
        runs ``effect(lease)`` at most once for the flow across every process
        sharing the store (``snodo_mrtr.run_once``) and returns the outcome to
        return: ``complete`` of the effect's result, or of the result the
        flow completed with (the same answers again); the ``-32602``
        ``replayed`` refusal for other answers; ``-32603`` "once store
        unavailable" when the store failed or the effect is still running
        elsewhere after ``wait`` seconds (it did not run here). An exception
        from ``effect`` (it failed before doing anything) releases the claim
        and propagates. For a function that is not a coroutine function
        (snodo runs it in a worker thread, where the wait belongs)."""
        _off_the_loop("run_once")
        try:
            result = _once.run_once(self._store("run_once"), call, effect, wait=wait)
        except (TokenError, StoreError) as e:
            return _refusal(e)
        return complete(result)

    async def run_once_async(
        self,
        call: Call,
        effect: Callable[[_once.AsyncOnceLease], Union[Any, Awaitable[Any]]],
        *,
        wait: float = DEFAULT_ONCE_WAIT_SECS,
    ) -> Outcome:
        """:meth:`run_once` in a coroutine function: ``effect`` a function or
        a coroutine function taking an ``AsyncOnceLease``
        (``snodo_mrtr.run_once_async``: it finishes and is remembered even if
        the client goes away); a sync store's commands run in a worker thread."""
        try:
            result = await _once.run_once_async(_loop_safe(self._store("run_once_async")), call, effect, wait=wait)
        except (TokenError, StoreError) as e:
            return _refusal(e)
        return complete(result)

    def install(self, server: Any) -> "Snodo":
        """Puts the middleware on ``server`` (``MCPServer`` or low-level ``Server``),
        in front of any ``RequestStateBoundary`` so that snodo's rounds never reach it."""
        from mcp.server.request_state import RequestStateBoundary  # type: ignore[import-not-found, unused-ignore]  # the optional extra

        chain = server.middleware
        at = next((i for i, m in enumerate(chain) if isinstance(m, RequestStateBoundary)), len(chain))
        chain.insert(at, self)
        return self

    # -- MCPServer registration ------------------------------------------

    def _wrap(self, fn: Callable[..., Any], placeholder: Callable[[], Any]) -> Callable[..., Any]:
        sig = _without_call(fn)

        @functools.wraps(fn)
        async def run(**kwargs: Any) -> Any:
            flow = _CURRENT.get()
            if flow is None:
                raise RuntimeError("snodo_mrtr.mcp: the Snodo middleware is not installed on this server")
            flow.outcome = await _invoke(fn, flow.call, **kwargs)
            return placeholder()  # never sent: the middleware answers with snodo's response

        del run.__wrapped__  # the SDK must read the signature below, not fn's
        run.__signature__ = sig  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in sig.parameters.values()
                               if p.annotation is not inspect.Parameter.empty}
        return run

    def tool(self, server: Any, name: Optional[str] = None, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """``@snodo.tool(mcp)``: registers ``fn(call, **arguments) -> outcome`` as an
        ``MCPServer`` tool whose MRTR decisions are snodo's. ``options`` go to ``add_tool``."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            tool_name = name or fn.__name__
            options.setdefault("structured_output", False)
            server.add_tool(self._wrap(fn, lambda: ""), name=tool_name, **options)
            self._claims["tools/call"].add(tool_name)
            return fn

        return register

    def prompt(self, server: Any, name: Optional[str] = None, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """``@snodo.prompt(mcp)``: ``fn(call, **arguments) -> outcome`` as an ``MCPServer`` prompt."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            prompt_name = name or fn.__name__
            server.prompt(name=prompt_name, **options)(self._wrap(fn, lambda: ""))
            self._claims["prompts/get"].add(prompt_name)
            return fn

        return register

    def resource(self, server: Any, uri: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """``@snodo.resource(mcp, uri)``: ``fn(call) -> outcome`` as a static ``MCPServer`` resource."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            server.resource(uri, **options)(self._wrap(fn, lambda: ""))
            self._claims["resources/read"].add(uri)
            return fn

        return register

    # -- low-level Server handlers ----------------------------------------

    def _handler(self, method: str, fn: Callable[[Call], Any], placeholder: Callable[[], Any]) -> Callable[..., Any]:
        self._whole.add(method)

        async def handle(ctx: Any, params: Any) -> Any:
            flow = _CURRENT.get()
            if flow is None:
                raise RuntimeError("snodo_mrtr.mcp: the Snodo middleware is not installed on this server")
            flow.outcome = await _invoke(fn, flow.call)
            return placeholder()

        return handle

    def call_tool(self, fn: Callable[[Call], Any]) -> Callable[..., Any]:
        """``Server(..., on_call_tool=snodo.call_tool(route))``: every ``tools/call`` is snodo's."""
        from mcp_types import CallToolResult  # type: ignore[import-not-found, unused-ignore]  # the optional extra

        return self._handler("tools/call", fn, lambda: CallToolResult(content=[]))

    def get_prompt(self, fn: Callable[[Call], Any]) -> Callable[..., Any]:
        """``on_get_prompt=snodo.get_prompt(route)``: every ``prompts/get`` is snodo's."""
        from mcp_types import GetPromptResult  # type: ignore[import-not-found, unused-ignore]  # the optional extra

        return self._handler("prompts/get", fn, lambda: GetPromptResult(messages=[]))

    def read_resource(self, fn: Callable[[Call], Any]) -> Callable[..., Any]:
        """``on_read_resource=snodo.read_resource(route)``: every ``resources/read`` is snodo's."""
        from mcp_types import ReadResourceResult  # type: ignore[import-not-found, unused-ignore]  # the optional extra

        return self._handler("resources/read", fn, lambda: ReadResourceResult(contents=[]))
