#!/bin/bash
# PROBE_FLAGS was a temporary patch of packed.h and cpu_pack.h for this A/B, not kept in the tree.
# A/B of the packed kernel's changes: PROBE_FLAGS bits revert one change each
# (1 far C prefetch, 2 near C prefetch, 4 read-all-then-write, 8 masked stores in the A pack).
cd /work/main
for rep in 1 2 3; do
  for s in 256 1024 2048; do
    for thr in 2 1; do
      [ $s = 2048 ] && [ $thr = 1 ] && continue
      for f in 0 15 8 3 4; do
        out=$(PROBE_FLAGS=$f PROBE_ROUNDS=7 build/bin/cpu_config_runner $s $s $s f32 nn \
          "bm=96 bn=1024 bk=256 mm=6 mn=16 thr=$thr isa=avx2" "bm=96 bn=512 bk=512 mm=6 mn=16 thr=$thr isa=avx2" "onednn:thr=$thr" 2>&1 | tail -3 | awk '{print $1}' | tr '\n' ' ')
        echo "rep=$rep size=$s thr=$thr flags=$f new_tile_us,old_tile_us,onednn_us: $out"
      done
    done
  done
done
