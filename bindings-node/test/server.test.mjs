// Smoke test of examples/server.mjs over stdio and Streamable HTTP
// (127.0.0.1, a port the OS picks, every wait bounded).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../examples/server.mjs', import.meta.url));
const KEYS = `k1:${'ab'.repeat(32)},old:${Buffer.alloc(32, 3).toString('base64')}`;
const meta = (caps = { elicitation: {} }) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': caps,
});
const msg = (id, method, params = {}, caps) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(caps) } });

function start(args, env = { SNODO_KEYS: KEYS }) {
  const child = spawn(process.execPath, [SERVER, ...args], {
    env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  const timer = setTimeout(() => child.kill(), 15_000); // never outlive the test
  child.on('exit', () => clearTimeout(timer));
  return child;
}

test('example server over stdio: a two-round tool flow', { timeout: 20_000 }, async () => {
  const child = start(['--stdio']);
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ask = async (m) => {
    child.stdin.write(`${JSON.stringify(m)}\n`);
    return JSON.parse((await lines.next()).value);
  };
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'); // no answer
  const r1 = await ask(msg(0, 'tools/call', { name: 'preferred_color' }));
  assert.equal(r1.id, 0);
  assert.equal(r1.result.resultType, 'input_required');
  assert.match(r1.result.requestState, /^v1\.k1\./);
  const r2 = await ask(msg(1, 'tools/call', {
    name: 'preferred_color', requestState: r1.result.requestState,
    inputResponses: { color: { action: 'accept', content: { color: 'blue' } } },
  }));
  assert.equal(r2.result.resultType, 'complete');
  assert.equal(r2.result.content[0].text, 'Your preferred color is blue.');
  child.stdin.end();
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, 'exits on stdin EOF');
});

test('example server warns without SNODO_KEYS', { timeout: 20_000 }, async () => {
  const child = start(['--stdio'], { SNODO_KEYS: '' });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  child.stdin.end();
  await once(child, 'exit');
  assert.match(err, /warning: SNODO_KEYS is not set/);
});

test('example server over HTTP: discover, MRTR, -32021, tampering, 202', { timeout: 20_000 }, async () => {
  const child = start(['--http', '0']);
  try {
    let err = '';
    const port = await new Promise((resolve, reject) => {
      child.stderr.on('data', (d) => {
        err += d;
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(err);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', () => reject(new Error(`server exited: ${err}`)));
    });
    const post = async (body) => {
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body), signal: AbortSignal.timeout(5000),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    const d = await post(msg('p', 'server/discover'));
    assert.equal(d.status, 200);
    assert.deepEqual(d.body.result.supportedVersions, ['2026-07-28']);
    assert.equal(d.body.result.ttlMs, 0);

    const r1 = await post(msg(0, 'tools/call', { name: 'test_input_required_result_elicitation' }));
    assert.ok(r1.body.result.inputRequests.user_name);
    const r2 = await post(msg(1, 'tools/call', {
      name: 'test_input_required_result_elicitation', requestState: r1.body.result.requestState,
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
    }));
    assert.equal(r2.body.result.content[0].text, 'Hello, Alice!');

    const res = await post(msg(2, 'resources/read', { uri: 'prefs://color' }));
    assert.equal(res.body.result.resultType, 'input_required');
    assert.equal(res.body.result.ttlMs, undefined, 'no cache hints on input_required');

    const state = await post(msg(3, 'tools/call', { name: 'test_input_required_result_request_state' }));
    const tampered = await post(msg(4, 'tools/call', {
      name: 'test_input_required_result_request_state', requestState: `${state.body.result.requestState}-TAMPERED`,
    }));
    assert.equal(tampered.body.error.code, -32602);

    const caps = await post(msg(5, 'tools/call', { name: 'test_missing_capability' }));
    assert.equal(caps.status, 400);
    assert.deepEqual(caps.body.error.data.requiredCapabilities, { sampling: {} });

    const only = await post(msg(6, 'tools/call', { name: 'test_input_required_result_capabilities' }, { sampling: {} }));
    assert.deepEqual(Object.keys(only.body.result.inputRequests), ['sample']);

    const prompt = await post(msg(7, 'prompts/get', { name: 'test_input_required_result_prompt' }));
    assert.equal(prompt.body.result.resultType, 'input_required');

    const missing = await post(msg(8, 'initialize'));
    assert.equal(missing.status, 404);
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(note.status, 202);
    const bad = await post('{"jsonrpc":');
    assert.equal(bad.status, 400);
  } finally {
    child.kill();
  }
});
