// cpu_render_worker.cpp: progressive CPU rendering on a worker thread (see the header).
#include "render/frame/cpu_render_worker.h"

#include "compute/fractal/direct/coloured_frame.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "render/frame/view_math.h"
#include "render/frame/worker_requests.h"

namespace ms {

namespace {

constexpr int kCoarseBlock = 8;            // the coarse pass samples one pixel per 8x8 block
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

// Starts frame `id` of `view`: from here the UI reads none of rgba's rows until they are
// marked finished again. The buffer is kept while the size stays (a drag or a zoom reuses it,
// with no allocation before the cores start) and replaced by one of exactly the new size when
// it changes, so memory follows the window's size and never keeps the largest seen (the soak
// test's resize actions). Returns false when the request went stale meanwhile.
bool begin_frame(CpuRenderWorker& w, uint64_t id, const View& view) {
    std::lock_guard lock(w.mutex);
    if (w.cancel) return false;
    w.frame_id = id;
    w.frame_view = view;
    const size_t bytes = size_t(view.width) * view.height * 4;
    if (w.rgba.size() != bytes) std::vector<uint8_t>(bytes).swap(w.rgba);
    reset_finished_rows(w.rows, view.height);
    w.coarse_fresh = false;
    w.rows_done.store(0, std::memory_order_relaxed);
    w.complete = false;
    return true;
}

// Ends the frame: its figures (the precision the kernels ran among them), and news for the UI.
// False when it went stale meanwhile.
bool end_frame(CpuRenderWorker& w, const FrameStats& stats, std::chrono::steady_clock::time_point start) {
    const double pixels = double(w.frame_view.width) * w.frame_view.height;
    {
        std::lock_guard lock(w.mutex);
        if (w.cancel) return false;
        w.complete = true;
        w.precision_used = stats.precision;
        w.iterations = stats.iterations;
        w.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        w.full_pass_ms = stats.compute_ms;
        w.last_ms_per_pixel = w.compute_ms / std::max(1.0, pixels);
    }
    if (w.on_news) w.on_news();
    return true;
}

// The worker's smooth values for a frame of `pixels` (kept between frames of one size).
float* scratch_mu(CpuRenderWorker& w, size_t pixels) {
    if (w.scratch_pixels != pixels) {
        w.scratch_mu.reset();
        w.scratch_mu.reset(new float[pixels]);  // uninitialised: every pixel is written
        w.scratch_pixels = pixels;
    }
    return w.scratch_mu.get();
}

// A frame with colouring layers (compute/fractal/view/colouring.h): histogram and slopes look at the
// whole frame, so it is computed whole (progress shown) and its rows are marked at once.
bool render_coloured_whole(CpuRenderWorker& w, const View& view, Precision requested, const PaletteTable& palette,
                           uint64_t id) {
    const auto start = std::chrono::steady_clock::now();
    if (!begin_frame(w, id, view)) return false;
    CpuRenderControl control;
    control.cancel = &w.cancel;
    control.progress = [&](int done, int) { w.rows_done.store(done, std::memory_order_relaxed); };
    const FrameStats stats = render_coloured_cpu(view, requested, Shortcuts{}, palette, full_rect(view), 1.0,
                                                 scratch_mu(w, size_t(view.width) * view.height), w.rgba.data(),
                                                 control);
    if (stats.cancelled || w.cancel) return false;
    mark_finished_rows(w.rows, 0, view.height);
    w.rows_done.store(view.height, std::memory_order_relaxed);
    return end_frame(w, stats, start);
}

// Renders one request; returns false when cancelled.
bool render_progressively(CpuRenderWorker& w, const View& view, Precision requested, const PaletteTable& palette,
                          uint64_t id) {
    const auto start = std::chrono::steady_clock::now();
    const Precision precision = resolve_direct_precision(view, requested);
    if (!begin_frame(w, id, view)) return false;
    CpuRenderControl control;
    control.cancel = &w.cancel;
    const size_t width = size_t(view.width);

    // The coarse pass is for frames slow enough that the window shows them before they are
    // done (it redraws every 1/40 to 0.25 s while a frame computes: progress_interval_s). Judged by
    // the last full frame's time per pixel: a frame expected to finish sooner skips it.
    const double pixels = double(view.width) * view.height;
    const bool slow = w.last_ms_per_pixel <= 0.0 || w.last_ms_per_pixel * pixels >= kPreviewAfterMs;
    if (pixels > 256 * 256 && slow) {
        const View coarse = coarse_view(view, kCoarseBlock);
        std::vector<float> mu(size_t(coarse.width) * coarse.height);
        direct_cpu(coarse, precision, Shortcuts{}, full_rect(coarse), mu.data(), control);
        if (w.cancel) return false;
        std::vector<uint8_t> small(mu.size() * 4);
        colourize(mu.data(), int64_t(mu.size()), palette, view, small.data());
        // coarse_rgba is the worker's until coarse_fresh says otherwise (begin_frame cleared it).
        w.coarse_rgba.resize(width * view.height * 4);
        for (int y = 0; y < view.height; ++y) {
            const uint32_t* src = reinterpret_cast<const uint32_t*>(small.data()) +
                                  size_t(y / kCoarseBlock) * coarse.width;
            uint32_t* dst = reinterpret_cast<uint32_t*>(w.coarse_rgba.data()) + size_t(y) * width;
            for (int x = 0; x < view.width; ++x) dst[x] = src[x / kCoarseBlock];
        }
        std::lock_guard lock(w.mutex);
        if (w.cancel) return false;
        w.coarse_fresh = true;
    } else {
        std::vector<uint8_t>().swap(w.coarse_rgba);  // fast frames need none: give its memory back
    }

    // Full resolution: the whole frame in one call, exactly as `mandelscope render` computes it
    // (one parallel region, jobs of up to 16 rows handed out dynamically). Each job's rows are
    // coloured by the thread that computed them, straight into the buffer the UI uploads, and
    // marked finished with no lock, so the frame appears top to bottom while every core keeps
    // computing: bands of rows, one call each, would leave the cores waiting at every band's end
    // while one thread coloured the band, and a mutex and a copy per job would serialise the
    // threads' hand-over.
    float* const mu_full = scratch_mu(w, width * view.height);
    uint8_t* const rgba_full = w.rgba.data();
    control.rows_finished = [&](int first_row, int rows) {
        const size_t offset = size_t(first_row) * width;
        colourize(mu_full + offset, int64_t(width * rows), palette, view, rgba_full + offset * 4);
        mark_finished_rows(w.rows, first_row, rows);
        w.rows_done.fetch_add(rows, std::memory_order_relaxed);
    };
    const FrameStats stats = direct_cpu(view, precision, Shortcuts{}, full_rect(view), mu_full, control);
    if (stats.cancelled || w.cancel) return false;
    return end_frame(w, stats, start);
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
    return post_worker_request(worker, view, precision, palette);
}

CpuRenderStatus take_cpu_render_rows(CpuRenderWorker& worker, const CpuRowsUpload& upload) {
    std::lock_guard lock(worker.mutex);
    CpuRenderStatus status;
    status.frame_id = worker.frame_id;
    if (worker.frame_id == 0) return status;
    if (worker.coarse_fresh) {
        upload(worker.frame_view, worker.coarse_rgba.data(), 0, worker.frame_view.height);
        worker.coarse_fresh = false;
    }
    take_finished_rows(
        worker.rows, [&](int first_row, int rows) { upload(worker.frame_view, worker.rgba.data(), first_row, rows); });
    status.complete = worker.complete;
    const int rows_done = worker.rows_done.load(std::memory_order_relaxed);
    status.progress = worker.frame_view.height > 0 ? double(rows_done) / worker.frame_view.height : 0.0;
    status.compute_ms = worker.compute_ms;
    status.full_pass_ms = worker.full_pass_ms;
    status.iterations = worker.iterations;
    status.precision_used = worker.precision_used;
    return status;
}

void stop_cpu_render_worker(CpuRenderWorker& worker) { stop_worker_thread(worker); }

CpuRenderWorker::~CpuRenderWorker() { stop_worker_thread(*this); }

}  // namespace ms
