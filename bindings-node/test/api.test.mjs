// Node-specific behaviour: loading, versions, error codes, the JS conventions
// of the API, exact numbers, and secrets hygiene.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import * as snodo from '../index.js';
import { runFlow, request, META } from './flow.mjs';

const require = createRequire(import.meta.url);
const { Engine, Call, SnodoErrorCode, ERROR_CODES, TOKEN_REASONS } = snodo;
const SECRET = Buffer.alloc(32, 0x5a);
const NOW = 1_800_000_000;
const config = () => ({ keys: [{ id: 'k1', secret: SECRET }], fixedTime: NOW });

function codeOf(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof Error, 'a real Error');
    return e.code;
  }
  assert.fail('did not throw');
}

test('require and import load the same addon', async () => {
  const cjs = require('../index.js');
  const esm = await import('../index.js');
  assert.equal(cjs.Engine, esm.Engine);
  assert.equal(typeof esm.default.elicitForm, 'function');
});

test('package.json version equals the Cargo workspace version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const cargo = readFileSync(new URL('../../Cargo.toml', import.meta.url), 'utf8');
  const ws = /\[workspace\.package\][^[]*?\bversion\s*=\s*"([^"]+)"/.exec(cargo);
  assert.ok(ws, 'workspace version in Cargo.toml');
  assert.equal(snodo.version(), ws[1]);
  assert.equal(pkg.version, ws[1], 'bump package.json with Cargo.toml');
});

test('SnodoErrorCode lists exactly the core error enum', () => {
  assert.deepEqual(Object.values(SnodoErrorCode).sort(), ERROR_CODES.map((c) => c.name).sort());
  assert.deepEqual(ERROR_CODES.map((c) => c.number), ERROR_CODES.map((_, i) => i + 1));
  assert.equal(ERROR_CODES.find((c) => c.name === 'ALREADY_DECIDED').description, 'the call was already decided');
  assert.ok(TOKEN_REASONS.includes('signature'));
  assert.equal(snodo.errorCodes, undefined, 'errorCodes() was renamed ERROR_CODES');
  assert.equal(snodo.tokenReasons, undefined, 'tokenReasons() was renamed TOKEN_REASONS');
});

test('every misuse throws an Error with err.code', () => {
  const e = new Engine(config());
  assert.equal(codeOf(() => new Engine({})), 'CONFIG');
  assert.equal(codeOf(() => new Engine()), 'CONFIG');
  assert.equal(codeOf(() => new Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(8) }] })), 'CONFIG');
  assert.equal(codeOf(() => new Engine({ ...config(), ttlSecs: 901 })), 'CONFIG');
  assert.equal(codeOf(() => new Engine({ ...config(), ttlSecs: 'soon' })), 'CONFIG');
  assert.equal(codeOf(() => e.begin('{"jsonrpc":"2.0","method":"notifications/x"}', null)), 'NOT_A_REQUEST');
  assert.equal(codeOf(() => e.begin(request(1), undefined)), 'ARGUMENT');
  assert.equal(codeOf(() => e.begin(request(1), '')), 'ARGUMENT');
  assert.equal(codeOf(() => e.begin({ id: 1n }, null)), 'ARGUMENT');
  assert.equal(codeOf(() => snodo.elicitForm('m', { type: 'object', properties: { a: { type: 'object' } } })), 'SCHEMA');
  assert.equal(codeOf(() => snodo.elicitUrl('m', 'ftp://x')), 'URL');
  assert.equal(codeOf(() => snodo.canonicalize('{"a":1,"a":2}')), 'JSON');
  assert.equal(codeOf(() => snodo.canonicalize('{')), 'JSON');
  const call = e.begin(request(1), 'alice');
  assert.equal(codeOf(() => e.decide(call, { type: 'nope' })), 'ARGUMENT');
  const big = 'x'.repeat(20_000);
  const r = e.decide(call, snodo.inputRequired({}, { big }));
  assert.equal(JSON.parse(r.json).error.code, -32603, 'state too large is a handler bug on the wire');
  assert.equal(codeOf(() => e.seal({ principal: null, method: 'tools/call', params: {}, state: { big } })), 'STATE_TOO_LARGE');
});

