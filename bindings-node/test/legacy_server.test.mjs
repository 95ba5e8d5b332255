// The Node contract server (interop/servers/node/server.mjs) serving a
// 2025-era session, on raw wire messages: stdio (our requests on stdout,
// the client's responses on stdin) and Streamable HTTP 2025-11-25
// (Mcp-Session-Id, SSE on the tools/call POST, responses POSTed back with
// 202, DELETE). The official clients run the full workflows in interop/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../../interop/servers/node/server.mjs', import.meta.url));
const KEY_A = `k1:${'ab'.repeat(32)}`;
const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 't', version: '1' } } };

function start(args) {
  const child = spawn(process.execPath, [SERVER, ...args], { env: { ...process.env, SNODO_KEYS: KEY_A }, stdio: ['pipe', 'pipe', 'pipe'] });
  const timer = setTimeout(() => child.kill(), 15_000); // never outlive the test
  child.on('exit', () => clearTimeout(timer));
  child.stderrText = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { child.stderrText += d; });
  return child;
}

test('stdio, 2025 era: initialize, elicitation/create out, answer in, final result; bad responses change nothing', { timeout: 20_000 }, async () => {
  const child = start(['--stdio']);
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const w = (m) => child.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
  const next = async () => JSON.parse((await lines.next()).value);
  w(INIT);
  const init = await next();
  assert.equal(init.result.protocolVersion, '2025-11-25');
  w({ jsonrpc: '2.0', method: 'notifications/initialized' });
  w({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'preferred_color', arguments: {} } });
  const ask = await next();
  assert.equal(ask.method, 'elicitation/create');
  assert.match(ask.id, /^snodo-/);
  assert.equal(ask.params.message, 'Which color do you prefer?');
  // Unknown id, not JSON, a request in between: the flow is untouched.
  w({ jsonrpc: '2.0', id: 'snodo-nope', result: { action: 'accept', content: { color: 'red' } } });
  w('{nope');
  const parseError = await next();
  assert.equal(parseError.error.code, -32700);
  w({ jsonrpc: '2.0', id: 2, method: 'ping' });
  assert.deepEqual((await next()).result, {});
  w({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { color: 'blue' } } });
  const done = await next();
  assert.equal(done.id, 1);
  assert.equal(done.result.content[0].text, 'Your preferred color is blue.');
  assert.equal(done.result.resultType, undefined);
  w({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { color: 'blue' } } }); // late: dropped
  w({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'test_missing_capability', arguments: {} } });
  assert.equal((await next()).error.code, -32021);
  child.stdin.end();
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
  assert.match(child.stderrText, /dropped a response no flow awaits/);
});

test('HTTP, 2025 era: session, SSE with our request, 202 for the answer, DELETE then 404', { timeout: 20_000 }, async () => {
  const child = start(['--http', '0']);
  let url;
  while (!url) {
    await once(child.stderr, 'data');
    url = /listening on (\S+)/.exec(child.stderrText)?.[1];
  }
  const post = (body, headers = {}) => fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  try {
    const init = await post(INIT);
    assert.equal(init.status, 200);
    const sid = init.headers.get('mcp-session-id');
    assert.ok(sid);
    const h = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, h)).status, 202);
    const call = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'preferred_color', arguments: {} } }, h);
    assert.equal(call.status, 200);
    assert.match(call.headers.get('content-type'), /text\/event-stream/);
    const reader = call.body.getReader();
    let buf = '';
    const event = async () => {
      for (;;) {
        const at = buf.indexOf('\n\n');
        if (at >= 0) {
          const ev = buf.slice(0, at);
          buf = buf.slice(at + 2);
          return JSON.parse(/^data: (.*)$/m.exec(ev)[1]);
        }
        const { value, done } = await reader.read();
        assert.ok(!done, 'stream ended early');
        buf += Buffer.from(value).toString('utf8');
      }
    };
    const ask = await event();
    assert.equal(ask.method, 'elicitation/create');
    const stray = await post({ jsonrpc: '2.0', id: 'snodo-nope', result: {} }, h);
    assert.equal(stray.status, 400, 'a response no flow awaits');
    assert.equal((await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...h, 'mcp-protocol-version': '2025-06-18' })).status, 400);
    const answered = await post({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { color: 'green' } } }, h);
    assert.equal(answered.status, 202);
    const final = await event();
    assert.equal(final.id, 1);
    assert.equal(final.result.content[0].text, 'Your preferred color is green.');
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, h);
    assert.equal(list.status, 200);
    assert.ok((await list.json()).result.tools.length > 0);
    assert.equal((await fetch(url, { method: 'DELETE', headers: h })).status, 200);
    assert.equal((await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, h)).status, 404);
    assert.equal((await fetch(url, { method: 'DELETE' })).status, 405, 'no session: DELETE as before');
  } finally {
    child.kill();
  }
});
