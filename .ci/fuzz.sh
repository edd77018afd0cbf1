#!/usr/bin/env bash
# fuzz.sh: runs every libFuzzer target in BIN_DIR (fuzz_NAME, built with MANDELSCOPE_FUZZ=ON)
# for SECONDS each from its seed corpus tests/fuzz/corpus/NAME, with these limits:
# no allocation over 256 MB (-malloc_limit_mb), no input over 1 s (-timeout), 2 GB resident.
# New corpus entries go to a temporary folder, so the tree stays as it is. Prints each target's
# executions, coverage and peak memory, and fails on the first crash, leak, timeout or
# out-of-memory, leaving the input as crash-*/timeout-*/oom-* in the current folder, unless
# tests/fuzz/KNOWN_FINDINGS names the target (a finding another change owns): then it says so.
# Usage: bash .ci/fuzz.sh BIN_DIR [SECONDS] [TARGET...]   (FUZZ_JOBS=N targets at a time; default nproc)
set -euo pipefail
bin=$(realpath "${1:?usage: fuzz.sh BIN_DIR [SECONDS] [TARGET...]}")
seconds=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
root=$(cd "$(dirname "$0")/.." && pwd)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in "$bin"/fuzz_*; do targets+=("$(basename "$f" | sed 's/^fuzz_//')"); done
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# One target: its libFuzzer run, then one line ("ok ...", "KNOWN ..." or the log's tail and
# "FAIL ...") into $work/NAME.result; returns 1 on a new finding.
fuzz_one() {
    local name=$1 dict=() log=$work/$1.log known artifacts=./ execs peak cov
    mkdir -p "$work/$name"
    [ -f "$root/tests/fuzz/$name.dict" ] && dict=(-dict="$root/tests/fuzz/$name.dict")
    known=$(awk -v t="$name" '$1 == t { $1 = ""; print substr($0, 2) }' "$root/tests/fuzz/KNOWN_FINDINGS")
    [ -z "$known" ] || artifacts=$work/  # a known finding's inputs are not news: not kept
    if ! "$bin/fuzz_$name" -artifact_prefix="$artifacts" -max_total_time="$seconds" -timeout=1 -malloc_limit_mb=256 -rss_limit_mb=2048 \
            -close_fd_mask=3 -print_final_stats=1 "${dict[@]}" "$work/$name" "$root/tests/fuzz/corpus/$name" \
            > "$log" 2>&1; then
        if [ -n "$known" ]; then
            echo "KNOWN fuzz_$name: $(grep -m1 'SUMMARY' "$log") -- $known" > "$work/$name.result"
            return 0
        fi
        { tail -40 "$log"
          echo "FAIL: fuzz_$name found a problem (its input is saved as crash-*, timeout-*, leak-* or oom-* here)"; } > "$work/$name.result"
        return 1
    fi
    { [ -z "$known" ] || echo "note: fuzz_$name found nothing in $seconds s: is its line in tests/fuzz/KNOWN_FINDINGS stale?"
      execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
      peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
      cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
      echo "ok   fuzz_$name: $execs executions in ${seconds} s, $cov, peak RSS ${peak} MB"; } > "$work/$name.result"
}

# The targets run side by side, one a core (FUZZ_JOBS to choose): each is single-threaded, and
# this halves CI's fuzzing time on two cores. Results print in the targets' order.
parallel=${FUZZ_JOBS:-$(nproc)}
failed=0
running=0
for name in "${targets[@]}"; do
    if (( running >= parallel )); then wait -n || failed=1; running=$((running - 1)); fi
    fuzz_one "$name" &
    running=$((running + 1))
done
while (( running > 0 )); do wait -n || failed=1; running=$((running - 1)); done
for name in "${targets[@]}"; do cat "$work/$name.result"; done
exit $failed
