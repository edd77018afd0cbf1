// cmd_render_bands.cpp: `mandelscope render`'s band loop on the direct path (cmd_render_steps.h).
// Each band of output rows is computed (on the CPU, on CUDA, or on CUDA a band ahead on a helper
// thread), coloured, box-filtered when supersampling, and written: streamed to the PNG writer,
// through the GPU's PNG encoder, or into the whole image written at the end.
#include "app/modes/cmd_render_steps.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <stdexcept>

#include "app/modes/progress.h"
#include "compute/fractal/colour/box_filter.h"
#include "compute/fractal/colour/colourize.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/view/kfr.h"

namespace ms {

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The buffers of the band loop, and how the bands go.
struct BandBuffers {
    int bands = 0;
    size_t band_samples = 0;  // samples in a full band
    // Without supersampling the colours go straight where they are written from (the whole
    // image, or the band that is streamed), with no copy between.
    bool direct = false;
    // Streamed on CUDA: the GPU computes band k+1 and copies it to the host, on a helper thread,
    // while this thread encodes band k on every core (and the PNG writer's own thread writes band
    // k-1): the bands take about the longer of the two, not their sum. Two band buffers
    // alternate. (The CUDA state is one per process, behind its mutex.)
    bool overlap = false;
    std::vector<float> mu;
    std::vector<uint8_t> rgba;        // a band's samples (with the GPU's PNG encoder: its fallback's only)
    std::vector<uint8_t> rgba_other;  // the second band buffer when overlapping
    std::vector<uint8_t> out;         // a streamed band after the box filter
    // The GPU's PNG encoder (compute/io/png_encode_cuda.h): band k is coloured into one of two
    // device buffers, band k+1 into the other on a helper thread while band k is filtered and
    // deflated on the GPU (its own stream) and its compressed bytes written by the PNG writer's
    // thread. Without it (--png-encoder=auto and a CUDA failure) the CPU encodes, with the reason.
    bool gpu_png_on = false;  // until a failure (the encoder is kept: the writer may be writing its bytes)
    uint8_t* device_band[2] = {nullptr, nullptr};
    std::future<FrameStats> ahead;  // the next band, computed on a helper thread
};

BandBuffers make_band_buffers(const RenderRequest& request, const RenderPlan& plan) {
    BandBuffers b;
    const int k = plan.k;
    b.band_samples = size_t(plan.samples.width) * size_t(plan.band_rows) * k;
    b.bands = (plan.view.height + plan.band_rows - 1) / plan.band_rows;
    b.direct = k == 1;
    b.mu.resize(plan.cuda && request.raw_path.empty() ? 0 : b.band_samples);
    b.rgba.resize(plan.png_on_gpu || (b.direct && !plan.stream_png) ? 0 : b.band_samples * 4);
    b.out.resize(plan.stream_png && !b.direct ? size_t(plan.view.width) * plan.band_rows * 4 : 0);
    b.overlap = !plan.png_on_gpu && plan.cuda && plan.stream_png && b.direct && b.mu.empty() && b.bands > 1;
    b.rgba_other.resize(b.overlap ? b.band_samples * 4 : 0);
    return b;
}

// Starts the GPU's PNG encoder and its two device band buffers; with --png-encoder=auto a
// failure leaves the CPU to encode, with the reason noted.
void start_gpu_png(const RenderRequest& request, const RenderPlan& plan, BandBuffers& b, RenderOutputs& outputs,
                   RenderTimings& t) {
    try {
        const auto setup_start = std::chrono::steady_clock::now();
        outputs.gpu_png = std::make_unique<PngCudaEncoder>(plan.view.width);
        for (int band = 0; band < 2 && band < b.bands; ++band)
            b.device_band[band] = outputs.gpu_png->device_rows(band, b.band_samples * 4);
        t.gpu_setup_ms = ms_since(setup_start);
        b.gpu_png_on = true;
    } catch (const std::runtime_error& e) {
        if (request.png_encoder == "cuda") throw;
        outputs.gpu_png.reset();  // nothing written from it yet
        b.rgba.resize(b.band_samples * 4);
        t.png_encoder_note = std::string(" (the GPU's could not start: ") + e.what() + ")";
    }
}

// The output rows of `band` (one sample row per output row: without supersampling).
PixelRect band_rect(const RenderPlan& plan, int band) {
    const int y0 = band * plan.band_rows, rows = std::min(plan.band_rows, plan.view.height - y0);
    return PixelRect{0, y0, plan.samples.width, rows};
}

// A band on CUDA, coloured into host memory.
FrameStats cuda_band_to_host(const RenderRequest& request, const RenderPlan& plan, int band, uint8_t* band_rgba) {
    const PixelRect rect = band_rect(plan, band);
    return colouring_is_plain(plan.view.colouring)
               ? direct_cuda_to_host(plan.samples, plan.precision, request.shortcuts, plan.table, rect, band_rgba,
                                     nullptr)
               : render_coloured_cuda_to_host(plan.samples, plan.precision, request.shortcuts, plan.table, rect, 1.0,
                                              band_rgba, nullptr);
}

// A band on CUDA, coloured into a device buffer of the GPU's PNG encoder.
FrameStats cuda_band_to_device(const RenderRequest& request, const RenderPlan& plan, int band, uint8_t* device_rgba) {
    return render_coloured_cuda(plan.samples, plan.precision, request.shortcuts, plan.table, band_rect(plan, band), 1.0,
                                device_rgba, nullptr);
}

// Computes and colours one band's samples (rect, in sample rows) into band_rgba, or into the
// device buffer of the GPU's PNG encoder; starts the next band on a helper thread where the
// bands overlap.
FrameStats compute_band(const RenderRequest& request, const RenderPlan& plan, int band, const PixelRect& rect,
                        uint8_t* band_rgba, BandBuffers& b, ProgressBar& progress, const std::string& step,
                        RenderTimings& t) {
    const View& samples = plan.samples;
    const double inverse_k = 1.0 / plan.k;
    float* mu = b.mu.empty() ? nullptr : b.mu.data();
    if (b.gpu_png_on) {
        const auto rows_start = std::chrono::steady_clock::now();
        FrameStats stats = band == 0 ? cuda_band_to_device(request, plan, 0, b.device_band[0]) : b.ahead.get();
        t.gpu_rows_wait_ms += ms_since(rows_start);  // band 0's compute, then the waits for the helper's
        if (band + 1 < b.bands)
            b.ahead = std::async(std::launch::async, cuda_band_to_device, std::cref(request), std::cref(plan), band + 1,
                                 b.device_band[(band + 1) % 2]);
        return stats;
    }
    if (b.overlap) {
        FrameStats stats = band == 0 ? cuda_band_to_host(request, plan, 0, band_rgba) : b.ahead.get();
        if (band + 1 < b.bands)
            b.ahead = std::async(std::launch::async, cuda_band_to_host, std::cref(request), std::cref(plan), band + 1,
                                 band % 2 == 0 ? b.rgba_other.data() : b.rgba.data());
        return stats;
    }
    if (plan.cuda && !colouring_is_plain(plan.view.colouring))
        return render_coloured_cuda_to_host(samples, plan.precision, request.shortcuts, plan.table, rect, inverse_k,
                                            band_rgba, mu);
    if (plan.cuda)
        return direct_cuda_to_host(samples, plan.precision, request.shortcuts, plan.table, rect, band_rgba, mu);
    CpuRenderControl control;
    control.progress = [&](int done, int all) {
        progress.update((band + double(done) / all) / b.bands, b.bands > 1 ? step : std::string());
    };
    if (!colouring_is_plain(plan.view.colouring)) {
        // The colouring layers: their kernels, then the colour pass (timed within).
        const auto colour_start = std::chrono::steady_clock::now();
        FrameStats stats = render_coloured_cpu(samples, plan.precision, request.shortcuts, plan.table, rect, inverse_k,
                                               b.mu.data(), band_rgba, control);
        t.colour_ms += ms_since(colour_start) - stats.compute_ms;
        return stats;
    }
    FrameStats stats = direct_cpu(samples, plan.precision, request.shortcuts, rect, b.mu.data(), control);
    const auto colour_start = std::chrono::steady_clock::now();
    colourize_parallel(b.mu.data(), int64_t(rect.width) * rect.height, plan.table, plan.view, band_rgba);
    t.colour_ms += ms_since(colour_start);
    return stats;
}

// Writes one band: the smooth values to the .npy, the colours through the GPU's PNG encoder
// (falling back to the CPU's on a failure, with --png-encoder=auto), or box-filtered into the
// streamed band or the whole image.
void write_band(const RenderRequest& request, const RenderPlan& plan, int band, const PixelRect& rect,
                const uint8_t* band_rgba, BandBuffers& b, RenderOutputs& outputs, RenderTimings& t) {
    const auto write_start = std::chrono::steady_clock::now();
    const View& view = plan.view;
    const int k = plan.k;
    const int y0 = band * plan.band_rows, rows = rect.height / k;
    if (outputs.npy_stream) outputs.npy_stream->write_rows(b.mu.data(), rect.height);
    const PngCudaEncoded* encoded = nullptr;
    double gpu_encode_ms = 0.0;
    if (b.gpu_png_on) {
        try {
            encoded = &outputs.gpu_png->encode_rows_device(b.device_band[band % 2], rows);
            gpu_encode_ms = ms_since(write_start);
            t.gpu_wall_ms += gpu_encode_ms;
            t.gpu_filter_ms += encoded->filter_ms;
            t.gpu_deflate_ms += encoded->deflate_ms;
            t.gpu_compact_ms += encoded->compact_ms;
        } catch (const std::runtime_error& e) {
            if (request.png_encoder == "cuda") throw;
            t.png_encoder_note = std::string(" (from row ") + std::to_string(y0) + ": the GPU's failed: " + e.what() +
                                 ")";
            if (b.ahead.valid()) b.ahead.get();  // the next band's device rows are dropped: it is computed again
            b.gpu_png_on = false;
            b.rgba.resize(b.band_samples * 4);
            cuda_band_to_host(request, plan, band, b.rgba.data());  // this band again, to the host
        }
    }
    if (encoded) {
        outputs.png_stream->write_deflated_rows(encoded->rows, gpu_encode_ms);
    } else if (plan.stream_png && b.direct && plan.png_on_gpu) {
        outputs.png_stream->write_rows(b.rgba.data(), rows);  // after a fallback
    } else if (plan.stream_png && b.direct) {
        outputs.png_stream->write_rows(band_rgba, rows);
    } else if (plan.stream_png) {
        box_filter_rgba(b.rgba.data(), plan.samples.width, k, view.width, rows, b.out.data());
        outputs.png_stream->write_rows(b.out.data(), rows);
    } else if (!b.direct) {
        box_filter_rgba(b.rgba.data(), plan.samples.width, k, view.width, rows,
                        outputs.image.data() + size_t(y0) * view.width * 4);
    }
    t.write_ms += ms_since(write_start);
}

// Completes the files: the .npy, the PNG (the streamed one's last rows, or the whole image),
// and the .kfr location.
void finish_outputs(const RenderRequest& request, const RenderPlan& plan, const std::string& view_json,
                    RenderOutputs& outputs, RenderTimings& t) {
    const auto write_start = std::chrono::steady_clock::now();
    if (outputs.npy_stream) outputs.npy_stream->finish();
    if (plan.stream_png) {
        outputs.png_stream->finish();
        t.png = outputs.png_stream->timings();
        if (outputs.gpu_png) t.gpu_copy = outputs.gpu_png->copy_stats();  // the writer has read every byte
    } else {
        t.png = write_png(request.png_path, outputs.image.data(), plan.view.width, plan.view.height, view_json);
    }
    if (!request.save_location.empty())
        if (std::string error = write_kfr(request.save_location.string(), deep_location(plan.view)); !error.empty())
            throw std::runtime_error(error);
    t.write_ms += ms_since(write_start);
}

}  // namespace

