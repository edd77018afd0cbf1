#!/usr/bin/env bash
# cpu_leaves_cuda_cli.sh: the CPU paths of a CUDA build never start the CUDA driver. Starting it
# (the driver, a context and its release) costs about 0.3-0.4 s on a GPU host, for nothing when
# the work runs on the CPU. The script puts a stand-in libcuda.so.1 first on the library path:
# every entry point the CUDA runtime calls appends its name to a log. Then:
#   - `render --backend=cuda` must reach it (else this build has no CUDA runtime: skipped);
#   - the CPU's direct and deep renders, their videos (frame by frame and the exponential map),
#     a shard, and `mpirun -np 2` renders and videos (where mpirun is installed) must each
#     finish and leave the log empty;
#   - with a display (the test command's Xvfb): the window on `--backend=cpu` must leave it
#     empty too, until the user turns to CUDA (the C key): then it asks the driver, and, told
#     there is no device, stays on the CPU and says why.
# Usage: bash cpu_leaves_cuda_cli.sh /path/to/mandelscope
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
cli_begin cpu_leaves_cuda_cli.sh "$@"
locations=$(dirname "$bin")/assets/locations

command -v cc > /dev/null || { echo "SKIP: no C compiler to build the stand-in driver"; exit 77; }
mkdir driver
cat > driver/fake_libcuda.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static void note(const char* what) {
    const char* path = getenv("FAKE_CUDA_LOG");
    FILE* f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f, "%s\n", what);
    fclose(f);
}
int cuInit(unsigned flags) { (void)flags; note("cuInit"); return 100; }
int cuDriverGetVersion(int* version) { note("cuDriverGetVersion"); *version = 0; return 100; }
int cuGetProcAddress(const char* name, void** fn, int version, unsigned long long flags) {
    (void)version; (void)flags; note(name); *fn = NULL; return 500;
}
int cuGetProcAddress_v2(const char* name, void** fn, int version, unsigned long long flags, void* status) {
    (void)version; (void)flags; (void)status; note(name); *fn = NULL; return 500;
}
C
cc -shared -fPIC -o driver/libcuda.so.1 driver/fake_libcuda.c || { echo "SKIP: the stand-in driver does not build"; exit 77; }
export FAKE_CUDA_LOG=$work/driver.log
with_fake() { LD_LIBRARY_PATH=$work/driver${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; }

rm -f driver.log
with_fake "$bin" render --size=16x16 --backend=cuda -o c.png > /dev/null 2>&1
if [ ! -s driver.log ]; then
    echo "SKIP: render --backend=cuda never reached the stand-in driver: this build has no CUDA runtime"
    exit 77
fi
echo "ok   render --backend=cuda reaches the driver ($(wc -l < driver.log) calls)"

cpu_case() {  # WORDS -- command...
    local words=$1
    shift 2
    rm -f driver.log
    with_fake "$@" > out.txt 2> err.txt || { fail "$words exited $? ($(tail -c 300 err.txt))"; return; }
    if [ -s driver.log ]; then
        fail "$words started the CUDA driver ($(head -3 driver.log | tr '\n' ' '))"
    else
        echo "ok   $words leaves CUDA alone"
    fi
}
deep=(--location="$locations/e50.kfr" --size=64x64 --backend=cpu)
video=(--location="$locations/e50.kfr" --from-zoom=6.25e48 --size=64x36 --fps=5 --seconds=1 --backend=cpu)
cpu_case "render, direct" -- "$bin" render --size=64x64 --backend=cpu -o a.png
cpu_case "render, deep" -- "$bin" render "${deep[@]}" -o b.png
cpu_case "render, deep with the distance estimate" -- "$bin" render "${deep[@]}" --colouring=smooth,de -o c.png
cpu_case "video, frame by frame" -- "$bin" video "${video[@]}" --method=direct -o d.mp4
cpu_case "video, exponential map" -- "$bin" video "${video[@]}" --method=expmap -o e.mp4
cpu_case "render --shard=0/2" -- "$bin" render --size=64x64 --backend=cpu --shard=0/2 -o f.png
if command -v mpirun > /dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    mpi=(mpirun --oversubscribe -np 2 --bind-to none -x LD_LIBRARY_PATH -x FAKE_CUDA_LOG)
    cpu_case "mpirun -np 2 render, deep" -- with_fake "${mpi[@]}" "$bin" render "${deep[@]}" -o g.png
    cpu_case "mpirun -np 2 video" -- with_fake "${mpi[@]}" "$bin" video "${video[@]}" --method=direct --segment-frames=2 -o h.mp4
else
    echo "skip mpirun cases: no mpirun"
fi
if [ -n "${DISPLAY:-}" ] && command -v xdotool > /dev/null; then
    export XDG_CONFIG_HOME=$work/config
    cpu_case "the window on --backend=cpu" -- "$bin" --backend=cpu --size=320x180 --frames=3 --screenshot=w.png
    rm -f driver.log
    with_fake "$bin" --backend=cpu --size=320x180 --print-view > window.txt 2>&1 &
    window_pid=$!
    wid=$(timeout 30 xdotool search --sync --onlyvisible --pid "$window_pid" --name '^Mandelscope$' | head -1)
    if [ -z "$wid" ]; then
        fail "the window on --backend=cpu did not appear ($(tail -c 300 window.txt))"
    else
        sleep 1
        [ -s driver.log ] && fail "the window on --backend=cpu started the driver before CUDA was chosen"
        xdotool windowactivate --sync "$wid" key c > /dev/null 2>&1 || xdotool key --window "$wid" c
        for _ in $(seq 50); do [ -s driver.log ] && break; sleep 0.1; done
        if [ -s driver.log ]; then
            echo "ok   the window asks the driver once CUDA is chosen ($(wc -l < driver.log) calls)"
        else
            fail "turning the window to CUDA did not ask the driver"
        fi
        xdotool key --window "$wid" ctrl+q > /dev/null 2>&1
    fi
    for _ in $(seq 100); do kill -0 "$window_pid" 2> /dev/null || break; sleep 0.1; done
    if kill -0 "$window_pid" 2> /dev/null; then
        kill "$window_pid"
        fail "the window did not quit on Ctrl+Q"
    elif ! wait "$window_pid"; then
        fail "the window exited with an error after turning to CUDA ($(tail -c 300 window.txt))"
    fi
else
    echo "skip window cases: no display or no xdotool"
fi
cli_end "the CPU paths never start the CUDA driver"
