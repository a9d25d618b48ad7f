#!/usr/bin/env bash
# End-to-end tests of the gemmtune CLI: help, JSON shape, the best choice's correctness, and
# clear errors with non-zero exits for bad arguments. Prints "N passed, N failed".
set -u
CLI=$1
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FAST="--samples 1 --min-sample-ms 0.1"

ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAILED: $1"; }

# expect_fail NAME EXPECTED_MESSAGE ARGS...: exit code 2 and the message on stderr.
expect_fail() {
  local name=$1 message=$2
  shift 2
  "$CLI" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$message" "$tmp/err"; then ok "$name"; else
    bad "$name (rc $rc, stderr: $(cat "$tmp/err"))"; fi
}

# A CPU ISA cap that names no level is an error, not an uncapped run.
GEMMTUNE_CPU_ISA=avx9 expect_fail "an unknown GEMMTUNE_CPU_ISA" "GEMMTUNE_CPU_ISA='avx9' is not one of" \
  tune --m 8 --n 8 --k 8 --dtype f32

for cmd in devices tune bench demo; do
  if out=$("$CLI" "$cmd" --help) && grep -q "usage: gemmtune $cmd" <<<"$out"; then ok "$cmd --help"; else bad "$cmd --help"; fi
done
if out=$("$CLI" --help) && grep -q "commands:" <<<"$out"; then ok "--help"; else bad "--help"; fi

if "$CLI" devices --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["devices"][0]["cpu"]["logical_cores"] >= 1; assert any(b["name"]=="cpu" for b in d["backends"])'; then
  ok "devices --json"; else bad "devices --json"; fi

# The issue's acceptance command: reference, cpu, onednn and openblas listed with times; the
# best is ok (verified against the reference before timing).
"$CLI" tune --device cpu --m 100 --n 300 --k 200 --dtype f32 --json $FAST >"$tmp/tune.json" 2>"$tmp/err"
if python3 - "$tmp/tune.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for key in ("problem", "device", "choices", "best", "tuning_s"):
    assert key in d, key
backends = {c["backend"] for c in d["choices"] if c["time_us"] is not None}
for b in ("reference", "cpu", "onednn", "openblas"):
    assert b in backends, f"{b} has no time: {backends}"
for c in d["choices"]:
    assert set(("backend", "config", "time_us", "status")) <= set(c), c
best = d["choices"][d["best"]["index"]]
# error: the largest |error| / bound over C, below 1 for a verified choice.
assert best["status"] == "ok" and 0 <= best["error"] < 1, best
assert d["problem"]["m"] == 100 and d["problem"]["n"] == 300 and d["problem"]["k"] == 200
PY
then ok "tune --json lists every backend with times and a verified best"; else bad "tune --json ($(cat "$tmp/err"))"; fi

for dtype in f16 bf16 s8; do
  # Captured first: a pipe into grep -q would lose the CLI's exit code.
  if out=$("$CLI" tune --m 17 --n 33 --k 65 --dtype $dtype --layout tn $FAST) && grep -q "choices benchmarked" <<<"$out"; then
    ok "tune --dtype $dtype"; else bad "tune --dtype $dtype"; fi
done

