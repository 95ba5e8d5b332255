"""At most once per flow on real Redis: RedisStore (redis-py) and
AsyncRedisStore (redis.asyncio) on a single Redis and on a 3-master Redis
Cluster, running the core's scripts (mirrors core/tests/once_redis.rs).

scripts/test-python.sh starts a throwaway Redis and a throwaway cluster
(scripts/redis.sh) and sets SNODO_REDIS_URL and SNODO_REDIS_CLUSTER_URLS.
Without them these tests FAIL, never skip: a green run means both were
there. Each test has its own key prefix; scenarios that misconfigure, stop
or replicate a server start private redis-servers.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest
import redis  # pinned in requirements-test.txt: missing is a failure, not a skip
import redis.asyncio
import redis.asyncio.cluster
import redis.cluster

import snodo_mrtr as s
from once_helpers import accept, ask_again, begin, final_round, final_state, flow_calls, live_engine, race_gather, race_threads
from snodo_mrtr import AsyncRedisStore, OnceRun, RedisStore, check_once, check_once_async, run_once, run_once_async

SCRIPTS = [s.ONCE_CLAIM_SCRIPT, s.ONCE_COMPLETE_SCRIPT, s.ONCE_RELEASE_SCRIPT, s.ONCE_EXTEND_SCRIPT, s.ONCE_LOOKUP_SCRIPT]


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


@pytest.fixture(scope="module")
def cluster_urls() -> List[str]:
    value = os.environ.get("SNODO_REDIS_CLUSTER_URLS")
    if not value:
        pytest.fail(
            "SNODO_REDIS_CLUSTER_URLS is not set: run scripts/test-python.sh (it starts a Redis Cluster); "
            "these tests never skip"
        )
    urls = value.split(",")
    try:
        client = redis.cluster.RedisCluster.from_url(urls[0], socket_timeout=2, socket_connect_timeout=2)
        client.ping()
        client.close()
    except (redis.exceptions.RedisError, redis.exceptions.RedisClusterException) as e:
        pytest.fail(f"the Redis Cluster at SNODO_REDIS_CLUSTER_URLS is unreachable: {e}")
    return urls


@pytest.fixture
def prefix() -> str:
    # One prefix per test: tests share the servers, never each other's keys.
    return f"snodo:test:{uuid.uuid4().hex}:"


class Backend:
    """Stores (processes of a fleet) and a raw client on one single Redis or
    one cluster, all with the test's prefix."""

    def __init__(self, kind: str, url: str, cluster_urls: List[str], prefix: str) -> None:
        self.kind, self.url, self.cluster_urls, self.prefix = kind, url, cluster_urls, prefix
        self.opened: List[RedisStore] = []
        if kind == "single":
            self.raw: Any = redis.Redis.from_url(url, socket_timeout=2, decode_responses=True)
        else:
            self.raw = redis.cluster.RedisCluster.from_url(cluster_urls[0], socket_timeout=2, decode_responses=True)

    def store(self, **kwargs: Any) -> RedisStore:
        kwargs.setdefault("prefix", self.prefix)
        if self.kind == "single":
            store = RedisStore(self.url, **kwargs)
        else:
            store = RedisStore.cluster(self.cluster_urls, **kwargs)
        self.opened.append(store)
        return store

    def astore(self, **kwargs: Any) -> AsyncRedisStore:
        """Close it on the loop that used it (``await store.close()``)."""
        kwargs.setdefault("prefix", self.prefix)
        if self.kind == "single":
            return AsyncRedisStore(self.url, **kwargs)
        return AsyncRedisStore.cluster(",".join(self.cluster_urls), **kwargs)

    def key(self, call: s.Call) -> str:
        return f"{self.prefix}flow:{{{call.flow_id}}}"

    def close(self) -> None:
        for store in self.opened:
            store.close()
        self.raw.close()


@pytest.fixture(params=["single", "cluster"])
def backend(request: Any, url: str, cluster_urls: List[str], prefix: str) -> Iterator[Backend]:
    b = Backend(request.param, url, cluster_urls, prefix)
    yield b
    b.close()


