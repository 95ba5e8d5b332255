"""At most once per flow without Redis: the Call's ids and digest, the core's
once machine through the binding (OnceRun and its steps), the native
MemoryStore, and the drivers run_once / run_once_async / check_once over it
(tests mirror core/src/once/tests.rs and core/tests/once_memory.rs)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import sys
import threading
import time
from typing import Any, Dict, List

import pytest

import snodo_mrtr as s
from conftest import NOW
from once_helpers import (
    ASK2,
    accept,
    ask,
    ask_again,
    begin,
    engine,
    final_round,
    final_state,
    flow_calls,
    race_gather,
    race_threads,
)
from snodo_mrtr import MemoryStore, OnceRun, check_once, check_once_async, run_once, run_once_async

# --- the Call's ids and digest ------------------------------------------------


def test_first_round_has_no_ids_but_a_digest_of_no_answers() -> None:
    call = begin(engine())
    assert call.flow_id is None and call.token_id is None and call.token_expires_at is None
    # {} canonical is "{}": the digest of a request without inputResponses.
    want = base64.urlsafe_b64encode(hashlib.sha256(b"{}").digest()).rstrip(b"=").decode()
    assert call.answers_digest == want


def test_a_flow_keeps_its_flow_id_and_each_token_has_its_own_id() -> None:
    e = engine()
    round2 = begin(e, ask(e, begin(e)), {"c": accept(c="red")})
    assert round2.round == 2 and round2.flow_id is not None and round2.token_id is not None
    assert len(round2.flow_id) == len(round2.token_id) == 22
    assert round2.token_expires_at == NOW + 300
    state2 = ask(e, round2, "n", ASK2)
    round3 = begin(e, state2, {"n": accept(n=3)}, id=3)
    assert round3.round == 3
    assert round3.flow_id == round2.flow_id
    assert round3.token_id is not None and round3.token_id != round2.token_id
    # Another flow, another flow id.
    assert final_round(e, flow=1).flow_id != round2.flow_id


def test_answers_digest_is_sha256_of_the_canonical_input_responses() -> None:
    e = engine()
    state = final_state(e)
    # Key order and spacing on the wire do not matter: the canonical form does.
    answers = {"c": {"content": {"c": "r\u00e9d"}, "action": "accept"}}
    call = begin(e, state, answers)
    canonical = s.canonicalize(json.dumps(answers, ensure_ascii=False))
    want = base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()
    assert call.answers_digest == want
    assert len(call.answers_digest) == 43
    other = begin(e, state, {"c": accept(c="blue")})
    assert other.answers_digest != call.answers_digest
    assert other.flow_id == call.flow_id and other.token_id == call.token_id


# --- the machine, step by step ------------------------------------------------


def test_the_machine_hands_out_commands_and_reads_their_replies() -> None:
    call, m = final_round(engine()), MemoryStore()
    run = OnceRun(call, m.prefix, m.lease_ms)
    step = run.start()
    assert step.kind == "command" and step.seconds is None and step.ticket is None and step.text is None
    claim = step.command
    assert claim is not None and claim.op == "claim" and claim.script == s.ONCE_CLAIM_SCRIPT
    assert claim.key == f"snodo:once:flow:{{{call.flow_id}}}"
    digest, owner, lease, keep = claim.args
    assert (digest, owner, lease) == (call.answers_digest, claim.owner, "30000")
    assert len(owner) == 22 and int(keep) > NOW * 1000
    step = run.feed(m.execute(claim))
    assert step.kind == "effect" and step.ticket is not None and step.ticket.fence == 1 and run.fence == 1
    extend = step.ticket.extend_command
    assert extend.op == "extend" and extend.script == s.ONCE_EXTEND_SCRIPT and extend.owner == owner
    assert step.ticket.extended(m.execute(extend)) is True
    step = run.effect_done('{"ok":true}')
    assert step.command is not None and step.command.op == "complete" and step.command.script == s.ONCE_COMPLETE_SCRIPT
    assert step.command.args[:2] == [owner, '{"ok":true}']
    step = run.feed(m.execute(step.command))
    assert (step.kind, step.text) == ("done", '{"ok":true}')
    # A lookup reads the record; other runs of the flow never get a second claim.
    look = OnceRun(call, m.prefix, m.lease_ms, lookup=True)
    cmd = look.start().command
    assert cmd is not None and cmd.op == "lookup" and cmd.args == [] and cmd.owner == ""
    assert m.execute(cmd) == f"done 1 {call.answers_digest} {{\"ok\":true}}"
    assert look.feed(m.execute(cmd)).text == '{"ok":true}'
    assert "OnceCommand(op=" in repr(cmd) and repr(OnceRun(call, "p:", 1)) == "OnceRun(fence=0)"


def test_the_machine_refuses_steps_out_of_order_and_bad_settings() -> None:
    call = final_round(engine())
    run = OnceRun(call, "p:", 1000)
    for step in (run.resume, run.effect_failed, lambda: run.effect_done("x"), lambda: run.feed("won 1")):
        with pytest.raises(s.ArgumentError, match="out of order"):
            step()
    run.start()
    with pytest.raises(s.ArgumentError, match="out of order"):
        run.start()
    with pytest.raises(s.StoreError, match="unexpected reply"):
        run.feed("won zero")
    foreign = OnceRun(call, "p:", 1000)
    foreign.start()
    with pytest.raises(s.StoreError, match="does not write"):
        foreign.feed("foreign")
    with pytest.raises(s.ArgumentError, match="not a retry"):
        OnceRun(begin(engine()), "p:", 1000)
    with pytest.raises(s.ConfigError):
        OnceRun(call, "a b", 1000)
    with pytest.raises(s.ConfigError):
        OnceRun(call, "p:", 0)
    for wait in (-1.0, float("nan"), float("inf")):
        with pytest.raises(s.ArgumentError):
            OnceRun(call, "p:", 1000, wait_secs=wait)


def test_a_replay_is_a_token_error_with_its_reason() -> None:
    call = final_round(engine())
    run = OnceRun(call, "p:", 1000)
    run.start()
    with pytest.raises(s.TokenError) as info:
        run.feed('done 3 someone-elses-digest {"x":1}')
    assert str(info.value) == s.ONCE_REPLAYED_MESSAGE and info.value.reason == "replayed"


# --- the memory store ---------------------------------------------------------


def test_memory_store_settings_limits_and_repr() -> None:
    m = MemoryStore()
    assert (m.prefix, m.lease_ms, len(m), m.bytes) == ("snodo:once:", 30_000, 0, 0)
    assert repr(m) == "MemoryStore(max_bytes=67108864, max_bytes_per_principal=16777216, lease_ms=30000)"
    assert MemoryStore(lease_secs=0.25).lease_ms == 250
    assert repr(MemoryStore(max_bytes=2048)).startswith("MemoryStore(max_bytes=2048, max_bytes_per_principal=1024,")
    bad: List[Dict[str, Any]] = [
        {"max_bytes": 1023},
        {"max_bytes": 4096, "max_bytes_per_principal": 8192},
        {"max_bytes_per_principal": 10},
        {"lease_secs": 0},
        {"lease_secs": -1},
        {"lease_secs": float("nan")},
    ]
    for kwargs in bad:
        with pytest.raises(s.ConfigError):
            MemoryStore(**kwargs)


def test_memory_store_full_fails_closed_and_a_principal_has_a_share() -> None:
    e = engine()
    # About 270 bytes a record: three fit in 1 KiB, the fourth is refused
    # rather than forgetting a live one.
    m = MemoryStore(max_bytes=1024, max_bytes_per_principal=1024)
    effect = lambda lease: {"ok": True}  # noqa: E731
    for flow in range(3):
        run_once(m, final_round(e, flow=flow), effect)
    assert len(m) == 3 and 0 < m.bytes <= 1024
    with pytest.raises(s.StoreError, match="store full"):
        run_once(m, final_round(e, flow=3), effect)
    shared = MemoryStore(max_bytes=4096, max_bytes_per_principal=1024)
    for flow in range(3):
        run_once(shared, final_round(e, flow=flow), effect)
    with pytest.raises(s.StoreError, match="share is full"):
        run_once(shared, final_round(e, flow=3), effect)
    # Another principal still has its own share.
    assert run_once(shared, final_round(e, flow=4, who="bob"), effect) == {"ok": True}


def test_constants_are_the_cores() -> None:
    assert s.DEFAULT_ONCE_PREFIX == "snodo:once:" and s.ONCE_FLOW_KEY_PART == "flow:"
    assert s.ONCE_SAFE_EVICTION_POLICY == "noeviction"
    assert s.ONCE_REPLAYED_MESSAGE == "once store: this flow already completed with other answers (replayed)"
    assert (s.DEFAULT_ONCE_LEASE_SECS, s.DEFAULT_ONCE_WAIT_SECS) == (30, 35.0)
    assert (s.DEFAULT_ONCE_MAX_BYTES, s.DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL) == (64 << 20, 16 << 20)
    assert (s.DEFAULT_CLOCK_SKEW_SECS, s.DEFAULT_REDIS_TIMEOUT_MS) == (60, 2000)
    scripts = [s.ONCE_CLAIM_SCRIPT, s.ONCE_COMPLETE_SCRIPT, s.ONCE_RELEASE_SCRIPT, s.ONCE_EXTEND_SCRIPT, s.ONCE_LOOKUP_SCRIPT]
    assert len(set(scripts)) == 5 and all(x.endswith("\n") and "KEYS[1]" in x for x in scripts)
    s.check_once_eviction_policy("noeviction")
    with pytest.raises(s.StoreError, match="allkeys-lru"):
        s.check_once_eviction_policy("allkeys-lru")
    s.check_once_prefix("app:")
    with pytest.raises(s.ConfigError):
        s.check_once_prefix("a{b}")
    for old in ["ONCE_WON", "ONCE_PENDING", "ONCE_CONSUMED", "once_token_key", "DEFAULT_ONCE_MAX_ENTRIES"]:
        assert not hasattr(s, old), old


# --- run_once over the memory store -------------------------------------------


class Effect:
    """Counts runs; returns a result naming the run and its fence."""

    def __init__(self, pause: float = 0.0) -> None:
        self.runs = 0
        self.fences: List[int] = []
        self.pause = pause
        self.lock = threading.Lock()

    def __call__(self, lease: s.OnceLease) -> Dict[str, Any]:
        with self.lock:
            self.runs += 1
            n = self.runs
            self.fences.append(lease.fence)
        time.sleep(self.pause)
        return {"content": [{"type": "text", "text": f"booked #{n}"}], "n": 1.5, "z": [None, True]}


def test_run_once_runs_once_and_returns_the_remembered_result() -> None:
    e, m, effect = engine(), MemoryStore(), Effect()
    state = final_state(e)
    call = begin(e, state, {"c": accept(c="red")})
    first = run_once(m, call, effect)
    assert first == {"content": [{"type": "text", "text": "booked #1"}], "n": 1.5, "z": [None, True]}
    # The same final round again (a retry after a lost response, another id).
    again = begin(e, state, {"c": accept(c="red")}, id=9)
    assert run_once(m, again, effect) == first
    assert effect.runs == 1 and effect.fences == [1]
    # Remembered as canonical JSON text; check_once reads it back.
    assert check_once(m, again) == first
    look = OnceRun(call, m.prefix, m.lease_ms, lookup=True)
    cmd = look.start().command
    assert cmd is not None and m.execute(cmd).endswith(" " + s.canonicalize(json.dumps(first)))
    # The result the server then answers with: decide(call, complete(result)).
    body = json.loads(e.decide(again, s.complete(first)).to_json())
    assert body["id"] == 9 and body["result"]["content"] == first["content"]


def test_other_answers_are_replayed_and_run_nothing() -> None:
    e, m, effect = engine(), MemoryStore(), Effect()
    state = final_state(e)
    red = begin(e, state, {"c": accept(c="red")})
    result = run_once(m, red, effect)
    blue = begin(e, state, {"c": accept(c="blue")}, id=3)
    with pytest.raises(s.TokenError) as info:
        run_once(m, blue, effect)
    assert str(info.value) == s.ONCE_REPLAYED_MESSAGE and info.value.reason == "replayed"
    with pytest.raises(s.TokenError) as info:
        check_once(m, blue)
    assert info.value.reason == "replayed"
    assert effect.runs == 1
    assert run_once(m, begin(e, state, {"c": accept(c="red")}, id=4), effect) == result


def test_a_completed_flow_driven_on_through_a_new_token_books_nothing() -> None:
    e, m, effect = engine(), MemoryStore(), Effect()
    state = final_state(e)
    booked = run_once(m, begin(e, state, {"c": accept(c="red")}), effect)
    # A retry without answers, and the handler asks again: a new token of
    # the same flow, which a client could answer differently.
    again = ask_again(e, state)
    assert again != state
    for color in ("blue", "green"):
        other = begin(e, again, {"c": accept(c=color)}, id=5)
        assert other.flow_id == begin(e, state, {"c": accept(c="red")}).flow_id
        with pytest.raises(s.TokenError):
            run_once(m, other, effect)
        with pytest.raises(s.TokenError):
            check_once(m, other)
    same = begin(e, again, {"c": accept(c="red")}, id=6)
    assert run_once(m, same, effect) == booked and check_once(m, same) == booked
    assert effect.runs == 1


def test_check_once_before_anything_and_while_running() -> None:
    e, m = engine(), MemoryStore()
    call = final_round(e)
    assert check_once(m, call) is None
    assert len(m) == 0  # a lookup writes nothing
    seen: List[Any] = []

    def effect(lease: s.OnceLease) -> Dict[str, Any]:
        seen.append(check_once(m, call))  # pending: nothing remembered yet
        return {"ok": 1}

    run_once(m, call, effect)
    assert seen == [None] and check_once(m, call) == {"ok": 1}
    with pytest.raises(s.ArgumentError, match="not a retry"):
        check_once(m, begin(e))


def test_run_once_checks_its_arguments() -> None:
    e, effect = engine(), Effect()
    with pytest.raises(s.ArgumentError, match="not a retry"):
        run_once(MemoryStore(), begin(e), effect)
    with pytest.raises(s.ArgumentError):
        run_once(MemoryStore(), "call", effect)  # type: ignore[arg-type]
    with pytest.raises(s.ArgumentError, match="prefix, lease_ms and execute"):
        run_once(object(), final_round(e), effect)
    for wait in (-1, True, "5"):
        with pytest.raises(s.ArgumentError):
            run_once(MemoryStore(), final_round(e), effect, wait=wait)  # type: ignore[arg-type]
    with pytest.raises(s.ArgumentError, match="now_ms"):
        run_once(MemoryStore(), final_round(e), effect, now_ms=-1)
    assert effect.runs == 0


def claim_elsewhere(m: Any, call: s.Call, now_ms: Any = None) -> s.OnceRun:
    """Another caller's claim on the flow, left pending."""
    run = OnceRun(call, m.prefix, m.lease_ms)
    cmd = run.start().command
    assert cmd is not None
    kwargs = {} if now_ms is None else {"now_ms": now_ms}
    assert run.feed(m.execute(cmd, **kwargs)).kind == "effect"
    return run


