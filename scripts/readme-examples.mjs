// Runs every Node handler example of the READMEs as a reader would copy it.
// Each ```js block that defines a handler function is written to a module
// as-is, with only the names the prose leaves to the reader supplied
// (`keyBuffer`, KEY_HEX), in a project where snodo-mrtr is installed (the
// working directory). Its handler must ask on the first call, complete on an
// accepted retry, and end the flow on a declined one.
// Usage (from scripts/test-node.sh): node readme-examples.mjs <checkout>
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const root = process.argv[2]
const files = ['README.md', 'bindings-node/README.md']
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
}
const assert = (ok, ...what) => { if (!ok) throw new Error(JSON.stringify(what)) }

function drive(name, handler) {
  const params = { name: 't', arguments: {}, _meta: META }
  const req = { jsonrpc: '2.0', id: 1, method: 'tools/call', params }
  const first = JSON.parse(handler(JSON.stringify(req), 'alice').json).result
  assert(first.resultType === 'input_required', name, first)
  const [key, question] = Object.entries(first.inputRequests)[0]
  const [prop, spec] = Object.entries(question.params.requestedSchema.properties)[0]
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

let count = 0
for (const rel of files) {
  const text = readFileSync(join(root, rel), 'utf8')
  const blocks = [...text.matchAll(/^```js\n([\s\S]*?)^```/gm)].map((m) => m[1])
  for (const [i, block] of blocks.entries()) {
    const fn = /^function (\w+)\(/m.exec(block)
    if (!fn) continue
    const file = join(process.cwd(), `readme-example-${count}.mjs`)
    process.env.KEY_HEX ??= '07'.repeat(32)
    writeFileSync(file, `const keyBuffer = Buffer.alloc(32, 7);\n${block}\nexport { ${fn[1]} as __handler };\n`)
    const mod = await import(pathToFileURL(file).href)
    drive(`${rel} js block ${i} (${fn[1]})`, mod.__handler)
    count++
  }
}
if (count < files.length) {
  console.error(`FAIL: found ${count} Node handler examples in ${files}`)
  process.exit(1)
}
