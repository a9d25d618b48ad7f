#!/usr/bin/env bash
# Issue 34's sets on the Zen 5 VM (AMD EPYC family 26 model 2, 2 vCPUs, cpu/avx512_bf16/2t), at
# the kernels of HEAD: LLM f32 nn and nt (15 rounds), the small set (the hint table: run-hints.sh),
# gemmtune's own f32 kernels alone against oneDNN with AVX-512 and capped at AVX2 (three
# processes each), and the bf16 and s8 LLM nt sets. One run at a time under the CPU lock, each
# tuning afresh (--cache off). Run from the repository root.
set -u
R=bench/results/2026-12-01g-cpu-amd-zen5
BIN=build/bin/gemmtune
export GEMMTUNE_CACHE=off
run() {  # name, then the command's arguments
  local name=$1; shift
  echo "== $(date +%T) $name: $*" >&2
  flock /tmp/gemmtune-cpu.lock "$BIN" "$@" --json --out "$R/$name.json" 2>"$R/$name.log"
  echo "   rc=$? $(date +%T)" >&2
}
"$BIN" devices >"$R/devices.txt" 2>&1
printf '256 256 256\n384 384 384\n512 512 512\n1024 1024 1024\n2048 2048 2048\n' >"$R/own-f32.txt"
run llm-f32-nn bench --device cpu --cache off --dtype f32 --shapes llm --layout nn --bench-samples 15
run llm-f32-nt bench --device cpu --cache off --dtype f32 --shapes llm --bench-samples 15
run small-f32 bench --device cpu --cache off --dtype f32 --shapes small --bench-samples 15
for i in 1 2 3; do
  run own-f32-avx512-run$i bench --device cpu --cache off --backends cpu --peers onednn --layout nn --dtype f32 --shapes "$R/own-f32.txt"
done
for i in 1 2 3; do
  GEMMTUNE_CPU_ISA=avx2 DNNL_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell \
    run own-f32-avx2-run$i bench --device cpu --cache off --backends cpu --peers onednn --layout nn --dtype f32 --shapes "$R/own-f32.txt"
done
run llm-bf16-nt bench --device cpu --cache off --dtype bf16 --shapes llm
run llm-s8-nt bench --device cpu --cache off --dtype s8 --shapes llm
echo "== $(date +%T) done" >&2