def test_run_once_gives_up_on_a_pending_claim_after_the_wait() -> None:
    e, m, effect = engine(), MemoryStore(), Effect()
    call = final_round(e)
    claim_elsewhere(m, call)
    t0 = time.monotonic()
    with pytest.raises(s.StoreError, match="still running"):
        run_once(m, call, effect, wait=0.2)
    assert 0.15 < time.monotonic() - t0 < 2.0
    assert effect.runs == 0


def test_now_ms_is_the_stores_clock_and_a_lapsed_lease_is_taken_over() -> None:
    e, m, effect = engine(), MemoryStore(lease_secs=5), Effect()
    call = final_round(e)
    t = NOW * 1000
    claim_elsewhere(m, call, now_ms=t)
    with pytest.raises(s.StoreError, match="still running"):
        run_once(m, call, effect, wait=0, now_ms=t + 4_999)
    # On the caller's clock the lease has lapsed: taken over, fence 2.
    assert run_once(m, call, effect, wait=0, now_ms=t + 5_000)["content"][0]["text"] == "booked #1"
    assert effect.fences == [2]


def test_a_failed_effect_releases_and_the_retry_runs_with_a_greater_fence() -> None:
    e, m = engine(), MemoryStore()
    state = final_state(e)
    call = begin(e, state, {"c": accept(c="red")})
    fences: List[int] = []

    def fails(lease: s.OnceLease) -> Any:
        fences.append(lease.fence)
        raise KeyError("ledger briefly unavailable; nothing happened")

    with pytest.raises(KeyError):
        run_once(m, call, fails)
    effect = Effect()
    retry = begin(e, state, {"c": accept(c="red")}, id=8)
    # Released, not pending: the retry runs at once (no wait for the lease).
    assert run_once(m, retry, effect, wait=0)["content"][0]["text"] == "booked #1"
    assert fences == [1] and effect.fences == [2]
    # Released, so other answers could have won; now the flow is done.
    with pytest.raises(s.TokenError):
        run_once(m, begin(e, state, {"c": accept(c="blue")}, id=9), effect)
    assert effect.runs == 1


