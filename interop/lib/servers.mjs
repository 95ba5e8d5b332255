// Starting the snodo servers for the Node-side interop suites (the official
// TypeScript client, the conformance suite and the demo). Paths are relative
// to the repository root, which is where scripts/test-interop.sh runs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// Fixed test keys (32 bytes each, hex). They only ever sign tokens for a
// throwaway local server; never reuse them anywhere real.
export const KEYS = {
  a: 'k1:' + '11'.repeat(32),
  other: 'k9:' + '99'.repeat(32),
  rotated: 'k2:' + '22'.repeat(32) + ',k1:' + '11'.repeat(32),
};

// Every server the suites start, by kind: one command line each, `--stdio`
// or `--http PORT` appended. The contract servers (interop/servers/) serve
// all of CONTRACT.md; the two examples (what users copy) serve
// preferred_color and book_room with the contract's texts.
const PYTHON = () => process.env.SNODO_INTEROP_PYTHON || 'python3'; // the interpreter with the snodo-mrtr wheel
const NODE = () => process.env.SNODO_INTEROP_NODE || process.execPath;
export const RUST_SDK_SERVER = 'target/release/examples/contract_server';
export const SERVERS = {
  python: [PYTHON, 'interop/servers/python/server.py'],
  node: [NODE, 'interop/servers/node/server.mjs'],
  'python-sdk': [PYTHON, 'interop/servers/python/sdk_server.py'],
  'node-sdk': [NODE, 'interop/servers/node/sdk_server.mjs'],
  fastmcp: [PYTHON, 'interop/servers/python/fastmcp_server.py'],
  // A binary, no script: the rmcp contract server (scripts/test-interop-sdk.sh builds it).
  'rust-sdk': [() => path.join(ROOT, RUST_SDK_SERVER), null],
  'python-example': [PYTHON, 'bindings-python/examples/server.py'],
  'node-example': [NODE, 'bindings-node/examples/server.mjs'],
};
export const isExample = (server) => server.endsWith('-example');

/** The command that runs `server` (a key of SERVERS) with `args`. */
export function serverCommand(server, args) {
  if (!Object.hasOwn(SERVERS, server)) {
    throw new Error(`unknown server ${server}: expected one of ${Object.keys(SERVERS).join(', ')}`);
  }
  const [command, script] = SERVERS[server];
  return { command: command(), args: script === null ? args : [path.join(ROOT, script), ...args] };
}

/** The stdio spawn parameters for the official client's StdioClientTransport. */
export function stdioParams(server, env = {}) {
  const { command, args } = serverCommand(server, ['--stdio']);
  // The TS stdio transport passes only a few variables through: add ours.
  return { command, args, env: { PATH: process.env.PATH ?? '', SNODO_KEYS: KEYS.a, ...env }, stderr: 'pipe', cwd: ROOT };
}

/**
 * Starts `server` over HTTP on a free port and resolves to
 * `{ url, stop(), stderr() }` once it prints its `listening on` line.
 */
export function startHttp(server, { keys = KEYS.a, logFile } = {}) {
  const { command, args } = serverCommand(server, ['--http', '0']);
  const env = { ...process.env };
  if (keys === null) delete env.SNODO_KEYS;
  else env.SNODO_KEYS = keys;
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  let started = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${server} server did not start within 20 s:\n${err}`)), 20_000);
    function fail(e) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    }
    child.on('exit', (code) => fail(new Error(`${server} server exited with ${code} before listening:\n${err}`)));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      err += chunk;
      if (logFile) fs.appendFileSync(logFile, chunk);
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m && !started) {
        started = true;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({
          url: m[1],
          stderr: () => err,
          stop: () => new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 2000).unref();
          }),
        });
      }
    });
  });
}

/** Writes a suite summary: `{suite, server, transport, passed, failed, total, results}`. */
export function writeSummary(file, meta, results) {
  const passed = Object.values(results).filter((r) => r.status === 'pass').length;
  const summary = { ...meta, passed, failed: Object.keys(results).length - passed, total: Object.keys(results).length, results };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}

/**
 * A plain JSON-RPC client of `server` over `transport` (stdio or http), for
 * methods no SDK client sends (`tasks/*`): `{ send(message) → the response
 * message, close() }`. Over HTTP it sends the routing headers a conforming
 * client sends (Mcp-Method; Mcp-Name from params.taskId or params.name).
 */
export async function rawClient(server, transport) {
  if (transport === 'http') {
    const running = await startHttp(server);
    const send = async (msg) => {
      const name = msg.params?.taskId ?? msg.params?.name;
      const res = await fetch(running.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28', 'mcp-method': msg.method, ...(name ? { 'mcp-name': name } : {}) },
        body: JSON.stringify(msg),
        signal: AbortSignal.timeout(10_000),
      });
      return res.json();
    };
    return { send, close: running.stop };
  }
  const { command, args } = serverCommand(server, ['--stdio']);
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, SNODO_KEYS: KEYS.a },
    stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line);
    waiting.get(msg.id)?.(msg);
    waiting.delete(msg.id);
  });
  const send = (msg) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${msg.method} within 10 s`)), 10_000);
    waiting.set(msg.id, (m) => { clearTimeout(timer); resolve(m); });
    child.stdin.write(`${JSON.stringify(msg)}\n`);
  });
  const close = () => new Promise((done) => { child.once('exit', done); child.stdin.end(); });
  return { send, close };
}
