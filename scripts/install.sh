#!/usr/bin/env bash
# Installs libsnodo into PREFIX (argument 1, else $PREFIX, else /usr/local):
#   lib/libsnodo.so.MAJOR.MINOR.PATCH   the library (SONAME libsnodo.so.MAJOR)
#   lib/libsnodo.so.MAJOR -> .so.MAJOR.MINOR.PATCH   what programs load
#   lib/libsnodo.so -> .so.MAJOR        what -lsnodo finds at link time
#   lib/libsnodo.a  include/snodo.h  lib/pkgconfig/snodo.pc, snodo-static.pc
# DESTDIR is honoured for staged installs. SNODO_SKIP_BUILD=1 installs the
# libraries already built in target/release instead of building them. The
# build has no cargo features: the test-only settings are refused by what
# this installs, and a library built with them is refused here.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${1:-${PREFIX:-/usr/local}}"
case "$prefix" in
/*) ;;
*) prefix="$PWD/$prefix" ;; # pkg-config paths must be absolute
esac
dest="${DESTDIR:-}"
release="${CARGO_TARGET_DIR:-target}/release"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"

if [ "${SNODO_SKIP_BUILD:-0}" != 1 ]; then
  cargo build --release --locked -p snodo-ffi
fi

# The test suites build libsnodo with the cargo feature test-knobs (a fixed
# clock, predictable token ids and v2 nonces); such a library is never
# installed. It holds a marker string (ffi/src/config.rs) that says so.
for f in "$release/libsnodo.so" "$release/libsnodo.a"; do
  if [ -f "$f" ] && LC_ALL=C grep -qF "libsnodo built with test-knobs" "$f"; then
    echo "install: $f was built with the cargo feature test-knobs, for the test suites only;" \
      "rebuild it without: cargo build --release --locked -p snodo-ffi" >&2
    exit 1
  fi
done

major="${version%%.*}"
soname="libsnodo.so.$major"
# The SONAME comes from ffi/build.rs; a mismatch would leave programs
# needing a file this script does not create.
if command -v readelf >/dev/null &&
  ! grep -q "Library soname: \[$soname\]" <<<"$(readelf -d "$release/libsnodo.so")"; then
  echo "install: $release/libsnodo.so has no SONAME $soname (stale build?)" >&2
  exit 1
fi

install -d "$dest$prefix/lib/pkgconfig" "$dest$prefix/include"
# Remove an older install's plain file or links first, so that ln never
# writes through a symlink into a previous version's library.
rm -f "$dest$prefix/lib/libsnodo.so" "$dest$prefix/lib/$soname"
install -m 0755 "$release/libsnodo.so" "$dest$prefix/lib/libsnodo.so.$version"
# Relative links: the tree still works after DESTDIR staging or a move.
ln -s "libsnodo.so.$version" "$dest$prefix/lib/$soname"
ln -s "$soname" "$dest$prefix/lib/libsnodo.so"
install -m 0644 "$release/libsnodo.a" "$dest$prefix/lib/libsnodo.a"
install -m 0644 include/snodo.h "$dest$prefix/include/snodo.h"
# What the static library needs from the system, as printed by
# `cargo rustc --crate-type staticlib -- --print native-static-libs`:
# snodo.pc's Libs.private (`pkg-config --static` adds it) and part of
# snodo-static.pc's Libs. No rpath in Libs: that is the program's choice
# (ffi/README.md, "Run time").
native_libs="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
cat >"$dest$prefix/lib/pkgconfig/snodo.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: snodo
Description: libsnodo, MCP multi round-trip requests (MRTR) for C servers
Version: $version
Libs: -L\${libdir} -lsnodo
Libs.private: $native_libs
Cflags: -I\${includedir}
PC
# snodo-static.pc names the archive itself: `-lsnodo` (all snodo.pc can say,
# with or without --static) makes the linker take libsnodo.so whenever it
# sits beside libsnodo.a, as it does here, so a static link needs the path.
cat >"$dest$prefix/lib/pkgconfig/snodo-static.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: snodo-static
Description: libsnodo linked statically (libsnodo.a), MCP multi round-trip requests (MRTR) for C servers
Version: $version
Libs: \${libdir}/libsnodo.a $native_libs
Cflags: -I\${includedir}
PC
echo "installed libsnodo $version into $dest$prefix"
