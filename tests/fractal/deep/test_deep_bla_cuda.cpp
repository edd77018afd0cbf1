// test_deep_bla_cuda.cpp: the BLA table built on the GPU (deep_bla_cuda.h) against the CPU's
// build (build_bla_table, its reference), through the shared validator (bla_table_compare.h):
// every entry's A, B, radius and length equal bit for bit, with no tolerance (both sides run
// deep_bla.h's per-entry functions with the same IEEE operations, no FMA contraction on either),
// for the kf2 benchmark locations at 1024x1024 (double deltas e50, 5e113, 5e227; FloatExp 4e533,
// 1e1086), the Multibrots, the Tricorn's and the Burning Ship's matrices, a Julia set's critical
// orbit, and double and FloatExp. Then frames: deep_cuda with its tables built on the GPU equals,
// count for count and mu for mu, deep_cuda with the CPU's tables copied (bla_on_device false);
// the device tables are kept in the ReferenceCache as host tables are (the same frame again, a
// smaller image, a pan's strip find them); a cancelled build gives no table.
// Skips with the reason where CUDA cannot run.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <string>

#include "compute/fractal/deep/deep_bla_cuda.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/deep/deep_perturbation.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/direct/direct.h"
#include "compute/io/assets.h"
#include "tests/fractal/deep/bla_table_compare.h"
#include "tests/fractal/deep/deep_family_locations.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/validate.h"

using namespace ms;
using ms::test::load_location;

namespace {

// One orbit's table, CPU and GPU, compared entry by entry.
template <typename T, typename L>
void expect_same_table(const std::string& name, const DeepComplex<T>* z, size_t count, T max_dc, double epsilon,
                       Formula formula) {
    const int64_t last = int64_t(count) - 1;
    BlaTable<T, L> cpu;
    std::shared_ptr<DeviceBlaTable<T, L>> gpu;
    DeviceOrbit<T> orbit(z, count);
    if constexpr (std::is_same_v<L, DeepMatrix<T>>) {
        const bool ship = formula == Formula::BurningShip;
        ASSERT_TRUE(build_bla_table_matrix(z, last, max_dc, epsilon, nullptr, &cpu, ship));
        gpu = build_bla_table_matrix_cuda(orbit.data(), last, max_dc, epsilon, ship, nullptr);
    } else {
        ASSERT_TRUE(build_bla_table(z, last, max_dc, epsilon, nullptr, &cpu, formula_degree(formula)));
        gpu = build_bla_table_cuda(orbit.data(), last, max_dc, epsilon, formula_degree(formula), nullptr);
    }
    ASSERT_TRUE(gpu);
    ASSERT_GT(cpu.view.levels, 1) << name;
    BlaTable<T, L> device;
    copy_bla_table_to_host(*gpu, &device);
    EXPECT_EQ(test::compare_bla_tables(name.c_str(), cpu, device), 0u) << name;
    EXPECT_EQ(gpu->view.levels, cpu.view.levels);
    std::printf("  %s: %.1f MB; CPU build %.2f ms, GPU build %.3f ms (kernels %.3f ms)\n", name.c_str(),
                1e-6 * double(gpu->bytes), cpu.build_ms, gpu->build_ms, gpu->kernels_ms);
}

// The frame's orbit(s) at width x height, in the number type it runs in (or `type`), and the |dc|
// deep_cuda builds its tables for: the reference's table and, for a Julia set, the critical orbit's.
template <typename T>
void expect_same_tables_for(const std::string& name, const DeepLocation& location, int width, int height) {
    DeepFrame frame;
    DeepRenderOptions options;
    const DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
    ASSERT_TRUE(setup.orbit);
    const DeepBlaRequest request = deep_bla_request(setup, options);
    const T max_dc = deep_from_floatexp<T>(request.build_dc);
    const ReferenceOrbit& orbit = *setup.orbit;
    deep_dispatch_formula(setup.map, [&]<Formula F, bool kJulia>() {
        using L = DeepBlaLinear<F, T>;
        expect_same_table<T, L>(name, deep_orbit_data<T>(orbit), orbit.z.size(), max_dc, request.epsilon, F);
        if (kJulia)
            expect_same_table<T, L>(name + " (critical orbit)", deep_critical_data<T>(orbit), orbit.critical_z.size(),
                                    max_dc, request.epsilon, F);
    });
}

// deep_cuda with the GPU's tables and with the CPU's: the same frame, every count and mu.
void expect_same_frame_both_builds(const DeepLocation& location, int width, int height,
                                   DeepRenderOptions options = {}) {
    options.bla_on_device = false;
    const DeepFrame host = deep_cuda(location, width, height, options);
    options.bla_on_device = true;
    const DeepFrame device = deep_cuda(location, width, height, options);
    EXPECT_FALSE(host.stats.bla_on_device);
    EXPECT_TRUE(device.stats.bla_on_device);
    EXPECT_EQ(device.stats.bla_levels, host.stats.bla_levels);
    auto counts = test::validate_result("escape count", host.escape_count.data(), device.escape_count.data(),
                                        host.escape_count.size(), 0.0, 0.0, width);
    auto mu = test::validate_result("mu", host.mu.data(), device.mu.data(), host.mu.size(), 0.0, 0.0, width);
    EXPECT_EQ(counts.mismatches, 0u);
    EXPECT_EQ(mu.mismatches, 0u);
    EXPECT_EQ(device.stats.iterations, host.stats.iterations);
    EXPECT_EQ(device.stats.bla_iterations, host.stats.bla_iterations);
    EXPECT_EQ(device.stats.bla_skips, host.stats.bla_skips);
    EXPECT_EQ(device.stats.perturbation_steps, host.stats.perturbation_steps);
    EXPECT_LT(device.stats.device_bytes_copied, host.stats.device_bytes_copied) << "the table is not copied";
}

}  // namespace

