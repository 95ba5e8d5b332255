// Smoke test of the Node contract server (interop/servers/node/server.mjs)
// against a few points of interop/CONTRACT.md, over stdio and Streamable
// HTTP (127.0.0.1, a port the OS picks, every wait bounded). The interop
// suites test the whole contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TASK_TTL_MS } from '../index.js';

const SERVER = fileURLToPath(new URL('../../interop/servers/node/server.mjs', import.meta.url));
const KEY_A = `k1:${'ab'.repeat(32)}`;
const meta = (caps = { elicitation: {} }) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': caps,
});
const msg = (id, method, params = {}, caps) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(caps) } });
const retry = (id, first, r1, inputResponses, caps) => msg(id, first.method, {
  ...first.params, requestState: r1.result.requestState, inputResponses,
}, caps);

function start(args, env = { SNODO_KEYS: KEY_A }) {
  const child = spawn(process.execPath, [SERVER, ...args], {
    env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  const timer = setTimeout(() => child.kill(), 15_000); // never outlive the test
  child.on('exit', () => clearTimeout(timer));
  child.stderrText = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { child.stderrText += d; });
  return child;
}

// Exit code and stderr of a server that is expected to stop on its own.
async function finish(child) {
  child.stdin.end();
  const [code] = await once(child, 'exit');
  return { code, err: child.stderrText };
}

test('stdio: preference flow round trip, -32601, silence for notifications, exit 0 on EOF', { timeout: 20_000 }, async () => {
  const child = start(['--stdio']);
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ask = async (m) => {
    child.stdin.write(`${JSON.stringify(m)}\n`);
    return JSON.parse((await lines.next()).value); // every stdout line is a JSON-RPC response
  };
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n\n'); // no answer, blank line skipped
  const first = msg(0, 'tools/call', { name: 'preferred_color' });
  const r1 = await ask(first);
  assert.equal(r1.id, 0);
  assert.equal(r1.result.resultType, 'input_required');
  assert.deepEqual(Object.keys(r1.result.inputRequests), ['color']);
  assert.match(r1.result.requestState, /^v1\.k1\./);
  const r2 = await ask(retry(1, first, r1, { color: { action: 'accept', content: { color: 'blue' } } }));
  assert.equal(r2.result.resultType, 'complete');
  assert.equal(r2.result.content[0].text, 'Your preferred color is blue.');
  assert.deepEqual(r2.result._meta['io.modelcontextprotocol/serverInfo'].name, 'snodo-node-example');
  const cancel = await ask(retry(2, first, r1, { color: { action: 'cancel' } }));
  assert.equal(cancel.result.isError, true);
  assert.equal(cancel.result.content[0].text, 'You cancelled the color question.');

  // book_table: an accepted answer rides in the state and is not asked again.
  const book = msg(3, 'tools/call', { name: 'book_table' });
  const b1 = await ask(book);
  assert.deepEqual(Object.keys(b1.result.inputRequests), ['date', 'guests']);
  const b2 = await ask(retry(4, book, b1, {
    date: { action: 'accept', content: { date: '2026-09-01' } },
    guests: { action: 'accept', content: { guests: 12 } }, // invalid: maximum 8
  }));
  assert.deepEqual(Object.keys(b2.result.inputRequests), ['guests']);
  const b3 = await ask(retry(5, book, b2, { guests: { action: 'accept', content: { guests: 4 } } }));
  assert.equal(b3.result.content[0].text, 'Booked a table for 4 on 2026-09-01.');

  const ping = await ask(msg(6, 'ping'));
  assert.deepEqual(ping.error, { code: -32601, message: 'Method not found: ping' });
  const { code } = await finish(child);
  assert.equal(code, 0, 'exits 0 on stdin EOF');
});

test('SNODO_KEYS: empty warns, malformed or invalid exits 2, url-safe base64 works', { timeout: 20_000 }, async () => {
  const dev = await finish(start(['--stdio'], { SNODO_KEYS: '' }));
  assert.equal(dev.code, 0);
  assert.match(dev.err, /SNODO_KEYS/);
  for (const keys of ['k1', `:${'ab'.repeat(32)}`, 'k1:', 'k1:not*base64', `k1:${'ab'.repeat(32)},`,
    'k1:abcd', /* CONFIG: too short */ `k1:${'ab'.repeat(32)},k1:${'cd'.repeat(32)}` /* duplicate id */]) {
    const { code, err } = await finish(start(['--stdio'], { SNODO_KEYS: keys }));
    assert.equal(code, 2, `SNODO_KEYS=${keys}`);
    assert.match(err, /SNODO_KEYS/);
  }
  const urlSafe = Buffer.alloc(33, 0xfb).toString('base64url'); // '-' and '_', no padding
  const child = start(['--stdio'], { SNODO_KEYS: `new:${urlSafe},k1:${'ab'.repeat(32)}` });
  child.stdin.write(`${JSON.stringify(msg(0, 'server/discover'))}\n`);
  const [line] = await once(readline.createInterface({ input: child.stdout }), 'line');
  assert.deepEqual(JSON.parse(line).result.capabilities, {
    tools: {}, resources: {}, prompts: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } });
  assert.equal((await finish(child)).code, 0);
});

