#!/usr/bin/env bash
# libsnodo suite: build the test suites' libsnodo (cargo feature
# test-knobs: the vectors' fixed clock and seeded ids), regenerate and
# check include/snodo.h with the release build, check exported symbols,
# install the release build to a temporary prefix (as `make install`) and
# build the examples with pkg-config against it, show that it refuses the
# test-only settings, then run the C tests linked against the test build's
# .so and .a, under AddressSanitizer + UBSan, and under valgrind; last,
# build the C benches (ffi/benches) as `make bench` does and run each
# briefly.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

release="${CARGO_TARGET_DIR:-target}/release"
out="${CARGO_TARGET_DIR:-target}/ctest"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
major="${version%%.*}"
rm -rf "$out"
mkdir -p "$out"
# The examples print tokens and the bridge's request ids, which differ on
# every run of the release build (real clock, random ids): masked before
# the diff with their .expected files.
mask() { sed -E 's/"requestState":"[^"]*"/"requestState":"<token>"/g; s/snodo-[0-9a-f]{16}-/snodo-<tag>-/g' "$@"; }

echo "== c: the test suites' libsnodo (cargo feature test-knobs)"
# Built first, so that target/release ends holding the release build.
# Copied aside with its SONAME link: the C tests below link this copy.
cargo build --release --locked -p snodo-ffi --features test-knobs
testlib="$out/testlib"
mkdir -p "$testlib"
cp "$release/libsnodo.so" "$testlib/libsnodo.so.$major"
ln -s "libsnodo.so.$major" "$testlib/libsnodo.so"
cp "$release/libsnodo.a" "$testlib/libsnodo.a"
# make install refuses it (scripts/install.sh looks for its marker).
if SNODO_SKIP_BUILD=1 bash scripts/install.sh "$out/never-installed" >"$out/install-test-build.log" 2>&1; then
  echo "FAIL: scripts/install.sh installed a libsnodo built with test-knobs" >&2
  exit 1
fi
grep -q "built with the cargo feature test-knobs" "$out/install-test-build.log"
[ ! -e "$out/never-installed" ] || { echo "FAIL: install wrote files before refusing" >&2; exit 1; }
echo "test build in $testlib; make install refuses it"

echo "== c: build libsnodo, regenerate include/snodo.h (cbindgen $(sed -n '/^name = "cbindgen"$/{n;s/version = //p}' Cargo.lock))"
cp include/snodo.h "$out/snodo.h.committed"
cargo build --release --locked -p snodo-ffi --features header
if ! cmp -s include/snodo.h "$out/snodo.h.committed"; then
  diff -u "$out/snodo.h.committed" include/snodo.h | head -n 40 || true
  echo "FAIL: include/snodo.h was stale; the regenerated header is now in place: commit it" >&2
  exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
  git ls-files --error-unmatch include/snodo.h >/dev/null 2>&1; then
  git diff --exit-code -- include/snodo.h
fi
if command -v g++ >/dev/null; then
  g++ -fsyntax-only -Wall -Wextra -Werror -x c++ include/snodo.h # the header is C++-clean too
fi

# The deprecated builders warn at compile time (SNODO_DEPRECATED): a call
# must fail under -Werror, and compile with the warning silenced.
printf '#include "snodo.h"\nint f(snodo_question **q) { return (int)snodo_list_roots(q) + (int)snodo_sampling(0, 0, q); }\n' >"$out/deprecated.c"
if gcc -std=c11 -Werror -Iinclude -c "$out/deprecated.c" -o "$out/deprecated.o" 2>"$out/deprecated.err"; then
  echo "FAIL: calling snodo_sampling/snodo_list_roots compiled without a deprecation warning" >&2
  exit 1
fi
grep -q "snodo_list_roots.*deprecated\|deprecated.*snodo_list_roots" "$out/deprecated.err"
gcc -std=c11 -Werror -Wno-deprecated-declarations -Iinclude -c "$out/deprecated.c" -o "$out/deprecated.o"

