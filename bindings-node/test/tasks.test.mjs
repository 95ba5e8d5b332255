// The task runner (snodo-mrtr/tasks) on the core's task machine: one
// handler inline and as a task, input asked in a task and answered in parts,
// cancellation racing a run, the gates, a failed store; then two runners,
// each with its own Redis client, sharing tasks on a private redis-server.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { createClient } from 'redis';
import {
  Call, DEFAULT_TASK_POLL_MS, DEFAULT_TASK_TTL_MS, Engine, MemoryTaskStore, TASK_CREATE_SCRIPT, TaskCommand, TaskStep,
  complete, elicitForm, inputRequired, runAsTask, taskRequiredCapabilities,
} from '../index.js';
import { Tasks } from '../tasks.mjs';
import { RedisStore } from '../once.mjs';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
const PLAIN = { elicitation: { form: {} } };
const meta = (caps) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps,
});
const engine = () => new Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 9) }] });

const A = elicitForm('First?', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
const B = elicitForm('Second?', { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] });
const accept = (content) => ({ action: 'accept', content });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

/**
 * A server's handlers and its router. `pair` hands itself on, then asks two
 * questions at once and answers with both (or says it was declined);
 * `slow` hands itself on, then waits for `release()` before completing.
 */
function server() {
  const runs = [];
  const seen = [];
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const handlers = {
    pair(call) {
      if (call.state === null) return runAsTask({ phase: 'ask' });
      const [a, b] = [call.response('a', A), call.response('b', B)];
      if (a.kind === 'declined') return complete(text('declined'));
      if (a.kind !== 'accepted' || b.kind !== 'accepted') return inputRequired({ a: A, b: B }, { phase: 'read' });
      return complete(text(`${a.value.a} and ${b.value.b}`));
    },
    async slow(call) {
      if (call.state === null) return runAsTask({ phase: 'work' });
      seen.push(call);
      await gate;
      return complete(text('done'));
    },
  };
  const route = (call) => {
    runs.push({ name: call.name, taskId: call.taskId, state: call.state });
    return handlers[call.name](call);
  };
  return { route, runs, seen, release };
}

let ids = 0;
function begin(e, method, params, caps = TASKS, principal = 'alice') {
  const call = e.begin({ jsonrpc: '2.0', id: ++ids, method, params: { ...params, _meta: meta(caps) } }, principal);
  assert.ok(call instanceof Call, `not a call: ${call.json}`);
  return call;
}

const body = (r) => JSON.parse(r.json);
const result = (r) => body(r).result;

async function create(t, e, name, caps = TASKS) {
  const r = await t.answer(begin(e, 'tools/call', { name }, caps));
  const created = result(r);
  assert.equal(created.resultType, 'task', r.json);
  assert.equal(created.status, 'working');
  assert.equal(created.ttlMs, DEFAULT_TASK_TTL_MS);
  assert.equal(created.pollIntervalMs, DEFAULT_TASK_POLL_MS);
  return created.taskId;
}

const get = async (t, e, taskId, principal) => t.answer(begin(e, 'tasks/get', { taskId }, TASKS, principal));
const update = (t, e, taskId, inputResponses) => t.answer(begin(e, 'tasks/update', { taskId, inputResponses }));

test('a handler without the extension runs inline in the request: its questions are MRTR rounds', async () => {
  const e = engine();
  const s = server();
  const t = new Tasks(e, s.route);
  const first = await t.answer(begin(e, 'tools/call', { name: 'pair' }, PLAIN));
  const asked = result(first);
  assert.equal(asked.resultType, 'input_required', first.json);
  assert.deepEqual(Object.keys(asked.inputRequests).sort(), ['a', 'b'], 'the handler\'s own keys: no task');
  assert.deepEqual(s.runs.map((r) => [r.taskId, r.state]), [[null, null], [null, { phase: 'ask' }]]);
  const retry = begin(e, 'tools/call', {
    name: 'pair', requestState: asked.requestState, inputResponses: { a: accept({ a: 'x' }), b: accept({ b: 'y' }) },
  }, PLAIN);
  const done = await t.answer(retry);
  assert.equal(result(done).content[0].text, 'x and y');
  assert.equal(t.store.size, 0, 'no task was stored');
});

