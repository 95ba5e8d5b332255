#!/usr/bin/env node
// The Node contract server of the interop, load and fleet suites:
// interop/CONTRACT.md on snodo-mrtr, with every conformance fixture, both
// eras, the HTTP edge and its limits, and book_room on a shared Redis. Not
// the example to copy: that is bindings-node/examples/server.mjs.
//
//   node interop/servers/node/server.mjs --stdio        newline-delimited JSON-RPC on stdin/stdout
//   node interop/servers/node/server.mjs --http PORT    Streamable HTTP on 127.0.0.1:PORT, POST /mcp (0 = any free port)
//
// Its packages (snodo-mrtr from bindings-node, redis) come from this
// folder's package-lock.json: `npm ci --ignore-scripts` here, as
// interop/setup.sh does (interop_setup_node_servers).
//
// snodo reads each request (`begin`) and turns each handler's outcome into
// the response (`decide`; for tools/call and tasks/*, its task runner,
// snodo-mrtr/tasks). Both protocol eras, one set of handlers:
// 2026-07-28 requests (per-request `_meta`), and 2025-era sessions
// (`initialize`) through snodo's legacy bridge (`beginLegacy`,
// `decideLegacy`, `feed`; see docs/legacy.md), which turns an
// `input_required` outcome into real `elicitation/create` /
// `sampling/createMessage` / `roots/list` requests.
//
// Keys: SNODO_KEYS="id:hex-or-base64,old:..." (the first signs, all verify, so
// rotation = new key first, old one second). Without it a random process key
// is used and tokens die with the process. Fixture settings for the suites:
// SNODO_TTL_SECS (token lifetime), SNODO_HTTP_TIMEOUT_SECS, SNODO_LEDGER
// (book_room's ledger file); the edge's settings are listed below.
import http from 'node:http';
import readline from 'node:readline';
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import {
  Engine, Call, Session, elicitForm, sampling, listRoots, filterSupported, version,
  complete, inputRequired, error, toolError, unknownSession, runAsTask, taskRequiredCapabilities, MemoryTaskStore,
  checkHttpHeaders, checkHttpOrigin, OriginPolicy,
} from 'snodo-mrtr';
import { MemoryStore, RedisStore, checkOnce, runOnce } from 'snodo-mrtr/once';
import { Tasks } from 'snodo-mrtr/tasks';

// --- keys and engine

// Integer settings from the environment (unset or empty: null). A typo is an
// error, not a silent default.
function envInt(name) {
  const raw = (process.env[name] ?? '').trim();
  if (raw === '') return null;
  if (!/^-?\d+$/.test(raw)) {
    console.error(`${name}: ${JSON.stringify(raw)} is not an integer`);
    process.exit(2);
  }
  return Number(raw);
}

// Returns the engine to use for a request (always the same one).
function engineFromEnv() {
  const spec = process.env.SNODO_KEYS ?? '';
  if (spec === '') {
    console.error('warning: SNODO_KEYS is not set; using a random development key (single process only)');
    const dev = Engine.development(); // (it takes no config, so no serverInfo either)
    return () => dev;
  }
  const ttlSecs = envInt('SNODO_TTL_SECS'); // token lifetime; unset: snodo's default (300 s)
  let engine;
  try {
    // The core's SNODO_KEYS loader: its CONFIG errors name a bad entry, never its bytes.
    engine = Engine.fromEnv({
      serverInfo: { name: 'snodo-node-example', version: version() },
      ...(ttlSecs === null ? {} : { ttlSecs }),
    });
  } catch (e) {
    console.error(`configuration: ${e.message}`); // a key error names SNODO_KEYS and the entry
    process.exit(2);
  }
  return () => engine;
}

// --- input requests: built once, identical every round (a retry's answer
// counts only if the very same question was asked under its key)

const form = (message, properties) => elicitForm(message, {
  type: 'object', properties, required: Object.keys(properties),
});
const COLOR = form('Which color do you prefer?', { color: { type: 'string', enum: ['red', 'green', 'blue'] } });
const DATE = form('Which day?', { date: { type: 'string', format: 'date' } });
const GUESTS = form('How many guests?', { guests: { type: 'integer', minimum: 1, maximum: 8 } });
const NAME = form('What is your name?', { name: { type: 'string' } });
const CONFIRM = form('Please confirm', { ok: { type: 'boolean' } });
const STEP1 = form('Step 1: What is your name?', { name: { type: 'string' } });
const STEP2 = form('Step 2: What is your favorite color?', { color: { type: 'string' } });
const CONTEXT = form('What context should the prompt use?', { context: { type: 'string' } });
// Sampling and roots are deprecated in 2026-07-28 (a TypeScript @deprecated
// only, no runtime warning); the conformance suite still requires them.
const sample = (text, maxTokens) => sampling({
  messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens,
});
const CAPITAL = sample('What is the capital of France?', 100);
const GREETING = sample('Generate a greeting', 50);
const ROOTS = listRoots();

const text = (t) => ({ content: [{ type: 'text', text: t }] });
const askFor = (asks, state) => (state === undefined ? inputRequired(asks) : inputRequired(asks, state));

// The user declined or cancelled `key`: the flow ends here, the question is
// never asked again (a tool error on tools/call; prompts/get and
// resources/read have no tool error).
function ended(call, key) {
  const why = `No answer to ${key}: the user declined or cancelled.`;
  return call.method === 'tools/call' ? toolError(why) : error(-32602, why);
}

// The fixtures' helper: done(values) once every key is accepted; a declined
// or cancelled key ends the flow; else ask all of them again with the same
// state.
function askAll(call, asks, state, done) {
  const answers = Object.entries(asks).map(([k, request]) => [k, call.response(k, request)]);
  const final = answers.find(([, a]) => a.kind === 'declined' || a.kind === 'cancelled');
  if (final) return ended(call, final[0]);
  if (answers.some(([, a]) => a.kind !== 'accepted')) return askFor(asks, state);
  return complete(done(Object.fromEntries(answers.map(([k, a]) => [k, a.value]))));
}

// --- tools

function preferredColor(call) {
  const a = call.response('color', COLOR);
  if (a.kind === 'accepted') return complete(text(`Your preferred color is ${a.value.color}.`));
  if (a.kind === 'declined') return complete(text('You declined to choose a color.'));
  if (a.kind === 'cancelled') return toolError('You cancelled the color question.');
  return inputRequired({ color: COLOR }); // missing or invalid: ask (again)
}

