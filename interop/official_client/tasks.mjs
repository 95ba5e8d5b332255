// A task with an input phase, end to end, judged by the official Tasks
// extension package's own client helpers (@modelcontextprotocol/ext-tasks,
// core/v2): its capability checks must recognise the server as a Tasks
// server and its result guards and schemas must accept every step, so a
// client built on that package takes the task path.
//
//   node interop/official_client/tasks.mjs --server KIND --transport stdio|http
//
// KIND is a contract server (python, node: the tool confirm_delete) or an
// example (python-example, node-example: the tool report). The flow:
//   1. server/discover: hasTaskServerCapabilityV2 on its capabilities;
//   2. tools/call with withTaskCapabilityV2: isToolCallTaskResultV2 (flat
//      CreateTaskResult, no requestState, no inputRequests);
//   3. tasks/get until input_required: GetTaskResultV2Schema, the input
//      requests an InputRequestsV2Schema, every key new;
//   4. tasks/update accepting: UpdateTaskResultV2Schema;
//   5. tasks/get until completed: the result text;
//   6. the same tool without the extension declared: never a task
//      (isToolCallTaskResultV2 false), an MRTR round instead.
// Writes target/interop/tasks-ext-<server>-<transport>.json.
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  GetTaskResultV2Schema, InputRequestsV2Schema, UpdateTaskResultV2Schema, hasTaskClientCapabilityV2,
  hasTaskServerCapabilityV2, isDetailedTaskV2, isToolCallTaskResultV2, withTaskCapabilityV2,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { ROOT, rawClient, writeSummary } from '../lib/servers.mjs';

const { values: opts } = parseArgs({ options: { server: { type: 'string' }, transport: { type: 'string' } } });
const FLOWS = {
  python: { tool: 'confirm_delete', args: { filename: 'notes.txt' }, content: { confirm: true }, text: 'Deleted notes.txt.' },
  'python-example': { tool: 'report', args: {}, content: { format: 'table' }, text: 'as a table' },
};
FLOWS.node = FLOWS.python;
FLOWS['node-example'] = FLOWS['python-example'];
if (!Object.hasOwn(FLOWS, opts.server) || !['stdio', 'http'].includes(opts.transport)) {
  console.error(`usage: tasks.mjs --server ${Object.keys(FLOWS).join('|')} --transport stdio|http`);
  process.exit(2);
}
const flow = FLOWS[opts.server];
const VERSION = '2026-07-28';
const CAPS = { elicitation: { form: {} } };

const { send, close } = await rawClient(opts.server, opts.transport);
let nextId = 1;
function request(method, params, caps = CAPS) {
  const meta = { 'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 'ext-tasks-checks', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': caps };
  return send({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: { ...meta, ...params._meta } } });
}
/** Params that declare the extension, as the package's own helper writes them. */
function declaring(params) {
  const withCaps = { ...params, _meta: { 'io.modelcontextprotocol/clientCapabilities': CAPS } };
  const out = withTaskCapabilityV2(withCaps);
  assert.ok(hasTaskClientCapabilityV2(out), 'withTaskCapabilityV2 declares the extension');
  return out;
}
const tasksRequest = (method, params) => {
  const p = declaring(params);
  return request(method, p, p._meta['io.modelcontextprotocol/clientCapabilities']);
};
async function until(taskId, statuses) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { result, error } = await tasksRequest('tasks/get', { taskId });
    assert.equal(error, undefined, `tasks/get: ${JSON.stringify(error)}`);
    GetTaskResultV2Schema.parse(result);
    if (statuses.includes(result.status) || Date.now() > deadline) return result;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const results = {};
async function check(name, fn) {
  try {
    results[name] = { status: 'pass', detail: await fn() };
    console.log(`ok   ${name}`);
  } catch (e) {
    results[name] = { status: 'fail', error: String(e?.stack ?? e).slice(0, 1500) };
    console.log(`FAIL ${name}: ${e?.message ?? e}`);
  }
}

await check('discover: hasTaskServerCapabilityV2', async () => {
  const { result } = await request('server/discover', {});
  assert.ok(hasTaskServerCapabilityV2(result.capabilities), JSON.stringify(result.capabilities));
  return 'the server is recognised as a Tasks server';
});
let taskId;
await check('tools/call: isToolCallTaskResultV2', async () => {
  const { result } = await tasksRequest('tools/call', { name: flow.tool, arguments: flow.args });
  assert.ok(isToolCallTaskResultV2('tools/call', result), JSON.stringify(result));
  assert.equal(result.requestState, undefined);
  assert.equal(result.inputRequests, undefined);
  taskId = result.taskId;
  return `task ${result.status}`;
});
const used = new Set();
await check('input phase: tasks/get input_required, tasks/update, completed', async () => {
  const waiting = await until(taskId, ['input_required']);
  assert.ok(isDetailedTaskV2(waiting), JSON.stringify(waiting));
  assert.equal(waiting.status, 'input_required', JSON.stringify(waiting));
  const asks = InputRequestsV2Schema.parse(waiting.inputRequests);
  const keys = Object.keys(asks);
  assert.equal(keys.length, 1, JSON.stringify(asks));
  keys.forEach((k) => used.add(k));
  const answer = { action: 'accept', content: flow.content };
  const ack = await tasksRequest('tasks/update', { taskId, inputResponses: { [keys[0]]: answer } });
  UpdateTaskResultV2Schema.parse(ack.result);
  assert.deepEqual(ack.result, { resultType: 'complete' });
  const done = await until(taskId, ['completed', 'failed', 'cancelled']);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.inputRequests, undefined);
  const text = done.result.content[0].text;
  assert.ok(text.includes(flow.text), text);
  return text;
});
await check('without the extension: an MRTR round, never a task', async () => {
  const { result } = await request('tools/call', { name: flow.tool, arguments: flow.args });
  assert.ok(!isToolCallTaskResultV2('tools/call', result), JSON.stringify(result));
  assert.equal(result.resultType, 'input_required', JSON.stringify(result));
  assert.ok(typeof result.requestState === 'string');
  return `asks ${Object.keys(result.inputRequests).join(', ')} by MRTR`;
});
await close();

const file = path.join(ROOT, 'target', 'interop', `tasks-ext-${opts.server}-${opts.transport}.json`);
const summary = writeSummary(file, { suite: 'tasks-ext', server: opts.server, transport: opts.transport }, results);
console.log(`tasks-ext ${opts.server}/${opts.transport}: ${summary.passed} passed, ${summary.failed} failed`);
process.exit(summary.failed === 0 ? 0 : 1);
