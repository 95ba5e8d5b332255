# snodo: the two commands are `make demo` and `make test`.
SHELL := /bin/bash

.PHONY: demo test test-rust test-c test-python test-node test-go test-interop test-interop-sdk test-load test-fleet install bench fmt fuzz

# The official TypeScript MCP client drives an example server built on snodo
# through the preference workflow, printing every round.
demo:
	bash scripts/demo.sh

test: test-rust test-c test-python test-node test-go test-interop test-interop-sdk test-load test-fleet

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

# The same clients and suites against example servers built on the official
# SDK server classes (mcp MCPServer, @modelcontextprotocol/server McpServer), snodo inside.
test-interop-sdk:
	bash scripts/test-interop-sdk.sh

test-load:
	bash scripts/test-load.sh

# Four example servers (two Python, two Node) on one real Redis: book_room's
# final round at most once across the fleet, through a Redis outage (issue 17).
test-fleet:
	bash scripts/test-fleet.sh

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
