#!/usr/bin/env bash
# End to end through the CLI: sweep (and resume), train, eval, tune with the cost model and the
# lookup table, and a clear error with a non-zero exit for each kind of bad input.
# Prints "N passed, N failed".
set -u
CLI=$1
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TIMING="--samples 1 --min-sample-ms 0.05"
export GEMMTUNE_MODEL_DIR="$tmp/no-models"

ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAILED: $1"; }
# expect NAME RC MESSAGE ARGS...: exit status RC and MESSAGE on stderr.
expect() {
  local name=$1 want=$2 message=$3
  shift 3
  "$CLI" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -eq "$want" ] && grep -qF -- "$message" "$tmp/err"; then ok "$name"; else
    bad "$name (rc $rc, stderr: $(head -c 600 "$tmp/err"))"; fi
}
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }

for cmd in sweep lut model; do
  if out=$("$CLI" "$cmd" --help) && grep -q "usage: gemmtune $cmd" <<<"$out"; then ok "$cmd --help"; else bad "$cmd --help"; fi
done

# --- sweep: rows, resume, refusal of another sweep ---
printf '8 8 8\n24 40 16\n3 50 7\n64 32 48\n' >"$tmp/train.txt"
printf '16 24 32\n40 8 24\n' >"$tmp/heldout.txt"
SWEEP="sweep --device cpu --dtype f32 --space exhaustive --backends cpu,openblas $TIMING"
"$CLI" $SWEEP --shapes "$tmp/train.txt" --out "$tmp/train.csv" 2>"$tmp/err"
rows=$(grep -c '^[0-9]' "$tmp/train.csv")
if [ "$rows" -gt 20 ] && [ "$(grep -c '^# done' "$tmp/train.csv")" = 4 ] && grep -q '\[4/4\]' "$tmp/err"; then
  ok "sweep writes every config of each shape ($rows rows) with progress"; else bad "sweep ($(tail -3 "$tmp/err"))"; fi
"$CLI" $SWEEP --shapes "$tmp/train.txt" --out "$tmp/train.csv" 2>"$tmp/err"
if grep -q "0 shapes measured, 4 already there" "$tmp/err"; then ok "a finished sweep resumes to nothing"; else
  bad "resume ($(cat "$tmp/err"))"; fi
# An interruption in the middle of the last shape: cut the file inside its rows.
cp "$tmp/train.csv" "$tmp/cut.csv"
lines=$(wc -l <"$tmp/cut.csv")
head -n $((lines - 3)) "$tmp/cut.csv" >"$tmp/cut2.csv" && mv "$tmp/cut2.csv" "$tmp/cut.csv"
"$CLI" $SWEEP --shapes "$tmp/train.txt" --out "$tmp/cut.csv" 2>"$tmp/err"
if grep -q "1 shapes measured, 3 already there" "$tmp/err" && [ "$(grep -c '^# done' "$tmp/cut.csv")" = 4 ]; then
  ok "an interrupted shape is measured again"; else bad "interrupted resume ($(cat "$tmp/err"))"; fi
"$CLI" $SWEEP --shapes "$tmp/heldout.txt" --out "$tmp/heldout.csv" 2>/dev/null
"$CLI" sweep --device cpu --space exhaustive --backends cpu,openblas --samples 2 --min-sample-ms 0.05 \
  --shapes "$tmp/heldout.txt" --out "$tmp/heldout.csv" >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 3 ] && grep -qF "its '# meta:' line differs" "$tmp/err"; then ok "a sweep of other settings is refused (exit 3)"; else
  bad "other settings ($(cat "$tmp/err"))"; fi
