// The exports of server.mjs that sdk_server.mjs uses, typed for
// scripts/tsc-check.sh: tsc reads this declaration instead of checking
// server.mjs itself (the contract server is not under the strict check;
// the SDK server and the example are).
import type { IncomingMessage } from 'node:http';
import type { Call, Engine, OriginPolicy, Outcome } from 'snodo-mrtr';

type Handler = (call: Call) => Outcome | Promise<Outcome>;

export declare const TOOLS: Record<string, [description: string, run: Handler]>;
export declare const PROMPTS: Record<string, [description: string, run: Handler]>;
export declare function readColor(call: Call): Outcome;
/** The engine of SNODO_KEYS (a development key when unset), built when the returned function is called. */
export declare function engineFromEnv(): () => Engine;
export interface BodyBudget { limit: number; used: number }
export interface Edge {
  policy: OriginPolicy;
  maxConnections: number;
  bodyBudget: BodyBudget;
  maxSessions: number;
  maxSessionsPerClient: number;
  sessionIdleMs: number;
}
export declare function edgeFromEnv(): Edge;
export declare function principalOf(req: IncomingMessage): string | null;
export declare function clientOf(req: IncomingMessage, principal: string | null): string;
export declare function readBody(req: IncomingMessage, budget: BodyBudget,
  send: (status: number, headers?: Record<string, string>, body?: string) => void, done: (body: Buffer) => void): void;
export declare const MAX_BODY: number;
