#!/usr/bin/env bash
# Cold tuning (each kernel's first compile on the machine: CUDA's JIT cache off, empty cubin
# cache), then a second process with the cubin cache; bf16 shapes of issue 29 without CUTLASS,
# then s8 1024x4096x4096 with the CUTLASS family (issue 31's compile target).
set -u
cd "$(dirname "$0")/../../.."
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:${LD_LIBRARY_PATH:-}
export GEMMTUNE_CACHE=off
B=build-gpu/bin/gemmtune
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
lscpu | grep -E "Model name|^CPU\(s\)" >> $OUT/gpu.txt
summ() { /usr/bin/python3 -c "
import json,sys
r=json.load(open(sys.argv[1])); ch=r['choices']
w=lambda k: max((c.get(k,-1) for c in ch), default=-1)
print(f\"{sys.argv[2]:>28} {r['tuning_s']:6.2f} s  compiles {r.get('compilations')}  choices {len(ch)}  slowest compile {w('compile_s'):.2f}  phases \" + ', '.join(f'{k[:-2]} {v:.2f}' for k,v in r.get('phases',{}).items()))
" "$1" "$2"; }
mkdir -p /tmp/t
for shape in "256 4096 4096" "512 4096 4096" "300 6144 4096" "256 14336 4096" "32 4096 4096" "1 4096 4096" "1024 14336 4096"; do
  set -- $shape; cc=$(mktemp -d); tag="$1x$2x$3"
  CUDA_CACHE_DISABLE=1 GEMMTUNE_CUBIN_CACHE=$cc $B tune --device cuda --m $1 --n $2 --k $3 --dtype bf16 --layout nt --json > /tmp/t/$tag-cold.json 2>/tmp/t/$tag-cold.err
  GEMMTUNE_CUBIN_CACHE=$cc $B tune --device cuda --m $1 --n $2 --k $3 --dtype bf16 --layout nt --json > /tmp/t/$tag-warm.json 2>/tmp/t/$tag-warm.err
  summ /tmp/t/$tag-cold.json "bf16 $tag cold" | tee -a $OUT/cold.txt
  summ /tmp/t/$tag-warm.json "bf16 $tag second" | tee -a $OUT/cold.txt
done
export GEMMTUNE_CUTLASS_DIR=/tmp/cutlass; mkdir -p $GEMMTUNE_CUTLASS_DIR
tar -xJf build-gpu/deps/cutlass-headers.tar.xz -C $GEMMTUNE_CUTLASS_DIR
cc=$(mktemp -d)
CUDA_CACHE_DISABLE=1 GEMMTUNE_CUBIN_CACHE=$cc /usr/bin/time -f "%e s wall %U s user" $B tune --device cuda --m 1024 --n 4096 --k 4096 --dtype s8 --layout nt --json > /tmp/t/s8-cutlass-cold.json 2>/tmp/t/s8-cutlass-cold.err
tail -1 /tmp/t/s8-cutlass-cold.err >> $OUT/cold.txt
GEMMTUNE_CUBIN_CACHE=$cc /usr/bin/time -f "%e s wall %U s user" $B tune --device cuda --m 1024 --n 4096 --k 4096 --dtype s8 --layout nt --json > /tmp/t/s8-cutlass-warm.json 2>/tmp/t/s8-cutlass-warm.err
tail -1 /tmp/t/s8-cutlass-warm.err >> $OUT/cold.txt
summ /tmp/t/s8-cutlass-cold.json "s8 1024x4096x4096 +cutlass cold" | tee -a $OUT/cold.txt
summ /tmp/t/s8-cutlass-warm.json "s8 1024x4096x4096 +cutlass second" | tee -a $OUT/cold.txt
/usr/bin/python3 -c "
import json
for f in ['/tmp/t/s8-cutlass-cold.json']:
    r=json.load(open(f))
    for c in r['choices']:
        if c.get('backend')=='cutlass': print('cutlass choice', c.get('config'), 'compile_s', c.get('compile_s'), c.get('status'))
    print('pick', r.get('pick', r.get('backend')), r.get('config'))
" >> $OUT/cold.txt 2>&1
tar czf $OUT/tunings.tgz -C /tmp/t .
cat $OUT/cold.txt
