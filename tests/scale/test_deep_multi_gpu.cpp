// test_deep_multi_gpu.cpp: the engine that shares a deep frame's bands out over devices
// (compute/scale/deep_multi_gpu.h), run here with deep_cpu as each "device"'s renderer, so that
// it is checked on any machine: the frame equals one deep_cpu frame byte for byte whatever the
// slots, workers and band height (a short last band included; with the distance and atom
// outputs; inside a region); a slot that fails mid-run hands its band back and the others
// finish the same frame; the frame fails with the sentence when every slot fails; each device
// builds its tables once; each band is reported once its rows are in the frame; bands coloured
// where they render give the frame's colours; the device list's parser. test_deep_multi_gpu_cuda.cpp runs deep_cuda.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/view/view.h"
#include "compute/scale/deep_multi_gpu.h"
#include "tests/fractal/deep/kfr_location.h"

using namespace ms;
using ms::test::load_location;

namespace {

// deep_cpu on one thread a band (the slots' threads share the machine's cores); asked to
// colour, colour_deep_frame on the host, and the band's outputs dropped as a device's are.
DeepFrame cpu_band(int, const DeepLocation& location, int width, int height, const DeepRenderOptions& options,
                   const DeepBandColour* colour) {
    DeepRenderOptions one = options;
    one.threads = 1;
    DeepFrame band = deep_cpu(location, width, height, one);
    if (colour) {
        colour_deep_frame(band, *colour->palette, *colour->view, 1.0, colour->rgba);
        band.escape_count.clear();
        band.mu.clear();
    }
    return band;
}

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
    // memcmp of two empty vectors' data() (null) is undefined, however short.
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

void expect_same_frame(const DeepFrame& whole, const DeepFrame& spread) {
    EXPECT_EQ(spread.width, whole.width);
    EXPECT_EQ(spread.height, whole.height);
    EXPECT_TRUE(same_bytes(whole.escape_count, spread.escape_count)) << "escape counts differ";
    EXPECT_TRUE(same_bytes(whole.mu, spread.mu)) << "mu differs";
    EXPECT_TRUE(same_bytes(whole.distance, spread.distance)) << "distances differ";
    EXPECT_TRUE(same_bytes(whole.atom, spread.atom)) << "atom periods differ";
    EXPECT_EQ(spread.stats.iterations, whole.stats.iterations);
    EXPECT_EQ(spread.stats.bla_iterations, whole.stats.bla_iterations);
    EXPECT_EQ(spread.stats.perturbation_steps, whole.stats.perturbation_steps);
    EXPECT_EQ(spread.stats.escaped_pixels, whole.stats.escaped_pixels);
    EXPECT_EQ(spread.stats.number_type, whole.stats.number_type);
    EXPECT_EQ(spread.stats.reference_iterations, whole.stats.reference_iterations);
}

int total_bands(const DeepSpreadFrame& f) {
    int bands = 0;
    for (const DeepDeviceShare& share : f.shares) bands += share.bands;
    return bands;
}

}  // namespace

TEST(DeepMultiGpu, BandsOverSlotsEqualOneFrame) {
    const DeepLocation location = load_location("e113");
    const DeepFrame whole = deep_cpu(location, 96, 54);
    for (int band_rows : {0, 1, 5, 54, 100}) {
        for (int workers : {1, 2}) {
            DeepSpreadOptions spread;
            spread.devices = {0, 0, 0};
            spread.workers_per_slot = workers;
            spread.band_rows = band_rows;
            const DeepSpreadFrame f = deep_spread_frame(location, 96, 54, {}, spread, cpu_band);
            SCOPED_TRACE("band_rows " + std::to_string(band_rows) + ", workers " + std::to_string(workers));
            expect_same_frame(whole, f.frame);
            EXPECT_EQ(f.failed_slots(), 0);
            EXPECT_EQ(total_bands(f), f.bands);
            EXPECT_EQ(f.bands, (54 + f.band_rows - 1) / f.band_rows);
            EXPECT_FALSE(f.frame.stats.cancelled);
        }
    }
}

