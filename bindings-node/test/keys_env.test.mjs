// Engine.fromEnv: the key ring of SNODO_KEYS through the core's one loader, with the
// constructor's other fields; every error names the entry and never echoes key bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../index.js';

const BYTES = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
const HEX = BYTES.toString('hex');
const B64 = BYTES.toString('base64');

function withKeys(value, fn) {
  const before = process.env.SNODO_KEYS;
  if (value === undefined) delete process.env.SNODO_KEYS;
  else process.env.SNODO_KEYS = value;
  try {
    return fn();
  } finally {
    if (before === undefined) delete process.env.SNODO_KEYS;
    else process.env.SNODO_KEYS = before;
  }
}

function failure(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail('no error thrown');
}

test('fromEnv reads SNODO_KEYS and takes the constructor fields but keys', () => {
  withKeys(`new:${B64}, old:${HEX}`, () => {
    const engine = Engine.fromEnv({ ttlSecs: 60, serverInfo: { name: 't', version: '1' } });
    assert.deepEqual(engine.toJSON().keyIds, ['new', 'old']);
    assert.equal(engine.toJSON().ttlSecs, 60);
    const binding = Buffer.alloc(32);
    const token = engine.seal({ principal: 'alice', binding: binding.toString('hex'), round: 1, flowStart: engine.now(), questions: {} });
    assert.ok(token.startsWith('v1.new.'), token); // the first entry signs
    const byHand = new Engine({ keys: [{ id: 'new', secret: BYTES }] });
    assert.equal(byHand.open(token, 'alice', binding).keyId, 'new');
    assert.deepEqual(Engine.fromEnv().toJSON().keyIds, ['new', 'old']);
    assert.deepEqual(Engine.fromEnv(null).toJSON().keyIds, ['new', 'old']);
    let e = failure(() => Engine.fromEnv({ ttlSecs: 0 }));
    assert.equal(e.code, 'CONFIG');
    assert.match(e.message, /ttlSecs/);
    e = failure(() => Engine.fromEnv({ keys: [{ id: 'k', secret: BYTES }] }));
    assert.equal(e.code, 'CONFIG');
    assert.match(e.message, /^keys: Engine.fromEnv reads them from SNODO_KEYS/);
    assert.equal(failure(() => Engine.fromEnv({ bogus: 1 })).code, 'CONFIG');
    assert.equal(failure(() => Engine.fromEnv('ttlSecs=60')).code, 'CONFIG');
  });
});

test('every error names the entry, never the key', () => {
  const cases = [
    [undefined, 'SNODO_KEYS is not set: `snodo-mrtr keygen` prints an entry'],
    ['  ', 'SNODO_KEYS is not set: `snodo-mrtr keygen` prints an entry'],
    [`k1:${HEX},`, 'SNODO_KEYS entry 2 is empty (a stray comma?)'],
    [`k1:${HEX},${HEX}`, 'SNODO_KEYS entry 2: expected id:hex or id:base64'],
    [`k1:${HEX},k2:%%%%`, 'SNODO_KEYS entry 2: key "k2": the secret is neither hex nor base64'],
    [`k1:${HEX},k2:${HEX.slice(0, 62)}`, 'SNODO_KEYS entry 2: key "k2": 31 bytes is too short, at least 32 required'],
    [`k1:${HEX},k1:${B64}`, 'SNODO_KEYS entry 2: key "k1" repeats entry 1; ids must differ'],
    [Array(9).fill(`k1:${HEX}`).join(','), 'SNODO_KEYS: 9 entries, at most 8 keys'],
  ];
  for (const [value, message] of cases) {
    const e = withKeys(value, () => failure(() => Engine.fromEnv()));
    assert.equal(e.code, 'CONFIG', String(value));
    assert.equal(e.message, message);
    assert.ok(!e.message.includes(HEX) && !e.message.includes(B64));
  }
});
