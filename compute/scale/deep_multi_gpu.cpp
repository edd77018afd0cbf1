// deep_multi_gpu.cpp: a deep frame's bands shared out over devices (see deep_multi_gpu.h).
// The main thread computes the reference, starts the workers, and sizes the frame's outputs
// while the first bands render (filling gigabytes of -1 at poster sizes takes about a second);
// a worker keeps the bands it renders before that and goes on, and copies them in once it is
// done.
#include "compute/scale/deep_multi_gpu.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/deep/deep_device_frame.h"
#include "compute/system/cuda_info.h"
#include "compute/system/cuda_start.h"

namespace ms {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

int default_band_rows(int width, int height, int workers) {
    const int64_t pixels = int64_t(width) * height;
    const int64_t target =
        std::clamp(pixels / (int64_t(kDeepBandsPerWorker) * workers), kDeepBandMinPixels, kDeepBandMaxPixels);
    int rows = int(std::max<int64_t>(1, target / width));
    if (rows >= 16) rows -= rows % 16;  // whole rows of deep_cuda's 16-row thread blocks
    return std::min(rows, height);
}

// The bands waiting, by index; a band handed back by a failed worker goes to the front.
class BandQueue {
public:
    explicit BandQueue(int bands) {
        for (int b = 0; b < bands; ++b) waiting_.push_back(b);
    }
    // The next band, or -1 when none is left or the frame stops. While the queue is empty but
    // bands are still rendering, waits: one of them may come back.
    int take() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || !waiting_.empty() || in_flight_ == 0; });
        if (stop_ || waiting_.empty()) return -1;
        const int band = waiting_.front();
        waiting_.pop_front();
        ++in_flight_;
        return band;
    }
    void done() {
        std::lock_guard<std::mutex> lock(mutex_);
        --in_flight_;
        changed_.notify_all();
    }
    void hand_back(int band) {
        std::lock_guard<std::mutex> lock(mutex_);
        waiting_.push_front(band);
        --in_flight_;
        changed_.notify_all();
    }
    void halt() {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
        changed_.notify_all();
    }
    size_t left() {
        std::lock_guard<std::mutex> lock(mutex_);
        return waiting_.size() + size_t(in_flight_);
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<int> waiting_;
    int in_flight_ = 0;
    bool stop_ = false;
};

// A band's outputs into the frame's, at its first row (of the frame's region): whole rows, so
// one contiguous range each.
void copy_band(const DeepFrame& band, int first_row, DeepFrame* frame) {
    const size_t offset = size_t(first_row) * size_t(frame->width);
    std::copy(band.escape_count.begin(), band.escape_count.end(), frame->escape_count.begin() + offset);
    std::copy(band.mu.begin(), band.mu.end(), frame->mu.begin() + offset);
    if (!frame->distance.empty())
        std::copy(band.distance.begin(), band.distance.end(), frame->distance.begin() + offset);
    if (!frame->atom.empty()) std::copy(band.atom.begin(), band.atom.end(), frame->atom.begin() + offset);
}

// What one worker thread did, merged into its slot's share at the end.
struct WorkerTally {
    int bands = 0;
    int64_t rows = 0;
    DeepFrameStats counts;  // the bands' counters added up
    double busy_ms = 0.0;
    double bla_ms = 0.0;
    bool bla_on_device = false;
    int bla_levels = 0;
    bool counted_bla = false;
};

void add_counts(const DeepFrameStats& band, DeepFrameStats* total) {
    total->iterations += band.iterations;
    total->bla_iterations += band.bla_iterations;
    total->bla_skips += band.bla_skips;
    total->perturbation_steps += band.perturbation_steps;
    total->rebases += band.rebases;
    total->escaped_pixels += band.escaped_pixels;
    total->device_bytes_copied += band.device_bytes_copied;
}

}  // namespace

int deep_spread_workers_per_slot(const DeepSpreadOptions& spread) {
    if (spread.workers_per_slot > 0) return spread.workers_per_slot;
    return spread.band_done || spread.band_rgba ? 4 : 2;
}

int DeepSpreadFrame::failed_slots() const {
    return int(std::count_if(shares.begin(), shares.end(), [](const DeepDeviceShare& s) { return s.failed; }));
}

std::string DeepSpreadFrame::failure_text() const {
    std::string text;
    for (size_t slot = 0; slot < shares.size(); ++slot) {
        if (!shares[slot].failed) continue;
        std::string why = shares[slot].failure;
        if (!why.empty() && why.back() == '.') why.pop_back();
        if (!text.empty()) text += "\n";
        text += "device " + std::to_string(shares[slot].device) + " (slot " + std::to_string(slot) +
                ") failed: " + why + "; its bands went to the other devices";
    }
    return text;
}