test('as a task: two questions under minted keys, answered in two tasks/update, the handler runs again', async () => {
  const e = engine();
  const s = server();
  const t = new Tasks(e, s.route);
  const taskId = await create(t, e, 'pair');
  await t.idle();
  const waiting = result(await get(t, e, taskId));
  assert.equal(waiting.status, 'input_required');
  assert.deepEqual(Object.keys(waiting.inputRequests).sort(), ['a@1', 'b@1']);
  assert.equal(waiting.inputRequests['a@1'].params.message, 'First?');

  // A partial answer: acknowledged, the task waits for the rest.
  assert.equal(result(await update(t, e, taskId, { 'a@1': accept({ a: 'x' }) })).resultType, 'complete');
  await t.idle();
  const rest = result(await get(t, e, taskId));
  assert.equal(rest.status, 'input_required');
  assert.deepEqual(Object.keys(rest.inputRequests), ['b@1']);
  assert.equal(s.runs.length, 2, 'no run until every key is answered');

  await update(t, e, taskId, { 'b@1': accept({ b: 'y' }) });
  await t.idle();
  const done = result(await get(t, e, taskId));
  assert.equal(done.status, 'completed');
  assert.equal(done.result.content[0].text, 'x and y');
  assert.deepEqual(s.runs.map((r) => r.taskId), [null, taskId, taskId]);
  assert.deepEqual(s.runs[2].state, { phase: 'read' });
  // An answer to a task that no longer waits changes nothing.
  assert.equal(result(await update(t, e, taskId, { 'b@1': accept({ b: 'z' }) })).resultType, 'complete');
  await t.idle();
  assert.equal(s.runs.length, 3);
});

test('a declined answer reaches the handler', async () => {
  const e = engine();
  const s = server();
  const t = new Tasks(e, s.route);
  const taskId = await create(t, e, 'pair');
  await t.idle();
  await update(t, e, taskId, { 'a@1': { action: 'decline' }, 'b@1': { action: 'decline' } });
  await t.idle();
  const done = result(await get(t, e, taskId));
  assert.equal(done.status, 'completed');
  assert.equal(done.result.content[0].text, 'declined');
});

test('cancel while a run is in flight: the task ends cancelled and stays so when the run ends', async () => {
  const e = engine();
  const s = server();
  const t = new Tasks(e, s.route);
  // The request answers while its run waits: the run is not awaited.
  const taskId = await create(t, e, 'slow');
  assert.equal(s.runs.length, 2, 'the run started');
  assert.equal(result(await get(t, e, taskId)).status, 'working');
  const [run] = s.seen;
  assert.equal(await t.status(run), 'working', 'the run reads its own task');
  assert.equal(result(await t.answer(begin(e, 'tasks/cancel', { taskId }))).resultType, 'complete');
  assert.equal(result(await get(t, e, taskId)).status, 'cancelled');
  assert.equal(await t.status(run), 'cancelled', 'the run can learn it was cancelled');
  await assert.rejects(t.status(begin(e, 'tools/call', { name: 'slow' })), (x) => x.code === 'ARGUMENT');
  s.release();
  await t.idle();
  const after = result(await get(t, e, taskId));
  assert.equal(after.status, 'cancelled');
  assert.equal(after.result, undefined, 'the late run stored nothing');
});

test('the gates: unknown and foreign tasks -32602, no extension -32021, tasks/result -32601', async () => {
  const e = engine();
  const s = server();
  const t = new Tasks(e, s.route);
  const taskId = await create(t, e, 'pair');
  await t.idle();
  assert.equal(body(await get(t, e, 'no-such-task')).error.code, -32602);
  const foreign = body(await get(t, e, taskId, 'bob'));
  assert.equal(foreign.error.code, -32602, 'another principal\'s task is not found');
  assert.deepEqual(foreign.error, body(await get(t, e, 'no-such-task', 'bob')).error);
  const undeclared = await t.answer(begin(e, 'tasks/get', { taskId }, PLAIN));
  assert.equal(body(undeclared).error.code, -32021);
  assert.deepEqual(body(undeclared).error.data.requiredCapabilities, taskRequiredCapabilities());
  const removed = await t.answer(begin(e, 'tasks/result', { taskId }));
  assert.equal(body(removed).error.code, -32601);
  assert.equal(removed.httpStatus, 404);
});

test('a required tool refuses an undeclared client with -32021 before its handler runs', async () => {
  const e = engine();
  const s = server();
  const t = new Tasks(e, s.route, { required: ['slow'] });
  const r = await t.answer(begin(e, 'tools/call', { name: 'slow' }, PLAIN));
  assert.equal(body(r).error.code, -32021, r.json);
  assert.deepEqual(body(r).error.data, { requiredCapabilities: taskRequiredCapabilities() });
  assert.equal(r.httpStatus, 400);
  assert.equal(s.runs.length, 0);
  // Declared: it runs, as a task.
  await create(t, e, 'slow');
  s.release();
  await t.idle();
});

test('a failed store answers -32603 and starts no run', async () => {
  const e = engine();
  const s = server();
  const errors = [];
  const failing = { execute: async () => { throw new Error('connection refused'); } };
  const t = new Tasks(e, s.route, { store: failing });
  const logged = console.error;
  console.error = (...args) => errors.push(args.join(' '));
  let r;
  try {
    r = await t.answer(begin(e, 'tools/call', { name: 'pair' }));
    await t.idle();
  } finally {
    console.error = logged;
  }
  assert.equal(body(r).error.code, -32603, r.json);
  assert.match(body(r).error.message, /task store unavailable/);
  assert.equal(s.runs.length, 1, 'the handler ran once, in the request; no run of a task followed');
  assert.match(errors.join('\n'), /task store create failed: connection refused/);
});