test('open throws TOKEN with err.reason and echoes nothing', () => {
  const e = new Engine(config());
  const binding = snodo.bindingDigest('tools/call', { name: 'a' });
  const token = e.seal({ principal: 'alice', binding: binding.toString('hex'), round: 1, flowStart: NOW, questions: {} });
  assert.equal(e.open(token, 'alice', binding).round, 1);
  try {
    e.open(token, 'mallory', binding);
    assert.fail('opened for another principal');
  } catch (err) {
    assert.equal(err.code, 'TOKEN');
    assert.equal(err.reason, 'principal');
    assert.ok(!err.message.includes(token.split('.')[2]));
  }
});

test('a full flow: builders, outcome helpers, answers, exact numbers', () => {
  const out = runFlow(snodo, new Engine(config()));
  assert.equal(out.round, 2);
  assert.deepEqual(out.state, { step: 1 });
  assert.deepEqual(out.answer, { kind: 'accepted', value: { color: 'green' } });
  assert.equal(JSON.parse(out.r2).result.resultType, 'complete');
  // Text input keeps the big integer exact on the wire text.
  const call = new Engine(config()).begin(request(7), null);
  assert.ok(call instanceof Call);
  assert.equal(call.method, 'tools/call');
  assert.equal(call.name, 'set_color');
  assert.equal(call.protocolVersion, '2026-07-28');
  assert.equal(call.principal, null);
  assert.deepEqual(call.meta, {});
  assert.equal(call.isRetry, false);
  assert.deepEqual(call.askedKeys, []);
  assert.deepEqual(call.clientCapabilities, { elicitation: { form: {} } });
  const done = new Engine(config()).decide(call, snodo.raw({ content: [], n: 12345678901234567890 }));
  assert.ok(done.json.includes('"id":7'));
});

test('the token binds the exact text: 1.0 and 1 are different requests', () => {
  const e = new Engine(config());
  const first = e.begin(request(1), 'alice'); // arguments.x is 1.0
  const token = JSON.parse(e.decide(first, snodo.inputRequired({}, 's')).json).result.requestState;
  const asText = request(2, { requestState: token }); // still 1.0
  assert.ok(e.begin(asText, 'alice') instanceof Call);
  // The same request as an object: JS turns 1.0 into 1, so the binding differs.
  const asObject = JSON.parse(asText);
  const r = e.begin(asObject, 'alice');
  assert.ok(!(r instanceof Call));
  assert.equal(r.body.error.data.reason, 'request');
});

test('ready responses and diagnostics', () => {
  const e = new Engine(config());
  const parseError = e.begin('{"jsonrpc":', null);
  assert.equal(parseError.httpStatus, 400);
  assert.equal(parseError.body.error.code, -32700);
  const noMeta = e.begin(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}'), null);
  assert.equal(noMeta.httpStatus, 400);
  const list = e.begin({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: META } }, null);
  const bad = e.decide(list, snodo.inputRequired({}, 1));
  assert.equal(bad.body.error.code, -32603);
  assert.match(bad.diagnostic, /not allowed on tools\/list/);
  assert.ok(!bad.json.includes('not allowed'), 'the diagnostic never reaches the wire');
  // One request, one response: a second decide of the same call is refused.
  assert.equal(codeOf(() => e.decide(list, snodo.error(-32601, 'Method not found'))), 'ALREADY_DECIDED');
  const list2 = e.begin({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: META } }, null);
  const err = e.decide(list2, snodo.error(-32601, 'Method not found'));
  assert.equal(err.httpStatus, 404);
  const te = e.decide(e.begin(request(4), null), snodo.toolError('boom'));
  assert.equal(te.body.result.isError, true);
});

