// At most once per flow on a real Redis and a real Redis Cluster
// (scripts/test-node.sh starts both and exports SNODO_REDIS_URL and
// SNODO_REDIS_CLUSTER_URLS). Without them this suite FAILS: it never skips.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createClient, createCluster } from 'redis';
import * as snodo from '../index.js';
import { runOnce, checkOnce, RedisStore, OnceRun } from '../once.mjs';
import { engine, finalRound, code, pause, replayed, sharedScenarios } from './once_helpers.mjs';

const URL = process.env.SNODO_REDIS_URL;
const CLUSTER_URLS = (process.env.SNODO_REDIS_CLUSTER_URLS ?? '').split(',').filter(Boolean);

const quiet = (client) => client.on('error', () => {});
const clients = [];

async function connect(url = URL, options = {}) {
  const client = quiet(createClient({ url, ...options }));
  await client.connect();
  clients.push(client);
  return client;
}

async function connectCluster() {
  const cluster = quiet(createCluster({ rootNodes: CLUSTER_URLS.map((url) => ({ url })) }));
  await cluster.connect();
  clients.push(cluster);
  return cluster;
}

// A prefix per run, so reruns against one Redis never see old records.
const PREFIX = `snodo:once:nodetest-${randomBytes(4).toString('hex')}:`;
const flowKey = (call) => `${PREFIX}flow:{${call.flowId}}`;
let raw;
let rawCluster;

test.before(async () => {
  assert.ok(URL, 'SNODO_REDIS_URL is not set: run through scripts/test-node.sh (it starts Redis); this suite never skips');
  assert.equal(CLUSTER_URLS.length >= 1, true,
    'SNODO_REDIS_CLUSTER_URLS is not set: run through scripts/test-node.sh (it starts a Redis Cluster); this suite never skips');
  raw = await connect();
  assert.equal(await raw.ping(), 'PONG');
  rawCluster = await connectCluster();
  assert.equal(rawCluster.masters.length, 3, 'a 3-master cluster');
});

test.after(async () => {
  for (const c of clients) c.destroy();
});

const KINDS = {
  single: { connect: () => connect(), raw: () => raw },
  cluster: { connect: () => connectCluster(), raw: () => rawCluster },
};

