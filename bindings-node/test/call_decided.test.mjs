// Issue 16, ninth pass: `decide` (and `decideLegacy`) of a Call that
// `engine.begin` made frees the core's call at once (src/call_handle.rs,
// `CallBox`), and a getter or method read afterwards rebuilds it from the
// request, principal and clock reading that `begin` kept. What a handler
// sees must not change: every getter and method reads after decide what it
// read before (round 1 and retries, with and without a token, good and bad
// tokens and answers, decide and decideLegacy, outcomes that decide and
// outcomes refused as arguments), and a second decide fails as on the class
// Call from `beginParts`, which keeps its call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { rng } from './rng.mjs';
import { FIELDS, KEYS, META, NOW, SEAT, URLQ, attempt, engine, mrtr, twin } from './call_fixture.mjs';

const first = (id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: { q: 'é', n: [1, 2.50] }, _meta: META } });
// Tokens of a first round that asked `seat` and `login`, with a few states.
const tokens = [{ n: 1 }, null, 'é\u0001', [1, 2 ** 60, { deep: [true] }]].map((state) =>
  engine.decide(engine.begin(first(), 'alice'), mrtr.inputRequired({ seat: SEAT, login: URLQ }, state)).body.result.requestState);

function request(r) {
  const params = { name: r.pick(['t', 't', 'other']), _meta: { ...META } };
  if (r.below(3)) params._meta.progressToken = r.pick([1, 'p']);
  if (r.below(3)) params._meta['io.modelcontextprotocol/clientInfo'] = { name: 'c', version: '1' };
  if (r.below(2)) params.arguments = r.pick([{ q: 'é', n: [1, 2.50] }, [], null, { big: 2 ** 53 + 2 }]);
  if (r.below(3) > 0) params.requestState = r.pick([...tokens, ...tokens, 'v1.bogus']);
  if (r.below(3) > 0) {
    const ir = {};
    for (const k of ['seat', 'login', 'other']) {
      if (r.below(2)) ir[k] = r.pick([{ action: 'accept', content: { seat: '12A' } }, { action: 'accept', content: { seat: 1 } }, { action: 'decline' }, { action: 'cancel' }]);
    }
    params.inputResponses = ir;
  }
  // Half of them retries of the round the tokens come from (its binding:
  // method, name and arguments).
  const flow = r.below(2) === 0;
  if (flow) {
    params.name = 't';
    params.arguments = { q: 'é', n: [1, 2.50] };
  }
  const method = flow ? 'tools/call' : r.pick(['tools/call', 'tools/call', 'prompts/get', 'tools/list']);
  const text = JSON.stringify({ jsonrpc: '2.0', id: r.pick([2, 'two', 0]), method, params });
  return { text, principal: r.pick(['alice', 'alice', 'bob', null]) };
}

// Every getter and method of a Call, errors as values, in a random order
// (the first read after decide is the one that rebuilds).
function read(call, r) {
  const reads = FIELDS.map((f) => [f, () => call[f]]);
  reads.push(
    ['response', () => call.response('seat', SEAT)],
    ['responseLogin', () => call.response('login', URLQ)],
    ['responseText', () => call.response('seat', JSON.stringify(SEAT))],
    ['responseBuffer', () => call.response('seat', Buffer.from(JSON.stringify(SEAT)))],
    ['responseOther', () => call.response('other', { ...SEAT, message: 'Other?' })],
    ['responseBad', () => call.response('seat', 'nope')],
    ['raw', () => call.rawResponse('seat')],
    ['rawOther', () => call.rawResponse('other')],
    ['json', () => JSON.stringify(call)],
    ['toJSON', () => call.toJSON()],
    ['string', () => String(call)],
    ['inspect', () => inspect(call)],
    ['keys', () => Object.keys(call)],
  );
  for (let i = reads.length - 1; i > 0; i--) {
    const j = r.below(i + 1);
    [reads[i], reads[j]] = [reads[j], reads[i]];
  }
  const out = {};
  for (const [name, f] of reads) out[name] = attempt(f);
  return out;
}

function settle(f) {
  try {
    const r = f();
    if (r && r.kind !== undefined) {
      return { kind: r.kind, json: r.response?.json, pending: r.pending ? JSON.stringify(r.pending) : undefined };
    }
    return { json: r.json, httpStatus: r.httpStatus, diagnostic: r.diagnostic };
  } catch (e) {
    return { error: e.code, message: e.message, type: e.constructor.name };
  }
}

const OUTCOMES = () => [
  mrtr.complete({ content: [] }), mrtr.inputRequired({ seat: SEAT }, { n: 1 }), mrtr.inputRequired({ login: URLQ }),
  mrtr.error(-32602, 'bad'), mrtr.toolError('no'), JSON.stringify(mrtr.complete({})), Buffer.from('{"type":"complete","result":{}}'),
  undefined, 'not json', { type: 'nope' },
];

