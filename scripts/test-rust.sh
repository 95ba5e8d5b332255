#!/usr/bin/env bash
# Rust suites: unit tests, vectors, property tests, clippy and rustfmt.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
echo "== rust: cargo test"
cargo test --locked --workspace
echo "== rust: clippy (-D warnings)"
cargo clippy --locked --workspace --all-targets -- -D warnings
echo "== rust: rustfmt"
cargo fmt --all -- --check
