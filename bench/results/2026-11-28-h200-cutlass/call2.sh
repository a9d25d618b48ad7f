#!/usr/bin/env bash
# (1) host enqueue time of CUTLASS vs cuBLASLt vs wgmma at small shapes; (2) decode m=16..64 exhaustive.
set -u
cd "$(dirname "$0")/../../.."
. bench/results/2026-11-28-h200-cutlass/setup.sh
nproc > $OUT/host.txt; lscpu | grep "Model name" >> $OUT/host.txt
C1="bm=128 bn=128 bk=64 cm=1 cn=1 pp=1"; C2="bm=128 bn=256 bk=64 cm=1 cn=1"; C3="bm=128 bn=128 bk=64 cm=2 cn=1"; C4="bm=128 bn=128 bk=64 streamk=1 cm=1 cn=1"
for c in "$C1" "$C2" "$C3" "$C4"; do PROBE_LAUNCHES=1 $R cutlass 512 4096 4096 bf16 nt "$c" >/dev/null 2>&1 & done; wait
for shape in "512 4096 4096" "128 4096 4096" "1024 4096 4096"; do
  set -- $shape
  PROBE_ROUNDS=9 $R cutlass $1 $2 $3 bf16 nt "cublaslt:rank=1" "wgmma:bm=128 bn=128 bk=64 stages=6 warps=12 gm=8 cm=1 cn=1 pp=1" "$C1" "$C2" "$C3" "$C4" 2>&1 | tee -a $OUT/host-cutlass.txt
done
printf "16 4096 4096\n32 4096 4096\n64 4096 4096\n" > /tmp/decode.txt
unset GEMMTUNE_CUTLASS_DIR
export GEMMTUNE_CACHE=off
( time build-gpu/bin/gemmtune bench --device cuda --dtype bf16 --shapes /tmp/decode.txt --layout nt --backends skinny,wgmma --search exhaustive --verbose ) > $OUT/decode-exh.txt 2> /tmp/decode-exh.err
grep -v "^ *\(skinny\|wgmma\) .*pruned" /tmp/decode-exh.err | head -c 200000 > /tmp/decode-exh-tables.txt; gzip -c /tmp/decode-exh-tables.txt > $OUT/decode-exh-tables.txt.gz
tail -5 /tmp/decode-exh.err >> $OUT/decode-exh.txt
cat $OUT/decode-exh.txt
