# Sourced by call1-tiles.sh and call2.sh from the repository root on the GPU machine: the
# carried GPU build's libraries, CUTLASS's headers unpacked, a cubin cache, the probe.
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:${LD_LIBRARY_PATH:-}
export GEMMTUNE_CUTLASS_DIR=/tmp/cutlass; mkdir -p $GEMMTUNE_CUTLASS_DIR
tar -xJf build-gpu/deps/cutlass-headers.tar.xz -C $GEMMTUNE_CUTLASS_DIR
export GEMMTUNE_CUBIN_CACHE=/tmp/cc; mkdir -p $GEMMTUNE_CUBIN_CACHE
R=build-gpu/bin/config_runner
