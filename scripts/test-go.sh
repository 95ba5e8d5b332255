#!/usr/bin/env bash
# Go suite: a language snodo ships no binding for uses
# libsnodo through cgo with nothing but include/snodo.h. Installs Debian's
# golang-go when `go` is missing, builds the test suites' libsnodo (cargo
# feature test-knobs: the vectors' fixed clock and seeded ids, which the
# installed libsnodo refuses) into a temporary directory, then runs `go
# vet`, `go test` (every vector through libsnodo) and, where the toolchain
# supports it, `go test -race`.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

if ! command -v go >/dev/null; then
  echo "== go: installing golang-go (Debian)"
  if [ "$(id -u)" = 0 ]; then sudo=(); else sudo=(sudo); fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq golang-go >/dev/null
fi
# Never download a toolchain (Go >= 1.21 would, for a newer go.mod line) and
# never fetch modules: the package uses the standard library only.
export GOTOOLCHAIN=local GOPROXY=off GOSUMDB=off
echo "== go: $(go version)"

prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
echo "== go: the test suites' libsnodo (cargo feature test-knobs) into a temporary directory"
release="${CARGO_TARGET_DIR:-target}/release"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
major="${version%%.*}"
cargo build --release --locked -p snodo-ffi --features test-knobs 2>&1 | tail -n 1
# The library under its SONAME (what the test binary loads) and the link
# -lsnodo finds; `make install` refuses this build, so it is copied here.
mkdir -p "$prefix/lib"
cp "$release/libsnodo.so" "$prefix/lib/libsnodo.so.$major"
ln -s "libsnodo.so.$major" "$prefix/lib/libsnodo.so"
# The package links -lsnodo itself (#cgo LDFLAGS); the environment gives the
# header's and the library's directories, and an rpath so the test binary
# finds libsnodo.so.0 at run time without LD_LIBRARY_PATH.
export CGO_ENABLED=1 CGO_CFLAGS="-I$PWD/include" CGO_LDFLAGS="-L$prefix/lib -Wl,-rpath,$prefix/lib"
export SNODO_VECTORS="${SNODO_VECTORS:-$PWD/tests/vectors}"

cd examples/go
echo "== go: vet"
go vet ./...
echo "== go: test"
# Verbose into a log: on failure all of it; on success the per-file case
# counts and go test's own verdict lines.
log="$prefix/go-test.log"
if ! go test -count=1 -v ./... >"$log" 2>&1; then
  cat "$log"
  exit 1
fi
grep -E '(: [0-9]+ cases|vectors: [0-9]+ cases|^(ok|PASS))' "$log" | sed 's/^ *//'
# The race detector needs cgo and a supported platform (linux/amd64 is);
# it runs the same vectors, plus the goroutine-sharing test, instrumented.
if go env GOARCH | grep -qE '^(amd64|arm64)$'; then
  echo "== go: test -race"
  go test -race -count=1 ./...
fi
