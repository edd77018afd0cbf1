// cmd_render_deep.cpp: `mandelscope render` past the direct kernels (cmd_render.cpp decides):
// the deep path of compute/fractal/deep/ on the CPU (deep_cpu) or CUDA (deep_cuda). An MPFR
// reference orbit at the view centre, a BLA table, then every sample iterates its difference
// from the orbit (perturbation with rebasing, and dz/dc beside it for the DE layer); the smooth
// values are coloured with the view's palette and colouring (colour_deep_frame: the histogram,
// slope and DE layers too), box-filtered when supersampling, and written as one PNG with the
// view in its metadata.
//
// Unlike the direct path this renders the whole samples grid at once (deep_cpu/deep_cuda take
// a whole frame: the reference and the BLA table serve every row), so its memory is checked up
// front, about 24 bytes a sample. On CUDA with several devices (every visible one, or
// --devices), the frame's bands are shared out over them (compute/scale/deep_multi_gpu.h: the
// same pixels as one device's); a device that fails hands its bands to the others, and the
// render finishes and says so on stderr. A plain colouring is then done on the devices, band by
// band, and only the colours come back; a large frame takes that way on one device too. Nothing
// reaches the disk before the frame is complete: the PNG (and .npy) are written at the end
// through AtomicFile, and Ctrl-C before then leaves no file.
#include "app/modes/cmd_render.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <omp.h>

#include "app/modes/cmd_render_steps.h"
#include "app/modes/progress.h"
#include "app/modes/render_options.h"
#include "compute/fractal/colour/box_filter.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/deep/deep_perturbation.h"
#include "compute/fractal/view/view_record.h"
#include "compute/io/image_io.h"
#include "compute/scale/deep_multi_gpu.h"
#include "compute/system/cuda_start.h"
#include "compute/system/fault_injection.h"

namespace ms {

namespace {

// MemAvailable from /proc/meminfo, in bytes (0 when unknown).
double available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    double kib = 0;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024.0;
    return 0.0;
}

DeepNumberType number_type_for(Precision requested) {
    if (requested == Precision::DeepDouble) return DeepNumberType::Double;
    if (requested == Precision::DeepFloatExp) return DeepNumberType::FloatExp;
    return DeepNumberType::Auto;  // Auto: double deltas while they fit, FloatExp past that
}

Precision precision_ran(const DeepFrameStats& stats) {
    return stats.number_type == DeepNumberType::FloatExp ? Precision::DeepFloatExp : Precision::DeepDouble;
}

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Memory: escape counts and smooth values (16 bytes), RGBA (4), the .npy's floats (4) per
// sample, the layers' distance and float smooth values (8), and the PNG writer's copies of the
// output image (about 3x its RGBA). Returns "" or the sentence saying what does not fit.
std::string check_deep_memory(const RenderRequest& request, const View& view, const View& samples) {
    const double sample_count = double(samples.width) * double(samples.height);
    const double layers_bytes = colouring_is_plain(view.colouring) ? 0.0 : 8.0;
    const double needed = sample_count * ((request.raw_path.empty() ? 20.0 : 24.0) + layers_bytes) +
                          double(view.width) * view.height * 4.0 * 4;
    const double available = available_memory_bytes();
    const double usable = available > 0 ? 0.8 * available : 4096.0 * 1048576.0;
    if (sample_count > double(int64_t(1) << 30))
        return "a deep image can have at most 2^30 samples (got " + std::to_string(samples.width) + "x" +
               std::to_string(samples.height) + "); use a smaller --size or --supersample";
    if (needed > usable)
        return "the deep image needs " + std::to_string(int64_t(needed / 1048576.0) + 1) + " MiB of memory but only " +
               std::to_string(int64_t(usable / 1048576.0)) +
               " MiB are available (use a smaller --size or --supersample)";
    return {};
}

// The deep renderer's options: the number type asked for, what the colouring needs, and the
// progress. The reference orbit fills the first half of the bar, the pixels the second (the bar
// only moves forward; its text says which part is running).
DeepRenderOptions deep_render_options(const RenderRequest& request, const View& view, ProgressBar& progress) {
    DeepRenderOptions options;
    options.number_type = number_type_for(request.precision);
    deep_options_for_colouring(view.colouring, &options);
    options.reference_progress = [&progress](int64_t done, int64_t total) {
        progress.update(0.5 * double(done) / double(std::max<int64_t>(total, 1)),
                        "reference orbit: " + std::to_string(done) + " of " + std::to_string(total) + " iterations");
    };
    options.row_progress = [&progress](int done, int rows) {
        progress.update(0.5 + 0.5 * double(done) / rows,
                        "pixels: " + std::to_string(done) + " of " + std::to_string(rows) + " rows");
    };
    return options;
}

// A frame spread over devices with a plain colouring and one sample a pixel: each band is
// coloured on its device (band_rgba) or, with a .npy, by the worker that lands it on the host
// (band_done), and a thread of its own deflates and writes the rows
// from the top as they are ready (in PngStreamWriter's parts, so the file is write_png's byte for
// byte), while the devices render the rest. What is left after the last band is its colours and
// the PNG's last part.
class StreamedPng {
public:
    StreamedPng(const RenderRequest& request, const View& view, const PaletteTable& table, const std::string& metadata)
        : view_(view),
          table_(table),
          rgba_(new uint8_t[size_t(view.width) * size_t(view.height) * 4]),  // left unfilled: every row is coloured
          ready_(size_t(view.height), 0),
          writer_(request.png_path, view.width, view.height, metadata) {
        thread_ = std::thread([this] { write_loop(); });
    }
    ~StreamedPng() { stop(); }
    StreamedPng(const StreamedPng&) = delete;
    StreamedPng& operator=(const StreamedPng&) = delete;

