// test_direct_cuda.cpp: the CUDA kernels against the CPU reference (direct_cpu_reference),
// view by view, through the shared validator; plus the promises the kernels make on their own:
// shortcuts and tuning knobs never change the picture, sub-rectangles match the full frame, the
// in-kernel colouring matches colourize(), and the iteration statistic counts what the reference
// counts. Every test skips with the reason where no CUDA device can be used (e.g. CI).
//
// What may differ from the reference, and why:
//  * The default arithmetic is the reference's, operation for operation (no FMA contraction: the
//    kernel file is compiled with --fmad=false and writes its one FMA, fma(2, x*y, ci), where it
//    rounds exactly like 2*x*y + ci), so orbits are bit-identical and escape counts and iteration
//    totals agree exactly. The optional FMA form (CudaTuning::fused_multiply_add) computes
//    x^2 - y^2 + cr as fma(x, x, -y^2) + cr: one rounding less, which moves the last bit of some
//    orbits. Near the boundary orbits are chaotic, so that bit grows until a pixel escapes earlier
//    or later: on the seahorse valley (FP32 and FP64) and a 1e6 zoom (FP64), more pixels than the
//    99.9% rule allows, which is why it is not the default.
//  * mu comes from hardware log2 (MUFU) on the GPU and libm's log/log2 on the CPU: within ~1e-6
//    (plus float rounding), so mu agrees within 1e-3 wherever the escape counts agree.
//  * The RGBA comes from an 8x finer pre-sampled palette (nearest entry) instead of interpolating
//    the 1024-entry table: within one level per channel of colourize() of the same mu.
//
// direct_cuda_rings (the exponential map's shallow strips on the GPU) against direct_cpu_rings:
// the same loop on the same points, so the same iterations in all and the same interior points;
// mu within 1e-3 (device log2).
//
// DISABLED_Throughput is not a test: it prints iterations per second on 4K frames (run it on
// the GPU machine with --gtest_also_run_disabled_tests --gtest_filter='*Throughput*').
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/direct/direct_cpu_rings.h"
#include "compute/fractal/direct/direct_cuda_tuning.h"
#include "compute/fractal/colour/palette.h"
#include "compute/system/cuda_info.h"
#include "tests/validate.h"

#if MANDELSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

ms::PaletteTable test_palette() {
    ms::Palette palette;
    palette.name = "test";
    palette.stops = {{0.0, 255, 0, 0}, {0.3, 0, 255, 40}, {0.55, 20, 30, 255}, {0.8, 250, 250, 250}};
    palette.interior_r = 10;
    palette.interior_g = 20;
    palette.interior_b = 30;
    return ms::make_palette_table(palette);
}

ms::View make_view(const char* re, const char* im, double zoom, int width, int height, int iterations) {
    ms::View view;
    view.center_re = re;
    view.center_im = im;
    view.zoom = zoom;
    view.width = width;
    view.height = height;
    view.max_iterations = iterations;
    view.palette_density = 2.7;  // several cycles over the picture, so colour errors would show
    view.palette_offset = 0.3;
    return view;
}

struct NamedView {
    const char* name;
    ms::View view;
    bool fp32_too;  // FP32 resolves it
};

// Odd sizes on purpose: tiles at the right and bottom edges are partly outside the image.
std::vector<NamedView> test_views() {
    return {
        {"full", make_view("-0.75", "0", 1.0, 320, 180, 1000), true},
        {"seahorse valley", make_view("-0.7453", "0.1127", 150.0, 301, 187, 2000), true},
        {"period-3 bulb", make_view("-0.16", "0.8", 4.0, 250, 170, 1500), true},
        {"cardioid and bulbs", make_view("-1.0", "0.0", 2.0, 199, 131, 1200), true},
        // The cardioid's right edge: past its cusp at 1/4 it reaches 3/8 (a box that stopped at
        // 0.26 would leave this part of the shortcut out).
        {"cardioid's right edge", make_view("0.3", "0.0", 4.0, 173, 211, 800), true},
        {"zoom 1e6", make_view("-0.743643887037151", "0.131825904205330", 1e6, 256, 160, 3000), false},
    };
}

struct Frame {
    std::vector<float> mu;
    std::vector<uint8_t> rgba;
    ms::FrameStats stats;
};

Frame reference_frame(const ms::View& view, ms::Precision precision, ms::Shortcuts shortcuts, ms::PixelRect rect = {}) {
    rect = ms::resolve_rect(view, rect);
    Frame f;
    f.mu.resize(size_t(rect.width) * rect.height);
    f.stats = ms::direct_cpu_reference(view, precision, shortcuts, rect, f.mu.data());
    return f;
}

Frame gpu_frame(const ms::View& view, ms::Precision precision, ms::Shortcuts shortcuts, ms::PixelRect rect = {}) {
    rect = ms::resolve_rect(view, rect);
    Frame f;
    f.mu.resize(size_t(rect.width) * rect.height);
    f.rgba.resize(f.mu.size() * 4);
    f.stats = ms::direct_cuda_to_host(view, precision, shortcuts, test_palette(), rect, f.rgba.data(), f.mu.data());
    return f;
}

Frame gpu_frame_tuned(const ms::View& view, ms::Precision precision, ms::Shortcuts shortcuts,
                      const ms::CudaTuning& tuning) {
    Frame f;
    f.mu.resize(size_t(view.width) * view.height);
    f.rgba.resize(f.mu.size() * 4);
    f.stats = ms::direct_cuda_tuned_to_host(view, precision, shortcuts, test_palette(), {}, f.rgba.data(), f.mu.data(),
                                            tuning);
    return f;
}