@pytest.fixture
def single(url: str, cluster_urls: List[str], prefix: str) -> Iterator[Backend]:
    b = Backend("single", url, cluster_urls, prefix)
    yield b
    b.close()


def closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    sock.close()
    return port


class Private:
    """A private redis-server (no persistence), stopped by ``stop`` or at the
    end of the test; restartable on the same port."""

    def __init__(self, tmp_path: Path, *extra: str) -> None:
        server = shutil.which("redis-server")
        assert server, "redis-server is missing (scripts/test-python.sh installs it)"
        self.server, self.extra, self.tmp = server, extra, tmp_path
        self.port = closed_port()
        self.proc: Optional["subprocess.Popen[bytes]"] = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.server, "--save", "", "--appendonly", "no", "--bind", "127.0.0.1", "--port", str(self.port),
             *self.extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.tmp,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                redis.Redis(port=self.port, socket_timeout=0.5, socket_connect_timeout=0.5).ping()
                return
            except redis.exceptions.RedisError:
                time.sleep(0.05)
        self.stop()
        pytest.fail("a private redis-server did not answer PING")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture
def private(tmp_path: Path) -> Iterator[Any]:
    servers: List[Private] = []

    def make(*extra: str) -> Private:
        servers.append(Private(tmp_path, *extra))
        return servers[-1]

    yield make
    for server in servers:
        server.stop()


def keep_until_ms(call: s.Call, store: Any) -> int:
    """The record's expiry the machine asks for: the flow's last possible use."""
    cmd = OnceRun(call, store.prefix, store.lease_ms).start().command
    assert cmd is not None
    return int(cmd.args[3])


class Counter:
    def __init__(self) -> None:
        self.fences: List[int] = []
        self.lock = threading.Lock()

    def __call__(self, lease: s.OnceLease) -> Dict[str, Any]:
        with self.lock:
            self.fences.append(lease.fence)
        return {"content": [{"type": "text", "text": f"booked with fence {lease.fence}"}]}


# --- one record per flow, as every language writes it -------------------------


def test_one_hash_per_flow_as_the_core_writes_it(backend: Backend) -> None:
    e, store = live_engine(), backend.store()
    call = final_round(e)
    result = run_once(store, call, lambda lease: {"content": [{"type": "text", "text": "ok"}], "isError": False})
    assert result == {"content": [{"type": "text", "text": "ok"}], "isError": False}
    key, raw = backend.key(call), backend.raw
    text = s.canonicalize('{"content":[{"type":"text","text":"ok"}],"isError":false}')
    assert sorted(raw.scan_iter(match=f"{backend.prefix}*", target_nodes="all") if backend.kind == "cluster"
                  else raw.scan_iter(match=f"{backend.prefix}*")) == [key], "one key per flow"
    assert raw.hgetall(key) == {"state": "done", "fence": "1", "digest": call.answers_digest, "text": text}
    # Kept until the flow's last possible use (no caller's clock, no floor).
    assert raw.pexpiretime(key) == keep_until_ms(call, store)
    # The core's lookup script, run raw, reads what Python wrote.
    assert raw.eval(s.ONCE_LOOKUP_SCRIPT, 1, key) == f"done 1 {call.answers_digest} {text}"
    if backend.kind == "single":
        # EVALSHA of the core's exact bytes: what the Rust store sends.
        shas = [hashlib.sha1(x.encode()).hexdigest() for x in (s.ONCE_CLAIM_SCRIPT, s.ONCE_COMPLETE_SCRIPT)]
        assert raw.script_exists(*shas) == [True, True]
    # A record written as Rust writes it is read back by Python.
    other = final_round(e, flow=1)
    raw.hset(backend.key(other), mapping={"state": "done", "fence": "4", "digest": other.answers_digest,
                                          "text": '{"from":"rust"}'})
    raw.pexpire(backend.key(other), 60_000)
    assert check_once(store, other) == {"from": "rust"}
    assert run_once(store, other, lambda lease: {"never": True}) == {"from": "rust"}


