// snodo-mrtr beside the official TypeScript server SDK's requestState codec
// (@modelcontextprotocol/server 2.4.0, `createRequestStateCodec`).
//
// Run by scripts/bench.sh (`make bench`) after `npm ci` here and a release
// build of the addon. One process; every repeat runs every operation once
// in a freshly shuffled order; each sample is a loop calibrated to
// BENCH_SAMPLE_MS. Reported: the median of BENCH_REPEATS per-op means, with
// min and max. SDK calls are awaited one at a time (latency, as a handler
// sees it), as the SDK's API is async.
//
// Usage: node bench.mjs PAYLOAD_DIR OUT.json
//
// For before/after runs in one window: BENCH_ADDON=path/to/other.node
// measures that build of the addon instead of ../index.js's, and
// BENCH_ONLY=regex keeps the operations whose name (with its group) matches.
//
// In-window core samples: with BENCH_CORE_SAMPLER
// set to the path of the core's round sampler (core/examples/round_sampler.rs,
// built by scripts/bench.sh; BENCH_CORE_BATCH is its decide batch), every
// repeat runs the two begin+decide rounds next to each other and one sample
// of the core's begin+decide right before or after them (alternating), so
// the per-round row divides by a core timed in the same seconds, not by
// criterion's minutes earlier. The core samples go into the JSON as a row
// of group "core-in-window"; every row carries its per-repeat samples
// (`samples_ns`, in repeat order) so the table can pair them. Unset, the
// rounds are shuffled like every other operation.
//
// The host's own part, rows whose name starts
// with "host:": JSON.stringify + JSON.parse and structuredClone of each
// growth state, and the JSON.stringify of what each round hands the addon.
// The table sets them beside the rows they bound.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { createRequestStateCodec } from '@modelcontextprotocol/server';

const require = createRequire(import.meta.url);
const mrtr = require(process.env.BENCH_ADDON || '../index.js');

const SAMPLE_NS = Number(process.env.BENCH_SAMPLE_MS ?? 50) * 1e6;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 11);
const KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
// The real clock (the addon users install has no fixed one), and the
// longest token lifetime: the retry token sealed below is reused for the
// whole run.
const NOW = Math.floor(Date.now() / 1000);
const ARGS = { query: 'flights to LIS', limit: 10 };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

