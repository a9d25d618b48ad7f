#!/bin/sh
# End to end through the CLI: tune twice (the second run is a store hit), export and import
# into another file, and a garbage import that must fail and say why.
# usage: cli_store_test.sh PATH/TO/gemmtune
set -eu
gemmtune="$1"
dir=$(mktemp -d /tmp/gemmtune-cli-store-XXXXXX)
trap 'rm -rf "$dir"' EXIT
tune() { "$gemmtune" tune --m 8 --n 8 --k 8 --samples 1 --min-sample-ms 0.05 --json --cache "$dir/a.sqlite"; }
check() { if ! eval "$1"; then echo "FAILED: $2" >&2; exit 1; fi; }

tune > "$dir/first.json"
tune > "$dir/second.json"
check 'grep -q "\"store_hit\": false" "$dir/first.json"' "the first tune is not a store hit"
check 'grep -q "\"store_hit\": true" "$dir/second.json"' "the second tune is a store hit"

"$gemmtune" cache export "$dir/export.json" --cache "$dir/a.sqlite"
"$gemmtune" cache import "$dir/export.json" --cache "$dir/b.sqlite"
"$gemmtune" cache stats --json --cache "$dir/b.sqlite" > "$dir/stats.json"
check 'grep -q "\"this_device\": 1" "$dir/stats.json"' "the imported file holds the entry"
"$gemmtune" tune --m 8 --n 8 --k 8 --json --cache "$dir/b.sqlite" > "$dir/third.json"
check 'grep -q "\"store_hit\": true" "$dir/third.json"' "the imported entry answers a tune"

printf 'not json at all {' > "$dir/garbage.json"
if "$gemmtune" cache import "$dir/garbage.json" --cache "$dir/b.sqlite" 2> "$dir/error.txt"; then
  echo "FAILED: importing garbage succeeded" >&2
  exit 1
fi
check 'grep -q "not valid JSON" "$dir/error.txt"' "the garbage import names the problem"
"$gemmtune" cache stats --json --cache "$dir/b.sqlite" > "$dir/stats2.json"
check 'grep -q "\"this_device\": 1" "$dir/stats2.json"' "the failed import lost nothing"
echo "cli store test passed"
