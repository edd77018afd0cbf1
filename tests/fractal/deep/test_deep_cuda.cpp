// test_deep_cuda.cpp: the CUDA deep path (deep_cuda) against the CPU deep path (deep_cpu), its
// reference: same locations, same sizes, escape counts equal pixel for pixel (both compile
// without FMA contraction, so they run the same IEEE operations), the same iteration and BLA
// counts, mu within 1e-9. Double deltas (1e20, 4.1e158 glitch location) and FloatExp deltas
// (1e300, 1e1000), BLA on and off, rebasing off, on the default stream and on a stream of the
// caller's. deep_cuda_rings against deep_cpu_rings the same way, on a polar grid (the exponential
// map's strips). Skips with the reason where CUDA cannot run.
// The CPU path itself is held to the MPFR truth in test_deep_render.cpp (Mandelbrot) and
// test_deep_family.cpp (the other formulas and Julia sets).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/direct/direct.h"
#include "compute/io/assets.h"
#include "tests/fractal/deep/deep_family_locations.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/validate.h"

using namespace ms;
using ms::test::load_location;

namespace {

void expect_same_frame(const DeepLocation& location, int width, int height, const DeepRenderOptions& options,
                       DeepNumberType expected_type) {
    DeepFrame cpu = deep_cpu(location, width, height, options);
    DeepFrame gpu = deep_cuda(location, width, height, options);
    EXPECT_EQ(gpu.stats.number_type, expected_type);
    EXPECT_EQ(cpu.stats.number_type, expected_type);
    // Through the shared validator: counts exactly, mu to 1e-9 (device log/log2).
    auto counts = test::validate_result("escape count", cpu.escape_count.data(), gpu.escape_count.data(),
                                        cpu.escape_count.size(), 0.0, 0.0, width);
    auto mu = test::validate_result("mu", cpu.mu.data(), gpu.mu.data(), cpu.mu.size(), 1e-9, 0.0, width);
    EXPECT_EQ(counts.mismatches, 0u);
    EXPECT_EQ(mu.mismatches, 0u);
    EXPECT_EQ(gpu.stats.iterations, cpu.stats.iterations);
    EXPECT_EQ(gpu.stats.bla_iterations, cpu.stats.bla_iterations);
    EXPECT_EQ(gpu.stats.perturbation_steps, cpu.stats.perturbation_steps);
    EXPECT_EQ(gpu.stats.rebases, cpu.stats.rebases);
    std::printf("  %dx%d %s: cpu pixels %.1f ms, cuda kernel %.2f ms; %llu iterations, %.1f%% by BLA\n", width, height,
                deep_number_type_name(gpu.stats.number_type), cpu.stats.pixels_ms, gpu.stats.pixels_ms,
                (unsigned long long)gpu.stats.iterations,
                100.0 * double(gpu.stats.bla_iterations) / double(gpu.stats.iterations));
}

// A polar grid of 96 points a ring around the view's centre, 28 rings from 64 pixel steps down to
// a quarter of one, four rings a doubling: the counts exactly, mu to 1e-9, the DE to 1e-6
// relative (device log).
void expect_same_rings(const DeepLocation& location, const DeepRenderOptions& options, DeepNumberType expected_type) {
    DeepRings rings;
    rings.columns = 96;
    const FloatExp step = deep_pixel_spacing(location.zoom, 36);
    for (int r = 0; r < 28; ++r) rings.radius.push_back(step * fe_from_double(std::exp2(6.0 - 0.25 * r)));
    const DeepRingsFrame cpu = deep_cpu_rings(location, 64, 36, rings, options);
    const DeepRingsFrame gpu = deep_cuda_rings(location, 64, 36, rings, options);
    EXPECT_EQ(gpu.stats.number_type, expected_type);
    EXPECT_EQ(cpu.stats.number_type, expected_type);
    ASSERT_EQ(gpu.columns, 96);
    ASSERT_EQ(gpu.rings, 28);
    ASSERT_EQ(gpu.escape_count.size(), cpu.escape_count.size());
    ASSERT_EQ(gpu.distance.size(), cpu.distance.size());
    auto counts = test::validate_result("escape count", cpu.escape_count.data(), gpu.escape_count.data(),
                                        cpu.escape_count.size(), 0.0, 0.0, 96);
    auto mu = test::validate_result("mu", cpu.mu.data(), gpu.mu.data(), cpu.mu.size(), 1e-9, 0.0, 96);
    EXPECT_EQ(counts.mismatches, 0u);
    EXPECT_EQ(mu.mismatches, 0u);
    if (options.distance) {
        auto de = test::validate_result("DE", cpu.distance.data(), gpu.distance.data(), cpu.distance.size(), 0.0, 1e-6,
                                        96);
        EXPECT_EQ(de.mismatches, 0u);
    }
    // Both ran: some points escaped and the grid is not uniform.
    int64_t escaped = 0, lowest = INT64_MAX, highest = -1;
    for (int64_t k : gpu.escape_count) {
        escaped += k >= 0;
        if (k >= 0) lowest = std::min(lowest, k), highest = std::max(highest, k);
    }
    EXPECT_GT(escaped, 0);
    EXPECT_LT(lowest, highest);
    EXPECT_EQ(gpu.stats.iterations, cpu.stats.iterations);
    std::printf("  rings %s%s: cpu %.1f ms, cuda kernel %.2f ms; %lld of %zu escaped, counts %lld to %lld\n",
                deep_number_type_name(gpu.stats.number_type), options.distance ? " with DE" : "", cpu.stats.pixels_ms,
                gpu.stats.pixels_ms, (long long)escaped, gpu.escape_count.size(), (long long)lowest,
                (long long)highest);
}

}  // namespace