def test_a_pending_claim_and_a_release_on_the_record(single: Backend) -> None:
    store, raw = single.store(lease_secs=5), single.raw
    call = final_round(live_engine())
    key = single.key(call)

    def look(lease: s.OnceLease) -> Any:
        record = raw.hgetall(key)
        assert record["state"] == "pending" and record["fence"] == "1" and record["digest"] == call.answers_digest
        assert len(record["owner"]) == 22 and int(record["lease"]) > time.time() * 1000
        raise ConnectionError("nothing happened")

    with pytest.raises(ConnectionError):
        run_once(store, call, look)
    # Released: free, keeping its fence; no owner, lease or digest left.
    assert raw.hgetall(key) == {"state": "free", "fence": "1"}
    counter = Counter()
    run_once(store, call, counter)
    assert counter.fences == [2] and raw.hget(key, "fence") == "2" and raw.hget(key, "state") == "done"


def test_a_key_snodo_does_not_write_is_an_error(single: Backend) -> None:
    store, raw = single.store(), single.raw
    e, counter = live_engine(), Counter()
    odd, text = final_round(e, flow=1), final_round(e, flow=2)
    raw.hset(single.key(odd), mapping={"state": "weird", "fence": "1"})
    raw.set(single.key(text), "a string")
    with pytest.raises(s.StoreError, match="does not write"):
        run_once(store, odd, counter)
    with pytest.raises(s.StoreError, match="redis command failed"):
        run_once(store, text, counter)
    assert counter.fences == []


# --- races ---------------------------------------------------------------------


def test_eight_threads_two_processes_two_tokens_two_answers_one_effect(backend: Backend) -> None:
    e = live_engine()
    for flow in range(5):
        race_threads(flow_calls(e, flow=flow), [backend.store(), backend.store()])


def test_asyncio_gather_two_tokens_two_answers_one_effect(backend: Backend) -> None:
    e = live_engine()

    async def main() -> None:
        for flow in range(5):
            stores = [backend.astore(), backend.astore()]
            try:
                await race_gather(flow_calls(e, flow=flow), stores)
            finally:
                for store in stores:
                    await store.close()

    asyncio.run(main())


def test_a_completed_flow_driven_on_through_a_new_token_books_nothing(backend: Backend) -> None:
    e, counter = live_engine(), Counter()
    a, b = backend.store(), backend.store()
    state = final_state(e)
    booked = run_once(a, begin(e, state, {"c": accept(c="red")}), counter)
    again = ask_again(e, state)
    for store, color in ((a, "blue"), (b, "green")):
        other = begin(e, again, {"c": accept(c=color)}, id=7)
        with pytest.raises(s.TokenError) as info:
            run_once(store, other, counter)
        assert info.value.reason == "replayed"
        with pytest.raises(s.TokenError):
            check_once(store, other)
    same = begin(e, again, {"c": accept(c="red")}, id=8)
    assert run_once(b, same, counter) == booked and check_once(b, same) == booked
    assert counter.fences == [1]

    async def on_async() -> None:
        store = backend.astore()
        try:
            assert await check_once_async(store, same) == booked
            with pytest.raises(s.TokenError):
                await run_once_async(store, begin(e, again, {"c": accept(c="blue")}), counter)
        finally:
            await store.close()

    asyncio.run(on_async())
    assert counter.fences == [1]


def test_check_once_before_and_after(backend: Backend) -> None:
    store = backend.store()
    call = final_round(live_engine())
    assert check_once(store, call) is None
    assert backend.raw.exists(backend.key(call)) == 0  # a lookup writes nothing
    run_once(store, call, lambda lease: {"n": 1})
    assert check_once(store, call) == {"n": 1}


# --- failures, interruptions, leases -------------------------------------------


