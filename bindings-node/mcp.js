'use strict';
// snodo-mrtr/mcp: snodo as the MRTR engine of an `@modelcontextprotocol/server`
// (2.4.x) server. snodo owns every MRTR decision of the handlers it is given
// (envelope, token seal/open once with its own keys, answers, -32021,
// resultType); the SDK keeps transports, eras, lists and everything else.
//
// It imports nothing from the SDK: it registers request handlers through the
// public `setRequestHandler` and throws errors carrying `code`/`data`, which
// the SDK sends as JSON-RPC errors (never `isError` results: the handlers sit
// at the `Server` level, outside `McpServer`'s tool funnel). `http` takes the
// caller's SDK module: `createMcpHandler` tells an `McpServer` by
// `instanceof`, so the classes must be the caller's copy of the SDK, never a
// second one resolved from this package's folder.

const { Call, OriginPolicy, Session, checkHttpOrigin, unknownSession, toolError } = require('./index.js');
const once = require('./once.js');
const { randomUUID } = require('node:crypto');

const MRTR_VERSION = '2026-07-28';

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const MRTR_METHODS = ['tools/call', 'prompts/get', 'resources/read'];
const SYNTHESIZED = Symbol('snodo-mrtr/mcp: a 2025 session read in the 2026 dialect');

