"""At most once per flow, across a fleet (``docs/once.md``).

For one flow id, at most one effect runs across every process sharing a
store, whatever tokens of the flow a client presents and with whatever
answers; a later final round with the same answers gets the remembered
result, one with other answers the ``replayed`` refusal.

The protocol is the core's sans-IO machine (:class:`OnceRun`): it hands
out store commands (:class:`OnceCommand`: a Lua script, one key, its
``ARGV``) and reads their replies. This module drives it:

- :func:`run_once` / :func:`run_once_async` on the final round of an
  effectful flow, :func:`check_once` / :func:`check_once_async` on any
  retry before asking again;
- the stores that run the commands: :class:`MemoryStore` (native, the
  core's: one process), :class:`RedisStore` on a redis-py client and
  :class:`AsyncRedisStore` on ``redis.asyncio`` (a single Redis or a Redis
  Cluster: a fleet). A Redis store runs the command's script byte for
  byte, so Python, Rust, Node and C processes share one record per flow.

A store is any object with ``prefix``, ``lease_ms`` and ``execute(command)
-> str`` (a coroutine for the async stores); either driver takes any store
(the async driver calls a sync store directly). Every store failure is
:class:`~snodo_mrtr.StoreError`, and the effect never runs on a claim the
store did not confirm.

The Redis stores also run the task machine's commands (:class:`TaskCommand`,
``snodo_mrtr.tasks``): one client, one eviction check, the same errors.

``redis`` is imported only when a Redis store is built: install the extra
``snodo-mrtr[redis]``.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import math
import threading
import time
import warnings
from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, Set, Tuple, Type, TypeVar, Union

from . import _native
from ._native import (
    DEFAULT_ONCE_LEASE_SECS,
    DEFAULT_ONCE_PREFIX,
    DEFAULT_ONCE_WAIT_SECS,
    DEFAULT_REDIS_TIMEOUT_MS,
    Call,
    OnceCommand,
    OnceRun,
    OnceStep,
    OnceTicket,
    TaskCommand,
    check_once_eviction_policy,
)
from .errors import ArgumentError, ConfigError, StoreError

__all__ = [
    "AsyncOnceLease",
    "AsyncRedisStore",
    "OnceLease",
    "RedisStore",
    "check_once",
    "check_once_async",
    "run_once",
    "run_once_async",
]

#: How long a store with ``replicas`` waits for their acknowledgement (``WAIT``) by default, seconds.
DEFAULT_REPLICAS_TIMEOUT_SECS = 1.0

_MISSING_EXTRA = "snodo_mrtr.{cls} needs redis-py, which is not installed: pip install 'snodo-mrtr[redis]'"

# EVALSHA names a script by the SHA-1 of its exact bytes. Computed once per
# script text: the once scripts and the task scripts (a TaskCommand runs on
# these stores too), a dozen texts in all.
_SHAS: Dict[str, str] = {}


def _sha(script: str) -> str:
    sha = _SHAS.get(script)
    if sha is None:
        sha = _SHAS[script] = hashlib.sha1(script.encode("utf-8"), usedforsecurity=False).hexdigest()
    return sha


def _import_redis(cls: str) -> Any:
    try:
        import redis
        import redis.asyncio
        import redis.asyncio.cluster
        import redis.cluster
    except ImportError as e:  # the extra is optional: say which one
        raise ImportError(_MISSING_EXTRA.format(cls=cls)) from e
    return redis


def _seconds(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"once store: {what} must be a positive number of seconds")
    return float(value)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise StoreError("once store: a reply that is not UTF-8 (is the key prefix shared?)") from None
    # A client with a custom response callback: nothing snodo can read.
    raise StoreError(f"once store: unexpected reply type {type(value).__name__}")


def _no_replicas_on_a_cluster() -> ConfigError:
    return ConfigError("once store: waiting for replicas is offered on a single Redis endpoint, not on a cluster")


def _policy(reply: Any) -> str:
    # CONFIG GET answers {name: value} (bytes or str, as the client decodes).
    if isinstance(reply, dict):
        for name, value in reply.items():
            if _text(name) == "maxmemory-policy":
                return _text(value)
    raise StoreError("once store: redis did not report its maxmemory-policy")


_Store = TypeVar("_Store", bound="_RedisBase")


class _RedisBase:
    """What the sync and async Redis stores share: settings, checks, errors."""

    _cls = "RedisStore"

    def __init__(
        self,
        client_or_url: Any,
        *,
        prefix: str = DEFAULT_ONCE_PREFIX,
        lease_secs: float = DEFAULT_ONCE_LEASE_SECS,
        timeout_secs: float = DEFAULT_REDIS_TIMEOUT_MS / 1000,
        replicas: Optional[int] = None,
        replicas_timeout_secs: float = DEFAULT_REPLICAS_TIMEOUT_SECS,
        allow_evicting_policy: bool = False,
    ) -> None:
        self._configure(prefix, lease_secs, timeout_secs, replicas, replicas_timeout_secs, allow_evicting_policy)
        self._build: Optional[Callable[[], Any]] = None
        if isinstance(client_or_url, str):
            self._client: Any = self._from_url(client_or_url, self._timeout)
            self.owns_client, self.is_cluster = True, False
        else:
            # The caller's client, with the caller's timeouts and retries:
            # give it socket timeouts, or a silent Redis can stall a call.
            self._check_client(client_or_url)
            self._client = client_or_url
            self.owns_client = False
            self.is_cluster = isinstance(client_or_url, self._cluster_class())
            if self.is_cluster and self._replicas is not None:
                raise _no_replicas_on_a_cluster()

    @classmethod
    def cluster(
        cls: Type[_Store],
        urls: Union[str, Sequence[str]],
        *,
        prefix: str = DEFAULT_ONCE_PREFIX,
        lease_secs: float = DEFAULT_ONCE_LEASE_SECS,
        timeout_secs: float = DEFAULT_REDIS_TIMEOUT_MS / 1000,
        replicas: Optional[int] = None,
        replicas_timeout_secs: float = DEFAULT_REPLICAS_TIMEOUT_SECS,
        allow_evicting_policy: bool = False,
    ) -> _Store:
        """A store on the Redis Cluster reachable at any of ``urls`` (seed
        nodes: a list, or one comma-separated string; the client discovers
        the rest; the first URL's credentials and scheme apply to every node).
        Nothing is connected yet: an unreachable cluster is a ``StoreError``
        on the first call. ``replicas`` is refused (``ConfigError``), as the
        Rust store refuses it: ``WAIT`` is offered on a single endpoint."""
        store = cls.__new__(cls)
        store._configure(prefix, lease_secs, timeout_secs, replicas, replicas_timeout_secs, allow_evicting_policy)
        if store._replicas is not None:
            raise _no_replicas_on_a_cluster()
        seeds = [u.strip() for u in urls.split(",")] if isinstance(urls, str) else list(urls)
        store._build = store._cluster_from_urls(seeds, store._timeout)
        store._client = None
        store.owns_client, store.is_cluster = True, True
        return store

    def _configure(
        self,
        prefix: str,
        lease_secs: float,
        timeout_secs: float,
        replicas: Optional[int],
        replicas_timeout_secs: float,
        allow_evicting_policy: bool,
    ) -> None:
        self._redis = _import_redis(self._cls)
        if not isinstance(prefix, str):
            raise ConfigError("once store: the key prefix must be a str")
        _native.check_once_prefix(prefix)
        self.prefix = prefix
        lease_ms = int(_seconds(lease_secs, "lease_secs") * 1000)
        if lease_ms < 1:
            raise ConfigError("once store: the lease must be at least 1 ms")
        self.lease_ms = lease_ms
        self._timeout = _seconds(timeout_secs, "timeout_secs")
        self._replicas: Optional[Tuple[int, int]] = None
        if replicas is not None:
            wait_ms = int(_seconds(replicas_timeout_secs, "replicas_timeout_secs") * 1000)
            if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 1 or wait_ms < 1:
                raise ConfigError("once store: replicas and their timeout must be at least 1")
            self._replicas = (replicas, wait_ms)
            # WAIT blocks up to its own timeout before answering.
            self._timeout += wait_ms / 1000
        self.allow_evicting_policy = bool(allow_evicting_policy)
        # Set once maxmemory-policy was read and accepted (or warned about);
        # an error leaves it unset, so the next command checks again.
        self._checked = False
        self._build_lock = threading.Lock()

    @property
    def client(self) -> Any:
        """The redis-py client. One a cluster store builds from seed URLs is
        built on first use (a sync cluster client connects when built): an
        unreachable cluster is then a ``StoreError``."""
        if self._client is None:
            with self._build_lock:
                if self._client is None:
                    assert self._build is not None
                    try:
                        self._client = self._build()
                    except self._errors() as e:
                        raise self._store_error(e, "connect") from e
        return self._client

    # --- the client classes of each flavour ---

    def _client_class(self) -> Any:
        return self._redis.Redis

    def _cluster_class(self) -> Any:
        return self._redis.cluster.RedisCluster

    def _foreign_classes(self) -> Tuple[Type[Any], ...]:
        return (self._redis.asyncio.Redis, self._redis.asyncio.cluster.RedisCluster)

    def _retry(self) -> Any:
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        return Retry(NoBackoff(), 1)

    def _check_client(self, client: Any) -> None:
        if isinstance(client, self._foreign_classes()):
            other = "AsyncRedisStore" if self._cls == "RedisStore" else "RedisStore"
            raise ConfigError(f"once store: {self._cls} got a client of the other flavour: use {other}")

    def _from_url(self, url: str, timeout: float) -> Any:
        try:
            # Timeouts so a silent Redis is an error, never a hang; one quick
            # retry (a pooled connection Redis dropped on restart) instead of
            # redis-py's default backoff, which would hold a request for
            # seconds before the StoreError. Building connects nothing.
            return self._client_class().from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=self._retry()
            )
        except (ValueError, self._redis.exceptions.RedisError):
            # Not the URL itself in the message: it may hold a password.
            raise ConfigError("once store: the Redis URL is not valid") from None

    def _cluster_from_urls(self, seeds: List[Any], timeout: float) -> Callable[[], Any]:
        from urllib.parse import urlsplit

        nodes: List[Tuple[str, int]] = []
        try:
            for url in seeds:
                parts = urlsplit(url)
                if parts.scheme not in ("redis", "rediss") or not parts.hostname:
                    raise ValueError
                nodes.append((parts.hostname, parts.port or 6379))
        except (ValueError, TypeError, AttributeError):
            # Not the URL itself in the message: it may hold a password.
            raise ConfigError("once store: the Redis URL is not valid") from None
        if not nodes:
            raise ConfigError("once store: the Redis URL is not valid")
        cluster_class, node_class, retry = self._cluster_class(), self._node_class(), self._retry()

        def build() -> Any:
            # The sync client connects (and reads the slots) when built, so
            # it is built on first use.
            return cluster_class.from_url(
                seeds[0],
                startup_nodes=[node_class(host, port) for host, port in nodes],
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=retry,
            )

        return build

    def _node_class(self) -> Any:
        return self._redis.cluster.ClusterNode

    # --- errors ---

    def _errors(self) -> Tuple[Type[BaseException], ...]:
        e = self._redis.exceptions
        return (e.RedisError, e.RedisClusterException, OSError, asyncio.TimeoutError)

    def _store_error(self, e: BaseException, what: Optional[str] = None) -> StoreError:
        # The error's kind and detail, never the URL (it may hold a password).
        if what is None:
            connect = (self._redis.exceptions.ConnectionError, self._redis.exceptions.TimeoutError, OSError)
            what = "connect" if isinstance(e, connect) else "command"
        return StoreError(f"once store: redis {what} failed: {e}")

    def _not_confirmed(self, command: Union[OnceCommand, TaskCommand], acked: Any) -> Optional[StoreError]:
        assert self._replicas is not None
        replicas, wait_ms = self._replicas
        if int(acked) >= replicas:
            return None
        return StoreError(
            f"once store: {command.op} reached {int(acked)} of {replicas} replicas within {wait_ms} ms: not confirmed"
        )

    def _verdict(self, policies: Optional[List[str]], error: Optional[StoreError]) -> List[str]:
        if error is None and policies is not None:
            try:
                for p in policies:
                    check_once_eviction_policy(p)
            except StoreError as e:
                error = e
        if error is not None:
            if not self.allow_evicting_policy:
                raise error
            warnings.warn(f"snodo: {error} (allowed by allow_evicting_policy)", RuntimeWarning, stacklevel=3)
        self._checked = True
        return policies or []

    def __repr__(self) -> str:
        # Never the client or URL (a password may be in it).
        return f"{type(self).__name__}(prefix={self.prefix!r}, lease_ms={self.lease_ms}, cluster={self.is_cluster})"


class RedisStore(_RedisBase):
    """The once store on a synchronous redis-py client: a single Redis
    (``redis.Redis``, or a URL) or a Redis Cluster (``redis.cluster.RedisCluster``,
    or :meth:`RedisStore.cluster` from seed URLs).

    ``RedisStore("redis://10.0.0.5:6379/0", prefix="snodo:once:bookings:")``
    builds a client with ``timeout_secs`` (default 2 s) connect/read/write
    timeouts; a client you pass is used as is (give it socket timeouts).
    ``replicas=n`` follows each script with ``WAIT n`` on the same connection
    (single endpoint only) and refuses a write fewer replicas confirmed.
    Before its first command the store reads ``maxmemory-policy``
    (:meth:`check`) and refuses an evicting Redis unless
    ``allow_evicting_policy=True``, which only warns. Thread-safe as redis-py
    clients are.
    """

    _cls = "RedisStore"

    def check(self) -> List[str]:
        """Reads ``maxmemory-policy`` now (on every primary of a cluster) and
        returns it; an evicting or unreadable policy is ``StoreError`` unless
        ``allow_evicting_policy`` was set (then a ``RuntimeWarning``). Runs by
        itself before the first command; call it at start-up to fail early."""
        try:
            policies: Optional[List[str]] = self._read_policies()
            error = None
        except StoreError as e:
            policies, error = None, e
        return self._verdict(policies, error)

    def _read_policies(self) -> List[str]:
        try:
            client = self.client
            if self.is_cluster:
                replies = [client.config_get("maxmemory-policy", target_nodes=n) for n in client.get_primaries()]
            else:
                replies = [client.config_get("maxmemory-policy")]
        except StoreError:
            raise
        except self._errors() as e:
            raise self._store_error(e) from e
        return [_policy(r) for r in replies]

    def execute(self, command: Union[OnceCommand, TaskCommand], *, now_ms: Optional[int] = None) -> str:
        """Runs ``command`` (its script on its key: a once command, or a
        task command of :mod:`snodo_mrtr.tasks`) and returns the reply text.
        ``now_ms`` is accepted for any-store drivers and not used: the
        scripts read Redis's own clock."""
        if not self._checked:
            self.check()
        try:
            client = self.client
            args = [command.key, *command.args]
            if self._replicas is not None:
                # EVAL (no NOSCRIPT retry inside a pipeline) then WAIT on one
                # connection: WAIT counts this connection's writes.
                pipe = client.pipeline(transaction=False)
                pipe.eval(command.script, 1, *args)
                pipe.execute_command("WAIT", self._replicas[0], self._replicas[1])
                reply, acked = pipe.execute()
                refused = self._not_confirmed(command, acked)
                if refused is not None:
                    raise refused
                return _text(reply)
            try:
                reply = client.evalsha(_sha(command.script), 1, *args)
            except self._redis.exceptions.NoScriptError:
                reply = client.eval(command.script, 1, *args)
        except StoreError:
            raise
        except self._errors() as e:
            raise self._store_error(e) from e
        return _text(reply)

    def close(self) -> None:
        """Closes the client if this store built it."""
        if self.owns_client and self._client is not None:
            self._client.close()


class AsyncRedisStore(_RedisBase):
    """:class:`RedisStore` on ``redis.asyncio`` (``redis.asyncio.Redis``,
    ``redis.asyncio.cluster.RedisCluster``, a URL, or
    :meth:`AsyncRedisStore.cluster`): ``execute``, ``check`` and ``close``
    are coroutines. Same scripts, checks and errors."""

    _cls = "AsyncRedisStore"

    def _client_class(self) -> Any:
        return self._redis.asyncio.Redis

    def _cluster_class(self) -> Any:
        return self._redis.asyncio.cluster.RedisCluster

    def _node_class(self) -> Any:
        return self._redis.asyncio.cluster.ClusterNode

    def _foreign_classes(self) -> Tuple[Type[Any], ...]:
        return (self._redis.Redis, self._redis.cluster.RedisCluster)

    def _retry(self) -> Any:
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        return Retry(NoBackoff(), 1)

    async def check(self) -> List[str]:
        """:meth:`RedisStore.check`, as a coroutine."""
        try:
            policies: Optional[List[str]] = await self._read_policies()
            error = None
        except StoreError as e:
            policies, error = None, e
        return self._verdict(policies, error)

    async def _read_policies(self) -> List[str]:
        try:
            client = self.client
            if self.is_cluster:
                await client.initialize()
                replies = [
                    await client.config_get("maxmemory-policy", target_nodes=n) for n in client.get_primaries()
                ]
            else:
                replies = [await client.config_get("maxmemory-policy")]
        except StoreError:
            raise
        except self._errors() as e:
            raise self._store_error(e) from e
        return [_policy(r) for r in replies]

    async def execute(self, command: Union[OnceCommand, TaskCommand], *, now_ms: Optional[int] = None) -> str:
        """:meth:`RedisStore.execute`, as a coroutine."""
        if not self._checked:
            await self.check()
        try:
            client = self.client
            args = [command.key, *command.args]
            if self._replicas is not None:
                pipe = client.pipeline(transaction=False)
                pipe.eval(command.script, 1, *args)
                pipe.execute_command("WAIT", self._replicas[0], self._replicas[1])
                reply, acked = await pipe.execute()
                refused = self._not_confirmed(command, acked)
                if refused is not None:
                    raise refused
                return _text(reply)
            try:
                reply = await client.evalsha(_sha(command.script), 1, *args)
            except self._redis.exceptions.NoScriptError:
                reply = await client.eval(command.script, 1, *args)
        except StoreError:
            raise
        except self._errors() as e:
            raise self._store_error(e) from e
        return _text(reply)

    async def close(self) -> None:
        """Closes the client if this store built it."""
        if self.owns_client and self._client is not None:
            await self._client.aclose()


# --- the drivers ---------------------------------------------------------------


class _Clock:
    """``now_ms`` for a store's ``execute``: none (the store's own clock), or
    the caller's start time advanced by the time the run has taken."""

    __slots__ = ("base", "started")

    def __init__(self, now_ms: Optional[int]) -> None:
        if now_ms is not None and (isinstance(now_ms, bool) or not isinstance(now_ms, int) or now_ms < 0):
            raise ArgumentError("run_once: now_ms must be Unix milliseconds (an int >= 0)")
        self.base, self.started = now_ms, time.monotonic()

    def kwargs(self) -> Dict[str, int]:
        if self.base is None:
            return {}
        return {"now_ms": self.base + int((time.monotonic() - self.started) * 1000)}


def _new_run(store: Any, call: Call, wait: Optional[float], what: str) -> OnceRun:
    if not isinstance(call, Call):
        raise ArgumentError(f"{what}: call must be a snodo_mrtr.Call, got {type(call).__name__}")
    try:
        prefix, lease_ms = store.prefix, store.lease_ms
    except AttributeError:
        raise ArgumentError(
            f"{what}: the store needs prefix, lease_ms and execute (MemoryStore, RedisStore, AsyncRedisStore)"
        ) from None
    if wait is None:
        return OnceRun(call, prefix, lease_ms, lookup=True)
    if isinstance(wait, bool) or not isinstance(wait, (int, float)):
        raise ArgumentError(f"{what}: wait must be a number of seconds >= 0")
    return OnceRun(call, prefix, lease_ms, wait_secs=float(wait))


def _reply(value: Any) -> str:
    if inspect.isawaitable(value):
        if inspect.iscoroutine(value):
            value.close()
        raise ArgumentError("run_once: the store's execute is a coroutine: use run_once_async")
    if not isinstance(value, str):
        raise StoreError(f"once store: execute returned {type(value).__name__}, not the reply text (str)")
    return value


def _execute(store: Any, command: OnceCommand, clock: _Clock) -> str:
    return _reply(store.execute(command, **clock.kwargs()))


async def _execute_async(store: Any, command: OnceCommand, clock: _Clock) -> str:
    value = store.execute(command, **clock.kwargs())
    if inspect.isawaitable(value):
        value = await value
    return _reply(value)


class _Lease:
    __slots__ = ("_store", "_ticket", "_clock")

    def __init__(self, store: Any, ticket: OnceTicket, clock: _Clock) -> None:
        self._store, self._ticket, self._clock = store, ticket, clock

    @property
    def fence(self) -> int:
        """Greater than every earlier claim's of this flow: a ledger that
        refuses a write carrying a smaller number than it has seen for the
        flow shuts out a former owner whose lease lapsed."""
        return self._ticket.fence

    def __repr__(self) -> str:
        return f"{type(self).__name__}(fence={self.fence})"


class OnceLease(_Lease):
    """What :func:`run_once` hands the effect: the claim's fencing number
    and an owner-checked lease extension on the store."""

    __slots__ = ()

    def extend(self) -> bool:
        """Extends the lease to a full lease from now. ``False``: the claim is
        no longer this run's (it lapsed and was taken over): stop, and do not
        write. A store failure is ``StoreError``."""
        return self._ticket.extended(_execute(self._store, self._ticket.extend_command, self._clock))


class AsyncOnceLease(_Lease):
    """What :func:`run_once_async` hands the effect: ``lease.fence`` and
    ``await lease.extend()`` (as :meth:`OnceLease.extend`)."""

    __slots__ = ()

    async def extend(self) -> bool:
        """:meth:`OnceLease.extend`, as a coroutine."""
        reply = await _execute_async(self._store, self._ticket.extend_command, self._clock)
        return self._ticket.extended(reply)


def _release(run: OnceRun, store: Any, clock: _Clock, failure: BaseException) -> None:
    # The effect failed before doing anything (its contract): release the
    # claim so that a retry of the same final round runs it. If the release
    # itself fails, that StoreError is raised, chained to the effect's error;
    # the claim then stays pending until its lease lapses (safe).
    try:
        step = run.effect_failed()
        while (command := step.command) is not None:
            step = run.feed(_execute(store, command, clock))
    except Exception as err:
        raise err from failure


async def _release_async(run: OnceRun, store: Any, clock: _Clock, failure: BaseException) -> None:
    try:
        step = run.effect_failed()
        while (command := step.command) is not None:
            step = run.feed(await _execute_async(store, command, clock))
    except Exception as err:
        raise err from failure


def _unexpected(step: OnceStep) -> ArgumentError:
    return ArgumentError(f"once run: unexpected step {step.kind}")


def _not_awaited(result: Any) -> Optional[ArgumentError]:
    if not inspect.isawaitable(result):
        return None
    if inspect.iscoroutine(result):
        result.close()  # never started: nothing happened
    return ArgumentError("run_once: the effect returned a coroutine: use run_once_async")


def run_once(
    store: Any,
    call: Call,
    effect: Callable[[OnceLease], Any],
    *,
    wait: float = DEFAULT_ONCE_WAIT_SECS,
    now_ms: Optional[int] = None,
) -> Any:
    """Runs ``effect(lease)`` at most once for ``call``'s flow and returns the
    final result: the effect's own (a JSON value, remembered as canonical
    JSON) if this run won the flow's claim, the remembered one if the flow
    already completed with the same answers.

    ``call`` is the final round (a retry). While another caller holds the
    flow's claim this waits (5 ms doubling to 250 ms, sleeping without the
    GIL) up to ``wait`` seconds in all. ``now_ms`` (Unix ms) is the caller's
    clock for a store that takes one (``MemoryStore`` under an engine with a
    fixed clock), advanced by the time the run takes; Redis uses its own.

    Raises ``TokenError`` (``.reason == "replayed"``: the flow completed with
    other answers), ``StoreError`` (the store failed, or the flow's effect is
    still running elsewhere after ``wait``: the effect did not run here; or
    the claim was taken over before this effect's result was remembered),
    ``ArgumentError`` (``call`` is not a retry).

    ``effect`` gets a :class:`OnceLease` (``lease.fence``, ``lease.extend()``).
    An ``Exception`` from it means it failed before doing anything: the claim
    is released (a retry of the same final round runs it again) and the
    exception propagates. Anything else (``KeyboardInterrupt``, ``SystemExit``)
    releases nothing: the claim stays pending until its lease lapses, and
    retries meanwhile get "still running", never a second run.
    """
    run = _new_run(store, call, wait, "run_once")
    clock = _Clock(now_ms)
    step = run.start()
    while True:
        if (command := step.command) is not None:
            step = run.feed(_execute(store, command, clock))
        elif (pause := step.seconds) is not None:
            time.sleep(pause)  # releases the GIL
            step = run.resume()
        elif (ticket := step.ticket) is not None:
            try:
                result = effect(OnceLease(store, ticket, clock))
                misuse = _not_awaited(result)
                if misuse is not None:
                    raise misuse
            except Exception as failure:
                _release(run, store, clock, failure)
                raise
            # The effect ran: from here nothing releases the claim. A result
            # that is not JSON is the effect's bug; its claim stays pending
            # until the lease lapses.
            step = run.effect_done(_native._once_text(result))
        elif (text := step.text) is not None:
            return _native._once_parse(text)
        else:
            raise _unexpected(step)


# Effects detached from a cancelled caller: the event loop keeps only weak
# references to tasks, so they are held here until they end.
_DETACHED: Set["asyncio.Future[str]"] = set()


async def _effect_to_end(
    run: OnceRun, store: Any, effect: Callable[[AsyncOnceLease], Any], ticket: OnceTicket, clock: _Clock
) -> str:
    try:
        result = effect(AsyncOnceLease(store, ticket, clock))
        if inspect.isawaitable(result):
            result = await result
    except Exception as failure:
        await _release_async(run, store, clock, failure)
        raise
    step = run.effect_done(_native._once_text(result))
    while (command := step.command) is not None:
        step = run.feed(await _execute_async(store, command, clock))
    if step.text is None:
        raise _unexpected(step)
    return step.text


async def run_once_async(
    store: Any,
    call: Call,
    effect: Callable[[AsyncOnceLease], Union[Any, Awaitable[Any]]],
    *,
    wait: float = DEFAULT_ONCE_WAIT_SECS,
    now_ms: Optional[int] = None,
) -> Any:
    """:func:`run_once` for asyncio: ``store`` an :class:`AsyncRedisStore` or
    any sync store, ``effect`` a function or a coroutine function taking an
    :class:`AsyncOnceLease` (``await lease.extend()``); waits with
    ``asyncio.sleep``. Same results and errors.

    Once the effect starts, it and the recording of its result run in a task
    shielded from the caller's cancellation: a client that disconnects
    mid-effect lets the effect finish and be remembered (its retry gets the
    result), and the caller gets its ``CancelledError`` at once. A
    cancellation of the effect itself releases nothing (as any
    ``BaseException`` that is not an ``Exception``).
    """
    run = _new_run(store, call, wait, "run_once_async")
    clock = _Clock(now_ms)
    step = run.start()
    while True:
        if (command := step.command) is not None:
            step = run.feed(await _execute_async(store, command, clock))
        elif (pause := step.seconds) is not None:
            await asyncio.sleep(pause)
            step = run.resume()
        elif (ticket := step.ticket) is not None:
            task = asyncio.ensure_future(_effect_to_end(run, store, effect, ticket, clock))
            _DETACHED.add(task)
            task.add_done_callback(_DETACHED.discard)
            return _native._once_parse(await asyncio.shield(task))
        elif (text := step.text) is not None:
            return _native._once_parse(text)
        else:
            raise _unexpected(step)


def check_once(store: Any, call: Call, *, now_ms: Optional[int] = None) -> Any:
    """Looks before asking, on any retry of an effectful tool: the result
    remembered for exactly these answers (answer it), or ``None`` (nothing
    remembered for the flow yet: go on). Raises ``TokenError`` (``.reason ==
    "replayed"``) when the flow completed with other answers, so a token of a
    completed flow cannot be used to ask again; ``StoreError`` on a store
    failure."""
    run = _new_run(store, call, None, "check_once")
    clock = _Clock(now_ms)
    step = run.start()
    while (command := step.command) is not None:
        step = run.feed(_execute(store, command, clock))
    return None if step.text is None else _native._once_parse(step.text)


async def check_once_async(store: Any, call: Call, *, now_ms: Optional[int] = None) -> Any:
    """:func:`check_once` for asyncio (any store)."""
    run = _new_run(store, call, None, "check_once_async")
    clock = _Clock(now_ms)
    step = run.start()
    while (command := step.command) is not None:
        step = run.feed(await _execute_async(store, command, clock))
    return None if step.text is None else _native._once_parse(step.text)
