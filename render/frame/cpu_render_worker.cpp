// cpu_render_worker.cpp: progressive CPU rendering on a worker thread (see the header).
#include "render/frame/cpu_render_worker.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "render/frame/view_math.h"
#include "render/frame/worker_requests.h"

namespace ms {

namespace {

constexpr int kCoarseBlock = 8;    // the coarse pass samples one pixel per 8x8 block
constexpr int kBandsPerFrame = 32; // the full pass is shown in about this many bands

// The coarse view: one pixel per block x block, on exactly the block centres of `view`'s
// grid. Its size is rounded up, so its centre moves by half the extra width/height.
View coarse_view(const View& view, int block) {
    View coarse = view;
    coarse.width = (view.width + block - 1) / block;
    coarse.height = (view.height + block - 1) / block;
    // Same pixel step times `block`: step = 4 / (zoom * height).
    coarse.zoom = view.zoom * view.height / (double(block) * coarse.height);
    double step = pixel_step(view);
    glm::dvec2 shift{0.5 * (coarse.width * block - view.width) * step,
                     -0.5 * (coarse.height * block - view.height) * step};
    View moved = move_center(view, shift);
    coarse.center_re = moved.center_re;
    coarse.center_im = moved.center_im;
    return coarse;
}

// Renders one request; returns false when cancelled.
bool render_progressively(CpuRenderWorker& w, const View& view, Precision requested, const PaletteTable& palette,
                          uint64_t id) {
    auto start = std::chrono::steady_clock::now();
    const Precision precision = resolve_precision(view, requested);
    CpuRenderControl control;
    control.cancel = &w.cancel;
    const size_t width = size_t(view.width);

    // Coarse pass, replicated into the whole frame.
    std::vector<float> mu;
    std::vector<uint8_t> rgba;
    int block = view.width * view.height > 256 * 256 ? kCoarseBlock : 1;
    if (block > 1) {
        View coarse = coarse_view(view, block);
        mu.resize(size_t(coarse.width) * coarse.height);
        mandelbrot_cpu(coarse, precision, Shortcuts{}, full_rect(coarse), mu.data(), control);
        if (w.cancel) return false;
        rgba.resize(mu.size() * 4);
        colorize(mu.data(), int64_t(mu.size()), palette, view, rgba.data());
        std::lock_guard lock(w.mutex);
        if (w.cancel) return false;
        w.frame_id = id;
        w.frame_view = view;
        w.rgba.resize(width * view.height * 4);
        for (int y = 0; y < view.height; ++y) {
            const uint32_t* src = reinterpret_cast<const uint32_t*>(rgba.data()) + size_t(y / block) * coarse.width;
            uint32_t* dst = reinterpret_cast<uint32_t*>(w.rgba.data()) + size_t(y) * width;
            for (int x = 0; x < view.width; ++x) dst[x] = src[x / block];
        }
        w.dirty_begin = 0;
        w.dirty_end = view.height;
        w.rows_done = 0;
        w.complete = false;
    }

    // Full resolution, band by band.
    const int band_rows = std::max(4, view.height / kBandsPerFrame);
    uint64_t iterations = 0;
    mu.resize(width * band_rows);
    rgba.resize(mu.size() * 4);
    for (int y0 = 0; y0 < view.height; y0 += band_rows) {
        int rows = std::min(band_rows, view.height - y0);
        iterations += mandelbrot_cpu(view, precision, Shortcuts{}, {0, y0, view.width, rows}, mu.data(), control).iterations;
        if (w.cancel) return false;
        colorize(mu.data(), int64_t(width * rows), palette, view, rgba.data());
        std::lock_guard lock(w.mutex);
        if (w.cancel) return false;
        if (w.frame_id != id) {  // no coarse pass (small frame): start the frame here
            w.frame_id = id;
            w.frame_view = view;
            w.rgba.assign(width * view.height * 4, 0);
            w.dirty_begin = w.dirty_end = y0;
            w.complete = false;
        }
        std::memcpy(w.rgba.data() + size_t(y0) * width * 4, rgba.data(), width * rows * 4);
        w.dirty_begin = w.dirty_end > w.dirty_begin ? std::min(w.dirty_begin, y0) : y0;
        w.dirty_end = std::max(w.dirty_end, y0 + rows);
        w.rows_done = y0 + rows;
    }
    std::lock_guard lock(w.mutex);
    w.complete = true;
    w.precision_used = precision;
    w.iterations = iterations;
    w.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return true;
}

void worker_main(CpuRenderWorker* w) {
    serve_worker_requests(
        *w, [](const WorkerRequest&) {},
        [w](const WorkerRequest& r) { render_progressively(*w, r.view, r.precision, r.palette, r.id); });
}

}  // namespace

void start_cpu_render_worker(CpuRenderWorker& worker) { worker.thread = std::thread(worker_main, &worker); }

uint64_t request_cpu_render(CpuRenderWorker& worker, const View& view, Precision precision,
                            const PaletteTable& palette) {
    std::lock_guard lock(worker.mutex);
    worker.cancel = true;
    worker.has_request = true;
    worker.request_view = view;
    worker.request_precision = precision;
    worker.request_palette = palette;
    ++worker.request_id;
    worker.wake.notify_one();
    return worker.request_id;
}

CpuRenderStatus take_cpu_render_rows(CpuRenderWorker& worker, const CpuRowsUpload& upload) {
    std::lock_guard lock(worker.mutex);
    CpuRenderStatus status;
    status.frame_id = worker.frame_id;
    if (worker.frame_id == 0) return status;
    if (worker.dirty_end > worker.dirty_begin) {
        upload(worker.frame_view, worker.rgba.data(), worker.dirty_begin, worker.dirty_end - worker.dirty_begin);
        worker.dirty_begin = worker.dirty_end = 0;
    }
    status.complete = worker.complete;
    status.progress = worker.frame_view.height > 0 ? double(worker.rows_done) / worker.frame_view.height : 0.0;
    status.compute_ms = worker.compute_ms;
    status.iterations = worker.iterations;
    status.precision_used = worker.precision_used;
    return status;
}

void stop_cpu_render_worker(CpuRenderWorker& worker) { stop_worker_thread(worker); }

}  // namespace ms
