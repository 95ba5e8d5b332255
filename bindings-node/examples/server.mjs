#!/usr/bin/env node
// A small MCP server on snodo-mrtr, for both protocol eras. Copy it, then replace the tools.
//
//   node server.mjs --stdio        JSON-RPC, one message per line on stdin/stdout (logs: stderr)
//   node server.mjs --http PORT    Streamable HTTP at http://127.0.0.1:PORT/mcp (0: any free port)
// SNODO_KEYS="id:hex-or-base64,old:..." (the first signs, all verify; unset: a random key for this process only);
// SNODO_ALLOWED_HOSTS, SNODO_ALLOWED_ORIGINS: Host names a proxy forwards here, pages that may call (unset: loopback).
import http from 'node:http';
import readline from 'node:readline';
import {
  Call, Engine, OriginPolicy, Session, checkHttpHeaders, checkHttpOrigin, complete, elicitForm, error, inputRequired,
  runAsTask, toolError, unknownSession, version,
} from 'snodo-mrtr';
import { MemoryStore, checkOnce, runOnce } from 'snodo-mrtr/once';
import { MemoryTaskStore, Tasks } from 'snodo-mrtr/tasks';
/** @typedef {import('snodo-mrtr').Outcome} Outcome @typedef {import('snodo-mrtr').Response} Response */

const INFO = { name: 'snodo-node-example', version: version() };
const MAX_BODY = 4 << 20;
// 2025 sessions: at most 16 per user (per address when anonymous); one idle for 120 s with nothing in flight ends.
const [SESSIONS_PER_CLIENT, SESSION_IDLE_MS] = [16, 120_000];

const spec = (process.env.SNODO_KEYS ?? '').trim();
const [hosts, origins] = ['SNODO_ALLOWED_HOSTS', 'SNODO_ALLOWED_ORIGINS']
  .map((name) => (process.env[name] ?? '').split(',').map((e) => e.trim()).filter(Boolean));
let /** @type {Engine} */ engine, /** @type {OriginPolicy} */ policy;
try {
  // fromEnv's CONFIG error names a bad SNODO_KEYS entry, never its bytes.
  engine = spec ? Engine.fromEnv({ serverInfo: INFO }) : Engine.development();
  policy = hosts.length || origins.length ? new OriginPolicy({ hosts, origins }) : new OriginPolicy();
} catch (e) { console.error(`configuration: ${/** @type {Error} */ (e).message}`); process.exit(2); }
if (!spec) console.error('warning: SNODO_KEYS is not set: a random key for this process only');

// --- the tools. Questions are built once: an answer counts only for the question asked last round.
const COLOR = elicitForm('Which color do you prefer?', { type: 'object', required: ['color'],
  properties: { color: { type: 'string', enum: ['red', 'green', 'blue'] } } });
const BOOKING = elicitForm('How many nights shall we book?', { type: 'object', required: ['nights'],
  properties: { nights: { type: 'integer', minimum: 1, maximum: 14 } } });
const FORMAT = elicitForm('Which format should the report use?', { type: 'object', required: ['format'],
  properties: { format: { type: 'string', enum: ['table', 'chart'] } } });
const text = (/** @type {string} */ t) => complete({ content: [{ type: 'text', text: t }] });

function preferredColor(/** @type {Call} */ call) {
  const a = call.response('color', COLOR);
  if (a.kind === 'accepted') return text(`Your preferred color is ${a.value.color}.`);
  if (a.kind === 'declined') return text('You declined to choose a color.');
  if (a.kind === 'cancelled') return toolError('You cancelled the color question.');
  return inputRequired({ color: COLOR }); // missing or invalid: ask (again)
}

// At most once per flow: a lost response, a double click or a replayed token never books twice. This store is this
// process's memory; a fleet shares one Redis: new RedisStore({ client }) of snodo-mrtr/once, `await store.check()`.
const store = new MemoryStore();
const bookings = /** @type {{ user: string | null, nights: number, fence: number }[]} */ ([]); // your database