# A sample of each backend's space: at most N rows of each per shape, the same ones every run,
# and a sweep of another sample size is another sweep.
"$CLI" $SWEEP --configs-per-backend 3 --shapes "$tmp/train.txt" --out "$tmp/sample.csv" 2>/dev/null
"$CLI" $SWEEP --configs-per-backend 3 --shapes "$tmp/train.txt" --out "$tmp/sample2.csv" 2>/dev/null
most=$(grep '^[0-9]' "$tmp/sample.csv" | cut -d, -f1-3,5 | sort | uniq -c | sort -rn | head -1 | awk '{print $1}')
cpu_rows=$(grep -c '^[0-9][^,]*,[^,]*,[^,]*,[^,]*,cpu,' "$tmp/sample.csv")
if [ "$most" = 3 ] && [ "$cpu_rows" = 12 ] && grep -q '"configs_per_backend":3' "$tmp/sample.csv" &&
   [ "$(grep '^[0-9]' "$tmp/sample.csv" | cut -d, -f1-6)" = "$(grep '^[0-9]' "$tmp/sample2.csv" | cut -d, -f1-6)" ]; then
  ok "--configs-per-backend samples each backend's space, the same configs every run"; else
  bad "--configs-per-backend (most $most, cpu rows $cpu_rows)"; fi
"$CLI" $SWEEP --configs-per-backend 4 --shapes "$tmp/train.txt" --out "$tmp/sample.csv" >/dev/null 2>"$tmp/err"
if [ $? -eq 3 ]; then ok "a sweep of another sample size is refused (exit 3)"; else bad "other sample size ($(cat "$tmp/err"))"; fi
expect "--configs-per-backend must be positive" 2 "--configs-per-backend must be in [1" $SWEEP --configs-per-backend 0 --shapes small --out "$tmp/x.csv"
expect "sweep needs --out" 2 "--out FILE.csv is required" sweep --shapes small
expect "sweep without a GPU" 1 "cuda" sweep --device cuda --shapes small --out "$tmp/gpu.csv"
"$CLI" $SWEEP --shapes random:40:5 --max-flops 1e5 --max-shapes 40 --max-minutes 0.00001 --out "$tmp/part.csv" 2>"$tmp/err"
if [ $? -eq 75 ] && grep -q "run again to resume" "$tmp/err"; then ok "--max-minutes stops with exit 75"; else
  bad "--max-minutes ($(tail -2 "$tmp/err"))"; fi

