// cmd_render_checks.cpp: everything `mandelscope render` checks on the direct path before any
// work (cmd_render_steps.h): the request, the backend, what the direct kernels can reach, memory
// and disk, and the output files opened up front.
#include "app/modes/cmd_render_steps.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <omp.h>
#include <sys/statvfs.h>

#include "compute/fractal/direct/direct.h"
#include "compute/system/cuda_info.h"
#include "compute/system/cuda_start.h"
#include "compute/system/text_format.h"

namespace ms {

namespace {

constexpr size_t kMiB = size_t(1) << 20;

// Free bytes on the file system that will hold `path` (0 when unknown).
double free_bytes_for(const std::filesystem::path& path) {
    std::filesystem::path dir = path.parent_path();
    if (dir.empty()) dir = ".";
    struct statvfs fs {};
    if (::statvfs(dir.c_str(), &fs) != 0) return 0.0;
    return double(fs.f_bavail) * double(fs.f_frsize);
}

std::string describe_bytes(double bytes) {
    return bytes >= 1e9 ? printf_text("%.1f GB", bytes / 1e9) : printf_text("%.0f MB", std::ceil(bytes / 1e6));
}

// MemAvailable from /proc/meminfo, in bytes (0 when unknown).
size_t available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    size_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return 0;
}

std::string describe_mib(double bytes) {
    return bytes >= 1024.0 * kMiB ? printf_text("%.1f GiB", bytes / (1024.0 * kMiB))
                                  : printf_text("%.0f MiB", std::ceil(bytes / kMiB));
}

}  // namespace

// The request's values, the palette and the output paths; then the samples grid.
std::string check_request(const RenderRequest& request, RenderPlan* plan) {
    View& view = plan->view;
    view = request.view;
    if (std::string problem = validate_view(view); !problem.empty()) return problem;
    const int k = plan->k = request.supersample;
    if (k < 1 || k > 4) return "the supersampling factor must be 1, 2, 3 or 4 (got " + std::to_string(k) + ")";
    if (request.backend != "cpu" && request.backend != "cuda" && request.backend != "auto")
        return "the backend must be cpu, cuda or auto (got '" + request.backend + "')";
    try {
        if (!request.palette_file.empty()) {
            plan->table = make_palette_table(load_palette_file(request.palette_file));
            view.palette = std::filesystem::path(request.palette_file).stem().string();
        } else {
            plan->table = make_palette_table(load_palette(view.palette));
        }
    } catch (const std::exception& e) {
        return e.what();
    }
    if (request.png_path.empty()) return "no output file was given (use -o FILE.png)";
    if (std::string problem = check_writable(request.png_path, ".png"); !problem.empty()) return problem;
    if (!request.raw_path.empty()) {
        if (std::string problem = check_writable(request.raw_path, ".npy"); !problem.empty()) return problem;
        std::error_code ec;
        if (std::filesystem::weakly_canonical(request.raw_path, ec) ==
            std::filesystem::weakly_canonical(request.png_path, ec))
            return "the PNG and the raw output must be different files";
    }
    if (!request.save_location.empty())
        if (std::string problem = check_writable(request.save_location, ".kfr"); !problem.empty()) return problem;
    const int64_t sample_width = int64_t(view.width) * k, sample_height = int64_t(view.height) * k;
    if (sample_width > INT_MAX || sample_height > INT_MAX)
        return "the size " + std::to_string(view.width) + "x" + std::to_string(view.height) + " with supersampling " +
               std::to_string(k) + " is larger than any image Mandelscope can make";
    plan->samples = view;
    plan->samples.width = int(sample_width);
    plan->samples.height = int(sample_height);
    return {};
}

// CUDA or the CPU, and the line the summary names it with.
std::string choose_backend(const RenderRequest& request, RenderPlan* plan) {
    // --backend=cuda asks only for the driver's answer (render_request started CUDA in the
    // background): the context and the probe kernel go on starting beside the work that follows,
    // and the CUDA paths wait for them (cuda_available) where their first kernel needs them, and
    // fail with a sentence where the device cannot run this program's kernels. auto waits for
    // the probe: such a device falls back to the CPU with the reason.
    std::string cuda_reason;
    if (request.backend == "cuda" && !cuda_device_present(&cuda_reason))
        return "the CUDA backend cannot be used: " + cuda_reason;
    plan->cuda = request.backend == "cuda" || (request.backend == "auto" && cuda_available(&cuda_reason));
    if (plan->cuda) {
        plan->backend_text = "CUDA";
        auto system = query_cuda_system();
        if (!system.devices.empty()) plan->backend_text += " (" + system.devices.front().name + ")";
    } else {
        plan->backend_text = "CPU fast path (" + direct_cpu_simd_target() + " SIMD, " +
                             std::to_string(omp_get_max_threads()) + " threads)";
    }
    if (request.backend == "auto")
        plan->backend_text += plan->cuda ? ", chosen automatically" : ", chosen automatically: " + cuda_reason;
    return {};
}