struct Agreement {
    double count_mismatch_fraction = 0.0;  // pixels whose integer escape counts differ
    size_t mu_mismatches = 0;              // pixels with equal counts but |mu difference| > 1e-3
};

// Escape counts (interior = -1) compared exactly; mu within 1e-3 where the counts agree.
Agreement compare_to_reference(const std::string& what, const std::vector<float>& reference,
                               const std::vector<float>& candidate, int width) {
    const size_t n = reference.size();
    std::vector<float> ref_counts(n), got_counts(n), ref_mu(n), got_mu(n);
    for (size_t i = 0; i < n; ++i) {
        ref_counts[i] = float(ms::mandelbrot_escape_count(reference[i]));
        got_counts[i] = float(ms::mandelbrot_escape_count(candidate[i]));
        const bool same = ref_counts[i] == got_counts[i];
        ref_mu[i] = same ? reference[i] : 0.0f;
        got_mu[i] = same ? candidate[i] : 0.0f;
    }
    Agreement a;
    a.count_mismatch_fraction = ms::test::validate_result((what + " escape count").c_str(), ref_counts.data(),
                                                          got_counts.data(), n, 0.0, 0.0, width)
                                    .mismatch_fraction();
    a.mu_mismatches =
        ms::test::validate_result((what + " mu").c_str(), ref_mu.data(), got_mu.data(), n, 1e-3, 0.0, width).mismatches;
    return a;
}

// Largest per-channel difference between two RGBA images, and how many pixels differ beyond
// `tolerance` in some channel.
struct ColourDifference {
    int max_channel_difference = 0;
    size_t pixels_beyond = 0;
};

ColourDifference compare_colours(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, int tolerance) {
    ColourDifference d;
    for (size_t p = 0; p < a.size() / 4; ++p) {
        int worst = 0;
        for (int c = 0; c < 4; ++c) worst = std::max(worst, std::abs(int(a[4 * p + c]) - int(b[4 * p + c])));
        d.max_channel_difference = std::max(d.max_channel_difference, worst);
        if (worst > tolerance) ++d.pixels_beyond;
    }
    return d;
}

std::string label(const NamedView& v, ms::Precision precision, bool shortcuts) {
    return std::string(v.name) + " " + ms::precision_name(precision) + (shortcuts ? " shortcuts on" : " shortcuts off");
}

// ---------------------------------------------------------------------------------------------

TEST(CudaAvailability, ReasonIsGivenWhenUnavailable) {
    std::string reason;
    const bool available = ms::cuda_available(&reason);
    std::printf("cuda_available: %s%s%s\n", available ? "yes" : "no", reason.empty() ? "" : ": ", reason.c_str());
    if (available) {
        EXPECT_TRUE(reason.empty());
    } else {
        EXPECT_FALSE(reason.empty());
    }
    const ms::CudaSystemInfo info = ms::query_cuda_system();
    EXPECT_EQ(info.usable, available || !info.devices.empty());
    if (!info.usable) {
        EXPECT_FALSE(info.reason.empty());
    }
}

TEST(CudaAvailability, DeviceInfoIsFilledIn) {
    SKIP_WITHOUT_CUDA();
    const ms::CudaSystemInfo info = ms::query_cuda_system();
    ASSERT_TRUE(info.usable) << info.reason;
    ASSERT_FALSE(info.devices.empty());
    EXPECT_GT(info.driver_version, 0);
    EXPECT_GT(info.runtime_version, 0);
    for (const auto& d : info.devices) {
        std::printf(
            "device %d: %s, sm_%d%d, %d SMs, %d MHz, %d FP32 / %d FP64 lanes per SM, %.0f GB/s, %zu attributes\n",
            d.index, d.name.c_str(), d.compute_major, d.compute_minor, d.sm_count, d.clock_khz / 1000,
            d.fp32_lanes_per_sm, d.fp64_lanes_per_sm, d.memory_bytes_per_second / 1e9, d.attributes.size());
        EXPECT_FALSE(d.name.empty());
        EXPECT_GT(d.sm_count, 0);
        EXPECT_GT(d.clock_khz, 0);
        EXPECT_GT(d.memory_bytes_per_second, 0.0);
        EXPECT_GT(d.total_memory_bytes, 0u);
        EXPECT_GT(d.attributes.size(), 100u);
        auto attribute = [&](const std::string& name) {
            for (const auto& [n, v] : d.attributes)
                if (n == name) return v;
            return -1;
        };
        EXPECT_EQ(attribute("MAX_THREADS_PER_BLOCK"), 1024);
        EXPECT_EQ(attribute("WARP_SIZE"), 32);
        EXPECT_EQ(attribute("MULTIPROCESSOR_COUNT"), d.sm_count);
        EXPECT_EQ(attribute("COMPUTE_CAPABILITY_MAJOR"), d.compute_major);
    }
}

TEST(CudaInfo, LanesPerSmFollowTheComputeCapability) {
    EXPECT_EQ(ms::cuda_fp32_lanes_per_sm(9, 0), MANDELSCOPE_HAVE_CUDA ? 128 : 0);
    EXPECT_EQ(ms::cuda_fp64_lanes_per_sm(9, 0), MANDELSCOPE_HAVE_CUDA ? 64 : 0);
    if (!MANDELSCOPE_HAVE_CUDA) return;
    EXPECT_EQ(ms::cuda_fp32_lanes_per_sm(8, 0), 64);
    EXPECT_EQ(ms::cuda_fp64_lanes_per_sm(8, 0), 32);
    EXPECT_EQ(ms::cuda_fp32_lanes_per_sm(8, 6), 128);
    EXPECT_EQ(ms::cuda_fp64_lanes_per_sm(8, 9), 2);
    EXPECT_EQ(ms::cuda_fp32_lanes_per_sm(7, 5), 64);
    EXPECT_EQ(ms::cuda_fp64_lanes_per_sm(7, 5), 2);
    EXPECT_EQ(ms::cuda_fp32_lanes_per_sm(1, 0), 0);
}

