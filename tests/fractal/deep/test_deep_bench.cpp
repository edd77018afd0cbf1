// test_deep_bench.cpp: the deep zoom's benchmark, as DISABLED_ tests (never run by CTest; run by
// hand). Prints figures, asserts only that the runs completed.
//   build/bin/test_deep_bench --gtest_also_run_disabled_tests --gtest_filter='*Reference*'
//   build/bin/test_deep_bench --gtest_also_run_disabled_tests --gtest_filter='*ReferenceThreads*'
//       (1, 2, 3 and the chosen threads at 1e1086 and e10000; MANDELSCOPE_DEEP_REFERENCE_ROUNDS=n,
//       MANDELSCOPE_DEEP_REFERENCE_ITERATIONS=n, MANDELSCOPE_DEEP_REFERENCE_LOCATIONS=e533,e1086)
//   build/bin/test_deep_bench --gtest_also_run_disabled_tests --gtest_filter='*HandOver*'
//   build/bin/test_deep_bench --gtest_also_run_disabled_tests --gtest_filter='*Kf2Locations*'
//       (MANDELSCOPE_DEEP_BENCH_SIZE=1024x1024 in the environment chooses the frame size)
//   build/bin/test_deep_bench --gtest_also_run_disabled_tests --gtest_filter='*CudaKf2Locations*'
//   build/bin/test_deep_bench --gtest_also_run_disabled_tests --gtest_filter='*CudaBlaBuild*'
//   build/bin/test_deep_bench --gtest_also_run_disabled_tests --gtest_filter='*CudaPasses*'
//   build/bin/test_deep_bench --gtest_also_run_disabled_tests --gtest_filter='*CudaSquaringChain*'
//   build/bin/test_deep_bench --gtest_also_run_disabled_tests --gtest_filter='*AgainstPlainLoop*'
//   build/bin/test_deep_bench --gtest_also_run_disabled_tests --gtest_filter='*WorkPerPixel*'
//       (counts: steps, skips, rebases, interior per pixel; MANDELSCOPE_DEEP_WORK_STRIDE=k,
//       MANDELSCOPE_DEEP_WORK_LOCATIONS=e50,e227)
//       (e50 at 640x360: the pipeline against the plain loop, interleaved on a sample of rows;
//       MANDELSCOPE_DEEP_PLAIN_STRIDE=k samples every k-th row, MANDELSCOPE_DEEP_PLAIN_ROUNDS=n)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/bench/deep_bench.h"
#include "compute/fractal/direct/direct.h"
#include "compute/io/assets.h"

using namespace ms;

