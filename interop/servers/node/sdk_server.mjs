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
// A contract server of the interop suites (`--server node-sdk`); its
// packages come from this folder's package-lock.json (`npm ci --ignore-scripts`).
//
// Keys, principal and the HTTP edge as server.mjs (SNODO_KEYS; Bearer token =
// user, demo only; SNODO_ALLOWED_HOSTS and the other edge settings).
// Not served here: the Tasks extension demo (paint_task, tasks/*).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer, createMcpHandler, isInitializeRequest, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { version, complete, checkHttpOrigin, Session, unknownSession } from 'snodo-mrtr';
import { Snodo } from 'snodo-mrtr/mcp';
import { TOOLS, PROMPTS, readColor, engineFromEnv, edgeFromEnv, principalOf, clientOf, readBody } from './server.mjs';

// One engine per process (keys live outside the per-request factory).
const engine = engineFromEnv()();
// The principal: the user the wrapper below put in authInfo (demo: the Bearer token).
const snodo = new Snodo(engine, { principal: (ctx) => ctx.http?.authInfo?.token ?? null });

const tools = Object.fromEntries(Object.entries(TOOLS)
  .filter(([name]) => name !== 'paint_task')
  .map(([name, [description, run]]) => [name, [{ description }, (call) => run(call)]]));
// The SDK declares listChanged on 2026 (it serves subscriptions/listen), so
// the conformance fixtures that "mutate" a list publish the change event.
const changed = (what) => () => {
  if (what === 'tools') modern?.notify.toolsChanged();
  else modern?.notify.promptsChanged();
  return complete({ content: [{ type: 'text', text: `Published ${what}/list_changed.` }] });
};
tools.test_trigger_tool_change = [{ description: 'Conformance: tool list change' }, changed('tools')];
tools.test_trigger_prompt_change = [{ description: 'Conformance: prompt list change' }, changed('prompts')];
const prompts = Object.fromEntries(Object.entries(PROMPTS)
  .map(([name, [description, run]]) => [name, [{ description }, (call) => run(call)]]));
const resources = { 'prefs://color': ['preferred-color', { description: 'Your preferred color', mimeType: 'text/plain' }, readColor] };

function factory() {
  const mcp = new McpServer({ name: 'snodo-node-sdk-example', version: version() });
  return snodo.serve(mcp, { tools, prompts, resources });
}

// --- HTTP: Node request <-> Web Request/Response, behind server.mjs's edge
// (SNODO_ALLOWED_HOSTS / SNODO_ALLOWED_ORIGINS, the connection cap, the
// in-flight body budget, the session quotas; see server.mjs). snodo's
// checkHttpOrigin runs here on every request, before its body is read:
// createMcpHandler checks neither Host nor Origin, and the legacy
// transport's own enableDnsRebindingProtection compares exact header
// strings (it cannot say "loopback on any port" or "the request's own
// origin"), so it stays off and this check is the one that decides.

let modern; // the 2026 HTTP handler (HTTP mode only)
let edge; // edgeFromEnv() (HTTP mode only)
// 2025-era sessions: Mcp-Session-Id -> { transport, owner, client, lastSeen,
// open }. `owner` is a snodo Session recording the principal of the
// `initialize`: its checkPrincipal is the refusal (404) for anyone else.
// `open`: requests of the session still being answered (a flow waiting on
// the client keeps its POST open), never swept.
const sessions = new Map();

const jsonError = (status, id, code, message, headers = {}) => new Response(
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }),
  { status, headers: { 'content-type': 'application/json', ...headers } });

function sweepSessions() {
  const now = Date.now();
  for (const entry of sessions.values()) {
    if (entry.open === 0 && now - entry.lastSeen > edge.sessionIdleMs) entry.transport.close(); // onclose forgets it
  }
}