TEST(DirectCuda, MatchesTheReferenceInFp32AndFp64) {
    SKIP_WITHOUT_CUDA();
    for (const NamedView& v : test_views()) {
        for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
            if (precision == ms::Precision::Fp32 && !v.fp32_too) continue;
            for (bool shortcuts : {false, true}) {
                const ms::Shortcuts s{shortcuts, shortcuts};
                const std::string what = label(v, precision, shortcuts);
                Frame ref = reference_frame(v.view, precision, s);
                Frame gpu = gpu_frame(v.view, precision, s);
                EXPECT_EQ(gpu.stats.precision, precision);
                Agreement a = compare_to_reference(what, ref.mu, gpu.mu, v.view.width);
                EXPECT_LE(a.count_mismatch_fraction, 0.001) << what;
                EXPECT_EQ(a.mu_mismatches, 0u) << what;
                // The default FP32 arithmetic is the reference's, operation for operation.
                if (precision == ms::Precision::Fp32 && !ms::default_cuda_tuning(precision).fused_multiply_add) {
                    EXPECT_EQ(ref.stats.escaped_pixels, gpu.stats.escaped_pixels) << what;
                }
            }
        }
    }
}

TEST(DirectCuda, AutoPrecisionFollowsTheZoom) {
    SKIP_WITHOUT_CUDA();
    Frame shallow = gpu_frame(make_view("-0.75", "0", 1.0, 64, 36, 100), ms::Precision::Auto, {});
    EXPECT_EQ(shallow.stats.precision, ms::Precision::Fp32);
    Frame deep = gpu_frame(make_view("-0.743643887037151", "0.131825904205330", 1e6, 64, 36, 100), ms::Precision::Auto,
                           {});
    EXPECT_EQ(deep.stats.precision, ms::Precision::Fp64);
}

TEST(DirectCuda, ShortcutsDoNotChangeThePicture) {
    SKIP_WITHOUT_CUDA();
    for (const NamedView& v : test_views()) {
        for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
            if (precision == ms::Precision::Fp32 && !v.fp32_too) continue;
            Frame off = gpu_frame(v.view, precision, {false, false});
            for (ms::Shortcuts s :
                 {ms::Shortcuts{true, false}, ms::Shortcuts{false, true}, ms::Shortcuts{true, true}}) {
                Frame on = gpu_frame(v.view, precision, s);
                const std::string what = std::string(v.name) + " " + ms::precision_name(precision) +
                                         (s.cardioid_bulb ? " cardioid" : "") + (s.periodicity ? " periodicity" : "");
                EXPECT_EQ(ms::test::validate_result((what + " mu on vs off").c_str(), off.mu.data(), on.mu.data(),
                                                    off.mu.size(), 0.0, 0.0, v.view.width)
                              .mismatches,
                          0u);
                EXPECT_EQ(off.rgba, on.rgba) << what;
                EXPECT_EQ(off.stats.escaped_pixels, on.stats.escaped_pixels) << what;
                EXPECT_LE(on.stats.iterations, off.stats.iterations) << what;
            }
        }
    }
    // Where there is interior, the shortcuts save most of the work.
    const ms::View bulbs = make_view("-1.0", "0.0", 2.0, 199, 131, 1200);
    Frame off = gpu_frame(bulbs, ms::Precision::Fp64, {false, false});
    Frame on = gpu_frame(bulbs, ms::Precision::Fp64, {true, true});
    EXPECT_LT(on.stats.iterations, off.stats.iterations / 4);
}

TEST(DirectCuda, ColoursMatchColourize) {
    SKIP_WITHOUT_CUDA();
    const ms::PaletteTable palette = test_palette();
    for (const NamedView& v : test_views()) {
        const ms::Precision precision = v.fp32_too ? ms::Precision::Fp32 : ms::Precision::Fp64;
        Frame gpu = gpu_frame(v.view, precision, {});
        Frame ref = reference_frame(v.view, precision, {});
        std::vector<uint8_t> from_gpu_mu(gpu.rgba.size()), from_ref_mu(gpu.rgba.size());
        ms::colourize(gpu.mu.data(), int64_t(gpu.mu.size()), palette, v.view, from_gpu_mu.data());
        ms::colourize(ref.mu.data(), int64_t(ref.mu.size()), palette, v.view, from_ref_mu.data());
        // Same mu: the finer table is within one level of the interpolated one.
        ColourDifference same_mu = compare_colours(from_gpu_mu, gpu.rgba, 1);
        // Reference mu: also within one level, but for the few pixels whose escape count differs.
        ColourDifference vs_reference = compare_colours(from_ref_mu, gpu.rgba, 1);
        std::printf(
            "%s: RGBA vs colourize(own mu) max diff %d; vs colourize(reference mu) max diff %d, %zu pixels > 1\n",
            v.name, same_mu.max_channel_difference, vs_reference.max_channel_difference, vs_reference.pixels_beyond);
        EXPECT_LE(same_mu.max_channel_difference, 1) << v.name;
        EXPECT_LE(double(vs_reference.pixels_beyond), 0.001 * double(gpu.mu.size())) << v.name;
        // Interior pixels carry the palette's interior colour (10, 20, 30).
        for (size_t i = 0; i < gpu.mu.size(); ++i)
            if (gpu.mu[i] < 0.0f) {
                ASSERT_EQ(gpu.rgba[4 * i], 10);
                ASSERT_EQ(gpu.rgba[4 * i + 1], 20);
                ASSERT_EQ(gpu.rgba[4 * i + 2], 30);
                ASSERT_EQ(gpu.rgba[4 * i + 3], 255);
            }
    }
}

