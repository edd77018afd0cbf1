// cpu_render_worker.h: the CPU path of the window, off the UI thread.
//
// One worker std::thread renders the newest requested view: the full-resolution image in one
// call of direct_cpu, as `mandelscope render` makes it, preceded by a coarse pass (one
// sample per 8x8 block, ~1/64 of the work) only for frames slow enough that the window would
// show them while they compute (judged by the last frame's time per pixel). Each job of rows is
// coloured by the thread that computed it, straight into the buffer the UI uploads from, and
// marked finished without a lock (finished_rows.h), so it reaches the screen as soon as the UI
// next looks. A new request cancels the stale render at once (CpuRenderControl's cancel flag,
// polled between jobs). The UI thread takes finished rows with take_cpu_render_rows() and
// uploads them; it never waits for the worker except while the worker starts or ends a frame.
//
// The worker and the OpenMP threads it starts run in the SCHED_BATCH class (worker_requests.h),
// so the UI thread keeps its frame rate while all cores compute. The UI does not redraw while
// it waits (explorer.cpp), so the cores are the worker's then; on_news wakes it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"
#include "render/frame/finished_rows.h"
#include "render/frame/worker_requests.h"

namespace ms {

struct CpuRenderWorker {
    // Stops the thread if it still runs: the worker never outlives the mutex and condition
    // variable it waits on, even when an exception skips stop_cpu_render_worker.
    ~CpuRenderWorker();
    std::thread thread;
    std::mutex mutex;
    std::condition_variable wake;
    std::atomic<bool> cancel{false};  // set when a newer request makes the current one stale
    // Called from the worker when a frame is complete (the window posts
    // an empty GLFW event so that its loop, waiting for events, wakes up). Set before start.
    std::function<void()> on_news;
    double last_ms_per_pixel = 0.0;  // the last finished frame's wall time per pixel (0: none yet)
    // The worker thread's own: the full pass's smooth values, scratch_pixels of them.
    std::unique_ptr<float[]> scratch_mu;
    size_t scratch_pixels = 0;

    // Guarded by mutex. The request waiting to be picked up (worker_requests.h):
    bool quit = false;
    bool has_request = false;
    WorkerRequest request;

    // The frame being produced (or finished). Guarded by mutex, except the rows themselves:
    // rgba holds frame_view's width*height pixels, and a row of it is valid once `rows` marks
    // it (finished_rows.h: written by the computing threads before, read by the UI after, under
    // the mutex). The coarse pass, replicated to the full size, is coarse_rgba, to be shown
    // first when coarse_fresh.
    uint64_t frame_id = 0;  // request.id of frame_view; 0: nothing yet
    View frame_view;
    std::vector<uint8_t> rgba;
    FinishedRows rows;
    std::vector<uint8_t> coarse_rgba;
    bool coarse_fresh = false;
    std::atomic<int> rows_done{0};  // of the full-resolution pass
    bool complete = false;
    double compute_ms = 0.0;    // wall time of the finished frame, both passes and colouring
    double full_pass_ms = 0.0;  // direct_cpu's own time for the full-resolution pass
    uint64_t iterations = 0;    // of the finished frame's full-resolution pass
    Precision precision_used = Precision::Fp64;
};

// What the UI learns each frame.
struct CpuRenderStatus {
    uint64_t frame_id = 0;  // which request the uploaded rows belong to
    bool complete = false;  // every row of that request is done
    double progress = 0.0;  // 0..1 of the full-resolution pass
    double compute_ms = 0.0;
    double full_pass_ms = 0.0;
    uint64_t iterations = 0;
    Precision precision_used = Precision::Fp64;
};

void start_cpu_render_worker(CpuRenderWorker& worker);
// Asks for `view`; returns its request id. Cancels whatever is being rendered.
uint64_t request_cpu_render(CpuRenderWorker& worker, const View& view, Precision precision,
                            const PaletteTable& palette);
// Calls upload(frame_view, rgba, first_row, rows) for the rows finished since the last call,
// the coarse pass's whole frame first when it is new (under the worker's lock: upload should
// copy, not keep the pointer; rgba is the whole frame, row 0 first, and only rows
// [first_row, first_row + rows) of it may be read).
using CpuRowsUpload = std::function<void(const View&, const uint8_t*, int, int)>;
CpuRenderStatus take_cpu_render_rows(CpuRenderWorker& worker, const CpuRowsUpload& upload);
void stop_cpu_render_worker(CpuRenderWorker& worker);

}  // namespace ms
