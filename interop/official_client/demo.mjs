// `make demo`: the official MCP TypeScript client walks through the tools of
// a snodo example server (bindings-node/examples/server.mjs, or with
// `--server python` bindings-python/examples/server.py) over stdio, printing
// every message on the wire so a newcomer can follow the multi round-trip
// request (MRTR) exchange of protocol revision 2026-07-28, then the same
// client with its DEFAULT options (the 2025 `initialize` handshake), served by
// the same handlers through snodo's legacy bridge: real `elicitation/create`
// requests instead of `input_required` results; last, a client that
// declares the Tasks extension gets the `report` tool as a task.
//
//   node interop/official_client/demo.mjs [--server node|python]
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { rawClient, stdioParams } from '../lib/servers.mjs';

const { values: opts } = parseArgs({ options: { server: { type: 'string', default: 'node' } } });
if (!['node', 'python'].includes(opts.server)) {
  console.error('usage: demo.mjs [--server node|python]');
  process.exit(2);
}
const SERVER = `${opts.server}-example`;
const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const show = (v) => JSON.stringify(v);
const short = (s) => (s.length > 48 ? `${s.slice(0, 24)}…${s.slice(-16)} (${s.length} chars)` : s);

function params(p) {
  const { _meta, ...rest } = p ?? {};
  if (typeof rest.requestState === 'string') rest.requestState = short(rest.requestState);
  return rest;
}

let round = 0;
let answer = { action: 'accept', content: { color: 'green' } };
function log(dir, msg) {
  if (dir === 'out' && msg.method) {
    round += 1;
    const retry = msg.params?.requestState !== undefined;
    console.log(bold(`\nRound ${round}: the client sends ${msg.method}${retry ? ' again, with the answers and the echoed requestState' : ''}`));
    console.log(`  → ${show(params(msg.params))}`);
  } else if (dir === 'in' && msg.result?.resultType === 'input_required') {
    const r = msg.result;
    console.log('  ← input_required: the server needs something from the user before it can answer');
    for (const [key, req] of Object.entries(r.inputRequests ?? {})) {
      console.log(`      question ${JSON.stringify(key)}: ${req.method} ${show(req.params)}`);
    }
    console.log(`      requestState: ${short(r.requestState)}`);
    console.log('      (sealed by snodo: HMAC-signed, bound to this request, this user and these questions;');
    console.log('       the server keeps nothing between rounds)');
  } else if (dir === 'in' && msg.result) {
    const { _meta, ...result } = msg.result;
    console.log(`  ← complete: ${show(result)}`);
  } else if (dir === 'in' && msg.error) {
    console.log(`  ← error: ${show(msg.error)}`);
  }
}

