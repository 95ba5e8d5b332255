// Issue 16, seventh pass: `engine.decide` and `call.response` are JS
// (src/response.js `install`): they stringify an object argument in JS and
// hand the text to native entries that return the usual result as a bare
// string or number. A Buffer argument still goes the native methods' own
// way (read as text in Rust, result built in Rust), so on random, often
// invalid, outcomes and questions this holds the two to the same result:
// the same response (json, httpStatus, diagnostic, body), the same answer,
// or the same error (code and message), in the same order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { rng } from './rng.mjs';

const require = createRequire(import.meta.url);
const mrtr = require('../index.js');

const NOW = 1_800_000_000;
const engine = new mrtr.Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 3) }], fixedTime: NOW, testRandomSeed: 5 });
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
};
const request = (params, method = 'tools/call') => JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: { _meta: META, ...params } });

const SEAT = mrtr.elicitForm('Which seat?', { type: 'object', properties: { seat: { type: 'string' } }, required: ['seat'] });
const URLQ = mrtr.elicitUrl('Sign in', 'https://example.com/login', 'e1');
const QUESTIONS = [
  SEAT, URLQ, { mode: 'form', message: 'x' }, { mode: 'form' }, { mode: 'url', message: 'm', url: 'ftp://x', elicitationId: 'a' },
  { method: 'roots/list' }, 'not a question', 7, null, [], { mode: 'form', message: 'é\n"', requestedSchema: { type: 'object', properties: {} } },
];
const STATES = [undefined, null, { n: 1 }, 'text', 0, [1, 'é'], { deep: [[[{ a: '\u0001' }]]] }, { big: 2 ** 60 }, { s: '\ud800' }];

function outcome(r) {
  switch (r.below(9)) {
    case 0: return mrtr.complete(r.pick([{ content: [] }, { content: [{ type: 'text', text: 'ok' }] }, {}, { content: 'bad' }, undefined]));
    case 1: return mrtr.error(r.pick([-32602, -32603, 1, -32000, -32021]), r.pick(['', 'boom', 'é']), r.pick([undefined, { d: 1 }, null]));
    case 2: return mrtr.toolError(r.pick(['failed', '']));
    case 3: return mrtr.raw(r.pick([{ resultType: 'complete', content: [] }, { resultType: 'task' }, { resultType: 'other' }, { resultType: 'input_required', inputRequests: { k: SEAT } }]));
    case 4: return { type: r.pick(['complete', 'nope', 7]), result: { content: [] } };
    case 5: return { type: 'input_required', inputRequests: { seat: SEAT }, state: r.pick(STATES), extra: 1 };
    default: {
      const qs = {};
      for (let n = r.below(3); n > 0; n--) qs[r.pick(['seat', 'login', 'bad key!', '', 'x'])] = r.pick(QUESTIONS);
      return mrtr.inputRequired(r.below(8) ? qs : r.pick([null, [], 'qs']), r.pick(STATES));
    }
  }
}

// What a decide gave, comparable: a response's own fields, or the error.
function settle(f) {
  try {
    const r = f();
    return { json: r.json, httpStatus: r.httpStatus, diagnostic: r.diagnostic, body: r.body, keys: Object.keys(r) };
  } catch (e) {
    return { error: e.code, message: e.message, type: e.constructor.name };
  }
}

test('decide: an object outcome gives what its JSON text as a Buffer gives', () => {
  const r = rng(16);
  let responses = 0;
  for (let i = 0; i < 1500; i++) {
    const o = outcome(r);
    const method = r.pick(['tools/call', 'tools/call', 'prompts/get', 'tools/list']);
    const params = method === 'prompts/get' ? { name: 'p' } : { name: 't' };
    const fast = settle(() => engine.decide(engine.begin(request(params, method), 'alice'), o));
    const text = JSON.stringify(o);
    const slow = settle(() => engine.decide(engine.begin(request(params, method), 'alice'), Buffer.from(text ?? '')));
    assert.deepEqual(fast, slow, `case ${i}: ${text}`);
    if (fast.json) responses++;
  }
  assert.ok(responses > 1000, `only ${responses} responses`);
});

