// The HTTP edge of both Node contract servers (interop/servers/node:
// server.mjs, plain node:http, and sdk_server.mjs, the TS SDK behind a
// node:http wrapper), on raw requests: Host and Origin (a hostile page, DNS
// rebinding), 2025 sessions bound to the principal that opened them, the
// session quota per client, the connection cap and the in-flight body
// budget. Every server runs on 127.0.0.1 with a port the OS picks; every
// wait is bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const SERVERS = {
  plain: fileURLToPath(new URL('../../interop/servers/node/server.mjs', import.meta.url)),
  sdk: fileURLToPath(new URL('../../interop/servers/node/sdk_server.mjs', import.meta.url)),
};
const KEYS = `k1:${'ab'.repeat(32)}`;
const V2026 = '2026-07-28';
const V2025 = '2025-11-25';
const META = { 'io.modelcontextprotocol/protocolVersion': V2026, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } };
const H2026 = { 'mcp-protocol-version': V2026, 'mcp-method': 'tools/list' };
const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: V2025, capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'edge', version: '1' } } };

// A server on a free port; `env` adds to the environment.
async function serve(kind, env = {}) {
  const child = spawn(process.execPath, [SERVERS[kind], '--http', '0'], {
    env: { ...process.env, SNODO_KEYS: KEYS, ...env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  const timer = setTimeout(() => child.kill(), 30_000); // never outlive the test
  child.on('exit', () => clearTimeout(timer));
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { log += d; });
  while (!/listening on/.test(log)) {
    const [what] = await Promise.race([once(child.stderr, 'data'), once(child, 'exit')]);
    if (typeof what === 'number' || what === null) throw new Error(`${kind} server exited: ${log}`);
  }
  const port = Number(/127\.0\.0\.1:(\d+)\/mcp/.exec(log)[1]);
  return { port, host: `127.0.0.1:${port}`, stop: () => child.kill(), log: () => log };
}

// One request on a fresh connection. `headers` replace the defaults (Host,
// JSON content); a null value drops one. Resolves once the whole response
// is read, or with `{ status: 'closed' }` if the server closed without one.
function request(s, { method = 'POST', body, headers = {} } = {}) {
  const data = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const h = { host: s.host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
  if (data) h['content-length'] = String(data.length);
  for (const [k, v] of Object.entries(h)) if (v === null) delete h[k];
  return new Promise((resolve, reject) => {
    const req = http.request({ port: s.port, host: '127.0.0.1', method, path: '/mcp', headers: h, agent: false, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => { text += d; }).on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('error', (e) => (e.code === 'ECONNRESET' ? resolve({ status: 'closed' }) : reject(e)));
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
    req.end(data);
  });
}

// The JSON-RPC messages of a JSON or SSE body.
function messages(r) {
  if (!/text\/event-stream/.test(r.headers['content-type'] ?? '')) return r.text.trim() ? [JSON.parse(r.text)] : [];
  return r.text.split('\n\n').map((ev) => /^data: ?(.*)$/m.exec(ev)?.[1]).filter(Boolean).map((d) => JSON.parse(d));
}

const bearer = (user) => (user ? { authorization: `Bearer ${user}` } : {});
const onSession = (sid, user) => ({ 'mcp-session-id': sid, 'mcp-protocol-version': V2025, ...bearer(user) });

async function openSession(s, user) {
  const r = await request(s, { body: INIT, headers: bearer(user) });
  assert.equal(r.status, 200, `initialize as ${user}: ${r.text}`);
  const sid = r.headers['mcp-session-id'];
  assert.ok(sid, 'a session id');
  const ok = await request(s, { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers: onSession(sid, user) });
  assert.ok([200, 202].includes(ok.status), `notifications/initialized: ${ok.status}`);
  return sid;
}

// A 2025 tools/call of `user` on `sid` whose SSE stream is read as it comes.
function flow(s, sid, user, id) {
  const events = [];
  let wake = null;
  let ended = false;
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'preferred_color', arguments: {} } }));
  const req = http.request({ port: s.port, host: '127.0.0.1', method: 'POST', path: '/mcp', agent: false, setHost: false,
    headers: { host: s.host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': body.length, ...onSession(sid, user) } }, (res) => {
    let buf = '';
    res.setEncoding('utf8').on('data', (d) => {
      buf += d;
      for (let at = buf.indexOf('\n\n'); at >= 0; at = buf.indexOf('\n\n')) {
        const data = /^data: ?(.*)$/m.exec(buf.slice(0, at))?.[1];
        buf = buf.slice(at + 2);
        if (data) events.push(JSON.parse(data));
      }
      wake?.();
    }).on('end', () => { ended = true; wake?.(); });
  });
  req.on('error', () => { ended = true; wake?.(); });
  req.end(body);
  const next = async (pick) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const i = events.findIndex(pick);
      if (i >= 0) return events.splice(i, 1)[0];
      assert.ok(!ended, 'the flow ended first');
      assert.ok(Date.now() < deadline, 'no such message in time');
      await new Promise((ok) => { wake = ok; setTimeout(ok, 200); });
    }
  };
  return {
    question: () => next((m) => m.method === 'elicitation/create'),
    result: () => next((m) => m.id === id && m.method === undefined),
    close: () => req.destroy(),
  };
}