TEST(DeepCuda, RingsMatchCpuRings) {
    SKIP_WITHOUT_CUDA();
    DeepRenderOptions distance;
    distance.distance = true;
    expect_same_rings(load_location("e50"), {}, DeepNumberType::Double);
    expect_same_rings(load_location("e50"), distance, DeepNumberType::Double);
    expect_same_rings(load_location("e1000", "1E300"), {}, DeepNumberType::FloatExp);
    expect_same_rings(load_location("e1000", "1E300"), distance, DeepNumberType::FloatExp);
    expect_same_rings(test::boundary_location(test::kBurningShipTip, 215, 1000, "1E60"), {}, DeepNumberType::Double);
}

// Without CUDA the rings say why, as deep_cuda does.
TEST(DeepCuda, RingsReportWhyWithoutCuda) {
    std::string reason;
    if (cuda_available(&reason)) GTEST_SKIP() << "CUDA is available here";
    DeepRings rings;
    rings.columns = 8;
    rings.radius = {fe_from_double(1e-10)};
    EXPECT_THROW(deep_cuda_rings(load_location("e50"), 16, 9, rings), std::runtime_error);
}

TEST(DeepCuda, MatchesCpuAt1e20) {
    SKIP_WITHOUT_CUDA();
    expect_same_frame(load_location("e50", "1E20"), 64, 36, {}, DeepNumberType::Double);
}

// Outputs of 1 MB and more are page-locked while the kernel runs (deep_cuda.cu's HostPin) and
// come back in one DMA: the same pixels, frame after frame (each registration released).
TEST(DeepCuda, MatchesCpuWithPageLockedOutputs) {
    SKIP_WITHOUT_CUDA();
    for (int round = 0; round < 2; ++round)
        expect_same_frame(load_location("e113"), 512, 288, {}, DeepNumberType::Double);
}

TEST(DeepCuda, MatchesCpuAtGlitchLocation) {
    SKIP_WITHOUT_CUDA();
    expect_same_frame(load_location("glitch_test_3"), 64, 36, {}, DeepNumberType::Double);
    DeepRenderOptions plain;
    plain.rebase = false;
    plain.use_bla = false;
    expect_same_frame(load_location("glitch_test_3"), 32, 18, plain, DeepNumberType::Double);
}