def test_other_answers_may_complete_a_flow_whose_effect_failed() -> None:
    e, m, effect = engine(), MemoryStore(), Effect()
    state = final_state(e)

    def fails(lease: s.OnceLease) -> Any:
        raise KeyError("nothing happened")

    with pytest.raises(KeyError):
        run_once(m, begin(e, state, {"c": accept(c="red")}), fails)
    blue = run_once(m, begin(e, state, {"c": accept(c="blue")}, id=3), effect)
    assert blue["content"][0]["text"] == "booked #1"
    with pytest.raises(s.TokenError):
        run_once(m, begin(e, state, {"c": accept(c="red")}, id=4), effect)
    assert effect.runs == 1


class Flaky:
    """A memory store whose commands of one op fail."""

    def __init__(self, fail: str, inner: Any = None) -> None:
        self.m = inner if inner is not None else MemoryStore()
        self.prefix, self.lease_ms = self.m.prefix, self.m.lease_ms
        self.fail = fail
        self.ops: List[str] = []

    def execute(self, command: s.OnceCommand, **kwargs: Any) -> str:
        self.ops.append(command.op)
        if command.op == self.fail:
            raise s.StoreError("once store: down")
        return str(self.m.execute(command, **kwargs))


def test_a_failed_release_after_a_failed_effect_is_a_store_error_chained_to_it() -> None:
    call, store = final_round(engine()), Flaky("release")

    def fails(lease: s.OnceLease) -> Any:
        raise KeyError("nothing happened")

    with pytest.raises(s.StoreError) as info:
        run_once(store, call, fails)
    assert isinstance(info.value.__cause__, KeyError)
    assert store.ops == ["claim", "release"]
    # Fail closed: the claim stays pending until its lease lapses.
    with pytest.raises(s.StoreError, match="still running"):
        run_once(store.m, call, Effect(), wait=0.05)


