// One engine configuration shared by 4 worker_threads. A napi-rs object
// cannot cross threads, so each worker rebuilds the engine from the same
// config (keys included); the engine is deterministic given its config, so
// every worker must produce byte-identical responses, and a token sealed in
// one worker opens in another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import * as snodo from '../index.js';
import { runFlow, request } from './flow.mjs';

const CONFIG = { keys: [{ id: 'k1', secret: Buffer.alloc(32, 7) }], now: 1_800_000_000 };

const WORKER = `
  const { parentPort, workerData } = require('node:worker_threads');
  import(workerData.flow).then(async ({ runFlow, request }) => {
    const snodo = require(workerData.addon);
    const engine = new snodo.Engine(workerData.config);
    const out = [];
    for (let i = 0; i < 25; i++) out.push(runFlow(snodo, engine));
    const first = out[0];
    const same = out.every((o) => o.r1 === first.r1 && o.r2 === first.r2);
    // A token from another thread: must open here.
    const retry = engine.begin(request(2, { requestState: workerData.foreignToken }), 'alice');
    parentPort.postMessage({ r1: first.r1, r2: first.r2, same, foreignOk: retry instanceof snodo.Call });
  });
`;

test('4 worker_threads rebuild one engine config and agree byte for byte', async () => {
  const engine = new snodo.Engine(CONFIG);
  const mine = runFlow(snodo, engine);
  const foreignToken = JSON.parse(mine.r1).result.requestState;
  const workerData = {
    config: CONFIG,
    addon: new URL('../index.js', import.meta.url).pathname,
    flow: new URL('./flow.mjs', import.meta.url).href,
    foreignToken,
  };
  const results = await Promise.all(Array.from({ length: 4 }, () => new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  for (const r of results) {
    assert.equal(r.same, true);
    assert.equal(r.foreignOk, true);
    assert.equal(r.r1, mine.r1);
    assert.equal(r.r2, mine.r2);
  }
  assert.ok(request(1).includes('1.0'));
});
