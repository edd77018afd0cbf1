// test_deep_colour_cuda.cpp: a deep frame coloured on the device (deep_colour.h's
// colour_deep_frame_cuda, from the mu and distance deep_cuda leaves in a DeepDeviceFrame) is the
// host's colour_deep_frame of the same frame, byte for byte: the plain colouring (colourize_deep's
// double arithmetic), the histogram base, the slopes, the DE layer and all three together, at
// 1E20 (double deltas) and 1E300 (FloatExp deltas), and a frame's mu also stays on the host as
// before. Both passes run the same colour_pixel() with the same roundings (--fmad=false), so no
// tolerance is allowed. Skips without CUDA; without a CUDA build, the device frame says why.
// Locations: rust-fractal-core's e50 and e1000 centres (assets/locations/*.kfr give the sources).
#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#if MANDELSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "compute/fractal/colour/colour_pass.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/deep/deep_device_frame.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/colour/palette.h"
#include "compute/io/assets.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/validate.h"

using namespace ms;
using ms::test::load_location;

namespace {

[[maybe_unused]] View view_of(const DeepLocation& location, int width, int height, const Colouring& colouring) {
    View view;
    view.width = width;
    view.height = height;
    view.max_iterations = location.max_iterations;
    view.colouring = colouring;
    view.palette_density = 3.0;
    view.palette_offset = 0.25;
    return view;
}

TEST(DeepColourCuda, WithoutAFrameItSaysSo) {
    DeepDeviceFrame device;
    const PaletteTable palette = make_palette_table(load_palette("classic"));
    try {
        colour_deep_frame_cuda(device, palette, View{}, 1.0, nullptr, nullptr);
        FAIL() << "colouring an empty device frame must throw";
    } catch (const std::runtime_error& e) {
        EXPECT_FALSE(std::string(e.what()).empty());
    }
}

TEST(DeepColourCuda, SameBytesAsTheHostColourPass) {
    SKIP_WITHOUT_CUDA();
#if MANDELSCOPE_HAVE_CUDA
    const int width = 160, height = 90;
    const PaletteTable palette = make_palette_table(load_palette("classic"));
    Colouring plain, histogram, slopes, distance, all;
    histogram.base = ColourBase::Histogram;
    slopes.slopes = true;
    distance.distance_estimation = true;
    all.base = ColourBase::Histogram;
    all.slopes = true;
    all.distance_estimation = true;
    DeepDeviceFrame device;  // one for every frame, as the window's worker keeps it
    for (const auto& [name, zoom] : {std::pair{"e50", "1E20"}, std::pair{"e1000", "1E300"}}) {
        const DeepLocation location = load_location(name, zoom);
        for (const auto& [label, colouring] :
             {std::pair{"plain", plain}, std::pair{"histogram", histogram}, std::pair{"slopes", slopes},
              std::pair{"DE", distance}, std::pair{"histogram+slopes+DE", all}}) {
            SCOPED_TRACE(std::string(zoom) + " " + label);
            const View view = view_of(location, width, height, colouring);
            DeepRenderOptions options;
            deep_options_for_colouring(view.colouring, &options);
            options.device_frame = &device;
            const DeepFrame frame = deep_cuda(location, width, height, options);
            ASSERT_EQ(device.width, width);
            ASSERT_EQ(device.height, height);
            EXPECT_EQ(device.has_distance, options.distance);
            // The host keeps its copy of mu: the same values as on the device.
            std::vector<double> device_mu(frame.mu.size());
            ASSERT_EQ(
                cudaMemcpy(device_mu.data(), device.mu, device_mu.size() * sizeof(double), cudaMemcpyDeviceToHost),
                cudaSuccess);
            EXPECT_EQ(device_mu, frame.mu);

            std::vector<uint8_t> host(size_t(width) * height * 4), gpu(host.size());
            colour_deep_frame(frame, palette, view, 1.0, host.data());
            colour_deep_frame_cuda(device, palette, view, 1.0, device.rgba[1], nullptr);
            ASSERT_EQ(cudaMemcpy(gpu.data(), device.rgba[1], gpu.size(), cudaMemcpyDeviceToHost), cudaSuccess);
            size_t differ = 0;
            for (size_t i = 0; i < host.size(); ++i) differ += host[i] != gpu[i];
            EXPECT_EQ(differ, 0u) << "bytes that differ of " << host.size();
        }
    }
#endif
}

}  // namespace
