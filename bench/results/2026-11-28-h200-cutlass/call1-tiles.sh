#!/usr/bin/env bash
# CUTLASS bf16 nt: wave-fitted and clustered tiles against the default list and cuBLASLt's first pick.
set -u
cd "$(dirname "$0")/../../.."
. bench/results/2026-11-28-h200-cutlass/setup.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
CONFIGS=(
 "bm=128 bn=256 bk=64 cm=1 cn=1" "bm=128 bn=256 bk=64 cm=2 cn=1" "bm=256 bn=128 bk=64 cm=1 cn=2"
 "bm=128 bn=128 bk=64 cm=2 cn=1" "bm=128 bn=128 bk=64 cm=1 cn=1 pp=1" "bm=64 bn=256 bk=64 cm=1 cn=1 pp=1"
 "bm=128 bn=224 bk=64 cm=1 cn=1" "bm=128 bn=224 bk=64 cm=2 cn=1" "bm=128 bn=192 bk=64 cm=1 cn=1"
 "bm=128 bn=176 bk=64 cm=1 cn=1" "bm=128 bn=128 bk=64 cm=2 cn=1 pp=1" "bm=128 bn=128 bk=64 cm=1 cn=2 pp=1"
 "bm=128 bn=256 bk=64 cm=1 cn=2" "bm=256 bn=128 bk=64 cm=2 cn=1" "bm=128 bn=192 bk=64 cm=2 cn=1"
 "bm=64 bn=224 bk=64 cm=1 cn=1 pp=1"
)
t0=$(date +%s)
for c in "${CONFIGS[@]}"; do
  PROBE_LAUNCHES=1 $R cutlass 512 4096 4096 bf16 nt "$c" > "/tmp/build-$(echo $c | tr ' =' '__').log" 2>&1 &
done
wait
echo "built in $(( $(date +%s) - t0 )) s" | tee $OUT/log.txt
tail -n 3 /tmp/build-*.log >> $OUT/log.txt
for shape in "512 4096 4096" "1024 4096 4096" "512 14336 4096" "1024 14336 4096" "4096 4096 4096" "8192 8192 8192"; do
  set -- $shape
  rounds=9; [ "$1" -ge 4096 ] && rounds=5
  PROBE_ROUNDS=$rounds $R cutlass $1 $2 $3 bf16 nt "cublaslt:rank=1" "wgmma:bm=128 bn=128 bk=64 stages=6 warps=12 gm=8 cm=1 cn=1 pp=1" "${CONFIGS[@]}" 2>&1 | tee -a $OUT/log.txt
done
