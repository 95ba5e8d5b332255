// Issue 17 without Redis: the call's ids and digest, the native MemoryStore,
// and runOnce on it (the RedisStore is in once_redis.test.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import * as snodo from '../index.js';
import * as once from '../once.mjs';
import { runOnce, MemoryStore } from '../once.mjs';
import { engine, finalRound, request, digestOf, digestText } from './once_helpers.mjs';

const ID = /^[A-Za-z0-9_-]{22}$/;
const DIGEST = /^[A-Za-z0-9_-]{43}$/;

const code = async (promise) => {
  try {
    await promise;
  } catch (e) {
    return [e.code, e.message];
  }
  return null;
};

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
  // Two retries with the same token read the same ids.
  assert.equal(final().tokenId, third.tokenId);
  const now = Math.floor(Date.now() / 1000);
  assert.ok(Math.abs(third.tokenExpiresAt - (now + 600)) <= 2, `${third.tokenExpiresAt} vs ${now + 600}`);
  // A fresh flow has another flow id.
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
  // The same answers in another key order and spacing, as wire text.
  const respell = (answers) => {
    const text = JSON.stringify(request(9, { requestState: t2 })).replace('"_meta"', `"inputResponses": ${answers}, "_meta"`);
    const call = e.begin(text, 'alice');
    assert.ok(call instanceof snodo.Call, call.json);
    return call.answersDigest;
  };
  assert.equal(respell('{ "seats" : {"content":{"seats":2},   "action":"accept"} }'), third.answersDigest);
  // Canonical JSON keeps a number's spelling (docs/canonical-json.md): 2.0
  // is digested as written, the same in every language.
  const spelled = '{"seats":{"content":{"seats":2.0},"action":"accept"}}';
  assert.equal(respell(spelled), digestText(snodo.canonicalize(spelled)));
});

test('the constants are the core\'s, in both entries', () => {
  assert.equal(snodo.DEFAULT_ONCE_PREFIX, 'snodo:once:');
  assert.equal(snodo.ONCE_TOKEN_KEY_PART, 'token:');
  assert.equal(snodo.ONCE_RESULT_KEY_PART, 'result:');
  assert.equal(snodo.ONCE_CONSUMED, '1');
  assert.equal(snodo.ONCE_PENDING, 'pending');
  assert.equal(snodo.ONCE_DONE_PREFIX, 'done:');
  assert.equal(snodo.ONCE_WON, 'won');
  assert.equal(snodo.DEFAULT_ONCE_LEASE_SECS, 30);
  assert.equal(snodo.DEFAULT_ONCE_MAX_ENTRIES, 100000);
  assert.equal(snodo.DEFAULT_CLOCK_SKEW_SECS, 60);
  assert.equal(snodo.ONCE_REPLAYED_MESSAGE, 'once store: requestState already used (replayed)');
  assert.equal(
    snodo.ONCE_CLAIM_SCRIPT,
    "if redis.call('SET', KEYS[1], 'pending', 'NX', 'PX', ARGV[1]) then\n  return 'won'\nend\nreturn redis.call('GET', KEYS[1])\n",
  );
  assert.equal(
    snodo.ONCE_RELEASE_SCRIPT,
    "if redis.call('GET', KEYS[1]) == 'pending' then\n  return redis.call('DEL', unpack(KEYS))\nend\nreturn 0\n",
  );
  assert.ok(snodo.ONCE_COMPLETE_SCRIPT.includes("'done:' .. ARGV[1], 'PX', ARGV[2]"));
  assert.equal(snodo.onceTokenKey('snodo:once:', 'abc'), 'snodo:once:token:abc');
  assert.equal(snodo.onceResultKey('p:', 'f', 'd'), 'p:result:f:d');
  assert.deepEqual(
    [['a:b', 'c'], ['', 'c'], ['a b', 'c'], ['x'.repeat(129), 'c'], ['é', 'c']].map(([f, d]) => {
      try {
        return snodo.onceResultKey('p:', f, d);
      } catch (err) {
        return err.code;
      }
    }),
    ['ARGUMENT', 'ARGUMENT', 'ARGUMENT', 'ARGUMENT', 'ARGUMENT'],
  );
  assert.equal(once.MemoryStore, snodo.MemoryStore);
});