test('every getter and method of a Call reads after decide what it read before', () => {
  const r = rng(16);
  let decided = 0;
  let retries = 0;
  let legacies = 0;
  for (let i = 0; i < 700; i++) {
    const m = request(r);
    const call = engine.begin(m.text, m.principal);
    if (!(call instanceof mrtr.Call)) continue;
    const p = JSON.parse(m.text);
    const slow = twin.beginParts(p.id, p.method, p.params, m.principal);
    // Read before decide, or not: a call never read is freed all the same.
    const seed = r.below(1 << 30);
    const before = read(slow, rng(seed));
    if (r.below(2)) assert.deepEqual(read(call, rng(seed)), before, `case ${i}: before decide`);
    const outcome = r.pick(OUTCOMES());
    const legacy = r.below(4) === 0;
    const decide = (e, c) => settle(() => (legacy ? e.decideLegacy(c, outcome) : e.decide(c, outcome)));
    const done = decide(engine, call);
    assert.deepEqual(done, decide(twin, slow), `case ${i}: decide`);
    if (done.error === undefined) decided++;
    if (call.isRetry) retries++;
    if (legacy) legacies++;
    assert.deepEqual(read(call, rng(seed)), before, `case ${i}: after decide ${JSON.stringify(outcome)}: ${m.text}`);
    // Once only, with the same error as the class Call's; then the reads
    // are still the same.
    const again = r.pick(OUTCOMES());
    const s = rng(seed);
    const fastSecond = settle(() => (s.below(2) ? engine.decide(call, again) : engine.decideLegacy(call, again)));
    const t = rng(seed);
    const slowSecond = settle(() => (t.below(2) ? twin.decide(slow, again) : twin.decideLegacy(slow, again)));
    assert.deepEqual(fastSecond, slowSecond, `case ${i}: second decide`);
    assert.deepEqual(read(call, rng(seed + 1)), read(slow, rng(seed + 1)), `case ${i}: after the second decide`);
  }
  assert.ok(decided > 200 && retries > 90 && legacies > 80, `only ${decided} decided, ${retries} retries, ${legacies} legacy`);
});

test('round 1 and round 2 of a flow read the same after decide', () => {
  const c1 = engine.begin(first(7), 'alice');
  const r1 = read(c1, rng(1));
  const token = engine.decide(c1, mrtr.inputRequired({ seat: SEAT }, { cart: [1, 2] })).body.result.requestState;
  assert.deepEqual(read(c1, rng(1)), r1);
  assert.equal(c1.flowStart, NOW);
  const retry = JSON.parse(first(8));
  retry.params.inputResponses = { seat: { action: 'accept', content: { seat: '12A' } } };
  retry.params.requestState = token;
  const c2 = engine.begin(JSON.stringify(retry), 'alice');
  assert.equal(c2.response('seat', SEAT).kind, 'accepted');
  const r2 = read(c2, rng(2));
  assert.equal(r2.round, 2);
  assert.deepEqual(r2.state, { cart: [1, 2] });
  engine.decide(c2, mrtr.complete({ content: [{ type: 'text', text: 'booked' }] }));
  assert.deepEqual(read(c2, rng(2)), r2);
  assert.throws(() => engine.decide(c2, mrtr.complete({})), { code: 'ALREADY_DECIDED', message: /already decided/ });
});

test('a call read after decide keeps the clock reading it began at', async () => {
  // The system clock: the reads after decide come a second later.
  const live = new mrtr.Engine({ keys: KEYS });
  const c1 = live.begin(first(), 'alice');
  const token = live.decide(c1, mrtr.inputRequired({ seat: SEAT })).body.result.requestState;
  const retry = JSON.parse(first());
  retry.params.inputResponses = { seat: { action: 'accept', content: { seat: '1C' } } };
  retry.params.requestState = token;
  const c2 = live.begin(JSON.stringify(retry), 'alice');
  const c3 = live.begin(first(), null);
  const before = [read(c1, rng(3)), read(c2, rng(3)), read(c3, rng(3))];
  live.decide(c2, mrtr.complete({}));
  live.decideLegacy(c3, mrtr.inputRequired({ seat: SEAT }));
  const start = Math.floor(Date.now() / 1000);
  while (Math.floor(Date.now() / 1000) === start) await new Promise((done) => setTimeout(done, 20));
  assert.deepEqual([read(c1, rng(3)), read(c2, rng(3)), read(c3, rng(3))], before);
});

test('a decide from inside a read of the same call leaves it readable', () => {
  const call = engine.begin(first(), 'alice');
  const before = read(call, rng(4));
  let inner;
  // decideLegacy reads its outcome natively (toJSON runs while the call is
  // held): the inner decide cannot free it then, and the outer one fails.
  const outer = settle(() => engine.decideLegacy(call, {
    toJSON() {
      inner = settle(() => engine.decide(call, mrtr.complete({})));
      assert.deepEqual(read(call, rng(4)), before);
      return mrtr.complete({ content: [] });
    },
  }));
  assert.equal(inner.httpStatus, 200);
  assert.equal(outer.error, 'ALREADY_DECIDED');
  assert.deepEqual(read(call, rng(4)), before);
});