def test_run_once_fails_closed_on_store_errors() -> None:
    for where, runs in [("claim", 0), ("complete", 1)]:
        effect, store = Effect(), Flaky(where)
        with pytest.raises(s.StoreError, match="down"):
            run_once(store, final_round(engine()), effect)
        assert effect.runs == runs, where

    class Odd(Flaky):
        def execute(self, command: s.OnceCommand, **kwargs: Any) -> str:
            return 42  # type: ignore[return-value]

    effect = Effect()
    with pytest.raises(s.StoreError, match="not the reply text"):
        run_once(Odd(""), final_round(engine()), effect)
    assert effect.runs == 0


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, SystemExit, asyncio.CancelledError])
def test_an_interrupt_mid_effect_releases_nothing(interrupt: type) -> None:
    e, m = engine(), MemoryStore(lease_secs=0.6)
    call = final_round(e)
    store = Flaky("", m)

    def interrupted(lease: s.OnceLease) -> Any:
        raise interrupt()

    with pytest.raises(interrupt):
        run_once(store, call, interrupted)
    assert store.ops == ["claim"]  # nothing fed: no release
    effect = Effect()
    # Within the lease a retry is told the effect is still running ...
    with pytest.raises(s.StoreError, match="still running"):
        run_once(m, call, effect, wait=0.05)
    # ... and once it lapsed, the retry takes the flow over.
    assert run_once(m, call, effect, wait=2)["content"][0]["text"] == "booked #1"
    assert effect.fences == [2]