// A request on a 2025-era session, or the `initialize` that opens one (by
// `who`, counted against `client`).
async function legacy(request, body, authInfo, who, client) {
  const id = request.headers.get('mcp-session-id');
  if (id) {
    const entry = sessions.get(id);
    if (!entry) { // the same bytes as another user's session: nobody learns which ids exist
      const r = unknownSession();
      return new Response(r.json, { status: r.httpStatus, headers: { 'content-type': 'application/json' } });
    }
    return entry.transport.handleRequest(request, { authInfo, parsedBody: body });
  }
  // No session yet: only an initialize opens one (a fresh transport would
  // answer anything else with 400 and be left behind).
  if (!isInitializeRequest(body)) return jsonError(400, null, -32000, 'Bad Request: Server not initialized');
  const mine = () => [...sessions.values()].filter((e) => e.client === client).length;
  if (sessions.size >= edge.maxSessions || mine() >= edge.maxSessionsPerClient) sweepSessions();
  if (mine() >= edge.maxSessionsPerClient) {
    return jsonError(429, body.id, -32000, 'Too many sessions for this client: end one (DELETE) first', { 'retry-after': '60' });
  }
  if (sessions.size >= edge.maxSessions) return new Response(null, { status: 503, headers: { 'retry-after': '60' } });
  let owner;
  try {
    const requested = typeof body.params?.protocolVersion === 'string' ? body.params.protocolVersion : '';
    owner = Session.fromInitialize(body, engine.legacyVersionFor(requested) ?? requested, who);
  } catch (e) {
    return jsonError(400, body.id, -32602, `Invalid initialize: ${e.message}`);
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => sessions.set(sid, { transport, owner, client, lastSeen: Date.now(), open: 0 }),
  });
  transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
  await factory().connect(transport);
  return transport.handleRequest(request, { authInfo, parsedBody: body });
}

function serveHttp(port) {
  edge = edgeFromEnv();
  setInterval(sweepSessions, Math.min(60_000, edge.sessionIdleMs / 2)).unref();
  modern = createMcpHandler(factory, { legacy: 'reject' });
  const server = http.createServer((req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    const send = (status, headers = {}, body = undefined) => res.writeHead(status, headers).end(body);
    const refuse = (r) => send(r.httpStatus, { 'content-type': 'application/json' }, r.json);
    const foreign = checkHttpOrigin(edge.policy, req.rawHeaders);
    if (foreign) return refuse(foreign);
    if (new URL(req.url, 'http://x').pathname !== '/mcp') return send(404);
    const who = principalOf(req);
    // Another principal's session does not exist for this caller: refused
    // before the SDK's transport sees the request (an answer, a
    // cancellation, a GET or a DELETE alike).
    const sessionId = req.headers['mcp-session-id'];
    const entry = sessionId === undefined ? undefined : sessions.get(sessionId);
    const notYours = entry?.owner.checkPrincipal(who);
    if (notYours) return refuse(notYours);
    if (entry) {
      entry.lastSeen = Date.now();
      entry.open++;
      res.on('close', () => { entry.open--; entry.lastSeen = Date.now(); });
    }
    const hasBody = !['GET', 'HEAD', 'DELETE'].includes(req.method);
    const serve = async (raw) => {
      try {
        const headers = new Headers();
        for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
        const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: hasBody ? raw : undefined });
        const authInfo = who === null ? undefined : { token: who, clientId: 'demo', scopes: [] };
        let parsed;
        try { parsed = hasBody && raw.length ? JSON.parse(raw.toString('utf8')) : undefined; } catch { parsed = undefined; }
        const response = await isLegacyRequest(request.clone(), parsed)
          ? await legacy(request, parsed, authInfo, who, clientOf(req, who))
          : await modern.fetch(request, { authInfo, parsedBody: parsed });
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (response.body) {
          for await (const chunk of response.body) res.write(chunk);
        }
        res.end();
      } catch (e) {
        console.error(`request failed: ${e?.stack ?? e}`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      }
    };
    if (!hasBody) return serve(Buffer.alloc(0));
    return readBody(req, edge.bodyBudget, send, serve);
  });
  // Past the cap Node closes a new connection at once; open ones are unaffected.
  server.maxConnections = edge.maxConnections;
  server.on('error', (e) => {
    console.error(`cannot listen on 127.0.0.1:${port}: ${e.message}`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => {
    console.error(`listening on http://127.0.0.1:${server.address().port}/mcp`);
  });
}

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--stdio') serveStdio(factory);
else if (args.length === 2 && args[0] === '--http' && /^\d+$/.test(args[1])) serveHttp(Number(args[1]));
else {
  console.error('usage: sdk_server.mjs --stdio | --http PORT');
  process.exit(2);
}
