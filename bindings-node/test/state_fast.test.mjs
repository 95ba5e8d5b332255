// Issue 16: seal, open and decide carry the application state as canonical
// text (src/state.rs), never as a serde Value. On random nested values
// (seeded, so a failure reproduces) this holds the fast path to the
// reference rules, seen from JavaScript:
//
// * the token carries exactly `canonicalize(JSON.stringify(state))`, the
//   core's reference canonical form of what the value means;
// * the state read back is `JSON.parse` of that text (today's rule for
//   numbers: exact in the token, a JS number in the object);
// * an object and its JSON text seal to the same token;
// * what the reference refuses (lone surrogates, nesting past the limit)
//   is refused with the reference's `JSON` error, and not sealed.
//
// The Rust side (`cargo test -p snodo-node state`) compares the two paths
// themselves: same tokens, same opened objects, same errors word for word.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { rng } from './rng.mjs';

const require = createRequire(import.meta.url);
const mrtr = require('../index.js');

const NOW = 1_800_000_000;
const KEY = Buffer.alloc(32, 7);
const engine = new mrtr.Engine({ keys: [{ id: 'k1', secret: KEY }], fixedTime: NOW, testRandomSeed: 1, maxTokenBytes: 64 << 10 });
const binding = mrtr.bindingDigest('tools/call', { name: 't' });
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

const PIECES = ['a', 'state', 'Z', 'é', '😀', '\n', '"', '\\', '\u0001', '\u001f', '\u2028', '\u{10FFFF}', '/', ' ', '10', 'ß'];
const NUMBERS = [0, -0, 1, -1, 1.5, 0.1, 1e21, 1e-7, 5e-324, 2 ** 53, -(2 ** 53) + 1, 123456789.125, 1.7976931348623157e308];

function str(r) {
  let s = '';
  for (let n = r.below(5); n > 0; n--) s += r.pick(PIECES);
  return s;
}

function value(r, depth) {
  switch (depth === 0 ? r.below(4) : r.below(6)) {
    case 0: return r.pick([null, true, false]);
    case 1: return r.below(2) ? r.pick(NUMBERS) : (r.below(2 ** 31) - 2 ** 30) / r.pick([1, 3, 1024]);
    case 2:
    case 3: return str(r);
    case 4: return Array.from({ length: r.below(4) }, () => value(r, depth - 1));
    default: {
      const o = {};
      // Insertion order is random; integer-like keys ('10') come first in V8.
      for (let n = r.below(5); n > 0; n--) o[str(r) || 'k'] = value(r, depth - 1);
      return o;
    }
  }
}

// The state member of a token's payload (docs/token-format.md: keys sorted,
// `s` between the round and the version; no questions in these tokens).
function sealedState(token) {
  const payload = Buffer.from(token.split('.')[2], 'base64url').toString('utf8');
  const m = /^\{"b":"[^"]*","exp":\d+,"fid":"[^"]*","fs":\d+,"iat":\d+,"p":"[^"]*","q":\{\},"r":\d+(?:,"s":(.*))?,"tid":"[^"]*","v":1\}$/s.exec(payload);
  assert.ok(m, payload);
  return m[1] ?? null;
}

test('seal/open: random states carry their canonical form and come back as JSON.parse of it', () => {
  const r = rng(0x16_5eed);
  for (let i = 0; i < 1500; i++) {
    const state = value(r, 5);
    const text = JSON.stringify(state);
    const canonical = mrtr.canonicalize(text);
    const input = { principal: 'alice', binding: binding.toString('hex'), round: 1 + r.below(3), flowStart: NOW, state };
    const token = engine.seal(input);
    assert.equal(engine.seal(JSON.stringify(input)), token, text);
    assert.equal(sealedState(token), state === null ? null : canonical, text);
    const opened = engine.open(token, 'alice', binding);
    assert.deepEqual(opened.state, JSON.parse(canonical), text);
    assert.deepEqual(opened.state, JSON.parse(text), text);
    assert.deepEqual(Object.keys(opened), ['expiresAt', 'flowId', 'flowStart', 'issuedAt', 'keyId', 'questionKeys', 'round', 'state', 'tokenId']);
  }
});

