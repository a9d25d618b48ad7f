#!/usr/bin/env bash
# Installs the build tree into a scratch prefix (cmake --install), then builds the example
# consumer (examples/consumer) against that prefix alone, with CMake's find_package (shared and
# static) and with plain pkg-config, runs each, and checks the installed CLI, BLAS drop-in, models
# and package files. The prefix is then moved, and the consumers are built again: the CMake
# package and gemmtune.pc find their prefix from where they lie.
# usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GEMMTUNE_CACHE=off OMP_WAIT_POLICY=passive
checks=0 failures=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  checks=$((checks + 1))
  if "$@" >"$work/last.log" 2>&1; then echo "ok: $what"; else echo "FAIL: $what"; tail -30 "$work/last.log"; failures=$((failures + 1)); fi
}

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
prefix=$work/prefix
libdir=$(cd "$prefix" && dirname "$(find . -name libgemmtune.so.0 | head -1)")
libdir=${libdir#./}

check "headers installed" test -f "$prefix/include/gemmtune/session.h" -a -f "$prefix/include/gemmtune/gemmtune.h"
check "shared library, its soname link and the static archive" \
  test -f "$prefix/$libdir/libgemmtune.a" -a -L "$prefix/$libdir/libgemmtune.so.0" -a -L "$prefix/$libdir/libgemmtune.so"
check "the CLI runs from the prefix" "$prefix/bin/gemmtune" devices
check "shipped cost models" bash -c "ls '$prefix/share/gemmtune/models/'*.json"
check "CMake package, version file and pkg-config file" test -f "$prefix/$libdir/cmake/gemmtune/gemmtune-config.cmake" \
  -a -f "$prefix/$libdir/cmake/gemmtune/gemmtune-config-version.cmake" -a -f "$prefix/$libdir/pkgconfig/gemmtune.pc"
check "BLAS drop-in with soname libblas.so.3, found as libblas.so.3 in its folder" \
  bash -c "objdump -p '$prefix/$libdir/gemmtune-blas/libblas.so.3' | grep -q 'SONAME *libblas.so.3'"
check "the drop-in exports the BLAS names alone (gemmtune inside it stays local)" bash -c "
  [ \"\$(nm -D --defined-only '$prefix/$libdir/gemmtune-blas/libblas.so.3' | awk '{print \$3}' | sort | tr '\n' ' ')\" = \
    'CBLAS_CallFromC RowMajorStrg cblas_sgemm cblas_xerbla gemmtune_blas_counts sgemm_ xerbla_ ' ]"
# update-alternatives chooses it through links from /usr/lib/<arch>: it must load from there.
mkdir -p "$work/alternative"
ln -s "$prefix/$libdir/gemmtune-blas/libblas.so.3" "$work/alternative/libblas.so.3"
check "the drop-in loads through a link in another folder, as update-alternatives makes" \
  env LD_LIBRARY_PATH="$work/alternative" /usr/bin/python3 -c \
  "import ctypes; assert ctypes.CDLL('libblas.so.3').gemmtune_blas_counts"
check "libgemmtune.so exports no BLAS symbol (libxsmm's stubs stay inside)" \
  bash -c "! nm -D --defined-only '$prefix/$libdir/libgemmtune.so' | grep -E ' (s|d)gemm_$'"

consumers() {  # consumers PREFIX TAG: build and run the example both ways
  local p=$1 tag=$2
  check "$tag: CMake consumer configures with find_package(gemmtune CONFIG)" \
    cmake -S "$source/examples/consumer" -B "$work/cmake-$tag" -DCMAKE_PREFIX_PATH="$p" -DCMAKE_BUILD_TYPE=Release
  check "$tag: CMake consumer builds (shared and static)" cmake --build "$work/cmake-$tag" -j 2
  check "$tag: shared consumer runs and computes right" "$work/cmake-$tag/consumer"
  check "$tag: static consumer runs and computes right" "$work/cmake-$tag/consumer_static"
  check "$tag: pkg-config consumer builds" make -s -C "$source/examples/consumer" -f Makefile \
    PKG_CONFIG_PATH="$p/$libdir/pkgconfig" "OUT=$work/pc-$tag" "$work/pc-$tag"
  check "$tag: pkg-config consumer runs and computes right" "$work/pc-$tag"
}
consumers "$prefix" installed

check "find_package refuses a newer version than installed" bash -c "
  mkdir -p '$work/v' && printf 'cmake_minimum_required(VERSION 3.25)\nproject(v NONE)\nfind_package(gemmtune 9 CONFIG REQUIRED)\n' > '$work/v/CMakeLists.txt'
  ! cmake -S '$work/v' -B '$work/v/b' -DCMAKE_PREFIX_PATH='$prefix' >'$work/v/log' 2>&1 && grep -q 'version' '$work/v/log'"

mv "$prefix" "$work/moved"
consumers "$work/moved" moved

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