DeepSpreadFrame deep_spread_frame(const DeepLocation& location, int width, int height,
                                  const DeepRenderOptions& options, const DeepSpreadOptions& spread,
                                  const DeepBandRender& render) {
    const auto start = Clock::now();
    const std::vector<int>& devices = spread.devices;
    if (devices.empty()) throw std::invalid_argument("A frame spread over devices needs at least one device.");
    for (int d : devices)
        if (d < 0) throw std::invalid_argument("Device numbers start at 0 (got " + std::to_string(d) + ").");
    const int slots = int(devices.size());
    const int workers = slots * deep_spread_workers_per_slot(spread);
    const bool colour_bands = bool(spread.band_rgba);
    if (colour_bands && (!spread.colour_palette || !spread.colour_view))
        throw std::invalid_argument("Bands coloured where they render need the palette and the view.");

    // The reference, once, into the cache every band finds it in; every distinct device keeps its
    // own tables there (two for a Julia set), beside the host's.
    ReferenceCache own_cache;
    DeepRenderOptions frame_options = options;
    if (!frame_options.cache) frame_options.cache = &own_cache;
    {
        std::vector<int> distinct = devices;
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        std::lock_guard<std::mutex> lock(frame_options.cache->mutex);
        frame_options.cache->bla_capacity = std::max(frame_options.cache->bla_capacity, 2 * distinct.size() + 2);
    }
    DeepSpreadFrame result;
    DeepFrame& frame = result.frame;
    const DeepFrameSetup setup = deep_frame_setup(location, width, height, frame_options, &frame, false);
    result.shares.resize(size_t(slots));
    for (int slot = 0; slot < slots; ++slot) result.shares[size_t(slot)].device = devices[size_t(slot)];
    if (!setup.orbit) {  // cancelled
        deep_frame_outputs(options, &frame);
        return result;
    }
    const DeepPixelRect region = setup.region;
    result.band_rows = spread.band_rows > 0 ? std::min(spread.band_rows, region.height)
                                            : default_band_rows(region.width, region.height, workers);
    result.bands = (region.height + result.band_rows - 1) / result.band_rows;

    // What a band renders with: the frame's options, its own region and device; no progress of
    // its own (the frame reports finished bands) and no device frame (bands are copied to the host).
    DeepRenderOptions band_base = frame_options;
    band_base.reference_progress = nullptr;
    band_base.row_progress = nullptr;
    band_base.row_done = nullptr;
    band_base.device_frame = nullptr;

    BandQueue queue(result.bands);
    std::vector<WorkerTally> tallies(static_cast<size_t>(workers));
    std::unique_ptr<std::atomic<bool>[]> slot_failed(new std::atomic<bool>[size_t(slots)]);
    for (int slot = 0; slot < slots; ++slot) slot_failed[size_t(slot)] = false;
    std::mutex failure_mutex;
    std::atomic<bool> cancelled{false};
    std::promise<void> outputs_sized;
    const std::shared_future<void> outputs_ready = outputs_sized.get_future().share();
    std::atomic<bool> outputs_ok{false};
    std::mutex progress_mutex;
    int rows_done = 0;

    // Each device's tables are built once, by the first worker naming it, before its other
    // workers start (two building the same table would each keep a copy).
    std::vector<int> warmer(static_cast<size_t>(workers), -1);  // the worker that warms worker w's device; -1: w does
    for (int w = 0; w < workers; ++w)
        for (int v = 0; v < w; ++v)
            if (devices[size_t(v % slots)] == devices[size_t(w % slots)]) {
                warmer[size_t(w)] = v;
                break;
            }
    std::vector<std::promise<void>> warmed(static_cast<size_t>(workers));
    std::vector<std::shared_future<void>> warmed_future;
    for (auto& p : warmed) warmed_future.push_back(p.get_future().share());

    auto fail_slot = [&](int slot, const std::string& why) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        DeepDeviceShare& share = result.shares[size_t(slot)];
        if (!share.failed) {
            share.failed = true;
            share.failure = why;
        }
        slot_failed[size_t(slot)] = true;
    };
    const auto bands_start = Clock::now();
    auto work = [&](int worker) {
        const int slot = worker % slots;
        DeepRenderOptions band_options = band_base;
        band_options.device = devices[size_t(slot)];
        WorkerTally& tally = tallies[size_t(worker)];
        const bool may_fail = slot == spread.fail_slot && worker < slots;
        // Warm up: the first worker of a device renders one pixel of the frame (its orbit copy
        // and its BLA tables); the others of that device wait for it.
        if (warmer[size_t(worker)] < 0) {
            try {
                DeepRenderOptions one = band_options;
                one.region = {region.x, region.y, 1, 1};
                const auto t = Clock::now();
                const DeepFrame pixel = render(worker, location, width, height, one, nullptr);
                tally.busy_ms += ms_between(t, Clock::now());
                tally.bla_ms = pixel.stats.bla_ms;
                tally.bla_on_device = pixel.stats.bla_on_device;
                tally.bla_levels = pixel.stats.bla_levels;
                tally.counted_bla = true;
            } catch (const std::exception& e) {
                fail_slot(slot, e.what());
            }
            warmed[size_t(worker)].set_value();
        } else {
            warmed_future[size_t(warmer[size_t(worker)])].wait();
        }
        auto report_rows = [&](int rows) {
            if (!options.row_progress) return;
            std::lock_guard<std::mutex> lock(progress_mutex);
            rows_done += rows;
            options.row_progress(rows_done, region.height);
        };
        // Rendered bands not yet in the frame (its outputs not sized yet): (first row, band).
        std::vector<std::pair<int, DeepFrame>> pending;
        auto land_pending = [&]() {
            for (auto& [first_row, band_frame] : pending) {
                if (!outputs_ok || cancelled) break;
                copy_band(band_frame, first_row, &frame);
                if (spread.band_done) spread.band_done(frame, first_row, band_frame.height);
                report_rows(band_frame.height);
            }
            pending.clear();
        };
        // With colour_bands: the band's colours, and what the renderer colours them with.
        std::vector<uint8_t> rgba;
        DeepBandColour colour{spread.colour_palette, spread.colour_view, nullptr};
        while (!slot_failed[size_t(slot)] && !cancelled) {
            const int band = queue.take();
            if (band < 0) break;
            const int first_row = band * result.band_rows;
            const int rows = std::min(result.band_rows, region.height - first_row);
            band_options.region = {region.x, region.y + first_row, region.width, rows};
            DeepFrame band_frame;
            const auto t = Clock::now();
            try {
                if (may_fail && tally.bands >= spread.fail_after_bands)
                    throw std::runtime_error("injected fault (device_fail): the device stopped responding");
                if (colour_bands) {
                    rgba.resize(size_t(region.width) * size_t(rows) * 4);
                    colour.rgba = rgba.data();
                }
                band_frame = render(worker, location, width, height, band_options, colour_bands ? &colour : nullptr);
            } catch (const std::exception& e) {
                queue.hand_back(band);
                fail_slot(slot, e.what());
                break;
            }
            tally.busy_ms += ms_between(t, Clock::now());
            if (band_frame.stats.cancelled) {
                cancelled = true;
                queue.done();
                queue.halt();
                break;
            }
            add_counts(band_frame.stats, &tally.counts);
            if (!tally.counted_bla) {
                tally.bla_on_device = band_frame.stats.bla_on_device;
                tally.bla_levels = band_frame.stats.bla_levels;
            }
            ++tally.bands;
            tally.rows += rows;
            queue.done();
            if (colour_bands) {
                spread.band_rgba(frame, rgba.data(), first_row, rows);
                report_rows(rows);
                continue;
            }
            // Into the frame once its outputs are sized; until then the band waits here and the
            // worker goes on to the next, so the device never waits for the sizing.
            pending.push_back({first_row, std::move(band_frame)});
            if (outputs_ready.wait_for(std::chrono::seconds(0)) == std::future_status::ready) land_pending();
        }
        outputs_ready.wait();
        land_pending();
    };
    std::vector<std::thread> threads;
    threads.reserve(size_t(workers));
    for (int w = 0; w < workers; ++w) threads.emplace_back(work, w);
    // The outputs, sized while the first bands render.
    std::exception_ptr sizing_error;
    try {
        if (!colour_bands) deep_frame_outputs(options, &frame);
        outputs_ok = true;
    } catch (...) {
        sizing_error = std::current_exception();
        queue.halt();
    }
    outputs_sized.set_value();
    for (std::thread& t : threads) t.join();
    if (sizing_error) std::rethrow_exception(sizing_error);

    const double bands_ms = ms_between(bands_start, Clock::now());
    DeepFrameStats& stats = frame.stats;
    for (int w = 0; w < workers; ++w) {
        const WorkerTally& tally = tallies[size_t(w)];
        DeepDeviceShare& share = result.shares[size_t(w % slots)];
        share.bands += tally.bands;
        share.rows += tally.rows;
        share.iterations += tally.counts.iterations;
        share.busy_ms += tally.busy_ms;
        share.bla_ms = std::max(share.bla_ms, tally.bla_ms);
        add_counts(tally.counts, &stats);
        stats.bla_ms = std::max(stats.bla_ms, tally.bla_ms);
        if (tally.bla_levels > 0 || tally.counted_bla) {
            stats.bla_levels = tally.bla_levels;
            stats.bla_on_device = tally.bla_on_device;
        }
    }
    if (cancelled) {
        stats.cancelled = true;
    } else if (queue.left() > 0) {  // every slot failed before the frame was done
        std::string first = result.shares.front().failure;
        for (const DeepDeviceShare& share : result.shares)
            if (share.failed) {
                first = share.failure;
                break;
            }
        throw std::runtime_error(slots == 1 ? first : "every device failed; the first: " + first);
    }
    stats.pixels_ms = bands_ms;
    stats.frame_ms = ms_between(start, Clock::now());
    return result;
}

