"""snodo_mrtr.mcp's once methods and its worker threads, in process through
the SDK's own Client (needs the `mcp` extra: scripts/test-interop-sdk.sh).

* ``Snodo(engine, once=store)``: ``check_once``/``run_once`` (sync functions)
  and their ``_async`` forms book at most once per flow; the same final round
  again gets the remembered result as it was first sent; other answers, or
  none, the ``-32602`` ``replayed`` refusal; a failing store ``-32603``; both
  refusals as JSON-RPC errors, never ``isError`` results; on a 2025 session
  too.
* A function that is not a coroutine function runs in a worker thread: one
  that blocks does not stop the server from answering another request.

No timings: the blocking tool waits on an event another request sets, and
its own wait has a generous bound only so that a broken adapter fails
instead of hanging.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, List, Optional

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult, InputRequiredResult

import snodo_mrtr as mrtr
from snodo_mrtr.mcp import Snodo, current_call

pytestmark = pytest.mark.anyio
CONFIRM = mrtr.elicit_form("Send it?", {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})
HANG_GUARD_SECS = 60  # only reached when the adapter is broken


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Bank:
    """A server with one effectful tool, sync or async, and its ledger."""

    def __init__(self, store: Any, mode: str) -> None:
        self.ledger: List[int] = []
        self.threads: List[int] = []
        self.server = MCPServer("bank")
        snodo = Snodo(mrtr.Engine([("k1", bytes(32))]), once=store).install(self.server)

        def effect(amount: int) -> Any:
            def send(lease: Any) -> Dict[str, Any]:
                self.ledger.append(amount)
                # A float and nesting: the remembered result must come back as it was sent.
                return {"content": [{"type": "text", "text": f"Sent {amount} (#{len(self.ledger)})"}],
                        "structuredContent": {"fee": 0.5, "entry": [len(self.ledger), lease.fence]}}
            return send

        def ask(a: Any) -> Optional[Dict[str, Any]]:
            if a.is_declined or a.is_cancelled or (a.is_accepted and not a.value["ok"]):
                return mrtr.tool_error("Nothing sent.")
            return None

        if mode == "sync":
            @snodo.tool(self.server)
            def transfer(call: mrtr.Call, amount: int) -> Dict[str, Any]:
                self.threads.append(threading.get_ident())
                done = snodo.check_once(call)
                if done is not None:
                    return done
                a = call.response("confirm", CONFIRM)
                if (no := ask(a)) is not None:
                    return no
                if not a.is_accepted or call.flow_id is None:
                    return mrtr.input_required({"confirm": CONFIRM})
                return snodo.run_once(call, effect(amount))
        elif mode == "async":
            @snodo.tool(self.server)
            async def transfer(call: mrtr.Call, amount: int) -> Dict[str, Any]:
                done = await snodo.check_once_async(call)
                if done is not None:
                    return done
                a = call.response("confirm", CONFIRM)
                if (no := ask(a)) is not None:
                    return no
                if not a.is_accepted or call.flow_id is None:
                    return mrtr.input_required({"confirm": CONFIRM})
                return await snodo.run_once_async(call, effect(amount))
        else:  # the sync method where it would block the loop
            @snodo.tool(self.server)
            async def transfer(call: mrtr.Call, amount: int) -> Dict[str, Any]:
                return snodo.check_once(call) or mrtr.input_required({"confirm": CONFIRM})


async def accept(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"ok": True})


def answers(ok: Optional[bool]) -> Optional[Dict[str, ElicitResult]]:
    return None if ok is None else {"confirm": ElicitResult(action="accept", content={"ok": ok})}


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_once_per_flow_and_refusals_are_jsonrpc_errors(mode: str) -> None:
    bank = Bank(mrtr.MemoryStore(), mode)
    async with Client(bank.server, mode="2026-07-28", elicitation_callback=accept) as c:
        first = await c.session.call_tool("transfer", {"amount": 7}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)

        async def final(ok: Optional[bool]) -> Any:
            return await c.session.call_tool("transfer", {"amount": 7}, input_responses=answers(ok),
                                             request_state=first.request_state, allow_input_required=True)

        booked = await final(True)
        assert booked.content[0].text == "Sent 7 (#1)" and not booked.is_error
        again = await final(True)  # a lost response: the remembered result, exactly
        assert again.model_dump() == booked.model_dump()
        assert again.structured_content == {"fee": 0.5, "entry": [1, 1]}
        for other in (False, None):  # other answers, or none: the flow never asks or sends again
            with pytest.raises(MCPError) as refused:
                await final(other)
            assert refused.value.error.code == -32602
            assert refused.value.error.message == "Invalid or expired requestState"
            assert refused.value.error.data == {"reason": "replayed"}
        assert (await c.call_tool("transfer", {"amount": 3})).content[0].text == "Sent 3 (#2)"
    assert bank.ledger == [7, 3]


async def test_sync_function_runs_off_the_loop() -> None:
    bank = Bank(mrtr.MemoryStore(), "sync")
    async with Client(bank.server, mode="2026-07-28", elicitation_callback=accept) as c:
        await c.call_tool("transfer", {"amount": 1})
    assert bank.threads and threading.get_ident() not in bank.threads


class Failing:
    """A store that is down: every command fails."""

    prefix, lease_ms = mrtr.DEFAULT_ONCE_PREFIX, 30_000

    def execute(self, command: Any, **_: Any) -> str:
        raise mrtr.StoreError("once store: redis connect failed: refused")


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_store_failure_is_32603_and_nothing_runs(mode: str) -> None:
    bank = Bank(Failing(), mode)
    async with Client(bank.server, mode="2026-07-28", elicitation_callback=accept) as c:
        with pytest.raises(MCPError) as failed:
            await c.call_tool("transfer", {"amount": 5})
    assert failed.value.error.code == -32603
    assert failed.value.error.message == "once store unavailable: once store: redis connect failed: refused"
    assert bank.ledger == []


class Recording:
    """A sync store that is not the native MemoryStore (as RedisStore): records
    the thread each command runs on."""

    def __init__(self) -> None:
        self.inner = mrtr.MemoryStore()
        self.prefix, self.lease_ms = self.inner.prefix, self.inner.lease_ms
        self.threads: List[int] = []

    def execute(self, command: Any, **kwargs: Any) -> str:
        self.threads.append(threading.get_ident())
        return self.inner.execute(command, **kwargs)


async def test_async_methods_run_a_sync_store_off_the_loop() -> None:
    store = Recording()
    bank = Bank(store, "async")
    async with Client(bank.server, mode="2026-07-28", elicitation_callback=accept) as c:
        assert (await c.call_tool("transfer", {"amount": 2})).content[0].text == "Sent 2 (#1)"
    assert store.threads and threading.get_ident() not in store.threads


async def test_sync_method_on_the_loop_is_refused() -> None:
    bank = Bank(mrtr.MemoryStore(), "misused")
    async with Client(bank.server, mode="2026-07-28", elicitation_callback=accept) as c:
        result = await c.session.call_tool("transfer", {"amount": 1}, allow_input_required=True)
    # The SDK keeps an exception's text on the server (the log names check_once_async).
    assert result.is_error and bank.ledger == []


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_legacy_session_books_once_per_flow(mode: str) -> None:
    bank = Bank(mrtr.MemoryStore(), mode)
    async with Client(bank.server, mode="legacy", elicitation_callback=accept) as c:
        texts = [(await c.call_tool("transfer", {"amount": n})).content[0].text for n in (4, 6)]
    assert texts == ["Sent 4 (#1)", "Sent 6 (#2)"] and bank.ledger == [4, 6]


async def test_a_blocked_sync_function_does_not_stop_the_server() -> None:
    """One request's sync function blocks until a second request releases it:
    served on the loop, the second request could never arrive."""
    server = MCPServer("threads")
    snodo = Snodo(mrtr.Engine([("k1", bytes(32))])).install(server)
    entered, released = threading.Event(), threading.Event()
    seen: List[Optional[mrtr.Call]] = []

    @snodo.tool(server)
    def hold(call: mrtr.Call) -> Dict[str, Any]:
        seen.append(current_call())
        assert current_call() is call  # the flow reaches the worker thread
        entered.set()
        ok = released.wait(HANG_GUARD_SECS)
        return mrtr.complete({"content": [{"type": "text", "text": "released" if ok else "never released"}]})

    @snodo.tool(server)
    def release(call: mrtr.Call) -> Dict[str, Any]:
        released.set()
        return mrtr.complete({"content": [{"type": "text", "text": "done"}]})

    held: List[str] = []
    async with Client(server, mode="2026-07-28") as c:

        async def first() -> None:
            held.append((await c.call_tool("hold", {})).content[0].text)

        async with anyio.create_task_group() as tg:
            tg.start_soon(first)
            assert await anyio.to_thread.run_sync(entered.wait, HANG_GUARD_SECS)
            assert (await c.call_tool("release", {})).content[0].text == "done"
    assert held == ["released"]
    assert len(seen) == 1 and seen[0] is not None


def test_a_once_that_is_not_a_store_is_refused_at_start() -> None:
    with pytest.raises(mrtr.ArgumentError, match="once store"):
        Snodo(mrtr.Engine([("k1", bytes(32))]), once=object())
