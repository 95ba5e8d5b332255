// snodo-mrtr/mcp: snodo as the MRTR engine of an `@modelcontextprotocol/server` 2.4.x server.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Call, Engine, OriginPolicy, Outcome } from './index';
import type { OnceStore, OnceLease, RunOnceOptions } from './once';

/** What a handler returns: an outcome in the JSON spelling of `engine.decide`. */
export type SnodoOutcome = Outcome | Promise<Outcome>;

/**
 * The SDK's handler context, as far as snodo reads it (`ctx.mcpReq`, `ctx.http`): the SDK's
 * `ServerContext` is assignable to it (no index signatures, which the SDK's types lack).
 */
export interface SdkContext {
  mcpReq?: {
    id?: string | number;
    _meta?: Record<string, unknown>;
    envelope?: Record<string, unknown>;
    inputResponses?: Record<string, unknown>;
    requestState?: () => unknown;
  };
  http?: { authInfo?: { token?: string; clientId?: string; scopes?: string[]; extra?: Record<string, unknown> } };
  sessionId?: string;
}

/** A JSON-RPC error the SDK sends as is (`code`, `message`, `data`). */
export declare class SnodoProtocolError extends Error {
  constructor(code: number, message: string, data?: unknown);
  readonly code: number;
  readonly data?: unknown;
}

export interface SnodoOptions {
  /** The verified user for this request, or null for the explicit anonymous principal (default). */
  principal?: (ctx: SdkContext) => string | null | undefined;
  /** Where `decide`'s diagnostics go (never on the wire); default: console.error. */
  onDiagnostic?: (diagnostic: string) => void;
  /** The once store of `runOnce`/`checkOnce` (`MemoryStore`, `RedisStore` from snodo-mrtr/once, or your own). */
  once?: OnceStore;
}

/** The parts of `@modelcontextprotocol/server` that `Snodo.http` uses: pass the module itself. */
export interface SdkModule {
  createMcpHandler(factory: (...args: any[]) => any, options?: any): {
    fetch(request: Request, options?: any): Promise<Response>;
    notify: any;
    close?(): Promise<void> | void;
  };
  isInitializeRequest(value: unknown): boolean;
  isLegacyRequest(request: Request, parsedBody?: unknown, options?: any): boolean | Promise<boolean>;
  WebStandardStreamableHTTPServerTransport: new (options: any) => any;
}

export interface SnodoHttpOptions {
  /** Which Host and Origin values are served (default `OriginPolicy.loopback()`); others get 421/403 before the body is read. */
  policy?: OriginPolicy;
  /** The verified user of a request, or null (anonymous; the default). A 2025 session belongs to its `initialize`'s. */
  principal?: (req: IncomingMessage) => string | null | undefined;
  /** What the SDK gets as `authInfo` (default `{ token: principal, clientId: principal, scopes: [] }`, none when anonymous). */
  authInfo?: (req: IncomingMessage, principal: string | null) => Record<string, unknown> | undefined;
  /** Whom a session counts against (default: the user, or the address of an anonymous client). */
  client?: (req: IncomingMessage, principal: string | null) => string;
  /** The endpoint path (default `/mcp`); anything else is 404. */
  path?: string;
  /** 2025 sessions in all (default 256; past it 503), per client (default 16; past it 429), idle time before one ends (default 120 000 ms). */
  maxSessions?: number;
  maxSessionsPerClient?: number;
  sessionIdleMs?: number;
  /** The body cap of the default reader (default 4 MiB, as createMcpHandler's; past it 413). */
  maxBodyBytes?: number;
  /** Your own body reader: `done(body)`, or answer with `send(status, headers)` yourself. */
  readBody?: (req: IncomingMessage, send: (status: number, headers?: Record<string, string>, body?: string) => void,
              done: (body: Buffer) => void) => void;
  /** More options for `createMcpHandler` (its `legacy` is always `'reject'`: 2025 clients get sessions). */
  handlerOptions?: Record<string, unknown>;
  /** Where a failed request's error goes (it is answered 500); default console.error. */
  onError?: (error: unknown) => void;
}

/** A node:http request listener serving both eras; `notify` is createMcpHandler's. */
export interface SnodoHttpListener {
  (req: IncomingMessage, res: ServerResponse): void;
  /** The 2026 handler's list-change notifier (`notify.toolsChanged()`, ...). */
  readonly notify: any;
  /** The 2025 sessions open now. */
  sessions(): number;
  /** Closes every session and the 2026 handler (the listening server is yours to close). */
  close(): Promise<void>;
}