async function bookRoom(/** @type {Call} */ call) {
  try {
    if (call.flowId !== null) { // a retry: the flow may be booked already
      const remembered = await checkOnce(store, call);
      if (remembered !== null) return complete(remembered); // the same final round again: the same booking
    }
    const a = call.response('booking', BOOKING);
    if (a.kind === 'declined' || a.kind === 'cancelled') return text('No room booked.');
    if (a.kind !== 'accepted' || call.flowId === null) return inputRequired({ booking: BOOKING }); // (no flow: ask)
    return complete(await runOnce(store, call, ({ fence }) => { // runs once per flow, on one process
      bookings.push({ user: call.principal, nights: a.value.nights, fence });
      return { content: [{ type: 'text', text: `Booked: entry #${bookings.length}` }] };
    }));
  } catch (/** @type {any} */ e) { // a coded error of snodo-mrtr/once (e.code, e.reason)
    if (e.code === 'TOKEN') return error(-32602, 'Invalid or expired requestState', { reason: e.reason }); // replayed
    if (e.code === 'STORE') return error(-32603, `once store unavailable: ${e.message}`); // nothing booked: retry
    throw e;
  }
}

function report(/** @type {Call} */ call) { // a task, for a client that declared the extension (docs/tasks.md)
  const rows = /** @type {{ rows?: number }} */ (call.state ?? {}).rows;
  if (rows === undefined) return runAsTask({ rows: 1250 }); // the first half of the work; the rest may run as a task
  const a = call.response('format', FORMAT); // halfway: a choice
  if (a.kind === 'accepted') return text(`Report of ${rows} rows as a ${a.value.format}.`);
  if (a.kind === 'declined' || a.kind === 'cancelled') return toolError('No format chosen: no report.');
  return inputRequired({ format: FORMAT }, { rows });
}

/** @type {Record<string, [string, (call: Call) => Outcome | Promise<Outcome>]>} */
const TOOLS = { preferred_color: ['Asks your preferred color', preferredColor],
  book_room: ['Books a room, once: asks for how many nights', bookRoom],
  report: ['Writes a report; asks its format halfway (a task, for a client that can)', report] };
const tool = (/** @type {any} */ [name, [description]]) => ({ name, description, inputSchema: { type: 'object' } });
/** @type {Record<string, object>} */
const LISTS = { 'tools/list': { tools: Object.entries(TOOLS).map(tool) }, 'server/discover': { supportedVersions:
  ['2026-07-28'], capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } } } };

async function route(/** @type {Call} */ call) {
  try { // the lists are the same for everyone, every time: cacheable
    if (Object.hasOwn(LISTS, call.method)) return complete({ ...LISTS[call.method], ttlMs: 0, cacheScope: 'private' });
    if (call.method !== 'tools/call') return error(-32601, `Method not found: ${call.method}`);
    if (!Object.hasOwn(TOOLS, call.name ?? '')) return error(-32602, `Unknown tool: ${call.name}`);
    return await TOOLS[call.name ?? ''][1](call);
  } catch (/** @type {any} */ e) { // a bug in a tool still gets exactly one response
    console.error(`${call.method} failed: ${e.stack ?? e}`);
    return error(-32603, 'Internal error');
  }
}
const tasks = new Tasks(engine, route, { store: new MemoryTaskStore() }); // a fleet: the once store's RedisStore

function sent(/** @type {Response} */ response) {
  if (response.diagnostic) console.error(`snodo: ${response.diagnostic}`); // for the operator, never the client
  return response.json;
}
/** A 2026-07-28 request; principal null: anonymous. @param {string | Buffer} body @param {string | null} principal */
async function answer(body, principal) {
  const call = engine.begin(body, principal); // tasks.answer decides it, or runs it as a task
  return call instanceof Call ? tasks.answer(call) : call;
}
/** @param {string} text @returns {[any, boolean]} */
function parse(text) { // [the message, whether it is a request]
  let m; // (what is not JSON, or not an object, is a request that begin answers with its error)
  try { m = JSON.parse(text); } catch { return [{}, text.trim() !== '']; }
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return [{}, true];
  return [m, m.method !== undefined && m.id !== undefined];
}

