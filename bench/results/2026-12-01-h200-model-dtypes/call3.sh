#!/usr/bin/env bash
# Call 3 on the H200: live cold tunings (default space against --fast with the new model) in
# s8, f16 and bf16; then a bundle whose pick is a CUTLASS kernel (nvcc-built object), deployed
# with the bundle's objects and with an empty cache.
set -u
K=$PWD/build-gpu-kit
export LD_LIBRARY_PATH="$K/deps:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
ldconfig -p | grep -q 'libmpi\.so\.40 ' || export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$K/deps/mpi"
export GEMMTUNE_WORKER=$K/bin/gemmtune-worker
G=$K/bin/gemmtune
for d in s8 f16 bf16; do
  OUT=$OUT/live-$d DTYPE=$d scripts/gpu-sweep --live >/dev/null 2>&1
  echo "## $d"; cat "$OUT/live-$d/live.csv"
done
export GEMMTUNE_CUTLASS_DIR=/tmp/cutlass GEMMTUNE_CACHE=off
mkdir -p "$GEMMTUNE_CUTLASS_DIR" && tar -xJf "$K/deps/cutlass-headers.tar.xz" -C "$GEMMTUNE_CUTLASS_DIR"
echo "1024 4096 4096" >/tmp/cs.txt
S=/tmp/cs.sqlite B=/tmp/cbundle
rm -rf $S* $B /tmp/cs-cubins /tmp/empty-cubins
t0=$(date +%s.%N)
GEMMTUNE_CUBIN_CACHE=/tmp/cs-cubins $G tune-set --device cuda --shapes /tmp/cs.txt --dtype s8 --layout nt \
  --backends cutlass --cache $S --json >"$OUT/cutlass-tune.json" 2>"$OUT/cutlass-tune.err"
t1=$(date +%s.%N)
GEMMTUNE_CUBIN_CACHE=/tmp/cs-cubins $G bundle create $B --device cuda --cache $S >"$OUT/bundle-create.txt" 2>&1
t2=$(date +%s.%N)
$G bundle show $B >"$OUT/bundle-show.txt" 2>&1
cp $B/bundle.json $B/picks.json "$OUT/"; (cd $B && find cubins -type f -printf '%s %p\n') >"$OUT/bundle-files.txt"
for name in deployed deployed-cold; do
  cubins=$B/cubins; [ $name = deployed ] || { cubins=/tmp/empty-cubins; rm -rf $cubins; }
  s=$(date +%s.%N)
  GEMMTUNE_LUT=$B/picks.json GEMMTUNE_CUBIN_CACHE=$cubins $G tune-set --device cuda --shapes /tmp/cs.txt --dtype s8 \
    --layout nt --cache off --json >"$OUT/cutlass-$name.json" 2>"$OUT/cutlass-$name.err"
  e=$(date +%s.%N)
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); x=d["shapes"][0]
print(sys.argv[2], x.get("backend"), x.get("config"), "compilations", x.get("compilations"), x.get("selection"), f"{float(sys.argv[4])-float(sys.argv[3]):.1f} s")' \
    "$OUT/cutlass-$name.json" $name $s $e
done
python3 -c 'import sys; print(f"tune-set {float(sys.argv[2])-float(sys.argv[1]):.1f} s, bundle create {float(sys.argv[3])-float(sys.argv[2]):.1f} s")' $t0 $t1 $t2
cat "$OUT/bundle-show.txt" "$OUT/bundle-files.txt"
