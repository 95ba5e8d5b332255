'use strict';
// snodo-mrtr/once: at most once per flow for the final round of an
// effectful tool (docs/once.md). `runOnce` and `checkOnce` drive the core's
// once machine (`OnceRun`, native): each step it hands out is a store
// command to run and feed back, a pause, or the effect, and every rule
// (owners, fences, leases, replays, waiting) is the core's. Stores only run
// commands: the native `MemoryStore` in process, `RedisStore` on node-redis
// (a command's Lua script byte for byte, on its key), so a Node process
// shares one record per flow with Rust, Python and C processes of a fleet.
// The same RedisStore runs the task machine's commands (snodo-mrtr/tasks):
// a TaskCommand has the same op, key, script and args.
//
// It imports nothing from `redis`: the caller hands in a connected client,
// so the package loads without its optional peer.

const { createHash } = require('node:crypto');
const native = require('./index.js');

const { Call, MemoryStore, OnceRun, canonicalize, checkOncePrefix, checkOnceEvictionPolicy } = native;
const { DEFAULT_ONCE_PREFIX, DEFAULT_ONCE_LEASE_SECS } = native;

/** The default bound of every Redis command, in milliseconds (the core's). */
const DEFAULT_REDIS_TIMEOUT_MS = 2000;

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

const messageOf = (e) => (e instanceof Error ? e.message : String(e));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const isCount = (v, min) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= Number.MAX_SAFE_INTEGER;

const sha1s = new Map();
/** The SHA-1 of a script, as EVALSHA names it (computed once per script text: once and task scripts). */
function sha1(script) {
  let sha = sha1s.get(script);
  if (sha === undefined) {
    sha = createHash('sha1').update(script, 'utf8').digest('hex');
    sha1s.set(script, sha);
  }
  return sha;
}

/** A Redis reply as text (a client with a Buffer type mapping gives Buffers). */
function replyText(what, v) {
  if (typeof v === 'string') return v;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  throw storeError(`redis ${what} answered ${v === null ? 'nil' : typeof v}, not text`);
}

/** `maxmemory-policy` out of a CONFIG GET reply (RESP2 array, RESP3 map or object). */
function policyOf(reply) {
  const text = (v) => (Buffer.isBuffer(v) ? v.toString('utf8') : v);
  let value;
  if (Array.isArray(reply)) {
    const at = reply.findIndex((v) => text(v) === 'maxmemory-policy');
    if (at >= 0) value = reply[at + 1];
  } else if (reply instanceof Map) {
    value = reply.get('maxmemory-policy');
  } else if (reply !== null && typeof reply === 'object') {
    value = reply['maxmemory-policy'];
  }
  value = text(value);
  if (typeof value !== 'string') throw storeError('redis did not report its maxmemory-policy');
  return value;
}

/** A node-redis cluster client (`createCluster`) rather than a single one. */
const isCluster = (client) => typeof client.nodeClient === 'function' && 'masters' in client;

/**
 * The Redis store of a fleet, on a connected node-redis client: one Redis
 * (`createClient`) or a Redis Cluster (`createCluster`). Every process of
 * the fleet uses the same Redis and the same prefix. See once.d.ts.
 */
class RedisStore {
  #client;
  #cluster;
  #prefix;
  #leaseMs;
  #timeoutMs;
  #replicas;
  #replicasTimeoutMs;
  #allowEvicting;
  #checked = false;
  #checking = null;

