#!/usr/bin/env bash
# gpu_window.sh: on the GPU machine, after gpu_compute.sh and `. .gpu/gpu-env.sh` (Xvfb with
# NVIDIA's GLX, so CUDA-GL interop runs): the window tests, screenshots of each panel, and
# the frame rate while dragging. Screenshots and logs in $OUT.
cd /tmp/ms || exit 1
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-/tmp/out}; mkdir -p "$O"
M=./mandelscope
run() { timeout 150 "$@"; echo "[exit $?]"; }
{
    for t in window_*.sh; do
        [ "$t" = window_soak.sh ] && continue  # run below, at full length with interop
        echo "=== $t"; DEEP_BACKEND=cuda timeout 200 bash "$t" "$PWD/$M" > "/tmp/$t.log" 2>&1; echo "exit $?"; tail -n 3 "/tmp/$t.log"
    done
} > "$O/window_tests.log" 2>&1
# The soak at its full length (10,000 frames), on CUDA with interop (resident and GPU memory
# figures).
SOAK_FRAMES=${SOAK_FRAMES:-10000} SOAK_BACKEND=cuda timeout 400 bash window_soak.sh "$PWD/$M" > "$O/soak.log" 2>&1
echo "soak exit $?" >> "$O/soak.log"
{
    echo "=== screenshot: CUDA interop vs mandelscope render on the CPU"
    run $M --backend=cuda --no-ui --size=1920x1080 --frames=10 --screenshot=/tmp/cuda.png
    run $M render --backend=cpu --size=1920x1080 -o /tmp/cpu.png
    echo "=== drag, 1920x1080, vsync off (no panels; then with the Performance window and Compare)"
    run $M --backend=cuda --no-ui --size=1920x1080 --vsync=off --bench-drag=600
    run $M --backend=cuda --size=1920x1080 --vsync=off --panel=perf --compare --bench-drag=600
    echo "=== deep zoom: drag at 1920x1080 on the deep-cuda path (1e50, 4e318, 4e533)"
    for loc in e50 e319 e533; do
        run $M --backend=cuda --no-ui --size=1920x1080 --vsync=off --open=assets/locations/$loc.kfr --bench-drag=60
    done
    run $M --backend=cuda --open=assets/locations/e533.kfr --size=1920x1080 --panel=perf --compare --frames=60 --screenshot=$O/deep_e533.png
    echo "=== panels"
    run $M --backend=cuda --size=1920x1080 --panel=perf --perf-tab=timings --compare --frames=120 --screenshot=$O/perf_timings.png
    run $M --backend=cuda --size=1920x1080 --panel=perf --perf-tab=device --frames=30 --screenshot=$O/perf_device.png
    run $M --backend=cuda --size=1920x1080 --panel=vecadd --vecadd-sweep=400,1e4,1e5,1e6,1e7,1e8,2^28 --frames=10 --screenshot=$O/vecadd_panel.png
    run $M --backend=cuda --size=1920x1080 --panel=cnn --cnn-classify-all=cpu,cuda --cnn-batch=10000 --frames=10 --screenshot=$O/cnn_panel.png
} > "$O/window.log" 2>&1
cp /tmp/cuda.png "$O/window_cuda.png"
tail -n 30 "$O/window.log"