echo "== c: exported symbols"
nm -D --defined-only "$release/libsnodo.so" | awk '{print $3}' | sort >"$out/exported.txt"
if grep -v '^snodo_' "$out/exported.txt"; then
  echo "FAIL: libsnodo.so exports symbols outside snodo_*" >&2
  exit 1
fi
grep -v '^ *//' include/snodo.h | grep -oE '\bsnodo_[a-z0-9_]+\(' | tr -d '(' | sort -u >"$out/declared.txt"
if ! diff -u "$out/declared.txt" "$out/exported.txt"; then
  echo "FAIL: the header's functions and the library's exports differ" >&2
  exit 1
fi
echo "$(wc -l <"$out/exported.txt") symbols, all snodo_*, all declared in include/snodo.h"

echo "== c: make install into a temporary prefix, example via pkg-config"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
SNODO_SKIP_BUILD=1 bash scripts/install.sh "$prefix" >/dev/null
for f in lib/libsnodo.so lib/libsnodo.a include/snodo.h lib/pkgconfig/snodo.pc lib/pkgconfig/snodo-static.pc; do
  [ -f "$prefix/$f" ] || { echo "FAIL: install did not create $f" >&2; exit 1; }
done
if command -v pkg-config >/dev/null; then
  pc_cflags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags snodo)"
  pc_libs="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs snodo)"
  [ "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion snodo)" = "$version" ]
else
  # No pkg-config on this machine: read the two fields from the .pc itself.
  echo "note: pkg-config not found; reading snodo.pc directly"
  pc_field() { sed -n "s/^$1: //p" "$prefix/lib/pkgconfig/snodo.pc" |
    sed -e "s|\${libdir}|$prefix/lib|g" -e "s|\${includedir}|$prefix/include|g"; }
  pc_cflags="$(pc_field Cflags)"
  pc_libs="$(pc_field Libs)"
fi
# shellcheck disable=SC2086 # the pkg-config output is a list of flags
gcc -std=c11 -Wall -Wextra -Werror examples/c/hello.c $pc_cflags $pc_libs -Wl,-rpath,"$prefix/lib" -o "$out/hello"
# grep -q on a here-string, not a pipe: under pipefail, grep -q exiting early
# would fail the script through ldd's SIGPIPE.
grep -q "$prefix/lib/libsnodo.so" <<<"$(ldd "$out/hello")"
"$out/hello" >"$out/hello.out"
diff -u examples/c/hello.expected <(mask "$out/hello.out")
echo "example: output matches examples/c/hello.expected"
# The same handler served to a 2025-era session (legacy bridge).
# shellcheck disable=SC2086
gcc -std=c11 -Wall -Wextra -Werror examples/c/legacy.c $pc_cflags $pc_libs -Wl,-rpath,"$prefix/lib" -o "$out/legacy"
"$out/legacy" >"$out/legacy.out"
diff -u examples/c/legacy.expected <(mask "$out/legacy.out")
echo "example: output matches examples/c/legacy.expected"

echo "== c: the once driver of ffi/README.md compiles against the header"
# The README's second C block (the first is the handler program that
# scripts/test-c-readme.sh runs), so that its calls track the API.
awk '/^```/ { if (inb) { inb = 0; next } if ($0 == "```c") { n++; if (n == 2) { inb = 1; next } } } inb { print }' \
  ffi/README.md >"$out/once_readme.c"
grep -q 'snodo_once_run_new' "$out/once_readme.c" || { echo "FAIL: no once driver in ffi/README.md" >&2; exit 1; }
gcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Iinclude -c "$out/once_readme.c" -o "$out/once_readme.o"

