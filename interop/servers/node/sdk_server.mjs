#!/usr/bin/env node
// The interop/CONTRACT.md surface on the official MCP TypeScript SDK
// (@modelcontextprotocol/server 2.4.0, McpServer), snodo making every MRTR
// decision through snodo-mrtr/mcp. The tools, the resource and the prompts
// are server.mjs's handlers; the SDK serves transports, eras and lists.
//
//   node interop/servers/node/sdk_server.mjs --stdio       serveStdio (2026 per request; 2025 sessions
//                                                          through the SDK's legacy shim)
//   node interop/servers/node/sdk_server.mjs --http PORT   createMcpHandler on 127.0.0.1:PORT/mcp for 2026, and a
//                                                          stateful per-session transport for 2025-era clients
//
// book_room (interop/CONTRACT.md) runs its effect once per flow through the
// adapter's runOnce, on this process's MemoryStore.
//
// A contract server of the interop suites (`--server node-sdk`); its
// packages come from this folder's package-lock.json (`npm ci --ignore-scripts`).
//
// Keys, principal and the HTTP edge as server.mjs (SNODO_KEYS; Bearer token =
// user, demo only; SNODO_ALLOWED_HOSTS and the other edge settings).
// Not served here: the Tasks extension demo (paint_task, tasks/*).
import http from 'node:http';
import * as sdk from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { version, complete, elicitForm, inputRequired } from 'snodo-mrtr';
import { MemoryStore } from 'snodo-mrtr/once';
import { Snodo } from 'snodo-mrtr/mcp';
import { TOOLS, PROMPTS, readColor, engineFromEnv, edgeFromEnv, principalOf, clientOf, readBody } from './server.mjs';

// One engine per process (keys live outside the per-request factory).
const engine = engineFromEnv()();
// The principal: the user snodo.http put in authInfo (demo: the Bearer token).
// book_room's effect runs at most once per flow in this process (MemoryStore).
const snodo = new Snodo(engine, { principal: (ctx) => ctx.http?.authInfo?.token ?? null, once: new MemoryStore() });

/** @typedef {import('snodo-mrtr/mcp').SnodoSpec} Spec */
/** @type {NonNullable<Spec['tools']>} */
const tools = Object.fromEntries(Object.entries(TOOLS)
  .filter(([name]) => name !== 'paint_task')
  .map(([name, [description, run]]) => [name, [{ description }, (call) => run(call)]]));
// The SDK declares listChanged on 2026 (it serves subscriptions/listen), so
// the conformance fixtures that "mutate" a list publish the change event.
/** @param {'tools' | 'prompts'} what */
const changed = (what) => () => {
  if (what === 'tools') modern?.notify.toolsChanged();
  else modern?.notify.promptsChanged();
  return complete({ content: [{ type: 'text', text: `Published ${what}/list_changed.` }] });
};
tools.test_trigger_tool_change = [{ description: 'Conformance: tool list change' }, changed('tools')];
tools.test_trigger_prompt_change = [{ description: 'Conformance: prompt list change' }, changed('prompts')];

// book_room as interop/CONTRACT.md gives it to the examples: asks only the
// nights, books one ledger entry per flow (`Booked: entry #N`, N the
// ledger's length). A retry of a booked flow gets its booking again, or
// -32602 `replayed` with other answers or none.
const NIGHTS = elicitForm('How many nights shall we book?', { type: 'object', required: ['nights'],
  properties: { nights: { type: 'integer', minimum: 1, maximum: 14 } } });
/** @type {{ user: string | null, nights: number, fence: number }[]} */
const bookings = []; // stands in for a database
/** @param {import('snodo-mrtr').Call} call */
async function bookRoom(call) {
  const remembered = await snodo.checkOnce(call);
  if (remembered !== null) return complete(remembered);
  const a = call.response('booking', NIGHTS);
  if (a.kind === 'declined' || a.kind === 'cancelled') return complete({ content: [{ type: 'text', text: 'No room booked.' }] });
  if (a.kind !== 'accepted') return inputRequired({ booking: NIGHTS });
  return complete(await snodo.runOnce(call, ({ fence }) => {
    const n = bookings.push({ user: call.principal, nights: a.value.nights, fence });
    return { content: [{ type: 'text', text: `Booked: entry #${n}` }] };
  }));
}
tools.book_room = [{ description: 'Books a room, once: asks for how many nights' }, bookRoom];
/** @type {NonNullable<Spec['prompts']>} */
const prompts = Object.fromEntries(Object.entries(PROMPTS)
  .map(([name, [description, run]]) => [name, [{ description }, (call) => run(call)]]));
/** @type {NonNullable<Spec['resources']>} */
const resources = { 'prefs://color': ['preferred-color', { description: 'Your preferred color', mimeType: 'text/plain' }, readColor] };

function factory() {
  const mcp = new McpServer({ name: 'snodo-node-sdk-example', version: version() });
  return snodo.serve(mcp, { tools, prompts, resources });
}

// --- HTTP: snodo.http serves 2026 per request (createMcpHandler) and
// 2025 sessions (a stateful transport each, the SDK's legacy shim), behind
// server.mjs's edge: snodo's Host/Origin check on every request before its
// body is read, each session bound to the principal of its `initialize`,
// the session quotas and idle sweep (SNODO_ALLOWED_HOSTS and the other
// settings, see server.mjs), the in-flight body budget and the connection cap.

/** @type {ReturnType<Snodo['http']> | undefined} the HTTP listener (HTTP mode only), for its notify */
let modern;

/** @param {number} port */
function serveHttp(port) {
  const edge = edgeFromEnv();
  modern = snodo.http(sdk, factory, {
    policy: edge.policy,
    principal: principalOf,
    client: clientOf,
    maxSessions: edge.maxSessions,
    maxSessionsPerClient: edge.maxSessionsPerClient,
    sessionIdleMs: edge.sessionIdleMs,
    readBody: (req, send, done) => readBody(req, edge.bodyBudget, send, done),
  });
  const server = http.createServer(modern);
  // Past the cap Node closes a new connection at once; open ones are unaffected.
  server.maxConnections = edge.maxConnections;
  server.on('error', (e) => {
    console.error(`cannot listen on 127.0.0.1:${port}: ${e.message}`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => {
    const address = server.address();
    console.error(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}/mcp`);
  });
}

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--stdio') serveStdio(factory);
else if (args.length === 2 && args[0] === '--http' && /^\d+$/.test(args[1])) serveHttp(Number(args[1]));
else {
  console.error('usage: sdk_server.mjs --stdio | --http PORT');
  process.exit(2);
}