TEST(DirectCuda, RectanglesMatchTheFullFrame) {
    SKIP_WITHOUT_CUDA();
    const ms::View view = make_view("-0.7453", "0.1127", 150.0, 301, 187, 2000);
    const std::vector<ms::PixelRect> rects = {
        {0, 0, 301, 187},   {37, 21, 150, 77}, {0, 0, 1, 1},     {300, 186, 1, 1},
        {269, 100, 32, 87}, {5, 150, 296, 37}, {64, 64, 64, 64},
    };
    for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
        for (bool shortcuts : {false, true}) {
            const ms::Shortcuts s{shortcuts, shortcuts};
            Frame full = gpu_frame(view, precision, s);
            for (const ms::PixelRect& r : rects) {
                Frame part = gpu_frame(view, precision, s, r);
                std::vector<float> crop_mu;
                std::vector<uint8_t> crop_rgba;
                for (int y = r.y; y < r.y + r.height; ++y)
                    for (int x = r.x; x < r.x + r.width; ++x) {
                        const size_t i = size_t(y) * view.width + x;
                        crop_mu.push_back(full.mu[i]);
                        crop_rgba.insert(crop_rgba.end(), full.rgba.begin() + 4 * i, full.rgba.begin() + 4 * i + 4);
                    }
                const std::string what = std::string("rect ") + std::to_string(r.x) + "," + std::to_string(r.y) + " " +
                                         std::to_string(r.width) + "x" + std::to_string(r.height) + " " +
                                         ms::precision_name(precision);
                EXPECT_EQ(ms::test::validate_result(what.c_str(), crop_mu.data(), part.mu.data(), crop_mu.size(), 0.0,
                                                    0.0, r.width)
                              .mismatches,
                          0u);
                EXPECT_EQ(crop_rgba, part.rgba) << what;
            }
            // Four quarters add up to the whole frame's statistics.
            uint64_t iterations = 0, escaped = 0;
            for (ms::PixelRect q : {ms::PixelRect{0, 0, 150, 90}, ms::PixelRect{150, 0, 151, 90},
                                    ms::PixelRect{0, 90, 150, 97}, ms::PixelRect{150, 90, 151, 97}}) {
                Frame part = gpu_frame(view, precision, s, q);
                iterations += part.stats.iterations;
                escaped += part.stats.escaped_pixels;
            }
            EXPECT_EQ(escaped, full.stats.escaped_pixels);
            if (!shortcuts) {
                EXPECT_EQ(iterations, full.stats.iterations);
            }
        }
    }
}

// Every pixel costs what it costs the reference: k if it escapes at k, else max_iterations, and
// with the cardioid/bulb test on, 0 for exactly the pixels the reference's test marks interior.
// With the reference's arithmetic (the default) the sums are equal; with FMA a few chaotic pixels
// move by some iterations, so the sums would only agree within 1e-4. (Periodicity compares orbits
// at other steps than the reference's: with it on, only the picture is the same.)
TEST(DirectCuda, IterationCountsMatchTheReference) {
    SKIP_WITHOUT_CUDA();
    for (const NamedView& v : test_views()) {
        for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64})
            for (ms::Shortcuts shortcuts : {ms::Shortcuts{false, false}, ms::Shortcuts{true, false}}) {
                if (precision == ms::Precision::Fp32 && !v.fp32_too) continue;
                Frame ref = reference_frame(v.view, precision, shortcuts);
                Frame gpu = gpu_frame(v.view, precision, shortcuts);
                const std::string what = shortcuts.cardioid_bulb
                                             ? std::string(v.name) + " " + ms::precision_name(precision) +
                                                   " cardioid/bulb test only"
                                             : label(v, precision, false);
                std::printf("%s: iterations reference %llu, CUDA %llu; escaped %llu vs %llu\n", what.c_str(),
                            (unsigned long long)ref.stats.iterations, (unsigned long long)gpu.stats.iterations,
                            (unsigned long long)ref.stats.escaped_pixels, (unsigned long long)gpu.stats.escaped_pixels);
                if (!ms::default_cuda_tuning(precision).fused_multiply_add) {
                    EXPECT_EQ(ref.stats.iterations, gpu.stats.iterations) << what;
                    EXPECT_EQ(ref.stats.escaped_pixels, gpu.stats.escaped_pixels) << what;
                } else {
                    EXPECT_NEAR(double(gpu.stats.iterations), double(ref.stats.iterations),
                                1e-4 * double(ref.stats.iterations))
                        << what;
                    EXPECT_NEAR(double(gpu.stats.escaped_pixels), double(ref.stats.escaped_pixels),
                                1e-3 * double(gpu.mu.size()))
                        << what;
                }
            }
    }
}

