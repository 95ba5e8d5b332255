// Secret hygiene: the key bytes never appear in anything the addon
// shows (util.inspect, JSON.stringify, String() of Engine, Call, Response,
// Opened; err.message and err.stack of config and other errors), and the
// principal never appears in clear in a token, even after decoding its
// base64url parts. api.test.mjs has a first check of Engine; this file
// searches every output with every spelling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import * as snodo from '../index.js';
import { request } from './flow.mjs';

const { Engine, Call } = snodo;
const NOW = 1_800_000_000;
// Bytes spread over the whole range (high bytes included, so latin-1 and
// UTF-8 differ) and no short repeated pattern, so a hit is no coincidence.
const SECRET = Buffer.from(Array.from({ length: 32 }, (_, i) => (0xa5 + i * 73) & 0xff));
const OLD = Buffer.from(SECRET).reverse();
const PRINCIPAL = 'octocat@example.com';

// Every spelling of `key` (and of each 8-byte window of it, for partial
// leaks) that a log line could contain: hex lower and upper, standard and
// url-safe base64, the bytes read as latin-1, and how JS shows a byte array
// (util.inspect of the Buffer, `<Buffer a5 ee ...>`; a Uint8Array's String(),
// `165,238,...`; and the JSON of a Buffer, `{"type":"Buffer","data":[...]}`).
function spellings(key) {
  const out = [];
  const add = (b, whole) => {
    out.push(b.toString('hex'), b.toString('hex').toUpperCase(), b.toString('latin1'),
      Array.from(b).join(','), Array.from(b).join(', '));
    if (whole) {
      out.push(b.toString('base64'), b.toString('base64url'), inspect(b), JSON.stringify(b), inspect(new Uint8Array(b)));
    }
  };
  add(key, true);
  for (let i = 0; i + 8 <= key.length; i++) add(key.subarray(i, i + 8), false);
  // base64 of 6-byte windows that start on a 3-byte group are substrings of the whole key's.
  for (let i = 0; i + 6 <= key.length; i += 3) out.push(key.subarray(i, i + 6).toString('base64'), key.subarray(i, i + 6).toString('base64url'));
  return out;
}
const FORBIDDEN = [...spellings(SECRET), ...spellings(OLD)];

function assertClean(what, text) {
  assert.equal(typeof text, 'string', `${what} is text`);
  for (const f of FORBIDDEN) assert.ok(!text.includes(f), `key bytes (${JSON.stringify(f)}) leaked in ${what}: ${text}`);
}

// Every way Node shows a value.
function shows(v) {
  return [inspect(v), inspect(v, { showHidden: true, depth: Infinity, getters: true }), JSON.stringify(v) ?? '', String(v), `${v}`];
}

function thrown(fn) {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.fail('did not throw');
}

test('the leak checker catches every spelling', () => {
  for (const f of spellings(SECRET)) assert.throws(() => assertClean('planted', `log: ${f} end`));
  assertClean('plain JSON', '{"jsonrpc":"2.0","id":1}');
});

test('config errors never show the key bytes: err.message, err.stack, inspect', () => {
  const bad = [
    { keys: [{ id: 'k1', secret: SECRET.subarray(0, 31) }] }, // short
    { keys: [{ id: 'k1', secret: Buffer.concat(Array(33).fill(SECRET)) }] }, // 1056 bytes: too long
    { keys: [{ id: 'k1', secret: SECRET }, { id: 'k1', secret: OLD }] }, // duplicate id
    { keys: [{ id: 'k1', secret: SECRET }, { id: 'k1', secret: SECRET }] }, // duplicate id and key
    { keys: [{ id: 'bad id', secret: SECRET }] },
    { keys: [{ id: SECRET.toString('latin1'), secret: SECRET }] }, // key bytes passed as the id
    { keys: [{ id: 'k1', secret: SECRET.toString('hex') }] }, // a string, not a Buffer
    { keys: [{ id: 'k1', secret: Array.from(SECRET) }] }, // an array, not a Buffer
    { keys: [{ id: 'k1', secret: SECRET }], ttlSecs: 0 },
    { keys: [{ id: 'k1', secret: SECRET }], supportedVersions: ['latest'] },
  ];
  for (const config of bad) {
    const err = thrown(() => new Engine(config));
    assert.ok(err instanceof Error);
    assert.ok(['CONFIG', 'ARGUMENT'].includes(err.code), `code ${err.code}`);
    for (const text of [err.message, err.stack, String(err), inspect(err), JSON.stringify(err)]) assertClean('config error', text);
  }
});

