"""Issue 17 without Redis: the Call's ids and digest, the native MemoryStore
(the core's) and run_once / run_once_async over it (the core's semantics:
tests mirror core/src/once/tests.rs)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

import pytest

import snodo_mrtr as s
from conftest import NOW
from once_helpers import ASK2, accept, ask, begin, engine, final_round, final_state
from snodo_mrtr import MemoryStore, run_once, run_once_async

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


# --- the memory store (the core's, through the binding) -----------------------


def test_memory_consume_is_true_once_then_false_until_expiry() -> None:
    m = MemoryStore()
    assert m.consume("T1", NOW + 10, now=NOW) is True
    assert m.consume("T1", NOW + 10, now=NOW + 9) is False
    assert m.consume("T1", NOW + 10, now=NOW + 10) is True  # expired: a new entry
    assert len(m) == 1


def test_memory_claim_complete_release() -> None:
    m = MemoryStore(lease_secs=5)
    assert m.claim("F", "D", NOW + 300, now=NOW) == ("won", None)
    assert m.claim("F", "D", NOW + 300, now=NOW) == ("pending", None)
    m.release("F", "D")
    assert m.claim("F", "D", NOW + 300, now=NOW) == ("won", None)
    m.complete("F", "D", '{"ok":true}', NOW + 300, now=NOW)
    assert m.claim("F", "D", NOW + 300, now=NOW) == ("done", '{"ok":true}')
    m.release("F", "D")  # a done entry is not released
    m.complete("F", "D", '{"ok":false}', NOW + 300, now=NOW)  # the first completion stays
    assert m.claim("F", "D", NOW + 300, now=NOW) == ("done", '{"ok":true}')
    # A lapsed lease is won again.
    assert m.claim("F", "D2", NOW + 300, now=NOW) == ("won", None)
    assert m.claim("F", "D2", NOW + 300, now=NOW + 4) == ("pending", None)
    assert m.claim("F", "D2", NOW + 300, now=NOW + 5) == ("won", None)


def test_memory_store_full_fails_closed_and_bad_ids_are_argument_errors() -> None:
    m = MemoryStore(max_entries=2, lease_secs=1)
    assert m.consume("A", NOW + 100, now=NOW) and m.consume("B", NOW + 100, now=NOW)
    with pytest.raises(s.StoreError, match="store full"):
        m.consume("C", NOW + 100, now=NOW)
    assert m.consume("C", NOW + 200, now=NOW + 100)  # expired entries are swept
    for bad in ["", "a:b", "a b", "\u00e9", "x" * 129]:
        with pytest.raises(s.ArgumentError):
            m.consume(bad, NOW + 1, now=NOW)
        with pytest.raises(s.ArgumentError):
            m.claim("F", bad, NOW + 1, now=NOW)
    for kwargs in [{"max_entries": 0}, {"lease_secs": 0}]:
        with pytest.raises(s.ConfigError):
            MemoryStore(**kwargs)
    assert repr(MemoryStore()) == "MemoryStore(max_entries=100000, lease_secs=30)"


def test_constants_are_the_cores() -> None:
    assert s.DEFAULT_ONCE_PREFIX == "snodo:once:"
    assert (s.ONCE_CONSUMED, s.ONCE_PENDING, s.ONCE_DONE_PREFIX, s.ONCE_WON) == ("1", "pending", "done:", "won")
    assert s.once_token_key(s.DEFAULT_ONCE_PREFIX, "T1") == "snodo:once:token:T1"
    assert s.once_result_key("app:", "F", "D") == "app:result:F:D"
    assert s.ONCE_CLAIM_SCRIPT.startswith("if redis.call('SET', KEYS[1], 'pending', 'NX', 'PX', ARGV[1]) then\n")
    for script in [s.ONCE_CLAIM_SCRIPT, s.ONCE_COMPLETE_SCRIPT, s.ONCE_RELEASE_SCRIPT]:
        assert script.endswith("\n")
    assert s.ONCE_REPLAYED_MESSAGE == "once store: requestState already used (replayed)"
    assert (s.DEFAULT_ONCE_LEASE_SECS, s.DEFAULT_ONCE_MAX_ENTRIES, s.DEFAULT_CLOCK_SKEW_SECS) == (30, 100000, 60)


# --- run_once over the memory store -------------------------------------------


class Effect:
    """Counts runs; returns a result object naming the run."""

    def __init__(self, pause: float = 0.0) -> None:
        self.runs = 0
        self.pause = pause
        self.lock = threading.Lock()

    def __call__(self) -> Dict[str, Any]:
        with self.lock:
            self.runs += 1
            n = self.runs
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
    assert again.flow_id == call.flow_id and again.answers_digest == call.answers_digest
    assert run_once(m, again, effect) == first
    assert effect.runs == 1
    # Stored as canonical JSON text under the flow id and digest.
    exp = call.token_expires_at + s.DEFAULT_CLOCK_SKEW_SECS  # type: ignore[operator]
    status, text = m.claim(call.flow_id, call.answers_digest, exp)  # type: ignore[arg-type]
    assert status == "done" and text == s.canonicalize(json.dumps(first))
    # The result the server then answers with: decide(call, complete(result)).
    body = json.loads(e.decide(again, s.complete(first)).to_json())
    assert body["id"] == 9 and body["result"]["content"] == first["content"]


def test_run_once_replay_with_other_answers_is_a_token_error_and_runs_nothing() -> None:
    e, m, effect = engine(), MemoryStore(), Effect()
    state = final_state(e)
    red = begin(e, state, {"c": accept(c="red")})
    result = run_once(m, red, effect)
    blue = begin(e, state, {"c": accept(c="blue")}, id=3)
    with pytest.raises(s.TokenError) as info:
        run_once(m, blue, effect)
    assert str(info.value) == s.ONCE_REPLAYED_MESSAGE and info.value.reason == "replayed"
    assert effect.runs == 1
    # The replay's claim was released: not left pending.
    assert m.claim(blue.flow_id, blue.answers_digest, NOW + 400, now=NOW) == ("won", None)  # type: ignore[arg-type]
    # The original answers still get the remembered result.
    assert run_once(m, begin(e, state, {"c": accept(c="red")}, id=4), effect) == result


def test_run_once_needs_a_retry() -> None:
    e = engine()
    with pytest.raises(s.ArgumentError, match="not a retry"):
        run_once(MemoryStore(), begin(e), Effect())
    with pytest.raises(s.ArgumentError):
        run_once(MemoryStore(), "call", Effect())  # type: ignore[arg-type]


def test_run_once_gives_up_on_a_pending_claim_after_the_wait() -> None:
    e, m, effect = engine(), MemoryStore(), Effect()
    call = final_round(e)
    assert m.claim(call.flow_id, call.answers_digest, NOW + 400)[0] == "won"  # type: ignore[arg-type]
    t0 = time.monotonic()
    with pytest.raises(s.StoreError, match="still pending"):
        run_once(m, call, effect, wait=0.2)
    assert 0.15 < time.monotonic() - t0 < 2.0
    assert effect.runs == 0


def test_an_effect_that_raises_gives_its_token_back_and_the_retry_runs_it() -> None:
    e, m = engine(), MemoryStore()
    state = final_state(e)
    call = begin(e, state, {"c": accept(c="red")})

    def fails() -> Any:
        raise KeyError("ledger briefly unavailable; nothing happened")

    with pytest.raises(KeyError):
        run_once(m, call, fails)
    # The claim released and the token id given back: nothing is left.
    assert len(m) == 0
    # The client retries the same final round (another JSON-RPC id): the
    # effect runs and completes, not "replayed".
    effect = Effect()
    retry = begin(e, state, {"c": accept(c="red")}, id=8)
    assert run_once(m, retry, effect)["content"][0]["text"] == "booked #1"
    assert effect.runs == 1
    # That success consumed the token: other answers are the replay.
    with pytest.raises(s.TokenError):
        run_once(m, begin(e, state, {"c": accept(c="blue")}, id=9), effect)
    assert effect.runs == 1


def test_a_replay_after_a_failed_attempt_keeps_the_other_attempts_token() -> None:
    e, m, effect = engine(), MemoryStore(), Effect()
    state = final_state(e)

    def fails() -> Any:
        raise KeyError("nothing happened")

    with pytest.raises(KeyError):
        run_once(m, begin(e, state, {"c": accept(c="red")}), fails)
    # The token is free again: the user's other answers may complete the flow.
    blue = run_once(m, begin(e, state, {"c": accept(c="blue")}, id=3), effect)
    assert blue["content"][0]["text"] == "booked #1"
    # The first answers again are now the replay; the replay's release must
    # not free the token the blue attempt consumed.
    red = begin(e, state, {"c": accept(c="red")}, id=4)
    with pytest.raises(s.TokenError):
        run_once(m, red, effect)
    assert m.consume(red.token_id, NOW + 400, now=NOW) is False  # type: ignore[arg-type]
    with pytest.raises(s.TokenError):
        run_once(m, begin(e, state, {"c": accept(c="green")}, id=5), effect)
    assert effect.runs == 1


def test_a_failed_release_after_a_failed_effect_is_a_store_error() -> None:
    # Fail closed: the release could not run, so the token stays consumed.
    class NoRelease:
        def __init__(self) -> None:
            self.m, self.released = MemoryStore(), []

        def claim(self, *a: Any, **k: Any) -> Any:
            return self.m.claim(*a, **k)

        def consume(self, *a: Any, **k: Any) -> bool:
            return self.m.consume(*a, **k)

        def complete(self, *a: Any, **k: Any) -> None:
            self.m.complete(*a, **k)

        def release(self, *a: Any, **k: Any) -> None:
            self.released.append((a, k))
            raise s.StoreError("once store: down")

    call, store = final_round(engine()), NoRelease()

    def fails() -> Any:
        raise KeyError("nothing happened")

    with pytest.raises(s.StoreError) as info:
        run_once(store, call, fails)
    assert isinstance(info.value.__cause__, KeyError)
    assert store.released == [((call.flow_id, call.answers_digest), {"token_id": call.token_id})]
    assert store.m.consume(call.token_id, NOW + 400, now=NOW) is False  # type: ignore[arg-type]


def test_memory_release_with_a_token_only_while_pending() -> None:
    m = MemoryStore()
    assert m.consume("T", NOW + 10, now=NOW) is True
    m.release("F", "D", token_id="T")  # no claim: nothing given back
    assert m.consume("T", NOW + 10, now=NOW) is False
    assert m.claim("F", "D", NOW + 10, now=NOW) == ("won", None)
    m.release("F", "D", "T")
    assert m.consume("T", NOW + 10, now=NOW) is True
    assert m.claim("F", "D", NOW + 10, now=NOW) == ("won", None)
    with pytest.raises(s.ArgumentError):
        m.release("F", "D", "a:b")


def test_a_result_that_is_not_json_keeps_the_claim_pending() -> None:
    # The effect ran: releasing would let a second caller run it again.
    e, m, runs = engine(), MemoryStore(), [0]
    call = final_round(e)

    def effect() -> Any:
        runs[0] += 1
        return {"when": object()}

    with pytest.raises(s.JsonError):
        run_once(m, call, effect)
    assert runs[0] == 1
    assert m.claim(call.flow_id, call.answers_digest, NOW + 400)[0] == "pending"  # type: ignore[arg-type]


def test_run_once_fails_closed_on_store_errors() -> None:
    class Down:
        def __init__(self, fail: str) -> None:
            self.fail, self.released = fail, 0

        def claim(self, *a: Any, **k: Any) -> Tuple[str, Optional[str]]:
            if self.fail == "claim":
                raise s.StoreError("once store: down")
            return ("won", None)

        def consume(self, *a: Any, **k: Any) -> bool:
            if self.fail == "consume":
                raise s.StoreError("once store: down")
            return True

        def complete(self, *a: Any, **k: Any) -> None:
            raise s.StoreError("once store: down")

        def release(self, *a: Any, **k: Any) -> None:
            self.released += 1

    call = final_round(engine())
    for where, runs, released in [("claim", 0, 0), ("consume", 0, 1), ("complete", 1, 0)]:
        effect, store = Effect(), Down(where)
        with pytest.raises(s.StoreError):
            run_once(store, call, effect)
        assert (effect.runs, store.released) == (runs, released), where


def test_eight_threads_one_memory_store_one_effect() -> None:
    e, m, effect = engine(), MemoryStore(), Effect(pause=0.1)
    state = final_state(e)
    calls = [begin(e, state, {"c": accept(c="red")}, id=10 + i) for i in range(8)]
    results: List[Any] = [None] * 8
    barrier = threading.Barrier(8)

    def worker(i: int) -> None:
        barrier.wait()
        results[i] = run_once(m, calls[i], effect)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert effect.runs == 1
    assert all(r == results[0] for r in results) and results[0] is not None


def test_pending_waiters_do_not_hold_the_gil() -> None:
    # While a waiter polls a pending claim, another thread keeps running
    # Python code: the waiter sleeps without the GIL.
    e, m = engine(), MemoryStore()
    call = final_round(e)
    m.claim(call.flow_id, call.answers_digest, NOW + 400)  # type: ignore[arg-type]
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


def test_run_once_async_over_the_memory_store() -> None:
    e, m = engine(), MemoryStore()
    state = final_state(e)
    runs = [0]

    async def effect() -> Dict[str, Any]:
        runs[0] += 1
        await asyncio.sleep(0.05)
        return {"content": [], "runs": runs[0]}

    async def main() -> List[Any]:
        calls = [begin(e, state, {"c": accept(c="red")}, id=i) for i in range(8)]
        return list(await asyncio.gather(*(run_once_async(m, c, effect) for c in calls)))

    results = asyncio.run(main())
    assert runs[0] == 1 and results == [{"content": [], "runs": 1}] * 8
    with pytest.raises(s.TokenError):
        asyncio.run(run_once_async(m, begin(e, state, {"c": accept(c="blue")}), effect))
    assert runs[0] == 1


def test_run_once_async_gives_a_failed_effects_token_back() -> None:
    e, m = engine(), MemoryStore()
    state = final_state(e)
    runs = [0]

    async def effect() -> Dict[str, Any]:
        runs[0] += 1
        if runs[0] == 1:
            raise ConnectionError("payment API briefly unavailable")
        return {"content": [], "runs": runs[0]}

    with pytest.raises(ConnectionError):
        asyncio.run(run_once_async(m, begin(e, state, {"c": accept(c="red")}), effect))
    retry = begin(e, state, {"c": accept(c="red")}, id=7)
    assert asyncio.run(run_once_async(m, retry, effect)) == {"content": [], "runs": 2}
    with pytest.raises(s.TokenError):
        asyncio.run(run_once_async(m, begin(e, state, {"c": accept(c="blue")}), effect))
    assert runs[0] == 2


def test_redis_stores_name_the_extra_when_redis_py_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    for cls in [s.RedisStore, s.AsyncRedisStore]:
        with pytest.raises(ImportError, match=r"snodo-mrtr\[redis\]"):
            cls("redis://127.0.0.1:1/")