// Two questions in one round; an accepted answer rides in the (signed) state
// and is never asked again.
function bookTable(call) {
  const state = { ...(call.state ?? {}) };
  const asks = { date: DATE, guests: GUESTS };
  for (const [k, request] of Object.entries(asks)) {
    if (k in state) continue;
    const a = call.response(k, request);
    if (a.kind === 'accepted') state[k] = a.value[k];
    else if (a.kind === 'declined' || a.kind === 'cancelled') return complete(text('No table booked.'));
  }
  if ('date' in state && 'guests' in state) {
    return complete(text(`Booked a table for ${state.guests} on ${state.date}.`));
  }
  const unknown = Object.fromEntries(Object.entries(asks).filter(([k]) => !(k in state)));
  return askFor(unknown, Object.keys(state).length ? state : undefined);
}

function multiRound(call) {
  const s = call.state;
  const final = (a) => a.kind === 'declined' || a.kind === 'cancelled';
  if (s?.step === 2) {
    const a = call.response('step2', STEP2);
    if (a.kind === 'accepted') return complete(text(`Done after 3 rounds, ${s.name} likes ${a.value.color}.`));
    if (final(a)) return ended(call, 'step2');
    return inputRequired({ step2: STEP2 }, s);
  }
  if (s?.step === 1) {
    const a = call.response('step1', STEP1);
    if (a.kind === 'accepted') return inputRequired({ step2: STEP2 }, { step: 2, name: a.value.name });
    if (final(a)) return ended(call, 'step1');
    return inputRequired({ step1: STEP1 }, s);
  }
  return inputRequired({ step1: STEP1 }, { step: 1 });
}

// --- task-backed tools (Tasks extension, io.modelcontextprotocol/tasks)
//
// Ordinary handlers: each returns runAsTask(state) where the rest of its work
// may run as a task. snodo's runner (snodo-mrtr/tasks, tasksOf below) does the
// rest: for a client that declared the extension it stores the task, answers
// the CreateTaskResult and runs the handler again as the task (call.taskId
// set) in the background; for any other client it runs it again at once, in
// the request. A run's questions park the task until tasks/update answers
// them (under keys snodo mints for the task, `key@n`, never reused); its end
// ends the task. The runner answers tasks/get, tasks/update and tasks/cancel,
// and -32021 for TASK_ONLY tools and a client without the extension. The
// tasks live in the task store: the once store's Redis when SNODO_REDIS_URL
// or SNODO_REDIS_CLUSTER_URLS is set (a fleet shares them), else this
// process's memory.
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const TASK_ONLY = ['test_tool_with_task', 'multi_input', 'failing_job'];
let runner = null;

// The runner of the process's engine (there is one), built on first use.
function tasksOf(engine) {
  if (runner === null) {
    const store = redisUrl() !== '' || clusterUrls().length > 0
      ? { execute: async (command) => (await bookingEffects()).store.execute(command) }
      : new MemoryTaskStore();
    runner = new Tasks(engine, guarded, { store, required: TASK_ONLY });
  }
  return runner;
}

// Simulated work in a task's run, never in a request: timers (the event loop
// never blocks; unref'd, they never hold the process), asking the store twice
// a second whether the task is still working (cancellation is cooperative,
// and seen from any process of a fleet): false as soon as it is not.
const pause = (ms) => new Promise((resolve) => { setTimeout(resolve, ms).unref(); });
async function work(call, seconds) {
  const deadline = performance.now() + seconds * 1000;
  for (let left = seconds * 1000; left > 0; left = deadline - performance.now()) {
    await pause(Math.min(left, 500));
    const status = await runner.status(call);
    if (status !== 'working' && status !== null) return false;
  }
  return true;
}

// Asks the color by MRTR, then paints: as a task when the client declared the extension.
function paintTask(call) {
  if (call.state !== null) return complete(text(`Painted it ${call.state.color}.`));
  const a = call.response('color', COLOR);
  if (a.kind === 'declined' || a.kind === 'cancelled') return toolError('No color chosen: nothing painted.');
  if (a.kind !== 'accepted') return inputRequired({ color: COLOR });
  return runAsTask({ color: a.value.color });
}

// Simulated work of `seconds` (0-60): as a task whose run works `seconds` when
// the client declared the extension, else answered at once (a request never waits).
async function slowCompute(call) {
  const { seconds = 1, label = 'slow_compute' } = call.params.arguments ?? {};
  if (typeof seconds !== 'number' || !(seconds >= 0 && seconds <= 60)) {
    return toolError('seconds must be a number from 0 to 60.');
  }
  if (call.state === null && seconds > 0) return runAsTask({ seconds });
  if (call.taskId !== null && !(await work(call, seconds))) {
    return toolError('Stopped: the task was cancelled.'); // dropped by the store: the task stays cancelled
  }
  return complete(text(`${label}: done (${seconds} s of work).`));
}

// Task only: ends completed with a tool error after 1 s (a tool error is a
// result, never a failed task).
async function failingJob(call) {
  if (call.state === null) return runAsTask({ job: 'failing' });
  if (call.taskId !== null) await work(call, 1);
  return toolError('The job failed.');
}

// As a task it ends failed with a JSON-RPC error after 1 s; without the extension, that error.
async function protocolErrorJob(call) {
  if (call.state === null) return runAsTask({ job: 'protocol_error' });
  if (call.taskId !== null) await work(call, 1);
  return error(-32603, 'The job hit an internal error.');
}

// The questions of the input-asking task fixtures. multi_input's answers may
// carry both fields.
const DELETE_OK = form('Delete the file?', { confirm: { type: 'boolean' } });
const PART = elicitForm('One part of the input', {
  type: 'object', properties: { name: { type: 'string' }, confirm: { type: 'boolean' } } });
const answered = (a) => a.kind === 'accepted' || a.kind === 'declined' || a.kind === 'cancelled';

// Asks to confirm deleting `filename`: in a task waiting for tasks/update when
// the client declared the extension, else by MRTR.
function confirmDelete(call) {
  const filename = String(call.params.arguments?.filename ?? 'the file');
  if (call.state === null) return runAsTask({ ask: 'confirm' });
  const a = call.response('confirm', DELETE_OK);
  if (!answered(a)) return inputRequired({ confirm: DELETE_OK }, call.state);
  return complete(text(a.kind === 'accepted' && a.value.confirm === true ? `Deleted ${filename}.` : `Kept ${filename}.`));
}

// Task only: two questions at once, which may be answered one tasks/update at a time.
function multiInput(call) {
  if (call.state === null) return runAsTask({ ask: 'parts' });
  const parts = [call.response('first', PART), call.response('second', PART)];
  if (!parts.every(answered)) return inputRequired({ first: PART, second: PART }, call.state);
  return complete(text(`Received ${parts.filter((a) => a.kind === 'accepted').length} of 2 inputs.`));
}

