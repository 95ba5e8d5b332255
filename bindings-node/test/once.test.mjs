// At most once per flow without Redis: the call's ids and digest, the
// native OnceRun and MemoryStore, and runOnce / checkOnce on it (the
// RedisStore is in once_redis.test.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import * as snodo from '../index.js';
import * as once from '../once.mjs';
import { runOnce, checkOnce, MemoryStore, OnceRun } from '../once.mjs';
import {
  engine, finalRound, request, accept, digestOf, digestText, code, pause, replayed, sharedScenarios,
} from './once_helpers.mjs';

const ID = /^[A-Za-z0-9_-]{22}$/;
const DIGEST = /^[A-Za-z0-9_-]{43}$/;

test('call ids: one flow id across rounds, a new token id each round, the token expiry', () => {
  const e = engine({ ttlSecs: 600 });
  const { first, second, final } = finalRound(e);
  assert.equal(first.flowId, null);
  assert.equal(first.tokenId, null);
  assert.equal(first.tokenExpiresAt, null);
  const third = final();
  assert.match(second.flowId, ID);
  assert.match(second.tokenId, ID);
  assert.equal(third.flowId, second.flowId, 'the flow id stays the same across rounds');
  assert.notEqual(third.tokenId, second.tokenId, 'each round opens a new token');
  assert.equal(final().tokenId, third.tokenId);
  const now = Math.floor(Date.now() / 1000);
  assert.ok(Math.abs(third.tokenExpiresAt - (now + 600)) <= 2, `${third.tokenExpiresAt} vs ${now + 600}`);
  assert.notEqual(finalRound(e).final().flowId, third.flowId);
});

test('answersDigest = base64url(sha256(canonical inputResponses)), whatever the spelling', () => {
  const e = engine();
  const { first, t2, final } = finalRound(e);
  assert.equal(first.answersDigest, digestOf({}), 'no inputResponses reads as {}');
  const third = final(2);
  assert.match(third.answersDigest, DIGEST);
  assert.equal(third.answersDigest, digestOf({ seats: { action: 'accept', content: { seats: 2 } } }));
  assert.notEqual(final(3).answersDigest, third.answersDigest, 'other answers, another digest');
  const respell = (answers) => {
    const text = JSON.stringify(request(9, { requestState: t2 })).replace('"_meta"', `"inputResponses": ${answers}, "_meta"`);
    const call = e.begin(text, 'alice');
    assert.ok(call instanceof snodo.Call, call.json);
    return call.answersDigest;
  };
  assert.equal(respell('{ "seats" : {"content":{"seats":2},   "action":"accept"} }'), third.answersDigest);
  const spelled = '{"seats":{"content":{"seats":2.0},"action":"accept"}}';
  assert.equal(respell(spelled), digestText(snodo.canonicalize(spelled)));
});

test('the constants and scripts are the core\'s, in both entries; the old API is gone', () => {
  assert.equal(snodo.DEFAULT_ONCE_PREFIX, 'snodo:once:');
  assert.equal(snodo.DEFAULT_ONCE_LEASE_SECS, 30);
  assert.equal(snodo.DEFAULT_ONCE_MAX_BYTES, 64 << 20);
  assert.equal(snodo.DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL, 16 << 20);
  assert.equal(snodo.DEFAULT_CLOCK_SKEW_SECS, 60);
  assert.equal(snodo.ONCE_SAFE_EVICTION_POLICY, 'noeviction');
  assert.equal(snodo.ONCE_REPLAYED_MESSAGE, 'once store: this flow already completed with other answers (replayed)');
  for (const name of ['CLAIM', 'COMPLETE', 'RELEASE', 'EXTEND', 'LOOKUP']) {
    assert.match(snodo[`ONCE_${name}_SCRIPT`], /KEYS\[1\]/, name);
  }
  assert.ok(snodo.ONCE_CLAIM_SCRIPT.startsWith("redis.replicate_commands()\nlocal t = redis.call('TIME')\n"));
  assert.ok(snodo.ONCE_LOOKUP_SCRIPT.endsWith("return 'foreign'\n"));
  for (const gone of ['onceTokenKey', 'onceResultKey', 'ONCE_WON', 'ONCE_PENDING', 'ONCE_DONE_PREFIX', 'ONCE_CONSUMED',
    'ONCE_TOKEN_KEY_PART', 'ONCE_RESULT_KEY_PART', 'DEFAULT_ONCE_MAX_ENTRIES']) {
    assert.equal(snodo[gone], undefined, gone);
  }
  assert.equal(snodo.checkOnceEvictionPolicy('noeviction'), undefined);
  for (const policy of ['allkeys-lru', 'volatile-lru', 'allkeys-lfu', 'volatile-ttl', 'allkeys-random', '']) {
    assert.throws(() => snodo.checkOnceEvictionPolicy(policy),
      (e) => e.code === 'STORE' && e.message.includes(JSON.stringify(policy)), policy);
  }
  assert.equal(snodo.checkOncePrefix('a:b:'), undefined);
  assert.equal(snodo.checkOncePrefix(''), undefined);
  for (const bad of ['a b', 'a{b', 'x}', 'é', 'x'.repeat(129)]) {
    assert.throws(() => snodo.checkOncePrefix(bad), (e) => e.code === 'CONFIG', bad);
  }
  assert.equal(once.MemoryStore, snodo.MemoryStore);
  assert.equal(once.OnceRun, snodo.OnceRun);
});