test('seal: numbers as JSON text stay exact in the token, and read back as JSON.parse reads them', () => {
  for (const n of ['12345678901234567890', '1.0', '-0.0', '1E+2', '0.1e-400', '-98765432109876543210123']) {
    const text = `{"principal":"alice","binding":"${binding.toString('hex')}","state":{"n":${n},"a":[${n}]}}`;
    const token = engine.seal(text);
    const canonical = mrtr.canonicalize(`{"n":${n},"a":[${n}]}`);
    assert.equal(sealedState(token), canonical);
    if (/^-?\d+$/.test(n)) assert.equal(canonical, `{"a":[${n}],"n":${n}}`); // big integers exact
    assert.deepEqual(engine.open(token, 'alice', binding).state, JSON.parse(canonical));
  }
});

test('seal: what the reference refuses is refused the same way, never sealed', () => {
  const deep = (n) => { let v = 1; for (let i = 0; i < n; i++) v = [v]; return v; };
  const hex = binding.toString('hex');
  // The input object is one level: a 63-level state is 64 in all, the limit.
  assert.equal(typeof engine.seal({ principal: 'alice', binding: hex, state: deep(63) }), 'string');
  for (const state of [deep(64), deep(300), { s: 'lone \ud800 surrogate' }, ['\udc00']]) {
    const text = JSON.stringify({ principal: 'alice', binding: hex, state });
    assert.throws(() => mrtr.canonicalize(text), { code: 'JSON' });
    let fromObject;
    let fromText;
    assert.throws(() => engine.seal({ principal: 'alice', binding: hex, state }), (e) => (fromObject = e, true));
    assert.throws(() => engine.seal(text), (e) => (fromText = e, true));
    assert.equal(fromObject.code, 'JSON');
    assert.match(fromObject.message, /^input: /);
    assert.equal(fromObject.message, fromText.message);
  }
  // Repeated keys in text: the reference parser's error.
  assert.throws(() => engine.seal(`{"principal":"alice","binding":"${hex}","state":1,"state":2}`),
    { code: 'JSON', message: /input: .*duplicate/i });
});

// The state member is followed by the token id (docs/token-format.md).
const escapeRe = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('decide/begin: random states round-trip through inputRequired and the retry', () => {
  const r = rng(0xdec1de);
  const Q = mrtr.elicitForm('Seat?', { type: 'object', properties: { seat: { type: 'string' } } });
  const req = (extra = {}) => JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', _meta: META, ...extra },
  });
  for (let i = 0; i < 400; i++) {
    // Outcomes from 1 KiB on take the canonical-text path (src/state.rs):
    // every other state is padded past that.
    const state = i % 2 ? { pad: 'x'.repeat(1100), v: value(r, 4) } : value(r, 4);
    const text = JSON.stringify(state);
    const asObject = engine.decide(engine.begin(req(), 'alice'), mrtr.inputRequired({ seat: Q }, state));
    const asText = engine.decide(engine.begin(req(), 'alice'),
      JSON.stringify({ type: 'input_required', inputRequests: { seat: Q }, state }));
    assert.equal(asObject.json, asText.json, text);
    const token = asObject.body.result.requestState;
    const payload = Buffer.from(token.split('.')[2], 'base64url').toString('utf8');
    assert.ok(state === null ? !payload.includes(',"s":') : new RegExp(`,"s":${escapeRe(mrtr.canonicalize(text))},"tid":"[A-Za-z0-9_-]{22}","v":1}$`).test(payload), text);
    const call = engine.begin(req({ inputResponses: { seat: { action: 'accept', content: { seat: '1' } } }, requestState: token }), 'alice');
    assert.ok(call instanceof mrtr.Call, text);
    assert.deepEqual(call.state, state === null ? null : JSON.parse(text), text);
  }
});