// Task only: asks the name by MRTR first (those rounds end before the task
// exists, so their key is not a task key), then greets it from the task.
function toolWithTask(call) {
  if (call.state !== null) return complete(text(`Hello, ${call.state.name}, from a task.`));
  const a = call.response('user_name', NAME);
  if (a.kind === 'declined' || a.kind === 'cancelled') return toolError('No name given: no task created.');
  if (a.kind !== 'accepted') return inputRequired({ user_name: NAME });
  return runAsTask({ name: a.value.name });
}

// --- an effectful tool: book_room (docs/once.md)
//
// Round 1 asks the nights and a confirmation; the final round books: one
// ledger entry {flow, principal, answers, fence}, answered "Booked: entry #N"
// (N = the ledger's length after the append, so a second effect would show
// as another N). At most once per flow, whatever tokens of the flow a client
// sends, in whatever order, with whatever answers:
//
// - every retry asks the store first (checkOnce): a completed flow answers
//   its remembered result for the same answers, and refuses any other
//   answers, or none, as replayed, before anything is asked again;
// - the final round books through runOnce: one effect per flow across every
//   process sharing the store, a retry gets the remembered result. The
//   claim's fencing number rides in the ledger entry: a ledger that refuses
//   a smaller fence than it has seen for a flow shuts out a former owner
//   whose lease lapsed.
//
// SNODO_REDIS_URL: every process shares one RedisStore (node-redis) and the
// ledger is the Redis list LEDGER_KEY there; SNODO_REDIS_CLUSTER_URLS
// (comma-separated seed URLs): the same on a Redis Cluster. Neither: this
// process's MemoryStore, and the ledger a file (SNODO_LEDGER, one JSON line
// per booking) or an array in memory.
// Not in TOOLS: sdk_server.mjs serves TOOLS through the SDK, and this
// handler is async (the store is).

// Same schema, same `required` order as server.py: the question is pinned
// into the token byte for byte, and a fleet mixes Python and Node processes.
const BOOKING = form('How many nights, and do you confirm the booking?', {
  nights: { type: 'integer', minimum: 1, maximum: 14 }, confirm: { type: 'boolean' },
});
const LEDGER_KEY = 'snodo:ledger';
class LedgerError extends Error {}

const redisUrl = () => (process.env.SNODO_REDIS_URL ?? '').trim();
const clusterUrls = () => (process.env.SNODO_REDIS_CLUSTER_URLS ?? '').split(',').map((u) => u.trim()).filter(Boolean);

// The store and the ledger, built on first use (or at start-up when Redis is
// configured); a failed build is retried by the next booking.
let effects = null;
const bookingEffects = () => {
  effects ??= openEffects().catch((e) => {
    effects = null;
    throw e;
  });
  return effects;
};

async function openEffects() {
  const url = redisUrl();
  const cluster = clusterUrls();
  if (url !== '' || cluster.length > 0) {
    // node-redis, imported only here: a server without Redis does not need it.
    const { createClient, createCluster } = await import('redis');
    // Fail fast while Redis is away (a quick -32603, never a request held
    // in node-redis's offline queue); reconnect in the background so
    // service resumes when Redis returns.
    const options = {
      disableOfflineQueue: true,
      socket: { connectTimeout: 2000, reconnectStrategy: (n) => Math.min(50 * 2 ** n, 500) },
    };
    const client = cluster.length > 0
      ? createCluster({ rootNodes: cluster.map((u) => ({ url: u })), defaults: options })
      : createClient({ url, ...options });
    let lastLog = 0;
    client.on('error', (e) => { // without a listener an error event would end the process
      if (Date.now() - lastLog > 5000) console.error(`redis: ${e.message}`);
      lastLog = Date.now();
    });
    // Awaited, but at most 2 s: with Redis away at startup connect() would wait for it
    // (node-redis keeps retrying); until it is ready every command fails at once, a -32603
    // for the client, and the first booking must not race the connection otherwise.
    const connected = client.connect();
    connected.catch((e) => console.error(`redis: ${e.message}`));
    await Promise.race([connected, new Promise((ok) => { setTimeout(ok, 2000).unref(); })]);
    const append = async (entry) => {
      try {
        return await client.rPush(LEDGER_KEY, JSON.stringify(entry));
      } catch (e) {
        throw new LedgerError(e.message);
      }
    };
    return { store: new RedisStore({ client }), append, client };
  }
  const path = (process.env.SNODO_LEDGER ?? '').trim();
  const entries = [];
  const append = async (entry) => {
    const line = JSON.stringify(entry);
    if (path === '') return entries.push(line);
    try { // one process owns a file ledger; Node's one thread orders its appends
      appendFileSync(path, `${line}\n`);
      return readFileSync(path, 'utf8').split('\n').filter(Boolean).length;
    } catch (e) {
      throw new LedgerError(e.message);
    }
  };
  return { store: new MemoryStore(), append, client: null };
}

// At start-up with Redis: refuse a Redis that may evict a live record (its
// maxmemory-policy), rather than find out on the first booking. A Redis not
// reachable yet is checked by the store before its first command.
async function checkStoreAtStart() {
  let built;
  try {
    built = await bookingEffects();
  } catch (e) {
    console.error(`once store: ${e.message}`); // e.g. the redis package is not installed
    process.exit(2);
  }
  if (!built.client.isReady) {
    console.error('redis: not reachable yet; its maxmemory-policy is checked before the first booking');
    return;
  }
  try {
    await built.store.check();
  } catch (e) {
    console.error(`once store refused: ${e.message}`);
    process.exit(2);
  }
}

// Lets the process end (stdio at EOF): an open Redis client would keep it alive.
function closeEffects() {
  effects?.then(({ client }) => (client === null ? undefined : client.close()), () => {}).catch(() => {});
}

// The store's refusals and failures as the client sees them; anything else
// is the handler's own failure.
function onceFailure(e) {
  // The flow completed with other answers (or this token is spent): as any refused requestState.
  if (e.code === 'TOKEN' && e.reason === 'replayed') {
    return error(-32602, 'Invalid or expired requestState', { reason: 'replayed' });
  }
  // Nothing was booked: the client may send the same request again.
  if (e.code === 'STORE') return error(-32603, `once store unavailable: ${e.message}`);
  if (e instanceof LedgerError) return error(-32603, `ledger unavailable: ${e.message}`);
  // Redis could not be reached when the store was first built.
  if (effects === null) return error(-32603, `once store unavailable: ${e.message}`);
  throw e;
}

function bookRoom(call) {
  // A first round opened no token: nothing of the flow to look up yet.
  return call.flowId == null ? askOrBook(call) : lookThenBook(call);
}

async function lookThenBook(call) {
  try {
    const { store } = await bookingEffects();
    const remembered = await checkOnce(store, call);
    if (remembered !== null) return complete(remembered); // a retry of the booked final round
  } catch (e) {
    return onceFailure(e);
  }
  return askOrBook(call);
}

