// make bench: the per-call cost of snodo inside the official
// TypeScript SDK (@modelcontextprotocol/server 2.4.0), next to the SDK's own
// state handling on the same tool.
//
// In process: `createMcpHandler(factory).fetch(Request)` (the 2026 stateless
// HTTP path without sockets: classification, a fresh McpServer per request,
// the MRTR seam, encoding). A flow is two requests: round 1 gets
// input_required, the retry carries the answer and the echoed requestState.
//
//   snodo  the tool served by snodo-mrtr/mcp (Snodo.serve): snodo seals/opens
//   sdk    the same tool on McpServer alone: inputRequired(...) with a state
//          minted by createRequestStateCodec (HMAC) and checked by the
//          requestState.verify hook, answers read with acceptedContent
//   floor  a tool that completes at once, two plain requests
//
// Reported: microseconds per flow (median of repeats) and snodo - sdk.
// Usage: node sdk_bench.mjs OUT.json
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { McpServer, createMcpHandler, createRequestStateCodec, inputRequired, acceptedContent } from '@modelcontextprotocol/server';

const require = createRequire(import.meta.url);
const mrtr = require('../index.js');
const { Snodo } = require('../mcp.js');

const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 50) * 4;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 11);
const KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
const SCHEMA = { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

const snodo = new Snodo(new mrtr.Engine({ keys: [{ id: 'k1', secret: KEY }] }));
const COLOR = mrtr.elicitForm('Which color?', SCHEMA);
const snodoColor = (call) => {
  const a = call.response('color', COLOR);
  return a.kind === 'accepted'
    ? mrtr.complete({ content: [{ type: 'text', text: a.value.color }] })
    : mrtr.inputRequired({ color: COLOR }, { step: 1 });
};
const codec = createRequestStateCodec({ key: KEY });

// JSON responses: no tool here emits notifications (the SDK warns once that json mode drops them).
const OPTIONS = { responseMode: 'json', onerror: () => {} };
const handlers = {
  snodo: createMcpHandler(() => snodo.serve(new McpServer({ name: 'bench', version: '1' }),
    { tools: { color: [{ description: 'color' }, snodoColor] } }), OPTIONS),
  sdk: createMcpHandler(() => {
    const s = new McpServer({ name: 'bench', version: '1' }, { requestState: { verify: codec.verify } });
    s.registerTool('color', { description: 'color' }, async (ctx) => { // no inputSchema: ctx is the only argument
      const state = ctx.mcpReq.requestState();
      const content = acceptedContent(ctx.mcpReq.inputResponses, 'color');
      if (state && state.step === 1 && content) return { content: [{ type: 'text', text: content.color }] };
      return inputRequired({
        inputRequests: { color: inputRequired.elicit({ message: 'Which color?', requestedSchema: SCHEMA }) },
        requestState: await codec.mint({ step: 1 }),
      });
    });
    return s;
  }, OPTIONS),
  floor: createMcpHandler(() => {
    const s = new McpServer({ name: 'bench', version: '1' });
    s.registerTool('color', { description: 'color' }, async () => ({ content: [{ type: 'text', text: 'green' }] }));
    return s;
  }, OPTIONS),
};

let id = 0;
async function post(handler, params) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'color', arguments: {}, _meta: META, ...params } });
  const res = await handler.fetch(new Request('http://127.0.0.1/mcp', {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'color' },
  }));
  const text = await res.text();
  const json = text.startsWith('{') ? JSON.parse(text) : JSON.parse(text.split('\n').find((l) => l.startsWith('data:')).slice(5));
  if (json.error) throw new Error(JSON.stringify(json.error));
  return json.result;
}

async function flow(name) {
  const r1 = await post(handlers[name], {});
  if (name === 'floor') return post(handlers[name], {});
  if (r1.resultType !== 'input_required') throw new Error(`${name}: ${JSON.stringify(r1)}`);
  return post(handlers[name], {
    inputResponses: { color: { action: 'accept', content: { color: 'green' } } },
    requestState: r1.requestState,
  });
}

for (const name of Object.keys(handlers)) { // correctness first
  const r = await flow(name);
  if (r.content?.[0]?.text !== 'green') throw new Error(`${name}: ${JSON.stringify(r)}`);
}
const samples = { snodo: [], sdk: [], floor: [] };
for (let r = 0; r < REPEATS; r++) {
  for (const name of Object.keys(samples)) {
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < SAMPLE_MS) {
      await flow(name);
      n++;
    }
    samples[name].push(((performance.now() - t0) / n) * 1000);
  }
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const med = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, Math.round(median(v) * 10) / 10]));
const report = {
  sdk: '@modelcontextprotocol/server 2.4.0 (McpServer, createMcpHandler.fetch in process, 2026-07-28)',
  flow: 'two tools/call requests: input_required + retry (floor: two plain calls)',
  us_per_flow: med,
  snodo_minus_sdk_us: Math.round((med.snodo - med.sdk) * 10) / 10,
};
console.log(JSON.stringify(report, null, 1));
writeFileSync(process.argv[2] ?? 'sdk-node.json', JSON.stringify(report, null, 1));
for (const h of Object.values(handlers)) await h.close?.();