    // DeepSpreadOptions::band_done: colours rows [first_row, first_row + rows) of the frame.
    void band_done(const DeepFrame& frame, int first_row, int rows) {
        const auto start = std::chrono::steady_clock::now();
        const int width = view_.width;
        for (int y = first_row; y < first_row + rows; ++y)
            colourize_deep(frame.mu.data() + size_t(y) * width, width, table_, view_.palette_density,
                           view_.palette_offset, rgba_.get() + size_t(y) * width * 4);
        rows_ready(first_row, rows, ms_since(start));
    }
    // DeepSpreadOptions::band_rgba: rows [first_row, first_row + rows), coloured on a device.
    void band_rgba(const uint8_t* rgba, int first_row, int rows) {
        const auto start = std::chrono::steady_clock::now();
        std::memcpy(rgba_.get() + size_t(first_row) * size_t(view_.width) * 4, rgba,
                    size_t(rows) * size_t(view_.width) * 4);
        rows_ready(first_row, rows, ms_since(start));
    }
    // Once every band has landed: the last rows, then the file is closed and renamed. Throws
    // what writing threw (a full disk).
    void finish() {
        thread_.join();
        if (error_) std::rethrow_exception(error_);
        writer_.finish();
    }
    double colour_ms() {
        std::lock_guard<std::mutex> lock(mutex_);
        return colour_ms_;
    }

private:
    void rows_ready(int first_row, int rows, double ms) {
        std::lock_guard<std::mutex> lock(mutex_);
        colour_ms_ += ms;
        std::fill(ready_.begin() + first_row, ready_.begin() + first_row + rows, 1);
        changed_.notify_all();
    }
    void write_loop() {
        try {
            const int height = view_.height, part = writer_.part_rows();
            int next = 0;  // the first row not yet written
            std::unique_lock<std::mutex> lock(mutex_);
            while (next < height) {
                // A whole part while at least two are left, else all the rest.
                const int want = height - next >= 2 * part ? part : height - next;
                changed_.wait(lock, [&] {
                    return stopping_ || std::all_of(ready_.begin() + next, ready_.begin() + next + want,
                                                    [](char r) { return r != 0; });
                });
                if (stopping_) return;
                lock.unlock();
                writer_.write_rows(rgba_.get() + size_t(next) * size_t(view_.width) * 4, want);
                next += want;
                lock.lock();
            }
        } catch (...) {
            error_ = std::current_exception();
        }
    }
    void stop() {
        if (!thread_.joinable()) return;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
            changed_.notify_all();
        }
        thread_.join();
    }

