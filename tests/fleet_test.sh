#!/usr/bin/env bash
# End-to-end tests of the fleet commands, `gemmtune tune-set` and `gemmtune sweep` under mpirun:
# alone, then as real MPI ranks sharing the shapes out, tune-set's picks in one SQLite file and
# in a real redis-server, the sweep's shares in a file per rank, and the errors a fleet meets
# (several ranks on one CPU, bad shape sets). Prints "N passed, N failed"; exit 77 (a
# skip, with the reason) where mpirun is missing outside CI.
set -u
CLI=$1
passed=0
failed=0
tmp=$(mktemp -d)
redis_pid=
trap '[ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
FAST="--samples 1 --min-sample-ms 0.1"
# mpirun refuses root (CI runs as root) unless told twice.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAILED: $1"; }

# check NAME JSON_FILE PYTHON_ASSERTS: the asserts run with the report as `d`.
check() {
  local name=$1 file=$2 asserts=$3
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $asserts" "$file" 2>"$tmp/check-err"; then ok "$name"; else
    bad "$name ($(tail -1 "$tmp/check-err"); report: $(head -c 600 "$file"))"; fi
}

printf '# M N K\n8 8 8\n16 24 32\n40 12 56\n64 64 64\n5 7 300\n' >"$tmp/shapes.txt"
SHAPES=5

if out=$("$CLI" tune-set --help) && grep -q "usage: gemmtune tune-set" <<<"$out"; then ok "tune-set --help"; else bad "tune-set --help"; fi

# Bad input: a clear message and exit 2, as every command.
printf '8 x 8\n' >"$tmp/bad.txt"
for case in "--shapes $tmp/missing.txt|is not small, skinny" "--shapes $tmp/bad.txt|bad.txt:1: expected three" \
            "|--shapes is required" "--shapes $tmp/shapes.txt --dtype f64|--dtype"; do
  args=${case%%|*} message=${case#*|}
  # shellcheck disable=SC2086
  "$CLI" tune-set $args --cache "$tmp/bad.sqlite" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$message" "$tmp/err"; then ok "refused: tune-set $args"; else
    bad "tune-set $args (rc $rc, stderr: $(cat "$tmp/err"))"; fi
done

# Alone: every shape tuned once, stored; a second run finds every one in the store.
"$CLI" tune-set --shapes "$tmp/shapes.txt" --cache "$tmp/alone.sqlite" --json $FAST >"$tmp/alone.json" 2>"$tmp/err" ||
  bad "tune-set alone exited $? ($(tail -3 "$tmp/err"))"
check "alone: every shape tuned on rank 0" "$tmp/alone.json" \
  "assert d['ranks'] == 1 and d['tuned'] == $SHAPES and d['failed'] == 0, d; assert [r['rank'] for r in d['shapes']] == [0] * $SHAPES"
"$CLI" tune-set --shapes "$tmp/shapes.txt" --cache "$tmp/alone.sqlite" --json $FAST >"$tmp/again.json" 2>/dev/null
check "alone again: every shape from the store" "$tmp/again.json" "assert d['from_store'] == $SHAPES and d['tuned'] == 0, d"

# A bundle of the picks: a process with no store runs each shape from it, without tuning.
"$CLI" bundle create "$tmp/bundle" --cache "$tmp/alone.sqlite" >"$tmp/out" 2>"$tmp/err" || bad "bundle create exited $? ($(cat "$tmp/err"))"
"$CLI" bundle show "$tmp/bundle" --json >"$tmp/show.json" 2>"$tmp/err" || bad "bundle show exited $? ($(cat "$tmp/err"))"
check "bundle: every pick, nothing left out" "$tmp/show.json" \
  "assert d['picks'] == $SHAPES and d['picks_found'] == $SHAPES and d['left_out'] == 0 and d['format'] == 'gemmtune-bundle', d"
GEMMTUNE_LUT="$tmp/bundle/picks.json" "$CLI" tune-set --shapes "$tmp/shapes.txt" --cache off --json $FAST >"$tmp/deployed.json" 2>/dev/null
python3 - "$tmp/alone.json" "$tmp/deployed.json" >"$tmp/picks.txt" <<'PY'
import json, sys
tuned, deployed = (json.load(open(p))["shapes"] for p in sys.argv[1:3])
print(sum(d.get("selection", "").startswith("lookup table: used without tuning") for d in deployed),
      sum((t["backend"], t["config"]) == (d["backend"], d["config"]) for t, d in zip(tuned, deployed)))
PY
if [ "$(cat "$tmp/picks.txt")" = "$SHAPES $SHAPES" ]; then ok "a deployed process runs every shape on the bundle's pick, untuned"; else
  bad "deployed from the bundle: $(cat "$tmp/picks.txt") of $SHAPES used untuned / the same pick"; fi
# Its mistakes: a folder of other files, an empty store, a folder whose path the kernel cache's
# list cannot hold, no bundle, a bundle whose parts disagree.
mkdir -p "$tmp/other" && touch "$tmp/other/notes.txt"
for case in "create $tmp/other --cache $tmp/alone.sqlite|holds files and is not a bundle" \
            "create $tmp/new --cache $tmp/empty.sqlite|holds no pick of this device" \
            "create $tmp/a:b --cache $tmp/alone.sqlite|holds ':', which GEMMTUNE_CUBIN_CACHE separates" \
            "show $tmp/other|not a bundle"; do
  # shellcheck disable=SC2086
  "$CLI" bundle ${case%%|*} >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "${case#*|}" "$tmp/err"; then ok "refused: bundle ${case%%|*}"; else
    bad "bundle ${case%%|*} (rc $rc, stderr: $(cat "$tmp/err"))"; fi
done
[ -e "$tmp/other/notes.txt" ] && ok "a refused folder keeps its files" || bad "bundle create removed another folder's files"
sed -i 's/"picks": [0-9]*/"picks": 9/' "$tmp/bundle/bundle.json"
"$CLI" bundle show "$tmp/bundle" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -qF "the manifest lists 9 picks" "$tmp/err"; then ok "a bundle whose manifest and folder disagree is damaged"; else
  bad "a damaged bundle (rc $rc, stderr: $(cat "$tmp/err"))"; fi

if ! command -v mpirun >/dev/null; then
  echo "$passed passed, $failed failed"
  if [ -n "${CI:-}" ]; then echo "FAILED: mpirun not found (deps/debian-packages.txt lists openmpi-bin)"; exit 1; fi
  echo "SKIPPED: the MPI part: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)"
  exit 77
fi

# Two ranks on one host, one CPU: refused by both, said once, unless --shared-device.
mpirun -n 2 "$CLI" tune-set --shapes "$tmp/shapes.txt" --cache "$tmp/crowded.sqlite" $FAST >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ] && [ "$(grep -c "would all measure on --device cpu" "$tmp/err")" -eq 1 ] &&
   grep -q "ranks 0, 1: 2 ranks run on host" "$tmp/err"; then
  ok "two ranks on one CPU refused, said once"
