#!/usr/bin/env bash
# multi_gpu.sh: on a GPU machine with two GPUs (nvidia-h100-x2), in a folder made by pack.sh
# (after gpu_compute.sh has copied it to /tmp/ms): deep frames shared out over the GPUs.
#   1. the tests: test_deep_multi_gpu_cuda, test_deep_multi_gpu, devices_cli.sh (PNGs
#      byte-identical over every device split, a failed device's bands handed over);
#   2. the 4K frame at 5e227 with one GPU and with two: `bench --deep --size=3840x2160
#      --devices=0,1` (its last section: 1 device against 2, end to end and pixels alone);
#   3. the 16384x16384 5e227 poster end to end, 1 GPU (--devices=0) against 2 (--devices=0,1),
#      and the plain one-GPU path (no --devices, CUDA_VISIBLE_DEVICES=0); the PNGs compared.
#   bash multi_gpu.sh [tests|bench4k|poster|all]      (default: all; logs in $OUT)
set -uo pipefail
cd /tmp/ms 2>/dev/null || cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-/tmp/out}; mkdir -p "$O"
what=${1:-all}
kfr=assets/locations/e227.kfr
nvidia-smi --query-gpu=index,name,memory.total --format=csv | tee "$O/gpus.txt"

if [ "$what" = tests ] || [ "$what" = all ]; then
    for t in ./test_deep_multi_gpu_cuda ./test_deep_multi_gpu; do
        timeout 300 "$t" > "$O/$(basename "$t").log" 2>&1; echo "$t: exit $?"
        grep -E "^\[  (PASSED|FAILED|SKIPPED) |^  " "$O/$(basename "$t").log"
    done
    timeout 300 bash ./devices_cli.sh ./mandelscope > "$O/devices_cli.log" 2>&1; echo "devices_cli.sh: exit $?"
    tail -n 12 "$O/devices_cli.log"
fi

if [ "$what" = bench4k ] || [ "$what" = all ]; then
    timeout 580 ./mandelscope bench --deep --size=3840x2160 --devices=0,1 > "$O/bench_4k.log" 2>&1
    echo "bench --deep 4K: exit $?"
    sed -n '/^Frames shared out/,$p' "$O/bench_4k.log"
    grep -E "^  (kf2|5e227) " "$O/bench_4k.log"
fi

if [ "$what" = poster ] || [ "$what" = all ]; then
    poster=(--location="$kfr" --size=16384x16384 --backend=cuda)
    run() {  # name, then the environment and arguments
        local name=$1; shift
        local t0 t1
        t0=$(date +%s.%N)
        env "$@" -o "/tmp/poster_$name.png" > "$O/poster_$name.log" 2>&1
        local rc=$?
        t1=$(date +%s.%N)
        echo "poster $name: exit $rc, $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s wall (process)"
        grep -E "^(time|devices|reference|speed) " "$O/poster_$name.log"
    }
    run 1gpu ./mandelscope render "${poster[@]}" --devices=0
    run 2gpu ./mandelscope render "${poster[@]}" --devices=0,1
    run plain CUDA_VISIBLE_DEVICES=0 ./mandelscope render "${poster[@]}"
    cmp /tmp/poster_1gpu.png /tmp/poster_2gpu.png && echo "1 GPU and 2 GPUs: the same PNG"
    cmp /tmp/poster_plain.png /tmp/poster_2gpu.png && echo "the plain path and 2 GPUs: the same PNG"
    ls -l /tmp/poster_*.png
    rm -f /tmp/poster_*.png
fi
