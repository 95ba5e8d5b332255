"""Issue 17 on a real Redis: RedisStore (redis-py) and AsyncRedisStore
(redis.asyncio) run the core's keys, values and Lua scripts.

scripts/test-python.sh starts a throwaway Redis (scripts/redis.sh) and sets
SNODO_REDIS_URL. Without it these tests FAIL, never skip: a green run means
Redis was there.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import threading
import time
import uuid
from typing import Any, Dict, Iterator, List

import pytest
import redis  # pinned in requirements-test.txt: missing is a failure, not a skip

import snodo_mrtr as s
from conftest import NOW
from once_helpers import accept, begin, engine, final_round, final_state
from snodo_mrtr import AsyncRedisStore, MemoryStore, RedisStore, run_once, run_once_async



@pytest.fixture(scope="module")
def url() -> str:
    value = os.environ.get("SNODO_REDIS_URL")
    if not value:
        pytest.fail("SNODO_REDIS_URL is not set: run scripts/test-python.sh (it starts Redis); these tests never skip")
    try:
        redis.Redis.from_url(value, socket_timeout=2, socket_connect_timeout=2).ping()
    except redis.exceptions.RedisError as e:
        pytest.fail(f"Redis at SNODO_REDIS_URL is unreachable: {e}")
    return value


@pytest.fixture
def prefix() -> str:
    # One prefix per test: tests share one Redis, never each other's keys.
    return f"snodo:test:{uuid.uuid4().hex}:"


@pytest.fixture
def raw(url: str) -> Iterator[Any]:
    client = redis.Redis.from_url(url, socket_timeout=2, decode_responses=True)
    yield client
    client.close()


def closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    sock.close()
    return port


def test_consume_twice(url: str, prefix: str, raw: Any) -> None:
    store = RedisStore(url, prefix=prefix)
    now = int(time.time())
    assert store.consume("T1", now + 100, now=now) is True
    assert store.consume("T1", now + 100, now=now) is False
    assert store.consume("T2", now + 100, now=now) is True
    # The Rust store's key, value and expiry: SET <prefix>token:<id> 1 NX PX ttl.
    assert raw.get(f"{prefix}token:T1") == "1"
    assert 99_000 <= raw.pttl(f"{prefix}token:T1") <= 100_000
    # Expired (ttl at least one second): usable again.
    assert store.consume("T3", now, now=now) is True
    assert 0 < raw.pttl(f"{prefix}token:T3") <= 1000
    store.close()


def test_claim_complete_release(url: str, prefix: str, raw: Any) -> None:
    store = RedisStore(url, prefix=prefix, lease_secs=0.3)
    now = int(time.time())
    key = f"{prefix}result:F:D"
    assert store.claim("F", "D", now + 300) == ("won", None)
    assert raw.get(key) == "pending" and 0 < raw.pttl(key) <= 300
    assert store.claim("F", "D", now + 300) == ("pending", None)
    store.release("F", "D")
    assert raw.get(key) is None
    assert store.claim("F", "D", now + 300) == ("won", None)
    store.complete("F", "D", '{"ok":true}', now + 300, now=now)
    assert raw.get(key) == 'done:{"ok":true}' and 299_000 <= raw.pttl(key) <= 300_000
    assert store.claim("F", "D", now + 300) == ("done", '{"ok":true}')
    store.release("F", "D")  # a done value is not released
    store.complete("F", "D", '{"ok":false}', now + 300, now=now)  # the first completion stays
    assert store.claim("F", "D", now + 300) == ("done", '{"ok":true}')
    # A lapsed lease is won again.
    assert store.claim("F", "D2", now + 300) == ("won", None)
    time.sleep(0.4)
    assert store.claim("F", "D2", now + 300) == ("won", None)
    # A value snodo does not write is an error, not a guess.
    raw.set(f"{prefix}result:F:D3", "something else")
    with pytest.raises(s.StoreError, match="does not write"):
        store.claim("F", "D3", now + 300)
    with pytest.raises(s.ArgumentError):
        store.claim("F", "a:b", now + 300)
    with pytest.raises(s.ConfigError):
        RedisStore(url, prefix="a b")
    with pytest.raises(s.ConfigError):
        RedisStore(url, lease_secs=0)
    assert "redis://" not in repr(store)


def test_python_and_rust_agree_on_keys_values_and_scripts(url: str, prefix: str, raw: Any) -> None:
    """What the Python store writes, a Rust claim (the same script on the
    same key) reads as Done, and what Rust writes Python reads."""
    store = RedisStore(redis.Redis.from_url(url, socket_timeout=2), prefix=prefix)
    call = final_round(engine())
    exp = call.token_expires_at + s.DEFAULT_CLOCK_SKEW_SECS  # type: ignore[operator]
    result = run_once(store, call, lambda: {"content": [{"type": "text", "text": "ok"}], "isError": False})
    key = s.once_result_key(prefix, call.flow_id, call.answers_digest)  # type: ignore[arg-type]
    assert key == f"{prefix}result:{call.flow_id}:{call.answers_digest}"
    text = s.canonicalize('{"content":[{"type":"text","text":"ok"}],"isError":false}')
    assert raw.get(key) == "done:" + text
    assert result == {"content": [{"type": "text", "text": "ok"}], "isError": False}
    assert raw.get(f"{prefix}token:{call.token_id}") == "1"
    # The scripts Redis holds are the core's bytes: EVALSHA of their SHA-1
    # is what the Rust RedisStore sends.
    shas = [hashlib.sha1(t.encode()).hexdigest() for t in (s.ONCE_CLAIM_SCRIPT, s.ONCE_COMPLETE_SCRIPT)]
    assert raw.script_exists(*shas) == [True, True]
    # A Rust claim = EVALSHA claim-sha 1 <key> <lease ms>: "done:<text>".
    assert raw.evalsha(shas[0], 1, key, 30000) == "done:" + text
    # Written as the Rust store writes it, read by Python.
    raw.set(f"{prefix}result:F:D", "done:{\"from\":\"rust\"}", px=10000)
    assert store.claim("F", "D", NOW) == ("done", '{"from":"rust"}')
    raw.set(f"{prefix}token:T", "1", px=10000)
    assert store.consume("T", int(time.time()) + 100) is False


def test_eight_threads_eight_clients_one_effect(url: str, prefix: str) -> None:
    e = engine()
    state = final_state(e)
    runs: List[int] = []
    lock = threading.Lock()

    def effect() -> Dict[str, Any]:
        with lock:
            runs.append(1)
        time.sleep(0.2)
        return {"content": [{"type": "text", "text": f"booked by {threading.get_ident()}"}]}

    results: List[Any] = [None] * 8
    errors: List[BaseException] = []
    barrier = threading.Barrier(8)

    def worker(i: int) -> None:
        # Its own client and store, as a separate process would have.
        store = RedisStore(url, prefix=prefix)
        call = begin(e, state, {"c": accept(c="red")}, id=100 + i)
        barrier.wait()
        try:
            results[i] = run_once(store, call, effect)
        except BaseException as ex:  # noqa: BLE001 - reported below
            errors.append(ex)
        finally:
            store.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert len(runs) == 1
    assert results[0] is not None and all(r == results[0] for r in results)


def test_asyncio_gather_eight_clients_one_effect(url: str, prefix: str) -> None:
    e = engine()
    state = final_state(e)
    runs = [0]

    async def effect() -> Dict[str, Any]:
        runs[0] += 1
        await asyncio.sleep(0.2)
        return {"content": [{"type": "text", "text": f"run {runs[0]}"}]}

    async def one(i: int) -> Any:
        store = AsyncRedisStore(url, prefix=prefix)
        try:
            return await run_once_async(store, begin(e, state, {"c": accept(c="red")}, id=i), effect)
        finally:
            await store.close()

    async def main() -> List[Any]:
        return list(await asyncio.gather(*(one(i) for i in range(8))))

    results = asyncio.run(main())
    assert runs[0] == 1
    assert results == [{"content": [{"type": "text", "text": "run 1"}]}] * 8

    async def replay() -> None:
        store = AsyncRedisStore(url, prefix=prefix)
        try:
            assert await store.consume("fresh", int(time.time()) + 10) is True
            with pytest.raises(s.TokenError):
                await run_once_async(store, begin(e, state, {"c": accept(c="blue")}), effect)
        finally:
            await store.close()

    asyncio.run(replay())
    assert runs[0] == 1


def test_replay_with_other_answers_is_rejected(url: str, prefix: str, raw: Any) -> None:
    e = engine()
    store = RedisStore(url, prefix=prefix)
    state = final_state(e)
    runs = [0]

    def effect() -> Dict[str, Any]:
        runs[0] += 1
        return {"content": [], "n": runs[0]}

    red = begin(e, state, {"c": accept(c="red")})
    assert run_once(store, red, effect) == {"content": [], "n": 1}
    blue = begin(e, state, {"c": accept(c="blue")}, id=3)
    with pytest.raises(s.TokenError) as info:
        run_once(store, blue, effect)
    assert str(info.value) == s.ONCE_REPLAYED_MESSAGE
    assert runs[0] == 1
    # Released, not left pending for the lease.
    assert raw.get(s.once_result_key(prefix, blue.flow_id, blue.answers_digest)) is None  # type: ignore[arg-type]
    # The same answers again: the remembered result.
    assert run_once(store, begin(e, state, {"c": accept(c="red")}, id=4), effect) == {"content": [], "n": 1}


def test_a_failed_effect_gives_its_token_back_in_one_script(url: str, prefix: str, raw: Any) -> None:
    e = engine()
    store = RedisStore(url, prefix=prefix)
    state = final_state(e)
    runs = [0]

    def effect() -> Dict[str, Any]:
        runs[0] += 1
        if runs[0] == 1:
            raise ConnectionError("ledger briefly unavailable; nothing happened")
        return {"content": [], "n": runs[0]}

    red = begin(e, state, {"c": accept(c="red")})
    token_key = s.once_token_key(prefix, red.token_id)  # type: ignore[arg-type]
    result_key = s.once_result_key(prefix, red.flow_id, red.answers_digest)  # type: ignore[arg-type]
    with pytest.raises(ConnectionError):
        run_once(store, red, effect)
    assert raw.get(token_key) is None and raw.get(result_key) is None
    # The release script ran (with two keys), byte for byte the core's.
    assert raw.script_exists(hashlib.sha1(s.ONCE_RELEASE_SCRIPT.encode()).hexdigest()) == [True]
    # The same final round retried: runs and completes, not "replayed".
    assert run_once(store, begin(e, state, {"c": accept(c="red")}, id=5), effect) == {"content": [], "n": 2}
    assert raw.get(token_key) == "1"
    # Other answers now: the replay; its release leaves the token consumed.
    with pytest.raises(s.TokenError):
        run_once(store, begin(e, state, {"c": accept(c="blue")}, id=6), effect)
    assert raw.get(token_key) == "1" and runs[0] == 2
    # The raw store operation: both keys only while the claim is pending.
    store.release("F", "D", token_id="T")
    assert store.consume("T", int(time.time()) + 60) is True
    store.release("F", "D", token_id="T")  # no claim: the token stays
    assert raw.get(f"{prefix}token:T") == "1"
    assert store.claim("F", "D", int(time.time()) + 60) == ("won", None)
    store.release("F", "D", token_id="T")
    assert raw.get(f"{prefix}token:T") is None and raw.get(f"{prefix}result:F:D") is None
    store.close()


def test_async_failed_effect_then_replay_after_it(url: str, prefix: str, raw: Any) -> None:
    e = engine()
    state = final_state(e)
    runs = [0]

    async def fails() -> Dict[str, Any]:
        raise ConnectionError("payment API briefly unavailable")

    async def effect() -> Dict[str, Any]:
        runs[0] += 1
        return {"content": [], "n": runs[0]}

    async def main() -> None:
        store = AsyncRedisStore(url, prefix=prefix)
        try:
            red = begin(e, state, {"c": accept(c="red")})
            with pytest.raises(ConnectionError):
                await run_once_async(store, red, fails)
            # A replay with other answers after the failed attempt: the token
            # was given back, so these answers complete the flow.
            blue = await run_once_async(store, begin(e, state, {"c": accept(c="blue")}, id=3), effect)
            assert blue == {"content": [], "n": 1}
            # The failed answers again are now the replay, and the replay's
            # release does not free blue's token.
            with pytest.raises(s.TokenError):
                await run_once_async(store, begin(e, state, {"c": accept(c="red")}, id=4), effect)
            assert raw.get(s.once_token_key(prefix, red.token_id)) == "1"  # type: ignore[arg-type]
        finally:
            await store.close()

    asyncio.run(main())
    assert runs[0] == 1


def test_pending_then_done_across_stores(url: str, prefix: str) -> None:
    e = engine()
    call = final_round(e)
    a, b = RedisStore(url, prefix=prefix), RedisStore(url, prefix=prefix)
    exp = call.token_expires_at + 60  # type: ignore[operator]
    assert a.claim(call.flow_id, call.answers_digest, exp) == ("won", None)  # type: ignore[arg-type]
    with pytest.raises(s.StoreError, match="still pending"):
        run_once(b, call, lambda: {"never": True}, wait=0.1)

    def finish() -> None:
        time.sleep(0.2)
        a.complete(call.flow_id, call.answers_digest, '{"late":1}', exp)  # type: ignore[arg-type]

    t = threading.Thread(target=finish)
    t.start()
    assert run_once(b, call, lambda: {"never": True}, wait=5) == {"late": 1}
    t.join()


def test_unreachable_redis_is_a_store_error_and_runs_nothing() -> None:
    store = RedisStore(f"redis://127.0.0.1:{closed_port()}/", timeout_secs=0.5)
    runs = [0]

    def effect() -> Dict[str, Any]:
        runs[0] += 1
        return {}

    t0 = time.monotonic()
    with pytest.raises(s.StoreError, match="once store: redis connect failed"):
        run_once(store, final_round(engine()), effect)
    with pytest.raises(s.StoreError):
        store.consume("T", NOW)
    assert runs[0] == 0
    assert time.monotonic() - t0 < 5

    async def main() -> None:
        astore = AsyncRedisStore(f"redis://127.0.0.1:{closed_port()}/", timeout_secs=0.5)
        with pytest.raises(s.StoreError):
            await run_once_async(astore, final_round(engine()), effect)
        await astore.close()

    asyncio.run(main())
    assert runs[0] == 0


def test_silent_redis_times_out_and_runs_nothing() -> None:
    # Accepts connections, never answers: the timeout, not a hang.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    port = server.getsockname()[1]
    try:
        store = RedisStore(f"redis://127.0.0.1:{port}/", timeout_secs=0.3)
        runs = [0]

        def effect() -> Dict[str, Any]:
            runs[0] += 1
            return {}

        t0 = time.monotonic()
        with pytest.raises(s.StoreError):
            run_once(store, final_round(engine()), effect)
        assert runs[0] == 0
        assert time.monotonic() - t0 < 5
    finally:
        server.close()


def test_memory_and_redis_stores_agree(url: str, prefix: str) -> None:
    """The same operations give the same answers on the core's memory store
    and on the Python Redis store (the parity the fleet relies on)."""
    now = int(time.time())
    stores = [MemoryStore(lease_secs=30), RedisStore(url, prefix=prefix, lease_secs=30)]
    script: List[Any] = [
        ("consume", "T1", now + 50),
        ("consume", "T1", now + 50),
        ("claim", "F", "D", now + 50),
        ("claim", "F", "D", now + 50),
        ("complete", "F", "D", '{"a":[1,2.5,"\u00e9"]}', now + 50),
        ("claim", "F", "D", now + 50),
        ("complete", "F", "D", '{"b":0}', now + 50),
        ("claim", "F", "D", now + 50),
        ("release", "F", "D"),
        ("claim", "F", "D", now + 50),
        ("claim", "F", "E", now + 50),
        ("release", "F", "E"),
        ("claim", "F", "E", now + 50),
        ("consume", "T2", now + 50),
    ]
    answers = []
    for store in stores:
        out = []
        for op, *args in script:
            if op in ("consume", "claim", "complete"):
                out.append(getattr(store, op)(*args, now=now))
            else:
                out.append(getattr(store, op)(*args))
        answers.append(out)
    assert answers[0] == answers[1]
    assert answers[0][5] == ("done", '{"a":[1,2.5,"\u00e9"]}')


def test_redis_taken_away_mid_run_then_back(tmp_path: Any) -> None:
    """A Redis of its own (the suite's is shared): stopped, every call is a
    StoreError and nothing runs; restarted (empty) on the same port, the
    same store object serves again without being rebuilt."""
    import shutil
    import subprocess

    server = shutil.which("redis-server")
    assert server, "redis-server is missing (scripts/test-python.sh installs it)"
    port = closed_port()

    def start() -> "subprocess.Popen[bytes]":
        proc = subprocess.Popen(
            [server, "--save", "", "--appendonly", "no", "--bind", "127.0.0.1", "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                redis.Redis(port=port, socket_timeout=0.5, socket_connect_timeout=0.5).ping()
                return proc
            except redis.exceptions.RedisError:
                time.sleep(0.05)
        proc.kill()
        pytest.fail("the test's own redis-server did not answer PING")

    proc = start()
    try:
        store = RedisStore(f"redis://127.0.0.1:{port}/", timeout_secs=0.5)
        e = engine()
        runs = [0]

        def effect() -> Dict[str, Any]:
            runs[0] += 1
            return {"content": [], "run": runs[0]}

        assert run_once(store, final_round(e, flow=1), effect) == {"content": [], "run": 1}
        proc.terminate()
        proc.wait(timeout=10)
        call = final_round(e, flow=2)
        for _ in range(3):
            with pytest.raises(s.StoreError):
                run_once(store, call, effect)
        assert runs[0] == 1
        proc = start()
        assert run_once(store, call, effect) == {"content": [], "run": 2}
        assert run_once(store, call, effect) == {"content": [], "run": 2}
        assert runs[0] == 2
        store.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