expect_fail "negative m" "--m must be in [0, ...] (got -5)" tune --m -5 --n 3 --k 3
expect_fail "unknown dtype" "--dtype: unknown dtype 'f7'" tune --m 5 --n 3 --k 3 --dtype f7
expect_fail "missing value" "--n needs a value" tune --m 5 --n --k 3
expect_fail "missing value at the end" "--k needs a value" tune --m 5 --n 3 --k
expect_fail "required option" "--k is required" tune --m 5 --n 3
expect_fail "unknown option" "unknown option '--bogus'" tune --m 5 --n 3 --k 3 --bogus 1
expect_fail "bad layout" "unknown layout 'xy'" tune --m 5 --n 3 --k 3 --layout xy
expect_fail "bad leading dimension" "lda must be >= 3" tune --m 5 --n 3 --k 3 --lda 2
expect_fail "bad number" "--m: expected an integer, got '5x'" tune --m 5x --n 3 --k 3
expect_fail "unknown device" "unknown device 'tpu'" tune --device tpu --m 5 --n 3 --k 3
expect_fail "unknown backend" "backend 'nonesuch' is not available" tune --m 5 --n 3 --k 3 --backends nonesuch
expect_fail "unknown command" "unknown command 'frobnicate'" frobnicate
expect_fail "bench without shapes" "--shapes is required" bench
expect_fail "unknown peer" "--peers 'nonesuch': none of these peer libraries" bench --shapes small --peers nonesuch
expect_fail "unreadable shape file" "is not small, skinny, llm, square, random:COUNT:SEED or a readable file" bench --shapes /nonexistent
expect_fail "bench samples out of range" "--bench-samples must be in [1, 1000] (got 0)" bench --shapes small --bench-samples 0
printf '8 8 8\n# comment\n1 2\n' >"$tmp/bad_shapes"
expect_fail "malformed shape file" "bad_shapes:3: expected three non-negative integers" bench --shapes "$tmp/bad_shapes"
# A Redis URL where the store's file goes is refused, and makes no file named after it.
(cd "$tmp" && expect_fail "a URL for the store file" "--cache: the local tuning store is a SQLite file path (or off), not a URL" \
  tune --m 8 --n 8 --k 8 --cache redis://127.0.0.1:1)
(cd "$tmp" && GEMMTUNE_CACHE=redis://127.0.0.1:1 expect_fail "a URL in GEMMTUNE_CACHE" "GEMMTUNE_CACHE: the local tuning store" \
  tune --m 8 --n 8 --k 8)
if [ -e "$tmp/redis:" ]; then bad "a URL for the store file made $tmp/redis:"; else ok "a URL for the store file made no file"; fi

printf '# M N K\n8 8 8\n17 33 65\n' >"$tmp/shapes"
if "$CLI" bench --device cpu --dtype f32 --shapes "$tmp/shapes" --json $FAST --bench-samples 4 2>"$tmp/err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["shapes"]) == 2
for s in d["shapes"]:
    assert s["gemmtune_us"] > 0 and "onednn" in s["peers"] and "openblas" in s["peers"], s
    assert s["gemmtune_kernel_us"] > 0, s
    # Four rounds of the best peer against Session::gemm: quartiles around the median.
    r = s["best_peer"]["ratio_by_round"]
    assert 0 < r["q1"] <= r["median"] <= r["q3"], r
    # The ratios are read round by round: the best peer ratio is that median, and the lowest
    # of the peers (the best peer is the one that reads fastest against Session::gemm).
    assert abs(s["best_peer"]["ratio"] - r["median"]) < 1e-12, (s["best_peer"], r)
    assert s["best_peer"]["ratio_of_medians"] > 0, s["best_peer"]
    ran = [p["ratio"] for p in s["peers"].values() if p["time_us"] is not None]
    assert s["best_peer"]["ratio"] == min(ran), (s["best_peer"], ran)
    # oneDNN per call is its sgemm (kernel=sgemm); OpenBLAS has no other way to be called.
    assert s["peers"]["onednn"]["per_call_config"].endswith("kernel=sgemm"), s
    assert s["peers"]["openblas"]["per_call_time_us"] > 0, s
    if "libxsmm" in s["peers"] and s["peers"]["libxsmm"]["time_us"] is not None:
        assert s["peers"]["libxsmm"]["per_call_config"] == "kernel=per_call", s
# The comparison takes its own sample count; tuning keeps --samples.
assert d["bench_samples"] == 4 and d["tuning_samples"] != 4, (d["bench_samples"], d["tuning_samples"])
for key in ("best_peer", "best_peer_per_call", "best_peer_kernel"):
    assert key in d["geomean_ratio"], key
' && grep -q "\[2/2\]" "$tmp/err"; then ok "bench --json on a shape file, progress on stderr"; else bad "bench --json"; fi

# --out: the same JSON in a file, rewritten after each shape ("complete" once all are in); a path
# that cannot be written fails before the first tuning, naming it.
if "$CLI" bench --device cpu --dtype f32 --shapes "$tmp/shapes" --json $FAST --out "$tmp/bench.json" \
    >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/out" ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is True and d["shapes_planned"] == 2 and len(d["shapes"]) == 2, d
' "$tmp/bench.json" && ! ls "$tmp"/bench.json.tmp.* >/dev/null 2>&1; then ok "bench --out FILE"; else
  bad "bench --out ($(tail -3 "$tmp/err"))"; fi
"$CLI" bench --device cpu --dtype f32 --shapes "$tmp/shapes" --json $FAST --out "$tmp/no/such/dir/b.json" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -qF "cannot write $tmp/no/such/dir/b.json" "$tmp/err" && ! grep -q "\[1/2\]" "$tmp/err"; then
  ok "bench --out to a missing directory fails before tuning"; else bad "bench --out missing dir (rc $rc: $(cat "$tmp/err"))"; fi

# The multi-kernel table over a layout (nt: C = X·Wᵀ): a row per hint, a column per runtime size,
# and the layout named; a bad layout is an error.
"$CLI" hints-table --hints 8,32 --runtime 8,16,32 --n 48 --k 40 --layout nt --bench-samples 3 --json $FAST >"$tmp/hints.json" 2>"$tmp/err"
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["layout"] == "nt" and d["hints"] == [8, 32] and d["runtime"] == [8, 16, 32], d
assert d["bench_samples"] == 3, d["bench_samples"]  # the rounds of the table, apart from tuning
assert len(d["before"]) == 2 and len(d["after"]) == 2 and all(len(row) == 3 for row in d["before"] + d["after"])
assert len(d["best"]) == 3 and all(t is not None and t > 0 for t in d["best"])
# Each cell over "best" round by round: a ratio per cell that has a time, null where none.
for times, ratios in ((d["before"], d["before_ratio"]), (d["after"], d["after_ratio"])):
    assert len(ratios) == 2 and all(len(row) == 3 for row in ratios), ratios
    for trow, rrow in zip(times, ratios):
        for t, r in zip(trow, rrow):
            assert (t is None) == (r is None) and (r is None or 0 < r < 100), (t, r)
# Each after cell names the hints of the sub-kernel that served it, before and after the revisit.
for key in ("routed_first", "routed_after"):
    assert len(d[key]) == 2 and all(len(row) == 3 for row in d[key]), d[key]
    for row in d[key]:
        for cell in row:
            assert cell and set(int(h) for h in cell.split("+")) <= {8, 32}, cell
# Each size has an A/A control (the best kernel timed twice), and each after cell says whether
# it runs the best kernel: a size equal to a hint, routed to that hint, runs the very same pick.
assert len(d["aa_ratio"]) == 3 and all(0 < r < 100 for r in d["aa_ratio"]), d["aa_ratio"]
assert len(d["after_runs_best"]) == 2 and all(len(row) == 3 for row in d["after_runs_best"]), d["after_runs_best"]
for h, row in enumerate(d["routed_after"]):
    for r, cell in enumerate(row):
        assert isinstance(d["after_runs_best"][h][r], bool)
        if str(d["runtime"][r]) in cell.split("+"):
            assert d["after_runs_best"][h][r], (h, r, cell)
' "$tmp/hints.json"; then ok "hints-table --layout nt --json"; else bad "hints-table --layout nt ($(tail -3 "$tmp/err"))"; fi
expect_fail "hints-table bad layout" "--layout: unknown layout 'nx'" hints-table --hints 8 --layout nx
expect_fail "hints-table bad rounds" "--bench-samples must be in [1, 1000] (got 0)" hints-table --hints 8 --bench-samples 0

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
