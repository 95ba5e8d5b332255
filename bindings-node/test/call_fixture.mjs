// What the Call comparison tests share (call_fast: the JS-object Call
// against the class Call; call_decided: a Call read after decide against
// itself before): two engines with the same keys, clock and test seed (one
// for each side of a comparison, so both draw the same ids), the two
// questions the tests ask, the getters a Call has, and errors as values.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const mrtr = require('../index.js');

export const NOW = 1_800_000_000;
export const KEYS = [{ id: 'k1', secret: Buffer.alloc(32, 7) }];
export const engine = new mrtr.Engine({ keys: KEYS, fixedTime: NOW, testRandomSeed: 9 });
export const twin = new mrtr.Engine({ keys: KEYS, fixedTime: NOW, testRandomSeed: 9 });
export const V = '2026-07-28';
export const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
};

export const SEAT = mrtr.elicitForm('Which seat?', { type: 'object', properties: { seat: { type: 'string' } }, required: ['seat'] });
export const URLQ = mrtr.elicitUrl('Sign in', 'https://example.com/login', 'e1');
// Every getter of a Call.
export const FIELDS = [
  'id', 'method', 'params', 'meta', 'name', 'uri', 'arguments', 'principal', 'protocolVersion', 'mrtrAllowed', 'isLegacy',
  'clientCapabilities', 'clientInfo', 'round', 'isRetry', 'flowStart', 'flowId', 'tokenId', 'tokenExpiresAt',
  'answersDigest', 'state', 'askedKeys', 'inputResponses',
];

// `f()`, or the error it throws as a value (code, message, class).
export function attempt(f) {
  try {
    return f();
  } catch (e) {
    return { error: e.code, message: e.message, type: e.constructor.name };
  }
}
