#!/usr/bin/env bash
# sanitize.sh: the second half of CI (.ci/run calls it after the normal tree's suite).
#   1. build-san: clang, CPU-only (MANDELSCOPE_ENABLE_CUDA=OFF), -fsanitize=address,undefined
#      plus float-cast-overflow, and the libFuzzer targets of tests/fuzz (MANDELSCOPE_FUZZ);
#      the whole CTest suite runs in it, window tests included (Xvfb), except the long
#      benchmarks named in SKIP_IN_SANITIZER below. Any sanitizer report fails the test.
#   2. each fuzz target for FUZZ_SECONDS (default 60) from its seed corpus
#      (tests/fuzz/corpus/NAME; new inputs go to a temporary folder, the tree stays clean),
#      with these limits: 256 MB per allocation, 1 s per input.
#   3. build-tsan: the background workers' tests under ThreadSanitizer (OpenMP through
#      LLVM's Archer tool, so the OpenMP runtime's own synchronisation is understood).
# Why clang: GCC's -fsanitize=undefined has no float-cast-overflow, and libFuzzer is clang's.
# Usage: bash .ci/sanitize.sh        (FUZZ_SECONDS=10 for a quicker pass)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fuzz_seconds=${FUZZ_SECONDS:-60}
# The benchmark (figures, not checks) and the soak (its memory figure means nothing under ASan's
# quarantine and shadow memory): the normal tree runs both; the rest of the suite runs here.
SKIP_IN_SANITIZER='^(bench_cli|window_soak)$'
# The trees are CMakePresets.json's asan (build-san) and tsan (build-tsan): clang 14, Ninja,
# RelWithDebInfo, CPU only. Under CI (the CI variable set) warnings are errors, as in the normal tree.
extra=()
command -v ccache > /dev/null && extra+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
[ -n "${CI:-}" ] && extra+=(-DMANDELSCOPE_WARNINGS_AS_ERRORS=ON)
t0=$(date +%s)
stamp() { echo "== $1 ($(( $(date +%s) - t0 )) s since sanitize.sh started)"; }

# --- 1. ASan + UBSan tree, whole suite ------------------------------------------------------
cmake --preset asan "${extra[@]}" > build-san.cmake.log
cmake --build build-san -j"$(nproc)"
stamp "build-san built"

if [ -z "${DISPLAY:-}" ]; then
    display=:$((80 + RANDOM % 9))
    Xvfb "$display" -screen 0 1920x1080x24 -nolisten tcp > /tmp/mandelscope-xvfb-san.log 2>&1 &
    xvfb_pid=$!
    trap 'kill $xvfb_pid 2>/dev/null || true' EXIT
    export DISPLAY=$display
    for _ in $(seq 50); do xdpyinfo > /dev/null 2>&1 && break; sleep 0.1; done
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$root/.ci/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-san && ctest --output-on-failure -j"$(nproc)" -E "$SKIP_IN_SANITIZER|^window_|^options_cli$")
# The programs that open a window: ASan and UBSan as above, leak checking off. The GL drivers
# (Mesa's, loaded and unloaded with dlopen) leave allocations whose stacks end in "<unknown
# module>", which no suppression can name; the windowless tests above keep leak checking on.
(cd build-san && ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0} \
    ctest --output-on-failure -j1 -R "^window_|^options_cli$" -E "$SKIP_IN_SANITIZER")
stamp "sanitizer suite passed"

# --- 2. fuzz targets ----------------------------------------------------------------------------
bash .ci/fuzz.sh build-san/bin "$fuzz_seconds"
stamp "fuzz targets passed"

# --- 3. ThreadSanitizer on the background workers' tests --------------------------------------
cmake --preset tsan "${extra[@]}" > build-tsan.cmake.log
# The workers: render (CPU and deep, with the reference orbit), Compare, export, the PNG
# writer's own thread (image_io's pipeline, png_stream), and the reference orbit's squarings on
# three threads (deep_reference_orbit.cpp's squaring team), a deep frame's bands shared out
# over workers (compute/scale/deep_multi_gpu, its engine run with the CPU's renderer), and a
# video's segments shared out over renderers beside its encoders and its pool's maker
# (compute/video/segment_share.h, run_video with CPU renderers), the part store's writer thread
# (compute/cluster/part_store.h) and a render's reference orbit computed beside its checks
# (ReferencePrefetch).
tsan_tests=(test_render_workers_stop test_render_compare_worker test_render_cpu_worker test_render_deep_worker
            test_render_png_stream test_image_io test_deep_reference_team test_deep_multi_gpu
            test_video_renderers test_cluster_parts test_deep_render)
cmake --build build-tsan -j"$(nproc)" --target "${tsan_tests[@]}"
archer=$(ls /usr/lib/llvm-14/lib/libarcher.so 2> /dev/null || true)
for t in "${tsan_tests[@]}"; do
    # test_image_io's signal and full-disk cases fork a child after the OpenMP pool exists, which
    # ThreadSanitizer does not support ("starting new threads after multi-threaded fork"); the
    # sanitizer tree above runs them.
    filter=()
    [ "$t" = test_image_io ] && filter=(--gtest_filter='-OutputPaths.Signals*:OutputPaths.AFullDisk*')
    # test_deep_render's other cases are MPFR brute force, single-threaded and slow under TSan.
    [ "$t" = test_deep_render ] && filter=(--gtest_filter='DeepCpu.PrefetchedReferenceServesTheFrame')
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/.ci/tsan.supp" \
        OMP_TOOL_LIBRARIES=$archer build-tsan/bin/$t "${filter[@]}"
done
stamp "ThreadSanitizer: no reports"