test('MemoryStore: consume twice, claim/complete/release, bounds, bad input', () => {
  const store = new MemoryStore({ maxEntries: 3, leaseSecs: 5 });
  const exp = 2_000_000_000;
  assert.equal(store.consume('tok', exp), true);
  assert.equal(store.consume('tok', exp), false);
  assert.deepEqual({ ...store.claim('flow', 'dig', exp) }, { status: 'won' });
  assert.equal(store.claim('flow', 'dig', exp).status, 'pending');
  store.release('flow', 'dig');
  assert.equal(store.claim('flow', 'dig', exp).status, 'won', 'a released claim can be won again');
  store.complete('flow', 'dig', '{"ok":true}', exp);
  store.release('flow', 'dig'); // a completed claim is left alone
  assert.deepEqual({ ...store.claim('flow', 'dig', exp) }, { status: 'done', text: '{"ok":true}' });
  // Expiry follows the `now` given: the token id is free again after exp.
  assert.equal(store.consume('tok', exp, exp + 1), true);
  // A lease lapses: pending at now, won again after the lease.
  assert.equal(store.claim('f2', 'd', exp, 1000).status, 'won');
  assert.equal(store.claim('f2', 'd', exp, 1004).status, 'pending');
  assert.equal(store.claim('f2', 'd', exp, 1005).status, 'won');
  // Full of live entries: STORE, never a forgotten entry.
  const full = new MemoryStore({ maxEntries: 1 });
  assert.equal(full.consume('a', exp), true);
  assert.throws(() => full.consume('b', exp), (err) => err.code === 'STORE' && /full/.test(err.message));
  assert.equal(full.consume('a', exp), false, 'the live entry is kept');
  for (const bad of [{ maxEntries: 0 }, { maxEntries: 1.5 }, { leaseSecs: 0 }, { leaseSecs: -1 }, { maxEntries: NaN }]) {
    assert.throws(() => new MemoryStore(bad), (err) => err.code === 'CONFIG', JSON.stringify(bad));
  }
  assert.throws(() => store.consume('has:colon', exp), (err) => err.code === 'ARGUMENT');
  assert.throws(() => store.consume('tok2', -1), (err) => err.code === 'ARGUMENT');
  assert.throws(() => store.claim('f', 'd', Infinity), (err) => err.code === 'ARGUMENT');
  assert.equal(JSON.stringify(store), '"MemoryStore"');
});

test('runOnce on a MemoryStore: effect once, the remembered result after, replays refused', async () => {
  const e = engine();
  const store = new MemoryStore();
  const { first, final } = finalRound(e);
  let runs = 0;
  const effect = async () => {
    runs++;
    await new Promise((r) => setTimeout(r, 20));
    return { content: [{ type: 'text', text: `booked #${runs}` }], z: 1, a: 2.5 };
  };
  assert.deepEqual(await code(runOnce(store, first, effect)), [
    'ARGUMENT',
    'runOnce: the call is not a retry (no requestState was opened): an effect belongs to the final round of a flow, which has a flow id to key on',
  ]);
  const results = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(() => runOnce(store, final(2), effect)));
  assert.equal(runs, 1, 'eight concurrent final rounds, one effect');
  for (const r of results) assert.deepEqual(r, { a: 2.5, content: [{ type: 'text', text: 'booked #1' }], z: 1 });
  // A retry after a lost response: the remembered result, no effect.
  assert.deepEqual(await runOnce(store, final(2), effect), results[0]);
  assert.equal(runs, 1);
  // The same token with other answers: the replay error, no effect.
  const replay = await runOnce(store, final(3), effect).catch((err) => err);
  assert.equal(replay.code, 'TOKEN');
  assert.equal(replay.message, snodo.ONCE_REPLAYED_MESSAGE);
  assert.equal(replay.reason, 'replayed');
  assert.equal(runs, 1);
  // The replay released its claim: asking again gives the same answer.
  assert.equal((await runOnce(store, final(3), effect).catch((err) => err)).code, 'TOKEN');
  // Sync effects work too, and the result comes back as canonical JSON.
  const other = finalRound(e);
  assert.deepEqual(await runOnce(store, other.final(1), () => ({ b: [1, { d: null, c: 'x' }] })), {
    b: [1, { c: 'x', d: null }],
  });
});