// The kf2 benchmark locations at bench --deep's size: the largest tables (5e227: 1.1 million
// steps; 1e1086 in FloatExp).
TEST(DeepBlaCuda, TableEqualsCpuAtKf2Locations) {
    SKIP_WITHOUT_CUDA();
    expect_same_tables_for<double>("e50", load_location("e50"), 1024, 1024);
    expect_same_tables_for<double>("5e113", load_location("e113"), 1024, 1024);
    expect_same_tables_for<double>("5e227", load_location("e227"), 1024, 1024);
    expect_same_tables_for<FloatExp>("4e533", load_location("e533"), 1024, 1024);
    expect_same_tables_for<FloatExp>("1e1086", load_location("e1086"), 1024, 1024);
    // A double location's orbit in FloatExp (what --precision=deep-floatexp runs).
    expect_same_tables_for<FloatExp>("e50 at 1E20 (FloatExp)", load_location("e50", "1E20"), 64, 36);
}

TEST(DeepBlaCuda, TableEqualsCpuForTheFormulaFamily) {
    SKIP_WITHOUT_CUDA();
    for (const test::FamilyCase* c : {&test::kMultibrot3, &test::kMultibrot5, &test::kTricorn, &test::kBurningShip,
                                      &test::kJuliaRabbit, &test::kJuliaMultibrot3, &test::kJuliaBurningShip}) {
        const DeepLocation location = test::boundary_location(*c, 80, 1000, "1E20");
        expect_same_tables_for<double>(c->name, location, 48, 27);
        expect_same_tables_for<FloatExp>(std::string(c->name) + " (FloatExp)", location, 48, 27);
    }
}

TEST(DeepBlaCuda, FramesEqualWithTheCpuTable) {
    SKIP_WITHOUT_CUDA();
    expect_same_frame_both_builds(load_location("e50", "1E20"), 64, 36);
    expect_same_frame_both_builds(load_location("e1000"), 48, 27);
    for (const test::FamilyCase* c :
         {&test::kMultibrot3, &test::kBurningShip, &test::kJuliaRabbit, &test::kJuliaBurningShip}) {
        std::printf("%s\n", c->name);
        expect_same_frame_both_builds(test::boundary_location(*c, 80, 1000, "1E20"), 48, 27);
    }
    DeepRenderOptions floatexp;
    floatexp.number_type = DeepNumberType::FloatExp;
    expect_same_frame_both_builds(test::boundary_location(test::kTricorn, 80, 1000, "1E20"), 48, 27, floatexp);
}