test('decide: arguments the JS side leaves to the native method get its errors', () => {
  const call = () => engine.begin(request({ name: 't' }), 'alice');
  const cyclic = { type: 'complete' };
  cyclic.self = cyclic;
  const throwing = { toJSON() { throw new Error('no'); } };
  const cases = [
    () => engine.decide(call(), undefined),
    () => engine.decide(call(), 42n),
    () => engine.decide(call(), cyclic),
    () => engine.decide(call(), throwing),
    () => engine.decide(call(), () => 1),
    () => engine.decide(call(), 'not json'),
    () => engine.decide({}, mrtr.complete({ content: [] })),
    () => engine.decide(Object.create(mrtr.Call.prototype), mrtr.complete({ content: [] })),
    () => engine.decide(null),
    () => mrtr.Engine.prototype.decide.call({}, call(), mrtr.complete({ content: [] })),
  ];
  const seen = cases.map((f) => settle(f));
  assert.deepEqual(seen.map((s) => s.error ?? s.type ?? 'no error'), [
    'ARGUMENT', 'ARGUMENT', 'ARGUMENT', 'ARGUMENT', 'ARGUMENT', 'JSON', 'InvalidArg', 'InvalidArg', 'InvalidArg', 'TypeError',
  ]);
  assert.match(seen[2].message, /JSON\.stringify failed/);
  assert.match(seen[4].message, /not representable as JSON/);
  // A second decide of one call, either way.
  const c = call();
  engine.decide(c, mrtr.complete({ content: [] }));
  assert.equal(settle(() => engine.decide(c, mrtr.complete({ content: [] }))).error, 'ALREADY_DECIDED');
  assert.equal(settle(() => engine.decide(c, '{"type":"complete","result":{}}')).error, 'ALREADY_DECIDED');
});

test('decide, begin and response keep the shape of the native methods', () => {
  for (const [proto, name] of [[mrtr.Engine.prototype, 'begin'], [mrtr.Engine.prototype, 'decide'], [mrtr.Call.prototype, 'response']]) {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    assert.deepEqual([d.writable, d.enumerable, d.configurable, d.value.length, d.value.name], [true, true, true, 0, name]);
  }
  // The native entries are not visible, and the prototype keeps its order.
  assert.equal(mrtr.Call.prototype.responseText, undefined);
  for (const name of ['engineHandle', 'beginWith', 'decideWith']) assert.equal(mrtr[name], undefined);
  // (Where each block of methods starts depends on the order napi-rs's
  // registration hooks run in, which follows how the addon happens to be
  // linked; the JS methods must keep the places of the native ones within
  // their blocks.)
  const keys = Object.keys(mrtr.Engine.prototype);
  for (const run of [['begin', 'beginParts', 'decide', 'now'], ['beginLegacy', 'decideLegacy', 'feed']]) {
    assert.deepEqual(keys.slice(keys.indexOf(run[0]), keys.indexOf(run[0]) + run.length), run);
  }
  // begin through the engine's handle: what only claims to be an Engine, a
  // missing principal, bad text get the native method's errors.
  const fake = Object.create(mrtr.Engine.prototype);
  for (const f of [() => fake.begin(request({ name: 't' }), 'a'), () => fake.decide(null, {})]) {
    assert.throws(f, (e) => e instanceof TypeError && /Illegal invocation/.test(e.message));
  }
  assert.throws(() => engine.begin(request({ name: 't' })), (e) => e.code === 'ARGUMENT' && /principal/.test(e.message));
  assert.equal(engine.begin('{', 'a').body.error.code, -32700);
  assert.throws(() => engine.begin('{"jsonrpc":"2.0","method":"n"}', 'a'), (e) => e.code === 'NOT_A_REQUEST');
  assert.ok(engine.begin(request({ name: 't' }), 'a') instanceof mrtr.Call);
  assert.ok(engine.begin(Buffer.from(request({ name: 't' })), null) instanceof mrtr.Call);
  const r = engine.decide(engine.begin(request({ name: 't' }), 'alice'), mrtr.complete({ content: [] }));
  assert.deepEqual(Object.keys(r), ['httpStatus', 'json']);
  assert.equal(r.body.result.resultType, 'complete');
  assert.deepEqual(JSON.parse(JSON.stringify(r)).json, r.json);
});

