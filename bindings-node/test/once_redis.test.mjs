// Issue 17 on a real Redis (scripts/test-node.sh starts one and exports
// SNODO_REDIS_URL). Without it this suite FAILS: it never skips.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import * as snodo from '../index.js';
import { runOnce, RedisStore } from '../once.mjs';
import { engine, finalRound } from './once_helpers.mjs';

const URL = process.env.SNODO_REDIS_URL;

const quiet = (client) => client.on('error', () => {});

async function connect(url = URL, options = {}) {
  const client = quiet(createClient({ url, ...options }));
  await client.connect();
  return client;
}

const clients = [];
async function store(extra = {}) {
  const client = await connect();
  clients.push(client);
  return new RedisStore({ client, prefix: PREFIX, ...extra });
}

// A prefix per run, so reruns against one Redis never see old keys.
const PREFIX = `snodo:once:nodetest-${randomBytes(4).toString('hex')}:`;
let raw;

test.before(async () => {
  assert.ok(URL, 'SNODO_REDIS_URL is not set: run through scripts/test-node.sh (it starts Redis); this suite never skips');
  raw = await connect();
  assert.equal(await raw.ping(), 'PONG');
});

test.after(async () => {
  for (const c of [raw, ...clients]) c?.destroy();
});

const exp = () => Math.floor(Date.now() / 1000) + 300;

test('RedisStore: consume twice, with the core\'s key and value', async () => {
  const s = await store();
  const id = randomBytes(16).toString('base64url');
  assert.equal(await s.consume(id, exp()), true);
  assert.equal(await s.consume(id, exp()), false);
  const key = `${PREFIX}token:${id}`;
  assert.equal(await raw.get(key), '1');
  const pttl = await raw.pTTL(key);
  assert.ok(pttl > 290_000 && pttl <= 300_000, `pttl ${pttl}`);
  // A short expiry: gone after it (entries live at least one second).
  const short = randomBytes(16).toString('base64url');
  assert.equal(await s.consume(short, Math.floor(Date.now() / 1000)), true);
  assert.ok((await raw.pTTL(`${PREFIX}token:${short}`)) <= 1000);
  await assert.rejects(s.consume('bad:id', exp()), (e) => e.code === 'ARGUMENT');
});

test('RedisStore: claim / complete / release, the lease, foreign values', async () => {
  const s = await store({ leaseSecs: 0.3 });
  const key = `${PREFIX}result:flowA:digestA`;
  assert.deepEqual(await s.claim('flowA', 'digestA', exp()), { status: 'won' });
  assert.equal(await raw.get(key), 'pending');
  assert.ok((await raw.pTTL(key)) <= 300);
  assert.deepEqual(await s.claim('flowA', 'digestA', exp()), { status: 'pending' });
  await s.release('flowA', 'digestA');
  assert.equal(await raw.get(key), null);
  assert.deepEqual(await s.claim('flowA', 'digestA', exp()), { status: 'won' });
  await s.complete('flowA', 'digestA', '{"a":1}', exp());
  assert.equal(await raw.get(key), 'done:{"a":1}');
  await s.complete('flowA', 'digestA', '{"a":2}', exp()); // the first completion stays
  await s.release('flowA', 'digestA'); // and release leaves it alone
  assert.deepEqual(await s.claim('flowA', 'digestA', exp()), { status: 'done', text: '{"a":1}' });
  // A lapsed lease: the claim can be won again.
  assert.deepEqual(await s.claim('flowB', 'd', exp()), { status: 'won' });
  await new Promise((r) => setTimeout(r, 400));
  assert.deepEqual(await s.claim('flowB', 'd', exp()), { status: 'won' });
  // A value snodo never writes: STORE, not a guess.
  await raw.set(`${PREFIX}result:flowC:d`, 'something else');
  await assert.rejects(s.claim('flowC', 'd', exp()), (e) => e.code === 'STORE' && /does not write/.test(e.message));
});

