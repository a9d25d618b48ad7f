#!/usr/bin/env bash
# `cpack -G DEB` of the build tree: the package's contents and dependencies, then an install and
# a purge with dpkg into a scratch root (--root: the machine's own /usr is left alone), after
# which nothing of it may remain.
# usage: deb_package_test.sh BUILD_DIR
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GEMMTUNE_CACHE=off
checks=0 failures=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  checks=$((checks + 1))
  if "$@" >"$work/last.log" 2>&1; then echo "ok: $what"; else echo "FAIL: $what"; tail -20 "$work/last.log"; failures=$((failures + 1)); fi
}

check "cpack -G DEB makes a package" cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out"
deb=$(ls "$work"/out/gemmtune_*.deb)
dpkg-deb --contents "$deb" | awk '{print $6}' > "$work/files"
for path in ./usr/bin/gemmtune ./usr/include/gemmtune/session.h ./usr/lib/libgemmtune.so.0 ./usr/lib/libgemmtune.a \
            ./usr/lib/cmake/gemmtune/gemmtune-config.cmake ./usr/lib/pkgconfig/gemmtune.pc \
            ./usr/lib/gemmtune-blas/libgemmtune_blas.so.3 ./usr/lib/gemmtune-blas/libblas.so.3; do
  check "the package holds $path" grep -qx "$path" "$work/files"
done
check "no libblas.so.3 where ldconfig looks (it would replace the system's BLAS)" \
  bash -c "! grep -E '^\./usr/lib/(x86_64-linux-gnu/)?lib(gemmtune_)?blas' '$work/files'"
check "it depends on OpenBLAS, whose routines the drop-in passes on" \
  bash -c "dpkg-deb --field '$deb' Depends | grep -q libopenblas0"

root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
# The scratch root knows no other package, so its dependencies are taken as met.
dpkg_root=(dpkg --root="$root" --force-depends --force-script-chrootless --force-not-root)
check "dpkg installs it" "${dpkg_root[@]}" -i "$deb"
check "dpkg knows it as installed" bash -c "dpkg --root='$root' -s gemmtune | grep -q 'Status: install ok installed'"
check "the installed CLI runs" "$root/usr/bin/gemmtune" devices
check "dpkg purges it" "${dpkg_root[@]}" -P gemmtune
check "nothing of it remains" bash -c "[ -z \"\$(find '$root' -mindepth 1 -not -path '$root/var*' \\( -type f -o -type l \\))\" ]"

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
