// snodo-mrtr/mcp inside @modelcontextprotocol/server, in process
// through createMcpHandler(...).fetch: the low-level Server handler and
// McpServer's Snodo.serve keep protocol errors as JSON-RPC errors (with
// data.reason / requiredCapabilities), and a token is sealed once, by snodo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer, Server, createMcpHandler } from '@modelcontextprotocol/server';
import { Engine, Call, elicitForm, complete, inputRequired, toolError } from '../index.js';
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
