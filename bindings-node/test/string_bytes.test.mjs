// A JS string argument is JSON text read exactly: its bytes are
// `Buffer.from(text, 'utf8')` (UTF-8, each lone surrogate as U+FFFD), so on
// random text (seeded, so a failure reproduces) a string argument and its
// Buffer give the same result or the same error, word for word, long
// strings included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { rng } from './rng.mjs';

const require = createRequire(import.meta.url);
const mrtr = require('../index.js');

// Pieces that hit every UTF-8 length, both surrogate halves alone and in
// pairs, escapes, and bytes that break JSON.
const PIECES = ['a', 'é', '€', '😀', '\ud83d', '\ude00', '\ud83d\ude00', '\u0000', '\\', '"', '\\u00e9',
  '\\ud83d', '\n', ' ', '\u2028', '\uffff', '\ufffd', '{', '}', '[', ']', ':', ','];

function piece(r) {
  return PIECES[r(PIECES.length)];
}

function randomText(r) {
  switch (r(4)) {
    case 0: // a JSON string literal, often valid
      return `"${Array.from({ length: r(12) }, () => piece(r)).join('')}"`;
    case 1: // an object with a random key and value
      return `{"${piece(r)}${piece(r)}":"${Array.from({ length: r(8) }, () => piece(r)).join('')}","n":${r(1000)}}`;
    case 2: // anything at all
      return Array.from({ length: r(16) }, () => piece(r)).join('');
    default: // a number or literal, with stray text around
      return `${['1', '-0', '1e400', 'true', 'null'][r(5)]}${r(3) === 0 ? piece(r) : ''}`;
  }
}

function outcome(f) {
  try {
    return { ok: f() };
  } catch (e) {
    return { code: e.code, message: e.message };
  }
}

test('a string argument gives the bytes of Buffer.from(string) (random text, seeded)', () => {
  const r = rng(0x16b7e5).below;
  let ok = 0;
  for (let i = 0; i < 4000; i++) {
    const text = randomText(r);
    const got = outcome(() => mrtr.canonicalize(text));
    assert.deepEqual(got, outcome(() => mrtr.canonicalize(Buffer.from(text, 'utf8'))), JSON.stringify(text));
    if (got.ok !== undefined) ok++;
  }
  assert.ok(ok > 1000, `only ${ok} of 4000 texts were valid JSON`);
});

test('a value argument gives the bytes of Buffer.from(JSON.stringify(value))', () => {
  const r = rng(0x5717).below;
  for (let i = 0; i < 2000; i++) {
    const value = { [piece(r) + piece(r)]: Array.from({ length: r(6) }, () => piece(r)).join(''), list: [piece(r), r(100)] };
    assert.deepEqual(outcome(() => mrtr.canonicalize(value)),
      outcome(() => mrtr.canonicalize(Buffer.from(JSON.stringify(value), 'utf8'))), JSON.stringify(value));
  }
});

test('long strings (around 2^20 UTF-16 units)', () => {
  const r = rng(99).below;
  for (const units of [(1 << 20) - 2, 1 << 20, (1 << 20) + 1, (1 << 20) + 7]) {
    // A JSON string literal of exactly `units` UTF-16 units, ending in
    // multi-byte and surrogate pieces so that the worst case is near.
    const tail = ['😀', '€', '\ud83d', 'é'][r(4)];
    const body = 'x'.repeat(units - 2 - tail.length) + tail;
    const text = `"${body}"`;
    assert.equal(text.length, units);
    assert.deepEqual(outcome(() => mrtr.canonicalize(text)), outcome(() => mrtr.canonicalize(Buffer.from(text, 'utf8'))));
  }
  // The same through JSON.stringify of a value.
  const value = { s: '€'.repeat((1 << 20) + 3) };
  assert.deepEqual(outcome(() => mrtr.canonicalize(value)),
    outcome(() => mrtr.canonicalize(Buffer.from(JSON.stringify(value), 'utf8'))));
});

test('a request as text and as a Buffer begins alike (bytes reach the core unchanged)', () => {
  const engine = new mrtr.Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 3) }], fixedTime: 1_800_000_000 });
  const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const r = rng(7).below;
  for (let i = 0; i < 300; i++) {
    const text = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 't', arguments: { q: randomText(r) }, _meta: META } });
    const spoiled = r(3) === 0 ? text.slice(0, r(text.length)) + piece(r) + text.slice(r(text.length)) : text;
    const read = (x) => outcome(() => {
      const c = engine.begin(x, 'alice');
      return c instanceof mrtr.Call ? JSON.stringify(c.arguments) : c.json;
    });
    assert.deepEqual(read(spoiled), read(Buffer.from(spoiled, 'utf8')), spoiled);
  }
});
