// deep_devices_bench.cpp: `bench --deep` across devices (deep_bench.h: deep_bench_devices): the
// kf2 locations' frames shared out over several GPUs against one, through the same engine
// (compute/scale/deep_multi_gpu.h), so that the ratio is the split's alone.
#include "app/bench/deep_bench.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fractal/view/kfr.h"
#include "compute/scale/deep_multi_gpu.h"
#include "compute/system/text_format.h"

namespace ms {

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

bool same_frame(const DeepFrame& a, const DeepFrame& b) {
    return a.escape_count.size() == b.escape_count.size() && a.mu.size() == b.mu.size() &&
           std::memcmp(a.escape_count.data(), b.escape_count.data(), a.escape_count.size() * sizeof(int64_t)) == 0 &&
           std::memcmp(a.mu.data(), b.mu.data(), a.mu.size() * sizeof(double)) == 0;
}

std::string shares_text(const DeepSpreadFrame& f) {
    std::string text;
    for (const DeepDeviceShare& d : f.shares)
        text += printf_text("%sdevice %d: %d bands, %lld rows, %.1f%% of the iterations, busy %.0f ms%s",
                            text.empty() ? "" : "; ", d.device, d.bands, (long long)d.rows,
                            f.frame.stats.iterations ? 100.0 * double(d.iterations) / double(f.frame.stats.iterations)
                                                     : 0.0,
                            d.busy_ms, d.failed ? (" (FAILED: " + d.failure + ")").c_str() : "");
    return text;
}

}  // namespace

void deep_bench_devices(const std::string& folder, int width, int height, const std::vector<int>& devices, int rounds,
                        const DeepBenchPrint& print) {
    if (devices.empty()) throw std::invalid_argument("deep_bench_devices needs at least one device");
    std::string list;
    for (int d : devices) list += (list.empty() ? "" : ",") + std::to_string(d);
    const std::vector<int> one = {devices.front()};
    print(printf_text("Frames shared out over devices %s against device %d alone, at %dx%d (the same engine: bands "
                      "of rows from one queue, a worker pair a device)",
                      list.c_str(), one.front(), width, height));
    print("  end to end: reference + BLA + pixels, nothing cached; pixels: the frame with its reference and every "
          "device's tables kept, median of " +
          std::to_string(rounds) + " rounds interleaved (1 device first, then " + std::to_string(devices.size()) +
          ")");
    print(printf_text("  %-7s %12s %12s %7s %12s %12s %7s %6s  %s", "kf2", "1 dev e2e ms", "N dev e2e ms", "ratio",
                      "1 dev pix ms", "N dev pix ms", "ratio", "equal", "bands"));
    for (const DeepKf2Location& kf : kDeepKf2Locations) {
        DeepLocation location;
        if (!read_kfr(folder + "/" + kf.name + ".kfr", &location).empty()) {
            print(printf_text("  %-7s skipped: no public location file (%s.kfr)", kf.label, kf.name));
            continue;
        }
        DeepSpreadOptions single, spread;
        single.devices = one;
        spread.devices = devices;
        // End to end, each with a cache of its own (nothing kept).
        const DeepSpreadFrame e2e_one = deep_multi_gpu(location, width, height, {}, single);
        const DeepSpreadFrame e2e_many = deep_multi_gpu(location, width, height, {}, spread);
        bool equal = same_frame(e2e_one.frame, e2e_many.frame);
        // The pixel work: one cache for both, already holding the orbit and every device's tables.
        ReferenceCache cache;
        DeepRenderOptions kept;
        kept.cache = &cache;
        deep_multi_gpu(location, width, height, kept, spread);
        std::vector<double> one_ms, many_ms;
        DeepSpreadFrame last_many;
        for (int r = 0; r < std::max(rounds, 1); ++r) {
            const DeepSpreadFrame a = deep_multi_gpu(location, width, height, kept, single);
            DeepSpreadFrame b = deep_multi_gpu(location, width, height, kept, spread);
            one_ms.push_back(a.frame.stats.frame_ms);
            many_ms.push_back(b.frame.stats.frame_ms);
            equal = equal && same_frame(a.frame, b.frame) && same_frame(e2e_one.frame, b.frame);
            last_many = std::move(b);
        }
        const double one_pix = median(one_ms), many_pix = median(many_ms);
        print(printf_text("  %-7s %12.1f %12.1f %6.2fx %12.1f %12.1f %6.2fx %6s  %d bands of %d rows", kf.label,
                          e2e_one.frame.stats.frame_ms, e2e_many.frame.stats.frame_ms,
                          e2e_one.frame.stats.frame_ms / e2e_many.frame.stats.frame_ms, one_pix, many_pix,
                          one_pix / many_pix, equal ? "yes" : "NO", last_many.bands, last_many.band_rows));
        print("          " + shares_text(last_many));
        print(printf_text("          napkin: %.1f Mpixel, %.3g iterations; %.3g iterations/s on 1 device, %.3g on %zu",
                          1e-6 * double(width) * height, double(last_many.frame.stats.iterations),
                          double(last_many.frame.stats.iterations) / (one_pix * 1e-3),
                          double(last_many.frame.stats.iterations) / (many_pix * 1e-3), devices.size()));
    }
}

}  // namespace ms