function askOrBook(call) {
  const a = call.response('booking', BOOKING);
  if (a.kind === 'declined' || a.kind === 'cancelled') return complete(text('No room booked.'));
  if (a.kind !== 'accepted') return inputRequired({ booking: BOOKING }); // missing or invalid: ask (again)
  if (a.value.confirm !== true) return complete(text('Not confirmed: no room booked.'));
  // An accepted answer always comes with a token; never book without a flow id.
  if (call.flowId == null) return toolError('This booking has no flow to book once: start again.');
  return bookOnce(call, a.value);
}

async function bookOnce(call, answers) {
  const [flow, principal] = [call.flowId, call.principal];
  try {
    const { store, append } = await bookingEffects();
    // The effect throws only if the append failed: runOnce then releases the claim and a retry books.
    const result = await runOnce(store, call, async ({ fence }) =>
      text(`Booked: entry #${await append({ flow, principal, answers, fence })}`));
    return complete(result);
  } catch (e) {
    return onceFailure(e);
  }
}

const EFFECT_TOOLS = {
  book_room: ['Books a room once: asks the nights and a confirmation, then writes one ledger entry', bookRoom],
};

const hello = (call) => askAll(call, { user_name: NAME }, undefined, (v) => text(`Hello, ${v.user_name.name}!`));
const firstBlock = (content) => (Array.isArray(content) ? content[0] : content);

// In tools/list order. No tool takes arguments; descriptions are free text.
const TOOLS = {
  preferred_color: ['Asks your preferred color (read-only)', preferredColor],
  book_table: ['Books a table: asks the day and the number of guests', bookTable],
  // The conformance suite's fixtures (input-required-result-*, server-stateless):
  test_input_required_result_elicitation: ['Conformance: one elicitation', hello],
  test_input_required_result_sampling: ['Conformance: one sampling request', (call) => askAll(
    call, { capital_question: CAPITAL }, undefined,
    (v) => text(`Sampled: ${firstBlock(v.capital_question.content).text}`))],
  test_input_required_result_list_roots: ['Conformance: one roots/list request', (call) => askAll(
    call, { client_roots: ROOTS }, undefined,
    (v) => text(`Roots: ${v.client_roots.map((r) => r.uri).join(', ')}`))],
  test_input_required_result_request_state: ['Conformance: input plus requestState', (call) => askAll(
    call, { confirm: CONFIRM }, { flow: 'request-state' }, () => text('state-ok'))],
  test_input_required_result_multiple_inputs: ['Conformance: three inputs in one round', (call) => askAll(
    call, { user_name: NAME, greeting: GREETING, client_roots: ROOTS }, { flow: 'multiple' },
    () => text('Received 3 inputs.'))],
  test_input_required_result_multi_round: ['Conformance: three rounds', multiRound],
  test_input_required_result_tampered_state: ['Conformance: integrity-protected requestState', (call) => askAll(
    call, { confirm: CONFIRM }, { flow: 'tampered' }, () => text('state intact'))],
  test_input_required_result_capabilities: ['Conformance: asks only what the client can answer', (call) => {
    const asks = filterSupported({ user_name: NAME, greeting: GREETING, client_roots: ROOTS }, call.clientCapabilities);
    const n = Object.keys(asks).length;
    if (n === 0) return complete(text('Nothing this client can answer.'));
    return askAll(call, asks, { flow: 'capabilities' }, () => text(`Received ${n} inputs.`));
  }],
  // A required question: without `sampling` decide answers -32021.
  test_missing_capability: ['Conformance: requires sampling', (call) => askAll(
    call, { greeting: GREETING }, undefined, () => text('sampled'))],
  test_streaming_elicitation: ['Conformance: elicitation without streaming', hello],
  test_logging_tool: ['Conformance: logging', () => complete(text('No log level requested, so nothing was logged.'))],
  test_trigger_tool_change: ['Conformance: tool list change', () => complete(text('The tool list is static.'))],
  test_trigger_prompt_change: ['Conformance: prompt list change', () => complete(text('The prompt list is static.'))],
};
// The Tasks fixtures: served through the runner only (sdk_server.mjs, which
// reuses TOOLS, serves no tasks).
const TASK_TOOLS = {
  paint_task: ['Asks a color, then paints as a task (Tasks extension) or directly', paintTask],
  greet: ['Tasks conformance: greets `name`, never as a task',
    (call) => complete(text(`Hello, ${call.params.arguments?.name ?? 'there'}!`))],
  confirm_delete: ['Tasks conformance: confirms deleting `filename`, as a task waiting for the answer', confirmDelete],
  test_tool_with_task: ['Tasks conformance: task-only, asks a name by MRTR, then creates the task', toolWithTask],
  multi_input: ['Tasks conformance: task-only, two questions at once', multiInput],
  slow_compute: ['Tasks conformance: simulated work of `seconds`, as a task when the client declared the extension', slowCompute],
  failing_job: ['Tasks conformance: task-only, ends with a tool error', failingJob],
  protocol_error_job: ['Tasks conformance: as a task, ends failed with a JSON-RPC error', protocolErrorJob],
};

// --- the resource and the prompts

function readColor(call) {
  const a = call.response('color', COLOR);
  if (a.kind === 'missing' || a.kind === 'invalid') return inputRequired({ color: COLOR });
  const color = a.kind === 'accepted' ? a.value.color : 'no preference';
  // ttlMs/cacheScope: both official clients require them on the final result.
  return complete({ contents: [{ uri: 'prefs://color', mimeType: 'text/plain', text: color }], ttlMs: 0, cacheScope: 'private' });
}

const userText = (t) => [{ role: 'user', content: { type: 'text', text: t } }];
const PROMPTS = {
  preferred_color: ['A poem about your preferred color', (call) => {
    const a = call.response('color', COLOR);
    if (a.kind === 'missing' || a.kind === 'invalid') return inputRequired({ color: COLOR });
    const color = a.kind === 'accepted' ? a.value.color : 'no preference';
    return complete({
      description: 'A poem about your preferred color',
      messages: userText(`Write a short poem about the color ${color}.`),
    });
  }],
  test_input_required_result_prompt: ['Conformance: a prompt that asks for context', (call) => askAll(
    call, { user_context: CONTEXT }, undefined, (v) => ({ messages: userText(`Context: ${v.user_context.context}`) }))],
};

// --- routing

const listed = (result) => complete({ ...result, ttlMs: 0, cacheScope: 'private' });
const lookup = (table, key) => (typeof key === 'string' && Object.hasOwn(table, key) ? table[key][1] : null);