def test_a_failed_effect_releases_and_the_retry_runs_with_a_greater_fence(backend: Backend) -> None:
    store, e = backend.store(), live_engine()
    state = final_state(e)
    fences: List[int] = []

    def fails(lease: s.OnceLease) -> Any:
        fences.append(lease.fence)
        raise ConnectionError("ledger briefly unavailable; nothing happened")

    with pytest.raises(ConnectionError):
        run_once(store, begin(e, state, {"c": accept(c="red")}), fails)
    assert backend.raw.hget(backend.key(begin(e, state)), "state") == "free"
    counter = Counter()
    retry = begin(e, state, {"c": accept(c="red")}, id=5)
    assert run_once(store, retry, counter, wait=0)["content"][0]["text"].endswith("2")
    assert fences == [1] and counter.fences == [2]
    with pytest.raises(s.TokenError):
        run_once(store, begin(e, state, {"c": accept(c="blue")}, id=6), counter)
    assert counter.fences == [2]


def test_a_keyboard_interrupt_mid_effect_releases_nothing(single: Backend) -> None:
    store = single.store(lease_secs=0.8)
    call = final_round(live_engine())

    def interrupted(lease: s.OnceLease) -> Any:
        raise KeyboardInterrupt()

    with pytest.raises(KeyboardInterrupt):
        run_once(store, call, interrupted)
    assert single.raw.hget(single.key(call), "state") == "pending"
    counter = Counter()
    with pytest.raises(s.StoreError, match="still running"):
        run_once(store, call, counter, wait=0.05)
    # Lapsed: the next retry takes the flow over, with a greater fence.
    assert run_once(store, call, counter, wait=5)["content"][0]["text"] == "booked with fence 2"


def test_a_cancellation_inside_the_async_effect_releases_nothing(single: Backend) -> None:
    call = final_round(live_engine())

    async def cancelled(lease: s.AsyncOnceLease) -> Any:
        raise asyncio.CancelledError()

    async def main() -> None:
        store = single.astore(lease_secs=5)
        try:
            with pytest.raises(asyncio.CancelledError):
                await run_once_async(store, call, cancelled)
            with pytest.raises(s.StoreError, match="still running"):
                await run_once_async(store, call, lambda lease: {"never": True}, wait=0.05)
        finally:
            await store.close()

    asyncio.run(main())
    assert single.raw.hget(single.key(call), "state") == "pending"


def test_a_cancelled_caller_lets_the_async_effect_finish_and_be_remembered(backend: Backend) -> None:
    call = final_round(live_engine())
    runs: List[int] = []

    async def effect(lease: s.AsyncOnceLease) -> Dict[str, Any]:
        runs.append(lease.fence)
        await asyncio.sleep(0.5)
        return {"booked": True}

    async def main() -> None:
        store = backend.astore()
        try:
            caller = asyncio.ensure_future(run_once_async(store, call, effect))
            while not runs:
                await asyncio.sleep(0.01)
            caller.cancel()  # the client disconnected mid-effect
            with pytest.raises(asyncio.CancelledError):
                await caller
            assert await check_once_async(store, call) is None  # still running
            assert await run_once_async(store, call, lambda lease: {"second": True}) == {"booked": True}
        finally:
            await store.close()

    asyncio.run(main())
    assert runs == [1]


def test_a_lease_extension_keeps_a_slow_effect_its_claim(single: Backend) -> None:
    store = single.store(lease_secs=0.5)
    call = final_round(live_engine())
    leases: List[int] = []
    started = threading.Event()

    def slow(lease: s.OnceLease) -> Dict[str, Any]:
        started.set()
        for _ in range(6):  # 0.9 s in all, almost twice the lease
            time.sleep(0.15)
            assert lease.extend() is True
            leases.append(int(single.raw.hget(single.key(call), "lease")))
        return {"fence": lease.fence}

    t = threading.Thread(target=lambda: run_once(store, call, slow))
    t.start()
    started.wait(5)
    time.sleep(0.7)  # past the first lease: only the extensions hold it
    with pytest.raises(s.StoreError, match="still running"):
        run_once(single.store(lease_secs=0.5), call, Counter(), wait=0.05)
    t.join(10)
    assert len(leases) == 6 and leases == sorted(leases) and len(set(leases)) == 6
    assert check_once(store, call) == {"fence": 1}

    async def on_async() -> None:
        astore = single.astore()
        try:
            other = final_round(live_engine(), flow=1)

            async def extends(lease: s.AsyncOnceLease) -> Any:
                return {"extended": await lease.extend()}

            assert await run_once_async(astore, other, extends) == {"extended": True}
        finally:
            await astore.close()

    asyncio.run(on_async())


