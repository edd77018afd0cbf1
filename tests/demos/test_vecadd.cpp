// test_vecadd.cpp: verifies the vector-add demo (compute/vecadd/vecadd.h): the CPU variants against a
// scalar loop written here (tiny sizes 1..17, sizes that are not multiples of any vector width,
// unaligned pointers, no writes past the end); the GPU variants against the CPU reference
// (skipped with the reason where no device exists); memory checks that refuse instead of
// crashing; the crossover points and lesson sentence on synthetic measurements; and the CSV.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compute/vecadd/vecadd.h"
#include "tests/validate.h"

namespace ms {
namespace {

using V = VecAddVariant;

// Inputs plus guard elements after the end, filled with a value no add produces here.
struct Arrays {
    static constexpr size_t kGuard = 32;
    static constexpr float kGuardValue = 12345.0f;
    std::vector<float> a, b, c, expected;
    size_t n;
    explicit Arrays(size_t n_, size_t offset = 0) : n(n_) {
        a.assign(n + offset + kGuard, 0.0f);
        b.assign(n + offset + kGuard, 0.0f);
        c.assign(n + offset + kGuard, kGuardValue);
        expected.resize(n);
        vecadd_fill_inputs(a.data() + offset, b.data() + offset, n);
        for (size_t i = 0; i < n; ++i) expected[i] = a[offset + i] + b[offset + i];
    }
    bool guard_intact(size_t offset = 0) const {
        for (size_t i = 0; i < offset; ++i)
            if (c[i] != kGuardValue) return false;
        for (size_t i = offset + n; i < c.size(); ++i)
            if (c[i] != kGuardValue) return false;
        return true;
    }
};

std::vector<size_t> awkward_sizes() {
    std::vector<size_t> sizes;
    for (size_t n = 1; n <= 17; ++n) sizes.push_back(n);
    for (size_t n : {31, 33, 63, 65, 127, 129, 1000, 4099, 100003}) sizes.push_back(n);
    return sizes;
}

TEST(VecAddCpu, InputsAreDeterministicAndInRange) {
    std::vector<float> a1(1000), b1(1000), a2(10), b2(10);
    vecadd_fill_inputs(a1.data(), b1.data(), a1.size());
    vecadd_fill_inputs(a2.data(), b2.data(), a2.size());
    for (size_t i = 0; i < a2.size(); ++i) EXPECT_EQ(a1[i], a2[i]);  // independent of n
    for (size_t i = 0; i < a1.size(); ++i) {
        EXPECT_GE(a1[i], -1.0f);
        EXPECT_LT(a1[i], 1.0f);
        EXPECT_NE(a1[i], b1[i]);
    }
}

TEST(VecAddCpu, ReferenceMatchesScalarLoopAtEverySize) {
    for (size_t n : awkward_sizes()) {
        Arrays x(n);
        vecadd_cpu_reference(x.a.data(), x.b.data(), x.c.data(), n);
        const std::string what = "vecadd_cpu_reference n=" + std::to_string(n);
        EXPECT_EQ(test::validate_result(what.c_str(), x.expected.data(), x.c.data(), n, 0.0).mismatches, 0u);
        EXPECT_TRUE(x.guard_intact()) << what << " wrote past the end";
    }
}

TEST(VecAddCpu, AllCoresSimdMatchesAtEverySizeThreadCountAndAlignment) {
    std::printf("vecadd_cpu dispatches to %s\n", vecadd_cpu_simd_target().c_str());
    for (size_t n : awkward_sizes())
        for (int threads : {1, 2, 3, 7})
            for (size_t offset : {0, 1, 3}) {  // offsets 1 and 3 make every pointer unaligned
                Arrays x(n, offset);
                vecadd_cpu(x.a.data() + offset, x.b.data() + offset, x.c.data() + offset, n, threads);
                const std::string what = "vecadd_cpu n=" + std::to_string(n) + " threads=" + std::to_string(threads) +
                                         " offset=" + std::to_string(offset);
                ASSERT_EQ(test::validate_result(what.c_str(), x.expected.data(), x.c.data() + offset, n, 0.0, 0.0, 0, 5)
                              .mismatches,
                          0u);
                ASSERT_TRUE(x.guard_intact(offset)) << what << " wrote outside [0, n)";
            }
}

TEST(VecAddCpu, MaxAbsErrorSeesDifferencesAndNaN) {
    std::vector<float> ref = {1, 2, 3, 4}, got = {1, 2.5f, 3, 4};
    EXPECT_DOUBLE_EQ(vecadd_max_abs_error(ref.data(), got.data(), 4), 0.5);
    got[3] = std::nanf("");
    EXPECT_TRUE(std::isinf(vecadd_max_abs_error(ref.data(), got.data(), 4)));
}

TEST(VecAddRun, CpuVariantsAreTimedAndVerified) {
    VecAddMachine machine = vecadd_machine_info(false);
    VecAddOptions options;
    options.repeats = 3;
    for (size_t n : {size_t(1), size_t(17), size_t(400), size_t(100003)}) {
        auto rows = run_vecadd_variants(machine, {V::CpuOneThread, V::CpuAllCores}, n, options);
        ASSERT_EQ(rows.size(), 2u);
        for (const VecAddResult& r : rows) {
            ASSERT_TRUE(r.ok) << vecadd_variant_name(r.variant) << ": " << r.error;
            EXPECT_EQ(r.elements, n);
            EXPECT_EQ(r.max_abs_error, 0.0);
            EXPECT_GT(r.time_ms, 0.0);
            EXPECT_EQ(r.repeats, 3);
            EXPECT_DOUBLE_EQ(r.bytes_moved, 12.0 * double(n));
            EXPECT_GT(r.gb_per_second, 0.0);
            EXPECT_GT(r.speedup_vs_one_thread, 0.0);
        }
        EXPECT_DOUBLE_EQ(rows[0].speedup_vs_one_thread, 1.0);
    }
}

TEST(VecAddRun, SizeBeyondMemoryIsRefusedWithASentence) {
    VecAddMachine machine;
    machine.host.available_memory_bytes = size_t(1) << 30;  // pretend: 1 GiB free
    const std::vector<VecAddVariant> all = vecadd_all_variants();
    const std::string why = vecadd_check_size(machine, size_t(1) << 28, all);
    EXPECT_NE(why.find("host memory"), std::string::npos) << why;
    EXPECT_NE(vecadd_check_size(machine, 0, all), "");
    EXPECT_NE(vecadd_check_size(machine, ~size_t(0), all), "");  // no overflow into "fits"
    const size_t max_n = vecadd_max_elements(machine, all);
    EXPECT_GT(max_n, 0u);
    EXPECT_EQ(vecadd_check_size(machine, max_n, all), "");
    EXPECT_NE(vecadd_check_size(machine, max_n + max_n / 10 + 1, all), "");
    // The runner says why in every row instead of allocating.
    auto rows = run_vecadd_variants(machine, all, size_t(1) << 28);
    ASSERT_EQ(rows.size(), all.size());
    for (const VecAddResult& r : rows) {
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.error.find("memory"), std::string::npos) << r.error;
    }
    // A device too small for the arrays is refused too.
    machine.host.available_memory_bytes = size_t(64) << 30;
    machine.device.available = true;
    machine.device.name = "a small GPU";
    machine.device.free_memory_bytes = size_t(1) << 30;
    const std::string dev_why = vecadd_check_size(machine, size_t(1) << 28, all);
    EXPECT_NE(dev_why.find("GPU memory"), std::string::npos) << dev_why;
    EXPECT_EQ(vecadd_check_size(machine, size_t(1) << 28, {V::CpuOneThread}), "");
}

TEST(VecAddRun, DefaultSizesAreALogScaleFrom100To2Pow28ThroughTheTutorials400) {
    const std::vector<size_t> sizes = vecadd_default_sizes(size_t(1) << 40);
    ASSERT_GE(sizes.size(), 15u);
    EXPECT_EQ(sizes.front(), 100u);
    EXPECT_EQ(sizes.back(), size_t(1) << 28);
    EXPECT_NE(std::find(sizes.begin(), sizes.end(), size_t(400)), sizes.end());
    for (size_t i = 1; i < sizes.size(); ++i) {
        EXPECT_GT(sizes[i], sizes[i - 1]);
        EXPECT_LE(double(sizes[i]) / double(sizes[i - 1]), 2.7);  // no gaps on the log plot
    }
    const std::vector<size_t> capped = vecadd_default_sizes(5000000);
    EXPECT_EQ(capped.back(), 5000000u);
    EXPECT_EQ(capped[capped.size() - 2], 4000000u);
}

TEST(VecAddRun, SweepReportsProgressAndCanBeCancelled) {
    VecAddMachine machine = vecadd_machine_info(false);
    std::atomic<bool> cancel{false};
    VecAddOptions options;
    options.repeats = 1;
    options.cancel = &cancel;
    size_t calls = 0, last_done = 0;
    const std::vector<size_t> sizes = {100, 200, 400, 1000};
    VecAddSweep sweep = run_vecadd_sweep(machine, sizes, {V::CpuOneThread, V::CpuAllCores}, options,
                                         [&](const VecAddProgress& p) {
                                             ++calls;
                                             EXPECT_EQ(p.steps_total, 8u);
                                             EXPECT_GE(p.steps_done, last_done);
                                             last_done = p.steps_done;
                                             if (p.steps_done == 4) cancel = true;  // after the second size
                                         });
    EXPECT_TRUE(sweep.cancelled);
    EXPECT_EQ(sweep.results.size(), 4u);
    EXPECT_GE(calls, 4u);
}

// ---- GPU -------------------------------------------------------------------------------------

TEST(VecAddGpu, KernelMatchesCpuReferenceInEveryLaunchConfiguration) {
    const VecAddDevice device = vecadd_device_info(false);
    if (!device.available) GTEST_SKIP() << "no GPU: " << device.reason;
    std::vector<VecAddKernelConfig> configs;
    for (int unroll : {1, 2, 4, 8})
        for (int per_sm : {0, 1, -1})
            for (bool hints : {false, true}) configs.push_back({128, per_sm, unroll, hints});
    std::vector<size_t> sizes = awkward_sizes();
    sizes.push_back((size_t(1) << 22) + 3);
    for (size_t n : sizes)
        for (const VecAddKernelConfig& config : configs) {
            Arrays x(n);
            vecadd_cuda_to_host(x.a.data(), x.b.data(), x.c.data(), n, config);
            const std::string what = "vecadd_kernel n=" + std::to_string(n) +
                                     " unroll=" + std::to_string(config.unroll) +
                                     " blocks/SM=" + std::to_string(config.blocks_per_sm) +
                                     (config.streaming_hints ? " hints" : "");
            ASSERT_EQ(test::validate_result(what.c_str(), x.expected.data(), x.c.data(), n, 0.0, 0.0, 0, 5).mismatches,
                      0u);
            ASSERT_TRUE(x.guard_intact()) << what;
        }
}

TEST(VecAddGpu, EveryGpuVariantMatchesTheCpu) {
    const VecAddMachine machine = vecadd_machine_info(true);
    if (!machine.device.available) GTEST_SKIP() << "no GPU: " << machine.device.reason;
    VecAddOptions options;
    options.repeats = 3;
    options.chunk_elements = 100000;  // 11 chunks over 4 streams, the last one short
    for (size_t n : {size_t(1), size_t(7), size_t(400), size_t(1000003)}) {
        auto rows = run_vecadd_variants(machine, vecadd_all_variants(), n, options);
        ASSERT_EQ(rows.size(), size_t(kVecAddVariantCount));
        for (const VecAddResult& r : rows) {
            ASSERT_TRUE(r.ok) << vecadd_variant_name(r.variant) << " at " << n << ": " << r.error;
            EXPECT_EQ(r.max_abs_error, 0.0) << vecadd_variant_name(r.variant) << " at " << n;
            EXPECT_GT(r.time_ms, 0.0);
            std::printf("%8zu %-16s %10.4f ms %8.1f GB/s\n", n, vecadd_variant_name(r.variant), r.time_ms,
                        r.gb_per_second);
        }
    }
    EXPECT_GT(machine.device.memory_gb_per_second, 0.0);
    EXPECT_GT(machine.device.link_h2d_gb_per_second, 0.0);
}

TEST(VecAddGpu, WithoutDeviceGpuRowsSayWhy) {
    VecAddMachine machine = vecadd_machine_info(false);
    if (machine.device.available) GTEST_SKIP() << "a GPU is present; this checks the no-GPU rows";
    auto rows = run_vecadd_variants(machine, vecadd_all_variants(), 100);
    for (const VecAddResult& r : rows) {
        EXPECT_EQ(r.ok, !vecadd_variant_is_gpu(r.variant));
        if (vecadd_variant_is_gpu(r.variant)) {
            EXPECT_EQ(r.error, machine.device.reason);
        }
    }
    EXPECT_THROW(vecadd_cuda_to_host(nullptr, nullptr, nullptr, 1), std::runtime_error);
}

// ---- Lesson and CSV on synthetic measurements ---------------------------------------------------

// A machine modelled with simple costs: fixed overhead + bytes / bandwidth.
struct Model {
    double cpu1_fixed_s = 5e-9, cpu1_gbps = 10;
    double cpuall_fixed_s = 2e-6, cpuall_gbps = 100;
    double kernel_fixed_s = 5e-6, kernel_gbps = 3000;
    double pageable_fixed_s = 30e-6, pageable_gbps = 8;
    double pinned_fixed_s = 20e-6, pinned_gbps = 25;
    double streams_fixed_s = 40e-6, streams_gbps = 37;
};

VecAddSweep synthetic_sweep(const Model& m, std::vector<size_t> sizes, bool gpu = true) {
    VecAddSweep sweep;
    sweep.sizes = sizes;
    sweep.variants = vecadd_all_variants();
    sweep.machine.host.threads = 16;
    sweep.machine.device.available = gpu;
    sweep.machine.device.reason = gpu ? "" : "no CUDA device found";
    sweep.machine.device.memory_gb_per_second = 3352;
    sweep.machine.device.link_h2d_gb_per_second = 25;
    sweep.machine.device.link_d2h_gb_per_second = 25;
    for (size_t n : sizes)
        for (V v : sweep.variants) {
            VecAddResult r;
            r.variant = v;
            r.elements = n;
            const double bytes = vecadd_bytes_per_element(v) * double(n);
            double fixed = 0, gbps = 1;
            switch (v) {
            case V::CpuOneThread:
                fixed = m.cpu1_fixed_s;
                gbps = m.cpu1_gbps;
                break;
            case V::CpuAllCores:
                fixed = m.cpuall_fixed_s;
                gbps = m.cpuall_gbps;
                break;
            case V::GpuKernelOnly:
                fixed = m.kernel_fixed_s;
                gbps = m.kernel_gbps;
                break;
            case V::GpuPageable:
                fixed = m.pageable_fixed_s;
                gbps = m.pageable_gbps;
                break;
            case V::GpuPinned:
                fixed = m.pinned_fixed_s;
                gbps = m.pinned_gbps;
                break;
            case V::GpuStreams:
                fixed = m.streams_fixed_s;
                gbps = m.streams_gbps;
                break;
            case V::GpuDeviceCopy:
                fixed = 3e-6;
                gbps = 2600;
                break;
            }
            if (vecadd_variant_is_gpu(v) && !gpu) {
                r.error = "no CUDA device found";
            } else {
                r.ok = true;
                r.time_ms = (fixed + bytes / (gbps * 1e9)) * 1e3;
                r.wall_ms = r.time_ms;
                r.bytes_moved = bytes;
                r.gb_per_second = bytes / (r.time_ms * 1e-3) / 1e9;
                if (v == V::GpuKernelOnly) {
                    r.limit_gb_per_second = 3352;
                    r.percent_of_limit = 100 * r.gb_per_second / 3352;
                }
            }
            sweep.results.push_back(r);
        }
    return sweep;
}

std::vector<size_t> log_sizes() { return vecadd_default_sizes(size_t(1) << 28); }

TEST(VecAddLesson, CrossoversComeFromTheMeasurements) {
    const Model m;
    const VecAddSweep sweep = synthetic_sweep(m, log_sizes());
    // Kernel vs one core: 5e-9 + 1.2e-9 n = 5e-6 + 4e-12 n  ->  n ~ 4.17K.
    const VecAddCrossover k1 = vecadd_crossover(sweep, V::GpuKernelOnly, V::CpuOneThread);
    ASSERT_EQ(k1.crossing, VecAddCrossing::At);
    EXPECT_EQ(k1.elements, 10000u);  // first measured size past 4.17K
    EXPECT_GT(k1.estimate_elements, 4000.0);
    EXPECT_LT(k1.estimate_elements, 10000.0);
    // Kernel vs all cores: 2e-6 + 1.2e-10 n = 5e-6 + 4e-12 n  ->  n ~ 25.9K.
    const VecAddCrossover ka = vecadd_crossover(sweep, V::GpuKernelOnly, V::CpuAllCores);
    ASSERT_EQ(ka.crossing, VecAddCrossing::At);
    EXPECT_EQ(ka.elements, 40000u);
    EXPECT_EQ(vecadd_crossover(sweep, V::GpuPageable, V::CpuOneThread).crossing, VecAddCrossing::Never);
    EXPECT_EQ(vecadd_crossover(sweep, V::GpuPageable, V::CpuAllCores).crossing, VecAddCrossing::Never);
    EXPECT_EQ(vecadd_crossover(sweep, V::GpuPinned, V::CpuOneThread).crossing, VecAddCrossing::At);
    // The device copy is never called a crossover, the other pairs all are.
    const VecAddLesson lesson = vecadd_lesson(sweep);
    EXPECT_EQ(lesson.crossovers.size(), 9u);
    EXPECT_NEAR(lesson.launch_us, 5.0, 0.1);
    std::printf("lesson: %s\n", lesson.sentence.c_str());
    const std::string& s = lesson.sentence;
    EXPECT_NE(s.find("At 400 elements one CPU core is"), std::string::npos) << s;
    EXPECT_NE(s.find("launch costs ~5"), std::string::npos) << s;
    EXPECT_NE(s.find("overtakes one core at ~4"), std::string::npos) << s;
    EXPECT_NE(s.find("all 16 cores at ~2"), std::string::npos) << s;
    // Pageable copies (8 GB/s) lose even to one core (10 GB/s); pinned ones (25 GB/s) beat
    // one core but not all cores (100 GB/s).
    EXPECT_NE(s.find("with pageable copies it never beats even one core"), std::string::npos) << s;
    EXPECT_NE(s.find("with pinned copies it overtakes one core at ~"), std::string::npos) << s;
    EXPECT_NE(s.find("but never all cores"), std::string::npos) << s;
}

TEST(VecAddLesson, FollowsTheDataNotAScript) {
    // A CPU with a slow memory system: now the pinned copies do beat all cores at large sizes.
    Model m;
    m.cpuall_gbps = 15;
    const VecAddSweep sweep = synthetic_sweep(m, log_sizes());
    const VecAddCrossover c = vecadd_crossover(sweep, V::GpuPinned, V::CpuAllCores);
    EXPECT_EQ(c.crossing, VecAddCrossing::At);
    const std::string s = vecadd_lesson(sweep).sentence;
    EXPECT_NE(s.find("with pinned copies it overtakes all 16 cores"), std::string::npos) << s;
    // And a GPU faster even at the smallest size is said so, not hidden.
    Model fast;
    fast.kernel_fixed_s = 1e-12;
    const VecAddLesson l2 = vecadd_lesson(synthetic_sweep(fast, log_sizes()));
    EXPECT_EQ(vecadd_crossover(synthetic_sweep(fast, log_sizes()), V::GpuKernelOnly, V::CpuOneThread).crossing,
              VecAddCrossing::Always);
    EXPECT_NE(l2.sentence.find("already beats one CPU core"), std::string::npos) << l2.sentence;
}

TEST(VecAddLesson, OneNoisyWinAtASmallSizeIsNotACrossover) {
    VecAddSweep sweep = synthetic_sweep(Model{}, log_sizes());
    for (VecAddResult& r : sweep.results)  // the kernel "wins" once at 200 elements
        if (r.variant == V::GpuKernelOnly && r.elements == 200) r.time_ms = 1e-9;
    const VecAddCrossover c = vecadd_crossover(sweep, V::GpuKernelOnly, V::CpuOneThread);
    EXPECT_EQ(c.crossing, VecAddCrossing::At);
    EXPECT_EQ(c.elements, 10000u);
}

TEST(VecAddLesson, WithoutGpuTheSentenceSaysWhyAndKeepsTheCpuHalf) {
    const VecAddLesson lesson = vecadd_lesson(synthetic_sweep(Model{}, log_sizes(), false));
    const std::string& s = lesson.sentence;
    std::printf("lesson: %s\n", s.c_str());
    EXPECT_NE(s.find("no CUDA device found"), std::string::npos) << s;
    EXPECT_NE(s.find("waking the threads"), std::string::npos) << s;
    EXPECT_EQ(s.find("kernel"), std::string::npos) << s;
    EXPECT_EQ(vecadd_lesson(VecAddSweep{}).sentence, "Nothing was measured, so there is no lesson yet.");
}

TEST(VecAddLesson, FormatsSizesTheWayTheSentenceWritesThem) {
    EXPECT_EQ(vecadd_format_elements(1), "1");
    EXPECT_EQ(vecadd_format_elements(400), "400");
    EXPECT_EQ(vecadd_format_elements(4000), "4K");
    EXPECT_EQ(vecadd_format_elements(4500), "4.5K");
    EXPECT_EQ(vecadd_format_elements(20000), "20K");
    EXPECT_EQ(vecadd_format_elements(2.1e6), "2.1M");
    EXPECT_EQ(vecadd_format_elements(268435456), "268M");
    EXPECT_EQ(vecadd_format_elements(1099511627776.0), "1.1T");  // 2^40, in a "beyond memory" sentence
}

TEST(VecAddSizes, ParsesWhatPeopleType) {
    std::vector<size_t> sizes;
    EXPECT_EQ(vecadd_parse_sizes("400,1e6,2^28,17", &sizes), "");
    EXPECT_EQ(sizes, (std::vector<size_t>{400, 1000000, size_t(1) << 28, 17}));
    size_t n = 7;
    EXPECT_EQ(vecadd_parse_size("abc", &n), "\"abc\" is not a size (write 400, 1e6 or 2^28)");
    EXPECT_EQ(n, 7u);  // untouched on error
    EXPECT_NE(vecadd_parse_size("0", &n).find("too small"), std::string::npos);
    EXPECT_NE(vecadd_parse_size("1e19", &n).find("beyond any machine's memory"), std::string::npos);
    // Found by the fuzz campaign (tests/fuzz/corpus/cli_options/vecadd_sweep_zero_times_inf):
    // 0 x 10^40000 is 0 x inf = NaN, which slipped past both range tests into a size_t.
    n = 7;
    EXPECT_NE(vecadd_parse_size("0e40000", &n).find("too small"), std::string::npos);
    EXPECT_NE(vecadd_parse_size("0000e4006660", &n).find("too small"), std::string::npos);
    EXPECT_EQ(n, 7u);
    EXPECT_NE(vecadd_parse_size("-5", &n), "");
    EXPECT_NE(vecadd_parse_sizes("100,,200", &sizes), "");  // an empty item is an error
    EXPECT_EQ(sizes.size(), 4u);                            // and leaves the list as it was
}

TEST(VecAddCsv, HasEveryVariantAndSize) {
    const std::vector<size_t> sizes = {100, 400, 4097};
    const VecAddSweep sweep = synthetic_sweep(Model{}, sizes, false);
    std::ostringstream out;
    write_vecadd_csv(out, sweep);
    std::istringstream in(out.str());
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line.rfind("variant,elements,ok,time_ms", 0), 0u) << line;
    std::set<std::pair<std::string, size_t>> seen;
    size_t rows = 0;
    while (std::getline(in, line)) {
        ++rows;
        const size_t c1 = line.find(','), c2 = line.find(',', c1 + 1);
        seen.insert({line.substr(0, c1), std::stoul(line.substr(c1 + 1, c2 - c1 - 1))});
        if (line.rfind("gpu-", 0) == 0) {
            EXPECT_NE(line.find("no CUDA device found"), std::string::npos);
        }
    }
    EXPECT_EQ(rows, sizes.size() * kVecAddVariantCount);
    for (V v : vecadd_all_variants())
        for (size_t n : sizes)
            EXPECT_TRUE(seen.count({vecadd_variant_name(v), n})) << vecadd_variant_name(v) << " " << n;
}

TEST(VecAddCsv, SaveIsAllOrNothing) {
    const VecAddSweep sweep = synthetic_sweep(Model{}, {100, 400}, false);
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("test_vecadd_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string good = (dir / "out.csv").string();
    EXPECT_EQ(save_vecadd_csv(good, sweep), "");
    EXPECT_GT(std::filesystem::file_size(good), 100u);
    const std::string bad = (dir / "missing" / "out.csv").string();
    const std::string why = save_vecadd_csv(bad, sweep);
    EXPECT_NE(why.find("cannot write"), std::string::npos) << why;
    // Nothing but the good file is left: no temporaries.
    size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        (void)entry;
        ++files;
    }
    EXPECT_EQ(files, 1u);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ms