function route(call) {
  switch (call.method) {
    case 'server/discover': // no listChanged/subscribe: there is nothing to listen to
      return listed({ supportedVersions: ['2026-07-28'],
        capabilities: { tools: {}, resources: {}, prompts: {}, extensions: { [TASKS_EXTENSION]: {} } } });
    case 'tools/list':
      return listed({ tools: Object.entries({ ...TOOLS, ...TASK_TOOLS, ...EFFECT_TOOLS }).map(([name, [description]]) => ({
        name, description, inputSchema: { type: 'object', properties: {} } })) });
    case 'resources/list':
      return listed({ resources: [{
        uri: 'prefs://color', name: 'preferred-color', description: 'Your preferred color', mimeType: 'text/plain' }] });
    case 'resources/templates/list':
      return listed({ resourceTemplates: [] });
    case 'prompts/list':
      return listed({ prompts: Object.entries(PROMPTS).map(([name, [description]]) => ({ name, description })) });
    case 'tools/call':
      return (lookup(TOOLS, call.name) ?? lookup(TASK_TOOLS, call.name) ?? lookup(EFFECT_TOOLS, call.name)
        ?? (() => error(-32602, `Unknown tool: ${call.name}`)))(call);
    case 'resources/read':
      return call.uri === 'prefs://color' ? readColor(call)
        : error(-32602, `Resource not found: ${call.uri}`, { uri: call.uri });
    case 'prompts/get':
      return (lookup(PROMPTS, call.name) ?? (() => error(-32602, `Unknown prompt: ${call.name}`)))(call);
    default: // includes the removed initialize, ping, logging/setLevel, subscriptions/listen, ...
      return error(-32601, `Method not found: ${call.method}`);
  }
}

// One message in, one response out (null for notifications and responses).
// An async handler (book_room's final round) makes it a Promise of one, and
// so does every tools/call and tasks/*: the task runner answers those.
function handle(engine, message, principal) {
  let call;
  try {
    call = engine.begin(message, principal);
  } catch (e) {
    if (e.code === 'NOT_A_REQUEST') return null;
    throw e;
  }
  if (!(call instanceof Call)) return call; // a ready error response (_meta, version, token, ...)
  const logged = (response) => {
    if (response.diagnostic) console.error(`snodo: ${response.diagnostic}`); // log it, never send it
    return response;
  };
  if (call.method === 'tools/call' || call.method.startsWith('tasks/')) {
    return tasksOf(engine).answer(call).then(logged, (e) => { // a reply no task script gives (another application's keys?)
      console.error(`task runner failed on ${call.toJSON()}: ${e.stack ?? e}`);
      return { json: jsonrpcError(call.id, -32603, 'Internal error'), httpStatus: 200, diagnostic: null };
    });
  }
  const outcome = guarded(call);
  if (outcome instanceof Promise) return outcome.then((o) => logged(engine.decide(call, o)));
  return logged(engine.decide(call, outcome));
}

// The router as its callers see it: a handler that throws or rejects is -32603.
function guarded(call) {
  try {
    const outcome = route(call);
    return outcome instanceof Promise ? outcome.catch((e) => handlerFailed(call, e)) : outcome;
  } catch (e) {
    return handlerFailed(call, e);
  }
}

function handlerFailed(call, e) {
  console.error(`handler failed on ${call.toJSON()}: ${e.stack ?? e}`);
  return error(-32603, 'Internal error');
}

// A 2025-era session has no tasks: a task-only tool is refused (as the
// runner refuses a client without the extension), and a handler's runAsTask
// goes on in the request (decideLegacy hands the continuation back, as for a
// round with state only).
const taskOnly = (call) => (call.method === 'tools/call' && TASK_ONLY.includes(call.name)
  ? error(-32021, `${call.name} runs only as a task: a 2025 session has no tasks`,
    { requiredCapabilities: taskRequiredCapabilities() })
  : null);


// --- 2025-era sessions (docs/legacy.md): the same route(), through the bridge
//
// A LegacyConnection is one session: what `initialize` negotiated and who
// opened it (a snodo Session), the client it counts against (`client`, for
// the per-client session quota) and the flows in flight, each a PendingFlow
// plus where its messages go (`out`: a stdio line writer, or the SSE stream
// of the POST that carried the request). Bounded: MAX_FLOWS per session; a
// flow ends at its deadline (engine.timeout), on the client's cancellation,
// or when the session or its stream goes away (the flow is dropped: snodo
// holds nothing else).

const MAX_FLOWS = 16;
const RESUME_PACE_MS = 250; // a state-only round: pace the re-run (the round cap bounds it)
const SERVER_CAPABILITIES = { tools: {}, resources: {}, prompts: {} };
const jsonrpcError = (id, code, message) => JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });

class LegacyConnection {
  constructor(engines, session, client = null) {
    this.engines = engines;
    this.session = session;
    this.client = client;
    this.initialized = false;
    this.flows = new Set();
    this.lastSeen = Date.now();
    this.closed = false;
  }

  // Runs the handler on `call` and acts on the bridge's answer; `out`
  // carries the originating request's messages ({send(text), finish(response)}).
  drive(call, out) {
    if (this.closed || out.gone) return;
    const outcome = taskOnly(call) ?? guarded(call);
    if (outcome instanceof Promise) {
      outcome.then((o) => {
        if (!this.closed && !out.gone) this.decided(call, o, out);
      });
    } else {
      this.decided(call, outcome, out);
    }
  }

  decided(call, outcome, out) {
    const engine = this.engines();
    const r = engine.decideLegacy(call, outcome);
    if (r.kind === 'respond') {
      if (r.response.diagnostic) console.error(`snodo: ${r.response.diagnostic}`);
      out.finish(r.response.json, r.response.httpStatus);
    } else if (r.kind === 'resume') {
      setTimeout(() => this.drive(r.call, out), RESUME_PACE_MS);
    } else if (this.flows.size >= MAX_FLOWS) {
      r.pending.cancel(null); // nothing was sent: no cancellations to send
      out.finish(jsonrpcError(r.pending.id, -32603, 'Too many requests waiting for client input on this session'), 200);
    } else {
      const flow = { pending: r.pending, out, timer: null, held: !this.initialized };
      this.flows.add(flow);
      // No request to the client before it sent notifications/initialized
      // (2025-11-25 lifecycle): held until then.
      if (!flow.held) for (const m of r.pending.requests) out.send(JSON.stringify(m));
      // The deadline is the engine's clock (seconds); a little slack so the
      // timer never fires before it.
      const ms = Math.max(0, (r.pending.deadline - engine.now()) * 1000) + 100;
      flow.timer = setTimeout(() => this.settle(flow, this.engines().timeout(flow.pending)), ms);
      flow.timer.unref?.();
    }
  }

  settle(flow, fed) {
    if (fed.kind === 'waiting') return;
    this.end(flow);
    if (fed.kind === 'resume') {
      this.drive(fed.call, flow.out);
      return;
    }
    for (const c of fed.cancellations) flow.out.send(JSON.stringify(c));
    if (fed.response.diagnostic) console.error(`snodo: ${fed.response.diagnostic}`);
    flow.out.finish(fed.response.json, fed.response.httpStatus);
  }