    const View& view_;
    const PaletteTable& table_;
    std::unique_ptr<uint8_t[]> rgba_;
    std::vector<char> ready_;  // by row
    PngStreamWriter writer_;   // unfinished on destruction: its temporary file goes
    std::mutex mutex_;
    std::condition_variable changed_;
    bool stopping_ = false;
    double colour_ms_ = 0.0;
    std::exception_ptr error_;
    std::thread thread_;
};

// The rendered frame and where the time went after it.
struct DeepRenderResult {
    DeepFrame frame;
    std::vector<DeepDeviceShare> shares;  // per device slot, when spread over devices (else empty)
    int bands = 0;
    Precision ran = Precision::DeepDouble;  // the number type the frame ran in
    double colour_ms = 0.0, write_ms = 0.0;
};

// Colours the frame, box-filters it when supersampling, and writes the .npy, the PNG and the
// .kfr location. Throws on a failure (a full disk). streamed: the PNG's rows were coloured and
// mostly written as the bands landed; this finishes it (colour_ms is then the workers' time
// colouring, beside the devices).
void colour_and_write(const RenderRequest& request, const View& view, const View& samples, const PaletteTable& table,
                      DeepRenderResult& r, StreamedPng* streamed) {
    const int k = request.supersample;
    const auto colour_start = std::chrono::steady_clock::now();
    std::vector<uint8_t> rgba;
    if (streamed) {
        r.colour_ms = streamed->colour_ms();
    } else {
        rgba.resize(size_t(samples.width) * size_t(samples.height) * 4);
        colour_deep_frame(r.frame, table, samples, 1.0 / k, rgba.data());
        r.colour_ms = ms_since(colour_start);
    }
    const auto write_start = std::chrono::steady_clock::now();
    std::vector<uint8_t> image;
    if (k > 1) {
        image.resize(size_t(view.width) * view.height * 4);
        box_filter_rgba(rgba.data(), samples.width, k, view.width, view.height, image.data());
    }
    if (!request.raw_path.empty()) {
        // float32 like the direct path's .npy; counts past 2^24 lose their fraction there.
        NpyStreamWriter npy(request.raw_path, samples.height, samples.width);
        std::vector<float> row(size_t(samples.width));
        for (int y = 0; y < samples.height; ++y) {
            for (int x = 0; x < samples.width; ++x) row[x] = float(r.frame.mu[size_t(y) * samples.width + x]);
            npy.write_rows(row.data(), 1);
        }
        npy.finish();
    }
    const ViewRecord record{view, r.ran, k};
    if (streamed) streamed->finish();
    else write_png(request.png_path, k > 1 ? image.data() : rgba.data(), view.width, view.height, view_to_json(record));
    if (!request.save_location.empty())
        if (std::string error = write_kfr(request.save_location.string(), deep_location(view)); !error.empty())
            throw std::runtime_error(error);
    r.write_ms = ms_since(write_start);
}

