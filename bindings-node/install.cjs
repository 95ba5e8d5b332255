// npm `install` script of snodo-mrtr. With a prebuilt binary (the
// snodo-mrtr-linux-x64-gnu package, or snodo.linux-x64-gnu.node in this
// folder, as in a tarball packed after `napi build`) it does nothing. In a
// checkout without one it builds the addon with cargo; with no way to get a
// binary it fails with a message naming what is missing.
'use strict'
const { existsSync, copyFileSync } = require('fs')
const { join } = require('path')
const { spawnSync } = require('child_process')

const here = __dirname
const local = join(here, 'snodo.linux-x64-gnu.node')
const pkg = 'snodo-mrtr-linux-x64-gnu'

function fail(lines) {
  console.error(['snodo-mrtr: cannot install the native addon.', ...lines].join('\n  '))
  process.exit(1)
}

if (existsSync(local)) process.exit(0)
try {
  require.resolve(`${pkg}/package.json`, { paths: [here] })
  process.exit(0)
} catch {}

const platform = `${process.platform}-${process.arch}`
if (platform !== 'linux-x64') {
  fail([`no binary for ${platform}: snodo-mrtr ships linux-x64-gnu only;`,
    'build from a checkout: cd bindings-node && npx napi build --platform --release'])
}
const workspace = join(here, '..', 'Cargo.toml')
if (!existsSync(workspace)) {
  fail([`missing: the optional dependency ${pkg} (not installed: was --omit=optional or --no-optional used?)`,
    `and ${local}; this is not a snodo checkout, so there is nothing to build from.`])
}
const cargo = process.env.CARGO || 'cargo'
if (spawnSync(cargo, ['--version'], { stdio: 'ignore' }).status !== 0) {
  fail([`missing: ${local} and the package ${pkg},`,
    `and no Rust toolchain to build it (\`${cargo}\` not found; install Rust >= 1.88, then reinstall).`])
}
console.error(`snodo-mrtr: no prebuilt binary; building the addon with ${cargo} (about a minute)`)
const target = process.env.CARGO_TARGET_DIR || join(here, '..', 'target')
const build = spawnSync(cargo, ['build', '--release', '--locked', '-p', 'snodo-node'],
  { cwd: join(here, '..'), stdio: 'inherit' })
if (build.status !== 0) fail([`\`${cargo} build -p snodo-node\` failed (above).`])
copyFileSync(join(target, 'release', 'libsnodo_node.so'), local)
console.error(`snodo-mrtr: built ${local}`)
