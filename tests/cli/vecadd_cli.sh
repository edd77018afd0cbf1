#!/usr/bin/env bash
# vecadd_cli.sh: end-to-end test of `mandelscope vecadd`. A small sweep writes a CSV with a row
# for every variant and size (GPU rows say why where there is no GPU) and prints the table and
# the lesson; bad input (unknown option, size 0, a non-number, a size beyond memory, a CSV path
# that cannot be written) exits 2 with one sentence on stderr and leaves no file behind.
# Usage: bash vecadd_cli.sh /path/to/mandelscope
set -uo pipefail
bin=${1:?usage: vecadd_cli.sh /path/to/mandelscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --- A small sweep ------------------------------------------------------------------------------
sizes="1,17,400,4097,100000"
"$bin" vecadd --sizes=$sizes --repeats=2 --csv="$tmp/out.csv" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ $rc -eq 0 ] || { fail "small sweep exited $rc"; cat "$tmp/stderr"; }
[ -f "$tmp/out.csv" ] || fail "no CSV written"
grep -q '^Lesson: ' "$tmp/stdout" || fail "no lesson sentence printed"
grep -q 'cpu-1-thread' "$tmp/stdout" || fail "no table printed"
rows=$(($(wc -l <"$tmp/out.csv") - 1))
[ "$rows" -eq 35 ] || fail "CSV has $rows rows, expected 7 variants x 5 sizes = 35"
for variant in cpu-1-thread cpu-all-cores gpu-kernel-only gpu-pageable gpu-pinned gpu-streams gpu-d2d-memcpy; do
    for n in ${sizes//,/ }; do
        grep -q "^$variant,$n," "$tmp/out.csv" || fail "CSV lacks $variant at $n elements"
    done
done
# CPU rows are verified against the reference: max error (column 15) must be 0.
awk -F, 'NR > 1 && $1 ~ /^cpu-/ && ($3 != 1 || $15 != 0) { bad = 1 } END { exit bad }' "$tmp/out.csv" ||
    fail "a CPU row failed or differs from the reference"
[ "$(ls "$tmp")" = "$(printf 'out.csv\nstderr\nstdout')" ] || fail "stray files: $(ls "$tmp")"

# --- Bad input: exit 2, one sentence, nothing written ----------------------------------------
expect_bad() {
    local what=$1; shift
    rm -f "$tmp/bad.csv" "$tmp/err"
    "$bin" vecadd "$@" >/dev/null 2>"$tmp/err"
    local rc=$?
    [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$what: stderr is not one line: $(cat "$tmp/err")"
    local left
    left=$(ls "$tmp" | grep -v -x -e out.csv -e stderr -e stdout -e err -e dir || true)
    [ -z "$left" ] || fail "$what: left files behind: $left"
    echo "ok ($what): $(cat "$tmp/err")"
}
mkdir "$tmp/dir"
expect_bad "unknown option" --frobnicate --csv="$tmp/bad.csv"
expect_bad "size 0" --sizes=100,0 --csv="$tmp/bad.csv"
expect_bad "non-number" --sizes=abc --csv="$tmp/bad.csv"
expect_bad "negative" --sizes=-5 --csv="$tmp/bad.csv"
expect_bad "empty item" --sizes=100,,200 --csv="$tmp/bad.csv"
expect_bad "beyond memory" --sizes=2^40 --csv="$tmp/bad.csv"
expect_bad "repeats 0" --repeats=0 --sizes=100 --csv="$tmp/bad.csv"
expect_bad "unwritable CSV" --sizes=100 --csv="$tmp/missing/dir/bad.csv"
expect_bad "CSV is a directory" --sizes=100 --csv="$tmp/dir"
[ -z "$(ls "$tmp/dir")" ] || fail "wrote into the directory"

if [ $failures -gt 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "vecadd_cli: all checks passed"
