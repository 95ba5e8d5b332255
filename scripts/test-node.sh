#!/usr/bin/env bash
# The Node suite: builds the snodo-mrtr addon for the tests with the napi CLI
# pinned in bindings-node/package-lock.json (cargo feature test-knobs: the
# vectors need fixedTime and testRandomSeed), checks the committed index.d.ts
# for drift, runs `tsc --strict` over the SDK server and the Node example
# (scripts/tsc-check.sh), runs `node --test` (every vector, the Node tests, the smoke and
# edge tests of the Node contract servers in interop/servers/node), checks
# the npm pack file lists, then has the package's own install script build
# the addon users get (without the test knobs) and installs the folder, the
# tarball and the prebuilt layout (main + platform package) into fresh
# projects outside the repository, each showing the test knobs refused.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
NODE_DIR=bindings-node
export CARGO_TERM_COLOR=never

step() { printf '\n== node: %s (%ss)\n' "$1" "$SECONDS"; }

step "npm ci"
# --ignore-scripts: the package's own install script (install.cjs) would
# build the addon with cargo; napi builds it next, with the typings.
(cd "$NODE_DIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

step "build the addon for the tests (feature test-knobs)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ -f "$NODE_DIR/index.d.ts" ]; then cp "$NODE_DIR/index.d.ts" "$WORK/index.d.ts.committed"; fi
# Never --use-napi-cross / --cross-compile: they download toolchains. The
# feature adds no export, so the typings are those of the installed addon.
(cd "$NODE_DIR" && npx napi build --platform --release --no-const-enum --runtime-string-enum --features test-knobs)

step "index.d.ts drift check"
if [ ! -f "$WORK/index.d.ts.committed" ]; then
  echo "bindings-node/index.d.ts is not committed; commit the generated file" >&2
  exit 1
fi
if ! diff -u "$WORK/index.d.ts.committed" "$NODE_DIR/index.d.ts"; then
  echo "bindings-node/index.d.ts drifted from the Rust sources: commit the regenerated file" >&2
  exit 1
fi

step "index.js drift check, ESM entry, npm pack file list"
# index.js is napi's generated loader (local .node first, then the
# snodo-mrtr-linux-x64-gnu package); committed so that a checkout without the
# napi CLI (npm install ./bindings-node) has it.
if ! git diff --exit-code -- "$NODE_DIR/index.js"; then
  echo "bindings-node/index.js drifted from what napi generates: commit the regenerated file" >&2
  exit 1
fi
(cd "$NODE_DIR" && node -e '
  const cjs = Object.keys(require("./index.js")).filter((k) => !k.startsWith("__")).sort();
  import("./index.mjs").then((esm) => {
    const names = Object.keys(esm).filter((k) => k !== "default").sort();
    if (JSON.stringify(names) !== JSON.stringify(cjs)) {
      console.error("index.mjs exports", names, "but index.js exports", cjs); process.exit(1);
    }
    if (esm.Engine !== require("./index.js").Engine) { console.error("ESM and CJS differ"); process.exit(1); }
    console.log(`index.mjs re-exports all ${names.length} names of index.js`);
  });')
pack_files() { (cd "$1" && npm pack --dry-run --json --loglevel=error) | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () =>
    console.log(JSON.parse(s)[0].files.map((f) => f.path).sort().join(" ")));'; }
got="$(pack_files "$NODE_DIR")"
want="README.md bin/snodo-mrtr.js index.d.ts index.js index.mjs install.cjs mcp.d.ts mcp.js mcp.mjs once.d.ts once.js once.mjs package.json snodo.linux-x64-gnu.node tasks.d.ts tasks.js tasks.mjs"
if [ "$got" != "$want" ]; then
  echo "npm pack would ship: $got" >&2
  echo "expected:            $want" >&2
  exit 1
fi
echo "npm pack: $got"

step "start a throwaway Redis and a Redis Cluster (the RedisStore tests need both, and fail without them)"
# shellcheck source=scripts/redis.sh
source scripts/redis.sh
redis_ensure_installed
trap 'rm -rf "$WORK"; redis_stop; redis_cluster_stop' EXIT
redis_start
redis_cluster_start

step "the Node contract servers' packages (interop/servers/node: snodo-mrtr linked from bindings-node)"
# shellcheck source=interop/setup.sh
source interop/setup.sh
interop_setup_node_servers

step "tsc --strict over the SDK server and the example (scripts/tsc-check.sh)"
bash scripts/tsc-check.sh

step "node --test"
(cd "$NODE_DIR" && node --test test/*.test.mjs)
redis_stop
redis_cluster_stop

cat > "$WORK/smoke.cjs" <<'JS'
const s = require('snodo-mrtr');
const e = new s.Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 1) }] });
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const call = e.begin({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 't', _meta: meta } }, null);
if (!(call instanceof s.Call)) throw new Error('begin gave no Call');
const q = s.elicitForm('Name?', { type: 'object', properties: { n: { type: 'string' } } });
const r = e.decide(call, s.inputRequired({ n: q }));
if (JSON.parse(r.json).result.resultType !== 'input_required') throw new Error(r.json);
console.log('require: ok');
// What users install has no test knobs: both are refused, naming the feature.
for (const knob of ['fixedTime', 'testRandomSeed']) {
  let err = null;
  try { new s.Engine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 1) }], [knob]: 1 }); } catch (x) { err = x; }
  if (!err || err.code !== 'CONFIG' || !err.message.startsWith(`${knob}: a test-only setting, absent from this build`)) {
    throw new Error(`${knob} was not refused as test-only: ${err ? `${err.code}: ${err.message}` : 'accepted'}`);
  }
}
console.log('test knobs: refused');
JS
cat > "$WORK/smoke.mjs" <<'JS'
import { Engine, SnodoErrorCode, canonicalize, version } from 'snodo-mrtr';
if (canonicalize('{"b":1,"a":1.0}') !== '{"a":1.0,"b":1}') throw new Error('canonicalize');
try { new Engine({ keys: [] }); throw new Error('no throw'); } catch (e) { if (e.code !== SnodoErrorCode.Config) throw e; }
console.log(`import: ok (snodo-mrtr ${version()})`);
JS

step "npm install ./bindings-node (a folder, as the README says): its install script builds the addon users get"
# Without a binary in the folder, install.cjs builds it with cargo, without
# the test knobs; the tarball and the platform package below ship that build.
rm "$NODE_DIR/snodo.linux-x64-gnu.node"
mkdir "$WORK/app-dir"
cd "$WORK/app-dir"
cp ../smoke.cjs ../smoke.mjs .
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error --foreground-scripts "$ROOT/$NODE_DIR"
[ -f "$ROOT/$NODE_DIR/snodo.linux-x64-gnu.node" ] || { echo "install.cjs did not build the addon" >&2; exit 1; }
node smoke.cjs
node smoke.mjs

step "npm pack + install into a fresh project"
cd "$ROOT"
(cd "$NODE_DIR" && npm pack --silent --pack-destination "$WORK" >/dev/null)
TARBALL=$(ls "$WORK"/snodo-mrtr-*.tgz)
mkdir "$WORK/app"
cd "$WORK/app"
cp ../smoke.cjs ../smoke.mjs .
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$TARBALL"
node smoke.cjs
node smoke.mjs
# snodo-mrtr/mcp loads without its optional peer (@modelcontextprotocol/server is not installed here).
node -e 'const m = require("snodo-mrtr/mcp"); if (typeof m.Snodo !== "function") throw new Error("snodo-mrtr/mcp");'
node --input-type=module -e 'import { Snodo } from "snodo-mrtr/mcp"; if (typeof Snodo !== "function") throw new Error("esm");'
echo "snodo-mrtr/mcp: ok without @modelcontextprotocol/server"
# snodo-mrtr/once loads without its optional peer (redis is not installed here).
node -e 'const o = require("snodo-mrtr/once"); if (typeof o.runOnce !== "function" || typeof o.checkOnce !== "function" || o.MemoryStore !== require("snodo-mrtr").MemoryStore || o.OnceRun !== require("snodo-mrtr").OnceRun) throw new Error("snodo-mrtr/once");'
node --input-type=module -e 'import { runOnce, checkOnce, RedisStore } from "snodo-mrtr/once"; if (typeof runOnce !== "function" || typeof checkOnce !== "function" || typeof RedisStore !== "function") throw new Error("esm");'
echo "snodo-mrtr/once: ok without redis"
# The bin is linked by npm and runs from the installed package.
npx --no-install snodo-mrtr --version | grep -qx "snodo-mrtr $(node -p 'require("snodo-mrtr/package.json").version')"
npx --no-install snodo-mrtr keygen --id smoke | grep -Eq '^smoke:[A-Za-z0-9+/]{43}=$'
echo "bin: ok"
echo "tarball: $(stat -c %s "$TARBALL") bytes"

step "platform package snodo-mrtr-linux-x64-gnu (napi-rs prebuilt layout)"
cp -r "$ROOT/$NODE_DIR/npm/linux-x64-gnu" "$WORK/platform"
cp "$ROOT/$NODE_DIR/snodo.linux-x64-gnu.node" "$WORK/platform/"
got="$(pack_files "$WORK/platform")"
want="README.md package.json snodo.linux-x64-gnu.node"
[ "$got" = "$want" ] || { echo "platform package would ship: $got (expected $want)" >&2; exit 1; }
(cd "$WORK/platform" && npm pack --silent --pack-destination "$WORK" >/dev/null)
mkdir "$WORK/pub"
mkdir "$WORK/app-prebuilt"
cp "$WORK/smoke.cjs" "$WORK/smoke.mjs" "$WORK/app-prebuilt/"
cd "$WORK/app-prebuilt"
npm init -y >/dev/null
# What a user gets once both are published: the main package lists the
# platform package in optionalDependencies (stamped at publish, as
# `napi prepublish` does: the source package.json cannot name an unpublished
# package, or `npm ci` fails to lock it) and the binary comes from there.
cp -r "$ROOT/$NODE_DIR" "$WORK/main-pub"
rm -rf "$WORK/main-pub/node_modules" "$WORK/main-pub/target"
(cd "$WORK/main-pub" && node -e '
  const fs = require("fs"); const p = JSON.parse(fs.readFileSync("package.json"));
  p.optionalDependencies = { "snodo-mrtr-linux-x64-gnu": p.version };
  fs.writeFileSync("package.json", JSON.stringify(p, null, 2) + "\n");' &&
  rm snodo.linux-x64-gnu.node && npm pack --silent --pack-destination "$WORK/pub" >/dev/null)
npm install --no-audit --no-fund --loglevel=error "$WORK"/snodo-mrtr-linux-x64-gnu-*.tgz "$WORK"/pub/snodo-mrtr-*.tgz
[ ! -e node_modules/snodo-mrtr/snodo.linux-x64-gnu.node ]
node smoke.cjs
node smoke.mjs
node -e 'require("snodo-mrtr"); const p = Object.keys(require.cache).find((k) => k.endsWith(".node"));
  if (!p.includes("snodo-mrtr-linux-x64-gnu")) { console.error("loaded", p); process.exit(1); }
  console.log("loaded from the platform package");'

step "no binary and no toolchain: a clear message"
mkdir -p "$WORK/bare/snodo-mrtr"
cp "$ROOT/$NODE_DIR/install.cjs" "$WORK/bare/snodo-mrtr/"
rc=0
(cd "$WORK/bare/snodo-mrtr" && node install.cjs) 2>"$WORK/bare/err.txt" || rc=$?
cat "$WORK/bare/err.txt"
[ "$rc" -ne 0 ] && grep -q "snodo-mrtr-linux-x64-gnu" "$WORK/bare/err.txt" ||
  { echo "install.cjs did not fail naming the missing package" >&2; exit 1; }
cd "$ROOT"
echo "node: all green (${SECONDS}s)"