"$CLI" devices --json >"$tmp/devices.json"
if json "$tmp/devices.json" 'assert d["cost_model"]' 2>/dev/null; then
  # --- bad sweep files ---
  sed '4s/$/,extra/' "$tmp/train.csv" >"$tmp/badrow.csv"
  expect "a malformed row is named with its line" 1 "badrow.csv:4: expected 17 fields" model train --data "$tmp/badrow.csv" --out "$tmp/m.json"
  echo "m,n,k" >"$tmp/notsweep.csv"
  expect "a file that is no sweep is refused" 1 "not a sweep file" model eval --data "$tmp/notsweep.csv" --model "$tmp/m.json"

  # --- train, info, eval ---
  "$CLI" model train --data "$tmp/train.csv" --out "$tmp/model.json" --rounds 30 --depth 4 2>"$tmp/err"
  if [ -s "$tmp/model.json" ] && grep -q "trained" "$tmp/err"; then ok "model train"; else bad "model train ($(cat "$tmp/err"))"; fi
  # Four shapes are too few to fit the k --fast times: train says so, info shows the default.
  if grep -q -- "--fast times its top 5 (k not fitted: fewer than 20 training shapes" "$tmp/err"; then
    ok "model train says which k --fast times"; else bad "model train's k ($(cat "$tmp/err"))"; fi
  "$CLI" model info "$tmp/model.json" --json >"$tmp/info.json"
  if json "$tmp/info.json" 'assert d["training_shapes"] == 4 and "cpu" in d["backends"] and d["problem_kinds"] == ["f32.f32.f32:nn"] and d["fast_top_k"] == 5 and not d["fast_top_k_fitted"]'; then
    ok "model info"; else bad "model info"; fi
  # upgrade: a model of this build's version is rewritten as it is; what is no model is refused.
  cp "$tmp/model.json" "$tmp/again.json"
  if "$CLI" model upgrade "$tmp/again.json" >"$tmp/out" 2>"$tmp/err" && grep -q "version 2 -> 2" "$tmp/out" && \
     "$CLI" model info "$tmp/again.json" --json >"$tmp/again-info.json" && cmp -s "$tmp/info.json" "$tmp/again-info.json"; then
    ok "model upgrade"; else bad "model upgrade ($(cat "$tmp/err"))"; fi
  expect "model upgrade without a file" 2 "model upgrade needs a MODEL file" model upgrade
  expect "model upgrade of a file that is no model" 1 "not valid JSON" model upgrade "$tmp/heldout.csv"
  "$CLI" model eval --data "$tmp/heldout.csv" --model "$tmp/model.json" --top-k 3 --curve 5 --json >"$tmp/eval.json" 2>"$tmp/err"
  if json "$tmp/eval.json" 'assert d["k"] == 3 and d["shapes"] == 2 and 0 < d["quality_geomean"] <= 1 and 0 < d["time_fraction"] and len(d["curve"]) == 5 and len(d["per_shape"]) == 2'; then
    ok "model eval --json"; else bad "model eval ($(cat "$tmp/err"))"; fi
  if command -v gnuplot >/dev/null; then
    "$CLI" model eval --data "$tmp/heldout.csv" --model "$tmp/model.json" --plot "$tmp/eval.png" >/dev/null 2>"$tmp/err"
    # The picture alone: gnuplot's data and script went to a scratch directory, now removed.
    if [ -s "$tmp/eval.png" ] && [ -z "$(ls "$tmp"/eval.png?* 2>/dev/null)" ]; then ok "model eval --plot"; else
      bad "model eval --plot ($(cat "$tmp/err"; ls "$tmp"))"; fi
  fi
  expect "eval on the training shapes only" 2 "no held-out shape" model eval --data "$tmp/train.csv" --model "$tmp/model.json"
  expect "eval without a shipped model" 2 "no cost model for this device" model eval --data "$tmp/heldout.csv"
  # Found where it is shipped.
  mkdir -p "$tmp/models" && cp "$tmp/model.json" "$tmp/models/"
  if GEMMTUNE_MODEL_DIR="$tmp/models" "$CLI" model eval --data "$tmp/heldout.csv" >/dev/null 2>&1; then
    ok "eval finds the shipped model of the data's device"; else bad "shipped model"; fi

  # --- tune with the model ---
  "$CLI" tune --m 20 --n 30 --k 40 --search exhaustive --benchmark top:3 --model "$tmp/model.json" \
    --backends cpu,openblas --json $TIMING >"$tmp/tune.json" 2>"$tmp/err"
  # Three, and the best-ranked config of each other kernel family predicted close, which the
  # selection counts.
  if json "$tmp/tune.json" 'import re; s = d["selection"]; assert s.startswith("cost model: top 3 of"), s; m = re.search(r"and the best-ranked of (\d+) more kernel famil", s); added = int(m.group(1)) if m else 0; assert sum(c["backend"] in ("cpu", "openblas") for c in d["choices"]) == 3 + added, s; assert d["best"] is not None'; then
    ok "tune --benchmark top:3 times three choices and the close families' best"; else bad "tune top:3 ($(cat "$tmp/err"))"; fi
  GEMMTUNE_MODEL_DIR="$tmp/models" "$CLI" tune --m 20 --n 30 --k 40 --fast --backends cpu,openblas --json $TIMING \
    >"$tmp/fast.json" 2>"$tmp/err"
  if json "$tmp/fast.json" 'assert "cost model: top 5" in d["selection"], d["selection"]'; then
    ok "--fast finds the shipped model"; else bad "--fast ($(cat "$tmp/err"))"; fi
  # A model of another device: reported, not used, tuning goes on with the default space.
  sed '2s/"device":"cpu|/"device":"cpu|Another|/' "$tmp/train.csv" >"$tmp/other.csv"
  "$CLI" model train --data "$tmp/other.csv" --out "$tmp/other-model.json" --rounds 5 2>/dev/null
  "$CLI" tune --m 20 --n 30 --k 40 --fast --model "$tmp/other-model.json" --json $TIMING >"$tmp/other.json" 2>"$tmp/err"
  if [ $? -eq 0 ] && grep -q "cost model not used" "$tmp/err" && grep -q "was trained on device" "$tmp/err" && \
     json "$tmp/other.json" 'assert "without a usable cost model" in d["selection"]'; then
    ok "a model of another device is reported and not used"; else bad "other device ($(cat "$tmp/err"))"; fi
  expect "eval of a model on data of another device" 1 "was trained on device" model eval --data "$tmp/heldout.csv" --model "$tmp/other-model.json"
  # Where neither this device nor its class has a model, the one of the nearest CPU class stands
  # in, says so, and --fast times twice its k (5 unfitted: 10).
  sed -e '2s/"device":"cpu|/"device":"cpu|Far|/' -e '2s/"device_class":"[^"]*"/"device_class":"cpu\/generic\/64t"/' \
    "$tmp/train.csv" >"$tmp/far.csv"
  mkdir -p "$tmp/far-models"
  "$CLI" model train --data "$tmp/far.csv" --out "$tmp/far-models/far.json" --rounds 5 2>/dev/null
  GEMMTUNE_MODEL_DIR="$tmp/far-models" "$CLI" tune --m 20 --n 30 --k 40 --fast --backends cpu,openblas --json $TIMING \
    >"$tmp/far.json" 2>"$tmp/err"
  if grep -q "the one of the nearest class, cpu/generic/64t" "$tmp/err" && grep -q "top 10, twice the k" "$tmp/err" &&
     json "$tmp/far.json" 'assert "cost model: top 10" in d["selection"], d["selection"]'; then
    ok "a model of the nearest class stands in, at twice its k"; else bad "nearest class ($(cat "$tmp/err"))"; fi
  # Trained across devices on purpose: the device's features join the model's, it names both,
  # and it ranks held-out shapes of either.
  "$CLI" model train --across-devices --data "$tmp/train.csv,$tmp/far.csv" --out "$tmp/across.json" --rounds 5 2>"$tmp/err"
  "$CLI" model info "$tmp/across.json" --json >"$tmp/across-info.json"
  if grep -q "trained across 2 devices" "$tmp/err" && json "$tmp/across-info.json" \
     'assert len(d["devices"]) == 2 and d["features"][-3:] == ["device_isa_level", "device_threads", "device_l2_kib"]'; then
    ok "model train --across-devices"; else bad "across devices ($(cat "$tmp/err"))"; fi
  if "$CLI" model eval --data "$tmp/heldout.csv" --model "$tmp/across.json" --top-k 2 >/dev/null 2>"$tmp/err"; then
    ok "a model trained across devices ranks one of them"; else bad "eval across ($(cat "$tmp/err"))"; fi
  # Where the class has no model of its own, one trained across classes that span it stands in,
  # says so, and --fast times twice its k.
  mkdir -p "$tmp/across-models" && cp "$tmp/across.json" "$tmp/across-models/"
  GEMMTUNE_MODEL_DIR="$tmp/across-models" "$CLI" tune --m 20 --n 30 --k 40 --fast --backends cpu,openblas --json $TIMING \
    >"$tmp/across-tune.json" 2>"$tmp/err"
  if grep -q "one trained across the classes .*, which span it, ranks the choices instead" "$tmp/err" &&
     grep -q "top 10, twice its k" "$tmp/err" && json "$tmp/across-tune.json" 'assert "cost model: top 10" in d["selection"], d["selection"]'; then
    ok "a model trained across classes that span this one stands in"; else bad "across stand-in ($(cat "$tmp/err"))"; fi
  GEMMTUNE_MODEL_DIR="$tmp/across-models" "$CLI" devices --json >"$tmp/across-devices.json"
  if json "$tmp/across-devices.json" 'm = d["cpu_cost_model"]; assert m["found"] and m["fit"] == "trained across classes that span it" and m["fast_top_k"] == 10, m'; then
    ok "devices names the model --fast would use and its k"; else bad "devices' model ($(cat "$tmp/across-devices.json" | tail -8))"; fi
  GEMMTUNE_MODEL_DIR="$tmp/none" "$CLI" devices >"$tmp/none-devices.txt"
  if grep -q "none for the CPU (no cost model for this device" "$tmp/none-devices.txt"; then
    ok "devices says when no model serves the CPU"; else bad "devices without a model ($(cat "$tmp/none-devices.txt"))"; fi
  expect "across devices needs two" 2 "two devices or more" model train --across-devices --data "$tmp/train.csv" --out "$tmp/x.json"
  expect "two devices need --across-devices" 2 "a model is trained on one device" model train --data "$tmp/train.csv,$tmp/far.csv" --out "$tmp/x.json"
  printf 'garbage' >"$tmp/garbage.json"
  expect "a damaged model file" 1 "not valid JSON" model eval --data "$tmp/heldout.csv" --model "$tmp/garbage.json"
