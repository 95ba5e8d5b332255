# snodo: the two commands are `make demo` and `make test`.
SHELL := /bin/bash

.PHONY: demo test test-rust bench fmt clippy header

demo:
	cargo run --quiet --locked -p snodo --example demo

test: test-rust

test-rust:
	bash scripts/test-rust.sh

bench:
	cargo bench --locked -p snodo

fmt:
	cargo fmt --all