async function connect() {
  const client = new Client({ name: 'snodo-demo', version: '0.0.0' }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
  client.setRequestHandler('elicitation/create', async (req) => {
    console.log(`  The user sees "${req.params.message}" and answers: ${JSON.stringify(answer)}`);
    return answer;
  });
  const transport = new StdioClientTransport(stdioParams(SERVER));
  await client.connect(transport);
  const onmessage = transport.onmessage;
  transport.onmessage = (msg, extra) => { log('in', msg); onmessage(msg, extra); };
  const send = transport.send.bind(transport);
  transport.send = (msg, o) => { log('out', msg); return send(msg, o); };
  return client;
}

console.log(bold(`snodo demo: the official MCP TypeScript client (@modelcontextprotocol/client) and the ${opts.server} example server, over stdio, protocol 2026-07-28`));
const client = await connect();

console.log(bold('\n━━ 1. A tool that needs the user\'s preference: tools/call preferred_color'));
const tool = await client.callTool({ name: 'preferred_color', arguments: {} });
console.log(`\nThe application gets: ${JSON.stringify(tool.content[0].text)}`);

console.log(bold('\n━━ 2. The user declines'));
round = 0;
answer = { action: 'decline' };
const declined = await client.callTool({ name: 'preferred_color', arguments: {} });
console.log(`\nThe application gets: ${JSON.stringify(declined.content[0].text)}`);

console.log(bold('\n━━ 3. An effect, once per flow: tools/call book_room (the client retries by hand here)'));
round = 0;
const book = (extra = {}) => client.request({ method: 'tools/call', params: { name: 'book_room', arguments: {}, ...extra } },
  { allowInputRequired: true });
const b1 = await book();
const finalRound = (nights) => book({ inputResponses: { booking: { action: 'accept', content: { nights } } }, requestState: b1.requestState });
const booked = await finalRound(2);
console.log(`\nThe application gets: ${JSON.stringify(booked.content[0].text)}`);
console.log('The response was lost, say: the client sends the same final round again.');
const again = await finalRound(2);
console.log(`The application gets the same booking, not a second one: ${JSON.stringify(again.content[0].text)}`);
console.log('The same token with other answers:');
try {
  await finalRound(3);
  console.log('unexpected: a second booking');
  process.exitCode = 1;
} catch (e) {
  console.log(`The application gets error ${e.code}: ${e.message} ${JSON.stringify(e.data)}`);
}

console.log(bold('\n━━ 4. A tampered requestState is refused'));
round = 0;
const r1 = await client.request({ method: 'tools/call', params: { name: 'preferred_color', arguments: {} } }, { allowInputRequired: true });
try {
  await client.request({
    method: 'tools/call',
    params: { name: 'preferred_color', arguments: {}, inputResponses: { color: { action: 'accept', content: { color: 'red' } } }, requestState: `${r1.requestState}x` },
  }, { allowInputRequired: true });
  console.log('\nunexpected: the tampered state was accepted');
  process.exitCode = 1;
} catch (e) {
  console.log(`\nThe application gets error ${e.code}: ${e.message} ${JSON.stringify(e.data)}`);
}
await client.close();

// --- the 2025 era: default options, no version pin

function legacyLog(dir, msg) {
  if (dir === 'out' && msg.method === 'initialize') {
    console.log(`  → initialize ${show({ protocolVersion: msg.params.protocolVersion, capabilities: msg.params.capabilities })}`);
  } else if (dir === 'in' && msg.result?.serverInfo) {
    console.log(`  ← initialized: protocolVersion ${msg.result.protocolVersion} (a 2025-era session)`);
  } else if (dir === 'out' && msg.method && msg.id !== undefined) {
    console.log(`  → ${msg.method} ${show(params(msg.params))}`);
  } else if (dir === 'in' && msg.method === 'elicitation/create') {
    console.log(`  ← the server asks: elicitation/create (id ${msg.id}) ${show(msg.params)}`);
  } else if (dir === 'out' && msg.result) {
    console.log(`  → the client answers id ${msg.id}: ${show(msg.result)}`);
  } else if (dir === 'in' && msg.result) {
    const { _meta, ...result } = msg.result;
    console.log(`  ← the final result (no resultType: 2025 vocabulary only): ${show(result)}`);
  }
}

console.log(bold('\n━━ 5. The same client with its DEFAULT options: the 2025 initialize handshake'));
console.log('   The server runs the same handler; snodo\'s legacy bridge turns its question into a real');
console.log('   elicitation/create request on the session and feeds the answer back to the handler.');
const legacy = new Client({ name: 'snodo-demo', version: '0.0.0' }, { capabilities: { elicitation: { form: {} } } });
answer = { action: 'accept', content: { color: 'green' } };
legacy.setRequestHandler('elicitation/create', async (req) => {
  console.log(`  The user sees "${req.params.message}" and answers: ${JSON.stringify(answer)}`);
  return answer;
});
const lt = new StdioClientTransport(stdioParams(SERVER));
const ltSend = lt.send.bind(lt);
lt.send = (msg, o) => { legacyLog('out', msg); return ltSend(msg, o); };
const ltStart = lt.start.bind(lt);
lt.start = async () => {
  await ltStart();
  const onmessage = lt.onmessage;
  lt.onmessage = (msg, extra) => { legacyLog('in', msg); onmessage(msg, extra); };
};
await legacy.connect(lt);
const legacyTool = await legacy.callTool({ name: 'preferred_color', arguments: {} });
console.log(`\nThe application gets: ${JSON.stringify(legacyTool.content[0].text)}`);
await legacy.close();

// --- the Tasks extension: the same kind of handler, run in the background (docs/tasks.md)
console.log(bold('\n━━ 6. A task: tools/call report from a client that declares the Tasks extension'));
console.log('   The official client has no tasks/* methods: plain JSON-RPC lines here. The handler hands its');
console.log('   second half on as a task; its question comes back on tasks/get, the answer goes by tasks/update.');
const raw = await rawClient(SERVER, 'stdio');
const TASKS = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } };
let rid = 100;
const call = async (method, p) => {
  console.log(`  → ${method} ${show(p)}`);
  const m = await raw.send({ jsonrpc: '2.0', id: rid++, method, params: { ...p, _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': TASKS } } });
  const { _meta, ...result } = m.result ?? {};
  console.log(`  ← ${show(m.error ?? result)}`);
  return m.result ?? {};
};
const poll = async (taskId, statuses) => {
  for (;;) { // a client polls at pollIntervalMs; quicker here
    const t = await call('tasks/get', { taskId });
    if (statuses.includes(t.status)) return t;
    await new Promise((r) => setTimeout(r, 200));
  }
};
const task = await call('tools/call', { name: 'report', arguments: {} });
const waiting = await poll(task.taskId, ['input_required', 'completed', 'failed', 'cancelled']);
const [key, question] = Object.entries(waiting.inputRequests ?? { none: {} })[0];
console.log(`  The user sees "${question.params?.message}" (key ${key}, minted for this task) and answers: table`);
await call('tasks/update', { taskId: task.taskId, inputResponses: { [key]: { action: 'accept', content: { format: 'table' } } } });
const finished = await poll(task.taskId, ['completed', 'failed', 'cancelled']);
console.log(`\nThe application gets: ${JSON.stringify(finished.result?.content?.[0]?.text)}`);
if (finished.status !== 'completed') process.exitCode = 1;
await raw.close();
console.log(bold('\nDone. Copy the example server and replace its tools; `make test` runs both official clients and the conformance suite.'));