TEST(DeepMultiGpu, DistanceAndAtomOutputsAndARegion) {
    const DeepLocation location = load_location("e50", "1E20");
    DeepRenderOptions options;
    options.distance = true;
    options.atom = true;
    DeepSpreadOptions spread;
    spread.devices = {0, 1};
    spread.band_rows = 3;
    expect_same_frame(deep_cpu(location, 64, 36, options),
                      deep_spread_frame(location, 64, 36, options, spread, cpu_band).frame);
    options.region = {5, 7, 40, 20};
    const DeepSpreadFrame f = deep_spread_frame(location, 64, 36, options, spread, cpu_band);
    expect_same_frame(deep_cpu(location, 64, 36, options), f.frame);
    EXPECT_EQ(f.frame.region.x, 5);
    EXPECT_EQ(f.frame.region.y, 7);
}

// The fault of fault_injection.h's device_fail, asked for directly: the last slot's first
// worker throws at its second band; that band goes back to the queue and the frame is the same.
// Device 0 waits for device 1's first band and then takes its time over each of its own, so
// that device 1 reaches its second band on a busy machine too.
TEST(DeepMultiGpu, FailedSlotHandsItsBandsToTheOthers) {
    const DeepLocation location = load_location("e113");
    const DeepFrame whole = deep_cpu(location, 96, 54);
    DeepSpreadOptions spread;
    spread.devices = {0, 1};
    spread.workers_per_slot = 1;
    spread.band_rows = 4;
    spread.fail_slot = 1;
    spread.fail_after_bands = 1;
    std::atomic<int> device1_bands{0};
    const DeepBandRender render = [&](int worker, const DeepLocation& loc, int w, int h,
                                      const DeepRenderOptions& options, const DeepBandColour*) {
        const bool band = options.region.height > 1;
        if (band && options.device == 0) {
            for (int waited = 0; device1_bands == 0 && waited < 10000; ++waited)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        DeepFrame frame = cpu_band(worker, loc, w, h, options, nullptr);
        if (band && options.device == 1) ++device1_bands;
        return frame;
    };
    const DeepSpreadFrame f = deep_spread_frame(location, 96, 54, {}, spread, render);
    expect_same_frame(whole, f.frame);
    ASSERT_EQ(f.failed_slots(), 1);
    EXPECT_FALSE(f.shares[0].failed);
    EXPECT_TRUE(f.shares[1].failed);
    EXPECT_EQ(f.shares[1].bands, 1);
    EXPECT_NE(f.shares[1].failure.find("injected fault"), std::string::npos);
    EXPECT_EQ(total_bands(f), f.bands);
    const std::string text = f.failure_text();
    EXPECT_NE(text.find("device 1 (slot 1) failed: injected fault"), std::string::npos) << text;
    EXPECT_EQ(text.find('\n'), std::string::npos) << "one line a failed slot";
}

// A renderer that fails on one "device" always (an exception from its first call on): the
// others render every band.
TEST(DeepMultiGpu, DeviceThatNeverWorksLeavesTheFrameToTheOthers) {
    const DeepLocation location = load_location("e113");
    const DeepFrame whole = deep_cpu(location, 96, 54);
    DeepSpreadOptions spread;
    spread.devices = {0, 7, 0};
    spread.band_rows = 6;
    const DeepBandRender render = [](int worker, const DeepLocation& loc, int w, int h,
                                     const DeepRenderOptions& options, const DeepBandColour*) {
        if (options.device == 7) throw std::runtime_error("CUDA error: an illegal memory access was encountered.");
        return cpu_band(worker, loc, w, h, options, nullptr);
    };
    const DeepSpreadFrame f = deep_spread_frame(location, 96, 54, {}, spread, render);
    expect_same_frame(whole, f.frame);
    EXPECT_TRUE(f.shares[1].failed);
    EXPECT_EQ(f.shares[1].bands, 0);
    EXPECT_EQ(f.shares[0].bands + f.shares[2].bands, f.bands);
}

TEST(DeepMultiGpu, EverySlotFailingFailsTheFrameWithTheSentence) {
    const DeepLocation location = load_location("e50", "1E20");
    DeepSpreadOptions spread;
    spread.devices = {0, 1};
    const DeepBandRender render = [](int, const DeepLocation&, int, int, const DeepRenderOptions&,
                                     const DeepBandColour*) -> DeepFrame {
        throw std::runtime_error("The deep CUDA path cannot run: no CUDA device.");
    };
    try {
        deep_spread_frame(location, 64, 36, {}, spread, render);
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "every device failed; the first: The deep CUDA path cannot run: no CUDA device.");
    }
    spread.devices = {0};
    EXPECT_THROW(deep_spread_frame(location, 64, 36, {}, spread, render), std::runtime_error);
    spread.devices = {};
    EXPECT_THROW(deep_spread_frame(location, 64, 36, {}, spread, cpu_band), std::invalid_argument);
}

