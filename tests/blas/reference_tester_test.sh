#!/usr/bin/env bash
# Runs one of the reference BLAS level-3 testers of Debian's libblas-test against the drop-in
# (LD_LIBRARY_PATH picks its libblas.so.3) and checks, from the tester's own summary and the
# drop-in's counters (GEMMTUNE_BLAS_STATS=1):
#   - the SGEMM error-exit tests and every computational test passed, for every routine tested;
#   - every sgemm call of the computational tests that has a product reached gemmtune.
# usage: reference_tester_test.sh DROP_IN_DIR TESTER INPUT EXPECTED_PASS_LINES LAYOUTS
# LAYOUTS: 1 for xblat3s (column-major), 2 for xscblat3 (column- and row-major).
set -euo pipefail
drop_in_dir=$1 tester=$2 input=$3 expected_pass=$4 layouts=$5
for file in "$tester" "$input" "$drop_in_dir/libblas.so.3"; do
  [ -e "$file" ] || { echo "FAIL: $file is missing (Debian package libblas-test; make deps installs it)"; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# A fresh store in the scratch folder: every shape is tuned (lightly), nothing lands in $HOME.
export GEMMTUNE_CACHE="$work/store.sqlite" GEMMTUNE_BLAS_TUNING=light GEMMTUNE_BLAS_STATS=1 OMP_WAIT_POLICY=passive
status=0
LD_LIBRARY_PATH="$drop_in_dir" "$tester" < "$input" > stdout.txt 2> stderr.txt || status=$?
# xblat3s writes its summary to the file its input names; xscblat3 to stdout.
summary=$(cat stdout.txt ./*.out 2>/dev/null || true)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ "$status" -eq 0 ] || fail "the tester exited with status $status"
# The tester names failures with FAIL, and a wrong xerbla call with lines of asterisks.
if grep -E "FAIL|\*\*\*\*\*" <<<"$summary"; then fail "the tester reported the failures above"; fi
passed=$(grep -c "PASSED" <<<"$summary" || true)
[ "$passed" -eq "$expected_pass" ] || fail "$passed PASSED lines, expected $expected_pass"
grep -Eq "(SGEMM|cblas_sgemm) +PASSED THE TESTS OF ERROR-EXITS" <<<"$summary" || fail "sgemm's error-exit tests did not pass"
grep -q "END OF TESTS" <<<"$summary" || fail "the tester did not finish"

# What the drop-in did. The testers try m, n, k in {0, 1, 2, 3, 5, 9}, alpha in {0, 1, 0.7},
# beta in {0, 1, 1.3} and the 9 transpose pairs of N, T, C: 17496 calls a layout. A product is
# due where m, n, k > 0 and alpha != 0: 5·5·5·2·3·9 = 6750 calls, all to reach gemmtune. Alpha
# or k zero with beta != 1 only scales C: 5·5·(6·1·2 + 1·2·2)·9 = 3600. The rest return at once.
stats=$(grep "gemmtune BLAS:" stderr.txt || true)
echo "$stats"
read -r served quick scaled fallbacks < <(sed -E 's/.*: ([0-9]+) served by gemmtune, ([0-9]+) quick returns, ([0-9]+) scaled.* ([0-9]+) on OpenBLAS/\1 \2 \3 \4/' <<<"$stats")
[ "${served:-}" = $((6750 * layouts)) ] || fail "${served:-no} calls served by gemmtune, expected $((6750 * layouts))"
[ "${scaled:-}" = $((3600 * layouts)) ] || fail "${scaled:-no} calls scaled C alone, expected $((3600 * layouts))"
[ "${quick:-}" = $(((17496 - 6750 - 3600) * layouts)) ] || fail "${quick:-no} quick returns, expected $(((17496 - 6750 - 3600) * layouts))"
[ "${fallbacks:-}" = 0 ] || fail "${fallbacks:-?} calls fell back to OpenBLAS"

if [ "$failures" -ne 0 ]; then
  echo "--- tester output"; echo "$summary" | grep -v "^ *$" | head -60
  echo "--- stderr"; grep -v "warning: ignoring the stored entry" stderr.txt | tail -20
  exit 1
fi
echo "PASS: $passed PASSED lines, $served sgemm calls served by gemmtune"