DeepSpreadFrame deep_multi_gpu(const DeepLocation& location, int width, int height, const DeepRenderOptions& options,
                               const DeepSpreadOptions& spread) {
    // The driver's answer only: the contexts start beside the reference (below), and each band's
    // deep_cuda checks the device can run its kernels.
    std::string reason;
    if (!cuda_device_present(&reason)) throw std::runtime_error("The deep CUDA path cannot run: " + reason + ".");
    DeepSpreadOptions s = spread;
    if (s.devices.empty()) s.devices = deep_visible_devices();
    const int workers = int(s.devices.size()) * deep_spread_workers_per_slot(s);
    // One stream a worker, made on its device by the worker's first band, destroyed after every
    // worker has finished.
    std::vector<DeepCudaStream> streams(static_cast<size_t>(std::max(workers, 1)));
    // With band_rgba: each worker's band stays on its device in a frame of the worker's own,
    // coloured there; only the colours come back.
    std::vector<std::unique_ptr<DeepDeviceFrame>> kept(static_cast<size_t>(std::max(workers, 1)));
    const DeepBandRender render = [&streams, &kept](int worker, const DeepLocation& loc, int w, int h,
                                                    const DeepRenderOptions& band, const DeepBandColour* colour) {
        DeepRenderOptions on_stream = band;
        on_stream.cuda_stream = streams[size_t(worker)].get(band.device);
        if (!colour) return deep_cuda(loc, w, h, on_stream);
        std::unique_ptr<DeepDeviceFrame>& device_frame = kept[size_t(worker)];
        if (!device_frame) device_frame = std::make_unique<DeepDeviceFrame>();
        on_stream.device_frame = device_frame.get();
        on_stream.host_outputs = false;
        DeepFrame frame = deep_cuda(loc, w, h, on_stream);
        if (!frame.stats.cancelled)
            colour_deep_frame_cuda_to_host(*device_frame, *colour->palette, *colour->view, 1.0, colour->rgba,
                                           on_stream.cuda_stream);
        return frame;
    };
    // Each device's context is made (a first stream on it) while the host computes the
    // reference, not after it. A device that cannot start is left to its workers, whose first
    // render fails their slot with the reason.
    const std::future<void> started = deep_start_devices(s.devices);
    return deep_spread_frame(location, width, height, options, s, render);
}