def test_a_result_that_is_not_json_keeps_the_claim_pending() -> None:
    # The effect ran: releasing would let a second caller run it again.
    e, m, runs = engine(), MemoryStore(), [0]
    call = final_round(e)

    def effect(lease: s.OnceLease) -> Any:
        runs[0] += 1
        return {"when": object()}

    with pytest.raises(s.JsonError):
        run_once(m, call, effect)
    assert runs[0] == 1
    with pytest.raises(s.StoreError, match="still running"):
        run_once(m, call, Effect(), wait=0.05)


def test_the_sync_driver_refuses_coroutines() -> None:
    e, m = engine(), MemoryStore()
    call = final_round(e)

    async def effect(lease: s.OnceLease) -> Any:
        raise AssertionError("never started")

    with pytest.raises(s.ArgumentError, match="run_once_async"):
        run_once(m, call, effect)  # type: ignore[arg-type]
    assert check_once(m, call) is None  # nothing ran: released

    class Async:
        prefix, lease_ms = m.prefix, m.lease_ms

        async def execute(self, command: s.OnceCommand) -> str:
            return str(m.execute(command))

    with pytest.raises(s.ArgumentError, match="run_once_async"):
        run_once(Async(), call, Effect())


def test_a_lease_extension_keeps_a_slow_effect_its_claim() -> None:
    e, m = engine(), MemoryStore(lease_secs=0.5)
    call = final_round(e)
    extended: List[bool] = []
    started = threading.Event()

    def slow(lease: s.OnceLease) -> Dict[str, Any]:
        started.set()
        for _ in range(6):  # 0.9 s in all, almost twice the lease
            time.sleep(0.15)
            extended.append(lease.extend())
        return {"fence": lease.fence}

    t = threading.Thread(target=lambda: run_once(m, call, slow))
    t.start()
    started.wait(5)
    time.sleep(0.7)  # past the first lease: only the extensions hold it
    with pytest.raises(s.StoreError, match="still running"):
        run_once(m, call, Effect(), wait=0.05)
    t.join(10)
    assert extended == [True] * 6 and check_once(m, call) == {"fence": 1}