test('OnceRun by hand on a MemoryStore: the commands, the replies, the steps', () => {
  const e = engine();
  const { final, first } = finalRound(e);
  const store = new MemoryStore();
  assert.equal(store.prefix, 'snodo:once:');
  assert.equal(store.leaseMs, 30_000);
  assert.equal(store.size, 0);
  const call = final(2);
  const run = new OnceRun(call, { prefix: 'p:', leaseMs: 5000 });
  assert.ok(run instanceof OnceRun);
  assert.equal(run.constructor, OnceRun);
  assert.equal(run.fence, 0);
  const claim = run.start();
  assert.equal(claim.kind, 'command');
  assert.deepEqual(Object.keys(claim.command), ['op', 'key', 'script', 'args', 'owner']);
  assert.equal(claim.command.op, 'claim');
  assert.equal(claim.command.key, `p:flow:{${call.flowId}}`);
  assert.equal(claim.command.script, snodo.ONCE_CLAIM_SCRIPT);
  const [digest, owner, lease, keep] = claim.command.args;
  assert.equal(digest, call.answersDigest);
  assert.match(owner, ID);
  assert.equal(owner, claim.command.owner);
  assert.equal(lease, '5000');
  // Kept until the flow's last possible use, skew included (twice: the
  // engine's, then the store's clock).
  assert.ok(Number(keep) > call.tokenExpiresAt * 1000, keep);
  // The store runs the command the run handed out (the prefix is the run's).
  assert.equal(store.execute(claim.command), 'won 1');
  assert.equal(store.size, 1);
  assert.ok(store.bytes > 160);
  const effect = run.feed('won 1');
  assert.equal(effect.kind, 'effect');
  assert.equal(effect.fence, 1);
  assert.equal(run.fence, 1);
  assert.equal(effect.extend.op, 'extend');
  assert.equal(effect.extend.script, snodo.ONCE_EXTEND_SCRIPT);
  assert.deepEqual(effect.extend.args, [owner, '5000', keep]);
  assert.equal(run.extended('extended 1'), true);
  assert.equal(run.extended('lost'), false);
  assert.throws(() => run.extended('nonsense'), (x) => x.code === 'STORE');
  const complete = run.effectDone('{"ok":true}');
  assert.equal(complete.command.op, 'complete');
  assert.deepEqual(complete.command.args, [owner, '{"ok":true}', '5000', keep]);
  assert.deepEqual(run.feed('completed'), { kind: 'done', text: '{"ok":true}' });
  // Out of order: ARGUMENT; a first round has no flow: ARGUMENT.
  assert.throws(() => run.feed('completed'), (x) => x.code === 'ARGUMENT' && /out of order/.test(x.message));
  assert.throws(() => run.start(), (x) => x.code === 'ARGUMENT');
  assert.throws(() => new OnceRun(final(), { prefix: 'p:', leaseMs: 1 }).resume(), (x) => x.code === 'ARGUMENT');
  assert.throws(() => new OnceRun(final(), { prefix: 'p:', leaseMs: 1 }).extended('extended 1'), (x) => x.code === 'ARGUMENT');
  assert.throws(() => new OnceRun(first, { prefix: 'p:', leaseMs: 1 }), (x) => x.code === 'ARGUMENT' && /not a retry/.test(x.message));
  // Bad settings: CONFIG; a bad wait: ARGUMENT.
  for (const [options, want] of [
    [{ prefix: 'a b', leaseMs: 1 }, 'CONFIG'], [{ prefix: 'p:', leaseMs: 0 }, 'CONFIG'],
    [{ prefix: 'p:', leaseMs: 1.5 }, 'CONFIG'], [{ prefix: 'p:', leaseMs: 1, waitMs: -1 }, 'ARGUMENT'],
    [{ prefix: 'p:', leaseMs: 1, waitMs: NaN }, 'ARGUMENT'],
  ]) {
    assert.throws(() => new OnceRun(final(), options), (x) => x.code === want, JSON.stringify(options));
  }
  // A foreign reply: STORE.
  const odd = new OnceRun(final(), { prefix: 'p:', leaseMs: 1 });
  odd.start();
  assert.throws(() => odd.feed('foreign'), (x) => x.code === 'STORE' && /does not write/.test(x.message));
});

