// Issue 16, eighth pass: the Call that `engine.begin` gives is a JS object
// over the core's call in an External (src/call_handle.rs, `install` in
// src/response.js), not a napi-rs class instance. `beginParts` still gives
// the class instance, whose native getters and methods are the reference:
// on random, often invalid, requests (first rounds and retries, good and
// bad tokens and answers) the two must read the same values, answer
// `response` and `rawResponse` alike (or throw the same error), describe
// themselves alike, and decide (and decideLegacy) to the same response or
// the same error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { rng } from './rng.mjs';
import { FIELDS, SEAT, URLQ, V, attempt, engine, mrtr, twin } from './call_fixture.mjs';

// Tokens of a first round that asked `seat` and `login`, with a few states.
const tokens = [{ n: 1 }, null, 'é\u0001', [1, 2 ** 60, { deep: [true] }]].map((state) => {
  const call = engine.begin(JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'tools/call',
    params: { name: 't', _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } } } },
  }), 'alice');
  return engine.decide(call, mrtr.inputRequired({ seat: SEAT, login: URLQ }, state)).body.result.requestState;
});

function randomRequest(r) {
  if (r.below(2)) return retry(r);
  const meta = {};
  if (r.below(8)) meta['io.modelcontextprotocol/protocolVersion'] = r.pick([V, V, V, '2025-06-18', 'nope']);
  if (r.below(8)) meta['io.modelcontextprotocol/clientCapabilities'] = r.pick([{ elicitation: { form: {}, url: {} } }, {}, { elicitation: {} }, 'x']);
  if (r.below(3)) meta['io.modelcontextprotocol/clientInfo'] = r.pick([{ name: 'c', version: '1' }, null, 'x']);
  if (r.below(3)) meta.progressToken = r.pick([1, 'p', { x: [] }]);
  const params = { _meta: meta };
  const method = r.pick(['tools/call', 'tools/call', 'prompts/get', 'resources/read', 'tools/list', 'x/y']);
  if (r.below(6)) params.name = r.pick(['t', 'book', 7, '']);
  if (r.below(4)) params.uri = r.pick(['file:///a', 3]);
  if (r.below(3)) params.arguments = r.pick([{ q: 'é', n: 1.5 }, [], null, { big: 2 ** 53 + 2 }, 'x']);
  if (r.below(2)) params.requestState = r.pick([...tokens, ...tokens, 'v1.bogus', 5]);
  if (r.below(2)) {
    const ir = {};
    for (const k of ['seat', 'login', 'other']) {
      if (r.below(2)) ir[k] = r.pick([{ action: 'accept', content: { seat: '12A' } }, { action: 'accept', content: { seat: 1 } }, { action: 'decline' }, { action: 'cancel' }, { action: 'accept' }, 'x', null]);
    }
    params.inputResponses = r.below(8) ? ir : r.pick([[], 'x', null]);
  }
  if (r.below(4)) params.extra = r.pick([{ a: [1, { b: 'c' }] }, 'é\u2028', -0.5]);
  const id = r.pick([1, 7, 'abc', 'é', 2 ** 40, 0]);
  return { id, method, params, principal: r.pick(['alice', 'alice', 'bob', null]) };
}

// A retry of the first round the tokens come from (its binding: the
// method and name), with random answers and now and then a bad token.
function retry(r) {
  const ir = {};
  for (const k of ['seat', 'login', 'other']) {
    if (r.below(2)) ir[k] = r.pick([{ action: 'accept', content: { seat: '12A' } }, { action: 'accept', content: { seat: 1 } }, { action: 'decline' }, { action: 'cancel' }, { action: 'accept' }, 'x']);
  }
  const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': r.pick([{ elicitation: { form: {}, url: {} } }, {}]) };
  if (r.below(3)) meta.progressToken = 'p';
  const params = { name: 't', _meta: meta, inputResponses: ir, requestState: r.below(8) ? r.pick(tokens) : 'v1.bogus' };
  return { id: r.pick([2, 'two']), method: 'tools/call', params, principal: r.pick(['alice', 'alice', 'alice', 'bob']) };
}

// Everything a Call reads, each getter once, errors as values.
function read(call, r) {
  const out = {};
  for (const f of FIELDS) {
    try {
      out[f] = call[f];
    } catch (e) {
      out[f] = { error: e.code, message: e.message };
    }
  }
  const key = r.pick(['seat', 'login', 'other', '']);
  const q = r.pick([SEAT, URLQ, { ...SEAT, message: 'Other?' }, JSON.stringify(SEAT), 'nope', undefined, 7]);
  out.response = attempt(() => call.response(key, q));
  out.responseBuffer = attempt(() => call.response(key, Buffer.from(JSON.stringify(SEAT))));
  out.responseBadKey = attempt(() => call.response(r.pick([1, undefined, null]), SEAT));
  out.raw = attempt(() => call.rawResponse(key));
  out.rawBad = attempt(() => call.rawResponse(r.pick([1, undefined])));
  out.json = JSON.stringify(call);
  out.toJSON = call.toJSON();
  out.string = String(call);
  out.inspect = inspect(call);
  out.keys = Object.keys(call);
  return out;
}

