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

const TASKS_META = { ...META, 'io.modelcontextprotocol/clientCapabilities': {
  elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } } }

/**
 * A handler served by the task runner, both ways: for a client that declares
 * the Tasks extension, a task that asks on tasks/get (a key minted for the
 * task), takes the answer from tasks/update and completes with it; for any
 * other, the same question as an MRTR round, completed on accept and ended
 * on decline.
 * @param {string} name
 * @param {(text: string, user: string | null) => Promise<{ json: string }>} handle
 */
export async function driveTask(name, handle) {
  /** @param {number} id @param {string} method @param {object} params @param {object} meta @returns {Promise<any>} */
  const rpc = async (id, method, params, meta) =>
    JSON.parse((await handle(JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
      'alice')).json)
  const tool = { name: 'report', arguments: {} }
  const created = (await rpc(1, 'tools/call', tool, TASKS_META)).result
  assert(created.resultType === 'task' && created.requestState === undefined, name, created)
  const task = { taskId: created.taskId }
  /** @param {string[]} statuses */
  const poll = async (...statuses) => {
    for (let i = 0; i < 500; i++) {
      const got = (await rpc(2, 'tasks/get', task, TASKS_META)).result
      if (statuses.includes(got.status)) return got
      await new Promise((r) => setTimeout(r, 10)) // the task runs in the background meanwhile
    }
    throw new Error(`${name}: the task never reached ${statuses}`)
  }
  const waiting = await poll('input_required')
  const entries = Object.entries(waiting.inputRequests)
  assert(entries.length === 1 && entries[0][0].endsWith('@1'), name, 'a key minted for the task', waiting)
  const [key, question] = /** @type {[string, any]} */ (entries[0])
  const [prop, spec] = /** @type {[string, any]} */ (Object.entries(question.params.requestedSchema.properties)[0])
  const accept = { action: 'accept', content: { [prop]: spec.enum[0] } }
  const ack = await rpc(3, 'tasks/update', { ...task, inputResponses: { [key]: accept } }, TASKS_META)
  assert(JSON.stringify(ack.result) === '{"resultType":"complete"}', name, ack)
  const done = await poll('completed', 'failed', 'cancelled')
  assert(done.status === 'completed' && JSON.stringify(done.result).includes(spec.enum[0]), name, done)
  const own = key.split('@')[0]
  const first = (await rpc(4, 'tools/call', tool, META)).result
  assert(first.resultType === 'input_required' && Object.keys(first.inputRequests).join() === own, name, first)
  for (const answer of [accept, { action: 'decline' }]) {
    const retry = { ...tool, inputResponses: { [own]: answer }, requestState: first.requestState }
    const result = (await rpc(5, 'tools/call', retry, META)).result
    assert(result.resultType === 'complete' && Boolean(result.isError) === (answer !== accept), name, answer, result)
  }
  console.log(`${name}: a task that asks on tasks/get and completes after tasks/update; MRTR rounds for other clients`)
}
