#!/usr/bin/env bash
# after the ring counters: the wgmma launch tests, then a wgmma-only sweep for the cost model, then the family alone
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout 150 build-gpu/bin/wgmma_launch_test 2>&1 | tail -4 | tee $OUT/wgmma-launch.txt
timeout 60 build-gpu/bin/gpu_test --gtest_filter='*Wgmma*:*wgmma*:*StreamK*' 2>&1 | tail -3 | tee $OUT/gpu-test-wgmma.txt
export LD_LIBRARY_PATH=$PWD/build-gpu-kit/deps:/usr/local/cuda/lib64
mkdir -p $OUT/sweep
OUT=$OUT/sweep BACKENDS=wgmma TRAIN_CONFIGS=32 HELDOUT_M="32 300 1000 3000" HELDOUT_CONFIGS=40 scripts/gpu-sweep --minutes 5 > $OUT/sweep.log 2>&1; echo "sweep rc $?" | tee -a $OUT/sweep.log
tail -3 $OUT/sweep.log
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:/usr/local/cuda/lib64
GPU_CHECK_DTYPES="" GPU_CHECK_FAMILY=wgmma GPU_CHECK_CUTLASS=0 OUT=$OUT/check scripts/gpu-check --no-tests > $OUT/family.log 2>&1
grep -E 'geometric|A/A|agree' $OUT/check/summary.txt