  end(flow) {
    clearTimeout(flow.timer);
    this.flows.delete(flow);
  }

  // A client response from `principal`: fed to the flow that awaits its id.
  // A response no flow awaits (unknown, duplicate, late) or that snodo
  // refuses (another principal's, malformed) is dropped with a log line and
  // changes nothing. Returns whether it was taken.
  response(message, text, principal) {
    const flow = [...this.flows].find((f) => f.pending.awaits(message.id));
    if (!flow) {
      console.error(`legacy: dropped a response no flow awaits (id ${JSON.stringify(message.id)})`);
      return false;
    }
    let fed;
    try {
      fed = this.engines().feed(flow.pending, text, principal);
    } catch (e) {
      console.error(`legacy: refused a response: ${e.code}: ${e.message}`);
      return false;
    }
    this.settle(flow, fed);
    return true;
  }

  // The client cancelled its request `requestId`: cancel our requests of
  // that flow and send no response.
  cancelled(params) {
    const id = params?.requestId;
    const flow = [...this.flows].find((f) => JSON.stringify(f.pending.id) === JSON.stringify(id));
    if (!flow) return;
    this.end(flow);
    for (const c of flow.pending.cancel(typeof params.reason === 'string' ? params.reason : null)) {
      flow.out.send(JSON.stringify(c));
    }
    flow.out.abandon();
  }

  // The session is gone (stdin EOF, DELETE, expiry): drop every flow.
  close() {
    this.closed = true;
    for (const flow of this.flows) {
      this.end(flow);
      flow.pending.cancel(null);
      flow.out.abandon();
    }
  }

  // One message of this session that is not `initialize`, from `principal`
  // (the transport has already refused another principal's: see
  // Session.checkPrincipal). `reply(text, status)` answers it directly
  // (JSON); `out()` makes the sink for a request that may become a flow.
  // Returns false for a message that was dropped.
  message(message, text, principal, { reply, out }) {
    this.lastSeen = Date.now();
    const isRequest = typeof message.method === 'string' && message.id !== undefined;
    if (!isRequest && message.method === undefined) return this.response(message, text, principal);
    if (!isRequest) { // a notification
      if (message.method === 'notifications/initialized' && !this.initialized) {
        this.initialized = true;
        for (const f of this.flows) {
          if (!f.held) continue;
          f.held = false;
          for (const m of f.pending.requests) f.out.send(JSON.stringify(m));
        }
      }
      if (message.method === 'notifications/cancelled') this.cancelled(message.params);
      return true;
    }
    if (message.method === 'ping') return reply(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }), 200);
    if (message.method === 'initialize') return reply(jsonrpcError(message.id, -32600, 'Session already initialized'), 400);
    const engine = this.engines();
    const call = engine.beginLegacy(text, this.session, principal);
    if (!(call instanceof Call)) return reply(call.json, call.httpStatus);
    this.drive(call, out());
    return true;
  }
}

