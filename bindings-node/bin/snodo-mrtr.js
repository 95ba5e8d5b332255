#!/usr/bin/env node
// The snodo-mrtr command: `keygen` prints a fresh key for SNODO_KEYS,
// `inspect TOKEN` reads a continuation token and, with SNODO_KEYS set, says
// why the server refused it (docs/cli.md). The snodo core parses the
// arguments and renders the output, so this bin and the Python console
// script accept the same options and print the same bytes.
'use strict'

const { runCli } = require('../index.js')

const out = runCli(process.argv.slice(2), process.env.SNODO_KEYS ?? null)
process.stdout.write(out.stdout)
process.stderr.write(out.stderr)
// exitCode, not exit(): let the writes above drain first when piped.
process.exitCode = out.exitCode