for (const [kind, { connect: open }] of Object.entries(KINDS)) {
  const fleet = (leaseSecs) => async () => new RedisStore({
    client: await open(), prefix: PREFIX, ...(leaseSecs === undefined ? {} : { leaseSecs }),
  });
  for (const [name, scenario] of sharedScenarios(fleet)) {
    test(`${kind}: ${name}`, () => scenario(assert));
  }

  test(`${kind}: the raw record is one hash per flow (state, fence, digest, text), kept for the flow's life`, async () => {
    const r = KINDS[kind].raw();
    const s = new RedisStore({ client: await open(), prefix: PREFIX });
    const e = engine();
    const { final } = finalRound(e);
    const call = final(2);
    const key = flowKey(call);
    const result = await runOnce(s, call, async () => {
      // While the effect runs: pending, with the owner and the lease.
      const pending = await r.hGetAll(key);
      assert.equal(pending.state, 'pending');
      assert.equal(pending.fence, '1');
      assert.equal(pending.digest, call.answersDigest);
      assert.match(pending.owner, /^[A-Za-z0-9_-]{22}$/);
      assert.ok(Number(pending.lease) > Date.now() + 25_000, pending.lease);
      return { z: [2.5, 'x'], a: { c: null, b: true } };
    });
    assert.deepEqual(result, { a: { b: true, c: null }, z: [2.5, 'x'] });
    assert.deepEqual({ ...(await r.hGetAll(key)) }, {
      state: 'done', fence: '1', digest: call.answersDigest, text: '{"a":{"b":true,"c":null},"z":[2.5,"x"]}',
    });
    // Kept until the flow's last possible use (its start plus the engine's
    // maximum flow age, plus the skew), far past the token's expiry.
    const pttl = await r.pTTL(key);
    assert.ok(pttl > (call.tokenExpiresAt - Date.now() / 1000) * 1000, `pttl ${pttl}`);
    // The scripts Redis holds are the core's bytes (EVALSHA by their SHA-1).
    const sha = createHash('sha1').update(snodo.ONCE_CLAIM_SCRIPT).digest('hex');
    if (kind === 'single') assert.deepEqual(await r.scriptExists(sha), [1]);
  });

  test(`${kind}: a record another process wrote is read by Node, and Node's by a lookup`, async () => {
    const r = KINDS[kind].raw();
    const s = new RedisStore({ client: await open(), prefix: PREFIX });
    const e = engine();
    // What a Rust or Python process of the fleet leaves: a completed flow.
    const call = finalRound(e).final(2);
    await r.hSet(flowKey(call), { state: 'done', fence: '3', digest: call.answersDigest, text: '{"booking":{"id":7}}' });
    await r.pExpire(flowKey(call), 60_000);
    let ran = false;
    assert.deepEqual(await checkOnce(s, call), { booking: { id: 7 } });
    assert.deepEqual(await runOnce(s, call, () => (ran = true)), { booking: { id: 7 } });
    assert.equal(ran, false);
    // Node's record, read by the lookup script as any client runs it.
    const mine = finalRound(e).final(4);
    await runOnce(s, mine, () => ({ seats: 4 }));
    const reply = kind === 'single'
      ? await r.eval(snodo.ONCE_LOOKUP_SCRIPT, { keys: [flowKey(mine)] })
      : await r.sendCommand(flowKey(mine), true, ['EVAL', snodo.ONCE_LOOKUP_SCRIPT, '1', flowKey(mine)]);
    assert.equal(reply, `done 1 ${mine.answersDigest} {"seats":4}`);
    // A key holding something snodo does not write: STORE, never a guess.
    const odd = finalRound(e).final();
    await r.set(flowKey(odd), 'something else', { PX: 60_000 });
    assert.match((await code(runOnce(s, odd, () => (ran = true))))[1], /WRONGTYPE|snodo does not write/);
    await r.del(flowKey(odd));
    await r.hSet(flowKey(odd), { state: 'weird', fence: '1' });
    await r.pExpire(flowKey(odd), 60_000);
    assert.match((await code(runOnce(s, odd, () => (ran = true))))[1], /does not write/);
    assert.equal(ran, false);
  });

  test(`${kind}: check() reads maxmemory-policy on every master`, async () => {
    const s = new RedisStore({ client: await open(), prefix: PREFIX });
    assert.deepEqual(await s.check(), kind === 'single' ? ['noeviction'] : ['noeviction', 'noeviction', 'noeviction']);
  });
}