// Every knob setting draws the same picture. Variants with the reference's arithmetic must agree
// with it exactly (same escaped pixels and, shortcuts off, the same iteration total: a strong check
// of the block-and-redo logic). The FMA variants agree bit for bit with each other; against the
// reference they move chaotic pixels (a few percent of the seahorse valley in FP32), so only a
// loose sanity bound applies there, as for the naive baseline (also FMA, in nvcc's default
// contraction order).
TEST(DirectCuda, EveryTuningDrawsTheSamePicture) {
    SKIP_WITHOUT_CUDA();
    std::vector<ms::CudaTuning> tunings;
    for (bool fused : {false, true})
        for (int steps : {8, 16, 32}) {
            ms::CudaTuning t;
            t.fused_multiply_add = fused;
            t.block_steps = steps;
            tunings.push_back(t);
        }
    for (int first : {1, 3, 4, 5, 64}) {
        ms::CudaTuning t;
        t.first_phase_iterations = first;
        tunings.push_back(t);
    }
    for (int rounds : {1, 3, 8}) {
        ms::CudaTuning t;
        t.tile_rounds = rounds;
        tunings.push_back(t);
    }
    for (int batch : {1, 32}) {
        ms::CudaTuning t;
        t.service_batch = batch;
        tunings.push_back(t);
    }
    ms::CudaTuning naive;
    naive.naive = true;
    tunings.push_back(naive);
    ms::CudaTuning fused_reference;  // what every FMA variant must reproduce exactly
    fused_reference.fused_multiply_add = true;
    fused_reference.block_steps = 32;
    fused_reference.first_phase_iterations = 7;
    fused_reference.tile_rounds = 1;

    std::vector<NamedView> views = {
        {"seahorse valley", make_view("-0.7453", "0.1127", 150.0, 301, 187, 700), true},
        {"cardioid and bulbs", make_view("-1.0", "0.0", 2.0, 199, 131, 500), true},
    };
    for (int iterations : {1, 2, 3, 4, 7, 33})
        views.push_back({"few iterations", make_view("-0.75", "0", 0.7, 97, 61, iterations), true});

    for (const NamedView& v : views) {
        for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
            for (bool shortcuts : {false, true}) {
                const ms::Shortcuts s{shortcuts, shortcuts};
                Frame ref = reference_frame(v.view, precision, {false, false});
                Frame fused = gpu_frame_tuned(v.view, precision, {false, false}, fused_reference);
                for (const ms::CudaTuning& t : tunings) {
                    if (t.naive && shortcuts) continue;  // the baseline has no shortcuts
                    Frame gpu = gpu_frame_tuned(v.view, precision, s, t);
                    char what[256];
                    std::snprintf(what, sizeof what, "%s (%lld it) %s%s: %s N=%d S=%d rounds=%d batch=%d", v.name,
                                  static_cast<long long>(v.view.max_iterations), ms::precision_name(precision),
                                  shortcuts ? " shortcuts" : "",
                                  t.naive                ? "naive"
                                  : t.fused_multiply_add ? "fma"
                                                         : "exact",
                                  t.block_steps, t.first_phase_iterations, t.tile_rounds, t.service_batch);
                    if (t.naive) {
                        Agreement a = compare_to_reference(what, ref.mu, gpu.mu, v.view.width);
                        EXPECT_LE(a.count_mismatch_fraction, 0.05) << what;
                        EXPECT_NEAR(double(gpu.stats.iterations), double(ref.stats.iterations),
                                    0.05 * double(ref.stats.iterations))
                            << what;
                    } else if (t.fused_multiply_add) {
                        EXPECT_EQ(ms::test::validate_result(what, fused.mu.data(), gpu.mu.data(), gpu.mu.size(), 0.0,
                                                            0.0, v.view.width)
                                      .mismatches,
                                  0u);
                        EXPECT_EQ(gpu.stats.escaped_pixels, fused.stats.escaped_pixels) << what;
                        if (!shortcuts) {
                            EXPECT_EQ(gpu.stats.iterations, fused.stats.iterations) << what;
                        }
                    } else {
                        // Counts recovered from mu can flip where mu + log2(ln R) lies within an
                        // ulp of an integer (mu differs from the reference's by ~1e-6): hence not
                        // exactly 0. The integer statistics are exact.
                        Agreement a = compare_to_reference(what, ref.mu, gpu.mu, v.view.width);
                        EXPECT_LE(a.count_mismatch_fraction, 1e-4) << what;
                        EXPECT_EQ(a.mu_mismatches, 0u) << what;
                        EXPECT_EQ(gpu.stats.escaped_pixels, ref.stats.escaped_pixels) << what;
                        if (!shortcuts) {
                            EXPECT_EQ(gpu.stats.iterations, ref.stats.iterations) << what;
                        }
                    }
                }
            }
        }
    }
}

TEST(DirectCuda, RejectsBadInput) {
    SKIP_WITHOUT_CUDA();
    ms::View view = make_view("-0.75", "0", 1.0, 64, 36, 0);
    std::vector<uint8_t> rgba(64 * 36 * 4);
    EXPECT_THROW(ms::direct_cuda_to_host(view, ms::Precision::Auto, {}, test_palette(), {}, rgba.data(), nullptr),
                 std::invalid_argument);
    view.max_iterations = 100;
    EXPECT_THROW(
        ms::direct_cuda_to_host(view, ms::Precision::Auto, {}, test_palette(), {50, 0, 20, 10}, rgba.data(), nullptr),
        std::invalid_argument);
    EXPECT_THROW(ms::direct_cuda_to_host(view, ms::Precision::Auto, {}, ms::PaletteTable{}, {}, rgba.data(), nullptr),
                 std::invalid_argument);
    ms::CudaTuning bad;
    bad.block_steps = 12;
    EXPECT_THROW(
        ms::direct_cuda_tuned_to_host(view, ms::Precision::Auto, {}, test_palette(), {}, rgba.data(), nullptr, bad),
        std::invalid_argument);
}

