#!/bin/bash
# Builds the probe: the stream kernel of src/ (as "base") against a variant of its header.
#   bench/results/2026-11-24g-cpu-stream-prefetch/mk.sh VARIANT.h MR NV MRV NVV OUT
# run from the repository root after `make build` (it links build/lib/libgemmtune.a); then
#   OUT M BK [BK_VARIANT]      e.g. ./probe 16 256
# PROBE=FILE builds another form of stream2.cc instead (e.g. one patched by 2026-11-25a-cpu-stream-next-block/bound.patch).
# MR x NV: the base's stream tile, MRV x NVV the variant's. This run's variants were the
# header of c9f9d0f with prefetch_l1 → __builtin_prefetch(…, 0, 2) (L2) and
# kStreamPrefetchTiles 1/2/3/4/6, and eb89f7f's header with next-block.patch applied:
#   patch -o /tmp/next-block.h src/backends/cpu/cpu_stream_gemm.h bench/results/2026-11-24g-cpu-stream-prefetch/next-block.patch
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -e 's/stream_visit/stream_visit_v/g; s/stream_range/stream_range_v/g; s/gemm_direct_stream/gemm_direct_stream_v/g; s/kStream/kVStream/g; s/#pragma once//' "$1" > "$work/stream_var.h"
g++ -O3 -ffp-contract=fast -fwrapv -fno-math-errno -std=c++20 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma \
  -mf16c -mprefer-vector-width=512 -Isrc/backends/cpu -Iinclude -Isrc -I"$work" -DMR_=$2 -DNV_=$3 -DMRV_=$4 -DNVV_=$5 \
  "${PROBE:-$here/stream2.cc}" build/lib/libgemmtune.a -lpthread -o "$6"
