#!/usr/bin/env bash
# gpu_compute.sh: on the GPU machine, in a folder made by pack.sh: every test program (the GPU
# tests run for real there), compute-sanitizer on each kind of kernel, and the Mandelbrot
# throughput measurement. Copies the folder to /tmp/ms first, for the calls that follow.
# Logs in $OUT.
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/ms && cp -r "$here" /tmp/ms && cd /tmp/ms
mkdir -p /usr/share/datasets/fashion-mnist && cp data/* /usr/share/datasets/fashion-mnist/
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-/tmp/out}; mkdir -p "$O"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
    ./mandelscope info
    for t in ./test_*; do
        echo "=== $t"
        timeout 240 "$t" > "/tmp/$(basename "$t").log" 2>&1; echo "exit $?"
        grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|^\[  FAILED" "/tmp/$(basename "$t").log"
    done
} > "$O/tests.log" 2>&1
{
    echo "=== memcheck, racecheck: Mandelbrot"
    timeout 200 $SAN --tool memcheck ./test_direct_cuda --gtest_filter='*MatchesTheReference*:*Rectangles*:*CallersDevice*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
    timeout 200 $SAN --tool racecheck ./test_direct_cuda --gtest_filter='*Rectangles*' 2>&1 | grep -E "RACECHECK SUMMARY|PASSED|FAILED"
    timeout 100 $SAN --tool memcheck ./mandelscope render --size=640x360 --backend=cuda -o /tmp/san.png 2>&1 | grep -E "ERROR SUMMARY"
    echo "=== memcheck, racecheck: deep zoom (double and FloatExp deltas, BLA on and off)"
    timeout 300 $SAN --tool memcheck ./test_deep_cuda --gtest_filter='*1e20*:*WithoutBla*:*FloatExp*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
    timeout 300 $SAN --tool racecheck ./test_deep_cuda --gtest_filter='*1e20*' 2>&1 | grep -E "RACECHECK SUMMARY|PASSED|FAILED"
    echo "=== memcheck, racecheck: deep zoom through render, the window's deep worker and Compare"
    timeout 200 $SAN --tool memcheck ./mandelscope render --location=assets/locations/e533.kfr --iter=5000 --size=64x36 --backend=cuda -o /tmp/san1.png 2>&1 | grep -E "ERROR SUMMARY"
    timeout 200 $SAN --tool memcheck ./mandelscope render --location=assets/locations/e50.kfr --iter=20000 --size=64x36 --backend=cuda --precision=deep-floatexp -o /tmp/san2.png 2>&1 | grep -E "ERROR SUMMARY"
    timeout 200 $SAN --tool racecheck ./mandelscope render --location=assets/locations/e50.kfr --iter=20000 --size=64x36 --backend=cuda -o /tmp/san3.png 2>&1 | grep -E "RACECHECK SUMMARY"
    timeout 200 $SAN --tool memcheck ./test_render_deep_worker 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
    timeout 200 $SAN --tool memcheck ./test_render_compare_worker --gtest_filter='*Deep*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
    echo "=== memcheck, racecheck: formulas and colouring kernels"
    for t in ./test_formulas_cuda ./test_colouring_cuda; do
        [ -x "$t" ] || continue
        for tool in memcheck racecheck initcheck synccheck; do
            echo "$t $tool: $(timeout 240 $SAN --tool $tool $t 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" | tr '\n' ' ')"
        done
    done
    echo "=== memcheck: vecadd, cnn, compare worker"
    timeout 100 $SAN --tool memcheck ./mandelscope vecadd --sizes=400,100000 2>&1 | grep -E "ERROR SUMMARY"
    timeout 200 $SAN --tool memcheck ./mandelscope cnn eval --backend=all --limit=300 --batch=64 2>&1 | grep -E "ERROR SUMMARY|accuracy"
    timeout 200 $SAN --tool memcheck ./test_render_compare_worker 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
    echo "=== racecheck: cnn (shared-memory tiles)"
    timeout 200 $SAN --tool racecheck ./mandelscope cnn eval --backend=all --limit=300 --batch=64 2>&1 | grep -E "RACECHECK SUMMARY|accuracy"
    # initcheck (device reads of memory never written) and synccheck (barriers) over every kind
    # of kernel: Mandelbrot (both phases), deep zoom, vector add, the CNN.
    for tool in initcheck synccheck; do
        echo "=== $tool: Mandelbrot, deep zoom, vecadd, cnn"
        timeout 200 $SAN --tool $tool ./test_direct_cuda --gtest_filter='*MatchesTheReference*:*Rectangles*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
        timeout 300 $SAN --tool $tool ./test_deep_cuda --gtest_filter='*1e20*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
        timeout 100 $SAN --tool $tool ./mandelscope vecadd --sizes=400,100000 2>&1 | grep -E "ERROR SUMMARY"
        timeout 200 $SAN --tool $tool ./mandelscope cnn eval --backend=all --limit=300 --batch=64 2>&1 | grep -E "ERROR SUMMARY"
    done
} > "$O/sanitizer.log" 2>&1
# Injected faults on the command line, the CUDA ones included (tests/cli/faults_cli.sh).
timeout 200 bash faults_cli.sh ./mandelscope > "$O/faults.log" 2>&1; echo "exit $?" >> "$O/faults.log"
timeout 200 ./test_direct_cuda --gtest_also_run_disabled_tests --gtest_filter='*Throughput*' > "$O/throughput.log" 2>&1
tail -n 4 "$O"/*.log