// FrameStats::host_launch_ms is the host clock around the launch calls alone, before any
// synchronisation: the performance panel shows it as the wrong way to time a kernel. What it
// promises: it is measured (positive) and it does not include the kernels. The frame is
// chosen so that this is a property, not a race: 2048x2048 pixels of the main cardioid with
// the shortcuts off and 20,000 iterations each is 8.4e10 iterations (milliseconds on a large
// GPU, seconds on small ones), while queuing two launches takes tens of microseconds.
TEST(DirectCuda, HostLaunchTimeIsTheQueuingNotTheKernels) {
    SKIP_WITHOUT_CUDA();
    const ms::View view = make_view("-0.1", "0", 40.0, 2048, 2048, 20000);  // all interior
    const ms::Shortcuts none{false, false};
    std::vector<uint8_t> rgba(size_t(view.width) * view.height * 4);
    ms::direct_cuda_to_host(view, ms::Precision::Fp32, none, test_palette(), {}, rgba.data(), nullptr);  // warm-up
    ms::FrameStats stats = ms::direct_cuda_to_host(view, ms::Precision::Fp32, none, test_palette(), {}, rgba.data(),
                                                   nullptr);
    EXPECT_EQ(stats.iterations, uint64_t(view.width) * view.height * view.max_iterations);
    EXPECT_GT(stats.host_launch_ms, 0.0);
    EXPECT_LT(stats.host_launch_ms, stats.compute_ms)
        << "the launch calls returned only after the kernels: they should be asynchronous";
    std::printf("host clock around the launches %.4f ms, CUDA events around the kernels %.3f ms\n",
                stats.host_launch_ms, stats.compute_ms);
}

