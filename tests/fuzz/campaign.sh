#!/usr/bin/env bash
# campaign.sh: a long fuzzing campaign, the figure that CI's 60 s per target cannot give.
# Every target in BIN_DIR (or those named) runs at once, each split over JOBS libFuzzer worker
# processes (-jobs/-workers) that share one corpus grown from tests/fuzz/corpus/NAME, until RUNS
# executions in all; with the limits of .ci/fuzz.sh: 1 s per input, 256 MB per allocation.
# A target named NAME:N gets N workers instead of JOBS (give the slow targets more cores).
# It prints one line per target: executions, coverage of the final corpus (replayed once),
# corpus size, crashes/timeouts/out-of-memory inputs found (kept under OUT_DIR), peak RSS of the
# worst worker, wall time. Exit status 1 when any target found anything.
#   bash tests/fuzz/campaign.sh BIN_DIR OUT_DIR RUNS JOBS [TARGET[:N]...]
# Resuming: with CAMPAIGN_SECONDS=S every worker stops after S seconds. Run again with the same
# OUT_DIR (a lent machine's calls are limited in time) and each target goes on from its corpus
# and its executions so far (OUT_DIR/NAME/executions), until RUNS in all; finished targets are
# only reported. The machine needs (number of targets x JOBS) cores to run them all at full speed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(realpath "${1:?usage: campaign.sh BIN_DIR OUT_DIR RUNS JOBS [TARGET...]}")
out=$(mkdir -p "${2:?OUT_DIR}" && realpath "$2")
runs=${3:?RUNS}
jobs=${4:?JOBS}
shift 4
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in "$bin"/fuzz_*; do targets+=("$(basename "$f" | sed 's/^fuzz_//')"); done
fi
seconds=${CAMPAIGN_SECONDS:-0}

run_target() {
    local name=$1 jobs=$2 dir=$out/$1
    local before=0
    if [ -f "$dir/executions" ]; then
        before=$(cat "$dir/executions")
    else
        rm -rf "$dir" && mkdir -p "$dir/corpus" "$dir/artifacts"
        cp "$root/tests/fuzz/corpus/$name"/* "$dir/corpus/" 2> /dev/null || true
    fi
    local left=$((runs - before))
    if [ "$left" -le 0 ]; then
        sed -i "s/  (this call: [^)]*)/  (this call: none, finished before)/" "$dir/summary"
        return
    fi
    local per_job=$(( (left + jobs - 1) / jobs ))
    rm -f "$dir"/fuzz-*.log
    local dict=()
    [ -f "$root/tests/fuzz/$name.dict" ] && dict=(-dict="$root/tests/fuzz/$name.dict")
    local t0 t1
    t0=$(date +%s)
    # -jobs writes fuzz-N.log per job in the current directory.
    (cd "$dir" && "$bin/fuzz_$name" -jobs="$jobs" -workers="$jobs" -runs="$per_job" -timeout=1 \
        -malloc_limit_mb=256 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
        -max_total_time="$seconds" -artifact_prefix="$dir/artifacts/" "${dict[@]}" "$dir/corpus" \
        > "$dir/driver.log" 2>&1) || true
    t1=$(date +%s)
    local now peak cov found units execs
    now=$(cat "$dir"/fuzz-*.log | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
    execs=$((before + now))
    echo "$execs" > "$dir/executions"
    peak=$(cat "$dir"/fuzz-*.log | sed -n 's/^stat::peak_rss_mb: *//p' | sort -n | tail -1)
    # Coverage of what the campaign found: replay the final corpus once.
    "$bin/fuzz_$name" -runs=0 -close_fd_mask=3 "$dir/corpus" > "$dir/replay.log" 2>&1 || true
    cov=$(grep -o 'INITED cov: [0-9]* ft: [0-9]*' "$dir/replay.log" | head -n 1 | sed 's/INITED //' || true)
    units=$(find "$dir/corpus" -type f | wc -l)
    found=$(find "$dir/artifacts" -type f | wc -l)
    printf '%-12s %12s executions  %-22s corpus %6s  found %s  peak RSS %s MB  (%s)\n' \
        "$name" "$execs" "${cov:-cov: ?}" "$units" "$found" "${peak:-?}" \
        "this call: $now in $((t1 - t0)) s on $jobs jobs" > "$dir/summary"
}

names=()
for spec in "${targets[@]}"; do
    name=${spec%%:*}
    n=$jobs
    [ "$spec" != "$name" ] && n=${spec#*:}
    [ -x "$bin/fuzz_$name" ] || { echo "no fuzz_$name in $bin" >&2; exit 2; }
    names+=("$name")
    run_target "$name" "$n" &
done
wait
status=0
for name in "${names[@]}"; do
    cat "$out/$name/summary"
    if [ -n "$(find "$out/$name/artifacts" -type f)" ]; then
        status=1
        ls "$out/$name/artifacts"
    fi
done
exit $status