const [payloadDir, outPath] = process.argv.slice(2);
const engine = new mrtr.Engine({ keys: [{ id: 'k1', secret: KEY }] });
const lasting = new mrtr.Engine({ keys: [{ id: 'k1', secret: KEY }], ttlSecs: 900 });
const binding = mrtr.bindingDigest('tools/call', { name: 'book_flight', arguments: ARGS });
const bindingHex = binding.toString('hex');
const codec = createRequestStateCodec({ key: KEY });
// The documented bind example: method and OAuth client id.
const codecBound = createRequestStateCodec({
  key: KEY,
  bind: (ctx) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}`,
});
const ctx = { mcpReq: { method: 'tools/call' }, http: { authInfo: { clientId: 'alice' } } };

const ops = []; // {name, size, fn, async}
for (const size of [256, 4096]) {
  const text = readFileSync(join(payloadDir, `state-${size}.json`));
  if (text.length !== size) throw new Error(`payload ${size} is ${text.length} bytes`);
  const state = JSON.parse(text);
  const flowStart = engine.now();
  ops.push({
    name: 'snodo seal+open', size, async: false,
    fn: () => engine.open(
      engine.seal({ principal: 'alice', binding: bindingHex, round: 1, flowStart, state }),
      'alice', binding).state,
  });
  ops.push({
    name: 'sdk createRequestStateCodec mint+verify (no bind)', size, async: true,
    fn: async () => codec.verify(await codec.mint(state), ctx),
  });
  ops.push({
    name: 'sdk createRequestStateCodec mint+verify (bind method+client)', size, async: true,
    fn: async () => codecBound.verify(await codecBound.mint(state, ctx), ctx),
  });
}

// begin+decide of a typical tools/call: round 1 asks one question with the
// 256 B state (seals); round 2 reads the answer and completes (opens).
const state256 = JSON.parse(readFileSync(join(payloadDir, 'state-256.json')));
const Q = mrtr.elicitForm('Which seat?', {
  type: 'object', properties: { seat: { type: 'string' } }, required: ['seat'],
});
const req = (extra = {}) => JSON.stringify({
  jsonrpc: '2.0', id: 7, method: 'tools/call',
  params: { name: 'book_flight', arguments: ARGS, _meta: META, ...extra },
});
const r1 = req();
const token = lasting.decide(lasting.begin(r1, 'alice'), mrtr.inputRequired({ seat: Q }, state256)).body.result.requestState;
const r2 = req({ inputResponses: { seat: { action: 'accept', content: { seat: '12A' } } }, requestState: token });
if (lasting.begin(r2, 'alice').response('seat', Q).kind !== 'accepted') throw new Error('bench retry not accepted');
const done = mrtr.complete({ content: [{ type: 'text', text: 'booked' }] });
// The host's part of the two rounds below: the
// JSON.stringify that hands the addon what each round gives it (round 1's
// outcome with the question and the state; round 2's question for
// `response` and its outcome), made once here so only the stringify is
// timed. The table sets their mean beside the per-round row.
const outcome1 = mrtr.inputRequired({ seat: Q }, state256);
ops.push({ name: 'host: JSON.stringify of round 1\'s outcome', group: 'host-round', size: 256, async: false, fn: () => JSON.stringify(outcome1) });
ops.push({
  name: 'host: JSON.stringify of round 2\'s question and outcome', group: 'host-round', size: 256, async: false,
  fn: () => JSON.stringify(Q).length + JSON.stringify(done).length,
});
ops.push({
  name: 'snodo begin+decide round 1 (ask, seal 256 B state)', size: 256, async: false, calls: true,
  fn: () => lasting.decide(lasting.begin(r1, 'alice'), mrtr.inputRequired({ seat: Q }, state256)),
});
ops.push({
  name: 'snodo begin+decide round 2 (open, answer, complete)', size: 256, async: false, calls: true,
  fn: () => {
    const c = lasting.begin(r2, 'alice');
    c.response('seat', Q);
    return lasting.decide(c, done);
  },
});

// The names of the host's rows in the growth-state group (read by
// scripts/bench-table.py).
const HOST_JSON = 'host: JSON.parse(JSON.stringify(state))';
const HOST_CLONE = 'host: structuredClone(state)';
// Growth: cost against size, each beside the floor over the same
// bytes (base64url of the bytes, HMAC-SHA256 over that, base64url of the
// tag: core/benches/common's floor, with node:crypto). State 256 B..16 KiB:
// seal+open reading `.state`; arguments 1..256 KiB: begin of a retry (256 B
// state). Sizes without a file in the payload directory are made by the
// rule of core/benches/common `payload_of_size`, so every language measures
// the same bytes.
function payloadOfSize(size) {
  const item = (i) => `{"fare":${129 + (i % 300)}.5,"from":"LHR","ok":${i % 2 === 0},"seats":${i % 9},`
    + `"sku":"FL-${String(i).padStart(5, '0')}","to":"LIS"}`;
  const text = (items, pad) => `{"flow":"booking","items":[${items.join(',')}],"pad":"${'x'.repeat(pad)}","step":2}`;
  const items = [];
  while (text(items, 0).length + 80 < Math.floor((size * 3) / 4)) items.push(item(items.length));
  const out = text(items, size - text(items, 0).length);
  if (out.length !== size || mrtr.canonicalize(out) !== out) throw new Error(`payload of ${size} B`);
  return out;
}
function payload(kind, size) {
  try {
    return readFileSync(join(payloadDir, `${kind}-${size}.json`), 'utf8');
  } catch {
    return payloadOfSize(size);
  }
}
const floorOf = (bytes) => {
  const body = bytes.toString('base64url');
  return body.length + createHmac('sha256', KEY).update(body).digest('base64url').length;
};
// Room for a 16 KiB state: its token is over the default 16 KiB limit.
const roomy = new mrtr.Engine({ keys: [{ id: 'k1', secret: KEY }], ttlSecs: 900, maxTokenBytes: 64 << 10 });
for (const size of [256, 1024, 4096, 16384]) {
  const text = payload('state', size);
  const bytes = Buffer.from(text);
  const state = JSON.parse(text);
  ops.push({ name: 'floor: HMAC-SHA256 + base64url', group: 'growth-state', size, async: false, fn: () => floorOf(bytes) });
  ops.push({
    name: 'snodo seal+open', group: 'growth-state', size, async: false,
    fn: () => roomy.open(roomy.seal({ principal: 'alice', binding: bindingHex, round: 1, flowStart: NOW, state }),
      'alice', binding).state,
  });
  // The host's part of that row: the state
  // object read into text and an object built back from it, as any binding
  // that crosses with JSON text pays before any token work; and V8's own
  // object-to-object copy, which reads and builds the same properties with
  // no text at all. The table sets them beside the row.
  ops.push({ name: HOST_JSON, group: 'growth-state', size, async: false, fn: () => JSON.parse(JSON.stringify(state)) });
  ops.push({ name: HOST_CLONE, group: 'growth-state', size, async: false, fn: () => structuredClone(state) });
}
for (const size of [1024, 8192, 32768, 262144]) {
  const text = payload('args', size);
  const bytes = Buffer.from(text);
  const args = JSON.parse(text);
  const r = (extra = {}) => JSON.stringify({
    jsonrpc: '2.0', id: 7, method: 'tools/call',
    params: { name: 'book_flight', arguments: args, _meta: META, ...extra },
  });
  const tok = roomy.decide(roomy.begin(r(), 'alice'), mrtr.inputRequired({ seat: Q }, state256)).body.result.requestState;
  const retry = r({ inputResponses: { seat: { action: 'accept', content: { seat: '12A' } } }, requestState: tok });
  if (!roomy.begin(retry, 'alice').isRetry) throw new Error(`growth retry of ${size} B not opened`);
  ops.push({ name: 'floor: HMAC-SHA256 + base64url', group: 'growth-args', size, async: false, fn: () => floorOf(bytes) });
  ops.push({ name: 'snodo begin (retry)', group: 'growth-args', size, async: false, calls: true, fn: () => roomy.begin(retry, 'alice') });
}

if (process.env.BENCH_ONLY) {
  const only = new RegExp(process.env.BENCH_ONLY);
  ops.splice(0, ops.length, ...ops.filter((op) => only.test(op.group ? `${op.group}: ${op.name}` : op.name)));
}

let sink = 0;
// Operations that make a `Call` (`calls: true`) give the event loop a turn
// every CALLS_PER_TURN iterations, inside the timing, as a server does
// between requests. Node runs the finalizers that free a Call's native
// half only from the event loop (see "Memory (Node)" in
// docs/benchmarks.md): a loop that never yields keeps every Call of the
// sample alive (≈ 6 KiB each at round 2), and the measurement becomes the
// cost of that growing heap, not of a request (a round-2 loop without
// turns takes 1.5-2.5x the time of one with them).
// The turn and the finalizers it runs are timed. BENCH_CALLS_PER_TURN=0
// measures without turns.
const CALLS_PER_TURN = Number(process.env.BENCH_CALLS_PER_TURN ?? 64);
const turn = () => new Promise(setImmediate);
async function run(op, n) {
  const t0 = process.hrtime.bigint();
  if (op.async) {
    for (let i = 0; i < n; i++) sink ^= (await op.fn()) ? 1 : 0;
  } else if (op.calls && CALLS_PER_TURN > 0) {
    for (let i = 0; i < n; i++) {
      sink ^= op.fn() ? 1 : 0;
      if (i % CALLS_PER_TURN === CALLS_PER_TURN - 1) await turn();
    }
  } else {
    for (let i = 0; i < n; i++) sink ^= op.fn() ? 1 : 0;
  }
  return Number(process.hrtime.bigint() - t0);
}

for (const op of ops) {
  await run(op, 20); // warm up (JIT) and fail early
  let n = 1;
  let elapsed = await run(op, n);
  while (elapsed < SAMPLE_NS / 4) {
    n *= 4;
    elapsed = await run(op, n);
  }
  op.loops = Math.max(1, Math.floor((n * SAMPLE_NS) / elapsed));
  op.samples = [];
}
// The core's round sampler as a child process: one `sample <ms>` line in,
// one JSON line out (core/examples/round_sampler.rs).
class CoreSampler {
  constructor(path, batch) {
    this.child = spawn(path, batch ? [batch] : [], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.on('error', (e) => { this.failure = e; });
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  async line() {
    const { value, done } = await this.lines.next();
    if (done) throw new Error(`round_sampler ended${this.failure ? `: ${this.failure.message}` : ''}`);
    const reply = JSON.parse(value);
    if (reply.error) throw new Error(`round_sampler: ${reply.error}`);
    return reply;
  }

  async ready() {
    if (!(await this.line()).ready) throw new Error('round_sampler did not say ready');
  }

  sample(ms) {
    this.child.stdin.write(`sample ${ms}\n`);
    return this.line();
  }

  close() {
    this.child.stdin.end('quit\n');
  }
}

const shuffle = (xs) => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
};
let sampler = null;
if (process.env.BENCH_CORE_SAMPLER) {
  sampler = new CoreSampler(process.env.BENCH_CORE_SAMPLER, process.env.BENCH_CORE_BATCH);
  await sampler.ready();
}
// With the sampler the two rounds are one unit of the shuffle (-1),
// sampled together, the core's sample alternately before and after them.
const rounds = sampler ? ops.flatMap((op, i) => (op.name.startsWith('snodo begin+decide round') ? [i] : [])) : [];
const coreSamples = [];
const coreMs = Math.max(1, Math.round((2 * SAMPLE_NS) / 1e6));
for (let r = 0; r < REPEATS; r++) {
  const order = shuffle([...ops.keys()].filter((i) => !rounds.includes(i)).concat(rounds.length ? [-1] : []));
  for (const i of order) {
    const unit = i >= 0 ? [i] : shuffle(rounds);
    if (i < 0 && r % 2 === 0) coreSamples.push(await sampler.sample(coreMs));
    for (const k of unit) {
      const op = ops[k];
      op.samples.push((await run(op, op.loops)) / op.loops);
    }
    if (i < 0 && r % 2 === 1) coreSamples.push(await sampler.sample(coreMs));
  }
}
if (sampler) sampler.close();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const results = ops.map((op) => ({
  lang: 'node', op: op.name, size: op.size, ...(op.group ? { group: op.group } : {}),
  median_ns: median(op.samples), min_ns: Math.min(...op.samples), max_ns: Math.max(...op.samples),
  repeats: op.samples.length, samples_ns: op.samples,
}));
for (const r of results) {
  console.log(`node    ${(r.group ? `${r.group}: ${r.op}` : r.op).padEnd(60)} ${String(r.size).padStart(5)} B  ${(r.median_ns / 1000).toFixed(2).padStart(9)} µs`
    + `  (${(r.min_ns / 1000).toFixed(2)}–${(r.max_ns / 1000).toFixed(2)})`);
}
if (coreSamples.length) {
  const ns = coreSamples.map((c) => c.ns);
  const r = {
    lang: 'node', op: 'core begin+decide (round_sampler, beside the rounds)', size: 256, group: 'core-in-window',
    median_ns: median(ns), min_ns: Math.min(...ns), max_ns: Math.max(...ns), repeats: ns.length, samples_ns: ns,
    begin_ns: coreSamples.map((c) => c.begin_ns), decide_ns: coreSamples.map((c) => c.decide_ns),
    rounds_ns: coreSamples.map((c) => c.rounds_ns),
  };
  results.push(r);
  console.log(`node    ${'core begin+decide, in window (round_sampler)'.padEnd(60)} ${String(r.size).padStart(5)} B  `
    + `${(r.median_ns / 1000).toFixed(2).padStart(9)} µs  (${(r.min_ns / 1000).toFixed(2)}–${(r.max_ns / 1000).toFixed(2)})`);
}
writeFileSync(outPath, JSON.stringify(results, null, 1));
if (sink === 42) console.log(''); // keep results observable to the JIT