namespace {

std::string locations_folder() { return (find_data_dir("assets") / "locations").string(); }

void print(const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

// "e50,e227" -> {"e50", "e227"}.
std::vector<std::string> split_names(const std::string& list) {
    std::vector<std::string> names;
    for (size_t start = 0; start <= list.size();) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        if (comma > start) names.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    return names;
}

void size_from_env(int* width, int* height) {
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_BENCH_SIZE")) std::sscanf(s, "%dx%d", width, height);
}

}  // namespace

TEST(DeepBench, DISABLED_ReferenceAgainstBareMpfr) {
    deep_bench_reference(locations_folder(), {"e50", "e113", "e227", "e533", "e1000", "e1086"}, 1024, print);
}

// Where two and three threads start to pay: a bounded orbit, 20,000 iterations at each precision
// (MANDELSCOPE_DEEP_REFERENCE_ITERATIONS=n changes it), up to e10000's (33,280 bits).
TEST(DeepBench, DISABLED_ReferenceTeamByPrecision) {
    int64_t iterations = 20000;
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_REFERENCE_ITERATIONS")) iterations = std::atoll(s);
    deep_bench_reference_team({1024, 2048, 3072, 4096, 6144, 8192, 16384, 33280}, iterations, print);
}

// What the squaring team pays at each iteration for its meeting: 2 and 3 spinning threads.
TEST(DeepBench, DISABLED_HandOver) { deep_bench_hand_over(200000, print); }

// What a meeting is made of: one thread's write reaching another, between each pair of CPUs.
TEST(DeepBench, DISABLED_CoreToCore) { deep_bench_core_to_core(20000, print); }

// The render's reference orbit on 1, 2, 3 and the chosen threads at 1e1086 (kf2's deepest
// benchmark location) and e10000 (the deepest location here, 2.7e10000), 1024x1024, 3 rounds;
// MANDELSCOPE_DEEP_REFERENCE_ROUNDS=n, MANDELSCOPE_DEEP_REFERENCE_ITERATIONS=n (a cap) and
// MANDELSCOPE_DEEP_REFERENCE_LOCATIONS=e533,e1086 change them.
TEST(DeepBench, DISABLED_ReferenceThreads) {
    int rounds = 3;
    int64_t iterations = 0;
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_REFERENCE_ROUNDS")) rounds = std::max(1, std::atoi(s));
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_REFERENCE_ITERATIONS")) iterations = std::atoll(s);
    std::vector<std::string> names = {"e1086", "e10000"};
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_REFERENCE_LOCATIONS")) names = split_names(s);
    deep_bench_reference_threads(locations_folder(), names, 1024, 1024, iterations, rounds, print);
}

// Kalles Fraktaler 2's benchmark locations (1e50, 5e113, 5e227, 4e533, 1e1086; the 1e14 one is
// not among the public files found) at 640x360 unless MANDELSCOPE_DEEP_BENCH_SIZE says otherwise.
TEST(DeepBench, DISABLED_Kf2Locations) {
    int width = 640, height = 360;
    size_from_env(&width, &height);
    deep_bench_locations(locations_folder(), {"e50", "e113", "e227", "e533", "e1086"}, width, height, print);
}

TEST(DeepBench, DISABLED_AgainstPlainLoop) {
    int width = 640, height = 360;
    size_from_env(&width, &height);
    int stride = 0, rounds = 3;  // 0: the sample's rows chosen for a 15 s plain loop
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_PLAIN_STRIDE")) stride = std::atoi(s);
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_PLAIN_ROUNDS")) rounds = std::max(1, std::atoi(s));
    deep_bench_plain(locations_folder(), "e50", width, height, stride, rounds, print);
}

// Where the pixel work goes at the kf2 locations (1024x1024, every 16th row unless
// MANDELSCOPE_DEEP_BENCH_SIZE / MANDELSCOPE_DEEP_WORK_STRIDE say otherwise): counts, not times.
TEST(DeepBench, DISABLED_WorkPerPixel) {
    int width = 1024, height = 1024, stride = 16;
    size_from_env(&width, &height);
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_WORK_STRIDE")) stride = std::max(1, std::atoi(s));
    std::vector<std::string> names = {"e50", "e113", "e227", "e533", "e1086"};
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_WORK_LOCATIONS")) names = split_names(s);
    deep_bench_work(locations_folder(), names, width, height, stride, print);
}

// The same on CUDA (1024x1024 unless MANDELSCOPE_DEEP_BENCH_SIZE says otherwise).
TEST(DeepBench, DISABLED_CudaKf2Locations) {
    std::string reason;
    if (!cuda_available(&reason)) GTEST_SKIP() << reason;
    int width = 1024, height = 1024;
    size_from_env(&width, &height);
    deep_bench_locations(locations_folder(), {"e50", "e113", "e227", "e533", "e1086"}, width, height, print, true);
}

// rust-fractal-core's e10000 on CUDA (its reference alone takes minutes on one CPU core).
// The BLA table on the CPU (+ its copy to the device) against on the GPU, kf2 locations at
// 1024x1024 (MANDELSCOPE_DEEP_BENCH_SIZE), then deep_cuda end to end both ways.
TEST(DeepBench, DISABLED_CudaBlaBuild) {
    std::string reason;
    if (!cuda_available(&reason)) GTEST_SKIP() << reason;
    int width = 1024, height = 1024;
    size_from_env(&width, &height);
    deep_bench_bla(locations_folder(), {"e50", "e113", "e227", "e533", "e1086"}, width, height, 5, print);
}

// deep_cuda's pixels in one pass against in passes of 512, 2048 and 8192 steps a pixel.
TEST(DeepBench, DISABLED_CudaPasses) {
    std::string reason;
    if (!cuda_available(&reason)) GTEST_SKIP() << reason;
    int width = 1024, height = 1024;
    size_from_env(&width, &height);
    deep_bench_cuda_passes(locations_folder(), {"e50", "e113", "e227", "e533", "e1086"}, width, height, 5, print);
}

TEST(DeepBench, DISABLED_CudaPastE10000) {
    std::string reason;
    if (!cuda_available(&reason)) GTEST_SKIP() << reason;
    int width = 1024, height = 1024;
    size_from_env(&width, &height);
    deep_bench_locations(locations_folder(), {"e10000"}, width, height, print, true);
}

// rust-fractal-core's e10000 (2.7e10000).
TEST(DeepBench, DISABLED_PastE10000) {
    int width = 640, height = 360;
    size_from_env(&width, &height);
    deep_bench_locations(locations_folder(), {"e10000"}, width, height, print);
}

// A reference orbit on the GPU, costed: exact squarings in a chain on one CPU thread and in one
// GPU block, by precision (1e1086's 3,682 bits to e10000's 33,295 and past), and a grid-wide
// barrier.
TEST(DeepBench, DISABLED_CudaSquaringChain) {
    std::string reason;
    if (!cuda_available(&reason)) GTEST_SKIP() << reason;
    deep_bench_gpu_squaring({1024, 3682, 8192, 16384, 33295, 66560}, print);
}
