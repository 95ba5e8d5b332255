// The legacy API in Node: its shapes and its refusals (the rules
// themselves are the core's, run byte for byte in vectors.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, Session, PendingFlow, Call, complete, inputRequired, elicitForm } from '../index.js';

const engine = (extra = {}) => new Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 7) }], fixedTime: 1800000000, ...extra });
const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 't', version: '1' } } };
const ASK = elicitForm('Pick', { type: 'object', properties: { c: { type: 'string' } }, required: ['c'] });
const CALL = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"paint","arguments":{}}}';

test('legacyVersionFor echoes an accepted revision, counter-offers otherwise, null when disabled', () => {
  assert.equal(engine().legacyVersionFor('2025-06-18'), '2025-06-18');
  assert.equal(engine().legacyVersionFor('2024-11-05'), '2025-11-25');
  assert.equal(engine({ legacyVersions: [] }).legacyVersionFor('2025-11-25'), null);
  assert.throws(() => engine({ legacyVersions: 'x' }), (e) => e.code === 'CONFIG' && /legacyVersions/.test(e.message));
});

test('Session readers, withId returns a new session, bad input is ARGUMENT', () => {
  const s = Session.fromInitialize(INIT, '2025-11-25', null);
  const t = s.withId('sess-1');
  assert.ok(t instanceof Session);
  assert.equal(t.id, 'sess-1');
  assert.notEqual(s.id, 'sess-1');
  assert.equal(t.protocolVersion, '2025-11-25');
  assert.deepEqual(t.clientInfo, { name: 't', version: '1' });
  assert.deepEqual(t.usableCapabilities, { elicitation: { form: {} } });
  assert.equal(JSON.stringify(t), '"Session(sess-1 2025-11-25)"');
  assert.throws(() => t.withId('has space'), (e) => e.code === 'ARGUMENT');
  assert.throws(() => new Session('2025-11-25', [], null, null), (e) => e.code === 'ARGUMENT');
  assert.throws(() => Session.fromInitialize({ method: 'tools/list' }, '2025-11-25', null), (e) => e.code === 'ARGUMENT');
  assert.throws(() => t.elicitationComplete('x'), (e) => e.code === 'ARGUMENT', 'no elicitation.url');
  const url = new Session('2025-11-25', { elicitation: { url: {} } }, null, null);
  assert.equal(url.elicitationComplete('e1').method, 'notifications/elicitation/complete');
});

test('a round trip: send, refusals leave the flow unchanged, resume, final result without resultType', () => {
  const e = engine();
  const session = Session.fromInitialize(INIT, '2025-11-25', 'alice').withId('sess-1');
  const call = e.beginLegacy(CALL, session, 'alice');
  assert.ok(call instanceof Call);
  assert.equal(call.isLegacy, true);
  assert.equal(call.mrtrAllowed, false);
  const r = e.decideLegacy(call, inputRequired({ color: ASK }));
  assert.equal(r.kind, 'send');
  const p = r.pending;
  assert.ok(p instanceof PendingFlow);
  assert.equal(p.requests[0].method, 'elicitation/create');
  const [leg] = p.requestIds;
  assert.ok(leg.startsWith('snodo-'));
  assert.equal(p.awaits(leg), true);
  assert.equal(p.awaits(3), false);
  assert.equal(p.id, 3);
  assert.equal(p.method, 'tools/call');
  assert.throws(() => e.feed(p, '{not json', 'alice'), (err) => err.code === 'JSON');
  assert.throws(() => e.feed(p, { jsonrpc: '2.0', id: 'snodo-other', result: {} }, 'alice'), (err) => err.code === 'ARGUMENT' && /not a request of this flow/.test(err.message));
  const answer = { jsonrpc: '2.0', id: leg, result: { action: 'accept', content: { c: 'red' } } };
  assert.throws(() => e.feed(p, answer), (err) => err.code === 'ARGUMENT' && /principal/.test(err.message), 'the principal is required');
  assert.throws(() => e.feed(p, answer, 'mallory'), (err) => err.code === 'ARGUMENT' && /another principal/.test(err.message));
  assert.throws(() => e.feed(p, answer, null), (err) => err.code === 'ARGUMENT' && /another principal/.test(err.message));
  assert.deepEqual(p.outstanding, [leg], 'refusals change nothing');
  const f = e.feed(p, answer, 'alice');
  assert.equal(f.kind, 'resume');
  assert.equal(p.isEnded, true);
  assert.throws(() => e.feed(p, answer, 'alice'), (err) => err.code === 'ARGUMENT');
  assert.equal(f.call.response('color', ASK).value.c, 'red');
  const done = e.decideLegacy(f.call, complete({ content: [{ type: 'text', text: 'red' }] }));
  assert.equal(done.kind, 'respond');
  assert.equal(done.response.body.result.resultType, undefined);
  assert.throws(() => e.decideLegacy(f.call, complete({ content: [] })), (err) => err.code === 'ALREADY_DECIDED');
});