  constructor(options) {
    if (options === null || typeof options !== 'object') {
      throw codedError('CONFIG', 'RedisStore: expected { client, prefix?, leaseSecs?, timeoutMs?, replicas?, replicasTimeoutMs?, allowEvictingPolicy? }');
    }
    const { client, prefix = DEFAULT_ONCE_PREFIX, leaseSecs = DEFAULT_ONCE_LEASE_SECS } = options;
    const { timeoutMs = DEFAULT_REDIS_TIMEOUT_MS, replicas = null, allowEvictingPolicy = false } = options;
    if (client === null || typeof client !== 'object' || typeof client.sendCommand !== 'function') {
      throw codedError('CONFIG', 'RedisStore: client must be a connected node-redis client (createClient() or createCluster() of the "redis" package)');
    }
    if (typeof prefix !== 'string') throw codedError('CONFIG', 'RedisStore: prefix must be a string');
    checkOncePrefix(prefix);
    if (typeof leaseSecs !== 'number' || !Number.isFinite(leaseSecs) || Math.round(leaseSecs * 1000) < 1) {
      throw codedError('CONFIG', 'RedisStore: leaseSecs must be a number of seconds, at least 0.001');
    }
    if (!isCount(timeoutMs, 1)) {
      throw codedError('CONFIG', 'RedisStore: timeoutMs must be a whole number of milliseconds, at least 1');
    }
    if (typeof allowEvictingPolicy !== 'boolean') {
      throw codedError('CONFIG', 'RedisStore: allowEvictingPolicy must be a boolean');
    }
    this.#cluster = isCluster(client);
    if (replicas !== null) {
      if (this.#cluster) {
        throw codedError('CONFIG', 'RedisStore: waiting for replicas is offered on a single Redis endpoint, not on a cluster');
      }
      const { replicasTimeoutMs = timeoutMs } = options;
      if (!isCount(replicas, 1) || !isCount(replicasTimeoutMs, 1)) {
        throw codedError('CONFIG', 'RedisStore: replicas and replicasTimeoutMs must be whole numbers, at least 1');
      }
      if (typeof client.multi !== 'function') {
        throw codedError('CONFIG', 'RedisStore: waiting for replicas needs a client with multi() (node-redis)');
      }
      this.#replicas = replicas;
      this.#replicasTimeoutMs = replicasTimeoutMs;
    }
    this.#client = client;
    this.#prefix = prefix;
    this.#leaseMs = Math.round(leaseSecs * 1000);
    this.#timeoutMs = timeoutMs;
    this.#allowEvicting = allowEvictingPolicy;
  }

  /** The key prefix in use. */
  get prefix() {
    return this.#prefix;
  }

  /** The lease of a won claim, in milliseconds. */
  get leaseMs() {
    return this.#leaseMs;
  }

