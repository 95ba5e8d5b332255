// The official MCP TypeScript client (@modelcontextprotocol/client, pinned in
// package-lock.json) drives a snodo server through the workflows of the
// interop plan, each asserting the exact outcome written in interop/CONTRACT.md:
// the contract servers (python, node, python-sdk, node-sdk) through all of
// them, the two examples (python-example, node-example) through theirs
// (preferred_color and book_room); the SDK servers run book_room's as well.
//
//   node interop/official_client/run.mjs --server KIND --transport stdio|http [--negotiation default] [--only NAME]
//
// Writes target/interop/official_client[_default]-<server>-<transport>.json
// and exits non-zero if any workflow fails.
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { KEYS, ROOT, SERVERS, isExample, startHttp, stdioParams, writeSummary } from '../lib/servers.mjs';

const { values: opts } = parseArgs({
  options: { server: { type: 'string' }, transport: { type: 'string' }, only: { type: 'string' }, negotiation: { type: 'string' } },
});
// --negotiation default: the client's own default version negotiation
// instead of the 2026-07-28 pin, i.e. a 2025-era session (the SDK servers'
// legacy shims, the examples' legacy bridge); its own workflow set and
// summary (suite official_client_default).
const DEFAULT_NEGOTIATION = opts.negotiation === 'default';
if (opts.negotiation !== undefined && !DEFAULT_NEGOTIATION) {
  console.error('--negotiation: only "default" (omit it for the 2026-07-28 pin)');
  process.exit(2);
}
if (!Object.hasOwn(SERVERS, opts.server) || !['stdio', 'http'].includes(opts.transport)) {
  console.error(`usage: run.mjs --server ${Object.keys(SERVERS).join('|')} --transport stdio|http [--negotiation default] [--only NAME]`);
  process.exit(2);
}

const ALL_CAPS = { elicitation: { form: {} }, sampling: {}, roots: {} };
const STATE_ERROR = 'Invalid or expired requestState';

// One HTTP server per key ring, started lazily and stopped at the end.
const httpServers = new Map();
async function httpUrl(keys) {
  if (!httpServers.has(keys)) httpServers.set(keys, await startHttp(opts.server, { keys }));
  return httpServers.get(keys).url;
}

/**
 * A connected client pinned to 2026-07-28 (no silent fallback to the 2025
 * handshake), with a wire log of every message it sent and received.
 * `elicit(params)` answers elicitation requests; `caps` are the declared
 * client capabilities; `keys` picks the server's key ring; `bearer` sets an
 * Authorization header (HTTP only).
 */
