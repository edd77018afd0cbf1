// test_deep_multi_gpu_cuda.cpp: deep frames on CUDA spread over devices (deep_multi_gpu) equal
// one device's deep_cuda frame byte for byte: counts, mu and the distance, at double (e227) and
// FloatExp (e1000) depths. On one GPU the device is named twice (two slots of two workers on
// one device): the queue, the bands and the per-device state are exercised all the same; with
// several GPUs, every visible device, and each device's own frame (options.device). A failed
// slot's bands go to the others (the device_fail fault); bands coloured on the devices give the
// host's colours; a device that does not exist is a sentence. Skips with the reason where CUDA
// cannot run; the engine itself is also tested on the CPU (test_deep_multi_gpu.cpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/view/view.h"
#include "compute/scale/deep_multi_gpu.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/validate.h"

using namespace ms;
using ms::test::load_location;

namespace {

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
    // memcmp of two empty vectors' data() (null) is undefined, however short.
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

void expect_same_frame(const DeepFrame& one, const DeepFrame& spread) {
    auto counts = test::validate_result("escape count", one.escape_count.data(), spread.escape_count.data(),
                                        one.escape_count.size(), 0.0, 0.0, one.width);
    EXPECT_EQ(counts.mismatches, 0u);
    EXPECT_TRUE(same_bytes(one.escape_count, spread.escape_count)) << "escape counts differ";
    EXPECT_TRUE(same_bytes(one.mu, spread.mu)) << "mu differs in some bit";
    EXPECT_TRUE(same_bytes(one.distance, spread.distance)) << "distances differ";
    EXPECT_EQ(spread.stats.iterations, one.stats.iterations);
    EXPECT_EQ(spread.stats.bla_iterations, one.stats.bla_iterations);
    EXPECT_EQ(spread.stats.number_type, one.stats.number_type);
}

void print_shares(const char* what, const DeepSpreadFrame& f) {
    std::printf("  %s: %d bands of %d rows, %.1f ms;", what, f.bands, f.band_rows, f.frame.stats.pixels_ms);
    for (const DeepDeviceShare& s : f.shares)
        std::printf(" device %d %d bands%s", s.device, s.bands, s.failed ? " (failed)" : "");
    std::printf("\n");
}

}  // namespace

TEST(DeepMultiGpuCuda, DeviceNamedTwiceEqualsOneDevice) {
    SKIP_WITHOUT_CUDA();
    for (const char* name : {"e227", "e1000"}) {
        SCOPED_TRACE(name);
        const DeepLocation location = load_location(name);
        const DeepFrame one = deep_cuda(location, 640, 360);
        DeepSpreadOptions spread;
        spread.devices = {0, 0};
        spread.band_rows = 16;
        const DeepSpreadFrame f = deep_multi_gpu(location, 640, 360, {}, spread);
        expect_same_frame(one, f.frame);
        EXPECT_EQ(f.failed_slots(), 0);
        print_shares(name, f);
    }
}

TEST(DeepMultiGpuCuda, DistanceOutputsSpreadToo) {
    SKIP_WITHOUT_CUDA();
    const DeepLocation location = load_location("e227");
    DeepRenderOptions options;
    options.distance = true;
    DeepSpreadOptions spread;
    spread.devices = {0, 0};
    spread.band_rows = 32;
    expect_same_frame(deep_cuda(location, 320, 180, options),
                      deep_multi_gpu(location, 320, 180, options, spread).frame);
}

TEST(DeepMultiGpuCuda, EveryVisibleDeviceEqualsOneDevice) {
    SKIP_WITHOUT_CUDA();
    const std::vector<int> devices = deep_visible_devices();
    ASSERT_FALSE(devices.empty());
    const DeepLocation location = load_location("e227");
    const DeepFrame one = deep_cuda(location, 640, 360);
    // Each device alone, through options.device.
    for (int d : devices) {
        DeepRenderOptions on;
        on.device = d;
        SCOPED_TRACE("device " + std::to_string(d));
        expect_same_frame(one, deep_cuda(location, 640, 360, on));
    }
    const DeepSpreadFrame f = deep_multi_gpu(location, 640, 360, {});  // every visible device
    expect_same_frame(one, f.frame);
    EXPECT_EQ(f.shares.size(), devices.size());
    print_shares("every device", f);
    if (devices.size() < 2) std::printf("  one visible device: the split over several runs on the GPU machine\n");
}

// band_rgba on CUDA: each band coloured on its device (colour_deep_frame_cuda_to_host), only
// the colours back: the same bytes as one device's frame coloured on the host.
TEST(DeepMultiGpuCuda, BandsColouredOnTheDevicesEqualTheHostsColours) {
    SKIP_WITHOUT_CUDA();
    const DeepLocation location = load_location("e227");
    const DeepFrame one = deep_cuda(location, 640, 360);
    const PaletteTable palette = make_palette_table(load_palette("classic"));
    View view;
    view.width = 640;
    view.height = 360;
    view.palette_density = 2.5;
    std::vector<uint8_t> expected(size_t(640) * 360 * 4), rgba(expected.size(), 0);
    colour_deep_frame(one, palette, view, 1.0, expected.data());
    std::mutex mutex;
    int rows_seen = 0;
    DeepSpreadOptions spread;
    spread.devices = deep_visible_devices();
    if (spread.devices.size() == 1) spread.devices.push_back(0);
    spread.band_rows = 48;
    spread.colour_palette = &palette;
    spread.colour_view = &view;
    spread.band_rgba = [&](const DeepFrame&, const uint8_t* band, int first_row, int rows) {
        std::lock_guard<std::mutex> lock(mutex);
        rows_seen += rows;
        std::copy_n(band, size_t(640) * rows * 4, rgba.begin() + ptrdiff_t(first_row) * 640 * 4);
    };
    const DeepSpreadFrame f = deep_multi_gpu(location, 640, 360, {}, spread);
    print_shares("coloured on the devices", f);
    EXPECT_EQ(rows_seen, 360);
    EXPECT_TRUE(rgba == expected) << "the devices' colours differ from the host's";
    EXPECT_TRUE(f.frame.mu.empty()) << "only the colours come back";
    EXPECT_EQ(f.frame.stats.iterations, one.stats.iterations);
}

TEST(DeepMultiGpuCuda, FailedSlotHandsItsBandsToTheOthers) {
    SKIP_WITHOUT_CUDA();
    const DeepLocation location = load_location("e227");
    const DeepFrame one = deep_cuda(location, 640, 360);
    DeepSpreadOptions spread;
    spread.devices = deep_visible_devices();
    if (spread.devices.size() < 2) spread.devices = {0, 0};
    spread.band_rows = 8;
    // At the first band it takes: of 45 bands, it surely takes one.
    spread.fail_slot = int(spread.devices.size()) - 1;
    spread.fail_after_bands = 0;
    const DeepSpreadFrame f = deep_multi_gpu(location, 640, 360, {}, spread);
    expect_same_frame(one, f.frame);
    EXPECT_EQ(f.failed_slots(), 1);
    EXPECT_TRUE(f.shares.back().failed);
    print_shares("one slot failing", f);
}

TEST(DeepMultiGpuCuda, MissingDeviceIsASentence) {
    SKIP_WITHOUT_CUDA();
    DeepRenderOptions options;
    options.device = 4096;
    try {
        deep_cuda(load_location("e50", "1E20"), 32, 18, options);
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot run on device 4096"), std::string::npos) << e.what();
    }
}