test('timeout and cancel end the flow with cancellations', () => {
  const e = engine();
  const session = new Session('2025-11-25', { elicitation: {} }, null, null);
  const p = e.decideLegacy(e.beginLegacy(CALL, session, null), inputRequired({ a: ASK, b: ASK })).pending;
  const t = e.timeout(p);
  assert.equal(t.kind, 'respond');
  assert.equal(t.response.body.result.isError, true);
  assert.equal(t.cancellations.length, 2);
  const q = e.decideLegacy(e.beginLegacy(CALL, session, null), inputRequired({ a: ASK })).pending;
  const c = q.cancel('user left');
  assert.equal(c[0].method, 'notifications/cancelled');
  assert.deepEqual(q.cancel(null), [], 'a second cancel sends nothing');
});

test('an unaccepted session version is the documented -32602, HTTP 400', () => {
  const e = engine({ legacyVersions: ['2025-11-25'] });
  const r = e.beginLegacy(CALL, new Session('2025-03-26', {}, null, null), null);
  assert.ok(!(r instanceof Call));
  assert.equal(r.httpStatus, 400);
  assert.equal(r.body.error.code, -32602);
  assert.deepEqual(r.body.error.data.supported, ['2025-11-25']);
});

test('a session belongs to the principal that opened it', () => {
  assert.throws(() => new Session('2025-11-25', {}, null), (e) => e.code === 'ARGUMENT' && /principal/.test(e.message), 'required');
  assert.throws(() => Session.fromInitialize(INIT, '2025-11-25'), (e) => e.code === 'ARGUMENT' && /principal/.test(e.message));
  assert.throws(() => new Session('2025-11-25', {}, null, 7), (e) => e.code === 'ARGUMENT');
  const alice = Session.fromInitialize(INIT, '2025-11-25', 'alice').withId('s-a');
  assert.equal(alice.principal, 'alice', 'withId keeps the principal');
  assert.equal(new Session('2025-11-25', {}, null, null).principal, null);
  assert.equal(alice.checkPrincipal('alice'), null);
  for (const other of ['bob', null, 'Alice']) {
    const r = alice.checkPrincipal(other);
    assert.equal(r.httpStatus, 404, `${other}`);
    assert.deepEqual(r.body, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
  }
  const anon = new Session('2025-11-25', {}, null, null);
  assert.equal(anon.checkPrincipal(null), null);
  assert.equal(anon.checkPrincipal('alice').httpStatus, 404);
  // beginLegacy refuses another principal's call on its own, with the call's id.
  const r = engine().beginLegacy(CALL, alice, 'bob');
  assert.ok(!(r instanceof Call));
  assert.equal(r.httpStatus, 404);
  assert.equal(r.body.id, 3);
  assert.equal(r.body.error.code, -32001);
  assert.ok(engine().beginLegacy(CALL, alice, 'alice') instanceof Call);
});
