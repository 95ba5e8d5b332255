#!/usr/bin/env bash
# Rust suites: the size budgets, unit tests, vectors, property tests, clippy
# and rustfmt; the crate packages cleanly and its docs build without warnings.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
echo "== budgets: the sizes of what a reviewer reads (scripts/budgets.py)"
python3 scripts/budgets.py
echo "== rust: cargo test"
cargo test --locked --workspace
echo "== rust: every fuzz target over its seeds and past failures (replay on stable, no fuzzing)"
# `make fuzz` fuzzes, with nightly and sanitizers; this runs each target's
# own invariants, built on the stable toolchain, over the inputs the vectors
# give (fuzz/seeds.py) and every input a fuzzing run once failed on
# (fuzz/regressions/TARGET/), so a target never goes stale or stops
# compiling unseen. libFuzzer given a directory and -runs=0 runs each file
# once; an invariant broken aborts the process.
REPLAY=target/fuzz-replay
rm -rf "$REPLAY/corpus"
python3 fuzz/seeds.py "$REPLAY/corpus" >/dev/null
cp -R fuzz/regressions/. "$REPLAY/corpus/"
cargo build --locked --release --manifest-path fuzz/Cargo.toml --target-dir "$REPLAY/build" 2>&1 | tail -n 1
for target in $(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -vx snodo-fuzz); do
  inputs=$(find "$REPLAY/corpus/$target" -type f 2>/dev/null | wc -l)
  [ "$inputs" -gt 0 ] || { echo "FAIL: fuzz target $target has no seed" >&2; exit 1; }
  log="$REPLAY/$target.log"
  if ! "$REPLAY/build/release/$target" -runs=0 -artifact_prefix="$REPLAY/" "$REPLAY/corpus/$target" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "FAIL: fuzz target $target broke its invariant on a seed (above)" >&2
    exit 1
  fi
  ran=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log")
  [ "${ran:-0}" -ge "$inputs" ] || { echo "FAIL: fuzz target $target ran ${ran:-0} of $inputs inputs" >&2; exit 1; }
  echo "fuzz replay: $target ran $inputs inputs"
done
echo "== rust: the once machine on a real Redis and a 3-master Redis Cluster (feature redis; fails, never skips, without them)"
# shellcheck source=scripts/redis.sh
source scripts/redis.sh
redis_ensure_installed
redis_start
redis_cluster_start
trap 'redis_stop; redis_cluster_stop' EXIT
cargo test --locked -p snodo --features redis --test once_redis 2>&1 | tee target/snodo-once-redis.log
grep -qE '^test result: ok\. [1-9][0-9]* passed' target/snodo-once-redis.log ||
  { echo "FAIL: the Redis once-store tests did not run" >&2; exit 1; }
echo "== rust: the task machine on a real Redis and a Redis Cluster, step by step against the memory store"
cargo test --locked -p snodo --features redis --test tasks_redis 2>&1 | tee target/snodo-tasks-redis.log
grep -qE '^test result: ok\. [1-9][0-9]* passed' target/snodo-tasks-redis.log ||
  { echo "FAIL: the Redis task-store tests did not run" >&2; exit 1; }
redis_stop
redis_cluster_stop
trap - EXIT
echo "== rust: clippy (-D warnings, default and all features)"
cargo clippy --locked --workspace --all-targets -- -D warnings
cargo clippy --locked -p snodo --all-targets --all-features -- -D warnings
echo "== rust: rustfmt"
cargo fmt --all -- --check
echo "== rust: cargo package -p snodo (list, then build the packaged crate)"
# The file list a crates.io upload would carry: sources only, no vectors,
# fuzz corpora or machine files. --allow-dirty: a developer's local edits
# must not fail this; CI runs on a clean clone.
cargo package --locked --allow-dirty -p snodo --list >target/snodo-package.list
cat target/snodo-package.list | tr '\n' ' '
echo
for f in Cargo.toml src/lib.rs Cargo.lock; do
  grep -qx "$f" target/snodo-package.list || { echo "FAIL: the packaged crate lacks $f" >&2; exit 1; }
done
# public-api.txt ships because tests/public_api.rs (packaged) compares the crate root with it.
if grep -vE '^(\.cargo_vcs_info\.json|Cargo\.(toml|toml\.orig|lock)|public-api\.txt|(src|tests|benches|examples)/.*)$' target/snodo-package.list; then
  echo "FAIL: unexpected files in the packaged crate (above)" >&2
  exit 1
fi
# Verification builds the .crate unpacked, from the registry cache.
cargo package --locked --allow-dirty -p snodo 2>&1 | tee target/snodo-package.log
if grep -q '^warning' target/snodo-package.log; then
  echo "FAIL: cargo package warned" >&2
  exit 1
fi
echo "== rust: cargo doc -p snodo (-D warnings), doctests"
RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps -p snodo
cargo test --locked -p snodo --doc 2>&1 | tee target/snodo-doctest.log
grep -qE '^test result: ok\. [1-9][0-9]* passed' target/snodo-doctest.log ||
  { echo "FAIL: the crate-root doc example did not run" >&2; exit 1; }
# The README's Rust handler is the doctest's `handle`, word for word, so the
# doctest is what keeps the README example compiling and correct.
python3 - <<'PY'
import re, sys
readme = open("README.md", encoding="utf-8").read()
block = re.search(r"^```rust\n(.*?)^```", readme, re.S | re.M).group(1)
fn = block[block.index("fn handle("):].rstrip("\n").splitlines()
doc = [re.sub(r"^//! ?(# ?)?", "", l) for l in open("core/src/lib.rs", encoding="utf-8") if l.startswith("//!")]
doc = [l.rstrip("\n") for l in doc]
starts = [i for i, l in enumerate(doc) if l == fn[0]]
if not any(doc[i:i + len(fn)] == fn for i in starts):
    sys.exit("FAIL: README.md's Rust `fn handle` differs from the crate-root doctest in core/src/lib.rs")
print(f"README Rust handler ({len(fn)} lines) = the crate-root doctest's")
PY