test('runOnce: a throwing effect releases the claim and gives its token back; bad arguments are ARGUMENT', async () => {
  const e = engine();
  const store = new MemoryStore();
  const { final } = finalRound(e);
  let runs = 0;
  const boom = await runOnce(store, final(), () => {
    runs++;
    throw new Error('payment API briefly unavailable, nothing charged');
  }).catch((err) => err);
  assert.equal(boom.message, 'payment API briefly unavailable, nothing charged');
  // The claim released and the token id given back: the client's retry of
  // the same final round runs the effect and completes (not "replayed").
  assert.deepEqual(await runOnce(store, final(), () => ({ ok: ++runs })), { ok: 2 });
  assert.deepEqual(await runOnce(store, final(), () => ({ ok: ++runs })), { ok: 2 }, 'remembered');
  // That success consumed the token: other answers are the replay.
  assert.equal((await code(runOnce(store, final(5), () => ({ ok: ++runs }))))[0], 'TOKEN');
  assert.equal(runs, 2);
  const f = finalRound(e).final;
  assert.equal((await code(runOnce(null, f(), () => 1)))[0], 'ARGUMENT');
  assert.equal((await code(runOnce(store, f(), 'not a function')))[0], 'ARGUMENT');
  assert.equal((await code(runOnce(store, f(), () => 1, { wait: -1 })))[0], 'ARGUMENT');
  assert.equal((await code(runOnce(store, f(), () => 1, { expiresAt: 'soon' })))[0], 'ARGUMENT');
  assert.equal((await code(runOnce(store, null, () => 1)))[0], 'ARGUMENT');
  // An effect whose result is not JSON did run: ARGUMENT, and its claim
  // stays pending (no second effect within the lease).
  const g = finalRound(e).final;
  assert.equal((await code(runOnce(store, g(), () => undefined)))[0], 'ARGUMENT');
  let ran = false;
  const pending = await code(runOnce(store, g(), () => (ran = true), { wait: 0.05 }));
  assert.equal(pending[0], 'STORE');
  assert.match(pending[1], /still pending/);
  assert.equal(ran, false);
});

test('runOnce: a pending claim is awaited, then the winner\'s result', async () => {
  const e = engine();
  const store = new MemoryStore();
  const { final } = finalRound(e);
  let release;
  const gate = new Promise((r) => (release = r));
  const winner = runOnce(store, final(), async () => {
    await gate;
    return { seat: 'A1' };
  });
  await new Promise((r) => setTimeout(r, 10));
  let ran = false;
  const loser = runOnce(store, final(), () => (ran = true) && { seat: 'B2' }, { wait: 5 });
  setTimeout(release, 100);
  assert.deepEqual(await loser, { seat: 'A1' });
  assert.deepEqual(await winner, { seat: 'A1' });
  assert.equal(ran, false);
});

test('runOnce with a fixed engine clock: pass now = engine.now()', async () => {
  const NOW = 1_780_000_000;
  const e = engine({ fixedTime: NOW });
  const store = new MemoryStore();
  const { final } = finalRound(e);
  const call = final();
  assert.equal(call.tokenExpiresAt > NOW, true);
  let runs = 0;
  const effect = () => ({ n: ++runs });
  assert.deepEqual(await runOnce(store, call, effect, { now: e.now() }), { n: 1 });
  assert.deepEqual(await runOnce(store, final(), effect, { now: e.now() }), { n: 1 });
  // Past the expiry (plus skew) the entries are gone, as the token is.
  const later = call.tokenExpiresAt + snodo.DEFAULT_CLOCK_SKEW_SECS + 1;
  assert.deepEqual(await runOnce(store, final(), effect, { now: later }), { n: 2 });
});

