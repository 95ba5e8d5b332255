// snodo-mrtr/mcp inside @modelcontextprotocol/server, in process
// through createMcpHandler(...).fetch: the low-level Server handler and
// McpServer's Snodo.serve keep protocol errors as JSON-RPC errors (with
// data.reason / requiredCapabilities), and a token is sealed once, by snodo;
// names snodo does not own reach McpServer, arguments are McpServer's to
// check, effects run once per flow, and Snodo.http serves both eras.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { McpServer, Server, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { Engine, Call, MemoryStore, elicitForm, complete, inputRequired, toolError, unknownSession } from '../index.js';
import { Snodo, wireParams } from '../mcp.mjs';

const snodo = new Snodo(new Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 7) }] }));
const Q = elicitForm('Color?', { type: 'object', properties: { c: { type: 'string' } }, required: ['c'] });
const route = (call) => {
  const a = call.response('c', Q);
  if (a.kind === 'accepted') return complete({ content: [{ type: 'text', text: a.value.c }] });
  if (a.kind === 'declined') return toolError('declined');
  return inputRequired({ c: Q }, { n: 1 });
};
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const OPTIONS = { responseMode: 'json', onerror: () => {} };

const message = (id, params) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'pick', arguments: {}, _meta: META, ...params } });

function poster(handler) {
  let id = 0;
  return async (params) => {
    const res = await handler.fetch(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'pick' },
      body: JSON.stringify(message(++id, params)),
    }));
    return { status: res.status, body: await res.json(), id };
  };
}

const servers = {
  'low-level Server + Snodo.handler': () => {
    const s = new Server({ name: 'll', version: '1' }, { capabilities: { tools: {} } });
    s.setRequestHandler('tools/list', async () => ({ tools: [{ name: 'pick', inputSchema: { type: 'object' } }] }));
    s.setRequestHandler('tools/call', snodo.handler(s, route));
    return s;
  },
  'McpServer + Snodo.serve': () => snodo.serve(new McpServer({ name: 'hl', version: '1' }),
    { tools: { pick: [{ description: 'pick' }, route] } }),
};

