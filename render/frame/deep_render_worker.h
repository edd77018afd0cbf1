// deep_render_worker.h: the window's deep-zoom frames, off the UI thread.
//
// Past FP64 a frame needs a reference orbit in MPFR (milliseconds to seconds), a BLA table and
// perturbation per pixel (compute/fractal/deep/): far more than a UI frame. One worker
// std::thread takes the newest requested view and
//   1. finds its reference orbit in the worker's ReferenceCache (kept across frames: panning
//      within the image, zooming out and recolouring reuse it), or computes it, with some
//      headroom in precision and iterations so that the next wheel notches reuse it too;
//   2. renders a coarse pass (one pixel per 8x8 block, ~1/64 of the work) of slow frames and
//      hands it to the display at once;
//   3. renders the full frame, on CUDA (deep_cuda, on the worker's own non-blocking stream) or
//      the CPU (deep_cpu, OpenMP over rows: after a coarse pass, each finished row replaces its
//      coarse row at once), colours it (colourize_deep) and hands it over. A CUDA frame for a
//      window that shares a GL buffer with CUDA (request_deep_render's device_display) stays on
//      the device: deep_cuda leaves mu in the worker's DeepDeviceFrame, colour_deep_frame_cuda
//      colours it into one of its two RGBA buffers, and the UI thread copies that buffer into
//      its pixel buffer object, device to device (take_deep_render_frame's upload_device).
// A drag is faster than that: the worker keeps its last complete frame (DeepPanRecord: mu and
// colours), and a request that pans it by whole pixels with the same reference orbit, zoom,
// size, iterations and map takes its pixels shifted and computes only the exposed strips
// (compute/fractal/deep/deep_pan.h), with no coarse pass; the stats say how many pixels were
// reused. Its BLA tables are built with headroom (kBlaHeadroomDiagonals) so that a drag reuses
// them too.
// A newer request cancels the stale one (the cancel flag is polled by the reference every 4096
// iterations and by the CPU between rows; a CUDA kernel under way finishes first). Progress
// (the reference's iterations, then the rows) and the frame's figures (deep_cpu.h's
// DeepFrameStats) are read by the UI thread under the lock. The UI never waits for the worker:
// while a frame computes it keeps drawing the last one, moved under the current view
// (view_math.h's frame_mapping), so a drag never shows black.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/deep/deep_device_frame.h"
#include "compute/fractal/deep/deep_reference.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"
#include "render/frame/worker_requests.h"

namespace ms {

enum class DeepPhase { Idle, Reference, Pixels, Done };

// The last complete frame and what its pixels were computed for (the worker thread's alone).
// The pixels' grid is the anchor's, the place of the last full render: each pan is measured from
// it, so the rounding of the centres' texts never adds up along a drag.
struct DeepPanRecord {
    bool valid = false;
    DeepLocation anchor;
    int anchor_shift_x = 0;  // pixel (x, y) here is the anchor's pixel (x + shift_x, y + shift_y)
    int anchor_shift_y = 0;
    DeepNumberType number_type = DeepNumberType::Auto;  // as requested
    DeepFrame frame;               // mu (no escape counts), the reference it ran against, the figures
    std::vector<uint8_t> rgba;     // coloured with these (where colours_on_host):
    bool colours_on_host = false;  // false after a frame coloured on the device: a pan colours it here first
    bool plain_colouring = false;  // the palette alone (colouring.h: no layers)
    PaletteTable palette;
    double palette_density = 0.0;
    double palette_offset = 0.0;
};

// A deep frame's request: worker_requests.h's, and the device it asks for.
struct DeepRenderRequest : WorkerRequest {
    bool cuda = false;
    bool device_display = false;  // the UI takes CUDA frames from device memory
};

// A CUDA full frame of at least this many pixels spreads over the worker's devices where it has
// several (DeepRenderWorker::devices): below it, one device's single kernel is faster (each
// band costs a launch and its copies).
inline constexpr int64_t kDeepWindowSpreadMinPixels = int64_t(1) << 21;

struct DeepRenderWorker {
    ~DeepRenderWorker();  // stops the thread if it still runs
    // Set before the first request: CUDA full frames of at least spread_min_pixels are shared
    // out over these devices (compute/scale/deep_multi_gpu.h: the same pixels as one device's;
    // a device may be named twice) where there are several, and come back to the host to be
    // coloured. One: that device's kernel, the frame kept on the device for an interop window.
    // Empty: every visible device, which the worker asks the driver for at its first CUDA frame
    // (not the UI thread, whose first frame would wait for the driver's start).
    std::vector<int> devices;
    bool devices_known = false;        // the worker thread's: devices is filled in
    std::future<void> devices_started;  // their contexts starting (deep_start_devices)
    int64_t spread_min_pixels = kDeepWindowSpreadMinPixels;
    std::thread thread;
    std::mutex mutex;
    std::condition_variable wake;
    std::atomic<bool> cancel{false};
    std::function<void()> on_news;  // called from the worker when pixels arrive (set before start)
    ReferenceCache cache;           // shared by every frame of the window (its own lock)
    DeepCudaStream cuda_stream;     // the worker's CUDA frames run on it (created on first use)
    // The worker thread's, except rgba[device_front], which the UI reads under the lock: the last
    // CUDA frame's mu and its colours, on the device.
    DeepDeviceFrame device;
    double last_ms_per_pixel = 0.0;  // the last full pass's wall time per pixel (0: none yet)
    DeepPanRecord last;              // the worker thread's: the last complete frame
    // The worker thread's: the buffer the display had before the last publish, reused for the
    // next one, so that a drag's views do not each fault in a fresh frame-sized vector.
    std::vector<uint8_t> spare_rgba;