// Reads a line/body as JSON, or null (begin/beginLegacy report bad JSON).
function parsed(text) {
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

// A 2025-era `initialize`: one carrying the 2026 `_meta` version claim is a
// 2026 request for a removed method (-32601 through begin, as before).
const isInitialize = (m) => m !== null && m.method === 'initialize' && m.id !== undefined
  && m.params?._meta?.['io.modelcontextprotocol/protocolVersion'] === undefined;

// Answers `initialize` from `principal` (who then owns the session): the
// requested revision if snodo accepts it, else its first legacy revision (the
// spec's counter-offer). Returns [session | null, response text].
function initialize(engine, message, sessionId, principal) {
  const requested = typeof message.params?.protocolVersion === 'string' ? message.params.protocolVersion : '';
  const negotiated = engine.legacyVersionFor(requested);
  if (negotiated === null) return [null, jsonrpcError(message.id, -32602, 'Unsupported protocol version')];
  let session;
  try {
    session = Session.fromInitialize(message, negotiated, principal).withId(sessionId);
  } catch (e) {
    return [null, jsonrpcError(message.id, -32602, `Invalid initialize: ${e.message}`)];
  }
  const result = { protocolVersion: negotiated, capabilities: SERVER_CAPABILITIES,
    serverInfo: { name: 'snodo-node-example', version: version() } };
  return [session, JSON.stringify({ jsonrpc: '2.0', id: message.id, result })];
}

// --- stdio: one JSON message per line. The era is the connection's, chosen
// by its first request: `initialize` makes it a 2025-era session (stdout then
// also carries our requests to the client, and the client's responses come in
// on stdin); any other request but a `server/discover` probe pins 2026-07-28,
// where stdout carries nothing but responses.

function serveStdio(engines) {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  const write = (text) => process.stdout.write(`${text}\n`);
  let era = null; // null (not chosen yet), 'modern' or a LegacyConnection
  let inFlight = 0; // answers still being made (book_room waits on its store)
  let ended = false;
  const modern = engines(); // the 2026-07-28 path as it always was: one engine
  lines.on('line', (line) => {
    if (!line.trim()) return;
    if (era === null) {
      const m = parsed(line);
      if (isInitialize(m)) {
        const [session, response] = initialize(engines(), m, `stdio-${randomUUID()}`, null); // stdio: anonymous
        if (session) era = new LegacyConnection(engines, session);
        write(response);
        return;
      }
      if (m && typeof m.method === 'string' && m.id !== undefined && m.method !== 'server/discover') era = 'modern';
    }
    if (era instanceof LegacyConnection) {
      const m = parsed(line);
      if (m === null) { // not JSON: beginLegacy gives the parse error response
        const r = engines().beginLegacy(line, era.session, null);
        if (!(r instanceof Call)) write(r.json);
        return;
      }
      const out = { gone: false, send: write, finish: (text) => write(text), abandon() {} };
      era.message(m, line, null, { reply: (text) => write(text), out: () => out }); // stdio: anonymous
      return;
    }
    const response = handle(modern, line, null); // stdio: anonymous
    if (response instanceof Promise) {
      inFlight++;
      response.then((r) => write(r.json)).finally(() => {
        if (--inFlight === 0 && ended) closeEffects();
      });
    } else if (response) write(response.json);
  });
  // On stdin EOF: drop the session's flows (their timers would keep Node
  // alive) and, once the answers in flight are written, close Redis; the
  // event loop drains and Node exits 0.
  lines.on('close', () => {
    if (era instanceof LegacyConnection) era.close();
    ended = true;
    if (inFlight === 0) closeEffects();
  });
}

// --- Streamable HTTP

const MAX_BODY = 4 << 20; // 4 MiB, also snodo's default maxRequestBytes

// --- the HTTP edge (docs/operations.md). On every request, before its body
// is read: Host and Origin against the policy (a web page that POSTs here,
// or reaches this server through DNS rebinding, is refused with 421/403),
// and bounds on what the process holds for its clients. A 2025-era session
// belongs to the principal of its `initialize`: any other principal's
// message on it is answered as if the session did not exist (404).
// From the environment (a malformed value: a message and exit code 2):
//
//   SNODO_ALLOWED_HOSTS, SNODO_ALLOWED_ORIGINS  comma-separated lists; neither set: loopback
//       only (localhost, 127.0.0.1, [::1] on any port, no origin but the request's own);
//       one set: the other list is empty
//   SNODO_MAX_CONNECTIONS           open connections (default 1024); past it a new one is closed
//   SNODO_MAX_BODY_BYTES_IN_FLIGHT  request-body bytes being read across all connections
//                                   (default 64 MiB); past it 503 at once, connection closed
//   SNODO_MAX_SESSIONS              2025-era sessions in all (default 256); past it 503
//   SNODO_MAX_SESSIONS_PER_CLIENT   sessions per user, or per address for anonymous clients
//                                   (default 16); past it 429
//   SNODO_SESSION_IDLE_SECS         a session with no flow and no message for this long is
//                                   ended (default 120)

// A comma-separated list (unset or empty: null).
function envList(name) {
  const raw = (process.env[name] ?? '').trim();
  return raw === '' ? null : raw.split(',').map((e) => e.trim()).filter(Boolean);
}

// A positive integer setting, or `fallback` when unset.
function envCount(name, fallback) {
  const n = envInt(name);
  if (n === null) return fallback;
  if (n < 1) {
    console.error(`${name}: must be at least 1`);
    process.exit(2);
  }
  return n;
}

function edgeFromEnv() {
  let policy;
  try {
    // Neither list: snodo's loopback default.
    policy = new OriginPolicy({ hosts: envList('SNODO_ALLOWED_HOSTS'), origins: envList('SNODO_ALLOWED_ORIGINS') });
  } catch (e) {
    console.error(`SNODO_ALLOWED_HOSTS / SNODO_ALLOWED_ORIGINS: ${e.message}`);
    process.exit(2);
  }
  return {
    policy,
    maxConnections: envCount('SNODO_MAX_CONNECTIONS', 1024),
    bodyBudget: new BodyBudget(envCount('SNODO_MAX_BODY_BYTES_IN_FLIGHT', 64 << 20)),
    maxSessions: envCount('SNODO_MAX_SESSIONS', 256),
    maxSessionsPerClient: envCount('SNODO_MAX_SESSIONS_PER_CLIENT', 16),
    sessionIdleMs: envCount('SNODO_SESSION_IDLE_SECS', 120) * 1000,
  };
}

// DEMO ONLY: the bearer token is taken as the user name, unverified. A real
// server verifies the token first and passes the verified user (null:
// anonymous). Tokens are bound to the principal: a retry under another
// bearer fails, and so does any message on another principal's session.
const principalOf = (req) => /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;

// Whom a session counts against: its user, or for anonymous clients their address.
const clientOf = (req, principal) => (principal === null ? `address ${req.socket.remoteAddress}` : `user ${principal}`);

// Request-body bytes being read, across all connections: what uploads can
// hold at once, however many and however slow they are.
class BodyBudget {
  constructor(limit) {
    this.limit = limit;
    this.used = 0;
  }
}

// Reads `req`'s body within MAX_BODY and the budget, then done(body). Else
// it answers itself: 413 once the upload is read (closing mid-upload makes
// clients see a reset, not the 413), or 503 at once, the connection closed
// after it, when the budget is spent (a declared length that does not fit,
// or a chunk that does not).
function readBody(req, budget, send, done) {
  const chunks = [];
  let size = 0;
  let held = 0; // this body's bytes in the budget
  let busy = false;
  const release = () => {
    budget.used -= held;
    held = 0;
  };
  const refuse = () => {
    busy = true;
    release();
    chunks.length = 0;
    send(503, { connection: 'close', 'retry-after': '1' });
  };
  req.on('close', release); // the client left, or the request is over
  const declared = Number(req.headers['content-length']);
  if (declared <= MAX_BODY && budget.used + declared > budget.limit) return refuse();
  req.on('data', (chunk) => {
    size += chunk.length;
    if (busy || size > MAX_BODY) { // read on, keep nothing
      release();
      chunks.length = 0;
      return;
    }
    if (budget.used + chunk.length > budget.limit) return refuse();
    budget.used += chunk.length;
    held += chunk.length;
    chunks.push(chunk);
  });
  req.on('end', () => {
    release();
    if (busy) return;
    if (size > MAX_BODY) send(413, { connection: 'close' });
    else done(Buffer.concat(chunks));
  });
}

const answer = (send, response) => send(response.httpStatus, { 'content-type': 'application/json' }, response.json);

// --- Streamable HTTP 2025-11-25 (2025-era sessions): `initialize` creates a
// session (Mcp-Session-Id); a request that needs client input is answered
// with an SSE stream carrying our requests and finally the response; the
// client POSTs its responses back (202).

function legacyInitialize(message, principal, client, send) {
  const mine = () => [...sessions.values()].filter((c) => c.client === client).length;
  if (sessions.size >= edge.maxSessions || mine() >= edge.maxSessionsPerClient) sweepSessions();
  if (mine() >= edge.maxSessionsPerClient) {
    return send(429, { 'content-type': 'application/json', 'retry-after': '60' },
      jsonrpcError(message.id, -32000, 'Too many sessions for this client: end one (DELETE) first'));
  }
  if (sessions.size >= edge.maxSessions) return send(503, { 'retry-after': '60' });
  const id = randomUUID();
  const [session, response] = initialize(engineOf(), message, id, principal);
  const headers = { 'content-type': 'application/json' };
  if (session) {
    sessions.set(id, new LegacyConnection(engineOf, session, client));
    headers['mcp-session-id'] = id;
  }
  return send(session ? 200 : 400, headers, response);
}

function legacyPost(conn, message, body, principal, req, res, send) {
  const json = { 'content-type': 'application/json' };
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && version !== conn.session.protocolVersion) {
    return send(400, json, jsonrpcError(message?.id ?? null, -32600, `MCP-Protocol-Version ${version} is not this session's`));
  }
  if (message === null) { // not JSON, or not an object: beginLegacy's error response
    const r = conn.engines().beginLegacy(body, conn.session, principal);
    return r instanceof Call ? send(400) : send(r.httpStatus, json, r.json);
  }
  // The messages of this request's flow: SSE once the first of our requests
  // goes out, a plain JSON response if none ever does.
  const sse = (text) => `event: message\ndata: ${text}\n\n`;
  const out = {
    gone: false,
    started: false,
    send(text) {
      if (this.gone) return;
      if (!this.started) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        this.started = true;
      }
      res.write(sse(text));
    },
    finish(text, status) {
      if (this.gone) return;
      this.gone = true;
      if (this.started) res.end(sse(text));
      else send(status, json, text);
    },
    abandon() {
      if (this.gone) return;
      this.gone = true;
      res.end();
    },
  };
  // Without resumability a dropped stream loses the flow's messages: drop the flow.
  res.on('close', () => {
    if (out.gone) return;
    out.gone = true;
    for (const f of conn.flows) {
      if (f.out === out) {
        conn.end(f);
        f.pending.cancel(null);
      }
    }
  });
  const isRequest = typeof message.method === 'string' && message.id !== undefined;
  const taken = conn.message(message, body, principal, {
    reply: (text, status) => out.finish(text, status),
    out: () => out,
  });
  if (!isRequest) {
    if (taken) return send(202);
    return send(400, json, jsonrpcError(null, -32600, 'Not a response this session awaits'));
  }
  return undefined;
}

