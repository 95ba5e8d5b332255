#!/usr/bin/env node
// A small MCP server (protocol 2026-07-28) on snodo-mrtr. Copy it and keep
// the shape: transport is plain `node:` built-ins; snodo reads each request
// (`begin`) and turns each handler's outcome into the response (`decide`).
//
//   node server.mjs --stdio            newline-delimited JSON-RPC on stdin/stdout
//   node server.mjs --http 8788        Streamable HTTP, POST /mcp, JSON responses
//
// Keys: SNODO_KEYS="id:hex-or-base64,old:..." (the first signs, all verify).
// Without it a random process key is used, and tokens die with the process.
import http from 'node:http';
import readline from 'node:readline';
import {
  Engine, Call, elicitForm, sampling, listRoots, filterSupported,
  complete, inputRequired, error,
} from 'snodo-mrtr';

const SERVER_INFO = { name: 'snodo-node-example', version: '0.1.0' };

function engineFromEnv() {
  const spec = process.env.SNODO_KEYS;
  if (!spec) {
    console.error('warning: SNODO_KEYS is not set; using a random process key (single process only)');
    return Engine.development();
  }
  const keys = spec.split(',').map((entry) => {
    const [id, value = ''] = entry.split(':');
    const hex = /^(?:[0-9a-fA-F]{2})+$/.test(value);
    return { id, secret: Buffer.from(value, hex ? 'hex' : 'base64') };
  });
  return new Engine({ keys, serverInfo: SERVER_INFO });
}

// --- the read-only preference workflow: a tool, a resource and a prompt

const COLOR = elicitForm('Which color do you prefer?', {
  type: 'object',
  properties: { color: { type: 'string', enum: ['red', 'green', 'blue'] } },
  required: ['color'],
});

// Asks for the color until answered; `render` turns it into the final result.
function withColor(call, render) {
  const answer = call.response('color', COLOR);
  if (answer.kind === 'accepted') return complete(render(answer.value.color));
  if (answer.kind === 'declined' || answer.kind === 'cancelled') return complete(render('no preference'));
  return inputRequired({ color: COLOR });
}

const text = (t) => ({ content: [{ type: 'text', text: t }] });
const NAME = elicitForm('What is your name?', {
  type: 'object', properties: { name: { type: 'string' } }, required: ['name'],
});
const SAMPLE = sampling({
  messages: [{ role: 'user', content: { type: 'text', text: 'Say hello.' } }], maxTokens: 50,
});
const ROOTS = listRoots();
const CONTEXT = elicitForm('Any context for the prompt?', {
  type: 'object', properties: { context: { type: 'string' } }, required: ['context'],
});

// Completes when every key was answered (any answer), else asks for the rest.
function askAll(call, requests, state, done) {
  const missing = Object.entries(requests).filter(([k, r]) => call.response(k, r).kind === 'missing');
  if (missing.length === 0) return complete(done());
  return inputRequired(Object.fromEntries(missing), state);
}

const TOOLS = {
  preferred_color: {
    description: 'Asks your preferred color (read-only).',
    run: (call) => withColor(call, (c) => text(`Your preferred color is ${c}.`)),
  },
  // The official conformance suite's input-required scenarios:
  test_input_required_result_elicitation: {
    description: 'Conformance: one elicitation round',
    run: (call) => {
      const a = call.response('user_name', NAME);
      return a.kind === 'accepted' ? complete(text(`Hello, ${a.value.name}!`)) : inputRequired({ user_name: NAME });
    },
  },
  test_input_required_result_sampling: { description: 'Conformance: one sampling round', run: (call) => askAll(call, { sample: SAMPLE }, undefined, () => text('sampled')) },
  test_input_required_result_list_roots: { description: 'Conformance: one roots/list round', run: (call) => askAll(call, { roots: ROOTS }, undefined, () => text('roots listed')) },
  test_input_required_result_request_state: {
    description: 'Conformance: input plus requestState',
    run: (call) => askAll(call, { user_name: NAME }, 'state-ok', () => text(`state: ${call.state}`)),
  },
  test_input_required_result_multiple_inputs: {
    description: 'Conformance: elicitation, sampling and roots at once',
    run: (call) => askAll(call, { user_name: NAME, sample: SAMPLE, roots: ROOTS }, 'multi', () => text('all answered')),
  },
  test_input_required_result_multi_round: {
    description: 'Conformance: three rounds',
    run: (call) => {
      const step = call.state?.step ?? 0;
      if (step === 0) return inputRequired({ step1: NAME }, { step: 1 });
      if (step === 1 && call.response('step1', NAME).kind !== 'missing') return inputRequired({ step2: COLOR }, { step: 2 });
      if (step === 2 && call.response('step2', COLOR).kind !== 'missing') return complete(text('three rounds done'));
      return inputRequired(step === 1 ? { step1: NAME } : { step2: COLOR }, { step });
    },
  },
  test_input_required_result_tampered_state: {
    description: 'Conformance: integrity-protected requestState',
    run: (call) => askAll(call, { user_name: NAME }, { sealed: true }, () => text('state intact')),
  },
  test_input_required_result_capabilities: {
    description: 'Conformance: asks only what the client can receive',
    // Ask only what this client declared it can answer.
    run: (call) => {
      const can = filterSupported({ user_name: NAME, sample: SAMPLE, roots: ROOTS }, call.clientCapabilities);
      if (Object.keys(can).length === 0) return complete(text('nothing this client can answer'));
      return askAll(call, can, 'caps', () => text('answered within capabilities'));
    },
  },
  test_missing_capability: {
    description: 'Conformance: requires sampling (-32021 without it)',
    // Needs sampling; decide answers -32021 when the client lacks it.
    run: (call) => askAll(call, { sample: SAMPLE }, undefined, () => text('sampled')),
  },
};