// --- 2025-era sessions: snodo's legacy bridge asks the client with real requests; answers come back.
const waiting = /** @type {Map<unknown, any>} */ (new Map()); // by the id of each question we sent: { pending, settle }
const sessions = /** @type {Map<unknown, Legacy>} */ (new Map()); // HTTP sessions by Mcp-Session-Id
class Legacy { // a session: what `initialize` negotiated and who opened it, its client, its use
  /** @param {any} m an initialize @param {string | null} principal @param {string} client */
  constructor(m, principal, client) {
    const negotiated = engine.legacyVersionFor(String(m.params?.protocolVersion ?? '')) ?? '';
    this.session = Session.fromInitialize(m, negotiated, principal);
    this.client = client; this.seen = Date.now(); this.busy = 0;
    const result = { protocolVersion: negotiated, capabilities: { tools: {} }, serverInfo: INFO };
    this.welcome = JSON.stringify({ jsonrpc: '2.0', id: m.id, result });
  }
  /** @param {string | Buffer} body @param {string | null} principal @param {(text: string) => void} send */
  async request(body, principal, send) { // send(text): the questions it asks, then its response
    let call = engine.beginLegacy(body, this.session, principal);
    while (call instanceof Call) {
      const r = engine.decideLegacy(call, await route(call));
      if (r.kind !== 'send') { // the response, or a round with state only: run again
        call = r.kind === 'resume' ? r.call : r.response;
        continue;
      }
      const ids = r.pending.requestIds;
      this.busy += 1;
      const fed = await new Promise((settle) => { // settled by take(), or at the deadline
        for (const id of ids) waiting.set(id, { pending: r.pending, settle });
        setTimeout(() => settle(engine.timeout(r.pending)), (r.pending.deadline - engine.now()) * 1000 + 500).unref();
        for (const question of r.pending.requests) send(JSON.stringify(question));
      });
      for (const id of ids) waiting.delete(id);
      [this.busy, this.seen] = [this.busy - 1, Date.now()];
      for (const note of fed.cancellations ?? []) send(JSON.stringify(note));
      call = fed.kind === 'resume' ? fed.call : fed.response; // resume: every answer is in
    }
    send(sent(call));
  }
}

/** null: snodo refused it (begin answers). @param {any} m @param {string | null} principal @param {string} client */
const opened = (m, principal, client) => { try { return new Legacy(m, principal, client); } catch { return null; } };

/** null: the answer was taken; else why not. @param {any} m @param {string|Buffer} body @param {string?} principal */
function take(m, body, principal) {
  const flow = waiting.get(m.id);
  if (!flow) return `no question awaits id ${JSON.stringify(m.id)}`;
  try { // snodo refuses an answer that is late, repeated, malformed or another user's
    const fed = engine.feed(flow.pending, body, principal);
    if (fed.kind !== 'waiting') flow.settle(fed); // every answer is in (or the flow failed)
  } catch (e) { return /** @type {Error} */ (e).message; }
  return null;
}

