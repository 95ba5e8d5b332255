// A small driver of the Node begin+decide rounds that bench.mjs times,
// for profilers: `node --cpu-prof`, and
// `valgrind --tool=callgrind node ...` run once with N and once with 0
// iterations, so the difference is the cost of N rounds alone (Node's
// start-up and the set-up cancel out).
//
// Usage: node profile-round.mjs ROUND N [ADDON]
//   ROUND: 1 (ask one question, seal the 256 B state), 2 (open, read the
//   answer, complete) or "both".
//   N: rounds to run; a turn of the event loop every 64, as bench.mjs
//   gives, so the finalizers that free each Call's native half run.
//   ADDON: another build of the addon (a path to a .node file or to an
//   index.js) for before/after runs; ../index.js by default.
// Prints the mean wall time and CPU time per round (both include the turns).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const [which = 'both', count = '20000', addon] = process.argv.slice(2);
const mrtr = require(addon ?? '../index.js');
const N = Number(count);

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
const lasting = new mrtr.Engine({ keys: [{ id: 'k1', secret: KEY }], ttlSecs: 900 });
const state256 = JSON.parse(readFileSync(join(here, '../../core/benches/payloads/state-256.json')));
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
if (lasting.begin(r2, 'alice').response('seat', Q).kind !== 'accepted') throw new Error('retry not accepted');
const done = mrtr.complete({ content: [{ type: 'text', text: 'booked' }] });

const round1 = () => lasting.decide(lasting.begin(r1, 'alice'), mrtr.inputRequired({ seat: Q }, state256));
const round2 = () => {
  const c = lasting.begin(r2, 'alice');
  c.response('seat', Q);
  return lasting.decide(c, done);
};
const rounds = which === '1' ? [round1] : which === '2' ? [round2] : [round1, round2];
const turn = () => new Promise(setImmediate);
// PROFILE_CALLS_PER_TURN: how often the loop yields (64, as bench.mjs).
const PER_TURN = Number(process.env.PROFILE_CALLS_PER_TURN ?? 64);
let sink = 0;
// The main thread's own CPU nanoseconds (Linux), without V8's helper
// threads (GC, compiler) that process.cpuUsage also counts.
const threadNs = () => {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
};
const th0 = threadNs();
const c0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
for (let i = 0; i < N; i++) {
  for (const f of rounds) sink ^= f().json.length;
  if (i % PER_TURN === PER_TURN - 1) await turn();
}
const ns = Number(process.hrtime.bigint() - t0);
// CPU time (user + system) of the process: unlike wall time, not inflated
// by the time other processes hold the CPU on a shared machine.
const cpu = process.cpuUsage(c0);
const cpuUs = (cpu.user + cpu.system) / N;
const mainUs = (threadNs() - th0) / N / 1000;
if (N > 0) {
  console.log(`round ${which}: ${(ns / N / 1000).toFixed(2)} µs per iteration, ${cpuUs.toFixed(2)} µs CPU, `
    + `${mainUs.toFixed(2)} µs CPU on the main thread (${N})`);
}
if (sink === -1) console.log('');