void print_deep_summary(const RenderRequest& request, const View& view, const View& samples,
                        const std::string& backend_text, const DeepRenderResult& r, double wall_ms) {
    const int k = request.supersample;
    const double sample_count = double(samples.width) * double(samples.height);
    const DeepFrameStats& s = r.frame.stats;
    std::printf("backend    %s\n", backend_text.c_str());
    std::printf("formula    %s", formula_name(view.formula));
    if (view.julia) std::printf(", Julia set of c = %s, %s", view.julia_re.c_str(), view.julia_im.c_str());
    std::printf("\n");
    std::printf("view       centre %s, %s  zoom %s  %dx%d", view.center_re.c_str(), view.center_im.c_str(),
                view.zoom.text().c_str(), view.width, view.height);
    if (k > 1) std::printf(" (%dx%d supersampling: %dx%d samples)", k, k, samples.width, samples.height);
    std::printf("  %lld iterations  palette %s\n", (long long)view.max_iterations, view.palette.c_str());
    if (!colouring_is_plain(view.colouring))
        std::printf("colouring  %s  interior %s\n", colouring_methods_text(view.colouring).c_str(),
                    interior_colour_name(view.colouring.interior));
    std::printf("precision  %s (perturbation with rebasing, %s deltas%s)\n", precision_name(r.ran),
                deep_number_type_name(s.number_type), s.bla_levels > 0 ? ", BLA" : "");
    std::printf("reference  %lld bits (%.0f digits), %lld iterations%s, %.1f ms%s\n", (long long)s.precision_bits,
                std::floor(double(s.precision_bits) * 0.30102999566398120), (long long)s.reference_iterations,
                s.reference_period > 0                         ? " (stopped at the period of a nucleus in view)"
                : s.reference_iterations < view.max_iterations ? " (escaped)"
                                                               : "",
                s.reference_ms, s.reference_cached ? " (cached)" : "");
    std::printf(
        "BLA        %d levels%s, built on the %s, %.1f ms%s; %.1f%% of the iterations skipped (%llu of %llu, "
        "in %llu skips)\n",
        s.bla_levels, deep_formula_bla_is_matrix(view.formula) ? " (2x2 matrices)" : "",
        s.bla_on_device ? "GPU" : "CPU", s.bla_ms, s.bla_cached ? " (cached)" : "",
        s.iterations ? 100.0 * double(s.bla_iterations) / double(s.iterations) : 0.0,
        (unsigned long long)s.bla_iterations, (unsigned long long)s.iterations, (unsigned long long)s.bla_skips);
    std::printf(
        "time       %.1f ms reference, %.1f ms BLA, %.1f ms pixels, %.1f ms colouring, %.1f ms writing, "
        "%.1f ms in all\n",
        s.reference_ms, s.bla_ms, s.pixels_ms, r.colour_ms, r.write_ms, wall_ms);
    std::printf(
        "speed      %.3g iterations/s in the pixel loop, BLA-skipped ones included (%llu perturbation steps, "
        "%llu rebases)\n",
        s.pixels_ms > 0 ? double(s.iterations) / (s.pixels_ms * 1e-3) : 0.0, (unsigned long long)s.perturbation_steps,
        (unsigned long long)s.rebases);
    // The work per pixel (per sample when supersampling): what the frame's time follows, on the
    // CPU and on CUDA alike (deep_bench_work breaks it down further).
    std::printf("work       per pixel: %.0f iterations, %.0f perturbation steps, %.0f BLA skips, %.2f rebases\n",
                double(s.iterations) / sample_count, double(s.perturbation_steps) / sample_count,
                double(s.bla_skips) / sample_count, double(s.rebases) / sample_count);
    if (!r.shares.empty()) {
        // Each slot's bands and rows, and its share of the iterations: how evenly the queue spread them.
        std::printf("devices    %d bands:", r.bands);
        for (size_t i = 0; i < r.shares.size(); ++i) {
            const DeepDeviceShare& d = r.shares[i];
            std::printf("%s device %d %d bands, %lld rows, %.1f%% of the iterations%s", i ? ";" : "", d.device,
                        d.bands, (long long)d.rows,
                        s.iterations ? 100.0 * double(d.iterations) / double(s.iterations) : 0.0,
                        d.failed ? " (failed)" : "");
        }
        std::printf("\n");
    }
    std::printf("output     %s\n", request.png_path.c_str());
    if (!request.raw_path.empty())
        std::printf("raw        %s (float32, %d x %d samples, interior = -1)\n", request.raw_path.c_str(),
                    samples.height, samples.width);
    if (!request.save_location.empty()) std::printf("location   %s\n", request.save_location.c_str());
}

}  // namespace

