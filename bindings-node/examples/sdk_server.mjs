#!/usr/bin/env node
// The interop/CONTRACT.md surface on the official MCP TypeScript SDK
// (@modelcontextprotocol/server 2.4.0, McpServer), snodo making every MRTR
// decision through snodo-mrtr/mcp. The tools, the resource and the prompts
// are server.mjs's handlers; the SDK serves transports, eras and lists.
//
//   node sdk_server.mjs --stdio        serveStdio (2026 per request; 2025 sessions through the SDK's legacy shim)
//   node sdk_server.mjs --http PORT    createMcpHandler on 127.0.0.1:PORT/mcp for 2026, and a stateful
//                                      per-session transport for 2025-era clients (the legacy shim)
//
// Keys and principal as server.mjs (SNODO_KEYS; Bearer token = user, demo only).
// Not served here: the Tasks extension demo (paint_task, tasks/*).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer, createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { version, complete } from 'snodo-mrtr';
import { Snodo } from 'snodo-mrtr/mcp';
import { TOOLS, PROMPTS, readColor, engineFromEnv } from './server.mjs';

// One engine per process (keys live outside the per-request factory).
const engine = engineFromEnv()();
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

// --- HTTP: Node request <-> Web Request/Response

const MAX_BODY = 4 << 20;
let modern; // the 2026 HTTP handler (HTTP mode only)
const sessions = new Map(); // 2025-era sessions (demo: in memory, unbounded lifetime until DELETE)

async function legacy(request, body, authInfo) {
  const id = request.headers.get('mcp-session-id');
  let transport = id ? sessions.get(id) : undefined;
  if (!transport) {
    if (id) return new Response(null, { status: 404 });
    transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
    await factory().connect(transport);
  }
  return transport.handleRequest(request, { authInfo, parsedBody: body });
}

function serveHttp(port) {
  modern = createMcpHandler(factory, { legacy: 'reject' });
  const server = http.createServer(async (req, res) => {
    try {
      if (new URL(req.url, 'http://x').pathname !== '/mcp') return res.writeHead(404).end();
      const chunks = [];
      let size = 0;
      for await (const c of req) {
        size += c.length;
        if (size > MAX_BODY) return res.writeHead(413).end();
        chunks.push(c);
      }
      const raw = Buffer.concat(chunks);
      const headers = new Headers();
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
      const hasBody = !['GET', 'HEAD', 'DELETE'].includes(req.method);
      const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: hasBody ? raw : undefined });
      // Demo only: the Bearer token verbatim is the user. A real server verifies it first.
      const bearer = /^Bearer\s+(\S+)$/i.exec(headers.get('authorization') ?? '');
      const authInfo = bearer ? { token: bearer[1], clientId: 'demo', scopes: [] } : undefined;
      let parsed;
      try { parsed = hasBody && raw.length ? JSON.parse(raw.toString('utf8')) : undefined; } catch { parsed = undefined; }
      const response = await isLegacyRequest(request.clone(), parsed)
        ? await legacy(request, parsed, authInfo)
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
  });
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