test('builders and capability helpers take objects or text', () => {
  const form = snodo.elicitForm('Name?', '{"type":"object","properties":{"n":{"type":"string"}}}');
  assert.equal(form.value.params.mode, 'form');
  const url = snodo.elicitUrl('Sign in', 'https://example.com/login');
  const caps = { elicitation: { form: {} } };
  // Form stays listed next to url: the listed set, once declared,
  // admits every request.
  assert.deepEqual(snodo.missingCapabilities({ form, url }, caps), { elicitation: { form: {}, url: {} } });
  assert.deepEqual(Object.keys(snodo.filterSupported({ form, url }, caps)), ['form']);
  // Requests are an object by key in every language: an array is ARGUMENT.
  assert.throws(() => snodo.filterSupported([form, url], caps), (e) => e.code === 'ARGUMENT');
  assert.equal(snodo.listRoots().value.method, 'roots/list');
  assert.equal(snodo.canonicalize({ b: 1, a: [true, null] }), '{"a":[true,null],"b":1}');
  assert.equal(snodo.bindingDigest('tools/call', { _meta: { x: 1 } }).length, 32);
});

test('secrets never show: inspect, JSON.stringify, errors', () => {
  const e = new Engine({ ...config(), keys: [{ id: 'k1', secret: SECRET }, { id: 'old', secret: Buffer.alloc(32, 0xa5) }] });
  const forbidden = [SECRET.toString('hex'), SECRET.toString('base64'), '90,90,90', '5a5a', 'ZZZZ', 'WlpaWlpa', 'a5a5'];
  const shown = [inspect(e, { showHidden: true, depth: 5 }), JSON.stringify(e), String(e), Object.keys(e).join()];
  for (const s of shown) for (const f of forbidden) assert.ok(!s.includes(f), `${f} leaked in ${s}`);
  assert.deepEqual(JSON.parse(JSON.stringify(e)).keyIds, ['k1', 'old']);
  try {
    new Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(31, 0x5a) }] });
  } catch (err) {
    for (const f of forbidden) assert.ok(!err.message.includes(f));
  }
  const dev = Engine.development();
  assert.equal(dev.toJSON().development, true);
  assert.equal(Object.keys(dev).length, 0);
});

test('config: fields read through the core table, named as written; unknown fields refused', () => {
  const keys = [{ id: 'k1', secret: SECRET }];
  const err = (cfg) => { try { new Engine(cfg); } catch (e) { return [e.code, e.message]; } return null; };
  assert.deepEqual(err({ keys, ttlSecs: 901 }), ['CONFIG', 'ttlSecs: 901 is outside 1..=900']);
  assert.deepEqual(err({ keys, now: NOW }), ['CONFIG', 'now: unknown config field (the fixed clock is `fixedTime`)']);
  assert.deepEqual(err({ keys, ttl_secs: 5 }), ['CONFIG', 'ttl_secs: unknown config field']);
  assert.deepEqual(err({ keys, strictAnswers: 'yes' }), ['CONFIG', 'strictAnswers: must be a boolean']);
  assert.equal(err({ keys, audience: '' })[0], 'CONFIG');
  assert.match(err({ keys, audience: '' })[1], /^audience: /);
  assert.equal(err({ keys, strictAnswers: true, audience: 'https://a.example/mcp', fixedTime: NOW }), null);
  assert.equal(new Engine({ keys, fixedTime: NOW }).now(), NOW);
});

test('raw(null) is refused by the core at decide, and the call can still be decided', () => {
  const e = new Engine(config());
  const call = e.begin({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }, null);
  assert.throws(() => e.decide(call, snodo.raw(null)), (err) => err.code === 'ARGUMENT' && /raw needs `result`/.test(err.message));
  assert.equal(e.decide(call, snodo.complete({ content: [] })).httpStatus, 200);
});
