// snodo-mrtr/once: at most once for the final round of an effectful flow
// (issue 17; docs/once.md).
import type { Call, ClaimResult, MemoryStore } from './index';

export { MemoryStore } from './index';
export type { ClaimResult, MemoryStoreOptions } from './index';

/** The default bound of every Redis command, in milliseconds. */
export declare const DEFAULT_REDIS_TIMEOUT_MS: number;

/**
 * The smallest part of a node-redis client a RedisStore uses (node-redis
 * `redis` >= 4.6: `createClient({ url })`, then `await client.connect()`).
 */
export interface RedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
  readonly isReady?: boolean;
}

export interface RedisStoreOptions {
  /** A connected node-redis client; the store never connects or closes it. */
  client: RedisClientLike;
  /** The key prefix, the same on every process of a fleet (default `snodo:once:`). */
  prefix?: string;
  /** How long a won claim is held before another caller may win it, in seconds (default 30). */
  leaseSecs?: number;
  /** The bound of every command, in milliseconds (default 2000): past it, a STORE error. */
  timeoutMs?: number;
}

/**
 * The Redis store of a fleet: the core's keys, values and Lua scripts, byte
 * for byte, through node-redis. Every method is async; every failure of
 * Redis (not connected, refused, timed out, an error reply) rejects with
 * `err.code === 'STORE'`. Times are Unix seconds; `now` defaults to the
 * system clock.
 */
export declare class RedisStore {
  constructor(options: RedisStoreOptions);
  /** The key prefix in use. */
  get prefix(): string;
  /** `true` the first time `tokenId` is seen, `false` until `expiresAt` (`SET NX PX`). */
  consume(tokenId: string, expiresAt: number, now?: number): Promise<boolean>;
  /** Claims the final round (`flowId`, `digest`). */
  claim(flowId: string, digest: string, expiresAt: number, now?: number): Promise<ClaimResult>;
  /** Remembers the result text of a won claim until `expiresAt` (the first completion stays). */
  complete(flowId: string, digest: string, text: string, expiresAt: number, now?: number): Promise<void>;
  /**
   * Drops a won claim whose effect did nothing (a completed one stays); with
   * `tokenId` (the token id the failed attempt consumed), gives it back in
   * the same script, only while the claim is still pending.
   */
  release(flowId: string, digest: string, tokenId?: string | null): Promise<void>;
  toJSON(): string;
}

/** What runOnce needs of a store: MemoryStore (sync), RedisStore (async) or your own. */
export interface OnceStore {
  consume(tokenId: string, expiresAt: number, now?: number): boolean | Promise<boolean>;
  claim(flowId: string, digest: string, expiresAt: number, now?: number): ClaimResult | Promise<ClaimResult>;
  complete(flowId: string, digest: string, text: string, expiresAt: number, now?: number): void | Promise<void>;
  /** `tokenId`: given back with the claim, atomically (after a failed effect only). */
  release(flowId: string, digest: string, tokenId?: string | null): void | Promise<void>;
}

export interface RunOnceOptions {
  /** How long to wait for another caller's pending claim, in seconds (default 35), then a STORE error "still pending". */
  wait?: number;
  /** The last second the entries are kept (default `call.tokenExpiresAt + DEFAULT_CLOCK_SKEW_SECS`; pass the token expiry plus your engine's `clockSkewSecs` if you changed it). */
  expiresAt?: number;
  /** The caller's clock, Unix seconds (default the system clock; pass `engine.now()` when the engine's clock is fixed). */
  now?: number;
}

/**
 * Runs `effect` at most once for the final round of `call` and resolves with
 * its result (a JSON value, stored as canonical JSON): the fresh result if
 * this caller won the claim, otherwise the remembered one, parsed back. Then
 * answer with `engine.decide(call, complete(result))` as usual.
 *
 * - `call` must be a retry (`call.isRetry`): otherwise `ARGUMENT`.
 * - won: consumes `call.tokenId` first; already consumed (the same token with
 *   other answers) → claim released, `TOKEN` error, message
 *   `ONCE_REPLAYED_MESSAGE`, `err.reason === 'replayed'` (that token id is
 *   the other attempt's: it stays consumed). Then `effect()`; if it throws,
 *   the claim is released and the token id given back (one
 *   `store.release(flowId, digest, tokenId)`) and the error rethrown, so the
 *   retry of the same final round runs the effect (an effect must throw
 *   only before doing anything, or be idempotent itself). If that release
 *   fails, its `STORE` error is thrown instead (`err.effectError` = the
 *   effect's error) and the token stays consumed (fail closed).
 * - done: the remembered result; the effect does not run.
 * - pending: polls (5 ms doubling to 250 ms) until done, or won after a
 *   lapsed lease, or `wait` → `STORE` "still pending".
 * - any store failure → `STORE`, and the effect does not run (fail closed).
 */
export declare function runOnce<T = any>(
  store: OnceStore,
  call: Call,
  effect: () => T | Promise<T>,
  options?: RunOnceOptions,
): Promise<T>;