else
  bad "two ranks on one CPU (rc $rc, stderr: $(head -5 "$tmp/err"))"
fi

# Two ranks sharing the shapes out into one SQLite file. --bind-to none: each rank has both
# CPUs, as a process started alone does, so the picks are this device's.
mpirun -n 2 --bind-to none "$CLI" tune-set --shapes "$tmp/shapes.txt" --cache "$tmp/shared.sqlite" --shared-device \
  --json $FAST >"$tmp/shared.json" 2>"$tmp/err" || bad "two ranks exited non-zero ($(tail -3 "$tmp/err"))"
check "two ranks: shape i tuned once, by rank i mod 2" "$tmp/shared.json" \
  "assert d['ranks'] == 2 and d['tuned'] == $SHAPES and d['failed'] == 0, d; \
   assert [r['rank'] for r in d['shapes']] == [i % 2 for i in range($SHAPES)]; \
   assert sorted(x['rank'] for x in d['rank_devices']) == [0, 1]; \
   assert all(x['cpus'] == x['online_cpus'] for x in d['rank_devices'])"
"$CLI" tune-set --shapes "$tmp/shapes.txt" --cache "$tmp/shared.sqlite" --json $FAST >"$tmp/after.json" 2>/dev/null
check "the ranks' picks are found by a process alone" "$tmp/after.json" "assert d['from_store'] == $SHAPES, d"