async function startHttp(env) {
  const child = start(['--http', '0'], env);
  const port = await new Promise((resolve, reject) => {
    child.stderr.on('data', () => {
      const m = /^listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp$/m.exec(child.stderrText);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`server exited: ${child.stderrText}`)));
  });
  // Posts `body` with the request-metadata headers it implies (override with `headers`).
  const post = async (body, headers = {}, { path = '/mcp', method = 'POST' } = {}) => {
    const auto = body?.method ? {
      'mcp-protocol-version': '2026-07-28', 'mcp-method': body.method,
      ...(body.params?.name ? { 'mcp-name': body.params.name } : {}),
      ...(body.params?.uri ? { 'mcp-name': body.params.uri } : {}),
    } : {};
    const all = Object.entries({ 'content-type': 'application/json', ...auto, ...headers });
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method, headers: Object.fromEntries(all.filter(([, v]) => v !== undefined)), // undefined = leave out
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
  };
  return { child, post, port };
}

test('HTTP: headers (-32020), principal, scale-out, 404/405/413/202', { timeout: 30_000 }, async () => {
  const a = await startHttp({ SNODO_KEYS: KEY_A });
  const b = await startHttp({ SNODO_KEYS: `k2:${'cd'.repeat(32)},${KEY_A}` }); // rotated
  try {
    const d = await a.post(msg('p', 'server/discover'));
    assert.equal(d.status, 200);
    assert.deepEqual(d.body.result.supportedVersions, ['2026-07-28']);
    assert.equal(d.body.result.cacheScope, 'private');

    // Round 1 on A as alice; the retry under another bearer fails, on B (same old key) it completes.
    const first = msg(0, 'resources/read', { uri: 'prefs://color' });
    const r1 = await a.post(first, { authorization: 'Bearer alice' });
    assert.equal(r1.body.result.resultType, 'input_required');
    assert.equal(r1.body.result.ttlMs, undefined, 'no cache hints on input_required');
    const answer = { color: { action: 'accept', content: { color: 'green' } } };
    const bob = await a.post(retry(1, first, r1.body, answer), { authorization: 'Bearer bob' });
    assert.equal(bob.status, 200);
    assert.equal(bob.body.error.code, -32602);
    assert.equal(bob.body.error.data.reason, 'principal');
    const ok = await b.post(retry(2, first, r1.body, answer), { authorization: 'Bearer alice' });
    assert.equal(ok.body.result.contents[0].text, 'green');
    assert.equal(ok.body.result.ttlMs, 0);

    // Header checks, before begin, with the exact error body.
    const call = msg(7, 'tools/call', { name: 'preferred_color' });
    const noVersion = await a.post(call, { 'mcp-protocol-version': undefined });
    assert.equal(noVersion.status, 400);
    assert.deepEqual(JSON.parse(noVersion.text),
      { jsonrpc: '2.0', id: 7, error: { code: -32020, message: 'Header mismatch: MCP-Protocol-Version header missing' } });
    for (const headers of [{ 'mcp-protocol-version': '2025-11-25' }, { 'mcp-method': 'tools/list' },
      { 'mcp-name': undefined }, { 'mcp-name': 'book_table' }]) {
      const r = await a.post(call, headers);
      assert.equal(r.status, 400, JSON.stringify(headers));
      assert.equal(r.body.error.code, -32020);
    }
    // A standard header sent twice is a mismatch (the server passes
    // req.rawHeaders; req.headers would have joined the two values).
    const twice = await new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: a.port, path: '/mcp', method: 'POST', timeout: 5000 }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d) => { text += d; }).on('end', () => resolve({ status: res.statusCode, text }));
      });
      req.on('error', reject);
      req.setHeader('content-type', 'application/json');
      req.setHeader('mcp-protocol-version', '2026-07-28');
      req.setHeader('mcp-method', 'tools/call');
      req.setHeader('mcp-name', ['preferred_color', 'preferred_color']);
      req.end(JSON.stringify(call));
    });
    assert.equal(twice.status, 400);
    assert.equal(JSON.parse(twice.text).error.message, 'Header mismatch: Mcp-Name header sent more than once');
    const encoded = `=?base64?${Buffer.from('preferred_color').toString('base64')}?=`;
    assert.equal((await a.post(call, { 'mcp-name': encoded })).status, 200);
    const noMeta = await a.post({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} });
    assert.equal(noMeta.status, 400);
    assert.equal(noMeta.body.error.code, -32602, 'missing _meta: left to begin');

    const ping = await a.post(msg(9, 'ping'));
    assert.equal(ping.status, 404);
    assert.equal(ping.body.error.code, -32601);
    const other = await a.post(msg(10, 'tools/list'), {}, { path: '/other' });
    assert.deepEqual([other.status, other.text], [404, '']);
    const get = await a.post(undefined, {}, { method: 'GET' });
    assert.deepEqual([get.status, get.headers.get('allow'), get.text], [405, 'POST', '']);
    const note = await a.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.deepEqual([note.status, note.text], [202, '']);
    const bad = await a.post('{"jsonrpc":');
    assert.equal(bad.body.error.code, -32700);
    const big = await a.post(`{"x":"${'a'.repeat(4 << 20)}"}`);
    assert.equal(big.status, 413);
  } finally {
    a.child.kill();
    b.child.kill();
  }
});