// Each distinct device is warmed once (one pixel, which builds its tables) before its other
// workers take bands; the reference is computed once for the frame.
TEST(DeepMultiGpu, EachDeviceBuildsItsTablesOnce) {
    const DeepLocation location = load_location("e113");
    std::mutex mutex;
    std::vector<int> warmed;
    int reference_built = 0;
    const DeepBandRender render = [&](int worker, const DeepLocation& loc, int w, int h,
                                      const DeepRenderOptions& options, const DeepBandColour*) {
        DeepFrame frame = cpu_band(worker, loc, w, h, options, nullptr);
        std::lock_guard<std::mutex> lock(mutex);
        if (options.region.width == 1 && options.region.height == 1) warmed.push_back(options.device);
        if (!frame.stats.reference_cached) ++reference_built;
        return frame;
    };
    DeepSpreadOptions spread;
    spread.devices = {3, 5, 3};
    spread.workers_per_slot = 2;
    spread.band_rows = 8;
    const DeepSpreadFrame f = deep_spread_frame(location, 96, 54, {}, spread, render);
    std::sort(warmed.begin(), warmed.end());
    EXPECT_EQ(warmed, (std::vector<int>{3, 5}));
    EXPECT_EQ(reference_built, 0) << "every band finds the frame's reference";
    EXPECT_FALSE(f.frame.stats.reference_cached);
    EXPECT_GT(f.frame.stats.reference_ms, 0.0);
}

// band_done sees each row once, already in the frame with its final values (a caller colours
// and writes rows from it while the rest render).
TEST(DeepMultiGpu, EachBandIsReportedOnceWithItsRowsInTheFrame) {
    const DeepLocation location = load_location("e113");
    const DeepFrame whole = deep_cpu(location, 96, 54);
    std::mutex mutex;
    std::vector<int> seen(54, 0);
    std::vector<double> mu_then(whole.mu.size(), -2.0);
    DeepSpreadOptions spread;
    spread.devices = {0, 1};
    spread.band_rows = 7;
    spread.band_done = [&](const DeepFrame& frame, int first_row, int rows) {
        std::lock_guard<std::mutex> lock(mutex);
        for (int y = first_row; y < first_row + rows; ++y) {
            ++seen[size_t(y)];
            std::copy_n(frame.mu.begin() + ptrdiff_t(y) * 96, 96, mu_then.begin() + ptrdiff_t(y) * 96);
        }
    };
    const DeepSpreadFrame f = deep_spread_frame(location, 96, 54, {}, spread, cpu_band);
    EXPECT_EQ(seen, std::vector<int>(54, 1));
    EXPECT_TRUE(same_bytes(whole.mu, mu_then)) << "a band was reported before its rows were in the frame";
    expect_same_frame(whole, f.frame);
}