test('Engine, Call, Response, Opened and every error never show the key bytes; tokens hide the principal', () => {
  const e = new Engine({ keys: [{ id: 'prod', secret: SECRET }, { id: 'old', secret: OLD }], fixedTime: NOW });
  const shown = [...shows(e), JSON.stringify(e.toJSON()), Object.keys(e).join()];
  const question = snodo.elicitForm('Pick', { type: 'object', properties: { c: { type: 'string' } } });
  const call = e.begin(request(1), PRINCIPAL);
  assert.ok(call instanceof Call);
  const r1 = e.decide(call, snodo.inputRequired({ c: question }, { step: 1 }));
  const token = JSON.parse(r1.json).result.requestState;
  shown.push(...shows(call), ...shows(r1), r1.json);
  const call2 = e.begin(request(2, { requestState: token, inputResponses: { c: { action: 'accept', content: { c: 'x' } } } }), PRINCIPAL);
  assert.ok(call2 instanceof Call);
  const answer = call2.response('c', question);
  const r2 = e.decide(call2, snodo.complete({ content: [] }));
  shown.push(...shows(call2), ...shows(answer), ...shows(r2), r2.json);
  // Error responses: a tampered token, another principal, bad JSON, a handler bug.
  for (const [who, tok] of [[PRINCIPAL, `${token.slice(0, -2)}AA`], ['mallory', token]]) {
    const bad = e.begin(request(3, { requestState: tok }), who);
    assert.ok(!(bad instanceof Call) && bad.body.error, bad.json);
    shown.push(...shows(bad), bad.json, String(bad.diagnostic));
  }
  const parseError = e.begin('{', PRINCIPAL);
  shown.push(...shows(parseError), parseError.json);
  const call3 = e.begin(request(4), PRINCIPAL);
  const bug = e.decide(call3, { type: 'input_required' });
  assert.ok(bug.diagnostic, 'a diagnostic');
  shown.push(...shows(bug), bug.json, bug.diagnostic);
  // Low level: seal, open, and the errors of failed opens and other misuse.
  const binding = snodo.bindingDigest('tools/call', { name: 'set_color' });
  const sealed = e.seal({ principal: PRINCIPAL, binding: binding.toString('hex'), round: 1, flowStart: NOW, state: { k: 1 } });
  const opened = e.open(sealed, PRINCIPAL, binding);
  shown.push(...shows(opened), sealed);
  const errors = [
    thrown(() => e.open(sealed, 'mallory', binding)),
    thrown(() => e.open(sealed.slice(0, -3), PRINCIPAL, binding)),
    thrown(() => e.open(sealed, PRINCIPAL, binding.subarray(0, 31))),
    thrown(() => e.seal({ principal: '', binding: binding.toString('hex') })),
    thrown(() => e.begin('{"jsonrpc":"2.0","method":"notifications/x"}', PRINCIPAL)),
    thrown(() => snodo.elicitForm('Pick', { type: 'object', properties: { c: { type: 'nope' } } })),
  ];
  for (const err of errors) shown.push(err.message, err.stack, String(err), inspect(err), JSON.stringify(err));
  for (const text of shown) assertClean('output', text);

  // The principal: never in a token, in clear or inside a decoded part, nor in any shown Call/Opened.
  for (const tok of [token, sealed]) {
    assert.ok(!tok.includes('octocat'), tok);
    const parts = tok.split('.');
    assert.equal(parts.length, 4);
    for (const part of parts) {
      const decoded = Buffer.from(part, 'base64url');
      assert.ok(!decoded.includes('octocat'), decoded.toString('latin1'));
      assertClean('decoded token part', decoded.toString('latin1'));
    }
  }
  // What a log line of a Call holds (inspect, JSON.stringify, String) has no
  // principal either; `call.principal` is the explicit accessor, so the
  // getters-evaluating inspect of shows() is left out here.
  for (const v of [call, call2, opened]) {
    for (const text of [inspect(v), JSON.stringify(v), String(v)]) assert.ok(!text.includes('octocat'), text);
  }
});