// --- HTTP plumbing (docs/operations.md). Node's http server already keeps
// connections alive and handles many clients on one thread; what it lacks for
// a deployment are tight deadlines: by default a request may take 300 s to
// arrive and expired requests are only swept every 30 s, so a slow-drip body
// holds its socket for minutes. Here the whole request (headers and body) must
// arrive within SNODO_HTTP_TIMEOUT_SECS (default 10), else 408; an idle
// keep-alive connection is closed after the same time.

// 2025-era HTTP sessions: bounded in number, in all and per client; idle
// ones (no flow, no message for edge.sessionIdleMs) are ended by a sweep.
const sessions = new Map();
let edge = null; // edgeFromEnv() of serveHttp

function sweepSessions() {
  const now = Date.now();
  for (const [id, conn] of sessions) {
    if (conn.flows.size === 0 && now - conn.lastSeen > edge.sessionIdleMs) {
      sessions.delete(id);
      conn.close();
    }
  }
}

let engineOf = null; // the engines() of serveHttp, for the 2025-era helpers

function serveHttp(engines, port) {
  engineOf = engines;
  edge = edgeFromEnv();
  setInterval(sweepSessions, Math.min(60_000, edge.sessionIdleMs / 2)).unref();
  const timeoutMs = (envInt('SNODO_HTTP_TIMEOUT_SECS') ?? 10) * 1000;
  const server = http.createServer({
    requestTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    keepAliveTimeout: timeoutMs,
    connectionsCheckingInterval: Math.min(1000, timeoutMs), // how often expired requests are swept
  }, (req, res) => {
    // A client that leaves mid-request is normal: never let its error become an uncaught exception.
    req.on('error', () => {});
    res.on('error', () => {});
    const send = (status, headers = {}, body = undefined) => res.writeHead(status, headers).end(body);
    // Host and Origin first, on every request and method: a web page's
    // request goes no further. rawHeaders: a repeated header must be seen twice.
    const foreign = checkHttpOrigin(edge.policy, req.rawHeaders);
    if (foreign) return answer(send, foreign);
    if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') return send(404);
    const who = principalOf(req);
    // 2025-era sessions (Mcp-Session-Id, from initialize). Another
    // principal's session does not exist for this caller: refused before
    // anything reads or touches it.
    const sessionId = req.headers['mcp-session-id'];
    const conn = sessionId === undefined ? undefined : sessions.get(sessionId);
    const notYours = conn?.session.checkPrincipal(who);
    if (notYours) return answer(send, notYours);
    if (req.method === 'DELETE' && sessionId !== undefined) { // DELETE ends one
      if (!conn) return answer(send, unknownSession());
      sessions.delete(sessionId);
      conn.close();
      return send(200);
    }
    if (req.method !== 'POST') return send(405, { allow: 'POST' }); // no GET stream: nothing to listen to
    readBody(req, edge.bodyBudget, send, (body) => {
      // Parsed only when it may be 2025-era traffic (the 2026 path reads the bytes).
      const m = sessionId !== undefined || body.includes('initialize') ? parsed(body.toString('utf8')) : null;
      if (conn && sessions.get(sessionId) === conn) return legacyPost(conn, m, body, who, req, res, send);
      if (sessionId === undefined && isInitialize(m)) return legacyInitialize(m, who, clientOf(req, who), send);
      if (sessionId !== undefined && m?.params?._meta?.['io.modelcontextprotocol/protocolVersion'] === undefined) {
        return answer(send, unknownSession()); // an unknown or ended 2025-era session
      }
      // Request-metadata headers must agree with the body (snodo's check,
      // before begin). rawHeaders, not req.headers: Node joins a repeated
      // header with ", ", and a standard header sent twice is a mismatch.
      const mismatch = checkHttpHeaders(req.rawHeaders, body);
      if (mismatch) return answer(send, mismatch);
      const failed = (e) => {
        console.error(`request failed: ${e.stack ?? e}`);
        send(500);
      };
      const reply = (response) => (response ? answer(send, response) : send(202)); // 202: a notification or response
      let response;
      try {
        response = handle(engines(), body, who);
      } catch (e) {
        return failed(e);
      }
      // A Promise: book_room's final round waits on the store while other requests go on.
      if (response instanceof Promise) return response.then(reply, failed);
      return reply(response);
    });
    return undefined;
  });
  // Past the cap Node closes a new connection at once; open ones are unaffected.
  server.maxConnections = edge.maxConnections;
  server.on('error', (e) => {
    console.error(`cannot listen on 127.0.0.1:${port}: ${e.message}`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => {
    // The interop suites parse this exact line to find the port.
    console.error(`listening on http://127.0.0.1:${server.address().port}/mcp`);
  });
}

// sdk_server.mjs reuses the handlers on the official SDK; it
// imports this file, so serve only when run directly.
export { TOOLS, PROMPTS, readColor, engineFromEnv, edgeFromEnv, principalOf, clientOf, readBody, MAX_BODY };
const direct = Boolean(process.argv[1]) && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
const args = direct ? process.argv.slice(2) : null;
const usage = () => {
  console.error('usage: server.mjs --stdio | --http PORT');
  process.exit(2);
};
if (direct) {
  if (!(args.length === 1 && args[0] === '--stdio')
      && !(args.length === 2 && args[0] === '--http' && /^\d+$/.test(args[1]) && Number(args[1]) < 65536)) usage();
  const engines = engineFromEnv();
  if (redisUrl() !== '' || clusterUrls().length > 0) await checkStoreAtStart();
  if (args[0] === '--stdio') serveStdio(engines);
  else serveHttp(engines, Number(args[1]));
}
