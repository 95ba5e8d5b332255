// The official MCP TypeScript client (@modelcontextprotocol/client,
// pinned in package-lock.json) with its DEFAULT options, i.e. the 2025
// `initialize` handshake (no versionNegotiation pin), drives a snodo example
// server through the interop workflows. Every question reaches the client as
// a real `elicitation/create` request (snodo's legacy bridge), never as an
// `input_required` result.
//
//   node interop/official_client/legacy.mjs --server python|node --transport stdio|http
//
// Writes target/interop/official_client-<server>-<transport>-legacy.json and
// exits non-zero if any workflow fails.
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { KEYS, ROOT, startHttp, stdioParams, writeSummary } from '../lib/servers.mjs';

const { values: opts } = parseArgs({
  options: { server: { type: 'string' }, transport: { type: 'string' }, only: { type: 'string' } },
});
if (!['python', 'node'].includes(opts.server) || !['stdio', 'http'].includes(opts.transport)) {
  console.error('usage: legacy.mjs --server python|node --transport stdio|http [--only NAME]');
  process.exit(2);
}

const FORM_CAPS = { elicitation: { form: {} } };
let http = null;

/** A client with default options (2025 handshake) and a wire log. */
async function connect({ elicit, caps = FORM_CAPS } = {}) {
  const client = new Client({ name: 'snodo-interop-legacy', version: '0.0.0' }, { capabilities: caps });
  if (caps.elicitation) {
    client.setRequestHandler('elicitation/create', async (req) => {
      if (!elicit) throw new Error(`unexpected elicitation: ${req.params.message}`);
      return elicit(req.params);
    });
  }
  let transport;
  if (opts.transport === 'stdio') {
    transport = new StdioClientTransport(stdioParams(opts.server, { SNODO_KEYS: KEYS.a }));
  } else {
    http ??= await startHttp(opts.server, { keys: KEYS.a });
    transport = new StreamableHTTPClientTransport(new URL(http.url));
  }
  const wire = [];
  await client.connect(transport);
  const onmessage = transport.onmessage;
  transport.onmessage = (msg, extra) => { wire.push({ dir: 'in', msg }); onmessage(msg, extra); };
  const send = transport.send.bind(transport);
  transport.send = (msg, o) => { wire.push({ dir: 'out', msg }); return send(msg, o); };
  return { client, transport, wire, close: () => client.close() };
}

const textOf = (result) => result.content?.[0]?.text;
const accept = (content) => ({ action: 'accept', content });
/** The server-to-client requests of `method` seen on the wire. */
const serverRequests = (wire, method) => wire.filter((w) => w.dir === 'in' && w.msg.method === method && w.msg.id !== undefined);
/** No 2026 vocabulary ever reached this 2025-era client. */
function no2026(wire) {
  for (const w of wire.filter((x) => x.dir === 'in' && x.msg.result)) {
    assert.equal(w.msg.result.resultType, undefined, `resultType on the 2025 wire: ${JSON.stringify(w.msg)}`);
  }
}

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