const RESOURCES = {
  'prefs://color': (call) => withColor(call, (c) => ({
    contents: [{ uri: 'prefs://color', mimeType: 'text/plain', text: c }], ttlMs: 0, cacheScope: 'private',
  })),
};

const PROMPTS = {
  preferred_color: (call) => withColor(call, (c) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Write a short poem about the color ${c}.` } }],
  })),
  test_input_required_result_prompt: (call) => {
    const a = call.response('context', CONTEXT);
    if (a.kind !== 'accepted') return inputRequired({ context: CONTEXT });
    return complete({ messages: [{ role: 'user', content: { type: 'text', text: `Context: ${a.value.context}` } }] });
  },
};

const listed = (extra) => complete({ ...extra, ttlMs: 0, cacheScope: 'private' });
const schema = { type: 'object', properties: {} };

function route(call) {
  switch (call.method) {
    case 'server/discover':
      return listed({
        supportedVersions: ['2026-07-28'], capabilities: { tools: {}, resources: {}, prompts: {} },
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      });
    case 'tools/list':
      return listed({
        tools: Object.entries(TOOLS).map(([name, t]) => ({ name, description: t.description, inputSchema: schema })),
      });
    case 'resources/list':
      return listed({ resources: [{ uri: 'prefs://color', name: 'Your preferred color', mimeType: 'text/plain' }] });
    case 'prompts/list':
      return listed({ prompts: Object.keys(PROMPTS).map((name) => ({ name, description: name, arguments: [] })) });
    case 'tools/call': {
      const tool = Object.hasOwn(TOOLS, call.name ?? '') && TOOLS[call.name];
      return tool ? tool.run(call) : error(-32602, `Unknown tool: ${call.name}`);
    }
    case 'resources/read': {
      const read = Object.hasOwn(RESOURCES, call.uri ?? '') && RESOURCES[call.uri];
      return read ? read(call) : error(-32602, `Resource not found: ${call.uri}`, { uri: call.uri });
    }
    case 'prompts/get': {
      const get = Object.hasOwn(PROMPTS, call.name ?? '') && PROMPTS[call.name];
      return get ? get(call) : error(-32602, `Unknown prompt: ${call.name}`);
    }
    default:
      return error(-32601, 'Method not found');
  }
}

// One message in, one response out (null for notifications).
function handle(engine, message) {
  let begun;
  try {
    // No authentication here: anonymous. A real server passes its verified user.
    begun = engine.begin(message, null);
  } catch (e) {
    if (e.code === 'NOT_A_REQUEST') return null;
    throw e;
  }
  if (!(begun instanceof Call)) return begun;
  const response = engine.decide(begun, route(begun));
  if (response.diagnostic) console.error(`handler bug: ${response.diagnostic}`);
  return response;
}

function serveStdio(engine) {
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    const response = handle(engine, line);
    if (response) process.stdout.write(`${response.json}\n`);
  });
}

function serveHttp(engine, port) {
  const server = http.createServer((req, res) => {
    if (req.url !== '/mcp') return res.writeHead(404).end();
    if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > 4 << 20) req.destroy(); // snodo refuses larger requests anyway
      else chunks.push(c);
    });
    req.on('end', () => {
      const response = handle(engine, Buffer.concat(chunks));
      if (!response) return res.writeHead(202).end();
      res.writeHead(response.httpStatus, { 'content-type': 'application/json' }).end(response.json);
    });
  });
  server.listen(port, '127.0.0.1', () => {
    console.error(`listening on http://127.0.0.1:${server.address().port}/mcp`);
  });
}

const args = process.argv.slice(2);
const engine = engineFromEnv();
if (args[0] === '--stdio') serveStdio(engine);
else if (args[0] === '--http' && /^\d+$/.test(args[1] ?? '')) serveHttp(engine, Number(args[1]));
else {
  console.error('usage: server.mjs --stdio | --http PORT');
  process.exit(2);
}