test('OnceRun takes either Call: the one begin gives and the class one beginParts gives', () => {
  const e = engine();
  const { t2 } = finalRound(e);
  const store = new MemoryStore();
  const params = { ...request(7, { requestState: t2, inputResponses: { seats: accept({ seats: 2 }) } }).params };
  const parts = e.beginParts(7, 'tools/call', params, 'alice');
  const plain = e.begin(request(8, { requestState: t2, inputResponses: { seats: accept({ seats: 2 }) } }), 'alice');
  assert.ok(parts instanceof snodo.Call && plain instanceof snodo.Call);
  const a = new OnceRun(parts, { prefix: store.prefix, leaseMs: store.leaseMs });
  const b = new OnceRun(plain, { prefix: store.prefix, leaseMs: store.leaseMs });
  const [ca, cb] = [a.start().command, b.start().command];
  assert.equal(ca.key, cb.key);
  assert.equal(ca.args[0], cb.args[0], 'the same answers digest');
  assert.equal(ca.args[3], cb.args[3], 'the same keep-until');
  assert.equal(store.execute(ca), 'won 1');
  assert.equal(store.execute(cb), 'pending 1');
  // A decided Call still keys its flow (the call is rebuilt).
  e.decide(plain, snodo.complete({ content: [] }));
  assert.equal(new OnceRun(plain, { prefix: store.prefix, leaseMs: 1 }).start().command.key, ca.key);
  for (const bad of [null, undefined, {}, 'call']) {
    assert.throws(() => new OnceRun(bad, { prefix: 'p:', leaseMs: 1 }), (x) => typeof x.code === 'string', String(bad));
  }
});

test('MemoryStore: options, the byte budget and a principal\'s share (STORE when full), bad commands', () => {
  const e = engine();
  for (const bad of [{ maxBytes: 100 }, { maxBytes: 1.5 }, { maxBytes: NaN }, { maxBytesPerPrincipal: 10 },
    { maxBytes: 2048, maxBytesPerPrincipal: 4096 }, { leaseSecs: 0 }, { leaseSecs: -1 }, { leaseSecs: Infinity }]) {
    assert.throws(() => new MemoryStore(bad), (x) => x.code === 'CONFIG', JSON.stringify(bad));
  }
  assert.equal(new MemoryStore({ leaseSecs: 0.25 }).leaseMs, 250);
  const small = new MemoryStore({ maxBytes: 1024, maxBytesPerPrincipal: 1024 });
  const claim = () => {
    const run = new OnceRun(finalRound(e).final(), { prefix: small.prefix, leaseMs: small.leaseMs });
    return small.execute(run.start().command);
  };
  const replies = [];
  for (let i = 0; i < 10; i++) {
    try {
      replies.push(claim());
    } catch (x) {
      replies.push(x.code);
      assert.match(x.message, /full/);
    }
  }
  assert.ok(replies.includes('won 1') && replies.includes('STORE'), replies.join());
  assert.ok(small.bytes <= 1024, `${small.bytes}`);
  const run = new OnceRun(finalRound(e).final(), { prefix: 'p:', leaseMs: 1 });
  const { command } = run.start();
  for (const bad of [{ ...command }, 'x', null, 1, run, snodo.Engine]) {
    assert.throws(() => small.execute(bad), (x) => x.code === 'ARGUMENT' && /OnceRun/.test(x.message));
  }
  assert.throws(() => small.execute(command, -1), (x) => x.code === 'ARGUMENT');
  assert.equal(JSON.stringify(small), '"MemoryStore"');
});