TEST(DeepCuda, MatchesCpuWithoutBla) {
    SKIP_WITHOUT_CUDA();
    DeepRenderOptions options;
    options.use_bla = false;
    expect_same_frame(load_location("e113"), 48, 27, options, DeepNumberType::Double);
}

TEST(DeepCuda, MatchesCpuWithFloatExpAt1e300And1e1000) {
    SKIP_WITHOUT_CUDA();
    expect_same_frame(load_location("e1000", "1E300"), 64, 36, {}, DeepNumberType::FloatExp);
    expect_same_frame(load_location("e1000"), 48, 27, {}, DeepNumberType::FloatExp);
}

// The frame's passes (deep_cuda.cu): pixels suspended after a step budget and resumed, packed,
// in the next pass give the one-pass frame exactly. Small budgets and a small last pass so that
// these small frames take many passes, with double and FloatExp deltas, BLA on and off, rebasing
// at the glitch location, and a Julia set (whose suspended pixels may sit on its critical orbit).
TEST(DeepCuda, MatchesCpuThroughPasses) {
    SKIP_WITHOUT_CUDA();
    DeepRenderOptions options;
    options.cuda_pass_steps = 37;
    options.cuda_pass_final_pixels = 16;
    expect_same_frame(load_location("e50", "1E20"), 64, 36, options, DeepNumberType::Double);
    expect_same_frame(load_location("glitch_test_3"), 64, 36, options, DeepNumberType::Double);
    expect_same_frame(load_location("e1000"), 48, 27, options, DeepNumberType::FloatExp);
    expect_same_frame(test::boundary_location(test::kJuliaRabbit, 215, 1000, "1E20"), 48, 27, options,
                      DeepNumberType::Double);
    options.use_bla = false;
    expect_same_frame(load_location("e113"), 48, 27, options, DeepNumberType::Double);
}

// The window's deep worker renders on a non-blocking stream of its own (DeepCudaStream): the
// same frame, whether 1e20 (double) or 1E1000 (FloatExp), and the stream is reused.
TEST(DeepCuda, MatchesCpuOnAStreamOfItsOwn) {
    SKIP_WITHOUT_CUDA();
    DeepCudaStream stream;
    DeepRenderOptions options;
    options.cuda_stream = stream.get();
    ASSERT_NE(options.cuda_stream, nullptr);
    expect_same_frame(load_location("e50", "1E20"), 64, 36, options, DeepNumberType::Double);
    EXPECT_EQ(stream.get(), options.cuda_stream);
    expect_same_frame(load_location("e1000"), 48, 27, options, DeepNumberType::FloatExp);
}

TEST(DeepCuda, ReportsWhyWithoutCuda) {
    std::string reason;
    if (cuda_available(&reason)) GTEST_SKIP() << "CUDA is available here";
    try {
        deep_cuda(load_location("e113"), 8, 5);
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        std::string s = e.what();
        EXPECT_NE(s.find("CUDA"), std::string::npos) << s;
        EXPECT_EQ(s.back(), '.') << s;
    }
}

