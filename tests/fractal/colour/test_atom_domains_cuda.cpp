// test_atom_domains_cuda.cpp: the atom-domain layer on CUDA against the CPU (test_atom_domains.cpp
// holds the CPU paths to each other and to known periods):
//   * direct: the features kernels' atom periods (the persistent kernel and the one-thread-per-pixel
//     yardstick, FP32 and FP64, the atom period alone and with every feature) are the CPU
//     reference's exactly (the same arithmetic, --fmad=false), on the parameter plane and a Julia
//     set; the coloured "smooth,atom" frame is the CPU's within 1 per channel;
//   * deep: deep_cuda's atom periods are deep_cpu's exactly (the same loop, atom steps and
//     escape counts), in double and FloatExp deltas, with and without the distance; and the
//     device colouring of a deep frame with the layer is the host's, byte for byte.
// Skips with the reason where no CUDA device exists.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#if MANDELSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/deep/deep_device_frame.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/direct/direct_features.h"
#include "compute/fractal/view/view.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/validate.h"

namespace {

[[maybe_unused]] ms::View seahorse(int width, int height) {
    ms::View v;
    v.center_re = "-0.745";
    v.center_im = "0.113";
    v.zoom = 60.0;
    v.width = width;
    v.height = height;
    v.max_iterations = 3000;
    return v;
}

#if MANDELSCOPE_HAVE_CUDA
// The features kernel's atom periods (and mu) for `view` against the CPU reference's; with_all:
// every other feature asked for too.
void expect_atoms_match(const ms::View& view, ms::Precision precision, bool persistent, bool with_all) {
    const size_t n = size_t(view.width) * view.height;
    std::vector<float> mu(n), atom(n), distance(n), stripe(n), period(n);
    ms::OrbitFeatureOutputs out;
    out.atom = atom.data();
    if (with_all) out = {distance.data(), stripe.data(), period.data(), atom.data()};
    const auto ref = ms::direct_features_cpu_reference(view, precision, {}, {}, mu.data(), out);
    float *d_mu = nullptr, *d_atom = nullptr, *d_distance = nullptr, *d_stripe = nullptr, *d_period = nullptr;
    for (float** p : {&d_mu, &d_atom, &d_distance, &d_stripe, &d_period})
        ASSERT_EQ(cudaMalloc(p, n * sizeof(float)), cudaSuccess);
    ms::OrbitFeatureOutputs device;
    device.atom = d_atom;
    if (with_all) device = {d_distance, d_stripe, d_period, d_atom};
    const auto got = ms::direct_features_cuda(view, precision, {}, {}, d_mu, device, persistent);
    std::vector<float> g_mu(n), g_atom(n), g_period(n);
    cudaMemcpy(g_mu.data(), d_mu, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(g_atom.data(), d_atom, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(g_period.data(), d_period, n * 4, cudaMemcpyDeviceToHost);
    for (float* p : {d_mu, d_atom, d_distance, d_stripe, d_period}) cudaFree(p);
    EXPECT_EQ(ref.iterations, got.iterations);
    EXPECT_EQ(ref.escaped_pixels, got.escaped_pixels);
    EXPECT_EQ(ms::test::validate_result("mu", mu.data(), g_mu.data(), n, 1e-5, 1e-5, view.width).mismatches, 0u);
    EXPECT_EQ(ms::test::validate_result("atom", atom.data(), g_atom.data(), n, 0.0, 0.0, view.width).mismatches, 0u);
    if (with_all) {
        EXPECT_EQ(
            ms::test::validate_result("period", period.data(), g_period.data(), n, 0.0, 0.0, view.width).mismatches,
            0u);
    }
}

// deep_cuda's escape counts and atom periods against deep_cpu's.
void expect_deep_atoms_match(const ms::DeepLocation& location, int width, int height, ms::DeepNumberType type,
                             bool distance) {
    ms::DeepRenderOptions options;
    options.atom = true;
    options.distance = distance;
    options.number_type = type;
    const ms::DeepFrame cpu = ms::deep_cpu(location, width, height, options);
    const ms::DeepFrame gpu = ms::deep_cuda(location, width, height, options);
    ASSERT_EQ(cpu.atom.size(), size_t(width) * height);
    ASSERT_EQ(gpu.atom.size(), cpu.atom.size());
    EXPECT_EQ(ms::test::validate_result("escape count", cpu.escape_count.data(), gpu.escape_count.data(),
                                        cpu.escape_count.size(), 0.0, 0.0, width)
                  .mismatches,
              0u);
    EXPECT_EQ(ms::test::validate_result("atom", cpu.atom.data(), gpu.atom.data(), cpu.atom.size(), 0.0, 0.0, width)
                  .mismatches,
              0u);
    EXPECT_EQ(gpu.stats.bla_iterations, cpu.stats.bla_iterations);
}
#endif

}  // namespace

TEST(AtomDomainsCuda, FeaturesKernelsMatchTheReference) {
    SKIP_WITHOUT_CUDA();
#if MANDELSCOPE_HAVE_CUDA
    for (bool persistent : {true, false})
        for (bool with_all : {false, true})
            for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
                SCOPED_TRACE(std::string(ms::precision_name(precision)) +
                             (persistent ? " persistent" : " one thread per pixel") +
                             (with_all ? ", all features" : ""));
                expect_atoms_match(seahorse(160, 120), precision, persistent, with_all);
                ms::View julia = seahorse(160, 120);
                julia.center_re = "0";
                julia.center_im = "0";
                julia.zoom = 1.5;
                julia.julia = true;
                julia.julia_re = "-0.8";
                julia.julia_im = "0.156";
                expect_atoms_match(julia, precision, persistent, with_all);
            }
#endif
}

TEST(AtomDomainsCuda, ColouredFrameMatchesTheCpu) {
    SKIP_WITHOUT_CUDA();
#if MANDELSCOPE_HAVE_CUDA
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    for (const char* methods : {"smooth,atom", "histogram,de,slope,atom"}) {
        SCOPED_TRACE(methods);
        ms::View view = seahorse(200, 150);
        ASSERT_EQ(ms::parse_colouring_methods(methods, &view.colouring), "");
        const size_t n = size_t(view.width) * view.height;
        std::vector<float> mu(n), g_mu(n);
        std::vector<uint8_t> ref(n * 4), got(n * 4);
        ms::render_coloured_cpu(view, ms::Precision::Fp64, {}, table, {}, 1.0, mu.data(), ref.data(), {}, true);
        ms::render_coloured_cuda_to_host(view, ms::Precision::Fp64, {}, table, {}, 1.0, got.data(), g_mu.data());
        EXPECT_EQ(ms::test::validate_result("rgba within 1", ref.data(), got.data(), n * 4, 1.0, 0.0, view.width * 4)
                      .mismatches,
                  0u);
    }
#endif
}

TEST(AtomDomainsCuda, DeepKernelMatchesTheCpu) {
    SKIP_WITHOUT_CUDA();
#if MANDELSCOPE_HAVE_CUDA
    expect_deep_atoms_match(ms::test::load_location("e50", "1E20"), 96, 54, ms::DeepNumberType::Double, false);
    expect_deep_atoms_match(ms::test::load_location("e50", "1E20"), 96, 54, ms::DeepNumberType::Double, true);
    expect_deep_atoms_match(ms::test::load_location("e1000", "1E300"), 64, 36, ms::DeepNumberType::FloatExp, false);
#endif
}

TEST(AtomDomainsCuda, DeepDeviceColouringIsTheHosts) {
    SKIP_WITHOUT_CUDA();
#if MANDELSCOPE_HAVE_CUDA
    const ms::PaletteTable palette = ms::make_palette_table(ms::load_palette("classic"));
    const ms::DeepLocation location = ms::test::load_location("e50", "1E20");
    ms::View view;
    view.width = 120;
    view.height = 68;
    view.max_iterations = location.max_iterations;
    ASSERT_EQ(ms::parse_colouring_methods("smooth,de,atom", &view.colouring), "");
    ms::DeepDeviceFrame device;
    ms::DeepRenderOptions options;
    ms::deep_options_for_colouring(view.colouring, &options);
    options.device_frame = &device;
    const ms::DeepFrame frame = ms::deep_cuda(location, view.width, view.height, options);
    EXPECT_TRUE(device.has_atom);
    std::vector<uint8_t> host(size_t(view.width) * view.height * 4), gpu(host.size());
    ms::colour_deep_frame(frame, palette, view, 1.0, host.data());
    ms::colour_deep_frame_cuda(device, palette, view, 1.0, device.rgba[1], nullptr);
    ASSERT_EQ(cudaMemcpy(gpu.data(), device.rgba[1], gpu.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    size_t differ = 0;
    for (size_t i = 0; i < host.size(); ++i) differ += host[i] != gpu[i];
    EXPECT_EQ(differ, 0u) << "bytes that differ of " << host.size();
#endif
}