test('the published encoding: values written by another language are read, and ours are theirs', async () => {
  // What a Rust or Python process of the fleet writes (docs/once.md):
  // `<prefix>token:<id>` = 1, `<prefix>result:<flow>:<digest>` = pending
  // or done:<canonical result text>.
  const s = await store();
  const e = engine();
  const { final } = finalRound(e);
  const call = final();
  const tokenKey = `${PREFIX}token:${call.tokenId}`;
  const resultKey = `${PREFIX}result:${call.flowId}:${call.answersDigest}`;
  assert.equal(snodo.onceTokenKey(PREFIX, call.tokenId), tokenKey);
  assert.equal(snodo.onceResultKey(PREFIX, call.flowId, call.answersDigest), resultKey);
  // Another process completed this final round: Node returns its result.
  await raw.set(resultKey, 'done:{"booking":{"id":7,"seats":2}}', { PX: 60_000 });
  let ran = false;
  assert.deepEqual(await runOnce(s, call, () => (ran = true)), { booking: { id: 7, seats: 2 } });
  assert.equal(ran, false);
  // Node completes a flow: the keys and values another language reads.
  const other = finalRound(e).final();
  const now = Math.floor(Date.now() / 1000);
  const result = await runOnce(s, other, () => ({ z: [2.5, 'x'], a: { c: null, b: true } }));
  assert.deepEqual(result, { a: { b: true, c: null }, z: [2.5, 'x'] });
  assert.equal(await raw.get(`${PREFIX}token:${other.tokenId}`), '1');
  const stored = await raw.get(`${PREFIX}result:${other.flowId}:${other.answersDigest}`);
  assert.equal(stored, 'done:{"a":{"b":true,"c":null},"z":[2.5,"x"]}');
  // Both kept until the token's expiry plus the default clock skew.
  const ttl = (other.tokenExpiresAt + snodo.DEFAULT_CLOCK_SKEW_SECS - now) * 1000;
  for (const key of [`${PREFIX}token:${other.tokenId}`, `${PREFIX}result:${other.flowId}:${other.answersDigest}`]) {
    const pttl = await raw.pTTL(key);
    assert.ok(pttl > ttl - 5000 && pttl <= ttl, `${key}: pttl ${pttl}, expected about ${ttl}`);
  }
  // The scripts Redis holds are the core's bytes (EVALSHA by their SHA-1).
  const { createHash } = await import('node:crypto');
  for (const script of [snodo.ONCE_CLAIM_SCRIPT, snodo.ONCE_COMPLETE_SCRIPT]) {
    const sha = createHash('sha1').update(script).digest('hex');
    assert.deepEqual(await raw.scriptExists(sha), [1]);
  }
});

test('eight concurrent final rounds through eight clients: one effect, one result', async () => {
  const stores = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(() => store()));
  const e = engine();
  const ledger = `${PREFIX}ledger`;
  for (let flow = 0; flow < 10; flow++) {
    const { final } = finalRound(e);
    let runs = 0;
    const effect = async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 30));
      const n = await raw.rPush(ledger, `flow ${flow}`);
      return { content: [{ type: 'text', text: `booked, ledger entry ${n}` }] };
    };
    // Each "process" sees its own Call of the same retried request.
    const results = await Promise.all(stores.map((s) => runOnce(s, final(2), effect)));
    assert.equal(runs, 1, `flow ${flow}: ${runs} effects`);
    for (const r of results) assert.deepEqual(r, results[0]);
  }
  assert.equal(await raw.lLen(ledger), 10);
});

test('a replay with other answers: TOKEN with the replayed message, no effect', async () => {
  const s = await store();
  const e = engine();
  const { final } = finalRound(e);
  let runs = 0;
  const effect = () => ({ n: ++runs });
  assert.deepEqual(await runOnce(s, final(2), effect), { n: 1 });
  const err = await runOnce(s, final(5), effect).catch((x) => x);
  assert.equal(err.code, 'TOKEN');
  assert.equal(err.message, snodo.ONCE_REPLAYED_MESSAGE);
  assert.equal(runs, 1);
  // The replay's claim was released, not left pending.
  const other = final(5);
  assert.equal(await raw.get(`${PREFIX}result:${other.flowId}:${other.answersDigest}`), null);
  // The original answers still get the remembered result.
  assert.deepEqual(await runOnce(s, final(2), effect), { n: 1 });
});

test('a failed effect gives its token back in one release script; the retry runs it', async () => {
  const s = await store();
  const e = engine();
  const { final } = finalRound(e);
  let runs = 0;
  const flaky = () => {
    runs++;
    if (runs === 1) throw new Error('ledger briefly unavailable');
    return { n: runs };
  };
  const call = final(2);
  const tokenKey = `${PREFIX}token:${call.tokenId}`;
  const resultKey = `${PREFIX}result:${call.flowId}:${call.answersDigest}`;
  assert.equal((await runOnce(s, call, flaky).catch((x) => x)).message, 'ledger briefly unavailable');
  assert.equal(await raw.get(tokenKey), null);
  assert.equal(await raw.get(resultKey), null);
  // The same final round retried: the effect runs and completes.
  assert.deepEqual(await runOnce(s, final(2), flaky), { n: 2 });
  assert.equal(await raw.get(tokenKey), '1');
  // Other answers now: the replay, whose release keeps the token consumed.
  assert.equal((await runOnce(s, final(5), flaky).catch((x) => x)).code, 'TOKEN');
  assert.equal(await raw.get(tokenKey), '1');
  assert.equal(runs, 2);
  // The raw operation: both keys go only while the claim is pending.
  const t = randomBytes(16).toString('base64url');
  assert.equal(await s.consume(t, exp()), true);
  await s.release('fl', 'dg', t); // no claim: the token stays
  assert.equal(await raw.get(`${PREFIX}token:${t}`), '1');
  assert.equal((await s.claim('fl', 'dg', exp())).status, 'won');
  await s.release('fl', 'dg', t);
  assert.equal(await raw.get(`${PREFIX}token:${t}`), null);
  assert.equal(await raw.get(`${PREFIX}result:fl:dg`), null);
});

