#!/usr/bin/env bash
set -e
# /tmp/probe/v1/src: a copy of src/backends/cpu/*.h (the copy to edit) beside a link to src/core;
# both objects are built from the one probe source, each against its own header.
cd /tmp/probe
F="-O3 -std=c++20 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -mf16c -mprefer-vector-width=512 -I/work/main/include -I/work/main/src"
g++ $F -I/work/main/src/backends/cpu -DTILE_FN=tile_orig -c probe-tile-header.cc -o hdr_orig.o
g++ $F -iquote /tmp/probe/v1/src/backends/cpu -I/tmp/probe/v1/src/backends/cpu -DTILE_FN=tile_mod -c -x c++ - -o hdr_mod.o < <(sed 's/#include "cpu_direct_gemm.h"/#include "\/tmp\/probe\/v1\/src\/backends\/cpu\/cpu_direct_gemm.h"/' probe-tile-header.cc)
g++ -O2 -std=c++20 -I/work/main/include -I/work/main/src/backends/cpu -c probe-tile-header-main.cc -o hdrmain.o
g++ hdrmain.o hdr_orig.o hdr_mod.o -o hdrmain /work/main/build/lib/libgemmtune.a /usr/lib/libxsmm.a /usr/lib/libxsmmnoblas.a -lpthread -ldl -lm
