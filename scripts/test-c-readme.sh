#!/usr/bin/env bash
# ffi/README.md as a newcomer reads it: runs its install-and-build block
# against a temporary HOME, with its complete C program saved as colour.c,
# then checks the SONAME, the versioned symlinks, the rpath, the two rounds'
# output, and a static link through `pkg-config --static`.
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

echo "-- pkg-config --static"
export PKG_CONFIG_PATH="$lib/pkgconfig"
[ "$(pkg-config --modversion snodo)" = "$version" ]
static_libs="$(pkg-config --static --libs snodo)"
for l in -lsnodo -lgcc_s -lpthread -ldl -lm; do
  grep -qw -- "$l" <<<"$static_libs" || { echo "FAIL: pkg-config --static --libs lacks $l: $static_libs" >&2; exit 1; }
done
# A static-only copy of the prefix (what a -dev package without the .so
# would hold): the same flags must then link libsnodo.a.
mkdir -p "$work/static"
cp -a "$prefix/include" "$work/static/"
mkdir -p "$work/static/lib/pkgconfig"
cp "$lib/libsnodo.a" "$work/static/lib/"
sed "s|^prefix=.*|prefix=$work/static|" "$lib/pkgconfig/snodo.pc" >"$work/static/lib/pkgconfig/snodo.pc"
# shellcheck disable=SC2046 # the pkg-config output is a list of flags
cc -std=c11 -Wall "$work/colour.c" $(PKG_CONFIG_PATH="$work/static/lib/pkgconfig" pkg-config --static --cflags --libs snodo) -o "$work/colour_static"
if grep -q libsnodo <<<"$(ldd "$work/colour_static")"; then
  echo "FAIL: the static build loads libsnodo.so" >&2
  exit 1
fi
"$work/colour_static" >"$work/out_static.txt"
check_output "$work/out_static.txt"
echo "static link through pkg-config --static: ok"