// band_rgba: each band coloured where it renders, each row once; the colours are the whole
// frame's, and the frame's outputs stay empty. Without the palette and view, a sentence.
TEST(DeepMultiGpu, BandsColouredWhereTheyRenderAreTheFramesColours) {
    const DeepLocation location = load_location("e113");
    const DeepFrame whole = deep_cpu(location, 96, 54);
    const PaletteTable palette = make_palette_table(load_palette("classic"));
    View view;
    view.width = 96;
    view.height = 54;
    view.palette_density = 3.5;
    view.palette_offset = 0.25;
    std::vector<uint8_t> expected(size_t(96) * 54 * 4);
    colour_deep_frame(whole, palette, view, 1.0, expected.data());
    std::mutex mutex;
    std::vector<int> seen(54, 0);
    std::vector<uint8_t> rgba(expected.size(), 0);
    DeepSpreadOptions spread;
    spread.devices = std::vector<int>{0, 1};  // (GCC 12 warns wrongly of a null memmove for = {0, 1} here)
    spread.band_rows = 7;
    spread.band_rgba = [&](const DeepFrame&, const uint8_t* band, int first_row, int rows) {
        std::lock_guard<std::mutex> lock(mutex);
        for (int y = first_row; y < first_row + rows; ++y) ++seen[size_t(y)];
        std::copy_n(band, size_t(96) * rows * 4, rgba.begin() + ptrdiff_t(first_row) * 96 * 4);
    };
    EXPECT_THROW(deep_spread_frame(location, 96, 54, {}, spread, cpu_band), std::invalid_argument);
    spread.colour_palette = &palette;
    spread.colour_view = &view;
    std::vector<int> progress;
    DeepRenderOptions options;
    options.row_progress = [&](int done, int) {
        std::lock_guard<std::mutex> lock(mutex);
        progress.push_back(done);
    };
    const DeepSpreadFrame f = deep_spread_frame(location, 96, 54, options, spread, cpu_band);
    EXPECT_EQ(seen, std::vector<int>(54, 1));
    EXPECT_TRUE(rgba == expected) << "the bands' colours differ from the frame's";
    EXPECT_TRUE(f.frame.escape_count.empty());
    EXPECT_TRUE(f.frame.mu.empty());
    EXPECT_EQ(f.frame.stats.iterations, whole.stats.iterations);
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back(), 54);
}

TEST(DeepMultiGpu, RowProgressRisesToTheHeight) {
    const DeepLocation location = load_location("e50", "1E20");
    DeepRenderOptions options;
    std::vector<int> seen;
    std::mutex mutex;
    options.row_progress = [&](int done, int rows) {
        std::lock_guard<std::mutex> lock(mutex);
        EXPECT_EQ(rows, 36);
        seen.push_back(done);
    };
    DeepSpreadOptions spread;
    spread.devices = {0, 1};
    spread.band_rows = 5;
    deep_spread_frame(location, 64, 36, options, spread, cpu_band);
    ASSERT_FALSE(seen.empty());
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_EQ(seen.back(), 36);
}

TEST(DeepMultiGpu, CancelledBeforeTheReferenceComesBackCancelled) {
    const DeepLocation location = load_location("e113");
    std::atomic<bool> cancel{true};
    DeepRenderOptions options;
    options.cancel = &cancel;
    DeepSpreadOptions spread;
    spread.devices = {0, 1};
    const DeepSpreadFrame f = deep_spread_frame(location, 96, 54, options, spread, cpu_band);
    EXPECT_TRUE(f.frame.stats.cancelled);
}

TEST(DeepMultiGpu, DeviceListParser) {
    std::vector<int> devices;
    EXPECT_EQ(parse_device_list("0,1", 2, &devices), "");
    EXPECT_EQ(devices, (std::vector<int>{0, 1}));
    EXPECT_EQ(parse_device_list("0,0", 1, &devices), "");
    EXPECT_EQ(devices, (std::vector<int>{0, 0}));
    EXPECT_EQ(parse_device_list("1,0,1", 2, &devices), "");
    EXPECT_EQ(devices, (std::vector<int>{1, 0, 1}));
    const std::string usage = " (a device list is CUDA device numbers separated by commas, like 0,1)";
    EXPECT_EQ(parse_device_list("", 2, &devices), "the device list is empty" + usage);
    EXPECT_EQ(parse_device_list("0,x", 2, &devices), "the device list '0,x' has 'x', which is not a device number" + usage);
    EXPECT_EQ(parse_device_list("0,", 2, &devices), "the device list '0,' has '', which is not a device number" + usage);
    EXPECT_EQ(parse_device_list("-1", 2, &devices), "the device list '-1' has '-1', which is not a device number" + usage);
    EXPECT_EQ(parse_device_list("99999999999", 2, &devices),
              "the device list '99999999999' has '99999999999', which is not a device number" + usage);
    EXPECT_EQ(parse_device_list("2", 2, &devices), "there is no CUDA device 2: this machine has 2, numbered 0 to 1");
    EXPECT_EQ(parse_device_list("1", 1, &devices), "there is no CUDA device 1: this machine has one, device 0");
    EXPECT_EQ(parse_device_list("0", 0, &devices), "there is no CUDA device 0: this machine has none");
    EXPECT_EQ(parse_device_list("0,x", 0, &devices), "the device list '0,x' has 'x', which is not a device number" + usage);
    EXPECT_TRUE(devices.empty());
}