echo "== c: the once machine over Redis with hiredis (examples/c/once_redis.c)"
# The recipe of ffi/README.md "At most once", compiled and run against a
# real Redis. hiredis comes from Debian (libhiredis-dev); a machine that
# cannot install it fails this suite, it does not skip the recipe.
if ! [ -f /usr/include/hiredis/hiredis.h ]; then
  echo "note: libhiredis-dev missing; installing it from Debian packages"
  if ! command -v apt-get >/dev/null ||
    ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libhiredis-dev; } >&2; then
    echo "FAIL: libhiredis-dev is missing and apt-get could not install it" >&2
    exit 1
  fi
fi
hiredis_libs="-lhiredis"
if command -v pkg-config >/dev/null && pkg-config --exists hiredis; then
  hiredis_libs="$(pkg-config --libs hiredis)"
fi
# shellcheck source=scripts/redis.sh
source scripts/redis.sh
redis_ensure_installed
redis_start
trap 'redis_stop; rm -rf "$prefix"' EXIT
# shellcheck disable=SC2086 # pkg-config output is a list of flags
gcc -std=c11 -Wall -Wextra -Werror examples/c/once_redis.c $pc_cflags $pc_libs $hiredis_libs \
  -Wl,-rpath,"$prefix/lib" -o "$out/once_redis"
"$out/once_redis" >"$out/once_redis.out"
diff -u examples/c/once_redis.expected <(mask "$out/once_redis.out")
# The example's records are the core's (a fleet shares them with Rust,
# Python and Node): one hash per flow, <prefix>flow:{<flow id>}, every one
# of the example's four booked flows completed, two of them at fence 2 (the
# claim taken over after a lapsed lease, and the one rebooked after a
# released claim).
keys="$(redis-cli -p "$SNODO_REDIS_PORT" --scan --pattern 'snodo:once:example:*')"
[ "$(wc -w <<<"$keys")" -eq 4 ] || { echo "FAIL: expected 4 flow records, got: $keys" >&2; exit 1; }
fences=""
for k in $keys; do
  case "$k" in
    snodo:once:example:*:flow:\{*\}) ;;
    *) echo "FAIL: $k is not a flow key" >&2; exit 1 ;;
  esac
  [ "$(redis-cli -p "$SNODO_REDIS_PORT" TYPE "$k")" = hash ] || { echo "FAIL: $k is not a hash" >&2; exit 1; }
  state="$(redis-cli -p "$SNODO_REDIS_PORT" HGET "$k" state)"
  [ "$state" = done ] || { echo "FAIL: $k is '$state', not done" >&2; exit 1; }
  fences="$fences$(redis-cli -p "$SNODO_REDIS_PORT" HGET "$k" fence)"
done
[ "$(tr -d 2 <<<"$fences")" = 11 ] || { echo "FAIL: fences $fences, expected two 1s and two 2s" >&2; exit 1; }
# Under valgrind too: hiredis and libsnodo strings and handles are all freed.
valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite "$out/once_redis" >/dev/null
# An evicting policy: the example refuses to start (the start-up check).
redis-cli -p "$SNODO_REDIS_PORT" CONFIG SET maxmemory-policy allkeys-lru >/dev/null
if "$out/once_redis" >"$out/once_redis.evicting" 2>&1; then
  echo "FAIL: once_redis started on a Redis with maxmemory-policy allkeys-lru" >&2
  exit 1
fi
grep -q 'refusing to start: .*allkeys-lru' "$out/once_redis.evicting"
redis_stop
echo "example: output matches examples/c/once_redis.expected; Redis holds the core's flow records; an evicting Redis is refused"

echo "== c: ffi/README.md as written (install block, complete program, rpath, --static)"
bash scripts/test-c-readme.sh

echo "== c: the installed libsnodo refuses the test-only settings (tests/c/release/knobs.c)"
# shellcheck disable=SC2086 # pkg-config output is a list of flags
gcc -std=c11 -Wall -Wextra -Werror tests/c/release/knobs.c $pc_cflags $pc_libs -Wl,-rpath,"$prefix/lib" -o "$out/knobs"
grep -q "$prefix/lib/libsnodo.so" <<<"$(ldd "$out/knobs")"
"$out/knobs"
valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite "$out/knobs" >/dev/null
# The same program against the test build fails: it tells the two apart.
gcc -std=c11 -Wall -Wextra -Werror -Iinclude tests/c/release/knobs.c -L"$testlib" -lsnodo -Wl,-rpath,"$testlib" \
  -o "$out/knobs_testlib"
