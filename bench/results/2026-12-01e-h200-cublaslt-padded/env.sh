# Sourced by the calls' scripts on the GPU machine: the carried build unpacked, its libraries
# and worker found, the caches off (the cubin cache in /tmp), CUTLASS left out; $work for logs.
R=bench/results/2026-12-01e-h200-cublaslt-padded
tar -xJf build-gpu/pack.tar.xz -C build-gpu || exit 1
export LD_LIBRARY_PATH="$PWD/build-gpu/deps:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export GEMMTUNE_CACHE=off GEMMTUNE_CUBIN_CACHE=/tmp/cubins GEMMTUNE_WORKER="$PWD/build-gpu/bin/gemmtune-worker"
unset GEMMTUNE_CUTLASS_DIR
work=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >"$work/gpu.txt"
