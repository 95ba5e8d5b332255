'use strict';
// snodo-mrtr/once: at most once for the final round of an effectful flow
// (issue 17). `runOnce` is the core's run_once loop in JavaScript (the
// effect and the Redis client are async JS, which a native loop could not
// await); `RedisStore` runs the core's Lua scripts byte for byte on a
// node-redis client. Keys are spelled by the addon (`onceTokenKey`,
// `onceResultKey`), so a Node process shares keys and values with Rust,
// Python and C processes of the same fleet.
//
// It imports nothing from `redis`: the caller hands in a connected client,
// so the package loads without its optional peer.

const { createHash } = require('node:crypto');
const native = require('./index.js');

const {
  MemoryStore,
  canonicalize,
  onceTokenKey,
  onceResultKey,
  DEFAULT_ONCE_PREFIX,
  DEFAULT_ONCE_LEASE_SECS,
  DEFAULT_CLOCK_SKEW_SECS,
  ONCE_CLAIM_SCRIPT,
  ONCE_COMPLETE_SCRIPT,
  ONCE_RELEASE_SCRIPT,
  ONCE_CONSUMED,
  ONCE_PENDING,
  ONCE_DONE_PREFIX,
  ONCE_WON,
  ONCE_REPLAYED_MESSAGE,
} = native;

/** The default bound of every Redis command, in milliseconds (the core's). */
const DEFAULT_REDIS_TIMEOUT_MS = 2000;

// The core's polling of a pending claim: 5 ms doubling up to 250 ms.
const POLL_INITIAL_MS = 5;
const POLL_MAX_MS = 250;
const DEFAULT_WAIT_SECS = 35;

const CODES = new Set(native.ERROR_CODES.map((c) => c.name));

function codedError(code, message, cause) {
  const e = new Error(message, cause === undefined ? undefined : { cause });
  e.code = code;
  return e;
}

/** A STORE error: the effect must not run (fail closed). */
function storeError(message, cause) {
  return codedError('STORE', `once store: ${message}`, cause);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const clockSecs = () => Math.floor(Date.now() / 1000);

function secondsArg(what, v) {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw codedError('ARGUMENT', `once store: ${what} must be Unix seconds (a non-negative number)`);
  }
  return Math.floor(v);
}

/** Milliseconds an entry is kept, as the core's `ttl_secs`: at least 1 s. */
function ttlMs(expiresAt, now) {
  const exp = secondsArg('expiresAt', expiresAt);
  const at = now === undefined || now === null ? clockSecs() : secondsArg('now', now);
  return Math.max(exp - at, 1) * 1000;
}

/** A Redis reply as text (a client with a Buffer type mapping gives Buffers). */
function replyText(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return String(v);
}

const sha1 = (text) => createHash('sha1').update(text, 'utf8').digest('hex');
const SCRIPTS = {
  claim: { text: ONCE_CLAIM_SCRIPT, sha: sha1(ONCE_CLAIM_SCRIPT) },
  complete: { text: ONCE_COMPLETE_SCRIPT, sha: sha1(ONCE_COMPLETE_SCRIPT) },
  release: { text: ONCE_RELEASE_SCRIPT, sha: sha1(ONCE_RELEASE_SCRIPT) },
};

/**
 * The Redis store of a fleet, on a connected node-redis client (`redis`
 * package, `createClient({ url })` then `await client.connect()`). Every
 * process of the fleet uses the same Redis and the same prefix.
 */
class RedisStore {
  #client;
  #prefix;
  #leaseMs;
  #timeoutMs;