test('the binding: a step finishes once, its command runs on the memory store, bad arguments throw', () => {
  const e = engine();
  const call = begin(e, 'tools/call', { name: 'pair' });
  const step = e.taskStep(call, runAsTask({ phase: 'ask' }));
  assert.ok(step instanceof TaskStep);
  const { command } = step;
  assert.ok(command instanceof TaskCommand);
  assert.equal(command.op, 'create');
  assert.equal(command.script, TASK_CREATE_SCRIPT);
  assert.match(command.key, /^snodo:task:\{.+\}$/);
  const store = new MemoryTaskStore(1);
  const done = step.finish(store.execute(command));
  assert.equal(body(done.response).result.resultType, 'task');
  assert.ok(done.leg instanceof Call);
  assert.equal(done.leg.taskId, body(done.response).result.taskId);
  assert.equal(store.size, 1);
  assert.throws(() => step.finish(null), (x) => x.code === 'ALREADY_DECIDED');
  assert.equal(step.command, null);
  // The store holds one task: one more is STORE, never an eviction.
  const more = e.taskStep(begin(e, 'tools/call', { name: 'pair' }), runAsTask());
  assert.throws(() => store.execute(more.command), (x) => x.code === 'STORE' && /full/.test(x.message));
  for (const bad of [0, -1, 1.5, NaN]) {
    assert.throws(() => new MemoryTaskStore(bad), (x) => x.code === 'CONFIG', String(bad));
  }
  // A run without an outcome reads its own task; a request needs one.
  const own = e.taskStep(done.leg);
  assert.equal(own.command.op, 'get');
  assert.equal(body(own.finish(store.execute(own.command)).response).result.status, 'working');
  assert.throws(() => e.taskStep(begin(e, 'tools/call', { name: 'pair' })), (x) => x.code === 'ARGUMENT');
  assert.throws(() => new Tasks(e, 'route'), (x) => x.code === 'ARGUMENT');
  assert.throws(() => new Tasks(e, () => null, { store: {} }), (x) => x.code === 'ARGUMENT');
  for (const required of ['slow', null, 7, [1]]) {
    assert.throws(() => new Tasks(e, () => null, { required }), (x) => x.code === 'ARGUMENT', String(required));
  }
});

/** A free loopback TCP port. */
const freePort = () => new Promise((resolve, reject) => {
  const srv = net.createServer();
  srv.on('error', reject);
  srv.listen(0, '127.0.0.1', () => {
    const { port } = srv.address();
    srv.close(() => resolve(port));
  });
});

test('on Redis: a task created by one runner is polled, answered and cancelled through another', async () => {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const clients = [];
  const connect = async () => {
    for (let i = 0; i < 100; i++) {
      const c = createClient({ url: `redis://127.0.0.1:${port}/`, socket: { reconnectStrategy: false } });
      c.on('error', () => {});
      try {
        await c.connect();
        clients.push(c);
        return c;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    throw new Error('the private redis-server did not start');
  };
  try {
    const e = engine();
    const s = server();
    const one = new Tasks(e, s.route, { store: new RedisStore({ client: await connect() }) });
    const two = new Tasks(e, s.route, { store: new RedisStore({ client: await connect() }) });

    const taskId = await create(one, e, 'pair');
    await one.idle();
    const waiting = result(await get(two, e, taskId));
    assert.equal(waiting.status, 'input_required');
    assert.deepEqual(Object.keys(waiting.inputRequests).sort(), ['a@1', 'b@1']);
    await update(two, e, taskId, { 'a@1': accept({ a: 'x' }) });
    await update(one, e, taskId, { 'b@1': accept({ b: 'y' }) });
    await one.idle();
    const done = result(await get(two, e, taskId));
    assert.equal(done.status, 'completed');
    assert.equal(done.result.content[0].text, 'x and y');
    assert.equal(body(await get(two, e, taskId, 'bob')).error.code, -32602, 'foreign on Redis too');

    const slow = await create(one, e, 'slow');
    await two.answer(begin(e, 'tasks/cancel', { taskId: slow }));
    assert.equal(await one.status(s.seen.at(-1)), 'cancelled', 'the run on one learns of the cancel on two');
    s.release();
    await one.idle();
    assert.equal(result(await get(one, e, slow)).status, 'cancelled');
    assert.ok(await clients[0].exists(`snodo:task:{${slow}}`), 'the task lives in Redis');
  } finally {
    for (const c of clients) c.destroy();
    child.kill();
    await exited;
  }
});