// Sixth pass: an input_required outcome is read member by member, its
// questions from a per-thread cache of parsed texts (src/state.rs `scan`,
// src/questions.rs). The same outcome spelled with escaped member names
// ("\u0074ype", "st\u0061te", "inputR\u0065quests") means the same thing
// but is not scanned (the reference path: one strict parse of the whole
// text, or from 1 KiB on the fifth pass's canonical cut, itself held to
// it): the two must give the same response bytes, or the same error, on
// random and often invalid questions, keys and states, asked again and
// again (cache hits).
test('decide: the member scanner equals the reference on random, often invalid, outcomes', () => {
  const r = rng(0x5ca7);
  const schema = (t) => ({ type: 'object', properties: { v: { type: t } }, required: ['v'] });
  const questions = [
    mrtr.elicitForm('Seat?', schema('string')),
    mrtr.elicitForm('How many?', { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } }),
    mrtr.elicitUrl('Pay here', 'https://example.com/pay'),
    { mode: 'form', message: 'no schema' },
    { mode: 'form', message: 'bad', requestedSchema: { type: 'array' } },
    { mode: 'nope', message: 'x' },
    { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
    'not an object',
    7,
    [1, 2],
  ];
  const keys = ['seat', 'meal', 'é', 'a b', '', 'x'.repeat(300), 'k\n'];
  const req = JSON.stringify({ jsonrpc: '2.0', id: 'r', method: 'tools/call', params: { name: 't', _meta: META } });
  const deep = (n) => { let v = 1; for (let i = 0; i < n; i++) v = [v]; return v; };
  const run = (outcome) => {
    try {
      const r = engine.decide(engine.begin(req, 'alice'), outcome);
      return JSON.stringify([r.json, r.httpStatus, r.diagnostic ?? null]);
    } catch (e) {
      return `${e.code}: ${e.message}`;
    }
  };
  const escaped = (text) => text
    .replace(/^\{"type":/, '{"\\u0074ype":')
    .replace(/,"state":(?=[^]*$)/, ',"st\\u0061te":')
    .replace(/,"inputRequests":/, ',"inputR\\u0065quests":');
  let ok = 0;
  for (let i = 0; i < 1500; i++) {
    const asks = {};
    for (let n = r.below(4); n > 0; n--) asks[r.pick(keys)] = r.pick(questions);
    const state = r.pick([undefined, null, value(r, 4), value(r, 4), { s: 'lone \ud800' }, deep(58 + r.below(8))]);
    const outcome = { type: 'input_required' };
    if (r.below(6)) outcome.inputRequests = asks;
    if (state !== undefined) outcome.state = state;
    const text = JSON.stringify(outcome);
    const reference = escaped(text);
    if (text.includes(',"state":')) assert.ok(reference.includes(',"st\\u0061te":'), reference);
    const got = run(outcome);
    // The escapes move the reference's error positions: compare without them.
    const where = (m) => m.replace(/ at line \d+ column \d+$/, '');
    assert.equal(where(got), where(run(reference)), text);
    assert.equal(run(text), got, text);
    if (got.startsWith('["{')) ok += 1;
  }
  assert.ok(ok > 300, `only ${ok} outcomes were answered`);
});

test('call.response: the per-thread question cache answers as a fresh parse does', () => {
  const Q = mrtr.elicitForm('Seat?', { type: 'object', properties: { seat: { type: 'string' } }, required: ['seat'] });
  const req = (extra = {}) => JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', _meta: META, ...extra },
  });
  const token = engine.decide(engine.begin(req(), 'alice'), mrtr.inputRequired({ seat: Q })).body.result.requestState;
  const answers = [{ seat: '12A' }, { seat: 12 }, {}, { seat: '1', extra: true }];
  for (let i = 0; i < 40; i++) {
    const content = answers[i % answers.length];
    const call = engine.begin(req({ inputResponses: { seat: { action: 'accept', content } }, requestState: token }), 'alice');
    const first = call.response('seat', Q);
    // The same question as text with other spacing: another cache entry, the same answer.
    assert.deepEqual(call.response('seat', JSON.stringify(Q, null, 1)), first);
    assert.deepEqual(call.response('seat', Q), first);
    // A changed question is not answered by the cached one.
    assert.equal(call.response('seat', { ...Q, message: 'Other?' }).kind, 'changed');
    assert.throws(() => call.response('seat', '{"mode":"form","mode":"form"}'), { code: 'JSON' });
  }
});
