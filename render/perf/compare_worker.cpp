// compare_worker.cpp: Compare's job on its own thread: CUDA, then the CPU, then the agreement
// check (see compare_worker.h).
#include "render/perf/compare_worker.h"

#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/direct/frame_compare.h"
#include "compute/fractal/colour/palette.h"
#include "render/frame/worker_requests.h"

namespace ms {

namespace {

// Publishes `update` into the shared status if the job is still the current one.
template <typename Update>
bool publish(CompareWorker& w, uint64_t id, Update update) {
    std::lock_guard lock(w.mutex);
    if (w.status.id != id || w.cancel) return false;
    update(w.status);
    return true;
}

// Deep frames: identical escape counts (int64) and, where they agree, smooth values within
// the thresholds, in double (mu reaches millions, past a float's fraction).
FrameAgreement compare_deep_frames(const DeepFrame& a, const DeepFrame& b) {
    const FrameAgreementThresholds limits;
    FrameAgreement out;
    out.pixels = a.escape_count.size();
    for (size_t i = 0; i < out.pixels; ++i) {
        const int x = int(i % size_t(a.width)), y = int(i / size_t(a.width));
        if (a.escape_count[i] != b.escape_count[i]) {
            if (out.first_difference_x < 0) out.first_difference_x = x, out.first_difference_y = y;
            continue;
        }
        ++out.identical_counts;
        const double d = std::fabs(a.mu[i] - b.mu[i]);
        if (d > out.max_mu_difference) {
            out.max_mu_difference = d;
            out.largest_mu_difference_x = x;
            out.largest_mu_difference_y = y;
        }
    }
    out.identical_fraction = out.pixels ? double(out.identical_counts) / double(out.pixels) : 1.0;
    out.agree = out.identical_fraction >= limits.min_identical_fraction &&
                out.max_mu_difference <= limits.max_mu_difference;
    char sentence[256];
    std::snprintf(sentence, sizeof sentence,
                  "The deep frames %s: %.2f%% of escape counts are identical (at least %.1f%% needed), smooth values "
                  "differ by at most %.2g where they are.",
                  out.agree ? "agree" : "differ", 100.0 * out.identical_fraction, 100.0 * limits.min_identical_fraction,
                  out.max_mu_difference);
    out.sentence = sentence;
    return out;
}

// Past FP64: the deep CUDA path against the deep CPU path, with one reference orbit computed
// first and used by both (each time is its frame with the reference cached: BLA build, pixels,
// copies), so the speedup is the frames' and not the MPFR orbit's, which is the same code on
// the CPU for both.
void run_deep_job(CompareWorker& w, const View& view, Precision precision, uint64_t id) {
    const DeepLocation location = deep_location(view);
    DeepRenderOptions options;
    options.cache = &w.cache;
    options.cancel = &w.cancel;
    options.number_type = precision == Precision::DeepFloatExp ? DeepNumberType::FloatExp : DeepNumberType::Double;
    bool cached = false;
    if (!reference_for(&w.cache, location, view.width, view.height, {&w.cancel, nullptr}, &cached)) return;
    DeepFrame gpu;
    try {
        DeepRenderOptions on_stream = options;
        on_stream.cuda_stream = w.cuda_stream.get();  // the worker's own stream
        gpu = deep_cuda(location, view.width, view.height, on_stream);
        if (gpu.stats.cancelled) return;
        if (!publish(w, id, [&](CompareStatus& s) {
                s.cuda_done = true;
                s.cuda_ms = gpu.stats.frame_ms;
                s.cuda_iterations = gpu.stats.iterations;
                s.cuda_skipped = gpu.stats.bla_iterations;
            }))
            return;
    } catch (const std::exception& e) {
        publish(w, id, [&](CompareStatus& s) {
            s.error = std::string("CUDA failed: ") + e.what();
            s.finished = true;
            s.running = false;
        });
        return;
    }
    w.cpu_rows_done = 0;
    options.row_progress = [&w](int rows_done, int) {
        int seen = w.cpu_rows_done.load();
        while (seen < rows_done && !w.cpu_rows_done.compare_exchange_weak(seen, rows_done)) {
        }
    };
    const DeepFrame cpu = deep_cpu(location, view.width, view.height, options);
    if (cpu.stats.cancelled || w.cancel) return;
    if (!publish(w, id, [&](CompareStatus& s) {
            s.cpu_done = true;
            s.cpu_ms = cpu.stats.frame_ms;
            s.cpu_iterations = cpu.stats.iterations;
            s.cpu_skipped = cpu.stats.bla_iterations;
        }))
        return;
    const FrameAgreement agreement = compare_deep_frames(cpu, gpu);
    publish(w, id, [&](CompareStatus& s) {
        s.agreement = agreement.identical_fraction;
        s.agree = agreement.agree;
        s.disagreement = agreement.sentence;
        s.finished = true;
        s.running = false;
    });
}

void run_job(CompareWorker& w, const View& view, Precision precision, const PaletteTable& palette, uint64_t id) {
    if (is_deep(precision)) {
        try {
            run_deep_job(w, view, precision, id);
        } catch (const std::exception& e) {  // a reference that does not fit in memory
            publish(w, id, [&](CompareStatus& s) {
                s.error = e.what();
                s.finished = true;
                s.running = false;
            });
        }
        return;
    }
    const size_t pixels = size_t(view.width) * size_t(view.height);
    std::vector<float> cuda_mu(pixels), cpu_mu(pixels);
    // 1. CUDA: milliseconds, and smooth values to compare (no RGBA: the window's palette is
    // passed only because the launcher keeps one on the device).
    try {
        FrameStats gpu = direct_cuda_to_host(view, precision, Shortcuts{}, palette, full_rect(view), nullptr,
                                             cuda_mu.data());
        if (!publish(w, id, [&](CompareStatus& s) {
                s.cuda_done = true;
                s.cuda_ms = gpu.compute_ms;
                s.cuda_iterations = gpu.iterations;
            }))
            return;
    } catch (const std::exception& e) {
        publish(w, id, [&](CompareStatus& s) {
            s.error = std::string("CUDA failed: ") + e.what();
            s.finished = true;
            s.running = false;
        });
        return;
    }
    // 2. The CPU's fast path over the whole frame in one call, as `mandelscope bench` times it
    // (bands of rows would leave cores idle at the end of every band and flatter CUDA).
    // direct_cpu polls the cancel flag between its jobs of a few rows.
    CpuRenderControl control;
    control.cancel = &w.cancel;
    control.progress = [&w](int rows_done, int) {  // from the OpenMP threads, in any order
        int seen = w.cpu_rows_done.load();
        while (seen < rows_done && !w.cpu_rows_done.compare_exchange_weak(seen, rows_done)) {
        }
    };
    w.cpu_rows_done = 0;
    const FrameStats cpu = direct_cpu(view, precision, Shortcuts{}, full_rect(view), cpu_mu.data(), control);
    if (cpu.cancelled || w.cancel) return;
    if (!publish(w, id, [&](CompareStatus& s) {
            s.cpu_done = true;
            s.cpu_ms = cpu.compute_ms;  // wall time of the whole frame
            s.cpu_iterations = cpu.iterations;
        }))
        return;
    // 3. Do they agree?
    const FrameAgreement agreement = compare_mu_frames(cpu_mu.data(), cuda_mu.data(), view.width, view.height);
    publish(w, id, [&](CompareStatus& s) {
        s.agreement = agreement.identical_fraction;
        s.agree = agreement.agree;
        s.disagreement = agreement.sentence;
        s.finished = true;
        s.running = false;
    });
}

void worker_main(CompareWorker* w) {
    serve_worker_requests(
        *w,
        [w](const WorkerRequest& r) {
            w->cpu_rows_done = 0;
            w->status = CompareStatus{};
            w->status.id = r.id;
            w->status.view = r.view;
            w->status.precision = r.precision;
            w->status.running = true;
        },
        [w](const WorkerRequest& r) { run_job(*w, r.view, r.precision, r.palette, r.id); },
        // SCHED_IDLE (the window's): the UI thread and the X server take a core the moment they need
        // one (under SCHED_BATCH, with every core computing, the UI's frames would wait for time
        // slices and the window would stutter); they need little, so the CPU frame, whose time is
        // Compare's figure, loses little on a quiet machine.
        w->policy);
}

}  // namespace

void start_compare_worker(CompareWorker& worker) { worker.thread = std::thread(worker_main, &worker); }

uint64_t request_compare(CompareWorker& worker, const View& view, Precision precision, const PaletteTable& palette) {
    return post_worker_request(worker, view, resolve_precision(view, precision), palette);
}

void cancel_compare(CompareWorker& worker) {
    std::lock_guard lock(worker.mutex);
    worker.cancel = true;
    worker.has_request = false;
    if (worker.status.running) {
        worker.status.running = false;
        worker.status.cancelled = true;
    }
}

CompareStatus poll_compare(CompareWorker& worker) {
    std::lock_guard lock(worker.mutex);
    CompareStatus status = worker.status;
    if (status.running && !status.cpu_done && status.view.height > 0)
        status.cpu_progress = double(worker.cpu_rows_done) / status.view.height;
    return status;
}

void stop_compare_worker(CompareWorker& worker) { stop_worker_thread(worker); }

CompareWorker::~CompareWorker() { stop_worker_thread(*this); }

}  // namespace ms