  /**
   * One request to Redis, bounded by the timeout. A client that is not
   * ready (never connected, or reconnecting after Redis went away) fails at
   * once instead of queueing the command for later: a late claim could
   * land after the caller was told it failed.
   */
  async #send(what, request, timeoutMs = this.#timeoutMs) {
    if (this.#client.isReady === false) {
      throw storeError(`redis ${what} failed: the client is not connected (is Redis reachable? was client.connect() awaited?)`);
    }
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(storeError(`redis ${what} timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([request(), timeout]);
    } catch (e) {
      if (e instanceof Error && e.code === 'STORE') throw e;
      throw storeError(`redis ${what} failed: ${messageOf(e)}`, e);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One command on the single Redis, or on the master of `key`'s slot. */
  #command(what, key, args) {
    const client = this.#client;
    return this.#send(what, () => (this.#cluster ? client.sendCommand(key, false, args) : client.sendCommand(args)));
  }

  /**
   * Runs `command` (from a OnceRun or a TaskStep) and resolves with its reply text:
   * EVALSHA of its script on its key (EVAL when Redis does not have the
   * script yet); with `replicas`, EVAL and WAIT pipelined on one connection.
   */
  async execute(command) {
    if (command === null || typeof command !== 'object' || typeof command.key !== 'string'
        || typeof command.script !== 'string' || !Array.isArray(command.args)) {
      throw codedError('ARGUMENT', 'RedisStore.execute: command must be a command a OnceRun or a TaskStep handed out');
    }
    await this.#ensureChecked();
    const { op, key, script, args } = command;
    const what = typeof op === 'string' ? op : 'script';
    if (this.#replicas !== undefined) return this.#executeWaiting(what, command);
    let reply;
    try {
      reply = await this.#command(what, key, ['EVALSHA', sha1(script), '1', key, ...args]);
    } catch (e) {
      if (!messageOf(e.cause).startsWith('NOSCRIPT')) throw e;
      reply = await this.#command(what, key, ['EVAL', script, '1', key, ...args]);
    }
    return replyText(what, reply);
  }

  // EVAL (not EVALSHA: a NOSCRIPT inside a pipeline cannot be retried
  // there) and WAIT on one connection, in one pipeline (not a
  // transaction): WAIT counts the acknowledgements of this connection's
  // writes.
  async #executeWaiting(what, { key, script, args }) {
    const [replicas, waitMs] = [this.#replicas, this.#replicasTimeoutMs];
    const replies = await this.#send(what, () => this.#client.multi()
      .addCommand(['EVAL', script, '1', key, ...args])
      .addCommand(['WAIT', String(replicas), String(waitMs)])
      .execAsPipeline(), this.#timeoutMs + waitMs);
    const [reply, acked] = Array.isArray(replies) ? replies : [];
    if (typeof acked !== 'number' || acked < replicas) {
      throw storeError(`${what} reached ${typeof acked === 'number' ? acked : 0} of ${replicas} replicas within ${waitMs} ms: not confirmed`);
    }
    return replyText(what, reply);
  }

  async #readPolicies() {
    const get = ['CONFIG', 'GET', 'maxmemory-policy'];
    if (!this.#cluster) return [policyOf(await this.#command('CONFIG GET', undefined, get))];
    const masters = this.#client.masters;
    if (!Array.isArray(masters) || masters.length === 0) {
      throw storeError('redis cluster has no masters known to the client (was cluster.connect() awaited?)');
    }
    return Promise.all(masters.map(async (master) => {
      const node = await this.#send('connect', () => this.#client.nodeClient(master));
      return policyOf(await this.#send('CONFIG GET', () => node.sendCommand(get)));
    }));
  }

  /**
   * Reads `maxmemory-policy` now (every master of a cluster) and resolves
   * with it; an evicting or unreadable policy rejects with `STORE` unless
   * `allowEvictingPolicy` was set (then a process warning). Runs by itself
   * before the first command; call it at start-up to fail early.
   */
  async check() {
    let policies;
    try {
      policies = await this.#readPolicies();
      for (const policy of policies) checkOnceEvictionPolicy(policy);
    } catch (e) {
      if (!this.#allowEvicting) throw e;
      process.emitWarning(`${messageOf(e)} (allowed by allowEvictingPolicy)`, { code: 'SNODO_ONCE_EVICTING_POLICY' });
    }
    this.#checked = true;
    return policies ?? [];
  }

  /** `check()` once per store; a failed one leaves it to the next command. */
  async #ensureChecked() {
    if (this.#checked) return;
    this.#checking ??= this.check().finally(() => {
      this.#checking = null;
    });
    await this.#checking;
  }

  toJSON() {
    return `RedisStore(${this.#prefix})`;
  }
}

/** A store's reply to `command`; anything but a coded error a store throws is STORE. */
async function execute(store, command, nowMs) {
  let reply;
  try {
    reply = await store.execute(command, nowMs);
  } catch (e) {
    if (e instanceof Error && CODES.has(e.code)) throw e;
    throw storeError(`${command.op} failed: ${messageOf(e)}`, e);
  }
  if (typeof reply !== 'string') throw storeError(`${command.op} answered ${typeof reply}, not the reply text`);
  return reply;
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

/** A final result text, parsed back. */
function parsed(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw storeError('the remembered result is not JSON', e);
  }
}

function checkStore(who, store) {
  if (store === null || typeof store !== 'object' || typeof store.execute !== 'function'
      || typeof store.prefix !== 'string' || typeof store.leaseMs !== 'number') {
    throw codedError('ARGUMENT', `${who}: store must be a MemoryStore, a RedisStore or another once store ({ prefix, leaseMs, execute })`);
  }
}

function checkCall(who, call) {
  if (!(call instanceof Call)) throw codedError('ARGUMENT', `${who}: call must be a Call (engine.begin)`);
}

/** `nowMs` of the options: undefined (the store's clock) or Unix milliseconds. */
function nowOption(who, options) {
  if (options === null || typeof options !== 'object') throw codedError('ARGUMENT', `${who}: options must be an object`);
  const { nowMs } = options;
  if (nowMs !== undefined && nowMs !== null && !isCount(nowMs, 0)) {
    throw codedError('ARGUMENT', `${who}: nowMs must be Unix milliseconds (a whole, non-negative number)`);
  }
  return nowMs ?? undefined;
}

/**
 * Runs `effect` at most once for the flow of `call` (its final round, a
 * retry) and resolves with its result: this run's own if it won the claim,
 * the remembered one if the flow completed with the same answers. See
 * once.d.ts and docs/once.md.
 */
async function runOnce(store, call, effect, options = {}) {
  checkStore('runOnce', store);
  if (typeof effect !== 'function') throw codedError('ARGUMENT', 'runOnce: effect must be a function');
  const nowMs = nowOption('runOnce', options);
  const { wait } = options;
  if (wait !== undefined && (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0)) {
    throw codedError('ARGUMENT', 'runOnce: wait must be a number of seconds (>= 0)');
  }
  checkCall('runOnce', call);
  const run = new OnceRun(call, {
    prefix: store.prefix,
    leaseMs: store.leaseMs,
    ...(wait === undefined ? {} : { waitMs: Math.round(wait * 1000) }),
  });
  // A given clock moves on with the time waited here.
  const started = Date.now();
  const clock = () => (nowMs === undefined ? undefined : nowMs + (Date.now() - started));
  let failed = null; // { error }: the effect threw, its claim is being released
  let step = run.start();
  for (;;) {
    switch (step.kind) {
      case 'command':
        if (failed === null) {
          step = run.feed(await execute(store, step.command, clock()));
          break;
        }
        try {
          step = run.feed(await execute(store, step.command, clock()));
        } catch (e) {
          // The release did not happen: the claim stays pending until its
          // lease lapses. The store's error, chained to the effect's.
          throw codedError(e.code ?? 'STORE', messageOf(e), failed.error);
        }
        break;
      case 'sleep':
        await sleep(step.ms);
        step = run.resume();
        break;
      case 'effect': {
        const extendCommand = step.extend;
        const lease = Object.freeze({
          fence: step.fence,
          extend: async () => run.extended(await execute(store, extendCommand, clock())),
        });
        let result;
        try {
          result = await effect(lease);
        } catch (e) {
          // The documented contract: an effect throws only before it did
          // anything. Its claim is released, so the retry of this final
          // round runs it.
          failed = { error: e };
          step = run.effectFailed();
          break;
        }
        // Not JSON: the effect ran, so nothing is fed and the claim stays
        // pending until its lease lapses, rather than released for a rerun.
        step = run.effectDone(resultText(result));
        break;
      }
      case 'done':
        return parsed(step.text);
      case 'released':
        throw failed.error;
      default:
        throw storeError(`once run: unexpected step ${step.kind}`);
    }
  }
}

/**
 * Looks before asking: on a retry of an effectful tool, resolves with the
 * result remembered for these answers, `null` when nothing is remembered
 * for the flow yet, and rejects with the `replayed` TOKEN error when the
 * flow completed with other answers.
 */
async function checkOnce(store, call, options = {}) {
  checkStore('checkOnce', store);
  const nowMs = nowOption('checkOnce', options);
  checkCall('checkOnce', call);
  const run = new OnceRun(call, { prefix: store.prefix, leaseMs: store.leaseMs, lookup: true });
  const { command } = run.start();
  const step = run.feed(await execute(store, command, nowMs));
  return step.kind === 'done' ? parsed(step.text) : null;
}

module.exports = { runOnce, checkOnce, RedisStore, MemoryStore, OnceRun, DEFAULT_REDIS_TIMEOUT_MS };