std::future<void> deep_start_devices(const std::vector<int>& devices) {
    std::vector<int> distinct = devices;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    return std::async(std::launch::async, [distinct] {
        std::vector<std::thread> starters;
        for (int device : distinct)
            starters.emplace_back([device] {
                try {
                    DeepCudaStream first;
                    first.get(device);
                } catch (const std::exception&) {
                }
            });
        for (std::thread& t : starters) t.join();
    });
}

std::vector<int> deep_visible_devices() {
    std::vector<int> devices;
    const CudaSystemInfo info = query_cuda_system();
    if (!info.usable) return devices;
    for (const CudaDeviceInfo& device : info.devices) devices.push_back(device.index);
    return devices;
}

std::string parse_device_numbers(const std::string& text, std::vector<int>* devices) {
    devices->clear();
    const std::string usage = " (a device list is CUDA device numbers separated by commas, like 0,1)";
    if (text.empty()) return "the device list is empty" + usage;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(start, end - start);
        if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos) {
            devices->clear();
            return "the device list '" + text + "' has '" + item + "', which is not a device number" + usage;
        }
        devices->push_back(std::stoi(item));
        start = end + 1;
    }
    return {};
}

std::string check_device_numbers(const std::vector<int>& devices, int device_count) {
    for (int device : devices)
        if (device >= device_count)
            return "there is no CUDA device " + std::to_string(device) + ": " +
                   (device_count == 0   ? std::string("this machine has none")
                    : device_count == 1 ? std::string("this machine has one, device 0")
                                        : "this machine has " + std::to_string(device_count) + ", numbered 0 to " +
                                              std::to_string(device_count - 1));
    return {};
}

std::string parse_device_list(const std::string& text, int device_count, std::vector<int>* devices) {
    // The numbers first, then whether each exists.
    std::string problem = parse_device_numbers(text, devices);
    if (problem.empty()) problem = check_device_numbers(*devices, device_count);
    if (!problem.empty()) devices->clear();
    return problem;
}

}  // namespace ms
