// snodo-mrtr/mcp: snodo as the MRTR engine of an `@modelcontextprotocol/server` 2.4.x server.
import type { Call, Engine, Outcome } from './index';

/** What a handler returns: an outcome in the JSON spelling of `engine.decide`. */
export type SnodoOutcome = Outcome | Promise<Outcome>;

/** The SDK's handler context, as far as snodo reads it (`ctx.mcpReq`, `ctx.http`). */
export interface SdkContext {
  mcpReq?: {
    id?: string | number;
    _meta?: Record<string, unknown>;
    envelope?: Record<string, unknown>;
    inputResponses?: Record<string, unknown>;
    requestState?: () => unknown;
  };
  http?: { authInfo?: { token?: string; [k: string]: unknown }; [k: string]: unknown };
  [k: string]: unknown;
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
}

export interface SnodoSpec {
  tools?: Record<string, [config: Record<string, unknown>, run: (call: Call, args: Record<string, unknown>, ctx: SdkContext) => SnodoOutcome]>;
  prompts?: Record<string, [config: Record<string, unknown>, run: (call: Call, args: Record<string, unknown>, ctx: SdkContext) => SnodoOutcome]>;
  resources?: Record<string, [name: string, config: Record<string, unknown>, run: (call: Call, ctx: SdkContext) => SnodoOutcome]>;
}

/** The methods where `input_required` is legal. */
export declare const MRTR_METHODS: readonly ['tools/call', 'prompts/get', 'resources/read'];

/** The params as the client sent them, re-assembled from the SDK's request and `ctx.mcpReq`. */
export declare function wireParams(request: { method: string; params?: Record<string, unknown> }, ctx: SdkContext, server?: { getClientCapabilities?(): unknown }): Record<string, unknown>;

export declare class Snodo {
  constructor(engine: Engine, options?: SnodoOptions);
  readonly engine: Engine;
  /** beginParts → route(call) → decide; throws SnodoProtocolError for error responses. */
  run(request: { method: string; params?: Record<string, unknown>; id?: string | number }, ctx: SdkContext,
      route: (call: Call, ctx: SdkContext) => SnodoOutcome, server?: unknown): Promise<Record<string, unknown>>;
  /**
   * A low-level `Server` handler: `server.setRequestHandler('tools/call', snodo.handler(server, route))`.
   * `server` then answers a 2026 `tools/call`, `prompts/get` or `resources/read` whose `inputResponses`
   * or `requestState` is malformed with begin's -32602 (the SDK would hand the handler no answers).
   */
  handler(server: unknown, route: (call: Call, ctx: SdkContext) => SnodoOutcome):
    (request: { method: string; params?: Record<string, unknown> }, ctx: SdkContext) => Promise<Record<string, unknown>>;
  /**
   * `McpServer`: registers `spec` and serves its MRTR methods through snodo (JSON-RPC errors stay errors;
   * a malformed `inputResponses` or `requestState` gets begin's -32602, as on every other path).
   */
  serve<S extends { server: unknown }>(mcpServer: S, spec: SnodoSpec): S;
}
