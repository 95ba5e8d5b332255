#!/usr/bin/env bash
# Fuzzing with cargo-fuzz (libFuzzer). `make fuzz` runs a short smoke of
# every target; FUZZ_SECONDS=600 make fuzz runs each for ten minutes.
# Needs a nightly toolchain (rustup's) for the sanitizer flags.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_EACH=${FUZZ_SECONDS:-20}
TOOLS="$ROOT/target/tools"
if ! "$TOOLS/bin/cargo-fuzz" --version >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz --version 0.13.2 --root "$TOOLS"
fi
export PATH="$TOOLS/bin:$PATH"
CORPUS="$ROOT/target/fuzz-corpus"
python3 fuzz/seeds.py "$CORPUS"
# Every input a fuzzing run once failed on starts the corpus too (make test
# replays them on stable: scripts/test-rust.sh).
cp -R fuzz/regressions/. "$CORPUS/"
cd fuzz
# FUZZ_TARGETS="canonical begin" limits the run to some targets; by default
# every [[bin]] of Cargo.toml runs, as scripts/test-rust.sh replays them.
ALL_TARGETS=$(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -vx snodo-fuzz)
for target in ${FUZZ_TARGETS:-$ALL_TARGETS}; do
    echo "== fuzz: $target for ${SECONDS_EACH}s"
    mkdir -p "$CORPUS/$target"
    log="$ROOT/target/fuzz-$target.log"
    if ! cargo +nightly fuzz run "$target" "$CORPUS/$target" -- \
        -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
        tail -40 "$log" >&2
        echo "fuzz: $target failed (crash, timeout or leak); artifacts in fuzz/artifacts/$target" >&2
        exit 1
    fi
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
done
echo "fuzz: every target ran without a crash"