  constructor(options) {
    if (options === null || typeof options !== 'object') {
      throw codedError('CONFIG', 'RedisStore: expected { client, prefix?, leaseSecs?, timeoutMs? }');
    }
    const { client, prefix = DEFAULT_ONCE_PREFIX, leaseSecs = DEFAULT_ONCE_LEASE_SECS } = options;
    const { timeoutMs = DEFAULT_REDIS_TIMEOUT_MS } = options;
    if (client === null || typeof client !== 'object' || typeof client.sendCommand !== 'function') {
      throw codedError('CONFIG', 'RedisStore: client must be a node-redis client (createClient() of the "redis" package)');
    }
    if (typeof prefix !== 'string') throw codedError('CONFIG', 'RedisStore: prefix must be a string');
    // The core checks the prefix (printable ASCII, at most 128 bytes).
    onceTokenKey(prefix, 'x');
    if (typeof leaseSecs !== 'number' || !Number.isFinite(leaseSecs) || Math.round(leaseSecs * 1000) < 1) {
      throw codedError('CONFIG', 'RedisStore: leaseSecs must be a number of seconds, at least 0.001');
    }
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 1) {
      throw codedError('CONFIG', 'RedisStore: timeoutMs must be a number of milliseconds, at least 1');
    }
    this.#client = client;
    this.#prefix = prefix;
    this.#leaseMs = Math.round(leaseSecs * 1000);
    this.#timeoutMs = timeoutMs;
  }

  /** The key prefix in use. */
  get prefix() {
    return this.#prefix;
  }

  /**
   * One command, bounded by the timeout. A client that is not ready
   * (never connected, or reconnecting after Redis went away) fails at once
   * instead of queueing the command for later: a late SET could claim or
   * consume after the caller was told it failed.
   */
  async #send(what, args) {
    const client = this.#client;
    if (client.isReady === false) {
      throw storeError(`redis ${what} failed: the client is not connected (is Redis reachable? was client.connect() awaited?)`);
    }
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(storeError(`redis ${what} timed out after ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
    });
    try {
      return await Promise.race([client.sendCommand(args), timeout]);
    } catch (e) {
      if (e instanceof Error && e.code === 'STORE') throw e;
      throw storeError(`redis ${what} failed: ${e instanceof Error ? e.message : String(e)}`, e);
    } finally {
      clearTimeout(timer);
    }
  }

  /** EVALSHA, and EVAL when Redis does not have the script yet. */
  async #script(name, keys, args) {
    const { text, sha } = SCRIPTS[name];
    const rest = [String(keys.length), ...keys, ...args];
    try {
      return await this.#send(name, ['EVALSHA', sha, ...rest]);
    } catch (e) {
      const cause = e.cause instanceof Error ? e.cause.message : '';
      if (!cause.startsWith('NOSCRIPT')) throw e;
      return this.#send(name, ['EVAL', text, ...rest]);
    }
  }

  /** `true` the first time `tokenId` is seen, `false` until `expiresAt`. */
  async consume(tokenId, expiresAt, now) {
    const key = onceTokenKey(this.#prefix, tokenId);
    const ttl = ttlMs(expiresAt, now);
    // SET NX answers OK when it set the key and nil when it existed.
    const reply = await this.#send('consume', ['SET', key, ONCE_CONSUMED, 'NX', 'PX', String(ttl)]);
    return replyText(reply) !== null;
  }

  /** Claims the final round (`flowId`, `digest`): `{ status, text? }`. */
  async claim(flowId, digest, expiresAt, now) {
    const key = onceResultKey(this.#prefix, flowId, digest);
    ttlMs(expiresAt, now); // checked as the memory store checks it
    const value = replyText(await this.#script('claim', [key], [String(this.#leaseMs)]));
    if (value === ONCE_WON) return { status: 'won' };
    // nil cannot come out of the atomic script; treated as "ask again".
    if (value === ONCE_PENDING || value === null) return { status: 'pending' };
    if (value.startsWith(ONCE_DONE_PREFIX)) return { status: 'done', text: value.slice(ONCE_DONE_PREFIX.length) };
    throw storeError(
      'a result key holds a value snodo does not write (is the prefix shared with another application?)',
    );
  }

  /** Remembers the result text of a won claim (the first completion stays). */
  async complete(flowId, digest, text, expiresAt, now) {
    const key = onceResultKey(this.#prefix, flowId, digest);
    if (typeof text !== 'string') throw codedError('ARGUMENT', 'once store: the result text must be a string');
    const ttl = ttlMs(expiresAt, now);
    await this.#script('complete', [key], [text, String(ttl)]);
  }

  /**
   * Drops a won claim whose effect did nothing (a completed one stays);
   * with `tokenId` (the token id the failed attempt consumed), gives it
   * back in the same script, only while the claim is still pending.
   */
  async release(flowId, digest, tokenId) {
    const keys = [onceResultKey(this.#prefix, flowId, digest)];
    if (tokenId !== undefined && tokenId !== null) keys.push(onceTokenKey(this.#prefix, tokenId));
    await this.#script('release', keys, []);
  }

  toJSON() {
    return `RedisStore(${this.#prefix})`;
  }
}

/** Store errors keep their code; anything else a store throws is STORE. */
async function storeStep(what, step) {
  try {
    return await step();
  } catch (e) {
    if (e instanceof Error && CODES.has(e.code)) throw e;
    throw storeError(`${what} failed: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

/** The canonical JSON text of an effect's result, or an ARGUMENT error. */
function resultText(result) {
  let json;
  try {
    json = JSON.stringify(result);
  } catch (e) {
    throw codedError('ARGUMENT', `runOnce: the effect's result is not JSON (${e.message})`, e);
  }
  if (json === undefined) {
    throw codedError('ARGUMENT', "runOnce: the effect's result is not JSON (it returned undefined or a function)");
  }
  return canonicalize(json);
}

/**
 * Runs `effect` at most once for the final round of `call` (a retry) and
 * resolves with its result: the fresh one if this caller won the claim,
 * the remembered one otherwise. See once.d.ts and docs/once.md.
 */
async function runOnce(store, call, effect, options = {}) {
  if (store === null || typeof store !== 'object' || typeof store.claim !== 'function') {
    throw codedError('ARGUMENT', 'runOnce: store must be a MemoryStore, a RedisStore or another once store');
  }
  if (typeof effect !== 'function') throw codedError('ARGUMENT', 'runOnce: effect must be a function');
  if (options === null || typeof options !== 'object') {
    throw codedError('ARGUMENT', 'runOnce: options must be an object { wait?, expiresAt?, now? }');
  }
  const flowId = call?.flowId;
  const tokenId = call?.tokenId;
  const tokenExpiresAt = call?.tokenExpiresAt;
  if (typeof flowId !== 'string' || typeof tokenId !== 'string' || typeof tokenExpiresAt !== 'number') {
    throw codedError(
      'ARGUMENT',
      'runOnce: the call is not a retry (no requestState was opened): an effect belongs to the final round of a flow, which has a flow id to key on',
    );
  }
  const digest = call.answersDigest;
  const { wait = DEFAULT_WAIT_SECS, now } = options;
  const expiresAt = options.expiresAt ?? tokenExpiresAt + DEFAULT_CLOCK_SKEW_SECS;
  secondsArg('expiresAt', expiresAt);
  if (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0) {
    throw codedError('ARGUMENT', 'runOnce: wait must be a number of seconds (>= 0)');
  }
  if (now !== undefined) secondsArg('now', now);
  const started = Date.now();
  // The caller's clock advanced by the time waited, as in the core.
  const nowHere = () => (now === undefined ? undefined : now + Math.floor((Date.now() - started) / 1000));
  let pause = POLL_INITIAL_MS;
  for (;;) {
    const claim = await storeStep('claim', () => store.claim(flowId, digest, expiresAt, nowHere()));
    const status = claim?.status;
    if (status === 'done') {
      if (typeof claim.text !== 'string') throw storeError('claim answered done without a result text');
      try {
        return JSON.parse(claim.text);
      } catch (e) {
        throw storeError('the remembered result is not JSON', e);
      }
    }
    if (status === 'won') {
      let first;
      try {
        first = await storeStep('consume', () => store.consume(tokenId, expiresAt, nowHere()));
      } catch (e) {
        // Nothing happened yet: let another caller try.
        await Promise.resolve()
          .then(() => store.release(flowId, digest))
          .catch(() => {});
        throw e;
      }
      if (!first) {
        await storeStep('release', () => store.release(flowId, digest));
        const e = codedError('TOKEN', ONCE_REPLAYED_MESSAGE);
        e.reason = 'replayed';
        throw e;
      }
      let result;
      try {
        result = await effect();
      } catch (e) {
        // Documented contract: an effect throws only before it did
        // anything (or is idempotent itself). Release the claim and give
        // back the token id this attempt consumed, in one step, so the
        // client's retry of the same final round runs the effect instead of
        // getting the replay error. If that release fails, its STORE error
        // is thrown (cause: the effect's error) and the token stays
        // consumed: fail closed.
        try {
          await storeStep('release', () => store.release(flowId, digest, tokenId));
        } catch (releaseError) {
          releaseError.effectError = e;
          throw releaseError;
        }
        throw e;
      }
      // Not JSON: the effect ran, so the claim stays pending (no release)
      // until its lease lapses rather than letting a retry run it again.
      const text = resultText(result);
      await storeStep('complete', () => store.complete(flowId, digest, text, expiresAt, nowHere()));
      return JSON.parse(text);
    }
    if (status !== 'pending') throw storeError(`claim answered ${JSON.stringify(status)}, not won/done/pending`);
    const waited = Date.now() - started;
    if (waited >= wait * 1000) {
      throw storeError(
        `the result is still pending after ${waited} ms (another caller is running the effect); retry later`,
      );
    }
    await sleep(Math.min(pause, wait * 1000 - waited));
    pause = Math.min(pause * 2, POLL_MAX_MS);
  }
}

module.exports = { runOnce, RedisStore, MemoryStore, DEFAULT_REDIS_TIMEOUT_MS };