const workflows = {
  async '1-preference-tool'() {
    const c = await connect({ elicit: () => accept({ color: 'green' }) });
    assert.match(c.client.getNegotiatedProtocolVersion?.() ?? '2025-11-25', /^2025-/);
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(textOf(result), 'Your preferred color is green.');
    assert.ok(!result.isError);
    const asked = serverRequests(c.wire, 'elicitation/create');
    assert.deepEqual(asked.map((w) => w.msg.params.message), ['Which color do you prefer?']);
    assert.match(String(asked[0].msg.id), /^snodo-/);
    no2026(c.wire);
    await c.close();
  },
  async '2-preference-resource'() {
    const c = await connect({ elicit: () => accept({ color: 'blue' }) });
    const result = await c.client.readResource({ uri: 'prefs://color' });
    assert.equal(result.contents[0].text, 'blue');
    assert.equal(serverRequests(c.wire, 'elicitation/create').length, 1);
    no2026(c.wire);
    await c.close();
  },
  async '3-preference-prompt'() {
    const c = await connect({ elicit: () => accept({ color: 'red' }) });
    const result = await c.client.getPrompt({ name: 'preferred_color' });
    assert.equal(result.messages[0].content.text, 'Write a short poem about the color red.');
    assert.equal(serverRequests(c.wire, 'elicitation/create').length, 1);
    no2026(c.wire);
    await c.close();
  },
  async '4-two-questions-invalid-then-valid'() {
    // Round 1 asks both at once; 12 guests is over the maximum (8), so only
    // the guests question comes back in round 2; the date rides in state.
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
    const ids = serverRequests(c.wire, 'elicitation/create').map((w) => w.msg.id);
    assert.equal(new Set(ids).size, 3, 'every server request has its own id');
    no2026(c.wire);
    await c.close();
  },
  async '5a-decline'() {
    const c = await connect({ elicit: () => ({ action: 'decline' }) });
    assert.equal(textOf(await c.client.callTool({ name: 'preferred_color', arguments: {} })), 'You declined to choose a color.');
    await c.close();
  },
  async '5b-cancel'() {
    const c = await connect({ elicit: () => ({ action: 'cancel' }) });
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(textOf(result), 'You cancelled the color question.');
    assert.equal(result.isError, true);
    await c.close();
  },
  async '6-invalid-then-valid-answer'() {
    let n = 0;
    const c = await connect({ elicit: () => accept({ color: n++ === 0 ? 'purple' : 'blue' }) });
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(textOf(result), 'Your preferred color is blue.');
    assert.equal(serverRequests(c.wire, 'elicitation/create').length, 2, 'asked again after the invalid answer');
    await c.close();
  },
  async '7-missing-elicitation-capability'() {
    const c = await connect({ caps: {} });
    const e = await rejectsWith(c.client.callTool({ name: 'preferred_color', arguments: {} }), -32021);
    assert.deepEqual(e.data?.requiredCapabilities, { elicitation: {} });
    assert.equal(serverRequests(c.wire, 'elicitation/create').length, 0, 'nothing sent to a client that cannot answer');
    await c.close();
  },
  async '8-client-error-fails-the-tool'() {
    const c = await connect({ elicit: () => { throw new Error('no human here'); } });
    const result = await c.client.callTool({ name: 'preferred_color', arguments: {} });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /could not answer elicitation\/create/);
    await c.close();
  },
};
if (opts.transport === 'http') {
  workflows['9-http-session-delete'] = async () => {
    const c = await connect({ elicit: () => accept({ color: 'red' }) });
    assert.ok(c.transport.sessionId, 'initialize issued an Mcp-Session-Id');
    const sid = c.transport.sessionId;
    await c.client.callTool({ name: 'preferred_color', arguments: {} });
    await c.transport.terminateSession();
    const after = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    assert.equal(after.status, 404, 'a request on an ended session');
    await c.close();
  };
}

const results = {};
for (const [name, run] of Object.entries(workflows)) {
  if (opts.only && !name.includes(opts.only)) continue;
  const t0 = Date.now();
  try {
    await run();
    results[name] = { status: 'pass', ms: Date.now() - t0 };
  } catch (e) {
    results[name] = { status: 'fail', ms: Date.now() - t0, error: String(e?.stack ?? e) };
    console.error(`FAIL ${name}: ${e?.stack ?? e}`);
  }
}
if (http) await http.stop();

const file = path.join(ROOT, 'target', 'interop', `official_client-${opts.server}-${opts.transport}-legacy.json`);
const summary = writeSummary(file, { suite: 'official_client', era: 'legacy', server: opts.server, transport: opts.transport }, results);
console.log(`official_client (default options, 2025 handshake) ${opts.server}/${opts.transport}: ${summary.passed} passed, ${summary.failed} failed`);
process.exit(summary.failed === 0 && summary.total > 0 ? 0 : 1);
