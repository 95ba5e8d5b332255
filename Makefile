# snodo: the two commands are `make demo` and `make test`.
SHELL := /bin/bash

.PHONY: demo test test-rust test-c test-python test-node test-go test-interop test-interop-sdk test-examples test-edge test-load test-fleet test-docs install bench fmt fuzz

# The official TypeScript MCP client drives the Node example server
# (bindings-node/examples/server.mjs) through its tools, printing every round.
demo:
	bash scripts/demo.sh

test: test-rust test-c test-python test-node test-go test-interop test-interop-sdk test-examples test-edge test-load test-fleet test-docs

test-rust:
	bash scripts/test-rust.sh

test-c:
	bash scripts/test-c.sh

test-python:
	bash scripts/test-python.sh

test-node:
	bash scripts/test-node.sh

test-go:
	bash scripts/test-go.sh

test-interop:
	bash scripts/test-interop.sh

# The same clients and suites against contract servers built on the official
# SDK server classes (mcp MCPServer, @modelcontextprotocol/server McpServer), snodo inside.
test-interop-sdk:
	bash scripts/test-interop-sdk.sh

# The two examples people copy (bindings-python/examples/server.py,
# bindings-node/examples/server.mjs): both official clients, both eras, stdio
# and HTTP, and the HTTP edge.
test-examples:
	bash scripts/test-examples.sh

# A hostile page's Origin, DNS rebinding and a stolen 2025 session id against
# the four contract servers (tests/edge/run.py; test-examples runs it on the examples).
test-edge:
	bash scripts/test-edge.sh

test-load:
	bash scripts/test-load.sh

# Four contract servers (two Python, two Node) on one real Redis and on a Redis
# Cluster: book_room's effect at most once per flow, through a Redis outage.
test-fleet:
	bash scripts/test-fleet.sh

# Every code block of README.md, docs/*.md and the binding READMEs, run as
# written (tests/docs/run.py); the Python and Node ones also type-check strictly.
test-docs:
	bash scripts/test-docs.sh

# make install PREFIX=/usr/local: libsnodo (.so, .a), include/snodo.h, snodo.pc
PREFIX ?= /usr/local
install:
	bash scripts/install.sh "$(PREFIX)"

# Benchmarks beside the HMAC floor and the official SDKs' codecs (not part of make test).
bench:
	bash scripts/bench.sh

fmt:
	cargo fmt --all

fuzz:
	bash scripts/fuzz.sh
