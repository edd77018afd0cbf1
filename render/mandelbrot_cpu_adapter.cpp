// mandelbrot_cpu_adapter.cpp: TEMPORARY stand-in for compute/mandelbrot_cpu (see the header).
#include "render/mandelbrot_cpu_adapter.h"

#include <atomic>
#include <chrono>

namespace ms {

FrameStats mandelbrot_cpu_adapter(const View& view, Precision precision, PixelRect rect, float* mu_out,
                                  const CpuRenderControl& control) {
    rect = resolve_rect(view, rect);
    auto start = std::chrono::steady_clock::now();
    FrameStats total;
    total.precision = resolve_precision(view, precision);
    std::atomic<int> rows_done{0};
    uint64_t iterations = 0, escaped = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : iterations, escaped)
    for (int y = 0; y < rect.height; ++y) {
        if (control.cancel && control.cancel->load(std::memory_order_relaxed)) continue;
        PixelRect row{rect.x, rect.y + y, rect.width, 1};
        FrameStats s = mandelbrot_cpu_reference(view, total.precision, Shortcuts{}, row, mu_out + size_t(y) * rect.width);
        iterations += s.iterations;
        escaped += s.escaped_pixels;
        int done = ++rows_done;
        if (control.progress) control.progress(done, rect.height);
    }
    total.iterations = iterations;
    total.escaped_pixels = escaped;
    total.cancelled = control.cancel && control.cancel->load();
    total.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return total;
}

}  // namespace ms
