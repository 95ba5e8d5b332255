#!/usr/bin/env bash
# The Node suite: builds the snodo-mrtr addon with the napi CLI pinned in
# bindings-node/package-lock.json, checks the committed index.d.ts for drift,
# runs `node --test` (every vector, the Node tests, the example server smoke
# test), then packs the package and installs the tarball into a fresh project
# outside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
NODE_DIR=bindings-node
export CARGO_TERM_COLOR=never

step() { printf '\n== node: %s (%ss)\n' "$1" "$SECONDS"; }

step "npm ci"
(cd "$NODE_DIR" && npm ci --no-audit --no-fund --loglevel=error)

step "build the addon"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ -f "$NODE_DIR/index.d.ts" ]; then cp "$NODE_DIR/index.d.ts" "$WORK/index.d.ts.committed"; fi
# Never --use-napi-cross / --cross-compile: they download toolchains.
(cd "$NODE_DIR" && npx napi build --platform --release --no-const-enum --runtime-string-enum)

step "index.d.ts drift check"
if [ ! -f "$WORK/index.d.ts.committed" ]; then
  echo "bindings-node/index.d.ts is not committed; commit the generated file" >&2
  exit 1
fi
if ! diff -u "$WORK/index.d.ts.committed" "$NODE_DIR/index.d.ts"; then
  echo "bindings-node/index.d.ts drifted from the Rust sources: commit the regenerated file" >&2
  exit 1
fi

step "node --test"
(cd "$NODE_DIR" && node --test test/*.test.mjs)

step "npm pack + install into a fresh project"
(cd "$NODE_DIR" && npm pack --silent --pack-destination "$WORK" >/dev/null)
TARBALL=$(ls "$WORK"/snodo-mrtr-*.tgz)
mkdir "$WORK/app"
cd "$WORK/app"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$TARBALL"
cat > smoke.cjs <<'JS'
const s = require('snodo-mrtr');
const e = new s.Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 1) }] });
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const call = e.begin({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 't', _meta: meta } }, null);
if (!(call instanceof s.Call)) throw new Error('begin gave no Call');
const q = s.elicitForm('Name?', { type: 'object', properties: { n: { type: 'string' } } });
const r = e.decide(call, s.inputRequired({ n: q }));
if (JSON.parse(r.json).result.resultType !== 'input_required') throw new Error(r.json);
console.log('require: ok');
JS
cat > smoke.mjs <<'JS'
import { Engine, SnodoErrorCode, canonicalize, version } from 'snodo-mrtr';
if (canonicalize('{"b":1,"a":1.0}') !== '{"a":1.0,"b":1}') throw new Error('canonicalize');
try { new Engine({ keys: [] }); throw new Error('no throw'); } catch (e) { if (e.code !== SnodoErrorCode.Config) throw e; }
console.log(`import: ok (snodo-mrtr ${version()})`);
JS
node smoke.cjs
node smoke.mjs
cd "$ROOT"
echo "node: all green (${SECONDS}s)"
