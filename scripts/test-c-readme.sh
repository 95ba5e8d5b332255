#!/usr/bin/env bash
# ffi/README.md as a newcomer reads it: runs its install-and-build block
# against a temporary HOME, with its complete C program saved as colour.c,
# then checks the SONAME, the versioned symlinks, the rpath, the two rounds'
# output, and the static link block (pkg-config snodo-static) beside the .so.
# Called by scripts/test-c.sh after libsnodo is built (SNODO_SKIP_BUILD=1).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
major="${version%%.*}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The n-th fenced block of a given language in ffi/README.md, verbatim.
block() {
  awk -v lang="$1" -v want="$2" '
    /^```/ { if (inb) { inb = 0; next } if ($0 == "```" lang) { n++; if (n == want) { inb = 1; next } } }
    inb { print }' "$ROOT/ffi/README.md"
}
block c 1 >"$work/colour.c"
block sh 1 >"$work/build.sh"
grep -q 'int main' "$work/colour.c" || { echo "FAIL: no complete C program in ffi/README.md" >&2; exit 1; }
grep -q 'make -C snodo install' "$work/build.sh" || { echo "FAIL: no install block in ffi/README.md" >&2; exit 1; }
ln -s "$ROOT" "$work/snodo" # the block runs from the checkout's parent
mkdir "$work/home"
(cd "$work" && HOME="$work/home" SNODO_SKIP_BUILD=1 PKG_CONFIG_PATH= bash -euo pipefail build.sh >"$work/build.log")
# The program's lines are "HTTP-status body"; make and install print too.
grep -E '^[0-9]{3} ' "$work/build.log" >"$work/out.txt" || true
prefix="$work/home/.local"

echo "-- installed layout"
lib="$prefix/lib"
[ "$(readlink "$lib/libsnodo.so")" = "libsnodo.so.$major" ]
[ "$(readlink "$lib/libsnodo.so.$major")" = "libsnodo.so.$version" ]
[ -f "$lib/libsnodo.so.$version" ] && [ ! -L "$lib/libsnodo.so.$version" ]
grep -q "Library soname: \[libsnodo.so.$major\]" <<<"$(readelf -d "$lib/libsnodo.so.$version")"
# The program needs the SONAME, found through its rpath.
grep -q "NEEDED.*\[libsnodo.so.$major\]" <<<"$(readelf -d "$work/colour")"
grep -q "R.*PATH.*\[$lib\]" <<<"$(readelf -d "$work/colour")"
grep -q "libsnodo.so.$major => $lib/libsnodo.so.$major" <<<"$(ldd "$work/colour")"
echo "libsnodo.so -> libsnodo.so.$major -> libsnodo.so.$version, SONAME and rpath as documented"

echo "-- the README program's two rounds"
check_output() {
  local out="$1"
  [ "$(wc -l <"$out")" -eq 2 ] || { cat "$out"; echo "FAIL: expected two responses" >&2; return 1; }
  sed -n 1p "$out" | grep -q '^200 .*"resultType":"input_required"' || { echo "FAIL: round 1: $(sed -n 1p "$out")" >&2; return 1; }
  sed -n 2p "$out" | grep -q '^200 .*"isError":true.*"No colour chosen"\|^200 .*"No colour chosen".*"isError":true' ||
    { echo "FAIL: round 2 (decline ends the flow): $(sed -n 2p "$out")" >&2; return 1; }
}
check_output "$work/out.txt"
cut -c1-100 "$work/out.txt"

echo "-- pkg-config --static and snodo-static"
export PKG_CONFIG_PATH="$lib/pkgconfig"
[ "$(pkg-config --modversion snodo)" = "$version" ]
static_libs="$(pkg-config --static --libs snodo)"
for l in -lsnodo -lgcc_s -lpthread -ldl -lm; do
  grep -qw -- "$l" <<<"$static_libs" || { echo "FAIL: pkg-config --static --libs lacks $l: $static_libs" >&2; exit 1; }
done
# The README's static block, run as written in the installed prefix, where
# libsnodo.so sits beside libsnodo.a (so -lsnodo alone would take the .so).
block sh 2 >"$work/static.sh"
grep -q 'snodo-static' "$work/static.sh" || { echo "FAIL: no snodo-static block in ffi/README.md" >&2; exit 1; }
[ -e "$lib/libsnodo.so" ] && [ -f "$lib/libsnodo.a" ]
(cd "$work" && bash -euo pipefail static.sh >"$work/static.log")
grep -E '^[0-9]{3} ' "$work/static.log" >"$work/out_static.txt" || true
check_output "$work/out_static.txt"
if grep -q 'NEEDED.*libsnodo' <<<"$(readelf -d "$work/colour_static")"; then
  echo "FAIL: the snodo-static build needs libsnodo.so: $(readelf -d "$work/colour_static" | grep NEEDED)" >&2
  exit 1
fi
if grep -q libsnodo <<<"$(ldd "$work/colour_static")"; then
  echo "FAIL: the snodo-static build loads libsnodo.so" >&2
  exit 1
fi
echo "static link through pkg-config snodo-static, beside libsnodo.so: ok"
