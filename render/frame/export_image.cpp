// export_image.cpp: tiled, supersampled PNG export (see export_image.h).
#include "render/frame/export_image.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "compute/fractal/colour/box_filter.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "render/frame/png_stream.h"

namespace ms {

std::string validate_export_settings(const ExportSettings& s) {
    if (s.path.empty()) return "choose a file name for the PNG";
    if (s.width < 1 || s.height < 1 || s.width > kMaxExportSide || s.height > kMaxExportSide)
        return "the export size must be between 1x1 and " + std::to_string(kMaxExportSide) + "x" +
               std::to_string(kMaxExportSide) + " pixels";
    if (s.supersample < 1 || s.supersample > 4) return "supersampling goes from 1x1 to 4x4";
    return {};
}

ExportResult export_view_png(const View& view, const PaletteTable& palette, const ExportSettings& s,
                             const std::atomic<bool>* cancel, const std::function<void(double)>& progress) {
    ExportResult result;
    result.message = validate_export_settings(s);
    if (!result.message.empty()) return result;
    // The image's own view, and the finer grid of its samples: same centre and zoom (the zoom
    // is relative to the height, so the extent is the same), ss times the pixels each way.
    View image = view;
    image.width = s.width;
    image.height = s.height;
    const int ss = s.supersample;
    View samples = image;
    samples.width = s.width * ss;
    samples.height = s.height * ss;

    // Rows per strip: as many output rows as fit kExportStripSamples samples, and at most a
    // hundredth of the image, so the progress bar moves and Cancel answers quickly.
    const long samples_per_row = long(samples.width) * ss;
    int strip_rows = int(
        std::clamp<long>(std::min<long>(kExportStripSamples / samples_per_row, (s.height + 99) / 100), 1, s.height));
    // Histogram and slopes colour the image as one frame (compute/fractal/direct/coloured_frame.h):
    // one strip, where its samples fit (12 bytes each, with the features).
    const bool plain = colouring_is_plain(view.colouring);
    if (view.colouring.base == ColourBase::Histogram || view.colouring.slopes) {
        if (double(samples.width) * samples.height > double(kExportWholeFrameSamples)) {
            result.message = "the " + colouring_methods_text(view.colouring) +
                             " colouring looks at the whole image, "
                             "which must fit in one frame of " +
                             std::to_string(kExportWholeFrameSamples / 1000000) +
                             " million samples: choose a smaller size or less supersampling";
            return result;
        }
        strip_rows = s.height;
    }
    std::vector<float> mu;
    std::vector<uint8_t> sample_rgba(size_t(samples_per_row) * strip_rows * 4);
    bool use_cuda = s.backend == Backend::Cuda && cuda_available(nullptr);
    std::string cuda_note;
    CpuRenderControl control;
    control.cancel = cancel;

    // Past FP64 the deep path renders the whole sample grid first (its frames are whole:
    // one reference, one BLA table), 0..90% of the progress; the strips below then only filter
    // and write it.
    // Every formula and Julia set has the deep path (deep_location carries them).
    const bool deep = is_deep(resolve_precision(samples, s.precision));
    if (deep) {
        result.message = deep_view_colouring_problem(view);
        if (!result.message.empty()) return result;
    }
    std::vector<uint8_t> deep_rgba;
    if (deep) {
        DeepRenderOptions options;
        options.cancel = cancel;
        options.number_type = s.precision == Precision::DeepDouble     ? DeepNumberType::Double
                              : s.precision == Precision::DeepFloatExp ? DeepNumberType::FloatExp
                                                                       : DeepNumberType::Auto;
        deep_options_for_colouring(view.colouring, &options);
        options.row_progress = [&](int rows_done, int rows) {
            if (progress) progress(0.9 * rows_done / rows);
        };
        DeepFrame frame;
        if (use_cuda) {
            try {
                frame = deep_cuda(deep_location(samples), samples.width, samples.height, options);
            } catch (const std::runtime_error& e) {
                use_cuda = false;
                cuda_note = std::string(" (CUDA failed: ") + e.what() + "; the CPU rendered it)";
            }
        }
        if (!use_cuda) frame = deep_cpu(deep_location(samples), samples.width, samples.height, options);
        if (frame.stats.cancelled || (cancel && *cancel)) {
            result.cancelled = true;
            result.message = "export cancelled; nothing was written";
            return result;
        }
        deep_rgba.resize(frame.mu.size() * 4);
        colour_deep_frame(frame, palette, samples, 1.0 / ss, deep_rgba.data());
    }

    auto render_samples = [&](PixelRect rect) {
        if (deep) {
            std::memcpy(sample_rgba.data(), deep_rgba.data() + size_t(rect.y) * samples.width * 4,
                        size_t(rect.width) * rect.height * 4);
            return true;
        }
        if (use_cuda) {
            try {
                if (plain)
                    direct_cuda_to_host(samples, s.precision, Shortcuts{}, palette, rect, sample_rgba.data(), nullptr);
                else
                    render_coloured_cuda_to_host(samples, s.precision, Shortcuts{}, palette, rect, 1.0 / ss,
                                                 sample_rgba.data(), nullptr);
                return true;
            } catch (const std::exception& e) {
                use_cuda = false;  // carry on with the CPU, and say so at the end
                cuda_note = std::string(" (CUDA failed: ") + e.what() + "; the CPU rendered it)";
            }
        }
        mu.resize(size_t(rect.width) * rect.height);
        if (!plain) {
            const FrameStats stats = render_coloured_cpu(samples, resolve_direct_precision(samples, s.precision),
                                                         Shortcuts{}, palette, rect, 1.0 / ss, mu.data(),
                                                         sample_rgba.data(), control);
            return !stats.cancelled && !(cancel && *cancel);
        }
        // The precision the whole sample grid needs, not what a strip alone would pick.
        direct_cpu(samples, resolve_direct_precision(samples, s.precision), Shortcuts{}, rect, mu.data(), control);
        if (cancel && *cancel) return false;
        colourize(mu.data(), int64_t(mu.size()), palette, samples, sample_rgba.data());
        return true;
    };

    PngWriteResult written = write_png_streamed(
        s.path, s.width, s.height, image, strip_rows, [&](int first_row, int rows, uint8_t* rgba, std::string*) {
            PixelRect rect{0, first_row * ss, samples.width, rows * ss};
            if (!render_samples(rect)) return false;  // cancelled
            box_filter_rgba(sample_rgba.data(), samples.width, ss, s.width, rows, rgba);
            if (progress)
                progress((deep ? 0.9 + 0.1 * (first_row + rows) / s.height : double(first_row + rows) / s.height));
            return !(cancel && *cancel);
        });
    result.ok = written.ok;
    result.cancelled = written.cancelled;
    if (written.ok)
        result.message = "exported " + std::to_string(s.width) + "x" + std::to_string(s.height) +
                         (ss > 1 ? " (" + std::to_string(ss) + "x" + std::to_string(ss) + " supersampled)" : "") +
                         " to " + s.path.string() + cuda_note;
    else if (written.cancelled) result.message = "export cancelled; nothing was written";
    else result.message = written.error;
    return result;
}

namespace {

// The export thread: waits for a request, renders and writes it, says it is finished; until quit.
void serve_exports(ExportJob& job) {
    // Below the window's CPU renders: the picture on screen stays lively while exporting.
    setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), 10);
    for (;;) {
        View view;
        PaletteTable palette;
        ExportSettings settings;
        {
            std::unique_lock lock(job.mutex);
            job.wake.wait(lock, [&job] { return job.quit || job.has_request; });
            if (job.quit) return;
            view = job.request_view;
            palette = job.request_palette;
            settings = job.request_settings;
            job.has_request = false;
        }
        job.result = export_view_png(view, palette, settings, &job.cancel, [&job](double p) { job.progress = p; });
        // This thread's OpenMP team keeps the CPU kernel's scratch, sized to this export's strips,
        // until the next export: give it back now, so the window does not hold an export's memory
        // between exports (with one scratch per core it grows with the core count).
        release_cpu_render_scratch();
        job.finished = true;
    }
}

}  // namespace