else
  expect "model train without XGBoost says so" 1 "no learned cost model" model train --data "$tmp/train.csv" --out "$tmp/m.json"
fi
"$CLI" tune --m 20 --n 30 --k 40 --fast --json $TIMING >"$tmp/nomodel.json" 2>"$tmp/err"
if [ $? -eq 0 ] && grep -q "cost model not used" "$tmp/err" && json "$tmp/nomodel.json" 'assert "default space" in d["selection"]'; then
  ok "--fast without a model tunes the default space and says why"; else bad "--fast without model ($(cat "$tmp/err"))"; fi
expect "--fast with --search" 2 "give either --fast or --search/--benchmark" tune --m 8 --n 8 --k 8 --fast --search default
expect "bad benchmark space" 2 "expected all or top:K" tune --m 8 --n 8 --k 8 --benchmark top:0

# --- lookup table: export, validate, use, corrupt, seal ---
export GEMMTUNE_CACHE="$tmp/store.sqlite"
"$CLI" tune --m 24 --n 40 --k 16 --backends cpu,openblas $TIMING >/dev/null 2>&1
"$CLI" tune --m 16 --n 16 --k 16 --backends cpu,openblas $TIMING >/dev/null 2>&1
"$CLI" lut export "$tmp/lut.json" --configs 2 --mode use 2>"$tmp/err"
if grep -q "exported 2 entries" "$tmp/err" && out=$("$CLI" lut validate "$tmp/lut.json") && grep -q "ok, 2 entries" <<<"$out"; then
  ok "lut export then validate"; else bad "lut export ($(cat "$tmp/err"))"; fi
