#!/usr/bin/env bash
# Python suite: build the snodo-mrtr wheel twice, install each into a fresh
# venv outside the repository, and test it:
#   - the test wheel (cargo feature test-knobs: `fixed_time=`,
#     `test_random_seed=`, which the vectors and pinned tokens need): pytest,
#     mypy.stubtest and docs/wire.md's bytes;
#   - the release wheel (maturin's default, what every install path builds):
#     scripts/test-python-package.sh, which also shows it refusing the knobs.
# The example server (bindings-python/examples) is scripts/test-examples.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TERM_COLOR=never
VENV="$ROOT/.venv"
REQS="$ROOT/bindings-python/requirements-test.txt"

echo "== python: tools"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQS"
# One interpreter for every pyo3 build: no rebuild thrash (maturin and cargo would otherwise fight over pyo3's build script).
export PYO3_PYTHON="$VENV/bin/python"

echo "== python: maturin build (release profile, the test wheel: --features test-knobs)"
# maturin stamps the wheel's SBOM with the build time and a random serial
# unless SOURCE_DATE_EPOCH is set: fixed to the last commit, a rebuild of the
# same tree gives the same bytes (checked below).
SOURCE_DATE_EPOCH="$(git log -1 --format=%ct 2>/dev/null || echo 315532800)"
export SOURCE_DATE_EPOCH
# Its own directory: both wheels have the same file name. Cargo keeps both
# builds of the crates the feature changes, so a rerun rebuilds neither.
rm -rf target/wheels-test
"$VENV/bin/maturin" build --release --locked -m bindings-python/Cargo.toml -i "$VENV/bin/python" \
  --features test-knobs --out target/wheels-test
TEST_WHEEL=$(ls target/wheels-test/snodo_mrtr-*.whl)

echo "== python: fresh venv outside the repository"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 -m venv "$WORK/venv"
PY="$WORK/venv/bin/python"
"$PY" -m pip install -q --disable-pip-version-check -r "$REQS" "$TEST_WHEEL"

# pytest exit code 5 means it collected nothing: count it as a failure.
run_pytest() {
  local rc=0
  (cd "$WORK" && SNODO_EXPECT_INSTALLED=1 SNODO_VECTORS_DIR="$ROOT/tests/vectors" \
    timeout 600 "$PY" -m pytest -q -p no:cacheprovider --rootdir "$ROOT/bindings-python" "$@") || rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure" >&2
    return 1
  fi
  return "$rc"
}

echo "== python: pytest (installed test wheel, a throwaway Redis and Redis Cluster for the once store)"
# tests/test_once_redis.py needs a real Redis (SNODO_REDIS_URL) and a real
# Redis Cluster (SNODO_REDIS_CLUSTER_URLS) and fails, never skips, without
# them: redis.sh installs and starts both or fails loudly.
# shellcheck source=scripts/redis.sh
source "$ROOT/scripts/redis.sh"
redis_ensure_installed
trap 'redis_stop; redis_cluster_stop; rm -rf "$WORK"' EXIT
redis_start
redis_cluster_start
# Run from the temp dir so nothing in the repository shadows the wheel; the
# conftest asserts snodo_mrtr comes from the venv's site-packages.
run_pytest "$ROOT/bindings-python/tests"

echo "== python: mypy.stubtest"
(cd "$WORK" && "$PY" -m mypy.stubtest --allowlist "$ROOT/bindings-python/stubtest-allowlist.txt" snodo_mrtr)

echo "== python: docs/wire.md bytes (the other doc blocks: scripts/test-docs.sh)"
(cd "$WORK" && "$PY" "$ROOT/scripts/wire-doc.py")

echo "== python: maturin build (release, the wheel users get: no test knobs)"
rm -rf target/wheels
"$VENV/bin/maturin" build --release --locked -m bindings-python/Cargo.toml -i "$VENV/bin/python" --out target/wheels
WHEEL=$(ls target/wheels/snodo_mrtr-*.whl)
bash "$ROOT/scripts/test-python-package.sh" "$WHEEL"
