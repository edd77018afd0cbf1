// drag_benchmark.cpp: see drag_benchmark.h.
#include "app/explorer/drag_benchmark.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "compute/fractal/direct/direct.h"
#include "render/frame/view_math.h"

namespace ms {

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

double ms_since(std::chrono::steady_clock::time_point t, std::chrono::steady_clock::time_point now) {
    return std::chrono::duration<double, std::milli>(now - t).count();
}

// `view` computed as `mandelscope render --backend=cpu` computes it: one call over the whole
// frame from this (nice 0, normal policy) thread. The pauses let the other OpenMP team's
// threads stop spinning first, and this one's before the window's next frame.
double render_compute_ms(const View& view, Precision precision) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::vector<float> mu(size_t(view.width) * view.height);
    const double ms = direct_cpu(view, precision, Shortcuts{}, full_rect(view), mu.data()).compute_ms;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return ms;
}

// The first complete frame: the benchmark starts from its view.
void start_drag_benchmark(DragBenchmark& b, const View& view, const FrameRenderer& renderer) {
    b.done = 0;
    b.deep_last_id = renderer.deep_status.frame_id;  // the start view is not one of the drag's
    b.start_upload_ms = renderer.timings.upload_ms;
    b.start_from_device = renderer.deep_device_frames > 0;
    b.start_view = view;
    b.start = std::chrono::steady_clock::now();
}

// Deep paths: counts the UI frame, and the view that finished since the last one, if any.
void record_deep_frame(DragBenchmark& b, const View& view, const FrameRenderer& renderer) {
    ++b.ui_frames;
    const auto now = std::chrono::steady_clock::now();
    if (b.ui_frames > 1) b.ui_frame_ms.push_back(ms_since(b.last_ui_frame, now));
    b.last_ui_frame = now;
    const DeepRenderStatus& d = renderer.deep_status;
    if (!d.complete || d.frame_id == b.deep_last_id) return;
    b.deep_last_id = d.frame_id;
    ++b.deep_completed;
    b.deep_frame_ms.push_back(d.stats.frame_ms);
    b.deep_strips_ms.push_back(d.stats.pan_strips_ms);
    b.deep_move_ms.push_back(d.stats.pan_move_ms);
    b.deep_colour_ms.push_back(d.stats.pan_colour_ms);
    b.deep_copy_ms.push_back(d.stats.pan_copy_ms);
    b.deep_upload_ms.push_back(renderer.timings.upload_ms);
    if (d.stats.reference_cached) ++b.deep_cached;
    b.deep_pixels += double(view.width) * view.height;
    b.deep_reused_pixels += double(d.stats.reused_pixels);
}

void print_deep_report(const DragBenchmark& b, const View& view, RenderPath path, double seconds) {
    std::printf(
        "bench-drag: the view moved %d times at %dx%d on the %s path (every UI frame, 1-2 whole "
        "pixels), in %.3f s; %d views arrived complete at full resolution: %.2f views/s (%.1f ms "
        "per view); deep frame median %.2f ms (reference cached in %d of %d views); reused %.1f%% "
        "of pixels (whole-pixel pans); UI %.1f frames/s meanwhile (%d UI frames)\n",
        b.frames, view.width, view.height, render_path_name(path), seconds, b.deep_completed,
        b.deep_completed / seconds, b.deep_completed ? 1000.0 * seconds / b.deep_completed : 0.0,
        median(b.deep_frame_ms), b.deep_cached, b.deep_completed,
        b.deep_pixels > 0.0 ? 100.0 * b.deep_reused_pixels / b.deep_pixels : 0.0, b.ui_frames / seconds, b.ui_frames);
    std::printf(
        "bench-drag: per complete view, medians: strips %.2f ms, moving the last frame %.2f ms, "
        "colouring the strips %.2f ms, the display's copy %.2f ms, the UI's upload %.2f ms; "
        "UI frame interval median %.2f ms\n",
        median(b.deep_strips_ms), median(b.deep_move_ms), median(b.deep_colour_ms), median(b.deep_copy_ms),
        median(b.deep_upload_ms), median(b.ui_frame_ms));
    std::printf("bench-drag: the start view (a full frame) reached the texture in %.3f ms of the UI thread, %s\n",
                b.start_upload_ms,
                b.start_from_device ? "by one device-to-device copy into the shared pixel buffer" : "from host memory");
}

