// The outcome helpers `complete`, `inputRequired` and `raw`: `type` first,
// then each field in order when it is neither `undefined` nor `null` (the
// value itself, not a copy); extra arguments ignored. `call.response`'s
// answer is `{kind}` plus `value` (accepted) or `reason` (invalid). Held
// here on every kind of argument, and through `decide`, which must answer
// a helper's outcome exactly as the same outcome written by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const mrtr = require('../index.js');

const ARGS = [undefined, null, 0, false, '', 'x', [], {}, { a: 1 }, [1, { b: null }], NaN];
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

function expected(type, names, args) {
  const o = { type };
  names.forEach((name, i) => {
    if (args[i] !== undefined && args[i] !== null) o[name] = args[i];
  });
  return o;
}

test('the outcome helpers follow the Rust rules on every kind of argument', () => {
  for (const [fn, type, names] of [
    [mrtr.complete, 'complete', ['result']],
    [mrtr.raw, 'raw', ['result']],
    [mrtr.inputRequired, 'input_required', ['inputRequests', 'state']],
  ]) {
    assert.equal(typeof fn, 'function');
    assert.equal(fn.length, 0);
    for (const a of ARGS) {
      for (const b of ARGS) {
        const got = fn(a, b, 'ignored');
        const want = expected(type, names, [a, b]);
        assert.deepEqual(got, want);
        assert.deepEqual(Object.keys(got), Object.keys(want));
        assert.equal(Object.getPrototypeOf(got), Object.prototype);
        if (names[0] in got) assert.equal(got[names[0]], a); // the same object, not a copy
      }
    }
  }
  assert.equal(mrtr.complete.name, 'complete');
  assert.equal(mrtr.inputRequired.name, 'inputRequired');
  assert.equal(mrtr.raw.name, 'raw');
});

test('decide answers a helper outcome as the same outcome written by hand', () => {
  const engine = new mrtr.Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 5) }], fixedTime: 1_800_000_000, testRandomSeed: 3 });
  const twin = new mrtr.Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 5) }], fixedTime: 1_800_000_000, testRandomSeed: 3 });
  const q = mrtr.elicitForm('Seat?', { type: 'object', properties: { seat: { type: 'string' } } });
  const request = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', _meta: META } });
  const cases = [
    [mrtr.complete({ content: [] }), { type: 'complete', result: { content: [] } }],
    [mrtr.complete(), { type: 'complete' }],
    [mrtr.raw({ content: [], isError: false }), { type: 'raw', result: { content: [], isError: false } }],
    [mrtr.inputRequired({ seat: q }, { step: 2, big: 12345678901234 }), { type: 'input_required', inputRequests: { seat: q }, state: { step: 2, big: 12345678901234 } }],
    [mrtr.inputRequired({ seat: q }, null), { type: 'input_required', inputRequests: { seat: q } }],
    [mrtr.inputRequired(undefined, 1), { type: 'input_required', state: 1 }],
  ];
  const run = (e, outcome) => {
    try {
      return e.decide(e.begin(request, 'alice'), outcome).json;
    } catch (err) {
      return `${err.code}: ${err.message}`;
    }
  };
  for (const [helper, byHand] of cases) assert.equal(run(engine, helper), run(twin, byHand));
});

test('answers: {kind}, plus value when accepted and reason when invalid', () => {
  const engine = new mrtr.Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 5) }] });
  const q = mrtr.elicitForm('Seat?', { type: 'object', properties: { seat: { type: 'string' } }, required: ['seat'] });
  const u = mrtr.elicitUrl('Pay', 'https://example.com/pay');
  const meta = { ...META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } } };
  const first = engine.begin({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', _meta: meta } }, 'alice');
  const token = engine.decide(first, mrtr.inputRequired({ seat: q, pay: u })).body.result.requestState;
  const retry = (responses) => engine.begin({
    jsonrpc: '2.0', id: 1, method: 'tools/call',
    params: { name: 't', _meta: meta, requestState: token, inputResponses: responses },
  }, 'alice');
  const accepted = retry({ seat: { action: 'accept', content: { seat: '1A' } } }).response('seat', q);
  assert.deepEqual(Object.keys(accepted), ['kind', 'value']);
  assert.deepEqual(accepted, { kind: 'accepted', value: { seat: '1A' } });
  const invalid = retry({ seat: { action: 'accept', content: { seat: 1 } } }).response('seat', q);
  assert.deepEqual(Object.keys(invalid), ['kind', 'reason']);
  assert.equal(invalid.kind, 'invalid');
  assert.match(invalid.reason, /seat/);
  for (const [responses, kind] of [[{}, 'missing'], [{ seat: { action: 'decline' } }, 'declined'], [{ seat: { action: 'cancel' } }, 'cancelled']]) {
    assert.deepEqual(retry(responses).response('seat', q), { kind });
  }
  const url = retry({ pay: { action: 'accept' } }).response('pay', u);
  assert.deepEqual(url, { kind: 'accepted', value: null });
  assert.ok('value' in url);
});
