"""Tasks (the ``io.modelcontextprotocol/tasks`` extension, ``docs/tasks.md``)
for a server: :class:`Tasks` drives the core's task machine
(:meth:`Engine.task_step`) with the server's own router.

A handler returns :func:`~snodo_mrtr.run_as_task` where the rest of its work
may run as a task; :meth:`Tasks.answer` (asyncio) or :meth:`Tasks.answer_sync`
(a thread per request) then

- answers a ``tools/call`` whose client declared the extension with the
  ``CreateTaskResult`` once the task is stored, and runs the handler again
  as the task in the background (a *leg*: ``call.task_id`` is set);
- anywhere else (no declaration, another method, a 2025 session) runs the
  handler again at once, in the request: one handler serves both clients;
- answers ``tasks/get``, ``tasks/update`` and ``tasks/cancel``; the
  ``tasks/update`` that answers the last question starts the next leg.

A leg that asks (``input_required``) parks the task until ``tasks/update``
answers, under keys minted for the task (``key@n``); a leg that ends (a
result, a tool error, an error) ends the task. The end of a leg whose task
was cancelled meanwhile is dropped by the store. Every rule is the core's:
this module only runs handlers and store commands, in the order the core
asks (the loop below, written once for both drivers).

The store is a :class:`MemoryTaskStore` (the default: one process) or a
:class:`~snodo_mrtr.RedisStore` / :class:`~snodo_mrtr.AsyncRedisStore`
(a fleet: any process answers ``tasks/*`` for a task any other created). A
store failure answers -32603 and starts no leg.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from typing import Any, Awaitable, Callable, Generator, Iterable, Optional, Set, Tuple, Union

from ._native import TASKS_EXTENSION, Call, Engine, MemoryTaskStore, Response, declares_tasks, task_required_capabilities
from .errors import ArgumentError, StoreError
from .outcomes import Outcome, error

__all__ = ["Tasks"]

log = logging.getLogger("snodo_mrtr.tasks")

#: The server's router: a Call in, an outcome out (or a coroutine of one).
Route = Callable[[Call], Union[Outcome, Awaitable[Outcome]]]
#: What the loop asks its driver for, and what it ends with. It yields
#: ("run", call), to be sent the handler's outcome, or ("store", command), to
#: be sent the reply text (None when the store failed); it returns
#: (response, leg) as TaskStep.finish gives them.
_Loop = Generator[Tuple[str, Any], Any, Tuple[Optional[Response], Optional[Call]]]


class Tasks:
    """The task runner of one server: ``engine``, its router ``route``, a
    task ``store`` shared by every request (and, on Redis, every process),
    and the tools in ``required``, which only run as tasks: a client that did
    not declare the extension gets -32021 naming it before the handler runs.

    A sync ``route`` runs in the request, and in a worker thread for a leg
    (a leg is not a request: it may take its time). Keep one instance per
    server: it holds the background legs it started."""

    def __init__(self, engine: Engine, route: Route, *, store: Any = None, required: Iterable[str] = ()) -> None:
        if not isinstance(engine, Engine):
            raise ArgumentError(f"Tasks: engine must be a snodo_mrtr.Engine, got {type(engine).__name__}")
        if not callable(route):
            raise ArgumentError("Tasks: route must be a function of a Call")
        if isinstance(required, str):
            raise ArgumentError("Tasks: required is a collection of tool names, not one str")
        self.engine, self.route = engine, route
        self.store = MemoryTaskStore() if store is None else store
        self.required = frozenset(required)
        self._async_route = inspect.iscoroutinefunction(route)
        # The running legs: the event loop keeps only weak references to tasks.
        self._legs: Set["asyncio.Task[None]"] = set()

    # --- the loop rule, once; the drivers run what it asks for ---

    def _step(self, call: Call, outcome: Optional[Outcome]) -> _Loop:
        step = self.engine.task_step(call, outcome)
        command = step.command
        reply = None if command is None else (yield ("store", command))
        return step.finish(reply)

    def _request(self, call: Call) -> _Loop:
        if call.method.startswith("tasks/"):
            return (yield from self._step(call, None))
        if call.method == "tools/call" and call.name in self.required and not declares_tasks(call.client_capabilities):
            message = f"{call.name} runs only as a task: declare the extension {TASKS_EXTENSION}"
            data = {"requiredCapabilities": task_required_capabilities()}
            return self.engine.decide(call, error(-32021, message, data)), None
        response: Optional[Response] = None
        leg: Optional[Call] = call
        # No response yet: an inline continuation, still this request's.
        while response is None and leg is not None:
            outcome = yield ("run", leg)
            response, leg = yield from self._step(leg, outcome)
        return response, leg

    def _leg(self, leg: Call) -> _Loop:
        """A run of the handler as a task, and the runs it hands on to."""
        task_id = leg.task_id
        next_leg: Optional[Call] = leg
        while next_leg is not None:
            outcome = yield ("run", next_leg)
            response, next_leg = yield from self._step(next_leg, outcome)
            if response is not None:  # the run's end was not stored: nobody waits for this
                log.error("task %s: %s", task_id, response.diagnostic or response.to_json())
        return None, None

    # --- asyncio ---

    async def answer(self, call: Call) -> Response:
        """The response to ``call`` (any method: an outcome other than
        ``run_as_task`` is decided as ``Engine.decide`` decides it). A leg it
        starts runs as an asyncio task of the running loop."""
        response, leg = await self._drive(self._request(_checked(call)), background=False)
        if leg is not None:
            task = asyncio.get_running_loop().create_task(self._background(leg))
            self._legs.add(task)
            task.add_done_callback(self._legs.discard)
        return _sent(response)

    async def _background(self, leg: Call) -> None:
        try:
            await self._drive(self._leg(leg), background=True)
        except Exception:
            log.exception("task %s: the run stopped", leg.task_id)

    async def _drive(self, loop: _Loop, background: bool) -> Tuple[Optional[Response], Optional[Call]]:
        value: Any = None
        try:
            while True:
                kind, arg = loop.send(value)
                value = await (self._run(arg, background) if kind == "run" else self._execute(arg))
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]

    async def _run(self, call: Call, background: bool) -> Outcome:
        try:
            if background and not self._async_route:
                outcome: Any = await asyncio.to_thread(self.route, call)
            else:
                outcome = self.route(call)
            if inspect.isawaitable(outcome):
                outcome = await outcome
            return outcome  # type: ignore[no-any-return]
        except Exception:
            if not background:
                raise
            return _failed(call)

    async def _execute(self, command: Any) -> Optional[str]:
        try:
            reply = self.store.execute(command)
            if inspect.isawaitable(reply):
                reply = await reply
            return _reply(reply)
        except StoreError as e:
            log.warning("task store: %s", e)
            return None

    # --- a thread per request ---

    def answer_sync(self, call: Call) -> Response:
        """:meth:`answer` for a thread-per-request server: the route and the
        store must be synchronous; a leg it starts runs in a daemon thread."""
        response, leg = self._drive_sync(self._request(_checked(call)), background=False)
        if leg is not None:
            threading.Thread(target=self._background_sync, args=(leg,), name="snodo-task-leg", daemon=True).start()
        return _sent(response)

    def _background_sync(self, leg: Call) -> None:
        try:
            self._drive_sync(self._leg(leg), background=True)
        except Exception:
            log.exception("task %s: the run stopped", leg.task_id)

    def _drive_sync(self, loop: _Loop, background: bool) -> Tuple[Optional[Response], Optional[Call]]:
        value: Any = None
        try:
            while True:
                kind, arg = loop.send(value)
                value = self._run_sync(arg, background) if kind == "run" else self._execute_sync(arg)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]

    def _run_sync(self, call: Call, background: bool) -> Outcome:
        try:
            outcome = _not_awaitable(self.route(call), "the route is a coroutine function")
            return outcome  # type: ignore[no-any-return]
        except Exception:
            if not background:
                raise
            return _failed(call)

    def status(self, leg: Call) -> Optional[str]:
        """The status of the task ``leg`` runs for, read from the store now:
        ``"working"`` until someone cancels it (cancellation is cooperative:
        a long run asks now and then and stops early, as its end would be
        dropped anyway). ``None`` when the store failed. Synchronous stores
        only (the route calls it from its worker thread)."""
        response, _ = self._drive_sync(self._step(leg, None), background=True)
        result = response.body.get("result") if response is not None else None
        return result.get("status") if isinstance(result, dict) else None

    def _execute_sync(self, command: Any) -> Optional[str]:
        try:
            return _reply(_not_awaitable(self.store.execute(command), "the store is asynchronous"))
        except StoreError as e:
            log.warning("task store: %s", e)
            return None


def _checked(call: Any) -> Call:
    if not isinstance(call, Call):
        raise ArgumentError(f"Tasks: call must be a snodo_mrtr.Call, got {type(call).__name__}")
    return call


def _sent(response: Optional[Response]) -> Response:
    if response is None:  # the core answers every request; this is a bug
        raise RuntimeError("snodo: the task machine gave no response to a request")
    return response


def _failed(call: Call) -> Outcome:
    # The handler raised while running as a task: the task ends failed.
    log.exception("task %s: the handler raised", call.task_id)
    return error(-32603, "Internal error")


def _not_awaitable(value: Any, why: str) -> Any:
    if inspect.isawaitable(value):
        if inspect.iscoroutine(value):
            value.close()
        raise ArgumentError(f"Tasks.answer_sync and Tasks.status: {why}: use Tasks.answer")
    return value


def _reply(value: Any) -> str:
    if not isinstance(value, str):
        raise StoreError(f"task store: execute returned {type(value).__name__}, not the reply text (str)")
    return value