for (const [name, factory] of Object.entries(servers)) {
  test(`${name}: two rounds, one token, errors stay JSON-RPC errors`, async () => {
    const handler = createMcpHandler(factory, OPTIONS);
    const post = poster(handler);
    const r1 = await post({});
    assert.equal(r1.status, 200);
    assert.equal(r1.body.result.resultType, 'input_required');
    const token = r1.body.result.requestState;
    assert.match(token, /^v1\.k1\./, 'snodo\'s token, not wrapped by the SDK');
    const r2 = await post({ inputResponses: { c: { action: 'accept', content: { c: 'red' } } }, requestState: token });
    assert.deepEqual(r2.body.result.content, [{ type: 'text', text: 'red' }]);
    const bad = await post({ requestState: `${token}x` });
    assert.equal(bad.body.error.code, -32602);
    assert.equal(bad.body.error.data.reason, 'malformed');
    const other = await post({ arguments: { x: 1 }, requestState: token });
    assert.equal(other.body.error.data.reason, 'request', 'bound to the arguments');
    const noCaps = await post({ _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': {} } });
    assert.equal(noCaps.status, 400);
    assert.equal(noCaps.body.error.code, -32021);
    assert.deepEqual(noCaps.body.error.data.requiredCapabilities, { elicitation: {} });
    const declined = await post({ inputResponses: { c: { action: 'decline' } }, requestState: token });
    assert.equal(declined.body.result.isError, true);
    await handler.close?.();
  });
}

// The SDK reads an inputResponses that is not an object as {}, drops an
// entry that is not an object, and refuses a requestState that is not a
// string with its own reason, before any handler: through snodo-mrtr/mcp
// each is what begin answers the same request (-32602, HTTP 200), never a
// question asked again.
for (const [name, factory] of Object.entries(servers)) {
  test(`${name}: malformed inputResponses or requestState get begin's -32602`, async () => {
    const handler = createMcpHandler(factory, OPTIONS);
    const post = poster(handler);
    const token = (await post({})).body.result.requestState;
    const cases = [
      { inputResponses: null }, { inputResponses: [] }, { inputResponses: 'x' }, { inputResponses: 5 },
      { inputResponses: { c: 'x' } }, { inputResponses: { c: null } }, { inputResponses: { c: [] } },
      { requestState: null }, { requestState: 5 }, { requestState: {} }, { requestState: [token] },
      { requestState: token, inputResponses: null }, { requestState: token, inputResponses: 'x' },
      { requestState: token, inputResponses: { c: 'red' } },
    ];
    for (const params of cases) {
      const got = await post(params);
      const begun = snodo.engine.begin(JSON.stringify(message(got.id, params)), null);
      assert.ok(!(begun instanceof Call), `begin refuses ${JSON.stringify(params)}`);
      assert.equal(got.status, begun.httpStatus, `${JSON.stringify(params)}: HTTP status`);
      assert.deepEqual(got.body, begun.body, `${JSON.stringify(params)}: begin's answer`);
      assert.equal(got.body.error.code, -32602);
    }
    // Well-formed retries still reach the handler.
    assert.equal((await post({ inputResponses: {}, requestState: token })).body.result.resultType, 'input_required');
    const ok = await post({ inputResponses: { c: { action: 'accept', content: { c: 'blue' } } }, requestState: token });
    assert.deepEqual(ok.body.result.content, [{ type: 'text', text: 'blue' }]);
    await handler.close?.();
  });
}

test('wireParams passes malformed retry keys on for begin to refuse', () => {
  for (const [inputResponses, state] of [[null, null], ['x', 5], [[], undefined]]) {
    const p = wireParams({ method: 'tools/call', params: { name: 'pick' } }, { mcpReq: { envelope: META, inputResponses, requestState: () => state } });
    assert.equal(p.inputResponses, inputResponses);
    assert.equal(Object.hasOwn(p, 'requestState'), state !== undefined);
    assert.equal(p.requestState, state);
  }
});

test('wireParams puts back what the SDK lifted into ctx.mcpReq', () => {
  const ctx = { mcpReq: { _meta: { x: 1 }, envelope: META, inputResponses: { c: { action: 'cancel' } }, requestState: () => 'tok' } };
  assert.deepEqual(wireParams({ method: 'tools/call', params: { name: 'pick' } }, ctx), {
    name: 'pick', _meta: { x: 1, ...META }, inputResponses: { c: { action: 'cancel' } }, requestState: 'tok',
  });
  // A 2025 session (no envelope): the 2026 dialect with the session's capabilities.
  const legacy = wireParams({ method: 'tools/call', params: { name: 'pick' } }, { mcpReq: {} }, { getClientCapabilities: () => ({ roots: {} }) });
  assert.equal(legacy._meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
  assert.deepEqual(legacy._meta['io.modelcontextprotocol/clientCapabilities'], { roots: {} });
  assert.equal(JSON.stringify(legacy).includes('2025'), false);
});

// --- McpServer with Snodo.serve next to plain registrations: what snodo does
// not own reaches McpServer's own handlers; arguments are checked as
// McpServer checks its own; once per flow; the 2025 per-request leg.

const generic = (method, params, version = '2026-07-28') => {
  let id = 0;
  return async (handler, extra = {}) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version };
    if (version === '2026-07-28') {
      headers['mcp-method'] = method;
      const name = params.name ?? params.uri;
      if (name !== undefined) headers['mcp-name'] = name;
    }
    const p = version === '2026-07-28' ? { ...params, _meta: META, ...extra } : { ...params, ...extra };
    const res = await handler.fetch(new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: p }),
    }));
    const text = await res.text();
    // The 2025 legacy leg answers as an SSE stream: its one data line.
    const data = text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: '))?.slice(6);
    return { status: res.status, body: JSON.parse(data ?? text) };
  };
};
const textResult = (text) => ({ content: [{ type: 'text', text }] });
const AMOUNT = { type: 'object', properties: { amount: { type: 'number', minimum: 1 } }, required: ['amount'] };