void print_cpu_report(const DragBenchmark& b, const View& view) {
    const double window_ms = median(b.cpu_frame_ms), render_ms = median(b.render_ms);
    std::printf(
        "bench-drag: %d views at %dx%d on the CPU path, each rendered completely: window frame median %.2f ms "
        "(coarse pass, full pass, colouring), the same views computed as `render` does median "
        "%.2f ms\n",
        b.frames, view.width, view.height, window_ms, render_ms);
    std::printf("bench-drag: window CPU frame / render compute = %.2f (goal <= 1.3)\n",
                render_ms > 0.0 ? window_ms / render_ms : 0.0);
    // The fastest of each: what the two cost with the least interference from other programs
    // (on a shared machine the medians move with its load).
    const double window_best = *std::min_element(b.cpu_frame_ms.begin(), b.cpu_frame_ms.end());
    const double render_best = *std::min_element(b.render_ms.begin(), b.render_ms.end());
    std::printf("bench-drag: fastest window CPU frame %.2f ms, fastest render compute %.2f ms: ratio %.2f\n",
                window_best, render_best, render_best > 0.0 ? window_best / render_best : 0.0);
}

void print_gpu_report(const DragBenchmark& b, const View& view, RenderPath path, bool vsync, double seconds) {
    std::printf("bench-drag: %d frames at %dx%d in %.3f s: %.1f frames/s (%.2f ms per frame), render path %s%s\n",
                b.frames, view.width, view.height, seconds, b.frames / seconds, 1000.0 * seconds / b.frames,
                render_path_name(path), vsync ? ", vsync ON (capped by the display)" : ", vsync off");
    std::printf(
        "bench-drag: median per frame: compute %.3f ms (CUDA events), map+unmap %.3f ms, texture upload %.3f ms\n",
        median(b.compute_ms), median(b.interop_ms), median(b.upload_ms));
}

// The next view of the sweep: every frame a new view, 1 or 2 whole pixels from the one before
// (a cursor's positions are integers), so the sweep's phase moves on until the rounded offset
// changes.
View next_sweep_view(DragBenchmark& b, const View& view) {
    int x = b.sweep_x;
    while (x == b.sweep_x) x = int(std::lround(60.0 * std::sin(2.0 * M_PI * ++b.sweep_step / 240.0)));
    b.sweep_x = x;
    glm::dvec2 centre{0.5 * view.width, 0.5 * view.height};
    return pan_view(b.start_view, centre, centre + glm::dvec2(double(x), 0.0));
}

}  // namespace

bool step_drag_benchmark(DragBenchmark& b, View* view, const FrameRenderer& renderer,
                         const ExplorerSettings& settings) {
    const bool cpu = renderer.path == RenderPath::Cpu;
    const bool deep = is_deep_path(renderer.path);
    if (b.done < 0) {
        if (!renderer.complete) return false;
        start_drag_benchmark(b, *view, renderer);
    } else if (deep) {
        record_deep_frame(b, *view, renderer);
    } else if (cpu) {
        if (!renderer.complete) return false;  // the CPU view is still coming in
        b.cpu_frame_ms.push_back(renderer.timings.compute_ms);
        b.render_ms.push_back(render_compute_ms(*view, settings.precision));
    } else {
        b.compute_ms.push_back(renderer.timings.compute_ms);
        b.interop_ms.push_back(renderer.timings.interop_ms);
        b.upload_ms.push_back(renderer.timings.upload_ms);
    }
    if (b.done < b.frames) {
        *view = next_sweep_view(b, *view);
        ++b.done;
        return false;
    }
    // After the last move, the deep benchmark waits (the view still) for that view to arrive complete.
    if (deep && !renderer.complete) return false;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - b.start).count();
    if (deep) print_deep_report(b, *view, renderer.path, seconds);
    else if (cpu) print_cpu_report(b, *view);
    else print_gpu_report(b, *view, renderer.path, settings.vsync, seconds);
    std::fflush(stdout);
    b.frames = 0;
    *view = b.start_view;
    return true;
}

bool drag_benchmark_wants_next_frame(const DragBenchmark& b, const FrameRenderer& renderer) {
    const bool waits_for_worker = renderer.path == RenderPath::Cpu || is_deep_path(renderer.path);
    return b.frames > 0 && (!waits_for_worker || renderer.complete);
}

double drag_benchmark_wait_s(const DragBenchmark& b, const FrameRenderer& renderer, double ui_frame_ms, double wait_s) {
    if (b.frames > 0 && is_deep_path(renderer.path) && !renderer.complete)
        return std::max(0.0, 1.0 / 60.0 - ui_frame_ms / 1000.0);
    return wait_s;
}

}  // namespace ms