test('response: an object question gives what its JSON text as a Buffer gives', () => {
  const r = rng(17);
  const ask = engine.decide(engine.begin(request({ name: 't' }), 'alice'), mrtr.inputRequired({ seat: SEAT, login: URLQ }, { n: 1 }));
  const token = ask.body.result.requestState;
  const ANSWERS = [
    { action: 'accept', content: { seat: '12A' } }, { action: 'accept', content: { seat: 12 } }, { action: 'accept', content: {} },
    { action: 'decline' }, { action: 'cancel' }, { action: 'accept' }, { action: 'bogus' }, 'x', null,
  ];
  const kinds = new Set();
  for (let i = 0; i < 400; i++) {
    const responses = {};
    for (const k of ['seat', 'login']) if (r.below(3)) responses[k] = r.pick(ANSWERS);
    const req = request({ name: 't', inputResponses: responses, requestState: token });
    const call = engine.begin(req, 'alice');
    const again = engine.begin(req, 'alice');
    const key = r.pick(['seat', 'login', 'other', '']);
    const q = r.pick([SEAT, URLQ, { ...SEAT, message: 'Other?' }, QUESTIONS[2]]);
    const one = (c, arg) => {
      try {
        return c.response(key, arg);
      } catch (e) {
        return { error: e.code, message: e.message };
      }
    };
    const fast = one(call, q);
    assert.deepEqual(fast, one(again, Buffer.from(JSON.stringify(q))), `case ${i}`);
    assert.deepEqual(Object.keys(fast), Object.keys(one(again, Buffer.from(JSON.stringify(q)))));
    kinds.add(fast.kind ?? fast.error);
  }
  for (const k of ['accepted', 'declined', 'cancelled', 'missing', 'invalid', 'changed']) assert.ok(kinds.has(k), `no ${k} among ${[...kinds]}`);
  // What the JS side leaves to the native method.
  const call = engine.begin(request({ name: 't' }), 'alice');
  assert.equal(one2(() => call.response(1, SEAT)).error, 'StringExpected');
  assert.equal(one2(() => call.response('seat', undefined)).error, 'ARGUMENT');
  assert.equal(one2(() => call.response('seat', 'nope')).error, 'JSON');
  assert.equal(one2(() => mrtr.Call.prototype.response.call({}, 'seat', SEAT)).type, 'TypeError');
  assert.deepEqual(call.response('seat', JSON.stringify(SEAT)), { kind: 'missing' });
});

function one2(f) {
  try {
    f();
    return { error: 'none' };
  } catch (e) {
    return { error: e.code, type: e.constructor.name };
  }
}

// Found in review: when JSON.stringify of the caller's value throws or
// gives no text, the native method must word the error without reading
// the value again. A getter, toJSON or Proxy trap that throws only on its
// first read once made the second (native) read succeed, turning the
// error into a response.
test('an outcome or question whose JSON.stringify fails is read once, and the error stays', () => {
  const fresh = () => engine.begin(request({ name: 't' }), 'alice');
  const caught = (f) => {
    try {
      f();
      return { error: 'none' };
    } catch (e) {
      return { error: e.code, message: e.message };
    }
  };
  let reads = 0;
  const throwsOnce = {
    type: 'complete',
    get result() {
      reads += 1;
      if (reads === 1) throw new Error('first read');
      return { content: [] };
    },
  };
  assert.equal(caught(() => engine.decide(fresh(), throwsOnce)).error, 'ARGUMENT');
  assert.equal(reads, 1);
  reads = 0;
  const noText = { toJSON() { reads += 1; return undefined; } };
  const r = caught(() => engine.decide(fresh(), noText));
  assert.deepEqual(r, { error: 'ARGUMENT', message: 'outcome: not representable as JSON' });
  assert.equal(reads, 1);
  reads = 0;
  const question = {
    mode: 'form',
    message: 'Which seat?',
    get requestedSchema() {
      reads += 1;
      if (reads === 1) throw new Error('first read');
      return { type: 'object', properties: {} };
    },
  };
  assert.equal(caught(() => fresh().response('seat', question)).error, 'ARGUMENT');
  assert.equal(reads, 1);
  reads = 0;
  assert.deepEqual(caught(() => fresh().response('seat', noText)), {
    error: 'ARGUMENT', message: 'request: not representable as JSON',
  });
  assert.equal(reads, 1);
});
