// Issue 16, ninth pass: Snodo.run begins a request through `engine.begin`
// on the message's JSON text (a JS Call over an External) instead of
// `engine.beginParts` (a class instance), falling back to `beginParts` for
// anything but a Call. On random requests (first rounds and retries, good
// and bad tokens and answers, ids of every kind, some over the engine's
// `maxRequestBytes`, which only the text path refuses) `run` must give
// what it gave through `beginParts`: the same result or the same error,
// and a handler that reads the same call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, Call, elicitForm, complete, inputRequired } from '../index.js';
import { Snodo } from '../mcp.mjs';
import { rng } from './rng.mjs';

const V = '2026-07-28';
const config = { keys: [{ id: 'k1', secret: Buffer.alloc(32, 7) }], fixedTime: 1_800_000_000, testRandomSeed: 3, maxRequestBytes: 2048 };
const Q = elicitForm('Color?', { type: 'object', properties: { c: { type: 'string' } }, required: ['c'] });
const FIELDS = [
  'id', 'method', 'params', 'meta', 'name', 'arguments', 'principal', 'protocolVersion', 'mrtrAllowed', 'isLegacy',
  'clientCapabilities', 'clientInfo', 'round', 'isRetry', 'flowStart', 'flowId', 'tokenId', 'tokenExpiresAt',
  'answersDigest', 'state', 'askedKeys', 'inputResponses',
];

// Runs `run` and gives what came out: the result or the error, and what
// the handler read of the call.
async function outcome(snodo, request, ctx) {
  let seen = null;
  const route = (call) => {
    seen = { isCall: call instanceof Call, answer: call.response('c', Q), raw: call.rawResponse('c') };
    for (const f of FIELDS) seen[f] = call[f];
    return seen.answer.kind === 'accepted' ? complete({ content: [{ type: 'text', text: 'ok' }] }) : inputRequired({ c: Q }, { n: seen.round });
  };
  try {
    return { result: await snodo.run(request, ctx, route), seen };
  } catch (e) {
    return { error: { name: e.name, code: e.code, message: e.message, data: e.data }, seen };
  }
}

// `Snodo.run` as it was: `beginParts` for every request.
class PartsSnodo extends Snodo {
  constructor(engine) {
    super(new Proxy(engine, {
      get: (target, key) => (key === 'begin' ? () => { throw new Error('begin'); } : Reflect.get(target, key).bind(target)),
    }));
  }
}

test('Snodo.run through begin gives what it gave through beginParts', async () => {
  const fast = new Snodo(new Engine(config));
  const slow = new PartsSnodo(new Engine(config));
  const r = rng(16);
  const first = (await outcome(fast, { method: 'tools/call', params: { name: 't', arguments: { x: 1 }, _meta: { [`io.modelcontextprotocol/protocolVersion`]: V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } } }, { mcpReq: { id: 1 } })).result;
  const tokens = [first.requestState, `${first.requestState}x`, 'v1.k1.AAAA.BBBB', undefined];
  let calls = 0;
  for (let i = 0; i < 400; i++) {
    const id = r.pick([1, 'a', 0, -1.5, 2 ** 60, 7, 'b', null, undefined, true]);
    const caps = r.pick([{ elicitation: {} }, { elicitation: {} }, { elicitation: {} }, {}, undefined]);
    const meta = { 'io.modelcontextprotocol/protocolVersion': r.pick([V, V, V, V, '2025-06-18', undefined]) };
    if (caps !== undefined) meta['io.modelcontextprotocol/clientCapabilities'] = caps;
    const params = { name: r.pick(['t', 'u']), arguments: r.pick([{ x: 1 }, { x: 'y'.repeat(r.below(3000)) }, {}]), _meta: meta };
    const mcpReq = { id };
    const token = r.pick(tokens);
    if (token !== undefined) mcpReq.requestState = () => token;
    const answer = r.pick([{ action: 'accept', content: { c: 'red' } }, { action: 'accept', content: { c: 1 } }, { action: 'decline' }, undefined]);
    if (answer !== undefined) mcpReq.inputResponses = { c: answer };
    const request = { method: 'tools/call', params };
    const got = await outcome(fast, request, { mcpReq });
    const want = await outcome(slow, request, { mcpReq });
    assert.deepEqual(got, want, `case ${i}: ${JSON.stringify({ id, params, mcpReq, token })}`);
    if (got.seen) calls++;
  }
  assert.ok(calls > 40, `only ${calls} cases reached the handler`);
});

test('Snodo.run serves a request over maxRequestBytes as beginParts does', async () => {
  const snodo = new Snodo(new Engine(config));
  const params = { name: 't', arguments: { x: 'y'.repeat(4000) }, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } };
  const engine = new Engine(config);
  const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
  assert.ok(!(engine.begin(text, null) instanceof Call), 'the text path refuses it');
  assert.ok(engine.beginParts(1, 'tools/call', params, null) instanceof Call, 'beginParts reads it');
  const { result, seen } = await outcome(snodo, { method: 'tools/call', params }, { mcpReq: { id: 1 } });
  assert.equal(result.resultType, 'input_required');
  assert.equal(seen.arguments.x.length, 4000);
});
