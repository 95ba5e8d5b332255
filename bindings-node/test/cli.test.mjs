// The snodo-mrtr bin, run as a process. Every case of
// tests/vectors/cli/cli.json must print exactly the vector's stdout and
// stderr and exit with its code, byte for byte the same as the Python
// console script (held to the same file). Decoded fields are checked
// against tokens.json's own inputs, and no output may contain key bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../index.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(HERE, '..', 'bin', 'snodo-mrtr.js');
const DIR = process.env.SNODO_VECTORS_DIR ?? path.join(HERE, '..', '..', 'tests', 'vectors');
const CLI = JSON.parse(readFileSync(path.join(DIR, 'cli', 'cli.json'), 'utf8'));
const TOKENS = JSON.parse(readFileSync(path.join(DIR, 'tokens.json'), 'utf8'));

function run(args, keys = null) {
  const env = { ...process.env };
  delete env.SNODO_KEYS;
  if (keys !== null) env.SNODO_KEYS = keys;
  const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.status };
}

test('every cli.json case, byte for byte', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'snodo-cli-'));
  try {
    assert.ok(CLI.tests.length > 50, `only ${CLI.tests.length} cases`);
    for (const c of CLI.tests) {
      let args = c.args;
      if (c.request !== null) {
        const file = path.join(tmp, 'request.json');
        writeFileSync(file, c.request);
        args = args.map((a) => (a === '{{request}}' ? file : a));
      }
      assert.deepEqual(run(args, c.keys), c.expected, `cli.json tc ${c.tcId} (${c.comment})`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('decoded fields match tokens.json', () => {
  // v1 tokens only: a v2 token is encrypted (the CLI vectors cover it with keys).
  const valid = TOKENS.tests.filter((t) => t.op === 'open' && t.result === 'valid' && t.token.startsWith('v1.'));
  assert.ok(valid.length > 0);
  for (const t of valid) {
    const out = run(['inspect', '--now', String(t.now), t.token]);
    assert.equal(out.exitCode, 0, out.stderr);
    const lines = Object.fromEntries(out.stdout.trimEnd().split('\n').map((l) => {
      const i = l.indexOf(':');
      return [l.slice(0, i), l.slice(i + 1).trim()];
    }));
    const e = t.expected;
    assert.equal(lines.round, String(e.round));
    assert.ok(lines['issued at'].endsWith(`(${e.issuedAt})`));
    assert.ok(lines['expires at'].endsWith(`(${e.expiresAt})`));
    assert.ok(lines['flow start'].endsWith(`(${e.flowStart})`));
    assert.deepEqual(JSON.parse(lines.questions), e.questionKeys);
    assert.deepEqual(lines.state === 'none' ? null : JSON.parse(lines.state), e.state);
  }
});

test('keygen prints a fresh key SNODO_KEYS accepts', () => {
  const a = run(['keygen']);
  assert.equal(a.exitCode, 0);
  assert.match(a.stdout, /^\d{4}-\d\d-\d\d:[A-Za-z0-9+/]{43}=\n$/);
  const b = run(['keygen', '--id', 'next']);
  const [id, secret] = b.stdout.trim().split(':');
  assert.equal(id, 'next');
  assert.equal(Buffer.from(secret, 'base64').length, 32);
  assert.notEqual(run(['keygen', '--id', 'next']).stdout, b.stdout);
  assert.equal(run(['inspect', 'v1.x'], b.stdout.trim()).exitCode, 1); // a config error would be 2
});

test('key bytes are never printed', () => {
  const t = TOKENS.tests.find((x) => x.tcId === 4);
  const secret = Buffer.from(TOKENS.config.keys[0].hex, 'hex');
  const hex = secret.toString('hex');
  const spellings = [hex, hex.toUpperCase(), hex.slice(0, 40), secret.toString('base64'), secret.toString('base64url')];
  for (const keys of [`k1:${hex}`, `k1:${secret.toString('base64')}`, `k2:${hex}`, `k1:${hex.slice(0, 40)}`]) {
    for (const args of [['inspect', '--now', String(t.now), t.token], ['inspect', '--bogus'], ['keygen']]) {
      const out = run(args, keys);
      for (const s of spellings) {
        assert.ok(!out.stdout.includes(s) && !out.stderr.includes(s), `${s} printed for ${args[0]}`);
      }
    }
  }
});

test('runCli: a negative now is ARGUMENT', () => {
  assert.throws(() => runCli(['--help'], null, -1), (e) => e.code === 'ARGUMENT');
  assert.equal(runCli(['--version'], null, 0).exitCode, 0);
});