double write_deep_frame(const RenderRequest& request, const View& view, const View& samples,
                        const PaletteTable& table, DeepFrame& frame, Precision ran) {
    DeepRenderResult r;
    r.frame = std::move(frame);
    r.ran = ran;
    colour_and_write(request, view, samples, table, r, nullptr);
    frame = std::move(r.frame);
    return r.colour_ms;
}

int render_deep_request(const RenderRequest& request, RenderPlan plan) {
    const View& view = plan.view;
    const View& samples = plan.samples;
    if (std::string problem = deep_view_colouring_problem(view); !problem.empty()) return render_bad_input(problem);
    if (request.png_encoder == "cuda")
        return render_bad_input(
            "--png-encoder=cuda encodes frames of the direct kernels; the deep path's frames are encoded on the CPU");
    if (std::string problem = check_deep_memory(request, view, samples); !problem.empty())
        return render_bad_input(problem);
    const DeepLocation location = deep_location(samples);
    ProgressBar progress("render");
    DeepRenderOptions options = deep_render_options(request, view, progress);
    ReferenceCache cache;
    options.cache = &cache;
    const auto start = std::chrono::steady_clock::now();
    // The reference orbit starts now, on a thread of its own: the backend's and the devices'
    // checks below wait for the CUDA driver to start (a few hundred milliseconds a device), and
    // the frame then finds the orbit in `cache`. Its progress shows once the checks pass, so that
    // bad input gets its one sentence alone.
    std::atomic<bool> checked{false};
    ReferenceControl control = deep_reference_control(options);
    control.progress = [&checked, report = control.progress](int64_t done, int64_t total) {
        if (checked.load(std::memory_order_relaxed)) report(done, total);
    };
    auto prefetch = std::make_unique<ReferencePrefetch>(&cache, location, samples.width, samples.height, control);
    std::string problem = choose_backend(request, &plan);
    if (problem.empty()) problem = check_devices_visible(request);
    if (!problem.empty()) {
        prefetch.reset();  // cancelled
        return render_bad_input(problem);
    }
    progress.update(0.0, "reference orbit");
    checked.store(true, std::memory_order_relaxed);
    const bool cuda = plan.cuda;
    const std::string& backend_text = plan.backend_text;
    const PaletteTable& table = plan.table;
    std::shared_ptr<const ReferenceOrbit> prefetched;
    DeepRenderResult result;
    // The PNG written as the bands land (StreamedPng), when the frame is spread over devices.
    std::once_flag streamed_once;
    std::unique_ptr<StreamedPng> streamed;
    std::mutex streamed_error_mutex;
    std::exception_ptr streamed_error;
    try {
        // The bands engine (compute/scale/deep_multi_gpu.h) on the devices named, or on every
        // visible one for a large frame: on several, bands shared out over them; on one, where the
        // bands are coloured on the device, since the colours and the PNG then overlap the
        // kernels (a 16384x16384 poster on one H200: 8.4-8.9 s against 10.2-10.5 s for one kernel,
        // coloured and written after it). A smaller frame renders faster in one kernel: the
        // engine costs each band a launch and its copies, and each device its tables (on two
        // H200s, 1024x1024 frames took 100-150 ms longer spread).
        const bool colour_on_devices =
            colouring_is_plain(view.colouring) && request.supersample == 1 && request.raw_path.empty();
        std::vector<int> devices = request.devices;
        constexpr double kSpreadMinSamples = 16.0 * 1024 * 1024;
        if (cuda && devices.empty() && double(samples.width) * double(samples.height) >= kSpreadMinSamples)
            if (std::vector<int> visible = deep_visible_devices(); visible.size() > (colour_on_devices ? 0u : 1u))
                devices = visible;
        // The devices' contexts start while the orbit finishes.
        std::future<void> started;
        if (cuda && !devices.empty()) started = deep_start_devices(devices);
        prefetched = prefetch->wait();
        if (cuda && !devices.empty()) {
            DeepSpreadOptions spread;
            spread.devices = devices;
            // --band-rows: output rows a band (samples rows with supersampling); 0: from the size.
            if (request.band_rows > 0) spread.band_rows = request.band_rows * request.supersample;
            if (fault_injected(Fault::DeviceFail)) spread.fail_slot = int(devices.size()) - 1;
            // A plain colouring at one sample a pixel: the bands are coloured on their devices
            // and only their colours come back (without a .npy, which needs mu), and the rows are
            // written as the bands land. The PNG is opened with the first band: its metadata
            // names the number type, which the reference decides.
            auto open_streamed = [&](const DeepFrameStats& stats) {
                std::call_once(streamed_once, [&] {
                    const ViewRecord record{view, precision_ran(stats), 1};
                    streamed = std::make_unique<StreamedPng>(request, view, table, view_to_json(record));
                });
            };
            auto keep_error = [&] {
                std::lock_guard<std::mutex> lock(streamed_error_mutex);
                if (!streamed_error) streamed_error = std::current_exception();
            };
            if (colour_on_devices) {
                spread.colour_palette = &table;
                spread.colour_view = &view;
                spread.band_rgba = [&](const DeepFrame& frame, const uint8_t* rgba, int first_row, int rows) {
                    try {
                        open_streamed(frame.stats);
                        streamed->band_rgba(rgba, first_row, rows);
                    } catch (...) {
                        keep_error();
                    }
                };
            } else if (colouring_is_plain(view.colouring) && request.supersample == 1) {
                spread.band_done = [&](const DeepFrame& frame, int first_row, int rows) {
                    try {
                        open_streamed(frame.stats);
                        streamed->band_done(frame, first_row, rows);
                    } catch (...) {
                        keep_error();
                    }
                };
            }
            DeepSpreadFrame spread_frame = deep_multi_gpu(location, samples.width, samples.height, options, spread);
            if (streamed_error) std::rethrow_exception(streamed_error);
            if (spread_frame.failed_slots() > 0) {
                progress.clear();
                std::fprintf(stderr, "mandelscope render: %s.\n", spread_frame.failure_text().c_str());
            }
            result.frame = std::move(spread_frame.frame);
            result.shares = std::move(spread_frame.shares);
            result.bands = spread_frame.bands;
            // The devices' part is done: the PNG's last rows and the summary are the CPU's, and
            // the process ends after them. The contexts are released beside that work instead of
            // in the exit (cuda_start.h), once the tables and orbit copies on them are freed.
            if (streamed) {
                cache.clear();
                deep_cuda_free_device_copies();
                cuda_release_devices_in_background(devices);
            }
        } else {
            result.frame = cuda ? deep_cuda(location, samples.width, samples.height, options)
                                : deep_cpu(location, samples.width, samples.height, options);
        }
        result.ran = precision_ran(result.frame.stats);
        progress.update(1.0, "colouring and writing");
        colour_and_write(request, view, samples, table, result, streamed.get());
        progress.finish();
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "mandelscope render: ran out of memory while rendering; no file was written.\n");
        return 2;
    } catch (const std::exception& e) {
        std::string what = e.what();
        if (!what.empty() && what.back() == '.') what.pop_back();
        std::fprintf(stderr, "mandelscope render: %s; no file was written.\n", what.c_str());
        return 2;
    }
    // The orbit the frame found in the cache is the prefetch's, computed for this frame.
    DeepFrameStats& stats = result.frame.stats;
    if (prefetched && stats.reference_cached) {
        stats.reference_cached = false;
        stats.reference_ms = prefetched->compute_ms;
    }
    print_deep_summary(request, view, samples, backend_text, result, ms_since(start));
    return 0;
}

}  // namespace ms
