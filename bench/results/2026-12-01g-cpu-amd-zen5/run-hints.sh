#!/usr/bin/env bash
# The hint table of issue 34 on the Zen 5 VM, three processes (run-sets.sh's first try passed
# --out, which hints-table does not take: it prints its JSON).
set -u
R=bench/results/2026-12-01g-cpu-amd-zen5
for i in 1 2 3; do
  echo "== $(date +%T) hints-$i" >&2
  flock /tmp/gemmtune-cpu.lock build/bin/gemmtune hints-table --device cpu --cache off --dtype f32 --hints 64,256,1024 \
    --runtime 64,256,1024,100,500,800 --json >"$R/hints-$i.json" 2>"$R/hints-$i.log"
  echo "   rc=$? $(date +%T)" >&2
done