function mixed() {
  const mcp = new McpServer({ name: 'mixed', version: '1' });
  mcp.registerTool('before', { description: 'plain, registered first' }, () => textResult('plain before'));
  mcp.registerPrompt('plain_prompt', { description: 'plain' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'plain prompt' } }] }));
  mcp.registerResource('plain', 'plain://r', { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: 'plain resource' }] }));
  mcp.registerTool('plain_amount', { inputSchema: fromJsonSchema(AMOUNT) }, () => textResult('plain ok'));
  snodo.serve(mcp, {
    tools: {
      pick: [{ description: 'pick' }, route],
      amount: [{ inputSchema: fromJsonSchema(AMOUNT) }, (call, args) => complete(textResult(`amount ${args.amount}`))],
    },
    prompts: { snodo_prompt: [{ description: 'snodo' }, () => complete({ messages: [{ role: 'user', content: { type: 'text', text: 'snodo prompt' } }] })] },
    resources: { 'snodo://r': ['snodo', { mimeType: 'text/plain' }, () => complete({ contents: [{ uri: 'snodo://r', text: 'snodo resource' }], ttlMs: 0, cacheScope: 'private' })] },
  });
  mcp.registerTool('after', { description: 'plain, registered after serve' }, () => textResult('plain after'));
  return mcp;
}

test('McpServer + Snodo.serve: plain tools, prompts and resources reach McpServer', async () => {
  const handler = createMcpHandler(mixed, OPTIONS);
  const call = (name) => generic('tools/call', { name, arguments: {} })(handler);
  assert.deepEqual((await call('before')).body.result.content, [{ type: 'text', text: 'plain before' }]);
  assert.deepEqual((await call('after')).body.result.content, [{ type: 'text', text: 'plain after' }]);
  assert.equal((await call('pick')).body.result.resultType, 'input_required', 'snodo still owns its own');
  const unknown = await call('nope');
  assert.equal(unknown.body.error.code, -32602);
  assert.equal(unknown.body.error.message, 'Tool nope not found', "McpServer's own answer");
  const prompt = await generic('prompts/get', { name: 'plain_prompt' })(handler);
  assert.equal(prompt.body.result.messages[0].content.text, 'plain prompt');
  const ours = await generic('prompts/get', { name: 'snodo_prompt' })(handler);
  assert.equal(ours.body.result.messages[0].content.text, 'snodo prompt');
  const resource = await generic('resources/read', { uri: 'plain://r' })(handler);

  assert.equal(resource.body.result.contents[0].text, 'plain resource');
  const own = await generic('resources/read', { uri: 'snodo://r' })(handler);

  assert.equal(own.body.result.contents[0].text, 'snodo resource');
  await handler.close?.();
});

test("McpServer + Snodo.serve: bad arguments get McpServer's own isError result", async () => {
  const handler = createMcpHandler(mixed, OPTIONS);
  const call = (name, args) => generic('tools/call', { name, arguments: args })(handler);
  for (const bad of [{}, { amount: 'x' }, { amount: 0 }]) {
    const plain = (await call('plain_amount', bad)).body.result;
    const ours = (await call('amount', bad)).body.result;
    assert.equal(ours.isError, true, JSON.stringify(bad));
    assert.equal(plain.isError, true);
    assert.equal(ours.content[0].text, plain.content[0].text.replace('plain_amount', 'amount'));
    assert.match(ours.content[0].text, /^Input validation error: Invalid arguments for tool amount: /);
  }
  assert.deepEqual((await call('amount', { amount: 3 })).body.result.content, [{ type: 'text', text: 'amount 3' }]);
  await handler.close?.();
});

test('createMcpHandler default options: a 2025 request per request gets -32021 (no session, no capabilities)', async () => {
  const handler = createMcpHandler(mixed, { onerror: () => {} });
  const got = await generic('tools/call', { name: 'pick', arguments: {} }, '2025-11-25')(handler);
  assert.equal(got.status, 200);
  assert.equal(got.body.error.code, -32021);
  assert.deepEqual(got.body.error.data.requiredCapabilities, { elicitation: {} });
  await handler.close?.();
});

