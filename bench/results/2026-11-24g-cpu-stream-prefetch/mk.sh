#!/bin/bash
# mk.sh VAR_HEADER_SRC MR NV MRV NVV OUT
cd /work/main
sed -e 's/stream_visit/stream_visit_v/g; s/stream_range/stream_range_v/g; s/gemm_direct_stream/gemm_direct_stream_v/g; s/kStream/kVStream/g; s/#pragma once//' $1 > /tmp/probe/stream_var.h
g++ -O3 -ffp-contract=fast -fwrapv -fno-math-errno -std=c++20 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -mf16c -mprefer-vector-width=512 -Isrc/backends/cpu -Iinclude -Isrc -DMR_=$2 -DNV_=$3 -DMRV_=$4 -DNVV_=$5 /tmp/probe/stream2.cc build/lib/libgemmtune.a -lpthread -o $6
