// test_nucleus_bench.cpp: what a Newton zoom costs, as a DISABLED_ test (never run by CTest; run
// by hand). Prints figures, asserts only that the runs completed.
//   build/bin/test_nucleus_bench --gtest_also_run_disabled_tests
//       (MANDELSCOPE_NUCLEUS_BENCH_LOCATIONS=e50,e227 picks the locations)
// At each kf2 location, on one core: the period search and Newton's method (find_minibrot over
// the frame's half height), against compute_reference_orbit at the location's own depth (what the
// window computes before the Newton zoom) and at the minibrot's framing depth (what it computes
// after: the centre the nucleus, the precision of the framing zoom, the same iterations).
// Napkin maths: the period search is one orbit of `period` iterations at the location's
// precision; each Newton step is one orbit of `period` iterations at up to the minibrot's
// precision plus the derivative at the bits the step gains; the reference after is
// `iterations` (>= period) iterations at the minibrot's precision.
#include <gtest/gtest.h>
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_reference.h"
#include "compute/fractal/nucleus/nucleus.h"
#include "tests/fractal/deep/kfr_location.h"

using namespace ms;

namespace {

// This thread's CPU time in ms: the figures hold on a machine busy with other work (the wall
// clock would count the time other processes run).
double thread_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

FloatExp half_height(DeepZoom zoom) {
    const double log2_zoom = deep_zoom_log2(zoom);
    const double whole = std::floor(log2_zoom);
    return fe_make(2.0 * std::exp2(whole - log2_zoom), -int64_t(whole));
}

double reference_ms(const std::string& re, const std::string& im, DeepZoom zoom, int64_t iterations, int64_t* bits) {
    ReferenceControl control;
    control.threads = 1;
    *bits = deep_reference_precision_bits(zoom, 1024);
    const double start = thread_cpu_ms();
    const auto orbit = compute_reference_orbit(re, im, *bits, iterations, control);
    EXPECT_TRUE(orbit);
    return thread_cpu_ms() - start;
}

}  // namespace

TEST(NucleusBench, DISABLED_Kf2Locations) {
    std::vector<std::string> names = {"e50", "e227", "e1086"};
    if (const char* env = std::getenv("MANDELSCOPE_NUCLEUS_BENCH_LOCATIONS")) {
        names.clear();
        std::stringstream list(env);
        for (std::string name; std::getline(list, name, ',');) names.push_back(name);
    }
    std::printf(
        "one core, thread CPU time (period and Newton: their share of the wall clock); radius = the frame's half "
        "height, 2/zoom; references at 1024 pixels high\n");
    for (const std::string& name : names) {
        const DeepLocation location = test::load_location(name);
        const double start = thread_cpu_ms();
        const Minibrot m = find_minibrot(location, half_height(location.zoom));
        const double newton_zoom_ms = thread_cpu_ms() - start;
        ASSERT_TRUE(m.found) << name << ": " << m.failure;
        int64_t here_bits = 0, there_bits = 0;
        const double here_ms = reference_ms(location.center_re, location.center_im, location.zoom,
                                            location.max_iterations, &here_bits);
        const DeepZoom frame = minibrot_frame_zoom(m);
        const double there_ms = reference_ms(m.center_re, m.center_im, frame, location.max_iterations, &there_bits);
        std::printf(
            "%-6s zoom %s: period %lld (%.0f ms wall), nucleus in %d Newton steps (%.0f ms wall, %lld bits); "
            "%.0f ms CPU in all; minibrot frame zoom %s\n"
            "       reference orbit (%lld iterations, one core): %.0f ms at the location (%lld bits), %.0f ms at "
            "the minibrot (%lld bits); the Newton zoom costs %.2fx the reference at the minibrot\n",
            name.c_str(), format_deep_zoom(location.zoom).c_str(), (long long)m.period, m.period_ms, m.newton_steps,
            m.newton_ms, (long long)m.precision_bits, newton_zoom_ms, format_deep_zoom(frame).c_str(),
            (long long)location.max_iterations, here_ms, (long long)here_bits, there_ms, (long long)there_bits,
            newton_zoom_ms / there_ms);
        std::fflush(stdout);
    }
}