// What the direct FP32/FP64 kernels can render, and whether the GPU encodes the PNG.
std::string check_direct_path(const RenderRequest& request, RenderPlan* plan) {
    const View& view = plan->view;
    if (!plan->samples.zoom.fits_double() || !(pixel_step(plan->samples) > 0.0))
        return "the direct " + std::string(precision_name(plan->precision)) + " kernels cannot reach zoom " +
               view.zoom.text() + " (the pixel step is past double's range); use --precision=auto, " +
               "deep-double or deep-floatexp";
    // The GPU's PNG encoder takes rows coloured on the device, as they are (no box filter on
    // the host), when the smooth values need not come back too.
    plan->png_on_gpu = request.png_encoder != "cpu" && plan->cuda && plan->k == 1 && request.raw_path.empty();
    if (request.png_encoder == "cuda" && !plan->png_on_gpu)
        return std::string("--png-encoder=cuda encodes frames coloured on the GPU: it needs the CUDA backend, ") +
               "no --supersample and no --raw";
    if (view.max_iterations > kMaxDirectIterations)
        return "the direct " + std::string(precision_name(plan->precision)) + " kernels count at most " +
               std::to_string(kMaxDirectIterations) + " iterations (got " + std::to_string(view.max_iterations) +
               "); use --precision=auto or a deep one";
    return {};
}

// Memory: one band holds k output rows' worth of samples per output row (smooth values and
// RGBA, 8 bytes a sample); the whole-image writer also holds the final RGBA image and stb's
// filtered and compressed copies of it (about 3x). Chooses the band height and the writer.
std::string plan_memory(const RenderRequest& request, RenderPlan* plan) {
    const View& view = plan->view;
    const int k = plan->k;
    const size_t available = available_memory_bytes();
    const double usable = available ? 0.8 * double(available) : 4096.0 * kMiB;
    const double sample_width = double(plan->samples.width);
    const double sample_row_bytes = sample_width * k * 8.0 + double(view.width) * 4.0;
    // The CPU kernel's per-thread scratch: up to 4 sample rows, ~144 bytes a sample in FP64
    // (coordinates, results and two queues of orbit state; see direct_cpu.cpp).
    const double kernel_bytes = plan->cuda ? 0.0 : double(omp_get_max_threads()) * 4 * sample_width * 144;
    if (sample_row_bytes + kernel_bytes > usable)
        return "one row of a " + std::to_string(view.width) + "x" + std::to_string(view.height) +
               " image with supersampling " + std::to_string(k) + " needs " +
               describe_mib(sample_row_bytes + kernel_bytes) + " of memory but only " + describe_mib(usable) +
               " are available";
    const double image_bytes = double(view.width) * view.height * 4.0;
    plan->stream_png = request.stream_png || plan->png_on_gpu || request.band_rows > 0 || image_bytes > 512.0 * kMiB ||
                       image_bytes * 3 + 256.0 * kMiB > usable || image_bytes + view.height > double(INT_MAX);
    int band_rows = request.band_rows;
    if (band_rows <= 0) {
        const double budget = std::min(256.0 * kMiB, usable / 4);
        band_rows = int(std::clamp(budget / sample_row_bytes, 1.0, double(view.height)));
    }
    // The GPU's PNG encoder keeps the band on the device (no smooth values or RGBA on the host):
    // bands of 256 MiB of RGBA give it a few hundred segments, enough blocks for every SM.
    if (plan->png_on_gpu && request.band_rows <= 0)
        band_rows = std::max(band_rows,
                             int(std::clamp(256.0 * kMiB / (double(view.width) * 4.0), 1.0, double(view.height))));
    band_rows = std::min(band_rows, view.height);
    // Histogram equalisation ranks a pixel among the whole frame's, and slopes look at the
    // neighbouring rows: both colour the image as one frame.
    const bool whole_frame = view.colouring.base == ColourBase::Histogram || view.colouring.slopes;
    if (whole_frame && band_rows < view.height) {
        if (request.band_rows > 0)
            return "the " + colouring_methods_text(view.colouring) +
                   " colouring looks at the whole image, so it cannot be rendered in bands (--band-rows)";
        if (sample_row_bytes * view.height > usable / 2)
            return "the " + colouring_methods_text(view.colouring) + " colouring of a " + std::to_string(view.width) +
                   "x" + std::to_string(view.height) + " image needs it in memory as one frame (" +
                   describe_mib(sample_row_bytes * view.height) + "), more than there is room for here";
        band_rows = view.height;
    }
    plan->band_rows = band_rows;
    // (On the GPU's PNG encoder a band takes on the host only the fallback's RGBA, 4 bytes a pixel.)
    const double needed = (plan->png_on_gpu ? double(view.width) * 4.0 : sample_row_bytes) * band_rows + kernel_bytes +
                          (plan->stream_png ? 0.0 : image_bytes * 3);
    if (needed > usable)
        return "the image needs " + describe_mib(needed) + " of memory but only " + describe_mib(usable) +
               " are available (use a smaller --size or --supersample)";
    return {};
}