// The formula family (deep_family_locations.h's cases): every formula's kernel and a Julia set's
// two orbits match the CPU deep path pixel for pixel, with double and FloatExp deltas.
TEST(DeepCuda, FormulaFamilyMatchesCpu) {
    SKIP_WITHOUT_CUDA();
    for (const test::FamilyCase* c : {&test::kMultibrot3, &test::kMultibrot5, &test::kTricorn, &test::kBurningShip,
                                      &test::kJuliaRabbit, &test::kJuliaMultibrot3, &test::kJuliaBurningShip}) {
        std::printf("%s\n", c->name);
        expect_same_frame(test::boundary_location(*c, 215, 1000, "1E20"), 48, 27, {}, DeepNumberType::Double);
    }
    for (const test::FamilyCase* c : {&test::kMultibrot4Tip, &test::kTricornTip, &test::kBurningShipTip}) {
        std::printf("%s\n", c->name);
        expect_same_frame(test::boundary_location(*c, 215, 1000, "1E60"), 48, 27, {}, DeepNumberType::Double);
    }
    // The Burning Ship's chaotic hull, where a pixel's orbit keeps crossing the axes and rebasing.
    std::printf("%s\n", test::kBurningShipHull.name);
    expect_same_frame(
        test::boundary_location(test::kBurningShipHull, 215, test::kBurningShipHullIterations1e60, "1E60"), 48, 27, {},
        DeepNumberType::Double);
    DeepRenderOptions floatexp;
    floatexp.number_type = DeepNumberType::FloatExp;
    for (const test::FamilyCase* c : {&test::kJuliaMultibrot3, &test::kBurningShipTip}) {
        std::printf("%s (FloatExp)\n", c->name);
        expect_same_frame(test::boundary_location(*c, 215, 1000, "1E60"), 48, 27, floatexp, DeepNumberType::FloatExp);
    }
}

// Progress while the kernel runs: rows reported in order, ending at the frame's height; and the
// same frame again, keeping the orbit and table: nothing copied to the device the second time.
TEST(DeepCuda, ReportsRowsAndKeepsTheOrbitOnTheDevice) {
    SKIP_WITHOUT_CUDA();
    const DeepLocation location = load_location("e50");
    ReferenceCache cache;
    DeepRenderOptions options;
    options.cache = &cache;
    std::vector<int> rows;
    options.row_progress = [&](int done, int all) {
        EXPECT_EQ(all, 180);
        rows.push_back(done);
    };
    const DeepFrame first = deep_cuda(location, 320, 180, options);
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows.back(), 180);
    for (size_t i = 1; i < rows.size(); ++i) EXPECT_GE(rows[i], rows[i - 1]);
    EXPECT_GT(first.stats.device_bytes_copied, 0u);
    const DeepFrame again = deep_cuda(location, 320, 180, options);
    EXPECT_TRUE(again.stats.reference_cached);
    EXPECT_TRUE(again.stats.bla_cached);
    EXPECT_EQ(again.stats.device_bytes_copied, 0u);
    EXPECT_EQ(again.escape_count, first.escape_count);
}

// A newer view cancels the running kernel: the cancel flag, set from the first progress report,
// stops the frame before its end (warps not yet started skip their pixels): it comes back marked
// cancelled, having run fewer iterations than the whole frame, and the next frame on the same
// thread runs whole, equal to one rendered with neither cancel nor progress.
TEST(DeepCuda, CancelStopsTheRunningKernel) {
    SKIP_WITHOUT_CUDA();
    const DeepLocation location = load_location("e50");
    ReferenceCache cache;
    std::atomic<bool> cancel{false};
    DeepRenderOptions options;
    options.cache = &cache;
    options.cancel = &cancel;
    options.row_progress = [&](int, int) { cancel = true; };
    const DeepFrame cancelled = deep_cuda(location, 1024, 1024, options);
    cancel = false;
    int last_rows = 0;
    options.row_progress = [&](int done, int) { last_rows = done; };
    const DeepFrame whole = deep_cuda(location, 1024, 1024, options);
    EXPECT_FALSE(whole.stats.cancelled);
    EXPECT_EQ(last_rows, 1024);
    DeepRenderOptions plain;
    plain.cache = &cache;
    const DeepFrame reference = deep_cuda(location, 1024, 1024, plain);
    EXPECT_EQ(whole.escape_count, reference.escape_count);
    EXPECT_EQ(whole.stats.iterations, reference.stats.iterations);
    if (!cancelled.stats.cancelled)
        GTEST_SKIP() << "the kernel ended before the first progress poll (a tool that serialises launches, as "
                        "compute-sanitizer does), so there was nothing left to cancel";
    EXPECT_LT(cancelled.stats.iterations, whole.stats.iterations);
    std::printf("  cancelled after %.1f%% of the frame's iterations\n",
                100.0 * double(cancelled.stats.iterations) / double(whole.stats.iterations));
}
