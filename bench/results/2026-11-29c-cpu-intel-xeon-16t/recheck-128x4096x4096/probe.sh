#!/usr/bin/env bash
# Ad-hoc device probe (not committed): the Xeon's tuning of oneDNN at 128x4096x4096 nt, then LLM nn.
set -u
PACK=build-host-pack
mkdir -p "$PACK/lib" && tar -xJf "$PACK/libs.tar.xz" -C "$PACK/lib"
export LD_LIBRARY_PATH="$PWD/$PACK/lib"
export GEMMTUNE_CACHE=off
bin=$PACK/bin
L=$OUT/probe; mkdir -p "$L"
start=$SECONDS
left() { echo $((${BUDGET:-560} - (SECONDS - start))); }
lscpu | head -20 > "$L/lscpu.txt"; uptime >> "$L/lscpu.txt"; nvidia-smi --query-gpu=utilization.gpu --format=csv >> "$L/lscpu.txt" 2>&1
T="--m 128 --n 4096 --k 4096 --dtype f32 --layout nt"
for i in 1 2 3; do
  timeout 60 "$bin/gemmtune" tune $T --json --verbose >"$L/tune-$i.json" 2>"$L/tune-$i.err"
  echo "tune $i: $? at $((SECONDS-start)) s"
done
timeout 60 "$bin/gemmtune" tune $T --json --verbose --backends onednn >"$L/tune-onednn.json" 2>"$L/tune-onednn.err"
timeout 60 "$bin/gemmtune" tune $T --json --verbose --backends onednn,cpu --search exhaustive --benchmark top:4 >"$L/tune-top4.json" 2>"$L/tune-top4.err"
echo "tune variants at $((SECONDS-start)) s"
timeout 60 "$bin/cpu_config_runner" 128 4096 4096 f32 nt "bm=96 bn=1024 bk=512 mm=6 mn=64 thr=16 isa=avx512" onednn: >"$L/runner.txt" 2>&1
timeout 60 "$bin/cpu_config_runner" 128 4096 4096 f32 nt onednn: "bm=96 bn=1024 bk=512 mm=6 mn=64 thr=16 isa=avx512" >"$L/runner-2.txt" 2>&1
echo "128 4096 4096" >/tmp/s
for i in 1 2; do
  timeout 90 "$bin/gemmtune" bench --device cpu --dtype f32 --shapes /tmp/s --layout nt --json --verbose --out "$L/bench-$i.json" 2>"$L/bench-$i.err"
done
echo "probes done at $((SECONDS-start)) s"
timeout "$(left)" "$bin/gemmtune" bench --device cpu --dtype f32 --shapes "${LLM_SHAPES:-llm}" --layout nn --json --out "$L/llm-nn.json" 2>"$L/llm-nn.err"
echo "llm nn: exit $? at $((SECONDS-start)) s"; tail -2 "$L/llm-nn.err"
tar -czf "$OUT/probe.tgz" -C "$OUT" probe && rm -rf "$L"