    // Guarded by mutex. The request waiting to be picked up (set by post_worker_request).
    bool quit = false;
    bool has_request = false;
    DeepRenderRequest request;

    // Guarded by mutex. The frame being produced: rgba holds frame_view's pixels (the coarse
    // pass replicated, or the full frame); fresh says they changed since the UI took them.
    uint64_t frame_id = 0;  // request.id of frame_view; 0: nothing yet
    View frame_view;
    std::vector<uint8_t> rgba;
    bool fresh = false;
    int dirty_begin = 0;  // rows [dirty_begin, dirty_end) changed since the UI took them
    int dirty_end = 0;
    bool complete = false;         // the full pass is in rgba (or on the device)
    bool frame_on_device = false;  // the frame is device.rgba[device_front], not rgba
    int device_front = 0;
    uint64_t working_id = 0;  // the request being computed (progress belongs to it)
    DeepPhase phase = DeepPhase::Idle;
    double progress = 0.0;     // 0..1 within the phase
    bool ran_on_cuda = false;  // of the finished frame
    int devices_used = 1;      // the finished frame's full pass: the devices it was spread over
    DeepFrameStats stats;      // of the finished frame's full pass (reference and BLA included)
    double compute_ms = 0.0;   // wall time of the finished frame, both passes and colouring
    std::string cuda_error;    // the CUDA failure that sent frames to the CPU ("": none)
    std::string last_error;    // why the last frame failed (a sentence; "": it did not)
};

// What the UI learns each frame.
struct DeepRenderStatus {
    uint64_t frame_id = 0;
    bool complete = false;
    uint64_t working_id = 0;
    DeepPhase phase = DeepPhase::Idle;
    double progress = 0.0;
    bool ran_on_cuda = false;
    int devices_used = 1;  // > 1: the full pass was spread over that many device slots
    DeepFrameStats stats;
    double compute_ms = 0.0;
    std::string cuda_error;
    std::string error;
};

void start_deep_render_worker(DeepRenderWorker& worker);
// Asks for `view` on CUDA (use_cuda) or the CPU; cancels the frame under way. Returns its id.
// device_display: the caller can take a CUDA frame from device memory (take_deep_render_frame's
// upload_device), so full CUDA frames are coloured there and never come to the host.
uint64_t request_deep_render(DeepRenderWorker& worker, const View& view, Precision precision,
                             const PaletteTable& palette, bool use_cuda, bool device_display = false);
// Calls upload(frame_view, rgba, first_row, rows) for the rows that changed since the last call
// (under the lock: upload copies; rgba is the whole frame, row 0 first), or, for a frame on the
// device, upload_device(frame_view, rgba_device) (under the lock too: it must have finished
// reading the device memory when it returns), and returns the status.
using DeepFrameUpload = std::function<void(const View&, const uint8_t*, int, int)>;
using DeepDeviceFrameUpload = std::function<void(const View&, const uint8_t*)>;
DeepRenderStatus take_deep_render_frame(DeepRenderWorker& worker, const DeepFrameUpload& upload,
                                        const DeepDeviceFrameUpload& upload_device = {});
void stop_deep_render_worker(DeepRenderWorker& worker);

}  // namespace ms