async function connect({ elicit, caps = ALL_CAPS, keys = KEYS.a, bearer } = {}) {
  const client = new Client({ name: 'snodo-interop', version: '0.0.0' }, DEFAULT_NEGOTIATION ? { capabilities: caps } : {
    capabilities: caps,
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
  if (caps.elicitation) {
    client.setRequestHandler('elicitation/create', async (req) => {
      if (!elicit) throw new Error(`unexpected elicitation: ${req.params.message}`);
      return elicit(req.params);
    });
  }
  let transport;
  let stderr = '';
  if (opts.transport === 'stdio') {
    transport = new StdioClientTransport(stdioParams(opts.server, { SNODO_KEYS: keys }));
    transport.stderr?.on('data', (c) => { stderr += c; });
  } else {
    const headers = bearer ? { Authorization: `Bearer ${bearer}` } : {};
    transport = new StreamableHTTPClientTransport(new URL(await httpUrl(keys)), { requestInit: { headers } });
  }
  await client.connect(transport);
  const wire = [];
  const onmessage = transport.onmessage;
  transport.onmessage = (msg, extra) => { wire.push({ dir: 'in', msg }); onmessage(msg, extra); };
  const send = transport.send.bind(transport);
  transport.send = (msg, o) => { wire.push({ dir: 'out', msg }); return send(msg, o); };
  return { client, wire, stderr: () => stderr, close: () => client.close() };
}

/** The `input_required` results seen on the wire, in order. */
function inputRequired(wire) {
  return wire.filter((w) => w.dir === 'in' && w.msg.result?.resultType === 'input_required').map((w) => w.msg.result);
}

const textOf = (result) => result.content?.[0]?.text;
const accept = (content) => ({ action: 'accept', content });

/** Expects `promise` to reject with a JSON-RPC error `code`; returns the error. */
async function rejectsWith(promise, code) {
  try {
    const got = await promise;
    assert.fail(`expected JSON-RPC error ${code}, got a result: ${JSON.stringify(got)}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    assert.equal(e.code, code, `expected error ${code}, got ${e.code}: ${e.message}`);
    return e;
  }
}

/** Round 1 of the preference tool in manual mode: the raw input_required. */
async function preferenceRound1(client) {
  const r1 = await client.request({ method: 'tools/call', params: { name: 'preferred_color', arguments: {} } }, { allowInputRequired: true });
  assert.equal(r1.resultType, 'input_required');
  assert.deepEqual(Object.keys(r1.inputRequests), ['color']);
  assert.equal(typeof r1.requestState, 'string');
  return r1;
}

function preferenceRetry(client, requestState, color = 'red') {
  const params = { name: 'preferred_color', arguments: {}, inputResponses: { color: accept({ color }) }, requestState };
  return client.request({ method: 'tools/call', params }, { allowInputRequired: true });
}

const workflows = {
  async '1-preference-tool'() {
    const c = await connect({ elicit: () => accept({ color: 'green' }) });
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(textOf(result), 'Your preferred color is green.');
    assert.ok(!result.isError);
    const asked = inputRequired(c.wire);
    assert.equal(asked.length, 1, 'exactly one input_required round');
    assert.deepEqual(Object.keys(asked[0].inputRequests), ['color']);
    assert.equal(asked[0].inputRequests.color.method, 'elicitation/create');
    assert.equal(asked[0].inputRequests.color.params.message, 'Which color do you prefer?');
    await c.close();
  },

  async '2-preference-resource'() {
    const c = await connect({ elicit: () => accept({ color: 'blue' }) });
    const result = await c.client.readResource({ uri: 'prefs://color' });
    assert.equal(result.contents.length, 1);
    assert.equal(result.contents[0].uri, 'prefs://color');
    assert.equal(result.contents[0].mimeType, 'text/plain');
    assert.equal(result.contents[0].text, 'blue');
    assert.deepEqual(inputRequired(c.wire).map((r) => Object.keys(r.inputRequests)), [['color']]);
    const final = c.wire.filter((w) => w.dir === 'in').at(-1).msg.result;
    assert.equal(final.ttlMs, 0);
    assert.equal(final.cacheScope, 'private');
    await c.close();
  },

  async '3-preference-prompt'() {
    const c = await connect({ elicit: () => accept({ color: 'red' }) });
    const result = await c.client.getPrompt({ name: 'preferred_color' });
    assert.equal(result.messages.length, 1);
    assert.equal(result.messages[0].role, 'user');
    assert.equal(result.messages[0].content.text, 'Write a short poem about the color red.');
    assert.deepEqual(inputRequired(c.wire).map((r) => Object.keys(r.inputRequests)), [['color']]);
    await c.close();
  },

  async '4-two-questions-one-kept-in-state'() {
    const asked = [];
    const c = await connect({
      elicit: (p) => {
        asked.push(p.message);
        if (p.message === 'Which day?') return accept({ date: '2026-09-01' });
        // The first answer breaks the schema (maximum 8): only this question is asked again.
        const guestsSoFar = asked.filter((m) => m === 'How many guests?').length;
        return accept({ guests: guestsSoFar === 1 ? 12 : 4 });
      },
    });
    const result = await c.client.callTool({ name: 'book_table', arguments: {} });
    assert.equal(textOf(result), 'Booked a table for 4 on 2026-09-01.');
    const rounds = inputRequired(c.wire).map((r) => Object.keys(r.inputRequests));
    assert.deepEqual(rounds, [['date', 'guests'], ['guests']]);
    assert.deepEqual(asked.filter((m) => m === 'Which day?').length, 1);
    await c.close();
  },

  async '5a-decline'() {
    const c = await connect({ elicit: () => ({ action: 'decline' }) });
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(textOf(result), 'You declined to choose a color.');
    assert.ok(!result.isError);
    await c.close();
  },

  async '5b-cancel'() {
    const c = await connect({ elicit: () => ({ action: 'cancel' }) });
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(textOf(result), 'You cancelled the color question.');
    assert.equal(result.isError, true);
    await c.close();
  },

  async '6-tampered-state'() {
    const c = await connect();
    const r1 = await preferenceRound1(c.client);
    const s = r1.requestState;
    const mid = Math.floor(s.length / 2);
    const flipped = s.slice(0, mid) + (s[mid] === 'A' ? 'B' : 'A') + s.slice(mid + 1);
    for (const bad of [`${s}-TAMPERED`, flipped]) {
      const e = await rejectsWith(preferenceRetry(c.client, bad), -32602);
      assert.equal(e.message, STATE_ERROR);
      assert.ok(['malformed', 'signature'].includes(e.data?.reason), `reason: ${JSON.stringify(e.data)}`);
    }
    // The untouched token still works: the rejections were about the tampering.
    const ok = await preferenceRetry(c.client, s, 'red');
    assert.equal(textOf(ok), 'Your preferred color is red.');
    await c.close();
  },

  async '7-missing-elicitation-capability'() {
    const c = await connect({ caps: {} });
    const e = await rejectsWith(c.client.callTool({ name: 'preferred_color', arguments: {} }), -32021);
    assert.deepEqual(e.data?.requiredCapabilities, { elicitation: {} });
    await c.close();
  },

  async '8-scale-out'() {
    // Round 1 on one process; the retry on other processes.
    const first = await connect({ keys: KEYS.a });
    const r1 = await preferenceRound1(first.client);
    await first.close();

    const same = await connect({ keys: KEYS.a });
    const done = await preferenceRetry(same.client, r1.requestState, 'green');
    assert.equal(textOf(done), 'Your preferred color is green.');
    await same.close();

    const other = await connect({ keys: KEYS.other });
    const e = await rejectsWith(preferenceRetry(other.client, r1.requestState), -32602);
    assert.equal(e.message, STATE_ERROR);
    assert.equal(e.data?.reason, 'key');
    await other.close();

    const rotated = await connect({ keys: KEYS.rotated });
    const after = await preferenceRetry(rotated.client, r1.requestState, 'blue');
    assert.equal(textOf(after), 'Your preferred color is blue.');
    // A token the rotated process signs uses its new key: the old ring cannot open it.
    const r1b = await preferenceRound1(rotated.client);
    await rotated.close();
    const old = await connect({ keys: KEYS.a });
    const e2 = await rejectsWith(preferenceRetry(old.client, r1b.requestState), -32602);
    assert.equal(e2.data?.reason, 'key');
    await old.close();
  },
};

if (opts.transport === 'http') {
  workflows['http-principal-binding'] = async () => {
    const alice = await connect({ bearer: 'alice' });
    const r1 = await preferenceRound1(alice.client);
    const bob = await connect({ bearer: 'bob' });
    const e = await rejectsWith(preferenceRetry(bob.client, r1.requestState), -32602);
    assert.equal(e.data?.reason, 'principal');
    const anon = await connect();
    const e2 = await rejectsWith(preferenceRetry(anon.client, r1.requestState), -32602);
    assert.equal(e2.data?.reason, 'principal');
    const done = await preferenceRetry(alice.client, r1.requestState, 'green');
    assert.equal(textOf(done), 'Your preferred color is green.');
    await Promise.all([alice.close(), bob.close(), anon.close()]);
  };
}

/** Server-to-client requests seen on the wire (the 2025 era: the legacy shim's), by method. */
const serverRequests = (wire, method) => wire.filter((w) => w.dir === 'in' && w.msg.method === method && w.msg.id !== undefined);

// The 2025-era session: the same tools, answered through real elicitation/create
// requests (the SDK's legacy shim re-enters the handler; snodo still decides).
const legacyWorkflows = {
  async 'legacy-1-preference-tool'() {
    const c = await connect({ elicit: () => accept({ color: 'green' }) });
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(textOf(result), 'Your preferred color is green.');
    assert.equal(c.client.getNegotiatedProtocolVersion(), '2025-11-25', 'a 2025-era session');
    assert.deepEqual(serverRequests(c.wire, 'elicitation/create').map((w) => w.msg.params.message), ['Which color do you prefer?']);
    assert.equal(inputRequired(c.wire).length, 0, 'no input_required on a 2025 session');
    const final = c.wire.filter((w) => w.dir === 'in' && w.msg.result?.content).at(-1).msg.result;
    assert.equal(final.resultType, undefined, 'no resultType on the 2025 wire');
    await c.close();
  },
  async 'legacy-2-preference-resource'() {
    const c = await connect({ elicit: () => accept({ color: 'blue' }) });
    const result = await c.client.readResource({ uri: 'prefs://color' });
    assert.equal(result.contents[0].text, 'blue');
    await c.close();
  },
  async 'legacy-3-preference-prompt'() {
    const c = await connect({ elicit: () => accept({ color: 'red' }) });
    const result = await c.client.getPrompt({ name: 'preferred_color' });
    assert.equal(result.messages[0].content.text, 'Write a short poem about the color red.');
    await c.close();
  },
  async 'legacy-4-two-questions-one-kept-in-state'() {
    const asked = [];
    const c = await connect({
      elicit: (p) => {
        asked.push(p.message);
        if (p.message === 'Which day?') return accept({ date: '2026-09-01' });
        return accept({ guests: asked.filter((m) => m === 'How many guests?').length === 1 ? 12 : 4 });
      },
    });
    const result = await c.client.callTool({ name: 'book_table', arguments: {} });
    assert.equal(textOf(result), 'Booked a table for 4 on 2026-09-01.');
    assert.deepEqual(asked.filter((m) => m === 'Which day?').length, 1);
    assert.deepEqual(asked.filter((m) => m === 'How many guests?').length, 2);
    await c.close();
  },
  async 'legacy-5a-decline'() {
    const c = await connect({ elicit: () => ({ action: 'decline' }) });
    assert.equal(textOf(await c.client.callTool({ name: 'preferred_color', arguments: {} })), 'You declined to choose a color.');
    await c.close();
  },
  async 'legacy-5b-cancel'() {
    const c = await connect({ elicit: () => ({ action: 'cancel' }) });
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(textOf(result), 'You cancelled the color question.');
    assert.equal(result.isError, true);
    await c.close();
  },
  async 'legacy-7-missing-elicitation-capability'() {
    const c = await connect({ caps: {} });
    const e = await rejectsWith(c.client.callTool({ name: 'preferred_color', arguments: {} }), -32021);
    assert.deepEqual(e.data?.requiredCapabilities, { elicitation: {} });
    await c.close();
  },
};

// The two examples: preferred_color (accepted, declined) and book_room (the
// effect once per flow). On 2026 the final round is also sent again by hand:
// the same answers get the same booking; other answers, or none (a booked
// flow never asks again), are refused as replayed; the next flow's entry
// shows that nothing else was booked.
const BOOKED = /^Booked: entry #(\d+)$/;
const entryOf = (result) => {
  const m = BOOKED.exec(textOf(result) ?? '');
  assert.ok(m && !result.isError, `a booking, got ${JSON.stringify(result)}`);
  return Number(m[1]);
};
const NIGHTS = (nights) => accept({ nights });
const exampleWorkflows = {
  async 'example-1-preference-accepted'() {
    const c = await connect({ elicit: () => accept({ color: 'green' }) });
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(textOf(result), 'Your preferred color is green.');
    assert.ok(!result.isError);
    if (!DEFAULT_NEGOTIATION) assert.deepEqual(inputRequired(c.wire).map((r) => Object.keys(r.inputRequests)), [['color']]);
    else assert.equal(serverRequests(c.wire, 'elicitation/create').length, 1);
    await c.close();
  },
  async 'example-2-preference-declined'() {
    const c = await connect({ elicit: () => ({ action: 'decline' }) });
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(textOf(result), 'You declined to choose a color.');
    assert.ok(!result.isError);
    await c.close();
  },
  async 'example-3-book-room-once'() {
    const c = await connect({ elicit: () => NIGHTS(2) });
    const book = () => c.client.callTool({ name: 'book_room', arguments: {} });
    const n = entryOf(await book());
    if (DEFAULT_NEGOTIATION) { // a 2025 session: the server drives the rounds, each flow books once
      assert.equal(entryOf(await book()), n + 1);
      assert.equal(serverRequests(c.wire, 'elicitation/create').length, 2);
      await c.close();
      return;
    }
    const call = (extra) => c.client.request({ method: 'tools/call', params: { name: 'book_room', arguments: {}, ...extra } },
      { allowInputRequired: true });
    const r1 = await call({});
    assert.equal(r1.resultType, 'input_required');
    assert.deepEqual(Object.keys(r1.inputRequests), ['booking']);
    const final = (nights) => call({ inputResponses: { booking: NIGHTS(nights) }, requestState: r1.requestState });
    assert.equal(entryOf(await final(3)), n + 1);
    assert.equal(entryOf(await final(3)), n + 1, 'the same final round again: the same booking');
    for (const replay of [() => final(4), () => call({ requestState: r1.requestState })]) {
      const e = await rejectsWith(replay(), -32602);
      assert.equal(e.message, STATE_ERROR);
      assert.equal(e.data?.reason, 'replayed');
    }
    assert.equal(entryOf(await book()), n + 2, 'the next flow: nothing else was booked');
    await c.close();
  },
};

let selected = DEFAULT_NEGOTIATION ? legacyWorkflows : workflows;
if (isExample(opts.server)) selected = exampleWorkflows;
// The servers on the official SDKs serve the examples' book_room too (their
// adapters' runOnce), in both eras.
const SDK_SERVERS = ['python-sdk', 'node-sdk', 'fastmcp', 'rust-sdk'];
if (SDK_SERVERS.includes(opts.server)) selected = { ...selected, 'example-3-book-room-once': exampleWorkflows['example-3-book-room-once'] };
const results = {};
for (const [name, run] of Object.entries(selected)) {
  if (opts.only && !name.includes(opts.only)) continue;
  const t0 = Date.now();
  try {
    await run();
    results[name] = { status: 'pass', ms: Date.now() - t0 };
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    results[name] = { status: 'fail', ms: Date.now() - t0, error: String(e?.stack ?? e).slice(0, 2000) };
    console.log(`FAIL ${name}: ${e?.stack ?? e}`);
  }
}
for (const s of httpServers.values()) await s.stop();

const suite = DEFAULT_NEGOTIATION ? 'official_client_default' : 'official_client';
const file = path.join(ROOT, 'target', 'interop', `${suite}-${opts.server}-${opts.transport}.json`);
const summary = writeSummary(file, { suite, server: opts.server, transport: opts.transport }, results);
console.log(`${suite} ${opts.server}/${opts.transport}: ${summary.passed} passed, ${summary.failed} failed`);
process.exit(summary.failed === 0 && summary.total > 0 ? 0 : 1);
