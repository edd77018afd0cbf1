// cpu_render_worker.cpp: progressive CPU rendering on a worker thread (see the header).
#include "render/frame/cpu_render_worker.h"

#include "compute/fractal/colouring_render.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "render/frame/view_math.h"
#include "render/frame/worker_requests.h"

namespace ms {

namespace {

constexpr int kCoarseBlock = 8;    // the coarse pass samples one pixel per 8x8 block
constexpr double kPreviewAfterMs = 100.0;  // frames expected to take less skip the coarse pass

// The coarse view: one pixel per block x block, on exactly the block centres of `view`'s
// grid. Its size is rounded up, so its centre moves by half the extra width/height.
View coarse_view(const View& view, int block) {
    View coarse = view;
    coarse.width = (view.width + block - 1) / block;
    coarse.height = (view.height + block - 1) / block;
    // Same pixel step times `block`: step = 4 / (zoom * height).
    coarse.zoom = view.zoom.value() * view.height / (double(block) * coarse.height);
    double step = pixel_step(view);
    glm::dvec2 shift{0.5 * (coarse.width * block - view.width) * step,
                     -0.5 * (coarse.height * block - view.height) * step};
    View moved = move_center(view, shift);
    coarse.center_re = moved.center_re;
    coarse.center_im = moved.center_im;
    return coarse;
}

// A frame with colouring layers (compute/fractal/colouring.h): histogram and slopes look at the
// whole frame, so it is computed whole (progress shown) and published at once.
bool render_coloured_whole(CpuRenderWorker& w, const View& view, Precision requested, const PaletteTable& palette,
                           uint64_t id) {
    const auto start = std::chrono::steady_clock::now();
    const Precision precision = resolve_precision(view, requested);
    CpuRenderControl control;
    control.cancel = &w.cancel;
    control.progress = [&](int done, int) {
        std::lock_guard lock(w.mutex);
        if (w.frame_id == id) w.rows_done = done;
    };
    const size_t pixels = size_t(view.width) * view.height;
    std::vector<float> mu(pixels);
    std::vector<uint8_t> rgba(pixels * 4);
    const FrameStats stats =
        render_coloured_cpu(view, precision, Shortcuts{}, palette, full_rect(view), 1.0, mu.data(), rgba.data(), control);
    if (stats.cancelled || w.cancel) return false;
    {
        std::lock_guard lock(w.mutex);
        if (w.cancel) return false;
        w.frame_id = id;
        w.frame_view = view;
        w.rgba = std::move(rgba);
        w.dirty_begin = 0;
        w.dirty_end = view.height;
        w.rows_done = view.height;
        w.complete = true;
        w.precision_used = precision;
        w.iterations = stats.iterations;
        w.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        w.full_pass_ms = stats.compute_ms;
        w.last_ms_per_pixel = w.compute_ms / std::max(1.0, double(pixels));
    }
    if (w.on_news) w.on_news();
    return true;
}

// Renders one request; returns false when cancelled.
bool render_progressively(CpuRenderWorker& w, const View& view, Precision requested, const PaletteTable& palette,
                          uint64_t id) {
    auto start = std::chrono::steady_clock::now();
    const Precision precision = resolve_direct_precision(view, requested);
    CpuRenderControl control;
    control.cancel = &w.cancel;
    const size_t width = size_t(view.width);

    // Coarse pass, replicated into the whole frame.
    std::vector<float> mu;
    std::vector<uint8_t> rgba;
    // The coarse pass is for frames slow enough that the window shows them before they are
    // done (it redraws every kProgressWaitSeconds, 0.25 s, while a frame computes). Judged by
    // the last full frame's time per pixel: a frame expected to finish sooner skips it.
    const double pixels = double(view.width) * view.height;
    const bool slow = w.last_ms_per_pixel <= 0.0 || w.last_ms_per_pixel * pixels >= kPreviewAfterMs;
    int block = pixels > 256 * 256 && slow ? kCoarseBlock : 1;
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

    // Full resolution: the whole frame in one call, exactly as `mandelscope render` computes it
    // (one parallel region, jobs of up to 16 rows handed out dynamically). Each job's rows are
    // coloured by the thread that computed them and published at once, so the frame appears
    // top to bottom while every core keeps computing. (Bands of rows, one call each, left the
    // cores waiting at every band's end while one thread coloured the band, and cut the jobs
    // to one row, which packs the SIMD lanes' survivors badly.)
    //
    // The frame's buffers: kept while the size stays (a drag or a zoom reuses them, with no
    // allocation and no zero-filling on the worker's thread before the cores start), replaced
    // by buffers of exactly the new size when it changes, so memory follows the window's size
    // and never keeps the largest seen (the soak test's resize actions).
    const size_t frame_pixels = width * view.height;
    if (w.scratch_pixels != frame_pixels) {
        w.scratch_mu.reset();
        w.scratch_rgba.reset();
        w.scratch_mu.reset(new float[frame_pixels]);  // uninitialised: every pixel is written
        w.scratch_rgba.reset(new uint8_t[frame_pixels * 4]);
        w.scratch_pixels = frame_pixels;
    }
    float* const mu_full = w.scratch_mu.get();
    uint8_t* const rgba_full = w.scratch_rgba.get();
    std::atomic<int> rows_finished{0};
    control.rows_finished = [&](int first_row, int rows) {
        const size_t offset = size_t(first_row) * width;
        colorize(mu_full + offset, int64_t(width * rows), palette, view, rgba_full + offset * 4);
        const int finished = rows_finished.fetch_add(rows) + rows;
        std::lock_guard lock(w.mutex);
        if (w.cancel) return;
        if (w.frame_id != id) {  // no coarse pass (small or fast frame): start the frame here
            w.frame_id = id;
            w.frame_view = view;
            // Rows not computed yet keep the previous frame's colours (black for a new size).
            if (w.rgba.size() != width * view.height * 4) w.rgba.assign(width * view.height * 4, 0);
            w.dirty_begin = w.dirty_end = first_row;
            w.rows_done = 0;
            w.complete = false;
        }
        std::memcpy(w.rgba.data() + offset * 4, rgba_full + offset * 4, width * rows * 4);
        w.dirty_begin = w.dirty_end > w.dirty_begin ? std::min(w.dirty_begin, first_row) : first_row;
        w.dirty_end = std::max(w.dirty_end, first_row + rows);
        w.rows_done = std::max(w.rows_done, finished);
    };
    const FrameStats stats = mandelbrot_cpu(view, precision, Shortcuts{}, full_rect(view), mu_full, control);
    if (stats.cancelled || w.cancel) return false;
    {
        std::lock_guard lock(w.mutex);
        if (w.cancel) return false;
        w.complete = true;
        w.precision_used = precision;
        w.iterations = stats.iterations;
        w.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        w.full_pass_ms = stats.compute_ms;
        w.last_ms_per_pixel = w.compute_ms / std::max(1.0, pixels);
    }
    if (w.on_news) w.on_news();
    return true;
}

void worker_main(CpuRenderWorker* w) {
    serve_worker_requests(
        *w, [](const WorkerRequest&) {},
        [w](const WorkerRequest& r) {
            if (colouring_is_plain(r.view.colouring)) render_progressively(*w, r.view, r.precision, r.palette, r.id);
            else render_coloured_whole(*w, r.view, r.precision, r.palette, r.id);
        });
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
    status.full_pass_ms = worker.full_pass_ms;
    status.iterations = worker.iterations;
    status.precision_used = worker.precision_used;
    return status;
}

void stop_cpu_render_worker(CpuRenderWorker& worker) { stop_worker_thread(worker); }

CpuRenderWorker::~CpuRenderWorker() { stop_worker_thread(*this); }

}  // namespace ms