def test_a_late_release_after_a_takeover_changes_nothing(backend: Backend) -> None:
    store = backend.store(lease_secs=0.3)
    call = final_round(live_engine())
    outcome: List[Any] = []

    def slow_then_fails(lease: s.OnceLease) -> Any:
        assert lease.fence == 1
        time.sleep(1.0)
        outcome.append(lease.extend())  # lapsed and taken over: False
        raise ConnectionError("gave up")

    def first() -> None:
        try:
            run_once(store, call, slow_then_fails)
        except ConnectionError as err:
            outcome.append(err)

    t = threading.Thread(target=first)
    t.start()
    time.sleep(0.45)
    fences: List[int] = []

    def second(lease: s.OnceLease) -> Dict[str, Any]:
        fences.append(lease.fence)
        time.sleep(0.5)
        return {"fence": lease.fence}

    assert run_once(backend.store(lease_secs=0.3), call, second) == {"fence": 2}
    t.join(10)
    assert outcome[0] is False and isinstance(outcome[1], ConnectionError)
    assert fences == [2]
    # The late release and extension deleted nothing: the result stays.
    assert check_once(store, call) == {"fence": 2}
    assert backend.raw.hget(backend.key(call), "state") == "done"


# --- configuration the store refuses -------------------------------------------


def test_an_evicting_maxmemory_policy_is_refused_unless_allowed(
    private: Any, url: str, cluster_urls: List[str], prefix: str
) -> None:
    server = private("--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru")
    call, counter = final_round(live_engine()), Counter()
    store = RedisStore(server.url, prefix=prefix)
    with pytest.raises(s.StoreError, match="allkeys-lru"):
        store.check()
    # Before the first command too (and again: an error leaves it unchecked).
    for _ in range(2):
        with pytest.raises(s.StoreError, match="allkeys-lru"):
            run_once(store, call, counter)
    assert counter.fences == [] and redis.Redis.from_url(server.url).dbsize() == 0

    async def refused() -> None:
        astore = AsyncRedisStore(server.url, prefix=prefix)
        try:
            with pytest.raises(s.StoreError, match="allkeys-lru"):
                await run_once_async(astore, call, counter)
        finally:
            await astore.close()

    asyncio.run(refused())
    assert counter.fences == []
    # Opted in: it runs, with a loud warning.
    allowed = RedisStore(server.url, prefix=prefix, allow_evicting_policy=True)
    with pytest.warns(RuntimeWarning, match="allkeys-lru"):
        assert allowed.check() == ["allkeys-lru"]
    assert run_once(allowed, call, counter)["content"][0]["text"] == "booked with fence 1"
    with pytest.warns(RuntimeWarning, match="allkeys-lru"):
        assert run_once(RedisStore(server.url, prefix=prefix, allow_evicting_policy=True), final_round(
            live_engine(), flow=1), counter)
    # The shared servers run noeviction, as a deployment must.
    assert RedisStore(url, prefix=prefix).check() == ["noeviction"]
    assert RedisStore.cluster(cluster_urls, prefix=prefix).check() == ["noeviction"] * 3

    async def shared() -> None:
        astore = AsyncRedisStore.cluster(cluster_urls, prefix=prefix)
        try:
            assert await astore.check() == ["noeviction"] * 3
        finally:
            await astore.close()

    asyncio.run(shared())