/** A cluster client that records the key each command is routed by. */
function recording(cluster, routed) {
  return new Proxy(cluster, {
    get(target, name) {
      if (name === 'sendCommand') {
        return (firstKey, readonly, args) => {
          routed.push([firstKey, ...args]);
          return target.sendCommand(firstKey, readonly, args);
        };
      }
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test('cluster: races over many flows, their records spread over the masters, one effect each, each script routed by its key', async () => {
  const routed = [];
  const stores = await Promise.all([1, 2, 3, 4].map(async (i) => {
    const cluster = await connectCluster();
    return new RedisStore({ client: i === 1 ? recording(cluster, routed) : cluster, prefix: PREFIX });
  }));
  const e = engine();
  const ledger = `${PREFIX}ledger`;
  const slots = new Set();
  for (let flow = 0; flow < 24; flow++) {
    const { final, again, t2, finalWith } = finalRound(e);
    const t2b = again(t2);
    let runs = 0;
    const effect = async (lease) => {
      runs++;
      await pause(5);
      const n = await rawCluster.rPush(ledger, JSON.stringify({ flow, fence: lease.fence }));
      return { content: [{ type: 'text', text: `Booked: entry #${n}` }] };
    };
    const calls = [final(2), finalWith(t2b, 2), final(3), finalWith(t2b, 5)];
    const settled = await Promise.allSettled(calls.map((c, i) => runOnce(stores[i], c, effect)));
    assert.equal(runs, 1, `flow ${flow}: ${runs} effects`);
    const ok = settled.filter((x) => x.status === 'fulfilled').map((x) => x.value);
    for (const v of ok) assert.deepEqual(v, ok[0]);
    for (const x of settled) if (x.status === 'rejected') assert.ok(replayed(x.reason), x.reason.stack);
    slots.add(await rawCluster.sendCommand(undefined, true, ['CLUSTER', 'KEYSLOT', flowKey(calls[0])]));
  }
  assert.equal(await rawCluster.lLen(ledger), 24);
  // Straight to the slot's master (node-redis would follow a MOVED reply
  // too, one round trip later).
  const scripts = routed.filter(([, command]) => command === 'EVALSHA' || command === 'EVAL');
  assert.ok(scripts.length >= 24, `${scripts.length} scripts`);
  for (const [firstKey, , , , key] of scripts) assert.equal(firstKey, key);
  assert.ok(slots.size > 20, `${slots.size} slots`);
  // On three masters the slots of 24 random flows reach more than one of them.
  const owners = new Set([...slots].map((slot) => rawCluster.slots[slot].master.port));
  assert.ok(owners.size > 1, `flows on ${owners.size} master(s)`);
});

/** A free loopback TCP port. */
const freePort = () => new Promise((resolve, reject) => {
  const server = net.createServer();
  server.on('error', reject);
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});

/** A private redis-server with `args`, stopped when `body` ends. */
async function withRedis(args, body) {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args],
    { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = `redis://127.0.0.1:${port}/`;
    let client;
    for (let i = 0; i < 100 && client === undefined; i++) {
      const c = quiet(createClient({ url, socket: { reconnectStrategy: false } }));
      try {
        await c.connect();
        client = c;
      } catch {
        await pause(50);
      }
    }
    assert.ok(client, 'the private redis-server did not start');
    clients.push(client);
    return await body(client);
  } finally {
    child.kill();
    await exited;
  }
}

test('an evicting maxmemory-policy is refused (STORE, no effect), and only warned about when opted in', async () => {
  await withRedis(['--maxmemory-policy', 'allkeys-lru'], async (client) => {
    const e = engine();
    const { final } = finalRound(e);
    const s = new RedisStore({ client, prefix: PREFIX });
    const [c, m] = await code(s.check());
    assert.equal(c, 'STORE');
    assert.match(m, /maxmemory-policy is "allkeys-lru"/);
    let ran = false;
    const refused = await runOnce(s, final(), () => (ran = true)).catch((x) => x);
    assert.equal(refused.code, 'STORE');
    assert.match(refused.message, /allkeys-lru/);
    assert.equal(ran, false);
    assert.deepEqual(await client.keys(`${PREFIX}*`), [], 'nothing was written');
    // Refused every time (a failed check is not remembered as passed).
    assert.equal((await code(checkOnce(s, final())))[0], 'STORE');
    // Opted in: a process warning, then the store works.
    const allowed = new RedisStore({ client, prefix: PREFIX, allowEvictingPolicy: true });
    const warned = new Promise((resolve) => process.once('warning', resolve));
    assert.deepEqual(await runOnce(allowed, final(), () => ({ ok: (ran = true) })), { ok: true });
    const warning = await Promise.race([warned, pause(2000).then(() => null)]);
    assert.ok(warning, 'no process warning');
    assert.equal(warning.code, 'SNODO_ONCE_EVICTING_POLICY');
    assert.match(warning.message, /allkeys-lru.*allowed by allowEvictingPolicy/);
    assert.deepEqual(await allowed.check(), ['allkeys-lru']);
  });
});

test('WAIT without a replica: STORE "reached 0 of 1 replicas", and the effect does not run', async () => {
  const client = await connect();
  const s = new RedisStore({ client, prefix: PREFIX, replicas: 1, replicasTimeoutMs: 100 });
  const e = engine();
  let ran = false;
  const t0 = Date.now();
  const [c, m] = await code(runOnce(s, finalRound(e).final(), () => (ran = true)));
  assert.equal(c, 'STORE');
  assert.equal(m, 'once store: claim reached 0 of 1 replicas within 100 ms: not confirmed');
  assert.ok(Date.now() - t0 < 1500);
  assert.equal(ran, false);
  assert.equal((await code(checkOnce(s, finalRound(e).final())))[0], 'STORE', 'a lookup is confirmed the same way');
  // Waiting for replicas is for one endpoint only.
  assert.throws(() => new RedisStore({ client: rawCluster, replicas: 1 }), (x) => x.code === 'CONFIG' && /cluster/.test(x.message));
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

test('Redis refused: a quick STORE, the effect does not run; service resumes when Redis returns', async () => {
  const e = engine();
  const refused = quiet(createClient({ url: 'redis://:secret-password@127.0.0.1:1/', socket: { reconnectStrategy: false } }));
  await refused.connect().catch(() => {});
  let ran = false;
  const t0 = Date.now();
  const r0 = await runOnce(new RedisStore({ client: refused }), finalRound(e).final(), () => (ran = true)).catch((x) => x);
  assert.equal(r0.code, 'STORE');
  assert.match(r0.message, /not connected/);
  assert.doesNotMatch(r0.message, /secret-password/);
  assert.ok(Date.now() - t0 < 500);
  assert.equal(ran, false);

  // Connected, then Redis goes away.
  const r = await relay();
  const client = await connect(`redis://127.0.0.1:${r.port}/`, { socket: { reconnectStrategy: () => 50 } });
  const s = new RedisStore({ client, prefix: PREFIX, timeoutMs: 500 });
  const { final } = finalRound(e);
  await r.stop();
  await pause(100);
  const t1 = Date.now();
  const down = await runOnce(s, final(), () => (ran = true)).catch((x) => x);
  assert.equal(down.code, 'STORE', down.stack);
  assert.ok(Date.now() - t1 < 1000, 'no hang');
  assert.equal(ran, false);
  // Redis is back on the same port: the client reconnects and the same
  // final round runs its effect, once.
  const back = await relay(r.port);
  for (let i = 0; i < 250 && !client.isReady; i++) await pause(20);
  assert.ok(client.isReady, 'the client reconnected');
  let runs = 0;
  assert.deepEqual(await runOnce(s, final(), () => ({ n: ++runs })), { n: 1 });
  assert.deepEqual(await runOnce(s, final(), () => ({ n: ++runs })), { n: 1 });
  assert.equal(runs, 1);
  client.destroy();
  await back.stop();
});

test('a silent Redis: every command is bounded by the timeout (a quick STORE, no hang)', async () => {
  const silent = { isReady: true, sendCommand: () => new Promise(() => {}) };
  const s = new RedisStore({ client: silent, timeoutMs: 100 });
  const e = engine();
  let ran = false;
  const t0 = Date.now();
  const err = await runOnce(s, finalRound(e).final(), () => (ran = true)).catch((x) => x);
  assert.equal(err.code, 'STORE');
  assert.match(err.message, /CONFIG GET timed out after 100 ms/);
  assert.ok(Date.now() - t0 < 1000);
  assert.equal(ran, false);
  // Checked, then silent on the claim.
  let calls = 0;
  const lateSilent = {
    isReady: true,
    sendCommand: (args) => (calls++ === 0 ? Promise.resolve(['maxmemory-policy', 'noeviction']) : new Promise(() => {})),
  };
  const s2 = new RedisStore({ client: lateSilent, timeoutMs: 100 });
  assert.match((await code(runOnce(s2, finalRound(e).final(), () => (ran = true))))[1], /claim timed out after 100 ms/);
  assert.equal(ran, false);
  // An error reply is STORE too.
  const failing = { isReady: true, sendCommand: async () => Promise.reject(new Error('ERR something')) };
  assert.equal((await code(checkOnce(new RedisStore({ client: failing }), finalRound(e).final())))[0], 'STORE');
});

test('RedisStore: bad options are CONFIG; bad commands ARGUMENT', async () => {
  for (const bad of [
    undefined,
    {},
    { client: {} },
    { client: raw, prefix: 'has space' },
    { client: raw, prefix: 'has{brace' },
    { client: raw, prefix: 7 },
    { client: raw, leaseSecs: 0 },
    { client: raw, timeoutMs: 0 },
    { client: raw, timeoutMs: 1.5 },
    { client: raw, replicas: 0 },
    { client: raw, replicas: 1, replicasTimeoutMs: 0 },
    { client: raw, allowEvictingPolicy: 'yes' },
  ]) {
    assert.throws(() => new RedisStore(bad), (e) => e.code === 'CONFIG', JSON.stringify(bad));
  }
  const s = new RedisStore({ client: raw });
  assert.equal(s.prefix, 'snodo:once:');
  assert.equal(s.leaseMs, 30_000);
  assert.equal(new RedisStore({ client: raw, leaseSecs: 0.25 }).leaseMs, 250);
  assert.equal(JSON.stringify(s), '"RedisStore(snodo:once:)"');
  for (const bad of [null, {}, { key: 'k', script: 's' }]) assert.equal((await code(s.execute(bad)))[0], 'ARGUMENT');
  // A OnceRun's commands run on any store of the same prefix.
  const run = new OnceRun(finalRound(engine()).final(), { prefix: PREFIX, leaseMs: 1000 });
  assert.equal(await new RedisStore({ client: raw, prefix: PREFIX }).execute(run.start().command), 'won 1');
});