void start_export_job(ExportJob& job, const View& view, const PaletteTable& palette, const ExportSettings& settings) {
    if (job.running) {  // one export at a time: the one under way is cancelled and waited for
        job.cancel = true;
        while (!job.finished) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!job.thread.joinable()) {  // the first export (or the first after a stop)
        job.quit = false;
        job.thread = std::thread(serve_exports, std::ref(job));
    }
    std::lock_guard lock(job.mutex);
    job.request_view = view;
    job.request_palette = palette;
    job.request_settings = settings;
    job.has_request = true;
    job.cancel = false;
    job.finished = false;
    job.progress = 0.0;
    job.running = true;
    job.wake.notify_one();
}

bool poll_export_job(ExportJob& job, ExportResult* result) {
    if (!job.running || !job.finished) return false;
    job.running = false;
    *result = job.result;
    return true;
}

void cancel_export_job(ExportJob& job) { job.cancel = true; }

ExportJob::~ExportJob() { stop_export_job(*this); }

void stop_export_job(ExportJob& job) {
    if (!job.thread.joinable()) return;
    {
        std::lock_guard lock(job.mutex);
        job.quit = true;
        job.cancel = true;
        job.wake.notify_one();
    }
    job.thread.join();
    job.running = false;
}

}  // namespace ms
