// What the docs harness (tests/docs/run.py) does with a Node handler a page
// shows: the page's block runs as written, then its handler is driven
// through three flows. A first call must ask; an accepted retry must
// complete with the first enum value; a declined one must end the flow.
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
}
const assert = (/** @type {unknown} */ ok, /** @type {unknown[]} */ ...what) => {
  if (!ok) throw new Error(JSON.stringify(what))
}

/**
 * @param {string} name
 * @param {(text: string, user: string | null) => any} handler
 */
export function drive(name, handler) {
  const params = { name: 't', arguments: {}, _meta: META }
  const req = { jsonrpc: '2.0', id: 1, method: 'tools/call', params }
  const first = JSON.parse(handler(JSON.stringify(req), 'alice').json).result
  assert(first.resultType === 'input_required', name, first)
  const [key, question] = Object.entries(first.inputRequests)[0]
  const [prop, spec] = /** @type {[string, any]} */ (Object.entries(question.params.requestedSchema.properties)[0])
  for (const action of ['accept', 'decline']) {
    const answer = action === 'accept' ? { action, content: { [prop]: spec.enum[0] } } : { action }
    const retry = { ...req, id: 2, params: { ...params, inputResponses: { [key]: answer }, requestState: first.requestState } }
    const result = JSON.parse(handler(JSON.stringify(retry), 'alice').json).result
    assert((result.resultType ?? 'complete') === 'complete', name, action, result)
    if (action === 'accept') assert(!result.isError && JSON.stringify(result).includes(spec.enum[0]), name, result)
    else assert(result.isError === true, name, 'decline must end the flow', result)
  }
  console.log(`${name}: asks, completes on accept, ends on decline`)
}
