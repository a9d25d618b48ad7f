#!/usr/bin/env bash
# The shipped packed kernel against an edited copy of kernels/packed.h, one process (packed_ab.cc).
#
#   bench/probes/cpu_packed_ab/ab.sh EDITED_PACKED_H [avx2|avx512] [MR NV] -- M N K [threads] [block_m] ...
#
# Builds in seconds against build/lib/libgemmtune.so (make build first) and runs with oneDNN
# capped to the same level. Keep the edited copy outside src/ (CMake checks every kernel file
# there is listed).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
edited=$(realpath "$1"); shift
isa=avx2 mr=6 nv=2
[ "${1:-}" = avx2 ] || [ "${1:-}" = avx512 ] && { isa=$1; shift; }
[ "${1:-}" != -- ] && { mr=$1 nv=$2; shift 2; }
[ "${1:-}" = -- ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -e 's/^namespace {$/namespace exp {/' -e 's/^#pragma once//' \
    -e "s#\"\.\./\(cpu_[a-z_]*\.h\)\"#\"$root/src/backends/cpu/\1\"#" "$edited" >"$work/edited.h"
flags=(-mavx2 -mfma -mf16c) dnnl=AVX2
if [ "$isa" = avx512 ]; then
  flags=(-mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -mf16c -mprefer-vector-width=512 -DPACKED_AB_AVX512)
  dnnl=AVX512_CORE
fi
g++ -std=c++20 -O3 -ffp-contract=fast -fwrapv -fno-math-errno "${flags[@]}" -DPACKED_AB_MR="$mr" -DPACKED_AB_NV="$nv" \
  -DPACKED_AB_EXPERIMENT="\"$work/edited.h\"" -I "$root/src" -I "$root/include" "$root/bench/probes/cpu_packed_ab/packed_ab.cc" \
  -o "$work/ab" -L "$root/build/lib" -lgemmtune -Wl,-rpath,"$root/build/lib" -ldnnl -lpthread
OMP_NUM_THREADS=${4:-1} DNNL_MAX_CPU_ISA=$dnnl "$work/ab" "$@"