def test_a_late_release_after_a_takeover_changes_nothing() -> None:
    e, m = engine(), MemoryStore(lease_secs=0.3)
    call = final_round(e)
    outcome: List[Any] = []

    def slow_then_fails(lease: s.OnceLease) -> Any:
        assert lease.fence == 1
        time.sleep(1.0)
        outcome.append(lease.extend())  # lapsed and taken over: False
        raise ConnectionError("gave up")

    def first() -> None:
        try:
            run_once(m, call, slow_then_fails)
        except ConnectionError as err:
            outcome.append(err)

    t = threading.Thread(target=first)
    t.start()
    time.sleep(0.45)
    effect = Effect(pause=0.5)
    assert run_once(m, call, effect)["content"][0]["text"] == "booked #1"
    t.join(10)
    assert outcome[0] is False and isinstance(outcome[1], ConnectionError)
    assert effect.fences == [2]
    # The late release (and the failed extension) deleted nothing.
    assert check_once(m, call)["content"][0]["text"] == "booked #1"


def test_eight_threads_two_tokens_two_answers_one_effect() -> None:
    e = engine()
    for flow in range(5):
        race_threads(flow_calls(e, flow=flow), [MemoryStore()] * 2)


def test_pending_waiters_do_not_hold_the_gil() -> None:
    # While a waiter polls a pending claim, another thread keeps running
    # Python code: the waiter sleeps without the GIL.
    e, m = engine(), MemoryStore()
    call = final_round(e)
    claim_elsewhere(m, call)
    done = threading.Event()
    counter = [0]

    def spin() -> None:
        while not done.is_set():
            counter[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        with pytest.raises(s.StoreError):
            run_once(m, call, Effect(), wait=0.3)
    finally:
        done.set()
        t.join()
    assert counter[0] > 1000


# --- run_once_async over the memory store -------------------------------------


def test_asyncio_gather_two_tokens_two_answers_one_effect() -> None:
    e = engine()

    async def main() -> None:
        for flow in range(5):
            await race_gather(flow_calls(e, flow=flow), [MemoryStore()])

    asyncio.run(main())


def test_run_once_async_takes_sync_effects_and_check_once_async() -> None:
    e, m = engine(), MemoryStore()
    call = final_round(e)

    async def main() -> None:
        assert await check_once_async(m, call) is None
        assert await run_once_async(m, call, lambda lease: {"fence": lease.fence}) == {"fence": 1}
        assert await check_once_async(m, call) == {"fence": 1}
        with pytest.raises(s.TokenError):
            await check_once_async(m, final_round(e, color="blue"))

    asyncio.run(main())


def test_run_once_async_releases_a_failed_effect_and_extends_leases() -> None:
    e, m = engine(), MemoryStore()
    call = final_round(e)
    fences: List[int] = []

    async def effect(lease: s.AsyncOnceLease) -> Dict[str, Any]:
        fences.append(lease.fence)
        if len(fences) == 1:
            raise ConnectionError("payment API briefly unavailable")
        assert await lease.extend() is True
        return {"content": [], "fence": lease.fence}

    with pytest.raises(ConnectionError):
        asyncio.run(run_once_async(m, call, effect))
    assert asyncio.run(run_once_async(m, call, effect)) == {"content": [], "fence": 2}
    assert fences == [1, 2]


def test_a_cancellation_inside_the_async_effect_releases_nothing() -> None:
    e, m = engine(), MemoryStore(lease_secs=2)
    call = final_round(e)

    async def cancelled(lease: s.AsyncOnceLease) -> Any:
        raise asyncio.CancelledError()

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError):
            await run_once_async(m, call, cancelled)
        with pytest.raises(s.StoreError, match="still running"):
            await run_once_async(m, call, lambda lease: {"never": True}, wait=0.05)

    asyncio.run(main())