/** A JSON-RPC error for the SDK to send as is (it reads `code`, `message`, `data`). */
class SnodoProtocolError extends Error {
  constructor(code, message, data) {
    super(message);
    this.name = 'SnodoProtocolError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

function toError(response) {
  const { error } = JSON.parse(response.json);
  return new SnodoProtocolError(error.code, error.message, error.data);
}

/**
 * `meta` as snodo reads it: as sent, or for a 2025-era session (no
 * envelope) the 2026 dialect with the capabilities the session declared at
 * `initialize`, marked as synthesized.
 */
function withEnvelope(meta, server) {
  if (meta[META_VERSION] === undefined) {
    // Not enumerable: never part of the params snodo reads or binds.
    Object.defineProperty(meta, SYNTHESIZED, { value: true });
    meta[META_VERSION] = MRTR_VERSION;
    const caps = server && typeof server.getClientCapabilities === 'function' ? server.getClientCapabilities() : undefined;
    meta[META_CAPABILITIES] = caps || {};
  }
  return meta;
}

/**
 * The params as the client sent them. The SDK lifts `requestState`,
 * `inputResponses` and the reserved `_meta` keys off `request.params` into
 * `ctx.mcpReq`; they go back in (canonical binding makes re-assembly safe),
 * whatever their value: `begin` answers a malformed one. A 2025-era session
 * (the SDK's legacy shim re-entering the handler) has no envelope: snodo
 * then reads the request in the 2026 dialect with the capabilities the
 * session declared at `initialize`, and the shim turns the resulting
 * input_required into real server-to-client requests.
 */
function wireParams(request, ctx, server) {
  const m = (ctx && ctx.mcpReq) || {};
  const params = { ...(request.params || {}) };
  params._meta = withEnvelope({ ...(params._meta || {}), ...(m._meta || {}), ...(m.envelope || {}) }, server);
  if (m.inputResponses !== undefined) params.inputResponses = m.inputResponses;
  const state = typeof m.requestState === 'function' ? m.requestState() : undefined;
  if (state !== undefined) params.requestState = state;
  return params;
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Whether `params` has a malformed `inputResponses` or `requestState` that
 * the SDK hides before any handler runs: it reads an `inputResponses` that
 * is not an object as `{}`, drops an entry that is not an object, and
 * answers a `requestState` that is not a string itself (with its own
 * reason). `begin` refuses each of these with -32602 before it opens any
 * token.
 */
function malformedRetry(params) {
  if (!isObject(params)) return false;
  if (Object.hasOwn(params, 'requestState') && typeof params.requestState !== 'string') return true;
  if (!Object.hasOwn(params, 'inputResponses')) return false;
  const answers = params.inputResponses;
  return !isObject(answers) || Object.values(answers).some((a) => !isObject(a));
}

/**
 * What `begin` answers `message` as sent, if it is a 2026 request for one
 * of `methods` with a malformed retry (`malformedRetry`); else null. A
 * 2025-era request (no envelope) is left to the SDK: those keys are not
 * part of that era, and snodo's own bridge ignores them there.
 */
function refusal(engine, message, methods) {
  if (!isObject(message) || message.id === undefined || !methods.includes(message.method)) return null;
  const params = message.params;
  if (!isObject(params) || !isObject(params._meta) || params._meta[META_VERSION] === undefined) return null;
  if (!malformedRetry(params)) return null;
  // begin refuses these shapes before it opens a token, so the principal
  // changes nothing here.
  const begun = engine.beginParts(message.id, message.method, params, null);
  return begun instanceof Call ? null : JSON.parse(begun.json);
}

/** The servers whose transports `guard` already watches (one wrapper each). */
const GUARDED = new WeakSet();

/**
 * Makes `server` answer a request for one of `methods` with a malformed
 * `inputResponses` or `requestState` with what `begin` answers the request
 * as sent (-32602), as every other path does, instead of letting the
 * handler see no answers and ask again. The SDK lifts those keys off the
 * params before any handler (`Protocol._onrequest`), so only the transport
 * sees them as sent: each transport `server` connects to gets its
 * `onmessage` wrapped (the SDK's hook for owning a transport). Every other
 * message goes on as is.
 */
function guard(engine, server, methods) {
  if (!server || typeof server.connect !== 'function' || GUARDED.has(server)) return;
  GUARDED.add(server);
  const connect = server.connect;
  server.connect = async (transport, ...rest) => {
    const connected = await connect.call(server, transport, ...rest);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const answer = refusal(engine, message, methods);
      if (answer === null) return deliver(message, extra);
      // Sent at once, as the SDK's own refusals before a handler are.
      return void new Promise((sent) => { sent(transport.send(answer, { relatedRequestId: message.id })); })
        .catch((e) => server.onerror?.(e));
    };
    return connected;
  };
}

/** What a once store's refusal or failure is on the wire (errors of the handler itself are rethrown). */
function onceError(e) {
  // The flow completed with other answers (or without any): as any refused requestState.
  if (e instanceof Error && e.code === 'TOKEN' && e.reason === 'replayed') {
    return new SnodoProtocolError(-32602, 'Invalid or expired requestState', { reason: 'replayed' });
  }
  // Nothing ran: the client may send the same request again.
  if (e instanceof Error && e.code === 'STORE') return new SnodoProtocolError(-32603, `once store unavailable: ${e.message}`);
  return e;
}

/**
 * The handler McpServer installed for `method` on `server`, to serve the
 * names `spec` does not own. The SDK has no public getter: `_getRequestHandler`
 * is its accessor for role classes (2.4.x); without it `serve` refuses to
 * start rather than answer `Unknown tool` for tools McpServer lists.
 */
function installed(server, method) {
  const get = server && server._getRequestHandler;
  const handler = typeof get === 'function' ? get.call(server, method) : undefined;
  if (typeof handler !== 'function') {
    throw new Error(`snodo-mrtr/mcp: McpServer installed no ${method} handler to pass other names to (needs @modelcontextprotocol/server 2.4.x)`);
  }
  return handler;
}

/** The validated arguments of a prompt, through the SDK's own handler (a -32602 ProtocolError when they fail). */
const ARGS = Symbol('snodo-mrtr/mcp: validated prompt arguments');

class Snodo {
  /**
   * @param engine a snodo-mrtr Engine (shared by every factory instance)
   * @param options.principal (ctx) => verified user name, or null (anonymous; the default)
   * @param options.once a once store (MemoryStore, RedisStore) for runOnce/checkOnce
   */
  constructor(engine, options = {}) {
    this.engine = engine;
    this.principal = options.principal || (() => null);
    this.onDiagnostic = options.onDiagnostic || ((d) => console.error(`snodo: ${d}`));
    this.once = options.once ?? null;
  }

  /** beginParts → route(call) → decide, as a handler body for `method`. */
  async run(request, ctx, route, server) {
    const id = ctx && ctx.mcpReq && ctx.mcpReq.id !== undefined ? ctx.mcpReq.id : request.id;
    const params = wireParams(request, ctx, server);
    const begun = this.engine.beginParts(id, request.method, params, this.principal(ctx) ?? null);
    if (!(begun instanceof Call)) throw toError(begun); // -32602 (+ data.reason), -32022, ...
    const outcome = await route(begun, ctx);
    const response = this.engine.decide(begun, outcome);
    if (response.diagnostic) this.onDiagnostic(response.diagnostic);
    const body = JSON.parse(response.json);
    if (body.error) throw new SnodoProtocolError(body.error.code, body.error.message, body.error.data);
    const result = body.result; // complete or input_required: sealed once, by snodo
    // A 2025 session: the shim needs resultType to see input_required, but a
    // final result goes out as is on the 2025 wire, where the field does not exist.
    if (params._meta[SYNTHESIZED] && result.resultType === 'complete') delete result.resultType;
    return result;
  }

  #store(who) {
    if (this.once === null) throw new Error(`snodo-mrtr/mcp: ${who} needs a once store: new Snodo(engine, { once: new MemoryStore() })`);
    return this.once;
  }

  /**
   * once.js's runOnce on the store of `options.once`: the effect at most once
   * for the flow of `call`, its result (fresh or remembered). A replayed flow
   * and a store failure are thrown as SnodoProtocolError (-32602 `replayed`,
   * -32603), which the SDK sends as JSON-RPC errors.
   */
  async runOnce(call, effect, options) {
    const store = this.#store('runOnce');
    try {
      return await once.runOnce(store, call, effect, options);
    } catch (e) {
      throw onceError(e);
    }
  }

  /**
   * once.js's checkOnce on the store: on a retry, the result remembered for
   * these answers, or null (nothing remembered, or a first round, which has
   * no flow yet); a flow completed with other answers (or none) is thrown
   * as -32602 `replayed`, a store failure as -32603.
   */
  async checkOnce(call, options) {
    const store = this.#store('checkOnce');
    if (call instanceof Call && call.flowId == null) return null;
    try {
      return await once.checkOnce(store, call, options);
    } catch (e) {
      throw onceError(e);
    }
  }

  /**
   * A request handler for a low-level `Server`:
   * `server.setRequestHandler('tools/call', snodo.handler(server, (call, ctx) => outcome))`.
   */
  handler(server, route) {
    guard(this.engine, server, MRTR_METHODS);
    return (request, ctx) => this.run(request, ctx, route, server);
  }

  /**
   * `McpServer` users: registers the tools/prompts/resources of `spec` (so the
   * SDK lists them) and serves their `tools/call`, `prompts/get` and
   * `resources/read` through snodo; every other name (registered with
   * `registerTool`, `registerPrompt` or `registerResource`, before or after)
   * goes on to McpServer's own handler. Arguments are validated as
   * McpServer validates its own: a tool's `inputSchema` failure is its
   * `isError` result, a prompt's `argsSchema` failure its -32602.
   *
   * spec = { tools: { name: [config, (call, args, ctx) => outcome] },
   *          prompts: { name: [config, (call, args, ctx) => outcome] },
   *          resources: { uri: [name, config, (call, ctx) => outcome] } }
   */
  serve(mcpServer, spec) {
    const tools = spec.tools || {};
    const prompts = spec.prompts || {};
    const resources = spec.resources || {};
    const never = () => {
      throw new Error('snodo-mrtr/mcp: this callback is served by Snodo.serve');
    };
    if (Object.keys(tools).length && typeof mcpServer.validateToolInput !== 'function') {
      throw new Error('snodo-mrtr/mcp: this McpServer has no validateToolInput to check arguments with (needs @modelcontextprotocol/server 2.4.x)');
    }
    const registered = { tools: {}, prompts: {}, resources: {} };
    for (const [name, [config]] of Object.entries(tools)) registered.tools[name] = mcpServer.registerTool(name, config, never);
    for (const [name, [config]] of Object.entries(prompts)) {
      // Reached only through its `handler` below, for the SDK's validation of the arguments.
      registered.prompts[name] = mcpServer.registerPrompt(name, config, (...a) => ({ [ARGS]: a }));
    }
    for (const [uri, [name, config]] of Object.entries(resources)) registered.resources[uri] = mcpServer.registerResource(name, uri, config, never);
    const server = mcpServer.server;
    const methods = [
      ...(Object.keys(tools).length ? ['tools/call'] : []),
      ...(Object.keys(prompts).length ? ['prompts/get'] : []),
      ...(Object.keys(resources).length ? ['resources/read'] : []),
    ];
    guard(this.engine, server, methods);
    // An entry of `spec` (enabled: a disabled one gets McpServer's own refusal), or null.
    const pick = (table, own, key) => (typeof key === 'string' && Object.hasOwn(table, key) && own[key]?.enabled !== false ? table[key] : null);
    const take = (method, table, own, keyOf, route) => {
      const others = installed(server, method);
      server.setRequestHandler(method, (request, ctx) => {
        const key = keyOf(request.params || {});
        const entry = pick(table, own, key);
        if (!entry) return others(request, ctx);
        return this.run(request, ctx, (call, c) => route(entry, own[key], key, call, c), server);
      });
    };
    if (Object.keys(tools).length) {
      take('tools/call', tools, registered.tools, (p) => p.name, async (entry, tool, name, call, ctx) => {
        const raw = call.params && call.params.arguments;
        let args = raw ?? {};
        try {
          // McpServer's own check (element cap, then inputSchema), message for message.
          const parsed = await mcpServer.validateToolInput(tool, raw, name);
          if (parsed !== undefined) args = parsed;
        } catch (e) {
          return toolError(e instanceof Error ? e.message : String(e));
        }
        return entry[1](call, args, ctx);
      });
    }
    if (Object.keys(prompts).length) {
      take('prompts/get', prompts, registered.prompts, (p) => p.name, async (entry, prompt, _name, call, ctx) => {
        const raw = call.params && call.params.arguments;
        const got = await prompt.handler(raw, ctx); // throws McpServer's -32602 for bad arguments
        const args = prompt.argsSchema ? got[ARGS][0] : (raw ?? {});
        return entry[1](call, args, ctx);
      });
    }
    if (Object.keys(resources).length) {
      take('resources/read', resources, registered.resources, (p) => p.uri, (entry, _r, _uri, call, ctx) => entry[2](call, ctx));
    }
    return mcpServer;
  }

  /**
   * One node:http request listener serving both eras through `factory`
   * (see mcp.d.ts): 2026 per request (`createMcpHandler`), 2025 sessions on
   * stateful transports (the SDK's legacy shim), behind snodo's Host/Origin
   * check, with each session bound to the principal of its `initialize`.
   */
  http(sdk, factory, options = {}) {
    const { createMcpHandler, isInitializeRequest, isLegacyRequest, WebStandardStreamableHTTPServerTransport } = sdk || {};
    if (![createMcpHandler, isInitializeRequest, isLegacyRequest, WebStandardStreamableHTTPServerTransport].every((f) => typeof f === 'function')) {
      throw new TypeError("snodo.http(sdk, factory, options): sdk must be the @modelcontextprotocol/server module (import * as sdk from '@modelcontextprotocol/server')");
    }
    if (typeof factory !== 'function') throw new TypeError('snodo.http: factory must be a function returning an McpServer');
    const engine = this.engine;
    const policy = options.policy ?? OriginPolicy.loopback();
    const principalOf = options.principal ?? (() => null);
    const clientOf = options.client ?? ((req, who) => (who === null ? `address ${req.socket.remoteAddress}` : `user ${who}`));
    const authInfoOf = options.authInfo ?? ((_req, who) => (who === null ? undefined : { token: who, clientId: who, scopes: [] }));
    const path = options.path ?? '/mcp';
    const maxSessions = options.maxSessions ?? 256;
    const maxSessionsPerClient = options.maxSessionsPerClient ?? 16;
    const sessionIdleMs = options.sessionIdleMs ?? 120_000;
    const readBody = options.readBody ?? bodyReader(options.maxBodyBytes ?? DEFAULT_MAX_BODY);
    const onError = options.onError ?? ((e) => console.error(`snodo-mrtr/mcp: request failed: ${e?.stack ?? e}`));
    const modern = createMcpHandler(factory, { ...options.handlerOptions, legacy: 'reject' });

    // 2025-era sessions: Mcp-Session-Id -> { transport, owner, client, lastSeen,
    // open }. `owner` records the principal of the `initialize`: its
    // checkPrincipal is the refusal (404) for anyone else. `open`: requests
    // still being answered (a flow waiting on the client keeps its POST
    // open), never swept.
    const sessions = new Map();
    const sweep = () => {
      const now = Date.now();
      for (const entry of sessions.values()) {
        if (entry.open === 0 && now - entry.lastSeen > sessionIdleMs) entry.transport.close(); // onclose forgets it
      }
    };
    const sweeper = setInterval(sweep, Math.max(1000, Math.min(60_000, sessionIdleMs / 2)));
    sweeper.unref();

    const jsonError = (status, id, code, message, headers = {}) => new Response(
      JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }),
      { status, headers: { 'content-type': 'application/json', ...headers } });
    const snodoResponse = (r) => new Response(r.json, { status: r.httpStatus, headers: { 'content-type': 'application/json' } });

