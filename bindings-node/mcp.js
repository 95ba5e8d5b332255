'use strict';
// snodo-mrtr/mcp: snodo as the MRTR engine of an `@modelcontextprotocol/server`
// (2.4.x) server. snodo owns every MRTR decision of the handlers it is given
// (envelope, token seal/open once with its own keys, answers, -32021,
// resultType); the SDK keeps transports, eras, lists and everything else.
//
// It imports nothing from the SDK: it registers request handlers through the
// public `setRequestHandler` and throws errors carrying `code`/`data`, which
// the SDK sends as JSON-RPC errors (never `isError` results: the handlers sit
// at the `Server` level, outside `McpServer`'s tool funnel).

const { Call } = require('./index.js');

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

class Snodo {
  /**
   * @param engine a snodo-mrtr Engine (shared by every factory instance)
   * @param options.principal (ctx) => verified user name, or null (anonymous; the default)
   */
  constructor(engine, options = {}) {
    this.engine = engine;
    this.principal = options.principal || (() => null);
    this.onDiagnostic = options.onDiagnostic || ((d) => console.error(`snodo: ${d}`));
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

  /**
   * A request handler for a low-level `Server`:
   * `server.setRequestHandler('tools/call', snodo.handler(server, (call, ctx) => outcome))`.
   */
  handler(server, route) {
    guard(this.engine, server, MRTR_METHODS);
    return (request, ctx) => this.run(request, ctx, route, server);
  }

  /**
   * `McpServer` users: registers the tools/prompts/resources (so the SDK lists
   * them) and takes over `tools/call`, `prompts/get` and `resources/read` on
   * `mcpServer.server` for them. Call it once per instance, after any other
   * registration: every tool, prompt and resource of the instance is served
   * from `spec` (an entry that needs no MRTR just returns `complete(...)`).
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
    for (const [name, [config]] of Object.entries(tools)) mcpServer.registerTool(name, config, never);
    for (const [name, [config]] of Object.entries(prompts)) mcpServer.registerPrompt(name, config, never);
    for (const [uri, [name, config]] of Object.entries(resources)) mcpServer.registerResource(name, uri, config, never);
    const server = mcpServer.server;
    guard(this.engine, server, [
      ...(Object.keys(tools).length ? ['tools/call'] : []),
      ...(Object.keys(prompts).length ? ['prompts/get'] : []),
      ...(Object.keys(resources).length ? ['resources/read'] : []),
    ]);
    const pick = (table, key) => (typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : null);
    if (Object.keys(tools).length) {
      server.setRequestHandler('tools/call', (request, ctx) => this.run(request, ctx, (call, c) => {
        const entry = pick(tools, call.name);
        if (!entry) return { type: 'error', code: -32602, message: `Unknown tool: ${call.name}` };
        return entry[1](call, (call.params && call.params.arguments) || {}, c);
      }, server));
    }
    if (Object.keys(prompts).length) {
      server.setRequestHandler('prompts/get', (request, ctx) => this.run(request, ctx, (call, c) => {
        const entry = pick(prompts, call.name);
        if (!entry) return { type: 'error', code: -32602, message: `Unknown prompt: ${call.name}` };
        return entry[1](call, (call.params && call.params.arguments) || {}, c);
      }, server));
    }
    if (Object.keys(resources).length) {
      server.setRequestHandler('resources/read', (request, ctx) => this.run(request, ctx, (call, c) => {
        const entry = pick(resources, call.uri);
        if (!entry) return { type: 'error', code: -32602, message: `Resource not found: ${call.uri}`, data: { uri: call.uri } };
        return entry[2](call, c);
      }, server));
    }
    return mcpServer;
  }
}

module.exports = { Snodo, SnodoProtocolError, wireParams, MRTR_METHODS };