const memory = new MemoryStore();
for (const [name, scenario] of sharedScenarios((leaseSecs) => {
  const s = leaseSecs === undefined ? memory : new MemoryStore({ leaseSecs });
  return async () => s;
})) {
  test(`memory: ${name}`, () => scenario(assert));
}

test('runOnce: sync and async effects, canonical results, the lease handed to the effect', async () => {
  const e = engine();
  const store = new MemoryStore();
  const { final } = finalRound(e);
  let lease;
  assert.deepEqual(await runOnce(store, final(), (l) => {
    lease = l;
    return { b: [1, { d: null, c: 'x' }], a: 2.5 };
  }), { a: 2.5, b: [1, { c: 'x', d: null }] });
  assert.equal(lease.fence, 1);
  assert.ok(Object.isFrozen(lease));
  assert.equal(await lease.extend(), false, 'after completing, the claim is no longer pending');
  assert.deepEqual(await runOnce(store, finalRound(e).final(), async () => 'text'), 'text');
});

test('runOnce: a pending claim is awaited, then the winner\'s result; past the wait, STORE "still running"', async () => {
  const e = engine();
  const store = new MemoryStore();
  const { final } = finalRound(e);
  let release;
  const gate = new Promise((r) => (release = r));
  const winner = runOnce(store, final(), async () => {
    await gate;
    return { seat: 'A1' };
  });
  await pause(10);
  let ran = false;
  const [c, m] = await code(runOnce(store, final(), () => (ran = true), { wait: 0.05 }));
  assert.equal(c, 'STORE');
  assert.match(m, /still running/);
  const loser = runOnce(store, final(), () => (ran = true) && { seat: 'B2' }, { wait: 5 });
  setTimeout(release, 100);
  assert.deepEqual(await loser, { seat: 'A1' });
  assert.deepEqual(await winner, { seat: 'A1' });
  assert.equal(ran, false);
});

test('runOnce with a fixed engine clock: nowMs drives the store\'s clock, and a lease lapses by it', async () => {
  const NOW = 1_780_000_000;
  const e = engine({ fixedTime: NOW });
  const store = new MemoryStore({ leaseSecs: 10 });
  const { final } = finalRound(e);
  const nowMs = e.now() * 1000;
  // A claim won at NOW whose owner never came back.
  const run = new OnceRun(final(), { prefix: store.prefix, leaseMs: store.leaseMs });
  assert.equal(store.execute(run.start().command, nowMs), 'won 1');
  let ran = 0;
  assert.equal((await code(runOnce(store, final(), () => ++ran, { nowMs, wait: 0 })))[0], 'STORE');
  // Ten seconds later by that clock: taken over, fence 2.
  assert.deepEqual(await runOnce(store, final(), (l) => ({ fence: l.fence }), { nowMs: nowMs + 10_000 }), { fence: 2 });
  assert.equal(ran, 0);
  assert.deepEqual(await checkOnce(store, final(), { nowMs: nowMs + 20_000 }), { fence: 2 });
  for (const bad of [-1, 1.5, 'now', NaN]) {
    assert.equal((await code(runOnce(store, final(), () => 1, { nowMs: bad })))[0], 'ARGUMENT');
    assert.equal((await code(checkOnce(store, final(), { nowMs: bad })))[0], 'ARGUMENT');
  }
});

