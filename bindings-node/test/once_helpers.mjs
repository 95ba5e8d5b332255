// Flows for the consume-once tests (issue 17): a booking tool that asks two
// questions in two rounds, so a flow has an intermediate and a final retry.
import { createHash } from 'node:crypto';
import { Call, Engine, canonicalize, elicitForm, inputRequired } from '../index.js';

export const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

export const SECRET = Buffer.alloc(32, 7);

export const engine = (extra = {}) => new Engine({ keys: [{ id: 'k1', secret: SECRET }], ...extra });

export const DATE = elicitForm('Which date?', {
  type: 'object', properties: { date: { type: 'string' } }, required: ['date'],
});
export const SEATS = elicitForm('How many seats?', {
  type: 'object', properties: { seats: { type: 'integer' } }, required: ['seats'],
});

export const request = (id, extra = {}) => ({
  jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'book', arguments: { show: 'x' }, _meta: META, ...extra },
});

export const accept = (content) => ({ action: 'accept', content });

function begin(e, req) {
  const call = e.begin(req, 'alice');
  if (!(call instanceof Call)) throw new Error(`not a call: ${call.json}`);
  return call;
}

/**
 * Runs rounds 1 and 2 of a flow and returns the round-2 token plus a
 * function that begins a final round (round 3) with that token and the
 * given seat count: each call is a fresh Call, as another request (or
 * another process) would see it.
 */
export function finalRound(e) {
  const first = begin(e, request(1));
  const t1 = e.decide(first, inputRequired({ date: DATE })).body.result.requestState;
  const second = begin(e, request(2, { requestState: t1, inputResponses: { date: accept({ date: '2026-08-01' }) } }));
  const t2 = e.decide(second, inputRequired({ seats: SEATS }, { date: '2026-08-01' })).body.result.requestState;
  let id = 3;
  const final = (seats = 2) =>
    begin(e, request(id++, { requestState: t2, inputResponses: { seats: accept({ seats }) } }));
  return { first, second, t1, t2, final };
}

/** base64url (no padding) SHA-256 of canonical JSON: the answers digest. */
export const digestText = (text) => createHash('sha256').update(text, 'utf8').digest('base64url');
export const digestOf = (value) => digestText(canonicalize(JSON.stringify(value)));
