// Requests for the docs harness's drivers of the TypeScript SDK page: each
// goes through createMcpHandler(factory), the SDK's own per-request HTTP
// handler, as a 2026-07-28 client sends it.
import { createMcpHandler } from '@modelcontextprotocol/server';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};
let id = 0;

/**
 * One tools/call; `extra` adds inputResponses and requestState.
 * @param {() => any} factory @param {string} name @param {Record<string, unknown>} args
 * @param {Record<string, unknown>} [extra]
 * @returns {Promise<any>} the JSON-RPC response
 */
export async function callTool(factory, name, args, extra = {}) {
  const handler = createMcpHandler(factory, { responseMode: 'json', onerror: () => {} });
  const body = { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args, _meta: META, ...extra } };
  const res = await handler.fetch(new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify(body),
  }));
  return res.json();
}

/** @param {unknown} ok @param {unknown[]} what */
export function check(ok, ...what) {
  if (!ok) throw new Error(JSON.stringify(what));
}