if "$out/knobs_testlib" >"$out/knobs_testlib.out" 2>&1; then
  echo "FAIL: tests/c/release/knobs.c passed against the test build: it cannot tell the builds apart" >&2
  exit 1
fi
grep -q "fixed_time accepted" "$out/knobs_testlib.out"
echo "the release build refuses fixed_time and test_random_seed; the test build accepts them"

echo "== c: tests (against the test build)"
cflags=(-std=c11 -Wall -Wextra -Werror -Iinclude "-DCARGO_VERSION=\"$version\"" -pthread)
srcs=(tests/c/*.c)
static_libs=(-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc)
# The vectors need the test-only settings: linked against the test build
# (its copy carries the SONAME link, libsnodo.so.MAJOR, programs need).
gcc "${cflags[@]}" "${srcs[@]}" -L"$testlib" -lsnodo -Wl,-rpath,"$testlib" -o "$out/test_shared"
gcc "${cflags[@]}" "${srcs[@]}" "$testlib/libsnodo.a" "${static_libs[@]}" -o "$out/test_static"
gcc "${cflags[@]}" -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
  "${srcs[@]}" "$testlib/libsnodo.a" "${static_libs[@]}" -o "$out/test_asan"
grep -q "$testlib/libsnodo.so" <<<"$(ldd "$out/test_shared")"
if grep -q libsnodo <<<"$(ldd "$out/test_static")"; then
  echo "FAIL: the static test binary loads libsnodo.so" >&2
  exit 1
fi

echo "-- shared (.so)"
"$out/test_shared" tests/vectors
echo "-- static (.a)"
"$out/test_static" tests/vectors
# The plain runs above do the full 100 000-operation thread test
# (tests/c/threads.c); ASan and valgrind slow it 10-50x, so those two runs
# use a reduced per-thread flow count (250 flows x 8 threads x 6 = 12 000
# operations), enough to exercise the same sharing under the checkers.
reduced_flows=250
echo "-- AddressSanitizer + UndefinedBehaviorSanitizer (static)"
SNODO_TEST_THREAD_FLOWS=$reduced_flows ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$out/test_asan" tests/vectors
echo "-- valgrind (static)"
SNODO_TEST_THREAD_FLOWS=$reduced_flows valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
  "$out/test_static" tests/vectors

echo "== c: the benches build and run (ffi/benches, a short smoke run of what make bench times)"
# Compiled with scripts/bench.sh's flags, so a header or API change that
# breaks them fails here rather than at the next `make bench`. Linked against
# the installed copy for the SONAME (bench.sh makes a symlink instead). Run
# briefly; the numbers are not checked, only that both programs work.
payloads=core/benches/payloads
gcc -std=c11 -O2 -Wall -Wextra -Werror -pthread -Iinclude ffi/benches/bench.c \
  -L"$prefix/lib" -lsnodo -Wl,-rpath,"$prefix/lib" -o "$out/cbench"
gcc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude ffi/benches/rss.c \
  -L"$prefix/lib" -lsnodo -Wl,-rpath,"$prefix/lib" -o "$out/crss"
BENCH_SAMPLE_MS=1 BENCH_REPEATS=1 "$out/cbench" "$payloads" "$out/c.json"
grep -q '"threads":2' "$out/c.json"
# 2 000 flows instead of 100 000; the flat-RSS check still applies.
"$out/crss" "$payloads" "$out/c-memory.json" 2000
grep -q '"flows":2000,' "$out/c-memory.json"
echo "benches: bench.c and rss.c built with -Werror and ran (1 ms sample; 2 000 flows)"
