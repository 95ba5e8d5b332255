#!/usr/bin/env bash
# make bench: snodo beside the HMAC floor, the official SDKs' requestState
# codecs and the SDKs' own state handling, then one table
# (scripts/bench-table.py) whose guard rows say [met] or [MISSED].
#
#   core     criterion (core/benches/token.rs): seal, open (v1 and v2), begin,
#            decide and a three-round flow for 256 B / 4 KiB state and 32 KiB
#            arguments, each beside a bare HMAC-SHA256 + base64url of the same
#            bytes; core/benches/growth.rs: cost against size;
#            core/benches/memory.rs: allocations and RSS over 100 000 flows;
#            core/benches/once.rs: run_once in memory and a round trip to a
#            loopback Redis (scripts/redis.sh starts it);
#   python   bindings-python/benches/bench.py: snodo_mrtr beside mcp 2.3.0,
#            and growth against size; bindings-python/benches/memory.py:
#            peak RSS over 100 000 flows;
#   node     bindings-node/benches/bench.mjs: snodo-mrtr beside
#            @modelcontextprotocol/server 2.4.0, and growth against size;
#            bindings-node/benches/memory.mjs: RSS over 100 000 flows;
#   sdk      bindings-python/benches/sdk_bench.py, bindings-node/benches/sdk_bench.mjs:
#            a two-round tool flow inside each official SDK server, served by
#            snodo vs by the SDK's own state handling; bindings-python/benches/
#            fastmcp_bench.py: the same inside FastMCP 4.2.3 (information);
#            integrations/rmcp/examples/bench_flow.rs: the same inside rmcp 3.11
#            (information);
#   c        ffi/benches/bench.c: begin + decide calls/s through libsnodo,
#            1 and 2 threads; ffi/benches/rss.c: peak RSS over 100 000 flows;
#   servers  interop/load/run.py bench: flows/s of the two example servers
#            (bindings-python/examples/server.py, bindings-node/examples/server.mjs)
#            over HTTP at 1, 4, 8 and 64 clients.
#
# Everything is installed from the registries at pinned versions
# (bindings-python/benches/requirements.txt into target/bench-venv,
# bindings-node/benches/package-lock.json with npm ci). Payloads are the
# files in core/benches/payloads/, the same bytes for every language.
#
# The per-round rows of the bindings are also set beside a core timed in the
# same seconds: this machine's speed drifts between phases, so criterion's
# begin + decide, minutes earlier, is a poor denominator.
# core/examples/round_sampler.rs, built with criterion's own profile
# (`--profile bench`), runs as a child of each binding bench
# (BENCH_CORE_SAMPLER, BENCH_CORE_BATCH), which takes one core sample beside
# its rounds in every repeat. One sample right after criterion checks the
# sampler against criterion.
#
# Knobs: BENCH_QUICK=1 for a short development run; BENCH_SAMPLE_MS and
# BENCH_REPEATS for the binding benches (default 50 ms x 11 interleaved
# repeats); CRITERION_ARGS to override criterion's timing flags;
# BENCH_CORE_BATCH for the round sampler's decide batch (default: the
# criterion decide row's, benches/common DECIDE_BATCH); BENCH_SERVER_SECONDS
# and BENCH_SERVER_REPEAT for each run of the server bench (default 3 s x 3).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TERM_COLOR=never
# The repository's target/: the C bench links target/release/libsnodo.so and
# the table reads target/criterion.
export CARGO_TARGET_DIR="$ROOT/target"
OUT="$ROOT/target/bench"
VENV="$ROOT/target/bench-venv"
PAYLOADS="$ROOT/core/benches/payloads"
mkdir -p "$OUT"
# Only this run's results reach the table: a part that fails to write its
# file leaves it missing, never stale.
rm -f "$OUT"/*.json "$OUT"/memory.md

if [ "${BENCH_QUICK:-0}" = 1 ]; then
  : "${BENCH_SAMPLE_MS:=15}" "${BENCH_REPEATS:=5}" "${BENCH_SERVER_SECONDS:=1}" "${BENCH_SERVER_REPEAT:=1}"
  : "${CRITERION_ARGS:=--warm-up-time 0.3 --measurement-time 1 --sample-size 10}"
else
  : "${BENCH_SAMPLE_MS:=50}" "${BENCH_REPEATS:=11}" "${BENCH_SERVER_SECONDS:=3}" "${BENCH_SERVER_REPEAT:=3}"
  : "${CRITERION_ARGS:=--warm-up-time 1 --measurement-time 3 --sample-size 30}"
fi
export BENCH_SAMPLE_MS BENCH_REPEATS

step() { printf '\n== bench: %s (%ss)\n' "$1" "$SECONDS"; }

step "machine"
echo "nproc: $(nproc)"
grep -m1 '^model name' /proc/cpuinfo || true
if grep -qw sha_ni /proc/cpuinfo; then echo "sha_ni: yes (sha2 uses it at run time)"; else echo "sha_ni: no"; fi
uptime

step "tools: python venv (pinned), npm ci (pinned)"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r bindings-python/benches/requirements.txt \
  -r interop/servers/python/requirements-fastmcp.txt
(cd bindings-node && npm ci --no-audit --no-fund --loglevel=error)
(cd bindings-node/benches && npm ci --no-audit --no-fund --loglevel=error)

step "core (criterion)"
rm -rf target/criterion/core
# shellcheck disable=SC2086 # CRITERION_ARGS is a list of flags
cargo bench --locked -p snodo --bench token -- --noplot $CRITERION_ARGS 2>&1 | grep -E '^core/|time:' || true
[ -d target/criterion/core ] || { echo "bench: criterion produced no results" >&2; exit 1; }

step "core round sampler: begin+decide of the 256 B state, sampled beside each binding's rounds"
# `--profile bench`: the code generation of the criterion bench above (this
# workspace overrides neither bench nor release, so both are release's).
cargo build --locked --profile bench -p snodo --example round_sampler 2>&1 | tail -n 1
export BENCH_CORE_SAMPLER="$ROOT/target/release/examples/round_sampler"
# decide's batch: the sampler's default is criterion's (benches/common
# DECIDE_BATCH). A BENCH_CORE_BATCH set by the caller wins (e.g. 1 for
# decides one at a time, as a server and the binding benches run them).
# Empty means the default here and in every binding bench.
export BENCH_CORE_BATCH="${BENCH_CORE_BATCH:-}"
# The check: one 2 s sample now, beside criterion's rows of a moment ago.
printf 'sample 2000\nquit\n' | "$BENCH_CORE_SAMPLER" ${BENCH_CORE_BATCH:+"$BENCH_CORE_BATCH"} | tail -n 1 > "$OUT/core-sampler.json"
echo "round_sampler (decide batch ${BENCH_CORE_BATCH:-its default}): $(cat "$OUT/core-sampler.json")"

step "core growth (criterion) and memory (counting allocator, RSS over 100 000 flows)"
rm -rf target/criterion/growth
# shellcheck disable=SC2086
cargo bench --locked -p snodo --bench growth -- --noplot $CRITERION_ARGS 2>&1 | grep -E '^growth/|time:' || true
# The bench exits 1 when RSS grows after warm-up: the run goes on.
cargo bench --locked -p snodo --bench memory | tee "$OUT/memory.md" ||
  echo "core memory: RSS grew after warm-up (see its table above)"

step "core run_once and a task's life (criterion): in-memory store, and round trips to a loopback Redis"
rm -rf target/criterion/once
# shellcheck source=scripts/redis.sh
source scripts/redis.sh
redis_ensure_installed
redis_start
trap redis_stop EXIT
# shellcheck disable=SC2086
cargo bench --locked -p snodo --features redis --bench once -- --noplot $CRITERION_ARGS 2>&1 |
  grep -E '^once/|time:' || true
# A task's whole life (core/benches/tasks.rs), on the same stores.
rm -rf target/criterion/tasks
# shellcheck disable=SC2086
cargo bench --locked -p snodo --features redis --bench tasks -- --noplot $CRITERION_ARGS 2>&1 |
  grep -E '^tasks/|time:' || true
redis_stop
[ -d target/criterion/once/redis_run_once ] || { echo "bench: the Redis run_once bench produced no result" >&2; exit 1; }
[ -d target/criterion/tasks/redis_task_life ] || { echo "bench: the Redis task bench produced no result" >&2; exit 1; }

step "python: build the wheel, run"
# One interpreter for every pyo3 build (docs/toolchain notes): no rebuild thrash.
export PYO3_PYTHON="$VENV/bin/python"
rm -rf target/bench-wheels
"$VENV/bin/maturin" build --release --locked -m bindings-python/Cargo.toml -i "$VENV/bin/python" \
  --out target/bench-wheels 2>&1 | tail -n 1
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps target/bench-wheels/snodo_mrtr-*.whl
# Run from outside the repository so the installed wheel is what is measured.
(cd "$OUT" && "$VENV/bin/python" "$ROOT/bindings-python/benches/bench.py" "$PAYLOADS" "$OUT/python.json")
# Peak RSS over 100 000 two-round flows through the wheel (the script exits
# 1 on growth: the run goes on, the table shows the readings).
(cd "$OUT" && "$VENV/bin/python" "$ROOT/bindings-python/benches/memory.py" "$PAYLOADS" "$OUT/python-memory.json") ||
  echo "python memory: peak RSS grew after warm-up (see the table)"

step "node: build the addon, run"
# Never --use-napi-cross / --cross-compile: they download toolchains.
(cd bindings-node && npx napi build --platform --release --no-const-enum --runtime-string-enum 2>&1 | tail -n 1)
node bindings-node/benches/bench.mjs "$PAYLOADS" "$OUT/node.json"
# RSS over 100 000 two-round flows through the addon, the V8 young
# generation pinned (memory.mjs says why; the script exits 1 on growth: the
# run goes on, the table shows the readings).
node --expose-gc --max-semi-space-size=1 bindings-node/benches/memory.mjs "$PAYLOADS" "$OUT/node-memory.json" ||
  echo "node memory: RSS grew after warm-up (see the table)"

step "inside the official SDKs: snodo vs the SDK's own state handling, per two-round flow"
# The same tool through each SDK's server class in process: served by snodo
# (snodo_mrtr.mcp / snodo-mrtr/mcp) and written for the SDK alone (its own
# requestState sealing), plus a one-round floor. The Python SDK comes from
# bindings-python/benches/requirements.txt, the TS SDK from bindings-node's lockfile.
(cd "$OUT" && "$VENV/bin/python" "$ROOT/bindings-python/benches/sdk_bench.py" "$OUT/sdk-python.json")
# The same flow inside FastMCP (snodo_mrtr.fastmcp vs FastMCP's guard pattern): information, no guard.
(cd "$OUT" && "$VENV/bin/python" "$ROOT/bindings-python/benches/fastmcp_bench.py" "$OUT/fastmcp-python.json")
node bindings-node/benches/sdk_bench.mjs "$OUT/sdk-node.json" 2>&1 | grep -v "responseMode: 'json' drops"
# The same flow inside rmcp 3.11 (snodo-rmcp vs rmcp's own codec, and two plain calls): information, no guard.
cargo build --release --locked -p snodo-rmcp --example bench_flow 2>&1 | tail -n 1
target/release/examples/bench_flow "$OUT/rmcp.json"

step "c: libsnodo, run"
cargo build --release --locked -p snodo-ffi 2>&1 | tail -n 1
# The program needs the SONAME libsnodo.so.MAJOR, which cargo does not create.
ln -sfn libsnodo.so "target/release/libsnodo.so.$(sed -n 's/^version = "\([0-9]*\)\..*"$/\1/p' Cargo.toml | head -n 1)"
gcc -std=c11 -O2 -Wall -Wextra -Werror -pthread -Iinclude ffi/benches/bench.c \
  -Ltarget/release -lsnodo -Wl,-rpath,"$ROOT/target/release" -o "$OUT/cbench"
"$OUT/cbench" "$PAYLOADS" "$OUT/c.json"
# Peak RSS over 100 000 two-round flows through libsnodo.
gcc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude ffi/benches/rss.c \
  -Ltarget/release -lsnodo -Wl,-rpath,"$ROOT/target/release" -o "$OUT/crss"
"$OUT/crss" "$PAYLOADS" "$OUT/c-memory.json" || echo "c memory: peak RSS grew after warm-up (see the table)"

step "example servers over HTTP (interop/load/run.py bench)"
# flows/s and per-flow p50/p99 of each example server at 1, 4, 8 and 64
# keep-alive clients (two-round preferred_color flows, every 4th token also
# replayed as another user), from the wheel and the addon built above. The
# bench venv has what the Python example needs beside the wheel (uvicorn and
# Starlette, pinned as in bindings-python/examples/requirements.txt); the
# Node example imports the addon from bindings-node. run.py exits 1 when a
# flow failed: the run goes on, the table says which guard missed.
SNODO_LOAD_PYTHON="$VENV/bin/python" "$VENV/bin/python" interop/load/run.py bench \
  --server python-example --server node-example \
  --seconds "$BENCH_SERVER_SECONDS" --repeat "$BENCH_SERVER_REPEAT" --out "$OUT/servers.json" ||
  echo "servers: some flows failed (see the table)"

step "table"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$VENV/bin/python" scripts/bench-table.py target/criterion "$OUT"