/**
 * What `Snodo.serve` registers and serves. `args` are the arguments as McpServer's validation of
 * `config.inputSchema` (`argsSchema` for prompts) gave them, or as sent when there is none: type
 * them in your handler (`any` here, since the schema's type is not carried over).
 */
export interface SnodoSpec {
  tools?: Record<string, [config: Record<string, unknown>, run: (call: Call, args: any, ctx: SdkContext) => SnodoOutcome]>;
  prompts?: Record<string, [config: Record<string, unknown>, run: (call: Call, args: any, ctx: SdkContext) => SnodoOutcome]>;
  resources?: Record<string, [name: string, config: Record<string, unknown>, run: (call: Call, ctx: SdkContext) => SnodoOutcome]>;
}

/** The methods where `input_required` is legal. */
export declare const MRTR_METHODS: readonly ['tools/call', 'prompts/get', 'resources/read'];

/** The params as the client sent them, re-assembled from the SDK's request and `ctx.mcpReq`. */
export declare function wireParams(request: { method: string; params?: Record<string, unknown> }, ctx: SdkContext, server?: { getClientCapabilities?(): unknown }): Record<string, unknown>;

export declare class Snodo {
  constructor(engine: Engine, options?: SnodoOptions);
  readonly engine: Engine;
  /**
   * The effect at most once for the flow of `call` (snodo-mrtr/once's runOnce on `options.once`), its
   * result fresh or remembered. A flow completed with other answers throws SnodoProtocolError -32602
   * "Invalid or expired requestState" with `data.reason: "replayed"`; a store failure -32603
   * "once store unavailable: ..." (nothing ran). Errors of the effect itself are rethrown.
   */
  runOnce<T = any>(call: Call, effect: (lease: OnceLease) => T | Promise<T>, options?: RunOnceOptions): Promise<T>;
  /**
   * On a retry, the result remembered for these answers, or null (nothing remembered yet, or a first
   * round); a flow completed with other answers or none: -32602 `replayed`; a store failure: -32603.
   */
  checkOnce<T = any>(call: Call, options?: { nowMs?: number }): Promise<T | null>;
  /** beginParts → route(call) → decide; throws SnodoProtocolError for error responses. */
  run(request: { method: string; params?: Record<string, unknown>; id?: string | number }, ctx: SdkContext,
      route: (call: Call, ctx: SdkContext) => SnodoOutcome, server?: unknown): Promise<Record<string, unknown>>;
  /**
   * A low-level `Server` handler: `server.setRequestHandler('tools/call', snodo.handler(server, route))`.
   * `server` then answers a 2026 `tools/call`, `prompts/get` or `resources/read` whose `inputResponses`
   * or `requestState` is malformed with begin's -32602 (the SDK would hand the handler no answers).
   */
  handler(server: unknown, route: (call: Call, ctx: SdkContext) => SnodoOutcome):
    // `any`: the result is the method's own (snodo's decide made it), which setRequestHandler types per method.
    (request: { method: string; params?: Record<string, unknown> }, ctx: SdkContext) => Promise<any>;
  /**
   * `McpServer`: registers `spec` and serves its MRTR methods through snodo (JSON-RPC errors stay errors;
   * a malformed `inputResponses` or `requestState` gets begin's -32602, as on every other path). Names
   * not in `spec` go to McpServer's own handlers; a tool's `inputSchema` and a prompt's `argsSchema` are
   * checked by McpServer's own code first (a tool's failure is its `isError` result, a prompt's -32602).
   */
  serve<S extends { server: unknown }>(mcpServer: S, spec: SnodoSpec): S;
  /**
   * One node:http listener for both eras: 2026 requests through `createMcpHandler(factory)`, 2025
   * sessions on a stateful transport each (the SDK's legacy shim), Host/Origin checked first
   * (`checkHttpOrigin`), each session bound to the principal of its `initialize` (anyone else: 404,
   * as for an unknown session). `sdk` is your `import * as sdk from '@modelcontextprotocol/server'`.
   */
  http(sdk: SdkModule, factory: (...args: any[]) => any, options?: SnodoHttpOptions): SnodoHttpListener;
}
