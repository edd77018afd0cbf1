// frame_renderer.cpp: the render paths and the fallback chain interop -> copy -> cpu
// (see frame_renderer.h).
#include "render/frame/frame_renderer.h"

#include "compute/fractal/direct/coloured_frame.h"

#include <chrono>
#include <stdexcept>

#include "render/frame/view_math.h"

namespace ms {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

bool same_request(const FrameRenderer& r, const View& view, Backend backend, Precision precision) {
    return r.has_request && same_place(r.requested_view, view) && r.requested_view.width == view.width &&
           r.requested_view.height == view.height && r.requested_backend == backend &&
           r.requested_precision == precision;
}

void ensure_texture_size(FrameRenderer& r, int width, int height) {
    if (r.texture.width == width && r.texture.height == height) return;
    resize_frame_texture(r.texture, width, height);
    r.texture_valid = false;
}

// The pixel buffer object shared with CUDA, (re)registered when the size changes.
void ensure_interop_buffer(FrameRenderer& r, int width, int height) {
    if (r.cuda_buffer.resource && r.pixel_buffer_width == width && r.pixel_buffer_height == height) return;
    cuda_unregister_gl_buffer(r.cuda_buffer);
    if (!r.pixel_buffer) GL_CHECK(glGenBuffers(1, &r.pixel_buffer));
    GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r.pixel_buffer));
    GL_CHECK(glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(width) * height * 4, nullptr, GL_STREAM_DRAW));
    GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
    r.pixel_buffer_width = r.pixel_buffer_height = 0;
    r.cuda_buffer = cuda_register_gl_buffer(r.pixel_buffer);
    r.pixel_buffer_width = width;
    r.pixel_buffer_height = height;
}

// ensure_interop_buffer, or false with the reason kept in r.interop_unavailable.
bool try_interop_buffer(FrameRenderer& r, int width, int height) {
    try {
        ensure_interop_buffer(r, width, height);
        return true;
    } catch (const std::exception& e) {
        r.interop_unavailable = e.what();
        if (!gl_context_is_nvidia())
            r.interop_unavailable += " (the OpenGL context is " + gl_renderer_description() +
                                     ", not NVIDIA's driver, so CUDA cannot share its buffers)";
        return false;
    }
}

void render_interop(FrameRenderer& r, const View& view, Precision precision, const PaletteTable& palette) {
    auto t0 = Clock::now();
    uint8_t* device_rgba = cuda_map_gl_buffer(r.cuda_buffer, nullptr);
    double map_ms = ms_since(t0);
    FrameStats stats;
    try {
        // (A plain colouring goes straight to direct_cuda; layers add their passes.)
        stats = render_coloured_cuda(view, precision, Shortcuts{}, palette, full_rect(view), 1.0, device_rgba, nullptr);
    } catch (...) {
        try {
            cuda_unmap_gl_buffer(r.cuda_buffer);
        } catch (...) {
        }
        throw;
    }
    auto t1 = Clock::now();
    cuda_unmap_gl_buffer(r.cuda_buffer);
    r.timings.interop_ms = map_ms + ms_since(t1);
    auto t2 = Clock::now();
    upload_frame_from_pixel_buffer(r.texture, r.pixel_buffer);
    r.timings.upload_ms = ms_since(t2);
    r.timings.compute_ms = stats.compute_ms;
    r.timings.host_launch_ms = stats.host_launch_ms;
    r.timings.iterations = stats.iterations;
    r.timings.skipped_iterations = 0;
    r.precision_used = stats.precision;
}

void render_copy(FrameRenderer& r, const View& view, Precision precision, const PaletteTable& palette) {
    r.host_rgba.resize(size_t(view.width) * view.height * 4);
    FrameStats stats = render_coloured_cuda_to_host(view, precision, Shortcuts{}, palette, full_rect(view), 1.0,
                                                    r.host_rgba.data(), nullptr);
    auto t0 = Clock::now();
    upload_frame_rows(r.texture, r.host_rgba.data(), 0, view.height);
    r.timings.upload_ms = ms_since(t0);
    r.timings.interop_ms = 0.0;
    r.timings.compute_ms = stats.compute_ms;
    r.timings.host_launch_ms = stats.host_launch_ms;
    r.timings.iterations = stats.iterations;
    r.timings.skipped_iterations = 0;
    r.precision_used = stats.precision;
}