const NIGHTS = elicitForm('How many nights shall we book?', { type: 'object', required: ['nights'],
  properties: { nights: { type: 'integer', minimum: 1, maximum: 14 } } });
function booking(once) {
  const s = new Snodo(snodo.engine, { once });
  const ledger = [];
  const book = async (call) => {
    const remembered = await s.checkOnce(call);
    if (remembered !== null) return complete(remembered);
    const a = call.response('booking', NIGHTS);
    if (a.kind !== 'accepted') return inputRequired({ booking: NIGHTS });
    return complete(await s.runOnce(call, () => textResult(`Booked: entry #${ledger.push(a.value.nights)}`)));
  };
  return { ledger, factory: () => s.serve(new McpServer({ name: 'b', version: '1' }), { tools: { book: [{}, book] } }) };
}

test('Snodo runOnce/checkOnce: once per flow, a replay is -32602 replayed', async () => {
  const { ledger, factory } = booking(new MemoryStore());
  const handler = createMcpHandler(factory, OPTIONS);
  const post = (extra) => generic('tools/call', { name: 'book', arguments: {} })(handler, extra);
  const state = (await post({})).body.result.requestState;
  const final = (nights) => post({ inputResponses: { booking: { action: 'accept', content: { nights } } }, requestState: state });
  assert.deepEqual((await final(2)).body.result.content, [{ type: 'text', text: 'Booked: entry #1' }]);
  assert.deepEqual((await final(2)).body.result.content, [{ type: 'text', text: 'Booked: entry #1' }], 'the same booking');
  for (const replay of [await final(3), await post({ requestState: state })]) {
    assert.equal(replay.body.error.code, -32602);
    assert.equal(replay.body.error.message, 'Invalid or expired requestState');
    assert.deepEqual(replay.body.error.data, { reason: 'replayed' });
  }
  assert.deepEqual(ledger, [2]);
  await handler.close?.();
});

test('Snodo runOnce: a store failure is -32603 "once store unavailable", and nothing runs', async () => {
  const broken = { prefix: 'snodo:once:', leaseMs: 30_000, execute: () => { throw new Error('down'); } };
  const { ledger, factory } = booking(broken);
  const handler = createMcpHandler(factory, OPTIONS);
  const post = (extra) => generic('tools/call', { name: 'book', arguments: {} })(handler, extra);
  const state = (await post({})).body.result.requestState;
  const got = await post({ inputResponses: { booking: { action: 'accept', content: { nights: 2 } } }, requestState: state });
  assert.equal(got.body.error.code, -32603);
  assert.match(got.body.error.message, /^once store unavailable: /);
  assert.deepEqual(ledger, []);
  await handler.close?.();
});

test('Snodo.http: both eras on one listener, Origin checked, a session is its principal\'s', async () => {
  const sdk = await import('@modelcontextprotocol/server');
  const listener = snodo.http(sdk, mixed, { principal: (req) => req.headers['x-user'] ?? null });
  const server = http.createServer(listener);
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}/mcp`;
  const post = (headers, body) => fetch(url, { method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
  try {
    const m = message(1, {});
    const modern = await post({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'pick' }, m);
    assert.equal((await modern.json()).result.resultType, 'input_required');
    const hostile = await post({ origin: 'https://evil.example', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'pick' }, m);
    assert.equal(hostile.status, 403);
    const init = await post({ 'x-user': 'alice' }, { jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '1' } } });
    assert.equal(init.status, 200);
    const sid = init.headers.get('mcp-session-id');
    assert.ok(sid);
    await init.text();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const head = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    const mallory = await post({ ...head, 'x-user': 'mallory' }, list);
    const missing = unknownSession();
    assert.equal(mallory.status, missing.httpStatus);
    assert.equal(await mallory.text(), missing.json, "another principal's session does not exist");
    const alice = await post({ ...head, 'x-user': 'alice' }, list);
    assert.equal(alice.status, 200);
    assert.match(await alice.text(), /"before"/);
  } finally {
    await listener.close();
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  }
});