test('stdio: paint_task answers with a task when the client declares the Tasks extension', { timeout: 20_000 }, async () => {
  const child = start(['--stdio']);
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ask = async (m) => {
    child.stdin.write(`${JSON.stringify(m)}\n`);
    return JSON.parse((await lines.next()).value);
  };
  const tasksCaps = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const first = msg(0, 'tools/call', { name: 'paint_task' }, tasksCaps);
  const r1 = await ask(first);
  assert.deepEqual(Object.keys(r1.result.inputRequests), ['color']);
  const r2 = await ask(retry(1, first, r1, { color: { action: 'accept', content: { color: 'red' } } }, tasksCaps));
  // snodo's CreateTaskResult: the task is stored working; its run paints in the background.
  assert.equal(r2.result.resultType, 'task');
  assert.equal(r2.result.status, 'working');
  assert.match(r2.result.taskId, /^[A-Za-z0-9_-]{24}$/);
  assert.match(r2.result.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(r2.result.ttlMs, DEFAULT_TASK_TTL_MS);
  assert.equal(r2.result.inputRequests, undefined);
  assert.equal(r2.result.requestState, undefined);

  let got;
  for (let i = 0; i < 50 && got?.result?.status !== 'completed'; i++) {
    got = await ask(msg(2, 'tasks/get', { taskId: r2.result.taskId }, tasksCaps));
  }
  assert.equal(got.result.taskId, r2.result.taskId);
  assert.equal(got.result.status, 'completed');
  assert.deepEqual(got.result.result.content, [{ type: 'text', text: 'Painted it red.' }]);
  const upd = await ask(msg(3, 'tasks/update', {
    taskId: r2.result.taskId, inputResponses: { unasked: { action: 'accept', content: { x: 1 } } } }, tasksCaps));
  assert.equal(upd.result.resultType, 'complete');
  const unknown = await ask(msg(4, 'tasks/get', { taskId: 'nope' }, tasksCaps));
  assert.deepEqual(unknown.error, { code: -32602, message: 'Task not found' });

  // Without the extension the same flow ends with the plain result.
  const plain = msg(5, 'tools/call', { name: 'paint_task' });
  const p1 = await ask(plain);
  const p2 = await ask(retry(6, plain, p1, { color: { action: 'accept', content: { color: 'blue' } } }));
  assert.equal(p2.result.resultType, 'complete');
  assert.equal(p2.result.content[0].text, 'Painted it blue.');
  const declined = await ask(retry(7, plain, p1, { color: { action: 'decline' } }));
  assert.equal(declined.result.isError, true);
  assert.equal(declined.result.content[0].text, 'No color chosen: nothing painted.');
  assert.equal((await finish(child)).code, 0);
});

test('stdio: a declined or cancelled answer ends a conformance fixture; it is never asked again', { timeout: 20_000 }, async () => {
  const child = start(['--stdio']);
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ask = async (m) => {
    child.stdin.write(`${JSON.stringify(m)}\n`);
    return JSON.parse((await lines.next()).value);
  };
  const caps = { elicitation: {}, sampling: {}, roots: {} };
  let id = 0;
  const ended = (key) => `No answer to ${key}: the user declined or cancelled.`;
  for (const action of ['decline', 'cancel']) {
    const hello = msg(id++, 'tools/call', { name: 'test_input_required_result_elicitation' }, caps);
    const h1 = await ask(hello);
    assert.deepEqual(Object.keys(h1.result.inputRequests), ['user_name']);
    const h2 = await ask(retry(id++, hello, h1, { user_name: { action } }, caps));
    assert.equal(h2.result.resultType, 'complete', `${action}: a final result, not the question again`);
    assert.equal(h2.result.isError, true);
    assert.equal(h2.result.content[0].text, ended('user_name'));
    // Several questions: one declined ends the flow even when the others are answered.
    const many = msg(id++, 'tools/call', { name: 'test_input_required_result_multiple_inputs' }, caps);
    const m1 = await ask(many);
    const m2 = await ask(retry(id++, many, m1, {
      user_name: { action }, greeting: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' },
      client_roots: { roots: [{ uri: 'file:///tmp' }] },
    }, caps));
    assert.equal(m2.result.content?.[0]?.text, ended('user_name'), `${action}: ${JSON.stringify(m2)}`);
    // The multi-round fixture, at its first and at its second step.
    const multi = msg(id++, 'tools/call', { name: 'test_input_required_result_multi_round' }, caps);
    const r1 = await ask(multi);
    const r2 = await ask(retry(id++, multi, r1, { step1: { action } }, caps));
    assert.equal(r2.result.content?.[0]?.text, ended('step1'));
    const r2ok = await ask(retry(id++, multi, r1, { step1: { action: 'accept', content: { name: 'Ada' } } }, caps));
    assert.deepEqual(Object.keys(r2ok.result.inputRequests), ['step2']);
    const r3 = await ask(retry(id++, multi, r2ok, { step2: { action } }, caps));
    assert.equal(r3.result.content?.[0]?.text, ended('step2'));
    // A prompt has no tool error: a -32602 error ends it.
    const prompt = msg(id++, 'prompts/get', { name: 'test_input_required_result_prompt' }, caps);
    const p1 = await ask(prompt);
    const p2 = await ask(retry(id++, prompt, p1, { user_context: { action } }, caps));
    assert.deepEqual(p2.error, { code: -32602, message: ended('user_context') });
  }
  assert.equal((await finish(child)).code, 0);
});
