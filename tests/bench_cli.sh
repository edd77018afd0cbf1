#!/usr/bin/env bash
# bench_cli.sh: `mandelscope bench --quick --json=FILE` runs (in under a minute on the
# development machine), prints its table, and writes valid JSON whose figures are real:
# positive times, iterations per second wherever iterations ran, ratios to the reference.
# Usage: bash bench_cli.sh /path/to/mandelscope
set -u
bin=$(realpath "${1:?usage: bench_cli.sh /path/to/mandelscope}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$bin" bench --quick --json="$work/bench.json" > "$work/out.txt" 2> "$work/err.txt"
status=$?
cat "$work/out.txt"
[ "$status" -eq 0 ] || fail "bench exited $status: $(tail -3 "$work/err.txt")"
grep -q "CPU fast" "$work/out.txt" || fail "no CPU fast rows in the table"
grep -q "CPU reference" "$work/out.txt" || fail "no CPU reference rows in the table"
[ -s "$work/bench.json" ] || fail "no JSON written"

if command -v python3 > /dev/null; then
    python3 - "$work/bench.json" <<'PY' || fail "bench JSON is not valid or its figures are not positive"
import json, sys
j = json.load(open(sys.argv[1]))
rows = [r for r in j["rows"] if r["available"]]
assert rows, "no rows"
paths = {r["path"] for r in rows}
assert {"CPU reference", "CPU fast"} <= paths, paths
for r in rows:
    assert r["ms"] > 0, r
    if r["iterations"] > 0:
        assert r["iterations_per_second"] > 0 and r["percent_of_limit"] > 0, r
    assert r["ratio_to_reference"] > 0, r
for r in j["rows"]:
    if not r["available"]:
        assert r["note"], "an unavailable row must say why: %r" % r
t = j["targets"]
assert t["cpu_fp64_seahorse_ratio_to_reference"] > 1, t
assert t["cpu_fp64_full_4k_shortcut_speedup"] > 1, t
print("bench JSON: %d rows, seahorse FP64 %.1fx the reference, shortcuts %.1fx (FP64, full 4K)" % (
    len(j["rows"]), t["cpu_fp64_seahorse_ratio_to_reference"], t["cpu_fp64_full_4k_shortcut_speedup"]))
PY
fi

# A JSON path that cannot be written is refused before the work.
"$bin" bench --quick --json="$work/no-such-dir/x.json" > /dev/null 2> "$work/err2.txt"
status=$?
[ "$status" -eq 2 ] || fail "bench with an unwritable --json exited $status, not 2"
[ "$(wc -l < "$work/err2.txt")" -eq 1 ] || fail "bench with an unwritable --json: not one line on stderr"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all bench checks passed"
