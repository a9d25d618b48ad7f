#!/usr/bin/env bash
# The default space's rule after: the cluster wherever it keeps the stages. The decode shapes,
# all choices, against cuBLASLt.
set -u
cd "$(dirname "$0")/../../.."
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:/usr/local/cuda/lib64
printf "1 4096 4096\n8 4096 4096\n16 4096 4096\n32 4096 4096\n64 4096 4096\n128 4096 4096\n32 14336 4096\n64 14336 4096\n32 4096 14336\n64 4096 14336\n256 4096 4096\n" > /tmp/decode.txt
GEMMTUNE_CACHE=off build-gpu/bin/gemmtune bench --device cuda --dtype bf16 --shapes /tmp/decode.txt --layout nt > $OUT/decode-bench.txt 2>/tmp/decode.err
tail -2 /tmp/decode.err >> $OUT/decode-bench.txt
cat $OUT/decode-bench.txt