// Takes the CPU worker's finished rows into the texture.
void take_cpu_rows(FrameRenderer& r) {
    double upload_ms = 0.0;
    CpuRenderStatus status = take_cpu_render_rows(
        r.cpu, [&](const View& frame_view, const uint8_t* rgba, int first_row, int rows) {
            auto t0 = Clock::now();
            // A frame of a new size: rows not computed yet are black (only the finished rows of
            // rgba may be read).
            if (frame_view.width != r.texture.width || frame_view.height != r.texture.height)
                resize_frame_texture(r.texture, frame_view.width, frame_view.height);
            upload_frame_rows(r.texture, rgba, first_row, rows);
            r.texture_view = frame_view;
            r.texture_valid = true;
            upload_ms += ms_since(t0);
        });
    const bool was_complete = r.complete;
    const bool current = !r.cpu_request_pending && status.frame_id == r.cpu_request_id;
    r.complete = current && status.complete;
    r.cpu_progress = current ? status.progress : 0.0;
    r.rows_upload_ms = upload_ms;
    if (upload_ms > 0.0) r.timings.upload_ms = upload_ms;
    if (r.complete) {
        r.timings.compute_ms = status.compute_ms;
        r.timings.iterations = status.iterations;
        r.timings.skipped_iterations = 0;
        r.timings.interop_ms = r.timings.host_launch_ms = 0.0;
        r.precision_used = status.precision_used;
        if (!was_complete) ++r.frames_finished;
    }
}

// Takes the deep worker's newest pixels into the texture and its status into the renderer.
void take_deep_frame(FrameRenderer& r) {
    double upload_ms = 0.0;
    auto upload_host = [&](const View& frame_view, const uint8_t* rgba, int first_row, int rows) {
        auto t0 = Clock::now();
        if (frame_view.width != r.texture.width || frame_view.height != r.texture.height) {
            resize_frame_texture(r.texture, frame_view.width, frame_view.height);
            first_row = 0;
            rows = frame_view.height;
        }
        // Rows of the frame under way; a frame of another view comes whole (publish marks it so).
        upload_frame_rows(r.texture, rgba, first_row, rows);  // rgba is the whole frame
        r.texture_view = frame_view;
        r.texture_valid = true;
        upload_ms += ms_since(t0);
    };
    // A CUDA frame the worker coloured on the device: one device-to-device copy into the shared
    // pixel buffer, then the texture from it. Where the buffer cannot be shared after all, the
    // frame comes through host memory once and later requests are coloured on the host.
    auto upload_device = [&](const View& frame_view, const uint8_t* rgba_device) {
        auto t0 = Clock::now();
        const size_t bytes = size_t(frame_view.width) * frame_view.height * 4;
        ensure_texture_size(r, frame_view.width, frame_view.height);
        bool shown = false;
        if (r.interop_unavailable.empty() && try_interop_buffer(r, frame_view.width, frame_view.height)) {
            try {
                cuda_copy_into_gl_buffer(r.cuda_buffer, rgba_device, bytes);
                upload_frame_from_pixel_buffer(r.texture, r.pixel_buffer);
                shown = true;
                ++r.deep_device_frames;
            } catch (const std::exception& e) {
                r.interop_unavailable = std::string("interop failed while showing a deep frame: ") + e.what();
            }
        }
        if (!shown) {
            try {
                r.host_rgba.resize(bytes);
                cuda_copy_to_host(r.host_rgba.data(), rgba_device, bytes);
                upload_frame_rows(r.texture, r.host_rgba.data(), 0, frame_view.height);
                shown = true;
            } catch (const std::exception&) {
                // The device failed under the frame: the texture keeps the last one, and the
                // worker's next CUDA frame reports the error (the status line says it).
            }
        }
        if (shown) {
            r.texture_view = frame_view;
            r.texture_valid = true;
        }
        upload_ms += ms_since(t0);
    };
    DeepRenderStatus status = take_deep_render_frame(r.deep, upload_host, upload_device);
    const bool was_complete = r.complete;
    const bool current = !r.deep_request_pending && status.frame_id == r.deep_request_id;
    const bool working_on_current = !r.deep_request_pending && status.working_id == r.deep_request_id;
    r.complete = current && status.complete;
    r.cpu_progress = working_on_current && !r.complete ? status.progress : 0.0;
    r.rows_upload_ms = upload_ms;
    if (upload_ms > 0.0) r.timings.upload_ms = upload_ms;
    // A CUDA failure sent the deep frames to the CPU: say so through the path shown.
    if (r.path == RenderPath::DeepCuda && !status.cuda_error.empty()) r.path = RenderPath::DeepCpu;
    r.deep_status = status;
    if (r.complete && !was_complete) {
        // The frame's own figure, reference (when new) and BLA build included; the coarse pass
        // and the colouring are in status.compute_ms.
        r.timings.compute_ms = status.stats.frame_ms;
        r.timings.iterations = status.stats.iterations;
        r.timings.skipped_iterations = status.stats.bla_iterations;
        r.precision_used = status.stats.number_type == DeepNumberType::FloatExp ? Precision::DeepFloatExp
                                                                                : Precision::DeepDouble;
        r.timings.interop_ms = r.timings.host_launch_ms = 0.0;
        ++r.frames_finished;
    }
}

}  // namespace