def test_a_cancelled_caller_lets_the_async_effect_finish_and_be_remembered() -> None:
    e, m = engine(), MemoryStore()
    call = final_round(e)
    runs: List[int] = []

    async def effect(lease: s.AsyncOnceLease) -> Dict[str, Any]:
        runs.append(lease.fence)
        await asyncio.sleep(0.5)
        return {"booked": True}

    async def main() -> None:
        caller = asyncio.ensure_future(run_once_async(m, call, effect))
        while not runs:
            await asyncio.sleep(0.01)
        caller.cancel()  # the client disconnected mid-effect
        with pytest.raises(asyncio.CancelledError):
            await caller
        assert check_once(m, call) is None  # still running
        # The retry waits for the shielded effect and gets its result.
        assert await run_once_async(m, call, lambda lease: {"second": True}) == {"booked": True}

    asyncio.run(main())
    assert runs == [1]


def test_redis_stores_name_the_extra_when_redis_py_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    for cls in [s.RedisStore, s.AsyncRedisStore]:
        with pytest.raises(ImportError, match=r"snodo-mrtr\[redis\]"):
            cls("redis://127.0.0.1:1/")
        with pytest.raises(ImportError, match=r"snodo-mrtr\[redis\]"):
            cls.cluster(["redis://127.0.0.1:1/"])