void render_bands(const RenderRequest& request, const RenderPlan& plan, const std::string& view_json,
                  RenderOutputs& outputs, RenderTimings& t) {
    BandBuffers b = make_band_buffers(request, plan);
    if (plan.png_on_gpu) start_gpu_png(request, plan, b, outputs, t);
    ProgressBar progress("render");
    for (int band = 0; band < b.bands; ++band) {
        const int y0 = band * plan.band_rows, rows = std::min(plan.band_rows, plan.view.height - y0);
        const PixelRect rect{0, y0 * plan.k, plan.samples.width, rows * plan.k};
        const std::string step = "band " + std::to_string(band + 1) + " of " + std::to_string(b.bands);
        progress.update(double(band) / b.bands, b.bands > 1 ? step : std::string());
        uint8_t* const band_rgba = b.direct && !plan.stream_png
                                       ? outputs.image.data() + size_t(y0) * plan.view.width * 4
                                   : b.overlap && band % 2 == 1 ? b.rgba_other.data()
                                                                : b.rgba.data();
        const FrameStats stats = compute_band(request, plan, band, rect, band_rgba, b, progress, step, t);
        t.total.iterations += stats.iterations;
        t.total.escaped_pixels += stats.escaped_pixels;
        t.total.compute_ms += stats.compute_ms;
        write_band(request, plan, band, rect, band_rgba, b, outputs, t);
    }
    progress.update(1.0, b.bands > 1 ? "writing" : std::string());
    finish_outputs(request, plan, view_json, outputs, t);
    progress.finish();
}

}  // namespace ms
