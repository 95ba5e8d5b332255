// The Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) rules the
// contract servers keep (interop/CONTRACT.md, "Tasks"), checked with plain
// JSON-RPC over Streamable HTTP: the extension in server/discover, the
// -32021 gate on tasks/get, tasks/update and tasks/cancel for a request that
// does not declare the extension, -32602 for an unknown task, the
// tasks/cancel ack and a really cancelled task, the envelopes (a flat
// CreateTaskResult, empty acks with resultType "complete"), -32021 for a
// task-only tool and -32020 for an Mcp-Name that is not the task id. No
// check waits for a clock: the tasks cancelled here run for 60 s, the one
// read as finished (paint_task) has no work left: finished when created, or
// a moment later when its run goes on in the background (polled, as a
// client does).
//
//   node interop/tasks/run.mjs --server python|node
//
// Writes target/interop/tasks-<server>-http.json.
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, startHttp, writeSummary } from '../lib/servers.mjs';

const EXT = 'io.modelcontextprotocol/tasks';
const DECLARING = { elicitation: {}, extensions: { [EXT]: {} } };
const REQUIRED = { requiredCapabilities: { extensions: { [EXT]: {} } } };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;

const { values: opts } = parseArgs({ options: { server: { type: 'string' } } });
if (!['python', 'node'].includes(opts.server)) {
  console.error('usage: run.mjs --server python|node');
  process.exit(2);
}

const server = await startHttp(opts.server);
let nextId = 1;

// One request with the headers a conforming client sends (Mcp-Name: the
// task id on tasks/*, the tool name on tools/call); `headers` overrides them.
async function rpc(method, params, caps, headers = {}) {
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-checks', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': caps,
  } } };
  const name = params.taskId ?? params.name;
  const res = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}), ...headers,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const msg = await res.json();
  return { status: res.status, ...msg };
}

const call = (name, args, caps = DECLARING) => rpc('tools/call', { name, arguments: args }, caps);
const get = (taskId, caps = DECLARING) => rpc('tasks/get', { taskId }, caps);
const cancel = (taskId, caps = DECLARING) => rpc('tasks/cancel', { taskId }, caps);
const update = (taskId, inputResponses, caps = DECLARING) => rpc('tasks/update', { taskId, inputResponses }, caps);

// A CreateTaskResult: flat (SEP-2663), with nothing of an MRTR round or of a result on it.
function assertCreated(r, status) {
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  const t = r.result;
  assert.equal(t.resultType, 'task');
  assert.equal(t.status, status);
  // Opaque and unguessable: a UUID, or snodo's 24 base64url characters (144 random bits).
  assert.match(t.taskId, /^[A-Za-z0-9_-]{22,}$/);
  assert.match(t.createdAt, ISO);
  assert.match(t.lastUpdatedAt, ISO);
  assert.ok(Number.isInteger(t.ttlMs) && t.ttlMs > 0, `ttlMs ${t.ttlMs}`);
  for (const k of ['task', 'result', 'error', 'inputRequests', 'requestState', 'ttl', 'pollInterval']) {
    assert.equal(t[k], undefined, `${k} on a CreateTaskResult`);
  }
  return t.taskId;
}

// An empty result: resultType and, as on every result, the optional _meta.
function assertAck(r) {
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  const { _meta, ...rest } = r.result;
  assert.deepEqual(rest, { resultType: 'complete' });
}

function assertError(r, code, data) {
  assert.equal(r.result, undefined, JSON.stringify(r.result));
  assert.equal(r.error?.code, code, JSON.stringify(r.error));
  if (data !== undefined) assert.deepEqual(r.error.data, data);
}