def test_wait_for_replicas_runs_nothing_the_replicas_did_not_confirm(private: Any, prefix: str) -> None:
    e, counter = live_engine(), Counter()
    # No delay before a replica's first sync (Redis waits 5 s by default).
    master = private("--repl-diskless-sync-delay", "0")
    lonely = RedisStore(master.url, prefix=prefix, replicas=1, replicas_timeout_secs=0.1)
    with pytest.raises(s.StoreError, match="claim reached 0 of 1 replicas within 100 ms: not confirmed"):
        run_once(lonely, final_round(e), counter)

    async def lonely_async() -> None:
        astore = AsyncRedisStore(master.url, prefix=prefix, replicas=1, replicas_timeout_secs=0.1)
        try:
            with pytest.raises(s.StoreError, match="0 of 1 replicas"):
                await run_once_async(astore, final_round(e, flow=1), counter)
        finally:
            await astore.close()

    asyncio.run(lonely_async())
    assert counter.fences == []
    # With a replica attached and in sync: confirmed, and it books.
    private("--replicaof", "127.0.0.1", str(master.port))
    info, deadline = redis.Redis.from_url(master.url, decode_responses=True), time.monotonic() + 10
    while info.info("replication").get("slave0", {}).get("state") != "online":
        assert time.monotonic() < deadline, "the replica never came online"
        time.sleep(0.05)
    info.close()
    replicated = RedisStore(master.url, prefix=prefix, replicas=1, replicas_timeout_secs=2)
    assert run_once(replicated, final_round(e, flow=2), counter) == {
        "content": [{"type": "text", "text": "booked with fence 1"}]}
    assert counter.fences == [1]


def test_replicas_on_a_cluster_and_bad_settings_are_config_errors(url: str, cluster_urls: List[str]) -> None:
    with pytest.raises(s.ConfigError, match="single Redis endpoint"):
        RedisStore.cluster(cluster_urls, replicas=1)
    client = redis.cluster.RedisCluster.from_url(cluster_urls[0], socket_timeout=2)
    try:
        with pytest.raises(s.ConfigError, match="single Redis endpoint"):
            RedisStore(client, replicas=1)
    finally:
        client.close()
    with pytest.raises(s.ConfigError, match="single Redis endpoint"):
        AsyncRedisStore.cluster(cluster_urls, replicas=1)
    bad: List[Dict[str, Any]] = [{"prefix": "a b"}, {"lease_secs": 0}, {"timeout_secs": -1}, {"replicas": 0},
                                 {"replicas": 1, "replicas_timeout_secs": 0}, {"lease_secs": float("nan")}]
    for kwargs in bad:
        with pytest.raises(s.ConfigError):
            RedisStore(url, **kwargs)
    for spelling in ["not a url", "http://127.0.0.1/"]:
        with pytest.raises(s.ConfigError, match="URL is not valid"):
            RedisStore(spelling)
    for seeds in [[], ["http://127.0.0.1:1/"], "redis://"]:
        with pytest.raises(s.ConfigError, match="URL is not valid"):
            RedisStore.cluster(seeds)
    # A client of the other flavour would hand back coroutines (or block).
    with pytest.raises(s.ConfigError, match="AsyncRedisStore"):
        RedisStore(redis.asyncio.Redis.from_url(url))
    with pytest.raises(s.ConfigError, match="use RedisStore"):
        AsyncRedisStore(redis.Redis.from_url(url))


