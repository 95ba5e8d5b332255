"""At most once across a fleet (issue 17): consume-once and remembered results.

Three stores with one shape (``docs/once.md``):

- :class:`MemoryStore` (native, the core's): one process, the default;
- :class:`RedisStore` on a redis-py client, and :class:`AsyncRedisStore` on
  ``redis.asyncio``: a fleet. They run the core's Lua scripts byte for byte
  (``ONCE_CLAIM_SCRIPT`` ...) on the same keys, values and expiries as the
  Rust and Node stores, so processes in any of the three languages share
  one Redis.

Each has ``consume(token_id, expires_at)``, ``claim(flow_id, digest,
expires_at)`` -> ``("won", None) | ("done", text) | ("pending", None)``,
``complete(flow_id, digest, text, expires_at)`` and ``release(flow_id,
digest, token_id=None)`` (times in Unix seconds; ``now=`` overrides the clock). Every store
failure is :class:`~snodo_mrtr.StoreError`: fail closed, never a second
effect.

:func:`run_once` (and :func:`run_once_async`) is what a server calls on the
final round of an effectful flow; it returns the final *result* (the effect's,
or the remembered one), which the server answers with ``decide(call,
complete(result))`` as usual, so each retry keeps its own JSON-RPC id.

``redis`` is imported only when a Redis store is built: install the extra
``snodo-mrtr[redis]``.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Any, Awaitable, Callable, List, Optional, Tuple, Type, Union

from . import _native
from ._native import (
    DEFAULT_CLOCK_SKEW_SECS,
    DEFAULT_ONCE_LEASE_SECS,
    DEFAULT_ONCE_PREFIX,
    DEFAULT_REDIS_TIMEOUT_MS,
    ONCE_CLAIM_SCRIPT,
    ONCE_COMPLETE_SCRIPT,
    ONCE_CONSUMED,
    ONCE_DONE_PREFIX,
    ONCE_PENDING,
    ONCE_RELEASE_SCRIPT,
    ONCE_REPLAYED_MESSAGE,
    ONCE_WON,
    Call,
    MemoryStore,
)
from .errors import ArgumentError, StoreError, TokenError

__all__ = [
    "AsyncRedisStore",
    "ClaimResult",
    "MemoryStore",
    "RedisStore",
    "run_once",
    "run_once_async",
]

#: What ``claim`` returns: ``("won", None)``, ``("done", text)`` or ``("pending", None)``.
ClaimResult = Tuple[str, Optional[str]]

# run_once's polling of a pending claim: the core's defaults (OnceOptions).
_POLL_INITIAL = 0.005
_POLL_MAX = 0.25
#: The default ``wait`` of run_once, seconds: the default lease plus a margin.
DEFAULT_ONCE_WAIT = 35.0

_MISSING_EXTRA = (
    "snodo_mrtr.{cls} needs redis-py, which is not installed: pip install 'snodo-mrtr[redis]'"
)


def _import_redis(cls: str) -> Any:
    try:
        import redis
    except ImportError as e:  # the extra is optional: say which one
        raise ImportError(_MISSING_EXTRA.format(cls=cls)) from e
    return redis


def _ttl_ms(expires_at: int, now: int) -> int:
    # The core's ttl_secs: whole seconds from now to expires_at, at least one.
    return max(int(expires_at) - int(now), 1) * 1000


def _text(value: Any) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise StoreError("once store: a result key holds a value that is not UTF-8") from None
    # A client with a custom response callback: nothing snodo can read.
    raise StoreError(f"once store: unexpected reply type {type(value).__name__}")


def _claim_result(value: Any) -> ClaimResult:
    text = _text(value)
    if text == ONCE_WON:
        return ("won", None)
    if text == ONCE_PENDING:
        return ("pending", None)
    if text is None:
        # Unreachable inside the atomic script; the core treats it as "ask again".
        return ("pending", None)
    if text.startswith(ONCE_DONE_PREFIX):
        return ("done", text[len(ONCE_DONE_PREFIX) :])
    raise StoreError(
        "once store: a result key holds a value snodo does not write "
        "(is the prefix shared with another application?)"
    )


def _lease_ms(lease_secs: float) -> int:
    if isinstance(lease_secs, bool) or not isinstance(lease_secs, (int, float)):
        raise _config_error("once store: lease_secs must be a number of seconds")
    ms = int(lease_secs * 1000)
    if ms < 1:
        raise _config_error("once store: the lease must be at least 1 ms")
    return ms


def _config_error(message: str) -> Exception:
    from .errors import ConfigError

    return ConfigError(message)


class _RedisBase:
    """What the sync and async Redis stores share: keys, scripts, errors."""

    _cls = "RedisStore"

    def __init__(
        self,
        client_or_url: Any,
        *,
        prefix: str = DEFAULT_ONCE_PREFIX,
        lease_secs: float = DEFAULT_ONCE_LEASE_SECS,
        timeout_secs: float = DEFAULT_REDIS_TIMEOUT_MS / 1000,
    ) -> None:
        self._redis = _import_redis(self._cls)
        if not isinstance(prefix, str):
            raise _config_error("once store: the key prefix must be a str")
        _native.check_once_prefix(prefix)
        self.prefix = prefix
        self.lease_ms = _lease_ms(lease_secs)
        if isinstance(client_or_url, str):
            if isinstance(timeout_secs, bool) or not isinstance(timeout_secs, (int, float)) or timeout_secs <= 0:
                raise _config_error("once store: timeout_secs must be a positive number")
            self.client = self._from_url(client_or_url, float(timeout_secs))
            self.owns_client = True
        else:
            # The caller's client, with the caller's timeouts and retries:
            # give it socket timeouts, or a silent Redis can stall a call.
            self.client = client_or_url
            self.owns_client = False
        self._claim = self.client.register_script(ONCE_CLAIM_SCRIPT)
        self._complete = self.client.register_script(ONCE_COMPLETE_SCRIPT)
        self._release = self.client.register_script(ONCE_RELEASE_SCRIPT)

    def _client_class(self) -> Any:
        return self._redis.Redis

    def _retry_class(self) -> Any:
        from redis.retry import Retry

        return Retry

    def _from_url(self, url: str, timeout: float) -> Any:
        from redis.backoff import NoBackoff

        try:
            # Timeouts so a silent Redis is an error, never a hang; one quick
            # retry (a pooled connection Redis dropped on restart) instead of
            # redis-py's default ten with backoff, which would hold a request
            # for many seconds before the StoreError.
            return self._client_class().from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=self._retry_class()(NoBackoff(), 1),
            )
        except (ValueError, self._redis.exceptions.RedisError):
            # Not the URL itself in the message: it may hold a password.
            raise _config_error("once store: the Redis URL is not valid") from None

    def _store_error(self, e: BaseException) -> StoreError:
        what = "connect" if isinstance(e, (self._redis.exceptions.ConnectionError, OSError)) else "command"
        return StoreError(f"once store: redis {what} failed: {e}")

    def _errors(self) -> Tuple[Type[BaseException], ...]:
        return (self._redis.exceptions.RedisError, OSError, asyncio.TimeoutError)

    def __repr__(self) -> str:
        # Never the client or URL (a password may be in it).
        return f"{type(self).__name__}(prefix={self.prefix!r}, lease_ms={self.lease_ms})"


class RedisStore(_RedisBase):
    """The Redis store on a synchronous redis-py client (or a URL).

    ``RedisStore("redis://10.0.0.5:6379/0", prefix="snodo:once:bookings:")``
    builds a client with ``timeout_secs`` (default 2 s) connect/read/write
    timeouts; a client you pass is used as is (give it socket timeouts).
    Thread-safe as redis-py clients are.
    """

    _cls = "RedisStore"

    def _run(self, f: Callable[[], Any]) -> Any:
        try:
            return f()
        except StoreError:
            raise
        except self._errors() as e:
            raise self._store_error(e) from e

    def consume(self, token_id: str, expires_at: int, *, now: Optional[int] = None) -> bool:
        """``True`` the first time ``token_id`` is seen, ``False`` until ``expires_at``."""
        key = _native.once_token_key(self.prefix, token_id)
        ttl = _ttl_ms(expires_at, _now(now))
        # SET NX answers OK when it set the key and nil when it existed.
        return bool(self._run(lambda: self.client.set(key, ONCE_CONSUMED, nx=True, px=ttl)))

    def claim(self, flow_id: str, digest: str, expires_at: int, *, now: Optional[int] = None) -> ClaimResult:
        """Claims the final round; a won claim is held for the lease."""
        key = _native.once_result_key(self.prefix, flow_id, digest)
        return _claim_result(self._run(lambda: self._claim(keys=[key], args=[self.lease_ms])))

    def complete(
        self, flow_id: str, digest: str, text: str, expires_at: int, *, now: Optional[int] = None
    ) -> None:
        """Remembers ``text`` until ``expires_at`` (a first completion stays)."""
        key = _native.once_result_key(self.prefix, flow_id, digest)
        ttl = _ttl_ms(expires_at, _now(now))
        self._run(lambda: self._complete(keys=[key], args=[text, ttl]))

    def release(self, flow_id: str, digest: str, token_id: Optional[str] = None) -> None:
        """Drops a won claim that is still pending; with ``token_id`` (the token
        id the failed attempt consumed), gives it back in the same script."""
        keys = _release_keys(self.prefix, flow_id, digest, token_id)
        self._run(lambda: self._release(keys=keys))

    def close(self) -> None:
        """Closes the client if this store built it from a URL."""
        if self.owns_client:
            self.client.close()


class AsyncRedisStore(_RedisBase):
    """The Redis store on a ``redis.asyncio`` client (or a URL): every method
    is a coroutine. Same keys, values, scripts and errors as :class:`RedisStore`.
    """

    _cls = "AsyncRedisStore"

    def _client_class(self) -> Any:
        import redis.asyncio

        return redis.asyncio.Redis

    def _retry_class(self) -> Any:
        from redis.asyncio.retry import Retry

        return Retry

    async def _run(self, f: Callable[[], Awaitable[Any]]) -> Any:
        try:
            return await f()
        except StoreError:
            raise
        except self._errors() as e:
            raise self._store_error(e) from e

    async def consume(self, token_id: str, expires_at: int, *, now: Optional[int] = None) -> bool:
        """``True`` the first time ``token_id`` is seen, ``False`` until ``expires_at``."""
        key = _native.once_token_key(self.prefix, token_id)
        ttl = _ttl_ms(expires_at, _now(now))
        return bool(await self._run(lambda: self.client.set(key, ONCE_CONSUMED, nx=True, px=ttl)))

    async def claim(
        self, flow_id: str, digest: str, expires_at: int, *, now: Optional[int] = None
    ) -> ClaimResult:
        """Claims the final round; a won claim is held for the lease."""
        key = _native.once_result_key(self.prefix, flow_id, digest)
        return _claim_result(await self._run(lambda: self._claim(keys=[key], args=[self.lease_ms])))

    async def complete(
        self, flow_id: str, digest: str, text: str, expires_at: int, *, now: Optional[int] = None
    ) -> None:
        """Remembers ``text`` until ``expires_at`` (a first completion stays)."""
        key = _native.once_result_key(self.prefix, flow_id, digest)
        ttl = _ttl_ms(expires_at, _now(now))
        await self._run(lambda: self._complete(keys=[key], args=[text, ttl]))

    async def release(self, flow_id: str, digest: str, token_id: Optional[str] = None) -> None:
        """Drops a won claim that is still pending; with ``token_id`` (the token
        id the failed attempt consumed), gives it back in the same script."""
        keys = _release_keys(self.prefix, flow_id, digest, token_id)
        await self._run(lambda: self._release(keys=keys))

    async def close(self) -> None:
        """Closes the client if this store built it from a URL."""
        if self.owns_client:
            await self.client.aclose()


def _now(now: Optional[int]) -> int:
    return int(time.time()) if now is None else int(now)


def _keys(call: Call, expires_at: Optional[int]) -> Tuple[str, str, str, int]:
    if not isinstance(call, Call):
        raise ArgumentError(f"run_once: call must be a snodo_mrtr.Call, got {type(call).__name__}")
    flow_id, token_id, token_exp = call.flow_id, call.token_id, call.token_expires_at
    if flow_id is None or token_id is None or token_exp is None:
        raise ArgumentError(
            "run_once: the call is not a retry (it opened no token): an effect on a "
            "first round has no flow to key on; run it on the final round of a flow"
        )
    if expires_at is None:
        # The last instant a retry with this token can still be accepted.
        expires_at = token_exp + DEFAULT_CLOCK_SKEW_SECS
    return flow_id, call.answers_digest, token_id, int(expires_at)


def _check_wait(wait: float) -> float:
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or wait < 0:
        raise ArgumentError("run_once: wait must be a number of seconds >= 0")
    return float(wait)


def _replayed() -> TokenError:
    err = TokenError(ONCE_REPLAYED_MESSAGE)
    # "replayed" is not one of TOKEN_REASONS (those say why a token failed
    # to open; this one opened): the word the server puts in data.reason,
    # as Node's err.reason.
    setattr(err, "reason", "replayed")
    return err


def _still_pending(waited: float) -> StoreError:
    return StoreError(
        f"once store: the result is still pending after {int(waited * 1000)} ms "
        "(another caller is running the effect); retry later"
    )


def run_once(
    store: Any,
    call: Call,
    effect: Callable[[], Any],
    *,
    wait: float = DEFAULT_ONCE_WAIT,
    expires_at: Optional[int] = None,
    now: Optional[int] = None,
) -> Any:
    """Runs ``effect()`` at most once for this final round and returns its result.

    The key is ``(call.flow_id, call.answers_digest)``; entries live until
    ``expires_at`` (default: ``call.token_expires_at`` + ``DEFAULT_CLOCK_SKEW_SECS``;
    pass the token expiry plus your engine's ``clock_skew_secs`` if you changed it).

    - won: the token id is consumed (already used -> ``TokenError`` with
      ``ONCE_REPLAYED_MESSAGE``, nothing runs), then ``effect()`` runs; its
      result (a JSON value) is remembered as canonical JSON and returned;
    - done: the remembered result, parsed back; nothing runs;
    - pending: polls (5 ms doubling to 250 ms, sleeping without the GIL)
      until done or won, or ``StoreError`` "still pending" after ``wait`` s.

    Any store error is ``StoreError`` and the effect does not run. If
    ``effect`` raises, the claim is released and the token id this attempt
    consumed is given back (one atomic ``release(..., token_id=...)``), then
    the exception propagates: the client's retry of the same final round
    runs the effect again. So an effect must raise only before its side
    effect (or be idempotent). If that release fails, its ``StoreError`` is
    raised (chained to the effect's exception) and the token stays consumed
    (fail closed: the retry may get the replay error).
    """
    flow_id, digest, token_id, expires_at = _keys(call, expires_at)
    wait = _check_wait(wait)
    base = _now(now)
    started = time.monotonic()
    pause = _POLL_INITIAL
    while True:
        now_here = base + int(time.monotonic() - started)
        status, text = store.claim(flow_id, digest, expires_at, now=now_here)
        if status == "done" and text is not None:
            return _native._once_parse(text)
        if status == "won":
            try:
                first = store.consume(token_id, expires_at, now=now_here)
            except BaseException:
                # Nothing happened yet: let another caller try.
                _release_quietly(store, flow_id, digest)
                raise
            if not first:
                store.release(flow_id, digest)
                raise _replayed()
            try:
                result = effect()
            except BaseException as failure:
                _undo(store, flow_id, digest, token_id, failure)
                raise
            return _finish(store, flow_id, digest, result, expires_at, base, started)
        waited = time.monotonic() - started
        if waited >= wait:
            raise _still_pending(waited)
        time.sleep(min(pause, wait - waited))
        pause = min(pause * 2, _POLL_MAX)


def _finish(store: Any, flow_id: str, digest: str, result: Any, expires_at: int, base: int, started: float) -> Any:
    # The effect ran: from here nothing releases the claim (a release would
    # let a second caller run it again). A result that is not JSON is the
    # effect's bug; the claim stays pending until its lease lapses.
    text = _native._once_text(result)
    store.complete(flow_id, digest, text, expires_at, now=base + int(time.monotonic() - started))
    return _native._once_parse(text)


def _release_quietly(store: Any, flow_id: str, digest: str) -> None:
    # The first error is the one to report; a failed release leaves the
    # claim pending until the lease lapses, which is safe.
    try:
        store.release(flow_id, digest)
    except Exception:
        pass


def _release_keys(prefix: str, flow_id: str, digest: str, token_id: Optional[str]) -> List[str]:
    # ONCE_RELEASE_SCRIPT: KEYS[1] the result key, KEYS[2] the token key to give back.
    keys = [_native.once_result_key(prefix, flow_id, digest)]
    if token_id is not None:
        keys.append(_native.once_token_key(prefix, token_id))
    return keys


def _undo(store: Any, flow_id: str, digest: str, token_id: str, failure: BaseException) -> None:
    # The effect raised, so (by its contract) nothing happened: release the
    # claim and give back the token id this attempt consumed, so the retry of
    # the same final round runs the effect instead of getting the replay
    # error. If that release fails, its error is raised instead (fail closed:
    # the claim stays pending until its lease lapses, the token stays
    # consumed); an interrupt (not an Exception) propagates as it is.
    try:
        store.release(flow_id, digest, token_id=token_id)
    except Exception as err:
        if isinstance(failure, Exception):
            raise err from failure


async def _undo_async(store: Any, flow_id: str, digest: str, token_id: str, failure: BaseException) -> None:
    try:
        await _maybe(store.release(flow_id, digest, token_id=token_id))
    except Exception as err:
        if isinstance(failure, Exception):
            raise err from failure


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def _release_quietly_async(store: Any, flow_id: str, digest: str) -> None:
    try:
        await _maybe(store.release(flow_id, digest))
    except Exception:
        pass


async def run_once_async(
    store: Any,
    call: Call,
    effect: Callable[[], Union[Any, Awaitable[Any]]],
    *,
    wait: float = DEFAULT_ONCE_WAIT,
    expires_at: Optional[int] = None,
    now: Optional[int] = None,
) -> Any:
    """:func:`run_once` for asyncio: ``store`` may be an :class:`AsyncRedisStore`
    or a sync store, ``effect`` a function or a coroutine function; waits with
    ``asyncio.sleep``. Same keys, results and errors as :func:`run_once`.
    """
    flow_id, digest, token_id, expires_at = _keys(call, expires_at)
    wait = _check_wait(wait)
    base = _now(now)
    started = time.monotonic()
    pause = _POLL_INITIAL
    while True:
        now_here = base + int(time.monotonic() - started)
        status, text = await _maybe(store.claim(flow_id, digest, expires_at, now=now_here))
        if status == "done" and text is not None:
            return _native._once_parse(text)
        if status == "won":
            try:
                first = await _maybe(store.consume(token_id, expires_at, now=now_here))
            except BaseException:
                await _release_quietly_async(store, flow_id, digest)
                raise
            if not first:
                await _maybe(store.release(flow_id, digest))
                raise _replayed()
            try:
                result = await _maybe(effect())
            except BaseException as failure:
                await _undo_async(store, flow_id, digest, token_id, failure)
                raise
            text = _native._once_text(result)
            done_at = base + int(time.monotonic() - started)
            await _maybe(store.complete(flow_id, digest, text, expires_at, now=done_at))
            return _native._once_parse(text)
        waited = time.monotonic() - started
        if waited >= wait:
            raise _still_pending(waited)
        await asyncio.sleep(min(pause, wait - waited))
        pause = min(pause * 2, _POLL_MAX)