// paint_task's task: two MRTR rounds, then a task with no work left, read until completed.
async function paintedTask() {
  const r1 = await call('paint_task', {});
  assert.equal(r1.result.resultType, 'input_required');
  const r2 = await rpc('tools/call', {
    name: 'paint_task', arguments: {}, requestState: r1.result.requestState,
    inputResponses: { color: { action: 'accept', content: { color: 'red' } } },
  }, DECLARING);
  const id = assertCreated(r2, r2.result?.status === 'working' ? 'working' : 'completed');
  for (let i = 0; i < 100 && (await get(id)).result?.status === 'working'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal((await get(id)).result?.status, 'completed');
  return id;
}

const checks = {
  async 'server/discover declares the extension'() {
    const r = await rpc('server/discover', {}, {});
    assert.deepEqual(r.result.capabilities.extensions, { [EXT]: {} });
    assert.equal(r.result.capabilities.tasks, undefined);
  },
  async 'tasks/get, tasks/update, tasks/cancel without the extension: -32021 naming it, HTTP 400'() {
    const known = await paintedTask();
    for (const taskId of [known, 'no-such-task']) {
      for (const r of [await get(taskId, {}), await update(taskId, {}, {}), await cancel(taskId, {})]) {
        assertError(r, -32021, REQUIRED);
        assert.equal(r.status, 400);
      }
    }
    // Another extension declared is not this one.
    assertError(await get(known, { extensions: { 'example.com/other': {} } }), -32021, REQUIRED);
    // The task was not touched by the refused cancel.
    assert.equal((await get(known)).result.status, 'completed');
  },
  async 'an unknown task id: -32602 on tasks/get, tasks/update, tasks/cancel'() {
    for (const r of [await get('no-such-task'), await update('no-such-task', {}), await cancel('no-such-task')]) {
      assertError(r, -32602);
    }
  },
  async 'tasks/cancel: an empty ack, and the task really ends cancelled'() {
    const id = assertCreated(await call('slow_compute', { seconds: 60, label: 'cancel me' }), 'working');
    const working = await get(id);
    assert.equal(working.result.resultType, 'complete');
    assert.equal(working.result.taskId, id);
    assert.equal(working.result.status, 'working');
    assert.equal(working.result.result, undefined);
    assertAck(await cancel(id));
    const after = await get(id);
    assert.equal(after.result.status, 'cancelled');
    assert.equal(after.result.result, undefined);
    assert.equal(after.result.error, undefined);
    // Cancelling again acknowledges the same way and changes nothing.
    assertAck(await cancel(id));
    assert.equal((await get(id)).result.status, 'cancelled');
  },
  async 'tasks/cancel on a finished task: the same ack, the task stays completed'() {
    const id = await paintedTask();
    assertAck(await cancel(id));
    const after = await get(id);
    assert.equal(after.result.status, 'completed');
    assert.deepEqual(after.result.result.content, [{ type: 'text', text: 'Painted it red.' }]);
  },
  async 'envelopes: tasks/get is a complete DetailedTask, tasks/update an empty ack'() {
    const id = await paintedTask();
    const r = await get(id);
    assert.equal(r.result.resultType, 'complete');
    assert.equal(r.result.requestState, undefined);
    assert.equal(r.result.inputRequests, undefined);
    assert.equal(r.result.error, undefined);
    assertAck(await update(id, { unasked: { action: 'accept', content: { x: 1 } } }));
  },
  async 'a task-only tool without the extension: -32021 naming it; an optional one runs synchronously'() {
    const r = await call('failing_job', {}, {});
    assertError(r, -32021, REQUIRED);
    assert.equal(r.status, 400);
    // Answered at once: 60 s of simulated work never holds the server (the request would time out).
    const sync = await call('slow_compute', { seconds: 60 }, {});
    assert.equal(sync.result.resultType, 'complete');
    assert.equal(sync.result.taskId, undefined);
    assert.match(sync.result.content[0].text, /done/);
  },
  async 'Mcp-Name on tasks/*: the task id, else -32020 (HTTP 400)'() {
    const id = await paintedTask();
    const r = await rpc('tasks/get', { taskId: id }, DECLARING, { 'mcp-name': 'another-task' });
    assertError(r, -32020);
    assert.equal(r.status, 400);
  },
  async 'the removed tasks/result and tasks/list: -32601'() {
    assertError(await rpc('tasks/result', { taskId: 'x' }, DECLARING), -32601);
    assertError(await rpc('tasks/list', {}, DECLARING), -32601);
  },
};

const results = {};
for (const [name, check] of Object.entries(checks)) {
  try {
    await check();
    results[name] = { status: 'pass' };
    console.log(`ok   ${name}`);
  } catch (e) {
    results[name] = { status: 'fail', error: String(e.stack ?? e).slice(0, 1500) };
    console.log(`FAIL ${name}\n     ${String(e.message ?? e).split('\n').join('\n     ')}`);
  }
}
await server.stop();
const file = path.join(ROOT, 'target', 'interop', `tasks-${opts.server}-http.json`);
const summary = writeSummary(file, { suite: 'tasks', server: opts.server, transport: 'http' }, results);
console.log(`tasks ${opts.server}/http: ${summary.passed} passed, ${summary.failed} failed`);
process.exit(summary.failed === 0 && summary.total > 0 ? 0 : 1);
