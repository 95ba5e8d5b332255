// A two-round preference flow used by several tests (and by the workers).
export const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

export function request(id, extra = {}) {
  return JSON.stringify({
    jsonrpc: '2.0', id, method: 'tools/call',
    params: { name: 'set_color', arguments: { big: 12345678901234567890, x: 1 }, _meta: META, ...extra },
  }).replace('"x":1', '"x":1.0'); // a spelling JS numbers cannot carry
}

// Runs round 1 and the retry with an accepted answer; returns the wire texts.
export function runFlow(snodo, engine, principal = 'alice') {
  const { Call, elicitForm, inputRequired, complete } = snodo;
  const question = elicitForm('Pick a color', {
    type: 'object', properties: { color: { type: 'string', enum: ['red', 'green'] } }, required: ['color'],
  });
  const first = engine.begin(request(1), principal);
  if (!(first instanceof Call)) throw new Error(`round 1: ${first.json}`);
  const r1 = engine.decide(first, inputRequired({ color: question }, { step: 1 }));
  const token = JSON.parse(r1.json).result.requestState;
  const retry = engine.begin(request(2, {
    requestState: token,
    inputResponses: { color: { action: 'accept', content: { color: 'green' } } },
  }), principal);
  if (!(retry instanceof Call)) throw new Error(`round 2: ${retry.json}`);
  const answer = retry.response('color', question);
  const r2 = engine.decide(retry, complete({ content: [{ type: 'text', text: `color=${answer.value.color}` }] }));
  return { r1: r1.json, r2: r2.json, round: retry.round, state: retry.state, answer };
}
