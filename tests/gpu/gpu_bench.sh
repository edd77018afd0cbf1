#!/usr/bin/env bash
# gpu_bench.sh: on the GPU machine, after gpu_compute.sh: the benchmarks (Mandelbrot bench,
# deep-zoom locations, vector-add sweep, CNN inference and the PyTorch comparison). Logs in $OUT.
cd /tmp/ms || exit 1
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-/tmp/out}; mkdir -p "$O"
timeout 330 ./mandelscope bench --json="$O/bench.json" > "$O/bench.log" 2>&1
# Deep zoom: Kalles Fraktaler 2's benchmark locations at 1024x1024, end to end and cached.
timeout 200 ./mandelscope bench --deep --backend=cuda --json="$O/bench_deep.json" > "$O/bench_deep.log" 2>&1
timeout 120 ./mandelscope vecadd --csv="$O/vecadd.csv" > "$O/vecadd.log" 2>&1
{
    timeout 60 ./mandelscope cnn eval --backend=all --batch=10000 --passes=20
    timeout 60 ./mandelscope cnn eval --backend=all --batch=1 --passes=3
    timeout 60 python3 cnn_pytorch_compare.py --mandelscope ./mandelscope --weights assets/cnn/fashion_mnist.msw --data data
} > "$O/cnn.log" 2>&1
tail -n 5 "$O"/*.log