bool is_deep_path(RenderPath path) { return path == RenderPath::DeepCuda || path == RenderPath::DeepCpu; }

bool view_needs_deep_path(const View& view, Precision precision) {
    // Every formula and Julia set goes through the deep pipeline (deep_location carries them).
    return is_deep(resolve_precision(view, precision));
}

const char* backend_name(Backend backend) { return backend == Backend::Cuda ? "cuda" : "cpu"; }

const char* render_path_name(RenderPath path) {
    switch (path) {
    case RenderPath::None: return "none";
    case RenderPath::Interop: return "interop";
    case RenderPath::Copy: return "copy";
    case RenderPath::Cpu: return "cpu";
    case RenderPath::DeepCuda: return "deep-cuda";
    case RenderPath::DeepCpu: return "deep-cpu";
    }
    return "?";
}

bool frame_renderer_cuda_usable(FrameRenderer& r) {
    if (!r.cuda_asked) {
        r.cuda_asked = true;
        std::string reason;
        if (!cuda_available(&reason) && r.cuda_unavailable.empty()) r.cuda_unavailable = reason;
    }
    return r.cuda_unavailable.empty();
}

void init_frame_renderer(FrameRenderer& r, const std::filesystem::path& shader_dir, bool ask_cuda) {
    r.texture = create_frame_texture(shader_dir);
    if (ask_cuda) frame_renderer_cuda_usable(r);
    start_cpu_render_worker(r.cpu);
    start_deep_render_worker(r.deep);
}

