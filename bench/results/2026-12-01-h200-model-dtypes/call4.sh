#!/usr/bin/env bash
# Call 4 on the H200: a bundle whose pick is a CUTLASS kernel, filled from the user's kernel
# cache (GEMMTUNE_CUBIN_CACHE after the bundle's folder) instead of compiled again; the bundle
# deployed after a writable cache (the bundle only read); then the GPU tests without the cutlass family.
set -u
B0=$PWD/build-gpu
mkdir -p "$B0" && tar -xJf "$B0/pack.tar.xz" -C "$B0"
export LD_LIBRARY_PATH="$B0/deps:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
ldconfig -p | grep -q 'libmpi\.so\.40 ' || export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$B0/deps/mpi"
export GEMMTUNE_WORKER=$B0/bin/gemmtune-worker GEMMTUNE_CACHE=off
G=$B0/bin/gemmtune
export GEMMTUNE_CUTLASS_DIR=/tmp/cutlass
mkdir -p "$GEMMTUNE_CUTLASS_DIR" && tar -xJf "$B0/deps/cutlass-headers.tar.xz" -C "$GEMMTUNE_CUTLASS_DIR"
echo "1024 4096 4096" >/tmp/cs.txt
S=/tmp/cs.sqlite B=/tmp/cbundle U=/tmp/user-cubins
rm -rf $S* $B $U /tmp/writable
secs() { python3 -c 'import sys; print(f"{float(sys.argv[2])-float(sys.argv[1]):.1f} s")' "$@"; }
t0=$(date +%s.%N)
GEMMTUNE_CUBIN_CACHE=$U $G tune-set --device cuda --shapes /tmp/cs.txt --dtype s8 --layout nt \
  --backends cutlass --cache $S --json >"$OUT/cutlass-tune.json" 2>"$OUT/cutlass-tune.err"
t1=$(date +%s.%N)
GEMMTUNE_CUBIN_CACHE=$U $G bundle create $B --device cuda --cache $S >"$OUT/bundle-create.txt" 2>&1
t2=$(date +%s.%N)
echo "tune-set (cutlass only, cold): $(secs $t0 $t1); bundle create from the user's cache: $(secs $t1 $t2)"
cat "$OUT/bundle-create.txt"; python3 -c 'import json; d=json.load(open("/tmp/cbundle/bundle.json")); print("compiled_now", d["compiled_now"], "cubins", d["cubins"])'
for name in deployed-read-only deployed-cold; do
  cache=/tmp/writable:$B/cubins; [ $name = deployed-cold ] && { cache=/tmp/empty-cubins; rm -rf $cache; }
  s=$(date +%s.%N)
  GEMMTUNE_LUT=$B/picks.json GEMMTUNE_CUBIN_CACHE=$cache $G tune-set --device cuda --shapes /tmp/cs.txt --dtype s8 \
    --layout nt --cache off --json >"$OUT/cutlass-$name.json" 2>"$OUT/cutlass-$name.err"
  e=$(date +%s.%N)
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); x=d["shapes"][0]
print(sys.argv[2], x.get("backend"), x.get("config"), "compilations", x.get("compilations"), x.get("selection"))' \
    "$OUT/cutlass-$name.json" $name
  echo "  $(secs $s $e); stderr lines: $(wc -l <"$OUT/cutlass-$name.err")"
done
echo "writable cache after the read-only deploy: $(find /tmp/writable -type f | wc -l) files"
GPU_CHECK_DTYPES="" GPU_CHECK_FAMILY="" GPU_CHECK_CUTLASS=0 OUT=$OUT/check scripts/gpu-check --quick --no-bench 2>&1 | tail -15
