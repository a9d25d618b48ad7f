#!/usr/bin/env bash
# Call 1 (nvidia-h200-x2): the bf16 nn and tn sweeps side by side, one GPU each.
set -u
mkdir -p build-gpu-kit && tar -xJf build-gpu/pack.tar.xz -C build-gpu-kit bin/gemmtune bin/gemmtune-worker deps || exit 1
for layout in nn tn; do
  gpu=$([ $layout = nn ] && echo 0 || echo 1)
  CUDA_VISIBLE_DEVICES=$gpu DTYPE=bf16 LAYOUT=$layout OUT=$OUT/$layout GEMMTUNE_CUBIN_CACHE=/tmp/cubins-$layout \
    TRAIN_M="1 8 16 64 128 512 1024 2048 4096" HELDOUT_M="32 100 300 1000 3000" \
    TRAIN_CONFIGS=40 HELDOUT_CONFIGS=48 scripts/gpu-sweep --minutes 9 >"$OUT/sweep-$layout.log" 2>&1 &
done
wait
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,temperature.gpu --format=csv >"$OUT/gpu.txt"
for layout in nn tn; do tail -3 "$OUT/sweep-$layout.log"; wc -l "$OUT"/$layout/*.csv; gzip "$OUT"/$layout/*.csv; done
