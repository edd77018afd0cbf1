// compare_worker.cpp: Compare's job on its own thread: CUDA, then the CPU, then the agreement
// check (see compare_worker.h).
#include "render/perf/compare_worker.h"

#include <exception>
#include <vector>

#include "compute/fractal/frame_compare.h"
#include "compute/fractal/palette.h"
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

void run_job(CompareWorker& w, const View& view, Precision precision, const PaletteTable& palette, uint64_t id) {
    const size_t pixels = size_t(view.width) * size_t(view.height);
    std::vector<float> cuda_mu(pixels), cpu_mu(pixels);
    // 1. CUDA: milliseconds, and smooth values to compare (no RGBA: the window's palette is
    // passed only because the launcher keeps one on the device).
    try {
        FrameStats gpu = mandelbrot_cuda_to_host(view, precision, Shortcuts{}, palette, full_rect(view), nullptr,
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
    // mandelbrot_cpu polls the cancel flag between its jobs of a few rows.
    CpuRenderControl control;
    control.cancel = &w.cancel;
    control.progress = [&w](int rows_done, int) {  // from the OpenMP threads, in any order
        int seen = w.cpu_rows_done.load();
        while (seen < rows_done && !w.cpu_rows_done.compare_exchange_weak(seen, rows_done)) {}
    };
    w.cpu_rows_done = 0;
    const FrameStats cpu = mandelbrot_cpu(view, precision, Shortcuts{}, full_rect(view), cpu_mu.data(), control);
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
        [w](const WorkerRequest& r) { run_job(*w, r.view, r.precision, r.palette, r.id); });
}

}  // namespace

void start_compare_worker(CompareWorker& worker) { worker.thread = std::thread(worker_main, &worker); }

uint64_t request_compare(CompareWorker& worker, const View& view, Precision precision, const PaletteTable& palette) {
    std::lock_guard lock(worker.mutex);
    worker.cancel = true;
    worker.has_request = true;
    worker.request_view = view;
    worker.request_precision = resolve_direct_precision(view, precision);
    worker.request_palette = palette;
    ++worker.request_id;
    worker.wake.notify_one();
    return worker.request_id;
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