    // A request on a 2025-era session, or the `initialize` that opens one.
    const legacy = async (request, body, authInfo, who, client) => {
      const id = request.headers.get('mcp-session-id');
      if (id) {
        const entry = sessions.get(id);
        // The same bytes as another user's session: nobody learns which ids exist.
        if (!entry) return snodoResponse(unknownSession());
        return entry.transport.handleRequest(request, { authInfo, parsedBody: body });
      }
      // Only an initialize opens a session (a fresh transport would answer
      // anything else with 400 and be left behind).
      if (!isInitializeRequest(body)) return jsonError(400, null, -32000, 'Bad Request: Server not initialized');
      const mine = () => [...sessions.values()].filter((e) => e.client === client).length;
      if (sessions.size >= maxSessions || mine() >= maxSessionsPerClient) sweep();
      if (mine() >= maxSessionsPerClient) {
        return jsonError(429, body.id, -32000, 'Too many sessions for this client: end one (DELETE) first', { 'retry-after': '60' });
      }
      if (sessions.size >= maxSessions) return new Response(null, { status: 503, headers: { 'retry-after': '60' } });
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
      await factory({ era: 'legacy', authInfo }).connect(transport);
      return transport.handleRequest(request, { authInfo, parsedBody: body });
    };

    const listener = (req, res) => {
      req.on('error', () => {});
      res.on('error', () => {});
      const send = (status, headers = {}, body = undefined) => res.writeHead(status, headers).end(body);
      const refuse = (r) => send(r.httpStatus, { 'content-type': 'application/json' }, r.json);
      // Before anything is read: a hostile page's Origin, or a rebound DNS name.
      // (createMcpHandler checks neither; the legacy transport's own check
      // compares exact strings, so it stays off and this one decides.)
      const foreign = checkHttpOrigin(policy, req.rawHeaders);
      if (foreign) return refuse(foreign);
      let url;
      try {
        url = new URL(req.url, 'http://127.0.0.1');
      } catch {
        return send(400);
      }
      if (url.pathname !== path) return send(404);
      const who = principalOf(req) ?? null;
      // Another principal's session does not exist for this caller: refused
      // before the SDK's transport sees the request (an answer, a
      // cancellation, a GET or a DELETE alike).
      const sessionId = req.headers['mcp-session-id'];
      const entry = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
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
          const authInfo = authInfoOf(req, who);
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
          onError(e);
          if (!res.headersSent) res.writeHead(500);
          res.end();
        }
      };
      if (!hasBody) return void serve(Buffer.alloc(0));
      return readBody(req, send, serve);
    };
    listener.notify = modern.notify;
    listener.sessions = () => sessions.size;
    listener.close = async () => {
      clearInterval(sweeper);
      await Promise.allSettled([...sessions.values()].map((e) => e.transport.close()));
      await modern.close?.();
    };
    return listener;
  }
}

/** createMcpHandler's default body cap. */
const DEFAULT_MAX_BODY = 4 << 20;

/** Reads a body up to `max` bytes, then done(body); past it 413 once the upload is read. */
function bodyReader(max) {
  return (req, send, done) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
      else chunks.length = 0; // read on, keep nothing
    });
    req.on('end', () => (size > max ? send(413, { connection: 'close' }) : done(Buffer.concat(chunks))));
  };
}

module.exports = { Snodo, SnodoProtocolError, wireParams, MRTR_METHODS };
