#!/usr/bin/env bash
# Call 4 (nvidia-h200): call 3 again after the fix of the model's version check (cost_model.cc,
# ranked_part): the shipped GPU model had been refused since the pad-copy kernel joined wgmma's
# version, so `--fast` timed the whole default space (tests/cuda/gpu_model_versions_test.cc runs
# on the CPU). The same live tunings as call 3 (scripts/gpu-sweep --live, cold, default space then --fast).
set -u
tar -xJf build-gpu/pack.tar.xz -C build-gpu || exit 1
work=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >"$work/gpu.txt"
LD_LIBRARY_PATH="$PWD/build-gpu/deps:/usr/local/cuda/lib64" build-gpu/bin/gemmtune devices >"$work/devices.txt" 2>&1; grep -i "cost model" "$work/devices.txt"
OUT="$work" timeout 330 scripts/gpu-sweep --live >"$work/live-nt.out" 2>&1; echo "live nt rc=$?"; cat "$work/live.csv"
OUT="$work" LAYOUT=tn LIVE_SHAPES="100,4096,4096 300,4096,14336 37,4096,4096 1000,4096,4096" timeout 200 scripts/gpu-sweep --live \
  >"$work/live-tn.out" 2>&1; echo "live tn rc=$?"; cat "$work/live-tn.csv"
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
