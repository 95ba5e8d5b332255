// One engine configuration shared by 4 worker_threads. A napi-rs object
// cannot cross threads, so each worker rebuilds the engine from the same
// config (keys included); the engine is deterministic given its config, so
// every worker must produce byte-identical responses, and a token sealed in
// one worker opens in another.
//
// Operation count (an operation is one begin, one decide, one seal or one
// open): a flow is begin + decide (round 1, issues a token), begin + decide
// (round 2, opens it and completes), then a low-level seal + open = 6
// operations. 4 workers x 4167 flows x 6 = 100 008 operations (>= 100 000,
// as the concurrency requirement asks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import * as snodo from '../index.js';
import { runFlow, request } from './flow.mjs';

// Token ids are random; the test seed pins them like the clock.
const CONFIG = { keys: [{ id: 'k1', secret: Buffer.alloc(32, 7) }], fixedTime: 1_800_000_000, testRandomSeed: 1 };
const WORKERS = 4;
const FLOWS_PER_WORKER = 4167;
const OPS_PER_FLOW = 6;
// Distinct inputs (principal, sealed round and state) cycled through, so the
// results are compared per input, not for one repeated input.
const PRINCIPALS = ['alice', 'bob', 'carol', 'alice', null];

// Every output of one flow of variant `v`, as one string. Shared by the main
// thread (the single-threaded reference) and the workers (as source text).
function variantFlow(snodo, engine, runFlow, v, principals) {
  const who = principals[v];
  const f = runFlow(snodo, engine, who);
  const binding = snodo.bindingDigest('tools/call', { name: 'set_color', arguments: { v } });
  const token = engine.seal({
    principal: who, binding: binding.toString('hex'), round: 1 + v, flowStart: 1_800_000_000 - v,
    questions: { c: snodo.listRoots() }, state: { v, f: [1, 'two'] },
  });
  const opened = engine.open(token, who, binding);
  return [f.r1, f.r2, JSON.stringify(f.answer), token, JSON.stringify(opened)].join('\n');
}

const WORKER = `
  const { parentPort, workerData } = require('node:worker_threads');
  const variantFlow = ${variantFlow.toString()};
  import(workerData.flow).then(({ runFlow, request }) => {
    const snodo = require(workerData.addon);
    const engine = new snodo.Engine(workerData.config);
    const { reference, principals, flows, opsPerFlow } = workerData;
    let ops = 0;
    const mismatches = [];
    for (let i = 0; i < flows; i++) {
      const v = i % reference.length;
      const got = variantFlow(snodo, engine, runFlow, v, principals);
      ops += opsPerFlow;
      // Equal to the main thread's reference byte for byte, hence identical
      // across workers for the same input.
      if (got !== reference[v] && mismatches.length < 5) mismatches.push({ i, got });
    }
    // A token from another thread: must open here.
    const retry = engine.begin(request(2, { requestState: workerData.foreignToken }), 'alice');
    parentPort.postMessage({ ops, mismatches, foreignOk: retry instanceof snodo.Call });
  }).catch((err) => parentPort.postMessage({ error: String(err && err.stack || err) }));
`;

test('4 worker_threads rebuild one engine config and agree byte for byte over 100 000 operations', async () => {
  const engine = new snodo.Engine(CONFIG);
  const reference = PRINCIPALS.map((_, v) => variantFlow(snodo, engine, runFlow, v, PRINCIPALS));
  // Distinct inputs give distinct outputs: a worker cannot pass with another input's result.
  assert.equal(new Set(reference).size, PRINCIPALS.length);
  const foreignToken = JSON.parse(runFlow(snodo, engine).r1).result.requestState;
  const workerData = {
    config: CONFIG,
    addon: new URL('../index.js', import.meta.url).pathname,
    flow: new URL('./flow.mjs', import.meta.url).href,
    foreignToken, reference, principals: PRINCIPALS, flows: FLOWS_PER_WORKER, opsPerFlow: OPS_PER_FLOW,
  };
  const started = Date.now();
  const results = await Promise.all(Array.from({ length: WORKERS }, () => new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  let total = 0;
  for (const r of results) {
    assert.equal(r.error, undefined);
    assert.deepEqual(r.mismatches, []);
    assert.equal(r.foreignOk, true);
    total += r.ops;
  }
  assert.equal(total, WORKERS * FLOWS_PER_WORKER * OPS_PER_FLOW);
  assert.ok(total >= 100_000, `${total} operations`);
  console.log(`workers: ${WORKERS} x ${FLOWS_PER_WORKER} flows x ${OPS_PER_FLOW} = ${total} operations in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  assert.ok(request(1).includes('1.0'));
});