for (const kind of Object.keys(SERVERS)) {
  test(`${kind}: Host and Origin are checked on every request`, { timeout: 30_000 }, async () => {
    const s = await serve(kind);
    try {
      assert.equal((await request(s, { body: LIST, headers: H2026 })).status, 200, 'a plain loopback request');
      assert.equal((await request(s, { body: LIST, headers: { ...H2026, origin: `http://${s.host}` } })).status, 200, 'same-origin');
      for (const origin of ['http://evil.example', 'null', `http://localhost:${s.port + 1}`]) {
        const r = await request(s, { body: LIST, headers: { ...H2026, origin } });
        assert.equal(r.status, 403, `Origin ${origin}`);
        assert.deepEqual(JSON.parse(r.text), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Forbidden: Origin not allowed', data: { reason: 'origin' } } });
      }
      const evil = `evil.example:${s.port}`;
      for (const headers of [{ host: evil, origin: `http://${evil}` }, { host: evil }]) {
        const r = await request(s, { body: LIST, headers: { ...H2026, ...headers } });
        assert.equal(r.status, 421, `rebinding ${JSON.stringify(headers)}`);
        assert.equal(JSON.parse(r.text).error.data.reason, 'host');
      }
      for (const method of ['GET', 'DELETE']) {
        assert.equal((await request(s, { method, headers: { origin: 'http://evil.example' } })).status, 403, method);
      }
      const init = await request(s, { body: INIT, headers: { origin: 'http://evil.example' } });
      assert.equal(init.status, 403);
      assert.equal(init.headers['mcp-session-id'], undefined, 'a page opens no session');
    } finally {
      s.stop();
    }
  });

  test(`${kind}: a 2025 session serves only the principal that opened it`, { timeout: 30_000 }, async () => {
    const s = await serve(kind);
    try {
      const sid = await openSession(s, 'alice');
      const call = { jsonrpc: '2.0', id: 5, method: 'tools/list' };
      for (const who of ['bob', null]) {
        const r = await request(s, { body: call, headers: onSession(sid, who) });
        assert.equal(r.status, 404, `tools/list by ${who}`);
        assert.deepEqual(JSON.parse(r.text), { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
        assert.equal((await request(s, { method: 'GET', headers: onSession(sid, who) })).status, 404, `GET by ${who}`);
        assert.equal((await request(s, { method: 'DELETE', headers: onSession(sid, who) })).status, 404, `DELETE by ${who}`);
      }
      const mine = await request(s, { body: call, headers: onSession(sid, 'alice') });
      assert.equal(mine.status, 200, 'the owner is still served');
      assert.ok(messages(mine).find((m) => m.id === 5).result.tools.length > 0);
      assert.equal((await request(s, { method: 'DELETE', headers: onSession(sid, 'alice') })).status, 200);
    } finally {
      s.stop();
    }
  });

  test(`${kind}: another user's answer or cancellation on a 2025 flow is refused; the owner's flow completes`, { timeout: 30_000 }, async () => {
    const s = await serve(kind);
    try {
      const sid = await openSession(s, 'alice');
      for (const [attack, id] of [['answer', 40], ['cancel', 41]]) {
        const f = flow(s, sid, 'alice', id);
        try {
          const q = await f.question();
          const forged = attack === 'answer'
            ? { jsonrpc: '2.0', id: q.id, result: { action: 'accept', content: { color: 'red' } } }
            : { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'not yours' } };
          for (const who of ['bob', null]) {
            assert.equal((await request(s, { body: forged, headers: onSession(sid, who) })).status, 404, `${attack} by ${who}`);
          }
          const mine = await request(s, { body: { jsonrpc: '2.0', id: q.id, result: { action: 'accept', content: { color: 'green' } } }, headers: onSession(sid, 'alice') });
          assert.ok([200, 202].includes(mine.status), `alice's answer: ${mine.status}`);
          const done = await f.result();
          assert.equal(done.result.content[0].text, 'Your preferred color is green.', `after ${attack}`);
        } finally {
          f.close();
        }
      }
    } finally {
      s.stop();
    }
  });

  test(`${kind}: sessions per client are capped (a user, or an address for anonymous clients)`, { timeout: 30_000 }, async () => {
    const s = await serve(kind, { SNODO_MAX_SESSIONS_PER_CLIENT: '2' });
    try {
      for (const who of ['alice', null]) {
        const first = await openSession(s, who);
        await openSession(s, who);
        const third = await request(s, { body: INIT, headers: bearer(who) });
        assert.equal(third.status, 429, `a third session for ${who}`);
        assert.equal(third.headers['mcp-session-id'], undefined);
        assert.equal((await request(s, { method: 'DELETE', headers: onSession(first, who) })).status, 200);
        await openSession(s, who); // room again
      }
      await openSession(s, 'bob'); // others are not held back
    } finally {
      s.stop();
    }
  });

  test(`${kind}: connections are capped`, { timeout: 30_000 }, async () => {
    const s = await serve(kind, { SNODO_MAX_CONNECTIONS: '2' });
    const held = [];
    try {
      for (let i = 0; i < 2; i++) { // two open connections, each a request still arriving
        const c = net.connect(s.port, '127.0.0.1');
        await once(c, 'connect');
        c.write(`POST /mcp HTTP/1.1\r\nHost: ${s.host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
        held.push(c);
      }
      await new Promise((ok) => { setTimeout(ok, 200); });
      assert.equal((await request(s, { body: LIST, headers: H2026 })).status, 'closed', 'a third connection is closed');
      held.pop().destroy();
      await new Promise((ok) => { setTimeout(ok, 200); });
      assert.equal((await request(s, { body: LIST, headers: H2026 })).status, 200, 'served again once one closed');
    } finally {
      for (const c of held) c.destroy();
      s.stop();
    }
  });

  test(`${kind}: request bodies in flight share a budget; past it 503 at once`, { timeout: 30_000 }, async () => {
    const s = await serve(kind, { SNODO_MAX_BODY_BYTES_IN_FLIGHT: '1000' });
    try {
      // A body of 900 bytes of which 800 have arrived: 800 of the 1000 in use.
      const big = Buffer.from(JSON.stringify(LIST).padEnd(900, ' '));
      const slow = http.request({ port: s.port, host: '127.0.0.1', method: 'POST', path: '/mcp', agent: false, setHost: false,
        headers: { host: s.host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': big.length, ...H2026 } });
      const slowDone = new Promise((ok, fail) => {
        slow.on('response', (res) => { res.resume(); res.on('end', () => ok(res.statusCode)); });
        slow.on('error', fail);
      });
      slow.write(big.subarray(0, 800));
      await new Promise((ok) => { setTimeout(ok, 300); });
      const small = Buffer.from(JSON.stringify(LIST).padEnd(300, ' '));
      // A declared length past the budget: refused on its headers, before a byte of the body.
      const declared = await new Promise((ok, fail) => {
        const req = http.request({ port: s.port, host: '127.0.0.1', method: 'POST', path: '/mcp', agent: false, setHost: false,
          headers: { host: s.host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': small.length, ...H2026 } },
        (res) => { res.resume(); ok(res.statusCode); req.destroy(); });
        req.on('error', fail);
        req.setTimeout(3000, () => req.destroy(new Error('no answer before the body')));
        req.flushHeaders();
      });
      assert.equal(declared, 503, 'a declared length past the budget');
      // Chunked (no length declared): refused at its first chunk past the budget.
      const chunked = await new Promise((ok, fail) => {
        const req = http.request({ port: s.port, host: '127.0.0.1', method: 'POST', path: '/mcp', agent: false, setHost: false,
          headers: { host: s.host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...H2026 } },
        (res) => { res.resume(); ok(res.statusCode); });
        req.on('error', fail);
        req.write(small);
      });
      assert.equal(chunked, 503, 'a chunk past the budget');
      slow.end(big.subarray(800));
      assert.equal(await slowDone, 200, 'the request within the budget completes');
      assert.equal((await request(s, { body: small.toString(), headers: H2026 })).status, 200, 'the budget is given back');
    } finally {
      s.stop();
    }
  });
}

test('plain: SNODO_ALLOWED_HOSTS / SNODO_ALLOWED_ORIGINS replace the loopback default; a bad entry stops the server', { timeout: 30_000 }, async () => {
  const s = await serve('plain', { SNODO_ALLOWED_HOSTS: 'mcp.example.com, 10.0.0.5:8443', SNODO_ALLOWED_ORIGINS: 'https://app.example.com' });
  try {
    assert.equal((await request(s, { body: LIST, headers: { ...H2026, host: 'mcp.example.com', origin: 'https://app.example.com' } })).status, 200);
    assert.equal((await request(s, { body: LIST, headers: { ...H2026, host: '10.0.0.5:8443' } })).status, 200);
    assert.equal((await request(s, { body: LIST, headers: { ...H2026, host: '10.0.0.5:8444' } })).status, 421);
    assert.equal((await request(s, { body: LIST, headers: H2026 })).status, 421, 'loopback is not implied');
    assert.equal((await request(s, { body: LIST, headers: { ...H2026, host: 'mcp.example.com', origin: 'https://evil.example' } })).status, 403);
  } finally {
    s.stop();
  }
  const bad = spawn(process.execPath, [SERVERS.plain, '--http', '0'], { env: { ...process.env, SNODO_KEYS: KEYS, SNODO_ALLOWED_ORIGINS: 'ftp://x' }, stdio: ['ignore', 'ignore', 'pipe'] });
  const timer = setTimeout(() => bad.kill(), 10_000); // a server that starts after all must not outlive the test
  let err = '';
  bad.stderr.setEncoding('utf8').on('data', (d) => { err += d; });
  const [code] = await once(bad, 'exit');
  clearTimeout(timer);
  assert.equal(code, 2);
  assert.match(err, /SNODO_ALLOWED_ORIGINS.*origin entry "ftp:\/\/x" is not valid/);
});
