// snodo-mrtr/once: at most once per flow for the final round of an
// effectful tool (docs/once.md).
import type { Call, OnceCommand, TaskCommand } from './index';

export { MemoryStore, OnceRun } from './index';
export type { MemoryStoreOptions, OnceCommand, OnceRunOptions, OnceStep } from './index';

/** The default bound of every Redis command, in milliseconds. */
export declare const DEFAULT_REDIS_TIMEOUT_MS: number;

/**
 * The smallest part of a node-redis client a RedisStore uses (node-redis
 * `redis` >= 4.6): `createClient({ url })`, then `await client.connect()`.
 */
export interface RedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
  /** Needed for `replicas` (EVAL and WAIT in one pipeline). */
  multi?(): { addCommand(args: string[]): any; execAsPipeline(): Promise<unknown[]> };
  readonly isReady?: boolean;
}

/**
 * The smallest part of a node-redis cluster client a RedisStore uses:
 * `createCluster({ rootNodes })`, then `await cluster.connect()`.
 */
export interface RedisClusterLike {
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  /** Every master node: `check()` reads each one's `maxmemory-policy`. */
  readonly masters: unknown[];
  nodeClient(node: any): Promise<{ sendCommand(args: string[]): Promise<unknown> }> | { sendCommand(args: string[]): Promise<unknown> };
  readonly isReady?: boolean;
}

export interface RedisStoreOptions {
  /** A connected node-redis client or cluster client; the store never connects or closes it. */
  client: RedisClientLike | RedisClusterLike;
  /** The key prefix, the same on every process of a fleet (default `snodo:once:`). */
  prefix?: string;
  /** How long a won claim is held before another caller may take it over, in seconds (default 30). */
  leaseSecs?: number;
  /** The bound of every command, in milliseconds (default 2000): past it, a STORE error. */
  timeoutMs?: number;
  /**
   * Single Redis only (a master with replicas; on a cluster client: CONFIG):
   * after each script, WAIT until this many replicas acknowledged its
   * writes; fewer within `replicasTimeoutMs` is a STORE error (the effect
   * does not run on such a claim). It narrows a failover's window of
   * losing a write; it is not a consensus.
   */
  replicas?: number;
  /** The WAIT timeout, in milliseconds (default `timeoutMs`). */
  replicasTimeoutMs?: number;
  /**
   * Accept a Redis whose `maxmemory-policy` may evict keys (or cannot be
   * read) with a process warning instead of a STORE error. Only for a
   * Redis you have verified yourself.
   */
  allowEvictingPolicy?: boolean;
}

/**
 * The Redis store of a fleet, on node-redis: one Redis or a Redis Cluster
 * (each command is one Lua script on one key, routed to its slot's master).
 * Every failure of Redis (not connected, refused, timed out, an error
 * reply, too few replicas) rejects with `err.code === 'STORE'`, and its
 * message never holds the URL.
 */
export declare class RedisStore {
  constructor(options: RedisStoreOptions);
  /** The key prefix in use. */
  get prefix(): string;
  /** The lease of a won claim, in milliseconds. */
  get leaseMs(): number;
  /**
   * Runs a command a OnceRun (or a TaskStep) handed out: EVALSHA of its script (EVAL when
   * Redis does not have it yet) with `KEYS[1] = command.key`, `ARGV =
   * command.args`; resolves with the reply text. The first command of the
   * store runs `check()` first.
   */
  execute(command: OnceCommand | TaskCommand): Promise<string>;
  /**
   * Reads `maxmemory-policy` (on every master of a cluster) and resolves
   * with the values; anything but `noeviction`, or a policy that cannot be
   * read, rejects with STORE unless `allowEvictingPolicy` (then a process
   * warning, code `SNODO_ONCE_EVICTING_POLICY`). Call it at start-up to
   * fail early.
   */
  check(): Promise<string[]>;
  toJSON(): string;
}

/**
 * What runOnce and checkOnce need of a store: MemoryStore (sync),
 * RedisStore (async) or your own. `execute` runs a command's script with
 * the command's meaning and gives the reply text; `nowMs` is the caller's
 * clock when runOnce was given one.
 */
export interface OnceStore {
  readonly prefix: string;
  readonly leaseMs: number;
  execute(command: OnceCommand, nowMs?: number): string | Promise<string>;
}

/** What the effect gets: its fencing number and its lease. */
export interface OnceLease {
  /**
   * Greater than every earlier claim's of this flow: a ledger that refuses
   * a write with a smaller fence than it has seen for the flow shuts out a
   * former owner whose lease lapsed.
   */
  readonly fence: number;
  /**
   * Extends the lease to a full lease from now: `true`, or `false` when the
   * claim is no longer this run's (stop, and do not write).
   */
  extend(): Promise<boolean>;
}

export interface RunOnceOptions {
  /** How long to wait for another caller's pending claim, in seconds (default 35), then a STORE error "still running". */
  wait?: number;
  /** The store's clock for a MemoryStore, Unix milliseconds (default the system clock; pass `engine.now() * 1000` when the engine's clock is fixed). */
  nowMs?: number;
}

/**
 * Runs `effect` at most once for the flow of `call` (its final round, a
 * retry) and resolves with its result (a JSON value, stored as canonical
 * JSON): the fresh result if this run won the flow's claim, else the
 * remembered one, parsed back. Then answer with
 * `engine.decide(call, complete(result))` as usual.
 *
 * - The flow completed with other answers (whatever token carried them):
 *   `TOKEN`, message `ONCE_REPLAYED_MESSAGE`, `err.reason === 'replayed'`.
 * - Another caller holds the claim: polls until it completes (its result),
 *   its lease lapses (taken over, a greater fence), or `wait` (`STORE`
 *   "still running").
 * - The effect throws (or rejects): its claim is released and the error
 *   rethrown, so the retry of the same final round runs the effect (throw
 *   only before doing anything). If that release fails, its `STORE` error
 *   is thrown with `err.cause` the effect's error.
 * - The effect's result is not JSON: `ARGUMENT`, and the claim stays
 *   pending until its lease lapses (the effect ran).
 * - Any store failure: `STORE`, and the effect does not run (fail closed);
 *   a completion lost to a takeover is `STORE` too.
 * - `call` is not a retry: `ARGUMENT`.
 */
export declare function runOnce<T = any>(
  store: OnceStore,
  call: Call,
  effect: (lease: OnceLease) => T | Promise<T>,
  options?: RunOnceOptions,
): Promise<T>;

/**
 * Looks before asking, on every retry of an effectful tool: the result
 * remembered for these answers, `null` when nothing is remembered for the
 * flow yet (go on), or the `replayed` TOKEN error when the flow completed
 * with other answers. Store failures: `STORE`.
 */
export declare function checkOnce<T = any>(
  store: OnceStore,
  call: Call,
  options?: { nowMs?: number },
): Promise<T | null>;
