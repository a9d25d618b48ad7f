#!/usr/bin/env bash
# Call 3 (nvidia-h200-x2, warm): live cold tunings with the model trained on calls 1-2, default
# space against --fast, bf16 nn and f16 nn on GPU 0, bf16 tn on GPU 1.
set -u
mkdir -p build-gpu-kit && tar -xJf build-gpu/pack.tar.xz -C build-gpu-kit bin/gemmtune bin/gemmtune-worker deps || exit 1
work=$(mktemp -d)
live() { CUDA_VISIBLE_DEVICES=$1 DTYPE=$2 LAYOUT=$3 OUT=$work/live-$2-$3 scripts/gpu-sweep --live >/dev/null 2>&1; }
(live 0 bf16 nn; live 0 f16 nn) &
live 1 bf16 tn &
wait
for d in "$work"/live-*; do echo "## $(basename "$d")"; cat "$d/live.csv"; done
tar -czf "$OUT/call3.tgz" -C "$work" .