test('a replay after a failed attempt is handled, and its release keeps the other attempt\'s token', async () => {
  const e = engine();
  const store = new MemoryStore();
  const { final } = finalRound(e);
  const fails = () => {
    throw new Error('ledger briefly unavailable');
  };
  assert.equal((await runOnce(store, final(2), fails).catch((err) => err)).message, 'ledger briefly unavailable');
  // The token is free again: other answers may complete the flow.
  assert.deepEqual(await runOnce(store, final(3), () => ({ seats: 3 })), { seats: 3 });
  // The failed answers again are now the replay ...
  const replay = final(2);
  assert.equal((await code(runOnce(store, replay, () => ({ seats: 2 }))))[0], 'TOKEN');
  // ... whose release did not free the token the other attempt consumed.
  assert.equal(store.consume(replay.tokenId, replay.tokenExpiresAt + 60), false);
  assert.equal((await code(runOnce(store, final(4), () => ({ seats: 4 }))))[0], 'TOKEN');
});

test('MemoryStore.release with a token id: both go, only while the claim is pending', () => {
  const store = new MemoryStore();
  const exp = Math.floor(Date.now() / 1000) + 60;
  assert.equal(store.consume('tok', exp), true);
  store.release('f', 'd', 'tok'); // no claim: nothing given back
  assert.equal(store.consume('tok', exp), false);
  assert.equal(store.claim('f', 'd', exp).status, 'won');
  store.release('f', 'd', 'tok');
  assert.equal(store.consume('tok', exp), true);
  assert.equal(store.claim('f', 'd', exp).status, 'won');
  assert.throws(() => store.release('f', 'd', 'a:b'), (err) => err.code === 'ARGUMENT');
});

test('a failed release after a failed effect is STORE (cause kept); the token stays consumed', async () => {
  const e = engine();
  const { final } = finalRound(e);
  const mem = new MemoryStore();
  const calls = [];
  const noRelease = {
    consume: (...a) => mem.consume(...a),
    claim: (...a) => mem.claim(...a),
    complete: (...a) => mem.complete(...a),
    release: (...a) => {
      calls.push(a);
      throw new Error('connection reset');
    },
  };
  const call = final();
  const effectError = new Error('nothing happened');
  const err = await runOnce(noRelease, call, () => {
    throw effectError;
  }).catch((x) => x);
  assert.equal(err.code, 'STORE');
  assert.match(err.message, /release failed: connection reset/);
  assert.equal(err.effectError, effectError);
  assert.deepEqual(calls, [[call.flowId, call.answersDigest, call.tokenId]]);
  assert.equal(mem.consume(call.tokenId, call.tokenExpiresAt + 60), false);
});

test('a custom store that throws plain errors: STORE, effect not run', async () => {
  const e = engine();
  const { final } = finalRound(e);
  const broken = {
    consume: () => true,
    claim: () => {
      throw new Error('disk on fire');
    },
    complete: () => {},
    release: () => {},
  };
  let ran = false;
  const [c, m] = await code(runOnce(broken, final(), () => (ran = true)));
  assert.equal(c, 'STORE');
  assert.match(m, /claim failed: disk on fire/);
  assert.equal(ran, false);
  // consume failing after a won claim: STORE, claim released, effect not run.
  let released = 0;
  const half = { ...broken, claim: () => ({ status: 'won' }), consume: async () => Promise.reject(new Error('gone')), release: () => released++ };
  assert.equal((await code(runOnce(half, final(), () => (ran = true))))[0], 'STORE');
  assert.equal(ran, false);
  assert.equal(released, 1);
});