#if MANDELSCOPE_HAVE_CUDA
// The window's way in: its own device buffer (the mapped interop buffer), RGBA only.
TEST(DirectCuda, WritesIntoTheCallersDeviceBuffers) {
    SKIP_WITHOUT_CUDA();
    const ms::View view = make_view("-0.7453", "0.1127", 150.0, 301, 187, 1000);
    const size_t pixels = size_t(view.width) * view.height;
    Frame expected = gpu_frame(view, ms::Precision::Auto, {});
    uint8_t* rgba = nullptr;
    float* mu = nullptr;
    ASSERT_EQ(cudaMalloc(&rgba, pixels * 4 + 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&mu, pixels * sizeof(float)), cudaSuccess);
    std::vector<uint8_t> got_rgba(pixels * 4);
    std::vector<float> got_mu(pixels);
    for (int variant = 0; variant < 3; ++variant) {
        uint8_t* rgba_out = variant == 1 ? nullptr : rgba;
        float* mu_out = variant == 0 ? nullptr : mu;
        ASSERT_EQ(cudaMemset(rgba, 0, pixels * 4), cudaSuccess);
        ASSERT_EQ(cudaMemset(mu, 0, pixels * sizeof(float)), cudaSuccess);
        ms::FrameStats stats = ms::direct_cuda(view, ms::Precision::Auto, {}, test_palette(), {}, rgba_out, mu_out);
        EXPECT_GT(stats.compute_ms, 0.0);
        EXPECT_EQ(stats.escaped_pixels, expected.stats.escaped_pixels);
        if (rgba_out) {
            ASSERT_EQ(cudaMemcpy(got_rgba.data(), rgba, pixels * 4, cudaMemcpyDeviceToHost), cudaSuccess);
            EXPECT_EQ(got_rgba, expected.rgba) << "variant " << variant;
        }
        if (mu_out) {
            ASSERT_EQ(cudaMemcpy(got_mu.data(), mu, pixels * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
            EXPECT_EQ(got_mu, expected.mu) << "variant " << variant;
        }
    }
    // An RGBA pointer that is not 4-byte aligned is refused, not written.
    EXPECT_THROW(ms::direct_cuda(view, ms::Precision::Auto, {}, test_palette(), {}, rgba + 1, nullptr),
                 std::invalid_argument);
    cudaFree(rgba);
    cudaFree(mu);
}

// ---------------------------------------------------------------------------------------------
// Not a test: throughput on 4K frames, with napkin math. Prints; asserts nothing about time.

struct Measurement {
    double median_ms = 0.0;
    ms::FrameStats stats;
};

Measurement measure(const ms::View& view, ms::Precision precision, ms::Shortcuts shortcuts,
                    const ms::CudaTuning& tuning, uint8_t* rgba_device, int repeats) {
    const ms::PaletteTable palette = test_palette();
    Measurement m;
    m.stats = ms::direct_cuda_tuned(view, precision, shortcuts, palette, {}, rgba_device, nullptr, tuning);  // warm-up
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
        m.stats = ms::direct_cuda_tuned(view, precision, shortcuts, palette, {}, rgba_device, nullptr, tuning);
        times.push_back(m.stats.compute_ms);
    }
    std::sort(times.begin(), times.end());
    m.median_ms = times[times.size() / 2];
    return m;
}

std::string describe(const ms::CudaTuning& t) {
    if (t.naive) return "naive (1 px/thread, test every it.)";
    char s[96];
    std::snprintf(s, sizeof s, "%s N=%d S=%d 32x%d b%d%s", t.fused_multiply_add ? "fma  " : "exact", t.block_steps,
                  t.first_phase_iterations, 8 * t.tile_rounds, t.service_batch,
                  t.survivor_blocks_per_sm ? (" g" + std::to_string(t.survivor_blocks_per_sm)).c_str() : "");
    return s;
}

TEST(DirectCuda, DISABLED_Throughput) {
    SKIP_WITHOUT_CUDA();
    const ms::CudaSystemInfo info = ms::query_cuda_system();
    int device = 0;
    cudaGetDevice(&device);
    const ms::CudaDeviceInfo& d = info.devices.at(device);
    const double clock_hz = d.clock_khz * 1e3;
    std::printf("%s: %d SMs, %.2f GHz, %d FP32 / %d FP64 lanes per SM\n", d.name.c_str(), d.sm_count, clock_hz / 1e9,
                d.fp32_lanes_per_sm, d.fp64_lanes_per_sm);
    for (ms::Precision p : {ms::Precision::Fp32, ms::Precision::Fp64}) {
        const double lanes = p == ms::Precision::Fp32 ? d.fp32_lanes_per_sm : d.fp64_lanes_per_sm;
        const double per_iteration = ms::direct_cuda_instructions_per_iteration(p);
        std::printf("  %s limit: %d SMs x %.0f lanes x %.2f GHz / %.3f instructions per iteration = %.3g it/s\n",
                    ms::precision_name(p), d.sm_count, lanes, clock_hz / 1e9, per_iteration,
                    d.sm_count * lanes * clock_hz / per_iteration);
    }
    auto limit = [&](ms::Precision p) {
        const double lanes = p == ms::Precision::Fp32 ? d.fp32_lanes_per_sm : d.fp64_lanes_per_sm;
        return d.sm_count * lanes * clock_hz / ms::direct_cuda_instructions_per_iteration(p);
    };

    const int width = 3840, height = 2160;
    uint8_t* rgba = nullptr;
    ASSERT_EQ(cudaMalloc(&rgba, size_t(width) * height * 4), cudaSuccess);

    auto print = [&](const char* view_name, ms::Precision p, ms::Shortcuts s, const ms::CudaTuning& t,
                     const Measurement& m) {
        const double rate = double(m.stats.iterations) / (m.median_ms * 1e-3);
        std::printf("%-22s %s %-13s %-36s %9.3f ms %10.3e it/s %5.1f%% of limit %7.1f it/px\n", view_name,
                    ms::precision_name(p), s.cardioid_bulb || s.periodicity ? "shortcuts on" : "shortcuts off",
                    describe(t).c_str(), m.median_ms, rate, 100.0 * rate / limit(p),
                    double(m.stats.iterations) / (double(width) * height));
        std::fflush(stdout);
    };

    // 1. All-interior 4K view (inside the main cardioid), 10,000 iterations, shortcuts off: pure
    //    iteration throughput. 3840 x 2160 x 10,000 = 8.29e10 iterations per frame.
    std::printf("\n-- all-interior view -0.2,0 zoom 8, 3840x2160, 10,000 iterations, shortcuts off --\n");
    const ms::View interior = make_view("-0.2", "0", 8.0, width, height, 10000);
    for (ms::Precision p : {ms::Precision::Fp32, ms::Precision::Fp64}) {
        std::vector<ms::CudaTuning> variants;
        ms::CudaTuning naive;
        naive.naive = true;
        variants.push_back(naive);
        variants.push_back(ms::default_cuda_tuning(p));
        for (int steps : {16}) {
            ms::CudaTuning t = ms::default_cuda_tuning(p);
            t.block_steps = steps;
            variants.push_back(t);
        }
        {
            ms::CudaTuning t = ms::default_cuda_tuning(p);
            t.fused_multiply_add = true;
            variants.push_back(t);
        }
        double naive_rate = 0.0;
        for (const ms::CudaTuning& t : variants) {
            Measurement m = measure(interior, p, {false, false}, t, rgba, 3);
            print(t.naive || &t != &variants[1] ? "all-interior" : "all-interior DEFAULT", p, {false, false}, t, m);
            const double rate = double(m.stats.iterations) / (m.median_ms * 1e-3);
            if (t.naive) naive_rate = rate;
            else std::printf("%64s  %.2fx the naive kernel\n", "", rate / naive_rate);
        }
    }

    // 2. Default full view at 4K, 1,000 iterations: shortcuts on vs off.
    std::printf("\n-- default view -0.5,0 zoom 64/27, 3840x2160, 1,000 iterations: shortcuts on vs off --\n");
    const ms::View full = make_view("-0.5", "0", ms::kDefaultZoom, width, height, 1000);
    for (ms::Precision p : {ms::Precision::Fp32, ms::Precision::Fp64}) {
        std::vector<ms::CudaTuning> variants;
        variants.push_back(ms::default_cuda_tuning(p));
        for (int first : {32, 128}) {
            ms::CudaTuning t = ms::default_cuda_tuning(p);
            t.first_phase_iterations = first;
            variants.push_back(t);
        }
        for (int rounds : {2, 8}) {
            ms::CudaTuning t = ms::default_cuda_tuning(p);
            t.tile_rounds = rounds;
            variants.push_back(t);
        }
        for (int batch : {1, 4, 16}) {
            ms::CudaTuning t = ms::default_cuda_tuning(p);
            t.service_batch = batch;
            variants.push_back(t);
        }
        for (int blocks : {2, 3, 4}) {
            ms::CudaTuning t = ms::default_cuda_tuning(p);
            t.survivor_blocks_per_sm = blocks;
            variants.push_back(t);
        }
        {
            ms::CudaTuning t = ms::default_cuda_tuning(p);
            t.block_steps = 16;
            variants.push_back(t);
            t = ms::default_cuda_tuning(p);
            t.fused_multiply_add = true;
            variants.push_back(t);
        }
        ms::CudaTuning naive;
        naive.naive = true;
        Measurement n = measure(full, p, {false, false}, naive, rgba, 21);
        print("default view", p, {false, false}, naive, n);
        for (const ms::CudaTuning& t : variants) {
            Measurement off = measure(full, p, {false, false}, t, rgba, 21);
            Measurement on = measure(full, p, {true, true}, t, rgba, 21);
            print(&t == &variants[0] ? "default view DEFAULT" : "default view", p, {false, false}, t, off);
            print(&t == &variants[0] ? "default view DEFAULT" : "default view", p, {true, true}, t, on);
            std::printf("%64s  shortcuts: %.2fx faster (%.3f -> %.3f ms); vs naive kernel: %.2fx\n", "",
                        off.median_ms / on.median_ms, off.median_ms, on.median_ms, n.median_ms / on.median_ms);
        }
        // Where the time goes (default tuning): each shortcut alone; no output at all; fewer
        // iterations (1: only the per-pixel fixed cost; 8 and 32: phase 1 only).
        const ms::CudaTuning d = ms::default_cuda_tuning(p);
        for (ms::Shortcuts s : {ms::Shortcuts{true, false}, ms::Shortcuts{false, true}}) {
            Measurement m = measure(full, p, s, d, rgba, 21);
            std::printf("  only %-13s: %.3f ms, %.1f it/px\n", s.cardioid_bulb ? "cardioid/bulb" : "periodicity",
                        m.median_ms, double(m.stats.iterations) / (double(width) * height));
        }
        for (bool on : {false, true}) {
            Measurement m = measure(full, p, {on, on}, d, nullptr, 21);
            std::printf("  no output, shortcuts %-3s: %.3f ms\n", on ? "on" : "off", m.median_ms);
        }
        for (int iterations : {1, 8, 32, 100}) {
            ms::View v = full;
            v.max_iterations = iterations;
            for (bool on : {false, true}) {
                Measurement m = measure(v, p, {on, on}, d, rgba, 21);
                std::printf("  %4d iterations, shortcuts %-3s: %.3f ms, %.1f it/px\n", iterations, on ? "on" : "off",
                            m.median_ms, double(m.stats.iterations) / (double(width) * height));
            }
        }
        std::fflush(stdout);
    }
    cudaFree(rgba);
}

// Not a test: four frames for a profiler (ncu --kernel-name regex:direct_kernel):
// the default 4K view in FP32 with the default tuning, shortcuts on, on, off, off.
TEST(DirectCuda, DISABLED_ProfileDefaultView) {
    SKIP_WITHOUT_CUDA();
    const ms::View full = make_view("-0.5", "0", ms::kDefaultZoom, 3840, 2160, 1000);
    uint8_t* rgba = nullptr;
    ASSERT_EQ(cudaMalloc(&rgba, size_t(full.width) * full.height * 4), cudaSuccess);
    for (bool on : {true, true, false, false}) {
        ms::FrameStats st = ms::direct_cuda_tuned(full, ms::Precision::Fp32, {on, on}, test_palette(), {}, rgba,
                                                  nullptr, ms::default_cuda_tuning(ms::Precision::Fp32));
        std::printf("shortcuts %s: %.3f ms\n", on ? "on" : "off", st.compute_ms);
    }
    cudaFree(rgba);
}
#endif

TEST(DirectCudaRings, MatchTheCpuRings) {
    SKIP_WITHOUT_CUDA();
    struct Case {
        const char* name;
        ms::Formula formula;
        bool julia;
        const char* re;
        const char* im;
    };
    for (const Case& c : {Case{"seahorse", ms::Formula::Mandelbrot, false, "-0.743643887037151", "0.131825904205330"},
                          Case{"burning ship", ms::Formula::BurningShip, false, "-1.7619", "-0.0281"},
                          Case{"julia", ms::Formula::Mandelbrot, true, "0", "0"}}) {
        ms::View view;
        view.center_re = c.re;
        view.center_im = c.im;
        view.formula = c.formula;
        view.max_iterations = 5000;
        view.julia = c.julia;
        view.julia_re = "-0.1226";  // the Douady rabbit: 0 lies in its interior
        view.julia_im = "0.7449";
        ms::DirectRings rings;
        rings.columns = 300;
        for (int r = 0; r < 40; ++r) rings.radius.push_back(std::exp2(-1.0 - 0.25 * r));
        const size_t points = size_t(rings.columns) * rings.radius.size();
        std::vector<float> cpu(points), gpu(points);
        const uint64_t cpu_iterations = ms::direct_cpu_rings(view, rings, cpu.data());
        bool cancelled = true;
        double kernel_ms = -1.0;
        const uint64_t gpu_iterations = ms::direct_cuda_rings(view, rings, gpu.data(), nullptr, &cancelled, &kernel_ms);
        EXPECT_FALSE(cancelled);
        EXPECT_GE(kernel_ms, 0.0);
        EXPECT_EQ(gpu_iterations, cpu_iterations) << c.name;
        size_t interior = 0, mismatches = 0;
        for (size_t i = 0; i < points; ++i) {
            interior += cpu[i] == ms::kInteriorMu;
            if ((cpu[i] == ms::kInteriorMu) != (gpu[i] == ms::kInteriorMu) || std::fabs(cpu[i] - gpu[i]) > 1e-3f)
                ++mismatches;
        }
        EXPECT_EQ(mismatches, 0u) << c.name;
        EXPECT_GT(interior, 0u) << c.name;
        EXPECT_LT(interior, points) << c.name;
        std::printf("  %s: %llu iterations, %zu of %zu points inside, kernels %.2f ms\n", c.name,
                    (unsigned long long)gpu_iterations, interior, points, kernel_ms);
    }
}

// A cancel already set stops before the first launch and leaves the output alone.
TEST(DirectCudaRings, StopOnCancel) {
    SKIP_WITHOUT_CUDA();
    ms::View view;
    ms::DirectRings rings;
    rings.columns = 64;
    rings.radius = {0.5, 0.25};
    std::vector<float> mu(128, 7.0f);
    const std::atomic<bool> cancel{true};
    bool cancelled = false;
    ms::direct_cuda_rings(view, rings, mu.data(), &cancel, &cancelled);
    EXPECT_TRUE(cancelled);
    EXPECT_EQ(mu[0], 7.0f);
}

}  // namespace