test('runOnce: bad arguments are ARGUMENT; a result that is not JSON leaves the claim pending', async () => {
  const e = engine();
  const store = new MemoryStore();
  const f = finalRound(e).final;
  assert.equal((await code(runOnce(null, f(), () => 1)))[0], 'ARGUMENT');
  assert.equal((await code(runOnce({ execute() {} }, f(), () => 1)))[0], 'ARGUMENT');
  assert.equal((await code(runOnce(store, f(), 'not a function')))[0], 'ARGUMENT');
  assert.equal((await code(runOnce(store, f(), () => 1, { wait: -1 })))[0], 'ARGUMENT');
  assert.equal((await code(runOnce(store, f(), () => 1, null)))[0], 'ARGUMENT');
  assert.equal((await code(runOnce(store, null, () => 1)))[0], 'ARGUMENT');
  assert.equal((await code(runOnce(store, { flowId: 'x' }, () => 1)))[0], 'ARGUMENT');
  assert.equal((await code(checkOnce(store, null)))[0], 'ARGUMENT');
  assert.equal((await code(checkOnce(null, f())))[0], 'ARGUMENT');
  const [c, m] = await code(runOnce(store, finalRound(e).first, () => 1));
  assert.equal(c, 'ARGUMENT');
  assert.match(m, /not a retry/);
  const g = finalRound(e).final;
  assert.equal((await code(runOnce(store, g(), () => undefined)))[0], 'ARGUMENT');
  let ran = false;
  const pending = await code(runOnce(store, g(), () => (ran = true), { wait: 0.05 }));
  assert.equal(pending[0], 'STORE');
  assert.match(pending[1], /still running/);
  assert.equal(ran, false);
});

test('a failed release after a failed effect: STORE with the effect\'s error as its cause', async () => {
  const e = engine();
  const { final } = finalRound(e);
  const mem = new MemoryStore();
  const ops = [];
  const noRelease = {
    prefix: mem.prefix,
    leaseMs: mem.leaseMs,
    execute(command) {
      ops.push(command.op);
      if (command.op === 'release') throw new Error('connection reset');
      return mem.execute(command);
    },
  };
  const effectError = new Error('nothing happened');
  const err = await runOnce(noRelease, final(), () => {
    throw effectError;
  }).catch((x) => x);
  assert.equal(err.code, 'STORE');
  assert.match(err.message, /release failed: connection reset/);
  assert.equal(err.cause, effectError);
  assert.deepEqual(ops, ['claim', 'release']);
  // The claim stays pending: the retry waits, never a second run inside the lease.
  let ran = false;
  assert.match((await code(runOnce(mem, final(), () => (ran = true), { wait: 0.05 })))[1], /still running/);
  assert.equal(ran, false);
});

test('a custom store that throws plain errors or answers nonsense: STORE, the effect does not run', async () => {
  const e = engine();
  const { final } = finalRound(e);
  let ran = false;
  const broken = { prefix: 'p:', leaseMs: 1000, execute: () => { throw new Error('disk on fire'); } };
  const [c, m] = await code(runOnce(broken, final(), () => (ran = true)));
  assert.equal(c, 'STORE');
  assert.match(m, /claim failed: disk on fire/);
  for (const reply of [42, null, 'won', 'won 0', 'done 1', 'pending x', 'foreign']) {
    const odd = { prefix: 'p:', leaseMs: 1000, execute: async () => reply };
    assert.equal((await code(runOnce(odd, final(), () => (ran = true))))[0], 'STORE', String(reply));
    assert.equal((await code(checkOnce(odd, final())))[0], 'STORE', String(reply));
  }
  // A coded error of the store keeps its code.
  const coded = { prefix: 'p:', leaseMs: 1000, execute: () => { throw Object.assign(new Error('x'), { code: 'CONFIG' }); } };
  assert.equal((await code(runOnce(coded, final(), () => (ran = true))))[0], 'CONFIG');
  assert.equal(ran, false);
});

test('the replay error carries reason "replayed" from checkOnce and runOnce, and the effect never runs', async () => {
  const e = engine();
  const store = new MemoryStore();
  const { final } = finalRound(e);
  await runOnce(store, final(2), () => 1);
  let ran = false;
  for (const p of [runOnce(store, final(3), () => (ran = true)), checkOnce(store, final(3))]) {
    const err = await p.catch((x) => x);
    assert.ok(replayed(err), err?.stack);
  }
  assert.equal(ran, false);
});
