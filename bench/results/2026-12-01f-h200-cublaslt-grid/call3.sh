#!/usr/bin/env bash
# Call 3 (nvidia-h200): the shipped GPU model (data/models/cuda-sm_90a-132sm.json) was trained
# on cuBLASLt's ranks before its choices were kept to f32 partial sums (5be5ee7), and knows
# nothing of cuBLASLt on padded copies. Live tunings, cold, each shape once over the default
# space and once with --fast (scripts/gpu-sweep --live): bf16 nt at the held-out m, and bf16 tn
# where A's rows are not 16-byte multiples (m = 100, 300, 37) and where they are (1000).
set -u
tar -xJf build-gpu/pack.tar.xz -C build-gpu || exit 1
work=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >"$work/gpu.txt"
OUT="$work" timeout 330 scripts/gpu-sweep --live >"$work/live-nt.out" 2>&1; echo "live nt rc=$?"; cat "$work/live.csv"
OUT="$work" LAYOUT=tn LIVE_SHAPES="100,4096,4096 300,4096,14336 37,4096,4096 1000,4096,4096" timeout 200 scripts/gpu-sweep --live \
  >"$work/live-tn.out" 2>&1; echo "live tn rc=$?"; cat "$work/live-tn.csv"
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