void update_frame_renderer(FrameRenderer& r, const View& view, Backend backend, Precision precision,
                           const PaletteTable& palette) {
    if (backend == Backend::Cuda) frame_renderer_cuda_usable(r);
    if (!same_request(r, view, backend, precision)) {
        r.has_request = true;
        r.requested_view = view;
        r.requested_backend = backend;
        r.requested_precision = precision;
        r.complete = false;
        r.deep.cancel = true;  // whatever the deep worker computes is stale now
        r.deep_request_pending = false;
        if (view_needs_deep_path(view, precision)) {
            // Past FP64: the deep worker, after this UI frame is on screen (as the CPU path).
            r.cpu.cancel = true;
            r.cpu_request_pending = false;
            r.deep_request_pending = true;
            r.deep_request_cuda = backend == Backend::Cuda && r.cuda_unavailable.empty() &&
                                  r.deep_status.cuda_error.empty();
            // Its CUDA frames stay on the device where this GL context shares a buffer with CUDA.
            r.deep_request_device_display = r.deep_request_cuda && r.interop_unavailable.empty() &&
                                            try_interop_buffer(r, view.width, view.height);
            r.pending_palette = palette;
            r.path = r.deep_request_cuda ? RenderPath::DeepCuda : RenderPath::DeepCpu;
            r.cpu_progress = 0.0;
            take_deep_frame(r);
            return;
        }
        RenderPath path = RenderPath::Cpu;
        if (backend == Backend::Cuda && r.cuda_unavailable.empty())
            path = r.interop_unavailable.empty() ? RenderPath::Interop : RenderPath::Copy;
        if (path == RenderPath::Interop && !try_interop_buffer(r, view.width, view.height)) path = RenderPath::Copy;
        // Down the chain on a failure: interop -> copy (CUDA without the shared GL buffer) -> CPU.
        while (path != RenderPath::Cpu) {
            try {
                ensure_texture_size(r, view.width, view.height);
                if (path == RenderPath::Interop) render_interop(r, view, precision, palette);
                else render_copy(r, view, precision, palette);
                r.texture_view = view;
                r.texture_valid = true;
                r.complete = true;
                ++r.frames_finished;
                break;
            } catch (const std::exception& e) {
                if (path == RenderPath::Interop) {
                    r.interop_unavailable = std::string("interop failed while rendering: ") + e.what();
                    path = RenderPath::Copy;
                } else {
                    r.cuda_unavailable = std::string("CUDA failed while rendering: ") + e.what();
                    path = RenderPath::Cpu;
                }
            }
        }
        if (path == RenderPath::Cpu) {
            // The stale frame stops now; the new one starts once this UI frame is on screen
            // (submit_frame_request), so the two do not compete for the cores.
            r.cpu.cancel = true;
            r.cpu_request_pending = true;
            r.pending_palette = palette;
        }
        r.path = path;
    }
    if (r.path == RenderPath::Cpu) take_cpu_rows(r);
    if (is_deep_path(r.path)) take_deep_frame(r);
}

void submit_frame_request(FrameRenderer& r) {
    if (r.deep_request_pending) {
        r.deep_request_pending = false;
        r.deep_request_id = request_deep_render(r.deep, r.requested_view, r.requested_precision, r.pending_palette,
                                                r.deep_request_cuda, r.deep_request_device_display);
    }
    if (!r.cpu_request_pending) return;
    r.cpu_request_pending = false;
    r.cpu_request_id = request_cpu_render(r.cpu, r.requested_view, r.requested_precision, r.pending_palette);
}

void draw_frame(const FrameRenderer& r, const View& shown_view, int window_width, int window_height) {
    GL_CHECK(glViewport(0, 0, window_width, window_height));
    GL_CHECK(glClearColor(0.08f, 0.08f, 0.09f, 1.0f));
    GL_CHECK(glClear(GL_COLOR_BUFFER_BIT));
    if (!r.texture_valid) return;
    draw_frame_texture(r.texture, window_width, window_height, frame_mapping(shown_view, r.texture_view));
}

std::string fallback_reason(const FrameRenderer& r, Backend backend) {
    if (backend != Backend::Cuda) return {};
    if (!r.cuda_unavailable.empty()) return "CUDA unavailable (" + r.cuda_unavailable + "): rendering on the CPU";
    if (is_deep_path(r.path) && !r.deep_status.cuda_error.empty())
        return "The deep CUDA path failed (" + r.deep_status.cuda_error + "): deep frames render on the CPU";
    if (!r.interop_unavailable.empty())
        return "CUDA-GL interop unavailable (" + r.interop_unavailable +
               "): CUDA frames are copied through host memory";
    return {};
}

void shutdown_frame_renderer(FrameRenderer& r) {
    stop_cpu_render_worker(r.cpu);
    stop_deep_render_worker(r.deep);
    cuda_unregister_gl_buffer(r.cuda_buffer);
    if (r.pixel_buffer) glDeleteBuffers(1, &r.pixel_buffer);
    r.pixel_buffer = 0;
    destroy_frame_texture(r.texture);
}

}  // namespace ms
