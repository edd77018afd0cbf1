// drag_benchmark.h: --bench-drag=N, a test hook of the explorer window. The view pans a little
// every frame for N frames, by whole pixels as a hand dragging would (a slow back-and-forth sweep
// of +-60 pixels), then the figures are printed and the view goes back to where it started.
// What is measured depends on the render path:
//   interop, copy  a new view every frame: frames/s, and the median compute (CUDA events),
//                  map+unmap and texture upload of a frame.
//   cpu            a view takes longer than a UI frame, so each view is rendered completely
//                  before the next pan; the window's CPU frame (coarse pass, full pass,
//                  colouring) is set against the same view computed as `mandelscope render`
//                  computes it (one direct_cpu call over the frame, no window), the two
//                  alternating in the same run.
//   deep-*         the hand moves the view every UI frame, as a real drag does, whether or not
//                  the worker has finished the view before (it takes the newest when it is
//                  free). What counts is each view that arrives complete at full resolution (a
//                  new frame id with its full pass); the UI's frame count says whether the window
//                  stays live meanwhile.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "compute/fractal/view/view.h"
#include "render/frame/frame_renderer.h"
#include "render/ui/panels.h"

namespace ms {

struct DragBenchmark {
    int frames = 0;  // asked for (--bench-drag); 0: off
    int done = -1;   // views moved so far; -1: waiting for the first complete frame
    View start_view;
    std::chrono::steady_clock::time_point start;
    // Direct GPU paths: each frame's parts.
    std::vector<double> compute_ms, interop_ms, upload_ms;
    // CPU path: the window's frame, and the same view computed as `render` does.
    std::vector<double> cpu_frame_ms, render_ms;
    // Deep paths: each complete view's frame time, its parts (DeepFrameStats' pan_*_ms), the UI's
    // upload of it, and the UI frames' own time.
    std::vector<double> deep_frame_ms;
    std::vector<double> deep_strips_ms, deep_move_ms, deep_colour_ms, deep_copy_ms, deep_upload_ms, ui_frame_ms;
    std::chrono::steady_clock::time_point last_ui_frame;
    double start_upload_ms = 0.0;    // the UI's upload of the start view (a full frame)
    bool start_from_device = false;  // it came by a device-to-device copy (deep CUDA with interop)
    int deep_cached = 0;             // completed views whose reference came from the cache
    int deep_completed = 0;
    uint64_t deep_last_id = 0;
    int ui_frames = 0;
    double deep_pixels = 0.0, deep_reused_pixels = 0.0;  // over the views: reused by whole-pixel pans
    int sweep_step = 0;                                  // the sweep's phase, in 1/240 of a period
    int sweep_x = 0;                                     // the view's offset from start_view, whole pixels
};

// Called once per frame while b.frames > 0: records the frame that was shown and moves the view
// for the next one. Returns true once the benchmark is over (its figures printed, b.frames 0 and
// the view back at its start).
bool step_drag_benchmark(DragBenchmark& b, View* view, const FrameRenderer& renderer, const ExplorerSettings& settings);

// Whether the window should draw its next frame at once for the benchmark: always on the direct
// GPU paths; on the CPU and deep paths only once the view under way is complete (the benchmark
// waits for each view's rows like a user would, and steps in the frame after the last came in).
bool drag_benchmark_wants_next_frame(const DragBenchmark& b, const FrameRenderer& renderer);

// The wait before the next frame, given the window's own choice `wait_s`. On a deep path, while
// the worker computes, the benchmark draws the UI at a display's 60 frames/s (the UI frames it
// manages are one of its figures) rather than flat out, which would take a core from the worker;
// a finished frame's news wakes the window at once.
double drag_benchmark_wait_s(const DragBenchmark& b, const FrameRenderer& renderer, double ui_frame_ms, double wait_s);

}  // namespace ms