// Disk: a PNG can be as large as its raw pixels (a noisy view barely compresses), and the .npy
// is exactly its samples. Refuses up front what the output's file system cannot hold, rather
// than fill it after an hour; warns about tens of gigabytes.
std::string check_disk(const RenderRequest& request, const RenderPlan& plan) {
    const View& view = plan.view;
    const double png_bytes = double(view.width) * view.height * 4.0 + double(view.height) + 4096.0;
    const double npy_bytes = request.raw_path.empty() ? 0.0
                                                      : double(plan.samples.width) * double(plan.samples.height) * 4.0;
    const double png_free = free_bytes_for(request.png_path);
    const double npy_free = request.raw_path.empty() ? 0.0 : free_bytes_for(request.raw_path);
    if (png_free > 0 && png_bytes > png_free)
        return "a " + std::to_string(view.width) + "x" + std::to_string(view.height) + " PNG can take up to " +
               describe_bytes(png_bytes) + ", but the file system of " + request.png_path.string() + " has " +
               describe_bytes(png_free) + " free";
    if (npy_free > 0 && npy_bytes > npy_free)
        return "the raw values take " + describe_bytes(npy_bytes) + ", but the file system of " +
               request.raw_path.string() + " has " + describe_bytes(npy_free) + " free";
    if (png_bytes + npy_bytes >= 10e9)
        std::fprintf(stderr,
                     "mandelscope render: warning: this %dx%d image can take up to %s on disk%s and a long time "
                     "to compute; progress follows.\n",
                     view.width, view.height, describe_bytes(png_bytes + npy_bytes).c_str(),
                     request.raw_path.empty() ? "" : " (PNG and raw values)");
    return {};
}

// A warning where the direct kernels' precision cannot tell neighbouring samples apart.
void warn_unresolved(const RenderPlan& plan) {
    if (!fp64_resolves(plan.samples))
        std::fprintf(stderr,
                     "mandelscope render: warning: at zoom %g neighbouring pixels are closer than FP64 can tell "
                     "apart, so the picture will be blocky (--precision=auto takes the deep path there).\n",
                     plan.view.zoom.value());
    else if (plan.precision == Precision::Fp32 && !fp32_resolves(plan.samples))
        std::fprintf(stderr,
                     "mandelscope render: warning: at zoom %g FP32 cannot tell neighbouring pixels apart; the "
                     "picture will be blocky (use --precision=fp64 or auto).\n",
                     plan.view.zoom.value());
}

std::string open_outputs(const RenderRequest& request, const RenderPlan& plan, const std::string& view_json,
                         RenderOutputs* outputs) {
    const View& view = plan.view;
    try {
        if (plan.stream_png)
            outputs->png_stream = std::make_unique<PngStreamWriter>(request.png_path, view.width, view.height,
                                                                    view_json);
        else outputs->image.resize(size_t(view.width) * view.height * 4);
        if (!request.raw_path.empty())
            outputs->npy_stream = std::make_unique<NpyStreamWriter>(request.raw_path, plan.samples.height,
                                                                    plan.samples.width);
    } catch (const std::bad_alloc&) {
        return "there is not enough memory for a " + std::to_string(view.width) + "x" + std::to_string(view.height) +
               " image";
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

}  // namespace ms