GEMMTUNE_CACHE=off GEMMTUNE_LUT="$tmp/lut.json" "$CLI" tune --m 24 --n 40 --k 16 --json $TIMING >"$tmp/lut-tune.json" 2>"$tmp/err"
if json "$tmp/lut-tune.json" 'assert "used without tuning" in d["selection"], d["selection"]; assert len(d["choices"]) == 1'; then
  ok "GEMMTUNE_LUT with mode use: no tuning"; else bad "lut use ($(cat "$tmp/err"))"; fi
sed 's/"mode": "use"/"mode": "sometimes"/' "$tmp/lut.json" >"$tmp/broken.json"
"$CLI" lut validate "$tmp/broken.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
line=$(grep -n '"sometimes"' "$tmp/broken.json" | head -1 | cut -d: -f1)
if [ "$rc" -eq 1 ] && grep -q "broken.json:$line: entry 0: 'mode' is \"sometimes\"" "$tmp/err" && grep -q "checksum" "$tmp/err"; then
  ok "lut validate names each problem with its line"; else bad "lut validate ($(cat "$tmp/err"))"; fi
GEMMTUNE_CACHE=off "$CLI" tune --m 24 --n 40 --k 16 --lut "$tmp/broken.json" --json $TIMING >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && grep -q "lookup table not used" "$tmp/err" && json "$tmp/out" 'assert d["best"] is not None and len(d["choices"]) > 1'; then
  ok "a malformed table is reported and tuning goes on"; else bad "malformed lut ($(cat "$tmp/err"))"; fi
sed 's/"mode": "use"/"mode": "include"/' "$tmp/lut.json" >"$tmp/edited.json"
if ! "$CLI" lut validate "$tmp/edited.json" >/dev/null 2>&1 && "$CLI" lut seal "$tmp/edited.json" >/dev/null && \
   "$CLI" lut validate "$tmp/edited.json" >/dev/null; then
  ok "lut seal accepts a deliberate edit"; else bad "lut seal"; fi
expect "lut seal of a broken table" 1 "not sealed" lut seal "$tmp/broken.json"
expect "lut without a subcommand" 2 "lut needs a subcommand" lut
expect "lut export --mode" 2 "unknown lookup-table mode" lut export "$tmp/x.json" --mode sometimes

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