def test_the_callers_own_clients_single_and_cluster(url: str, cluster_urls: List[str], prefix: str) -> None:
    e, counter = live_engine(), Counter()
    client = redis.cluster.RedisCluster.from_url(cluster_urls[0], socket_timeout=2, socket_connect_timeout=2)
    store = RedisStore(client, prefix=prefix)
    assert store.is_cluster and store.check() == ["noeviction"] * 3
    assert run_once(store, final_round(e), counter)["content"][0]["text"] == "booked with fence 1"
    store.close()  # not its client: left open
    assert client.ping()
    client.close()

    async def main() -> None:
        aclient = redis.asyncio.cluster.RedisCluster.from_url(cluster_urls[0], socket_timeout=2)
        plain = redis.asyncio.Redis.from_url(url, socket_timeout=2)
        try:
            astore = AsyncRedisStore(aclient, prefix=prefix)
            assert astore.is_cluster
            assert await run_once_async(astore, final_round(e, flow=1), counter) == {
                "content": [{"type": "text", "text": "booked with fence 1"}]}
            assert not AsyncRedisStore(plain, prefix=prefix).is_cluster
            assert await check_once_async(AsyncRedisStore(plain, prefix=prefix), final_round(e, flow=2)) is None
        finally:
            await aclient.aclose()
            await plain.aclose()

    asyncio.run(main())
    assert counter.fences == [1, 1]


# --- a Redis that is not there -------------------------------------------------


def test_unreachable_redis_is_a_quick_store_error_and_runs_nothing() -> None:
    counter = Counter()
    # A password in the URL never reaches a message or a repr.
    store = RedisStore(f"redis://:hunter2secret@127.0.0.1:{closed_port()}/", timeout_secs=0.5)
    t0 = time.monotonic()
    with pytest.raises(s.StoreError, match="once store: redis connect failed") as info:
        run_once(store, final_round(live_engine()), counter)
    assert "hunter2secret" not in str(info.value) and "hunter2secret" not in repr(store)
    with pytest.raises(s.StoreError):
        check_once(store, final_round(live_engine()))
    cluster = RedisStore.cluster([f"redis://127.0.0.1:{closed_port()}/"], timeout_secs=0.5)
    with pytest.raises(s.StoreError, match="once store: redis"):
        run_once(cluster, final_round(live_engine()), counter)

    async def main() -> None:
        for astore in (AsyncRedisStore(f"redis://127.0.0.1:{closed_port()}/", timeout_secs=0.5),
                       AsyncRedisStore.cluster(f"redis://127.0.0.1:{closed_port()}/", timeout_secs=0.5)):
            with pytest.raises(s.StoreError):
                await run_once_async(astore, final_round(live_engine()), counter)
            await astore.close()

    asyncio.run(main())
    assert counter.fences == []
    assert time.monotonic() - t0 < 10


def test_silent_redis_times_out_and_runs_nothing() -> None:
    # Accepts connections, never answers: the timeout, not a hang.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    port = server.getsockname()[1]
    counter = Counter()
    try:
        store = RedisStore(f"redis://127.0.0.1:{port}/", timeout_secs=0.3)
        t0 = time.monotonic()
        with pytest.raises(s.StoreError):
            run_once(store, final_round(live_engine()), counter)
        assert time.monotonic() - t0 < 3

        async def main() -> None:
            astore = AsyncRedisStore(f"redis://127.0.0.1:{port}/", timeout_secs=0.3)
            with pytest.raises(s.StoreError):
                await run_once_async(astore, final_round(live_engine()), counter)
            await astore.close()

        t0 = time.monotonic()
        asyncio.run(main())
        assert time.monotonic() - t0 < 3
        assert counter.fences == []
    finally:
        server.close()


def test_redis_stopped_fails_closed_and_a_restart_resumes(private: Any) -> None:
    """Stopped, every call is a StoreError and nothing runs; restarted (empty)
    on the same port, the same store object serves again."""
    server = private()
    store = RedisStore(server.url, timeout_secs=0.5)
    e, counter = live_engine(), Counter()
    assert run_once(store, final_round(e, flow=1), counter)["content"][0]["text"] == "booked with fence 1"
    server.stop()
    call = final_round(e, flow=2)
    for _ in range(3):
        with pytest.raises(s.StoreError):
            run_once(store, call, counter)
    assert counter.fences == [1]
    server.start()
    # Restarted empty (no persistence): what was remembered is gone.
    assert check_once(store, final_round(e, flow=1)) is None
    assert run_once(store, call, counter) == run_once(store, call, counter)
    assert counter.fences == [1, 1]
    store.close()