// The device tables live in the ReferenceCache under the host tables' rules: the same frame again
// (another palette), a smaller image within the reuse slack and a pan's strip (a region of the
// frame) build nothing; a CPU frame keeps its own host table beside it.
TEST(DeepBlaCuda, DeviceTableIsKeptWithTheReference) {
    SKIP_WITHOUT_CUDA();
    ReferenceCache cache;
    DeepRenderOptions options;
    options.cache = &cache;
    const DeepLocation location = load_location("e113");
    const DeepFrame first = deep_cuda(location, 48, 14, options);
    EXPECT_FALSE(first.stats.bla_cached);
    EXPECT_TRUE(first.stats.bla_on_device);
    EXPECT_GT(first.stats.bla_ms, 0.0);
    const DeepFrame again = deep_cuda(location, 48, 14, options);
    EXPECT_TRUE(again.stats.bla_cached);
    EXPECT_TRUE(again.stats.bla_on_device);
    EXPECT_EQ(again.stats.bla_ms, 0.0);
    EXPECT_EQ(again.stats.device_bytes_copied, 0u);
    EXPECT_EQ(again.escape_count, first.escape_count);
    EXPECT_TRUE(deep_cuda(location, 36, 14, options).stats.bla_cached);  // 0.77x the |dc|: within the slack
    DeepRenderOptions strip = options;
    strip.region = DeepPixelRect{40, 0, 8, 14};
    const DeepFrame right = deep_cuda(location, 48, 14, strip);
    EXPECT_TRUE(right.stats.bla_cached);
    for (int y = 0; y < 14; ++y)
        for (int x = 0; x < 8; ++x)
            EXPECT_EQ(right.escape_count[size_t(y) * 8 + x], first.escape_count[size_t(y) * 48 + 40 + x]);
    const DeepFrame cpu = deep_cpu(location, 48, 14, options);
    EXPECT_FALSE(cpu.stats.bla_on_device);
    EXPECT_FALSE(cpu.stats.bla_cached);  // host and device tables are different kinds
    EXPECT_EQ(cpu.escape_count, first.escape_count);
    EXPECT_TRUE(deep_cuda(location, 48, 14, options).stats.bla_cached);
    EXPECT_TRUE(deep_cpu(location, 48, 14, options).stats.bla_cached);
}

TEST(DeepBlaCuda, CancelledBuildGivesNoTable) {
    SKIP_WITHOUT_CUDA();
    DeepFrame frame;
    const DeepFrameSetup setup = deep_frame_setup(load_location("e113"), 64, 36, {}, &frame);
    ASSERT_TRUE(setup.orbit);
    DeviceOrbit<double> orbit(setup.orbit->z.data(), setup.orbit->z.size());
    std::atomic<bool> cancel{true};
    EXPECT_EQ(build_bla_table_cuda(orbit.data(), setup.orbit->last_index(), fe_to_double(setup.max_dc),
                                   kBlaDefaultEpsilon, 2, nullptr, &cancel),
              nullptr);
    cancel = false;
    const auto table = build_bla_table_cuda(orbit.data(), setup.orbit->last_index(), fe_to_double(setup.max_dc),
                                            kBlaDefaultEpsilon, 2, nullptr, &cancel);
    ASSERT_NE(table, nullptr);
    EXPECT_GT(table->view.levels, 1);
}

TEST(DeepBlaCuda, ReportsWhyWithoutCuda) {
    std::string reason;
    if (cuda_available(&reason)) GTEST_SKIP() << "CUDA is available here";
    const DeepComplex<double> z[4] = {};
    try {
        DeviceOrbit<double> orbit(z, 4);
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        const std::string s = e.what();
        EXPECT_NE(s.find("CUDA"), std::string::npos) << s;
        EXPECT_EQ(s.back(), '.') << s;
    }
}
