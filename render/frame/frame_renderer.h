// frame_renderer.h: turns the current view into the picture on screen, by the best path that
// works here, and says which one ran and why the faster ones did not:
//
//   interop  CUDA writes RGBA8 straight into an OpenGL pixel buffer object (no host copy),
//            then glTexSubImage2D from it, all on the GPU;
//   copy     CUDA renders into device memory and the frame comes through host memory
//            (when the GL context is not NVIDIA's, e.g. Mesa, and cannot share buffers);
//   cpu      compute/'s CPU path on a worker thread, shown coarse to fine
//            (no CUDA device, a CPU-only build, a CUDA failure, or the user's choice);
//   deep-cuda, deep-cpu
//            past FP64's resolution: perturbation from an MPFR reference orbit, with BLA, on
//            the deep worker's thread (deep_render_worker.h), on CUDA or the CPU. A full CUDA
//            frame is coloured on the device and reaches the shared pixel buffer by one
//            device-to-device copy (where interop works); the coarse pass, a drag's panned
//            views and CPU frames come through host memory, as the copy path's.
//
// A failure on the way down is remembered with its reason (shown in the window and logged)
// and that path is not retried. The renderer owns the GL and CUDA resources; the main loop
// calls update_frame_renderer() and draw_frame() once per frame.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "compute/fractal/direct/direct.h"
#include "render/frame/cpu_render_worker.h"
#include "render/frame/cuda_interop.h"
#include "render/frame/deep_render_worker.h"
#include "render/frame/frame_texture.h"

namespace ms {

enum class Backend { Cpu, Cuda };
enum class RenderPath { None, Interop, Copy, Cpu, DeepCuda, DeepCpu };
const char* backend_name(Backend backend);  // "cpu", "cuda"
// "none", "interop", "copy", "cpu", "deep-cuda", "deep-cpu"
const char* render_path_name(RenderPath path);
bool is_deep_path(RenderPath path);
// Whether `view` renders on a deep path (compute/fractal/view/view.h's resolve_precision: automatic
// precision past FP64's resolution or past the direct kernels' iterations, or a deep precision
// chosen). A forced FP32 or FP64 keeps the direct kernels, blocky as they are past FP64.
bool view_needs_deep_path(const View& view, Precision precision);

// Where the last frame's time went (milliseconds; 0 where a step did not happen).
struct FrameTimings {
    double compute_ms = 0.0;  // CUDA events around the kernels, or the CPU frame's wall time
    double interop_ms = 0.0;  // map + unmap of the shared buffer
    double upload_ms = 0.0;   // glTexSubImage2D (from the buffer or from host memory), host time
    // CUDA paths: the host clock around the launch calls alone, without synchronisation
    // (FrameStats::host_launch_ms): shown by the performance panel as the wrong measurement.
    double host_launch_ms = 0.0;
    uint64_t iterations = 0;  // of the last finished frame
    // Of those, the ones BLA skipped (a deep frame's DeepFrameStats::bla_iterations; 0 on the
    // direct paths): the rest were stepped one at a time, its perturbation steps.
    uint64_t skipped_iterations = 0;
};

struct FrameRenderer {
    FrameTexture texture;
    // Interop: one pixel buffer object, registered with CUDA once per size.
    GLuint pixel_buffer = 0;
    CudaGlBuffer cuda_buffer;
    int pixel_buffer_width = 0;
    int pixel_buffer_height = 0;
    std::vector<uint8_t> host_rgba;  // the copy path's frame
    CpuRenderWorker cpu;
    uint64_t cpu_request_id = 0;
    bool cpu_request_pending = false;  // requested_view goes to the worker after this UI frame
    PaletteTable pending_palette;
    // Deep paths: the worker, the request handed to it after this UI frame, what it reported.
    DeepRenderWorker deep;
    uint64_t deep_request_id = 0;
    bool deep_request_pending = false;
    bool deep_request_cuda = false;
    bool deep_request_device_display = false;  // its CUDA frames come from device memory
    uint64_t deep_device_frames = 0;           // deep frames shown by a device-to-device copy (tests, bench)
    DeepRenderStatus deep_status;

    // Why faster paths are out (empty while they are usable). Set once, never retried.
    std::string cuda_unavailable;     // no CUDA here, or CUDA failed while rendering
    std::string interop_unavailable;  // buffer sharing with this GL context failed
    // Whether CUDA has been asked (cuda_unavailable holds its answer). A window that starts on
    // the CPU asks only once CUDA is chosen (frame_renderer_cuda_usable): until then the driver
    // is not started, which costs a few hundred milliseconds of the first frame on a GPU host.
    bool cuda_asked = false;

    // The last request, and what the texture shows.
    bool has_request = false;
    View requested_view;
    Backend requested_backend = Backend::Cpu;
    Precision requested_precision = Precision::Auto;
    View texture_view;
    bool texture_valid = false;
    bool complete = false;  // the texture holds all of requested_view
    RenderPath path = RenderPath::None;
    Precision precision_used = Precision::Fp64;
    double cpu_progress = 0.0;  // of the CPU frame under way (deep paths: of the phase under way)
    FrameTimings timings;
    double rows_upload_ms = 0.0;   // CPU path: upload time of the rows taken by the last update
    uint64_t frames_finished = 0;  // counts frames completed (CUDA: rendered; CPU: last row in):
                                   // a change means `timings` describe a new frame
};

// Loads the shaders, creates the texture, asks CUDA whether it is usable (unless ask_cuda is
// false: a window that starts on the CPU), starts the CPU worker.
void init_frame_renderer(FrameRenderer& renderer, const std::filesystem::path& shader_dir, bool ask_cuda = true);
// Whether CUDA can render here: asks it the first time (cuda_available), then answers from
// cuda_unavailable. update_frame_renderer asks before a frame on the CUDA backend.
bool frame_renderer_cuda_usable(FrameRenderer& renderer);
// Once per frame, with the GL context current: renders `view` if it differs from the last
// request (CUDA paths: synchronously; CPU path: hands it to the worker) and takes the CPU
// worker's finished rows into the texture.
void update_frame_renderer(FrameRenderer& renderer, const View& view, Backend backend, Precision precision,
                           const PaletteTable& palette);
// After glfwSwapBuffers: hands the CPU worker the view update_frame_renderer asked for. A UI
// frame costs tens of milliseconds of CPU under a software GL (Mesa's llvmpipe): starting the
// worker after it, not during it, keeps the two from sharing the cores.
void submit_frame_request(FrameRenderer& renderer);
// Draws what the texture holds, moved onto `shown_view` (the preview while the CPU catches up).
void draw_frame(const FrameRenderer& renderer, const View& shown_view, int window_width, int window_height);
// The sentence the window shows when `backend` was asked for but a slower path runs; "" if none.
std::string fallback_reason(const FrameRenderer& renderer, Backend backend);
void shutdown_frame_renderer(FrameRenderer& renderer);

}  // namespace ms
