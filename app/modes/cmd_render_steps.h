// cmd_render_steps.h: the steps of `mandelscope render`'s direct path (render_request in
// cmd_render.cpp), shared by the files that hold them: the checks before any work and the plan
// they make (cmd_render_checks.cpp), and the band loop that renders and writes the image
// (cmd_render_bands.cpp). Each check returns "" or the sentence saying what is wrong.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/modes/cmd_render.h"
#include "compute/io/image_io.h"
#include "compute/io/png_encode_cuda.h"

namespace ms {

// What the checks decide before any work: the image and its samples grid, the palette, where it
// renders and at what precision, and how the image is written.
struct RenderPlan {
    View view;     // the image: the request's view (named after --palette-file's stem)
    View samples;  // K x K samples per pixel over the same region (same zoom)
    int k = 1;     // --supersample
    PaletteTable table;
    bool cuda = false;
    std::string backend_text;  // "CUDA (NAME)", "CPU fast path (...)", and why when automatic
    Precision precision = Precision::Fp64;
    // Direct path only (the deep path plans its own memory, cmd_render_deep.cpp):
    bool png_on_gpu = false;  // the GPU's PNG encoder takes each band as coloured on the device
    bool stream_png = false;  // written band by band (PngStreamWriter), not as one image
    int band_rows = 0;        // output rows per band
};

// The request's values, the palette and the output paths; then the samples grid.
std::string check_request(const RenderRequest& request, RenderPlan* plan);
// Renders a request that check_request passed on the deep path (perturbation against an MPFR
// reference; plan.precision a deep one) on CUDA or the CPU (cmd_render_deep.cpp): its own checks,
// then the backend, the devices and the frame, with the reference orbit computing from before
// the backend's check. Returns render_request's status.
int render_deep_request(const RenderRequest& request, RenderPlan plan);
// CUDA or the CPU, and the line the summary names it with.
std::string choose_backend(const RenderRequest& request, RenderPlan* plan);
// What the direct FP32/FP64 kernels can render, and whether the GPU encodes the PNG.
std::string check_direct_path(const RenderRequest& request, RenderPlan* plan);
// The memory the image needs against what is available; chooses the band height and the writer.
std::string plan_memory(const RenderRequest& request, RenderPlan* plan);
// The disk space the files can take against what their file systems have; warns about tens of
// gigabytes.
std::string check_disk(const RenderRequest& request, const RenderPlan& plan);
// A warning on stderr where the direct kernels' precision cannot tell neighbouring samples apart.
void warn_unresolved(const RenderPlan& plan);

// The output files, opened before any work. The GPU's PNG encoder is declared before the PNG
// writer so that it outlives it: the writer's thread writes from the encoder's pinned buffers.
struct RenderOutputs {
    std::unique_ptr<PngCudaEncoder> gpu_png;
    std::unique_ptr<PngStreamWriter> png_stream;
    std::unique_ptr<NpyStreamWriter> npy_stream;
    std::vector<uint8_t> image;  // whole-image writer only
};

std::string open_outputs(const RenderRequest& request, const RenderPlan& plan, const std::string& view_json,
                         RenderOutputs* outputs);

// Where the time went, for the summary.
struct RenderTimings {
    FrameStats total;
    double colour_ms = 0.0;  // smooth values to RGBA (CPU path; CUDA colours in its kernels)
    double write_ms = 0.0;   // supersampling's box filter, PNG filtering, deflating and writing
    double wall_ms = 0.0;
    PngWriteTimings png;
    // The GPU's PNG encoder: its kernels by CUDA events, its bytes' way to the host (on the PNG
    // writer's thread), its buffers' allocation, the waits for a band's rows (outside writing),
    // and its calls' wall time (the rest of the encode is the host's pieces and CRC-32s).
    double gpu_filter_ms = 0.0, gpu_deflate_ms = 0.0, gpu_compact_ms = 0.0;
    PngCudaCopyStats gpu_copy;
    double gpu_setup_ms = 0.0, gpu_rows_wait_ms = 0.0;
    double gpu_wall_ms = 0.0;
    std::string png_encoder_note;  // why the CPU encoded where the GPU was to (the png line says it)
};

// Renders the image band by band and writes it (cmd_render_bands.cpp); throws on a failure (a
// CUDA error, a full disk).
void render_bands(const RenderRequest& request, const RenderPlan& plan, const std::string& view_json,
                  RenderOutputs& outputs, RenderTimings& t);

}  // namespace ms