# mpirun's default binding leaves each rank one core: the report says its picks are for that.
mpirun -n 2 "$CLI" tune-set --shapes "$tmp/shapes.txt" --cache "$tmp/bound.sqlite" --shared-device $FAST \
  >"$tmp/bound.txt" 2>/dev/null
if [ "$(nproc)" -ge 2 ] && [ "$(grep -c "bound to 1 of the host's" "$tmp/bound.txt")" -eq 2 ]; then ok "bound ranks are named"; else
  bad "bound ranks (nproc $(nproc)): $(head -4 "$tmp/bound.txt")"; fi

# A sweep sharded over two ranks: a file each, shape i in rank i mod 2's, and each file
# resumed on its own.
mpirun -n 2 --bind-to none "$CLI" sweep --shapes "$tmp/shapes.txt" --space default --configs-per-backend 2 \
  --out "$tmp/sweep.csv" --shared-device $FAST >/dev/null 2>"$tmp/err" || bad "the sharded sweep exited non-zero ($(tail -3 "$tmp/err"))"
if python3 - "$tmp" "$SHAPES" <<'PY'
import sys
tmp, shapes = sys.argv[1], int(sys.argv[2])
wanted = [tuple(map(int, line.split())) for line in open(f"{tmp}/shapes.txt") if line.strip() and not line.startswith("#")]
done = {}
for rank in (0, 1):
    keys = [line.split()[2] for line in open(f"{tmp}/sweep.rank{rank}-of-2.csv") if line.startswith("# done ")]
    # a key reads f32.f32.f32:nn:MxNxK:...
    done[rank] = [tuple(map(int, key.split(":")[2].split("x"))) for key in keys]
assert done[0] == wanted[0::2] and done[1] == wanted[1::2], (done, wanted)
PY
then ok "a sharded sweep: shape i in rank i mod 2's file"; else bad "a sharded sweep's files"; fi
mpirun -n 2 --bind-to none "$CLI" sweep --shapes "$tmp/shapes.txt" --space default --configs-per-backend 2 \
  --out "$tmp/sweep.csv" --shared-device $FAST >/dev/null 2>"$tmp/err"
if [ "$(grep -c "0 shapes measured" "$tmp/err")" -eq 2 ]; then ok "each rank's file resumed: nothing measured again"; else
  bad "the sweep again: $(grep "shapes measured" "$tmp/err")"; fi
[ -e "$tmp/sweep.csv" ] && bad "a sharded sweep wrote the unsharded file too"

# Ranks without a file (--cache off), as on hosts that share none: the picks go through a real
# redis-server, and a process elsewhere (another local file) reads them back.
if [ -x /usr/bin/redis-server ]; then
  port=$((20000 + RANDOM % 20000))
  /usr/bin/redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --loglevel warning >/dev/null 2>&1 &
  redis_pid=$!
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  url="redis://127.0.0.1:$port/0"
  mpirun -n 2 --bind-to none "$CLI" tune-set --shapes "$tmp/shapes.txt" --cache off \
    --redis "$url" --shared-device --json $FAST >"$tmp/redis.json" 2>"$tmp/err" || bad "ranks on Redis exited non-zero ($(tail -3 "$tmp/err"))"
  check "two ranks through Redis: every shape tuned once" "$tmp/redis.json" "assert d['tuned'] == $SHAPES and d['failed'] == 0, d"
  "$CLI" tune-set --shapes "$tmp/shapes.txt" --cache "$tmp/elsewhere.sqlite" --redis "$url" --json $FAST >"$tmp/elsewhere.json" 2>/dev/null
  check "another machine's process gets the picks from Redis" "$tmp/elsewhere.json" "assert d['from_store'] == $SHAPES, d"
  # An unreachable Redis: the ranks carry on with their files, as a session does.
  mpirun -n 2 --bind-to none "$CLI" tune-set --shapes "$tmp/shapes.txt" --cache "$tmp/down.sqlite" --redis redis://127.0.0.1:1/0 \
    --shared-device --json $FAST >"$tmp/down.json" 2>"$tmp/err"
  check "an unreachable Redis: the ranks tune into their file" "$tmp/down.json" "assert d['tuned'] == $SHAPES and d['failed'] == 0, d"
elif [ -n "${CI:-}" ]; then
  bad "redis-server not found (deps/debian-packages.txt lists it)"
else
  echo "SKIPPED: the Redis part: /usr/bin/redis-server not found"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