function settle(f) {
  try {
    const r = f();
    if (r && r.kind !== undefined) {
      return { kind: r.kind, json: r.response?.json, call: r.call ? JSON.stringify(r.call) : undefined, pending: r.pending ? JSON.stringify(r.pending) : undefined };
    }
    return { json: r.json, httpStatus: r.httpStatus, diagnostic: r.diagnostic, keys: Object.keys(r) };
  } catch (e) {
    return { error: e.code, message: e.message, type: e.constructor.name };
  }
}

test('a Call from begin reads, answers and decides as the class Call from beginParts', () => {
  const r = rng(23);
  let calls = 0;
  let retries = 0;
  for (let i = 0; i < 600; i++) {
    const m = randomRequest(r);
    const text = JSON.stringify({ jsonrpc: '2.0', id: m.id, method: m.method, params: m.params });
    const fast = engine.begin(text, m.principal);
    const slow = twin.beginParts(m.id, m.method, m.params, m.principal);
    assert.equal(fast instanceof mrtr.Call, slow instanceof mrtr.Call, `case ${i}: ${text}`);
    if (!(fast instanceof mrtr.Call)) {
      assert.equal(fast.json, slow.json, `case ${i}`);
      continue;
    }
    calls++;
    if (fast.isRetry) retries++;
    // The same random choices for both.
    const seed = r.below(1 << 30);
    assert.deepEqual(read(fast, rng(seed)), read(slow, rng(seed)), `case ${i}: ${text}`);
    // Values are made afresh on each read, as the class getters made them.
    assert.notEqual(fast.params, fast.params);
    const outcome = r.pick([
      mrtr.complete({ content: [] }), mrtr.inputRequired({ seat: SEAT }, { n: i }), mrtr.error(-32602, 'bad'),
      mrtr.toolError('no'), Buffer.from('{"type":"complete","result":{}}'), undefined, 'not json', { type: 'nope' },
    ]);
    const legacy = r.below(4) === 0;
    const decide = (e, c) => settle(() => (legacy ? e.decideLegacy(c, outcome) : e.decide(c, outcome)));
    assert.deepEqual(decide(engine, fast), decide(twin, slow), `case ${i}: decide ${legacy ? 'legacy ' : ''}${JSON.stringify(outcome)}`);
    // Once only, either way.
    assert.deepEqual(decide(engine, fast), decide(twin, slow), `case ${i}: second decide`);
  }
  assert.ok(calls > 150 && retries > 80, `only ${calls} calls, ${retries} retries`);
});

test('the Call from begin: its prototype chain, members and what it shows', () => {
  const call = engine.begin(JSON.stringify({
    jsonrpc: '2.0', id: 3, method: 'tools/call',
    params: { name: 't', _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} } },
  }), 'alice');
  assert.ok(call instanceof mrtr.Call);
  assert.equal(call.constructor, mrtr.Call);
  assert.equal(inspect(call), 'Call {}');
  assert.deepEqual(Object.keys(call), []);
  assert.equal(JSON.stringify(call), '"Call(tools/call round 1)"');
  // Every member of Call.prototype has its own twin, in the same order.
  const proto = Object.getPrototypeOf(call);
  assert.equal(Object.getPrototypeOf(proto), mrtr.Call.prototype);
  const names = Object.getOwnPropertyNames(mrtr.Call.prototype).filter((n) => n !== 'constructor');
  assert.deepEqual(Object.getOwnPropertyNames(proto), names);
  for (const n of names) {
    const a = Object.getOwnPropertyDescriptor(proto, n);
    const b = Object.getOwnPropertyDescriptor(mrtr.Call.prototype, n);
    assert.deepEqual([a.enumerable, a.configurable, 'get' in a, a.writable], [b.enumerable, b.configurable, 'get' in b, b.writable], n);
  }
  // A getter of the JS Call on anything else is a TypeError, not a crash.
  assert.throws(() => Object.getOwnPropertyDescriptor(proto, 'method').get.call({}), TypeError);
  assert.throws(() => proto.response.call(Object.create(mrtr.Call.prototype), 'seat', SEAT), TypeError);
  // The class Call's own members still work on class instances.
  const slow = engine.beginParts(3, 'tools/call', { name: 't', _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} } }, 'alice');
  assert.equal(Object.getPrototypeOf(slow), mrtr.Call.prototype);
  assert.equal(slow.method, 'tools/call');
});