function serveStdio() { // one client, the anonymous user; `initialize` first: a 2025 session
  const write = (/** @type {string} */ line) => process.stdout.write(`${line}\n`);
  let ls = /** @type {Legacy | null} */ (null);
  const onLine = async (/** @type {string} */ line) => {
    const [m, isRequest] = parse(line);
    if (ls === null && isRequest && m.method === 'initialize' && (ls = opened(m, null, 'stdio')) !== null) {
      write(ls.welcome);
    } else if (ls === null && isRequest) {
      write(sent(await answer(line, null)));
    } else if (ls !== null && isRequest) { // runs on beside the next lines, which bring its answers
      await ls.request(line, null, write);
    } else if (m.id !== undefined && m.method === undefined) { // an answer to one of our questions
      const why = take(m, line, null);
      if (why !== null) console.error(`ignored: ${why}`);
    }
  };
  readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
    .on('line', (line) => onLine(line).catch((/** @type {any} */ e) => console.error(`failed: ${e.stack ?? e}`)));
}

/** Streamable HTTP: POST /mcp. @param {http.IncomingMessage} req @param {http.ServerResponse} res */
async function mcp(req, res) {
  const json = { 'content-type': 'application/json' };
  /** @param {number} status @param {string} [body] @param {Record<string, string>} [headers] */
  const send = (status, body, headers = {}) => res.writeHead(status, { ...json, ...headers }).end(body);
  const reply = (/** @type {Response} */ response) => send(response.httpStatus, sent(response));
  let refusal = checkHttpOrigin(policy, req.rawHeaders); // first: a web page, or DNS rebinding
  if (refusal) return reply(refusal);
  if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') return send(404);
  if (req.method !== 'POST') return send(405, undefined, { allow: 'POST' });
  // DEMO ONLY: the bearer token is the user's name. A real server verifies it and passes the user.
  const principal = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1].trim() || null; // null: anon
  const sid = req.headers['mcp-session-id'];
  let ls = sessions.get(sid) ?? null;
  refusal = ls?.session.checkPrincipal(principal) ?? null; // another user's session: as if it did not exist
  if (refusal || (sid !== undefined && ls === null)) return reply(refusal ?? unknownSession()); // same bytes
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    if ((size += chunk.length) > MAX_BODY) return send(413, undefined, { connection: 'close' });
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const [m, isRequest] = parse(body.toString('utf8'));
  if (ls === null && isRequest && m.method === 'initialize') { // a new session: the idle sweep, then the quota
    const client = principal !== null ? `user ${principal}` : `address ${req.socket.remoteAddress}`;
    for (const [id, s] of sessions) if (s.busy === 0 && Date.now() - s.seen > SESSION_IDLE_MS) sessions.delete(id);
    if ([...sessions.values()].filter((s) => s.client === client).length >= SESSIONS_PER_CLIENT) return send(429);
    ls = opened(m, principal, client);
    if (ls === null) return reply(await answer(body, principal));
    sessions.set(ls.session.id, ls);
    return send(200, ls.welcome, { 'mcp-session-id': ls.session.id });
  }
  if (ls === null && isRequest) { // 2026-07-28: the request-metadata headers must agree with the body
    return reply(checkHttpHeaders(req.rawHeaders, body) ?? await answer(body, principal));
  }
  if (ls !== null && isRequest) { // its questions, then its response: events on this POST's stream
    ls.seen = Date.now();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': sid });
    await ls.request(body, principal, (/** @type {string} */ t) => res.write(`event: message\ndata: ${t}\n\n`));
    return res.end();
  }
  const why = ls !== null && m.method === undefined ? take(m, body, principal) : null;
  return why === null ? send(202) : send(400, why); // (a notification: 202)
}

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--stdio') serveStdio();
else if (args.length === 2 && args[0] === '--http' && /^\d+$/.test(args[1])) {
  const server = http.createServer((req, res) => mcp(req, res).catch((/** @type {any} */ e) => {
    console.error(`request failed: ${e.stack ?? e}`);
    if (!res.headersSent) res.writeHead(500).end();
  }));
  const where = () => `http://127.0.0.1:${/** @type {any} */ (server.address()).port}/mcp`;
  server.listen(Number(args[1]), '127.0.0.1', () => console.error(`listening on ${where()}`));
} else { console.error('usage: server.mjs --stdio | --http PORT'); process.exit(2); }
