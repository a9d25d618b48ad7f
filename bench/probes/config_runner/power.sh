#!/usr/bin/env bash
# Runs each given config of one shape alone for a few seconds while nvidia-smi samples the SM
# clock, the board's power and the throttle reasons (read only: nothing is set), and prints per
# config its time, rate, mean clock and power, and whether the power cap was active. Answers
# "is this kernel slower per clock, or held to a lower clock by the board's power cap?"
#
# On the GPU machine, from the repository root (config_runner built by
# scripts/gpu-check --build-only; GEMMTUNE_CUTLASS_DIR set for cutlass configs):
#   bench/probes/config_runner/power.sh 4096 14336 4096 s8 nt \
#     "cutlass:bm=128 bn=256 bk=128 cm=1 cn=1" "cublaslt:rank=1"
# Every config needs its family prefix. PROBE_ROUNDS (default 60) sets each run's length.
set -euo pipefail
[ $# -ge 6 ] || { echo "usage: power.sh M N K DTYPE LAYOUT FAMILY:CONFIG [FAMILY:CONFIG ...]" >&2; exit 2; }
m=$1 n=$2 k=$3 dtype=$4 layout=$5
shift 5
runner=${CONFIG_RUNNER:-build-gpu/bin/config_runner}
trace=$(mktemp)
trap 'kill "$sampler" 2>/dev/null; rm -f "$trace"' EXIT
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.sw_power_cap,temperature.gpu \
  --format=csv,noheader,nounits -lms 100 >"$trace" &
sampler=$!
sleep 1
printf '%-58s %9s %9s %8s %7s %9s %5s\n' config us rate MHz W cap_share degC
for config in "$@"; do
  family=${config%%:*}
  # Built (and cached) first, untimed, so the trace covers the kernel's runs only.
  PROBE_LAUNCHES=2 "$runner" "$family" "$m" "$n" "$k" "$dtype" "$layout" "${config#*:}" >/dev/null
  begin=$(date +%s.%N)
  line=$(PROBE_ROUNDS=${PROBE_ROUNDS:-60} "$runner" "$family" "$m" "$n" "$k" "$dtype" "$layout" "${config#*:}" | tail -1)
  end=$(date +%s.%N)
  python3 - "$trace" "$begin" "$end" "$config" "$line" <<'PY'
import datetime, sys
trace, begin, end, config, line = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
# Leave out the first 40 % of the run: the set-up (operand copies) and the clock's settling.
begin += 0.4 * (end - begin)
rows = []
for raw in open(trace):
    f = [x.strip() for x in raw.split(",")]
    try:
        t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        if begin <= t <= end:
            rows.append((float(f[1]), float(f[2]), f[3] == "Active", float(f[4])))
    except (ValueError, IndexError):
        pass
words = line.split()
us, rate = words[0], words[4]
if rows:
    mean = lambda i: sum(r[i] for r in rows) / len(rows)
    print(f"{config:<58} {us:>9} {rate:>9} {mean(0):>8.0f} {mean(1):>7.0f} {mean(2):>9.2f} {mean(3):>5.0f}")
else:
    print(f"{config:<58} {us:>9} {rate:>9}  (no samples in the run's window)")
PY
done