test('a replay after a failed attempt: the other answers win, the failed ones are then the replay', async () => {
  const s = await store();
  const e = engine();
  const { final } = finalRound(e);
  const fails = () => {
    throw new Error('nothing happened');
  };
  await assert.rejects(runOnce(s, final(2), fails), /nothing happened/);
  assert.deepEqual(await runOnce(s, final(3), () => ({ seats: 3 })), { seats: 3 });
  const replay = final(2);
  assert.equal((await runOnce(s, replay, () => ({ seats: 2 })).catch((x) => x)).code, 'TOKEN');
  assert.equal(await raw.get(`${PREFIX}token:${replay.tokenId}`), '1');
});

test('a crashed winner: the claim is polled until its lease lapses, then won and run once', async () => {
  const s = await store({ leaseSecs: 0.3 });
  const e = engine();
  const { final } = finalRound(e);
  const call = final();
  // Another process claimed this final round and died before completing.
  assert.deepEqual(await s.claim(call.flowId, call.answersDigest, exp()), { status: 'won' });
  let runs = 0;
  const t0 = Date.now();
  const results = await Promise.all([1, 2, 3].map(() => runOnce(s, final(), () => ({ n: ++runs }), { wait: 5 })));
  assert.ok(Date.now() - t0 >= 250, 'it waited for the lease');
  assert.equal(runs, 1);
  for (const r of results) assert.deepEqual(r, { n: 1 });
});

// A TCP relay in front of the test Redis, so a test can take "Redis" away
// and bring it back on the same port without touching the shared server.
function relay(port = 0) {
  const target = new globalThis.URL(URL);
  const sockets = new Set();
  const server = net.createServer((down) => {
    const up = net.connect(Number(target.port), target.hostname);
    for (const s of [down, up]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    down.pipe(up);
    up.pipe(down);
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        stop: () =>
          new Promise((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}

test('Redis unreachable: STORE, the effect does not run, service resumes when Redis returns', async () => {
  const e = engine();
  // Never connected: refused at once.
  const refused = quiet(createClient({ url: 'redis://127.0.0.1:1', socket: { reconnectStrategy: false } }));
  await refused.connect().catch(() => {});
  let ran = false;
  const r0 = await runOnce(new RedisStore({ client: refused }), finalRound(e).final(), () => (ran = true)).catch((x) => x);
  assert.equal(r0.code, 'STORE');
  assert.match(r0.message, /not connected/);
  assert.equal(ran, false);

  // Connected, then Redis goes away mid-run.
  const r = await relay();
  const client = await connect(`redis://127.0.0.1:${r.port}/`, { socket: { reconnectStrategy: () => 50 } });
  clients.push(client);
  const s = new RedisStore({ client, prefix: PREFIX, timeoutMs: 500 });
  const { final } = finalRound(e);
  await r.stop();
  await new Promise((done) => setTimeout(done, 100));
  const t0 = Date.now();
  const down = await runOnce(s, final(), () => (ran = true)).catch((x) => x);
  assert.equal(down.code, 'STORE', down.stack);
  assert.ok(Date.now() - t0 < 2000, 'no hang');
  assert.equal(ran, false);
  // Redis is back on the same port: the client reconnects and the same
  // final round runs its effect, once.
  const back = await relay(r.port);
  for (let i = 0; i < 250 && !client.isReady; i++) await new Promise((done) => setTimeout(done, 20));
  assert.ok(client.isReady, 'the client reconnected');
  let runs = 0;
  assert.deepEqual(await runOnce(s, final(), () => ({ n: ++runs })), { n: 1 });
  assert.deepEqual(await runOnce(s, final(), () => ({ n: ++runs })), { n: 1 });
  assert.equal(runs, 1);
  client.destroy();
  await back.stop();
});

test('a silent Redis: every command is bounded by the timeout (STORE, no hang)', async () => {
  // A client that never answers (a stalled connection or server).
  const silent = { isReady: true, sendCommand: () => new Promise(() => {}) };
  const s = new RedisStore({ client: silent, timeoutMs: 100 });
  const e = engine();
  let ran = false;
  const t0 = Date.now();
  const err = await runOnce(s, finalRound(e).final(), () => (ran = true)).catch((x) => x);
  assert.equal(err.code, 'STORE');
  assert.match(err.message, /claim timed out after 100 ms/);
  assert.ok(Date.now() - t0 < 1000);
  assert.equal(ran, false);
  // An error reply is STORE too.
  const failing = { isReady: true, sendCommand: async () => Promise.reject(new Error('ERR something')) };
  await assert.rejects(new RedisStore({ client: failing }).consume('t', exp()), (x) => x.code === 'STORE');
});

test('RedisStore: bad options are CONFIG', () => {
  for (const bad of [
    undefined,
    {},
    { client: {} },
    { client: raw, prefix: 'has space' },
    { client: raw, prefix: 7 },
    { client: raw, leaseSecs: 0 },
    { client: raw, timeoutMs: 0 },
  ]) {
    assert.throws(() => new RedisStore(bad), (e) => e.code === 'CONFIG', JSON.stringify(bad));
  }
  assert.equal(new RedisStore({ client: raw }).prefix, 'snodo:once:');
});
