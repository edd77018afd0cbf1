// cmd_render.cpp: `mandelscope render`: one view to a PNG (the view in its tEXt chunk) and
// optionally the smooth values to .npy, on the CPU fast path or CUDA, with supersampling.
//
// Large images are rendered in horizontal bands and, beyond a few hundred MiB, written band by
// band (PngStreamWriter), so memory stays bounded whatever the size; the size is checked against
// the memory available before any work. Every bad input is found before rendering and reported
// as one sentence with exit status 2; the output files appear only when complete (AtomicFile).
#include "app/modes/cmd_render.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <omp.h>
#include <sys/statvfs.h>

#include "app/commands.h"
#include "app/modes/progress.h"
#include "compute/fractal/colour/box_filter.h"
#include "compute/fractal/colour/colour_pass.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view_record.h"
#include "compute/io/image_io.h"
#include "compute/io/png_encode.h"
#include "compute/io/png_encode_cuda.h"
#include "compute/system/cpu_info.h"
#include "compute/system/cuda_info.h"
#include "compute/system/number_text.h"
#include "compute/system/text_format.h"

namespace ms {

namespace {

constexpr size_t kMiB = size_t(1) << 20;

// "RE,IM" with the text of each part kept verbatim (compute/view.h, the same in every mode).
std::string parse_center(const std::string& text, View* view) {
    return parse_center_option(text, &view->center_re, &view->center_im);
}

// "WxH" with whole numbers: compute/number_text.h's parser, linear in the text's length (a
// std::regex recursed once per character and overflowed the stack on 26,000 digits).
std::string parse_size(const std::string& text, View* view) {
    return parse_size_text(text, INT_MAX, &view->width, &view->height);
}

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

int bad_input(const std::string& sentence) { return render_bad_input(sentence); }

}  // namespace

int render_bad_input(const std::string& sentence) {
    // Sentences from compute/fractal/deep/ end with their own full stop.
    const bool stop = !sentence.empty() && sentence.back() == '.';
    std::fprintf(stderr, "mandelscope render: %s%s\n", sentence.c_str(), stop ? "" : ".");
    return 2;
}

int render_request(const RenderRequest& request) {
    // --- Check everything before any work ------------------------------------------------
    View view = request.view;
    if (std::string problem = validate_view(view); !problem.empty()) return bad_input(problem);
    const int k = request.supersample;
    if (k < 1 || k > 4) return bad_input("the supersampling factor must be 1, 2, 3 or 4 (got " + std::to_string(k) + ")");
    if (request.backend != "cpu" && request.backend != "cuda" && request.backend != "auto")
        return bad_input("the backend must be cpu, cuda or auto (got '" + request.backend + "')");
    PaletteTable table;
    try {
        if (!request.palette_file.empty()) {
            table = make_palette_table(load_palette_file(request.palette_file));
            view.palette = std::filesystem::path(request.palette_file).stem().string();
        } else {
            table = make_palette_table(load_palette(view.palette));
        }
    } catch (const std::exception& e) {
        return bad_input(e.what());
    }
    if (request.png_path.empty()) return bad_input("no output file was given (use -o FILE.png)");
    if (std::string problem = check_writable(request.png_path, ".png"); !problem.empty()) return bad_input(problem);
    if (!request.raw_path.empty()) {
        if (std::string problem = check_writable(request.raw_path, ".npy"); !problem.empty()) return bad_input(problem);
        std::error_code ec;
        if (std::filesystem::weakly_canonical(request.raw_path, ec) == std::filesystem::weakly_canonical(request.png_path, ec))
            return bad_input("the PNG and the raw output must be different files");
    }
    if (!request.save_location.empty())
        if (std::string problem = check_writable(request.save_location, ".kfr"); !problem.empty()) return bad_input(problem);
    // The samples grid: K x K samples per pixel over the same region (same zoom).
    const int64_t sample_width64 = int64_t(view.width) * k, sample_height64 = int64_t(view.height) * k;
    if (sample_width64 > INT_MAX || sample_height64 > INT_MAX)
        return bad_input("the size " + std::to_string(view.width) + "x" + std::to_string(view.height) +
                         " with supersampling " + std::to_string(k) + " is larger than any image Mandelscope can make");
    View samples = view;
    samples.width = int(sample_width64);
    samples.height = int(sample_height64);

    std::string cuda_reason;
    const bool cuda = request.backend == "cuda" || (request.backend == "auto" && cuda_available(&cuda_reason));
    if (request.backend == "cuda" && !cuda_available(&cuda_reason))
        return bad_input("the CUDA backend cannot be used: " + cuda_reason);
    std::string backend_text;
    if (cuda) {
        backend_text = "CUDA";
        auto system = query_cuda_system();
        if (!system.devices.empty()) backend_text += " (" + system.devices.front().name + ")";
    } else {
        backend_text = "CPU fast path (" + direct_cpu_simd_target() + " SIMD, " + std::to_string(omp_get_max_threads()) +
                       " threads)";
    }
    if (request.backend == "auto")
        backend_text += cuda ? ", chosen automatically" : ", chosen automatically: " + cuda_reason;

    // The path, by depth (view.h: resolve_precision): the direct FP32/FP64 kernels while they
    // resolve the pixels, then perturbation (cmd_render_deep.cpp). --precision can force one.
    const Precision precision = resolve_precision(samples, request.precision);
    if (is_deep(precision))
        if (std::string problem = deep_view_colouring_problem(view); !problem.empty()) return bad_input(problem);
    if (is_deep(precision) && request.png_encoder == "cuda")
        return bad_input("--png-encoder=cuda encodes frames of the direct kernels; the deep path's frames are encoded on the CPU");
    if (is_deep(precision)) return render_deep_request(request, view, samples, cuda, backend_text, table);
    if (!samples.zoom.fits_double() || !(pixel_step(samples) > 0.0))
        return bad_input("the direct " + std::string(precision_name(precision)) + " kernels cannot reach zoom " +
                         view.zoom.text() + " (the pixel step is past double's range); use --precision=auto, " +
                         "deep-double or deep-floatexp");
    // The GPU's PNG encoder takes rows coloured on the device, as they are (no box filter on
    // the host), when the smooth values need not come back too.
    const bool png_on_gpu = request.png_encoder != "cpu" && cuda && k == 1 && request.raw_path.empty();
    if (request.png_encoder == "cuda" && !png_on_gpu)
        return bad_input(std::string("--png-encoder=cuda encodes frames coloured on the GPU: it needs the CUDA backend, ") +
                         "no --supersample and no --raw");
    if (view.max_iterations > kMaxDirectIterations)
        return bad_input("the direct " + std::string(precision_name(precision)) + " kernels count at most " +
                         std::to_string(kMaxDirectIterations) + " iterations (got " +
                         std::to_string(view.max_iterations) + "); use --precision=auto or a deep one");

    // Memory: one band holds k output rows' worth of samples per output row (smooth values and
    // RGBA, 8 bytes a sample); the whole-image writer also holds the final RGBA image and
    // stb's filtered and compressed copies of it (about 3x).
    const size_t available = available_memory_bytes();
    const double usable = available ? 0.8 * double(available) : 4096.0 * kMiB;
    const double sample_row_bytes = double(sample_width64) * k * 8.0 + double(view.width) * 4.0;
    // The CPU kernel's per-thread scratch: up to 4 sample rows, ~144 bytes a sample in FP64
    // (coordinates, results and two queues of orbit state; see direct_cpu.cpp).
    const double kernel_bytes = cuda ? 0.0 : double(omp_get_max_threads()) * 4 * double(sample_width64) * 144;
    if (sample_row_bytes + kernel_bytes > usable)
        return bad_input("one row of a " + std::to_string(view.width) + "x" + std::to_string(view.height) +
                         " image with supersampling " + std::to_string(k) + " needs " +
                         describe_mib(sample_row_bytes + kernel_bytes) + " of memory but only " + describe_mib(usable) +
                         " are available");
    const double image_bytes = double(view.width) * view.height * 4.0;
    const bool stream_png = request.stream_png || png_on_gpu || request.band_rows > 0 || image_bytes > 512.0 * kMiB ||
                            image_bytes * 3 + 256.0 * kMiB > usable || image_bytes + view.height > double(INT_MAX);
    int band_rows = request.band_rows;
    if (band_rows <= 0) {
        const double budget = std::min(256.0 * kMiB, usable / 4);
        band_rows = int(std::clamp(budget / sample_row_bytes, 1.0, double(view.height)));
    }
    // The GPU's PNG encoder keeps the band on the device (no smooth values or RGBA on the host):
    // bands of 256 MiB of RGBA give it a few hundred segments, enough blocks for every SM.
    if (png_on_gpu && request.band_rows <= 0)
        band_rows = std::max(band_rows, int(std::clamp(256.0 * kMiB / (double(view.width) * 4.0), 1.0, double(view.height))));
    band_rows = std::min(band_rows, view.height);
    // Histogram equalisation ranks a pixel among the whole frame's, and slopes look at the
    // neighbouring rows: both colour the image as one frame.
    const bool whole_frame = view.colouring.base == ColourBase::Histogram || view.colouring.slopes;
    if (whole_frame && band_rows < view.height) {
        if (request.band_rows > 0)
            return bad_input("the " + colouring_methods_text(view.colouring) +
                             " colouring looks at the whole image, so it cannot be rendered in bands (--band-rows)");
        if (sample_row_bytes * view.height > usable / 2)
            return bad_input("the " + colouring_methods_text(view.colouring) + " colouring of a " +
                             std::to_string(view.width) + "x" + std::to_string(view.height) +
                             " image needs it in memory as one frame (" +
                             describe_mib(sample_row_bytes * view.height) + "), more than there is room for here");
        band_rows = view.height;
    }
    // (On the GPU's PNG encoder a band takes on the host only the fallback's RGBA, 4 bytes a pixel.)
    const double needed = (png_on_gpu ? double(view.width) * 4.0 : sample_row_bytes) * band_rows + kernel_bytes +
                          (stream_png ? 0.0 : image_bytes * 3);
    if (needed > usable)
        return bad_input("the image needs " + describe_mib(needed) + " of memory but only " + describe_mib(usable) +
                         " are available (use a smaller --size or --supersample)");

    // Disk: a PNG can be as large as its raw pixels (a noisy view barely compresses), and the
    // .npy is exactly its samples. Refuse up front what the output's file system cannot hold,
    // rather than fill it after an hour; warn about tens of gigabytes.
    {
        const double png_bytes = image_bytes + double(view.height) + 4096.0;
        const double npy_bytes = request.raw_path.empty() ? 0.0 : double(sample_width64) * double(sample_height64) * 4.0;
        const double png_free = free_bytes_for(request.png_path);
        const double npy_free = request.raw_path.empty() ? 0.0 : free_bytes_for(request.raw_path);
        if (png_free > 0 && png_bytes > png_free)
            return bad_input("a " + std::to_string(view.width) + "x" + std::to_string(view.height) +
                             " PNG can take up to " + describe_bytes(png_bytes) + ", but the file system of " +
                             request.png_path.string() + " has " + describe_bytes(png_free) + " free");
        if (npy_free > 0 && npy_bytes > npy_free)
            return bad_input("the raw values take " + describe_bytes(npy_bytes) + ", but the file system of " +
                             request.raw_path.string() + " has " + describe_bytes(npy_free) + " free");
        if (png_bytes + npy_bytes >= 10e9)
            std::fprintf(stderr,
                         "mandelscope render: warning: this %dx%d image can take up to %s on disk%s and a long time "
                         "to compute; progress follows.\n",
                         view.width, view.height, describe_bytes(png_bytes + npy_bytes).c_str(),
                         request.raw_path.empty() ? "" : " (PNG and raw values)");
    }

    if (!fp64_resolves(samples))
        std::fprintf(stderr,
                     "mandelscope render: warning: at zoom %g neighbouring pixels are closer than FP64 can tell "
                     "apart, so the picture will be blocky (--precision=auto takes the deep path there).\n",
                     view.zoom.value());
    else if (precision == Precision::Fp32 && !fp32_resolves(samples))
        std::fprintf(stderr,
                     "mandelscope render: warning: at zoom %g FP32 cannot tell neighbouring pixels apart; the "
                     "picture will be blocky (use --precision=fp64 or auto).\n",
                     view.zoom.value());

    ViewRecord record{view, precision, k};
    const std::string view_json = view_to_json(record);
    // The GPU's PNG encoder (below) is declared before the PNG writer so that it outlives it: the
    // writer's thread writes from the encoder's pinned buffers.
    std::unique_ptr<PngCudaEncoder> gpu_png;
    std::unique_ptr<PngStreamWriter> png_stream;
    std::unique_ptr<NpyStreamWriter> npy_stream;
    std::vector<uint8_t> image;  // whole-image writer only
    try {
        if (stream_png) png_stream = std::make_unique<PngStreamWriter>(request.png_path, view.width, view.height, view_json);
        else image.resize(size_t(view.width) * view.height * 4);
        if (!request.raw_path.empty())
            npy_stream = std::make_unique<NpyStreamWriter>(request.raw_path, sample_height64, sample_width64);
    } catch (const std::bad_alloc&) {
        return bad_input("there is not enough memory for a " + std::to_string(view.width) + "x" +
                         std::to_string(view.height) + " image");
    } catch (const std::exception& e) {
        return bad_input(e.what());
    }

    // --- Render, band by band ------------------------------------------------------------
    const auto start = std::chrono::steady_clock::now();
    double colour_ms = 0.0;  // smooth values to RGBA (CPU path; CUDA colours in its kernels)
    double write_ms = 0.0;   // supersampling's box filter, PNG filtering, deflating and writing
    auto since = [](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    };
    FrameStats total;
    total.precision = precision;
    PngWriteTimings png_timings;
    double gpu_filter_ms = 0.0, gpu_deflate_ms = 0.0, gpu_compact_ms = 0.0;  // the GPU's PNG encoder, by CUDA events
    PngCudaCopyStats gpu_copy;  // its bytes' way to the host, on the PNG writer's thread
    double gpu_setup_ms = 0.0, gpu_rows_wait_ms = 0.0;  // its buffers' allocation; waiting for a band's rows (outside writing)
    double gpu_wall_ms = 0.0;  // its calls' wall time (the rest of the encode is the host's pieces and CRC-32s)
    std::string png_encoder_note;  // why the CPU encoded where the GPU was to (the png line says it)
    try {
        const size_t band_samples = size_t(sample_width64) * size_t(band_rows) * k;
        std::vector<float> mu(cuda && request.raw_path.empty() ? 0 : band_samples);
        // Without supersampling the colours go straight where they are written from (the
        // whole image, or the band that is streamed), with no copy between.
        const bool direct = k == 1;
        // (With the GPU's PNG encoder the host's band buffer serves only a fallback: made then.)
        std::vector<uint8_t> rgba(png_on_gpu || (direct && !stream_png) ? 0 : band_samples * 4);
        std::vector<uint8_t> out(stream_png && !direct ? size_t(view.width) * band_rows * 4 : 0);
        const int bands = (view.height + band_rows - 1) / band_rows;
        // Streamed on CUDA: the GPU computes band k+1 and copies it to the host, on a helper
        // thread, while this thread encodes band k on every core (and the PNG writer's own
        // thread writes band k-1): the bands take about the longer of the two, not their sum.
        // Two band buffers alternate. (The CUDA state is one per process, behind its mutex.)
        const bool overlap = !png_on_gpu && cuda && stream_png && direct && mu.empty() && bands > 1;
        std::vector<uint8_t> rgba_other(overlap ? band_samples * 4 : 0);
        auto cuda_band = [&](int band, uint8_t* band_rgba) {
            const int y0 = band * band_rows, rows = std::min(band_rows, view.height - y0);
            const PixelRect rect{0, y0, samples.width, rows};
            return colouring_is_plain(view.colouring)
                       ? direct_cuda_to_host(samples, precision, request.shortcuts, table, rect, band_rgba, nullptr)
                       : render_coloured_cuda_to_host(samples, precision, request.shortcuts, table, rect, 1.0, band_rgba,
                                                      nullptr);
        };
        // The GPU's PNG encoder (compute/io/png_encode_cuda.h): band k is coloured into one of two
        // device buffers, band k+1 into the other on a helper thread while band k is filtered and
        // deflated on the GPU (its own stream) and its compressed bytes written by the PNG writer's
        // thread. Without it (--png-encoder=auto and a CUDA failure) the CPU encodes, with the reason.
        bool gpu_png_on = false;  // until a failure (the encoder is kept: the writer may be writing its bytes)
        uint8_t* device_band[2] = {nullptr, nullptr};
        if (png_on_gpu) {
            try {
                const auto setup_start = std::chrono::steady_clock::now();
                gpu_png = std::make_unique<PngCudaEncoder>(view.width);
                for (int b = 0; b < 2 && b < bands; ++b) device_band[b] = gpu_png->device_rows(b, band_samples * 4);
                gpu_setup_ms = since(setup_start);
                gpu_png_on = true;
            } catch (const std::runtime_error& e) {
                if (request.png_encoder == "cuda") throw;
                gpu_png.reset();  // nothing written from it yet
                rgba.resize(band_samples * 4);
                png_encoder_note = std::string(" (the GPU's could not start: ") + e.what() + ")";
            }
        }
        auto cuda_band_device = [&](int band) {
            const int y0 = band * band_rows, rows = std::min(band_rows, view.height - y0);
            const PixelRect rect{0, y0, samples.width, rows};
            return render_coloured_cuda(samples, precision, request.shortcuts, table, rect, 1.0, device_band[band % 2], nullptr);
        };
        std::future<FrameStats> ahead;
        ProgressBar progress("render");
        for (int band = 0; band < bands; ++band) {
            const int y0 = band * band_rows, rows = std::min(band_rows, view.height - y0);
            const PixelRect rect{0, y0 * k, samples.width, rows * k};
            const int64_t count = int64_t(rect.width) * rect.height;
            const std::string step = "band " + std::to_string(band + 1) + " of " + std::to_string(bands);
            progress.update(double(band) / bands, bands > 1 ? step : std::string());
            uint8_t* const band_rgba = direct && !stream_png ? image.data() + size_t(y0) * view.width * 4
                                       : overlap && band % 2 == 1 ? rgba_other.data()
                                                                  : rgba.data();
            FrameStats stats;
            if (gpu_png_on) {
                const auto rows_start = std::chrono::steady_clock::now();
                stats = band == 0 ? cuda_band_device(0) : ahead.get();
                gpu_rows_wait_ms += since(rows_start);  // band 0's compute, then the waits for the helper's
                if (band + 1 < bands) ahead = std::async(std::launch::async, cuda_band_device, band + 1);
            } else if (overlap) {
                stats = band == 0 ? cuda_band(0, band_rgba) : ahead.get();
                if (band + 1 < bands)
                    ahead = std::async(std::launch::async, cuda_band, band + 1,
                                       band % 2 == 0 ? rgba_other.data() : rgba.data());
            } else if (cuda && !colouring_is_plain(view.colouring)) {
                stats = render_coloured_cuda_to_host(samples, precision, request.shortcuts, table, rect, 1.0 / k,
                                                     band_rgba, mu.empty() ? nullptr : mu.data());
            } else if (cuda) {
                stats = direct_cuda_to_host(samples, precision, request.shortcuts, table, rect, band_rgba,
                                                mu.empty() ? nullptr : mu.data());
            } else if (!colouring_is_plain(view.colouring)) {
                // The colouring layers: their kernels, then the colour pass (timed within).
                CpuRenderControl control;
                control.progress = [&](int done, int all) {
                    progress.update((band + double(done) / all) / bands, bands > 1 ? step : std::string());
                };
                const auto colour_start = std::chrono::steady_clock::now();
                stats = render_coloured_cpu(samples, precision, request.shortcuts, table, rect, 1.0 / k, mu.data(),
                                            band_rgba, control);
                colour_ms += since(colour_start) - stats.compute_ms;
            } else {
                CpuRenderControl control;
                control.progress = [&](int done, int all) {
                    progress.update((band + double(done) / all) / bands, bands > 1 ? step : std::string());
                };
                stats = direct_cpu(samples, precision, request.shortcuts, rect, mu.data(), control);
                const auto colour_start = std::chrono::steady_clock::now();
                colourize_parallel(mu.data(), count, table, view, band_rgba);
                colour_ms += since(colour_start);
            }
            const auto write_start = std::chrono::steady_clock::now();
            total.iterations += stats.iterations;
            total.escaped_pixels += stats.escaped_pixels;
            total.compute_ms += stats.compute_ms;
            if (npy_stream) npy_stream->write_rows(mu.data(), rect.height);
            const PngCudaEncoded* encoded = nullptr;
            double gpu_encode_ms = 0.0;
            if (gpu_png_on) {
                try {
                    encoded = &gpu_png->encode_rows_device(device_band[band % 2], rows);
                    gpu_encode_ms = since(write_start);
                    gpu_wall_ms += gpu_encode_ms;
                    gpu_filter_ms += encoded->filter_ms;
                    gpu_deflate_ms += encoded->deflate_ms;
                    gpu_compact_ms += encoded->compact_ms;
                } catch (const std::runtime_error& e) {
                    if (request.png_encoder == "cuda") throw;
                    png_encoder_note = std::string(" (from row ") + std::to_string(y0) + ": the GPU's failed: " + e.what() + ")";
                    if (ahead.valid()) ahead.get();  // the next band's device rows are dropped: it is computed again
                    gpu_png_on = false;
                    rgba.resize(band_samples * 4);
                    cuda_band(band, rgba.data());  // this band again, to the host
                }
            }
            if (encoded) {
                png_stream->write_deflated_rows(encoded->rows, gpu_encode_ms);
            } else if (stream_png && direct && png_on_gpu) {
                png_stream->write_rows(rgba.data(), rows);  // after a fallback
            } else if (stream_png && direct) {
                png_stream->write_rows(band_rgba, rows);
            } else if (stream_png) {
                box_filter_rgba(rgba.data(), samples.width, k, view.width, rows, out.data());
                png_stream->write_rows(out.data(), rows);
            } else if (!direct) {
                box_filter_rgba(rgba.data(), samples.width, k, view.width, rows, image.data() + size_t(y0) * view.width * 4);
            }
            write_ms += since(write_start);
        }
        progress.update(1.0, bands > 1 ? "writing" : std::string());
        const auto write_start = std::chrono::steady_clock::now();
        if (npy_stream) npy_stream->finish();
        if (stream_png) {
            png_stream->finish();
            png_timings = png_stream->timings();
            if (gpu_png) gpu_copy = gpu_png->copy_stats();  // the writer has read every byte
        } else {
            png_timings = write_png(request.png_path, image.data(), view.width, view.height, view_json);
        }
        if (!request.save_location.empty())
            if (std::string error = write_kfr(request.save_location.string(), deep_location(view)); !error.empty())
                throw std::runtime_error(error);
        write_ms += since(write_start);
        progress.finish();
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "mandelscope render: ran out of memory while rendering; no file was written.\n");
        return 2;
    } catch (const std::exception& e) {  // a CUDA failure, a full disk: one sentence, status 2 as for bad input
        std::fprintf(stderr, "mandelscope render: %s; no file was written.\n", e.what());
        return 2;
    }
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    // --- Summary -----------------------------------------------------------------------------
    std::printf("backend    %s\n", backend_text.c_str());
    std::printf("formula    %s", formula_name(view.formula));
    if (view.julia) std::printf(", Julia set of c = %s, %s", view.julia_re.c_str(), view.julia_im.c_str());
    std::printf("\n");
    std::printf("view       centre %s, %s  zoom %s  %dx%d", view.center_re.c_str(), view.center_im.c_str(),
                view.zoom.text().c_str(), view.width, view.height);
    if (k > 1) std::printf(" (%dx%d supersampling: %dx%d samples)", k, k, samples.width, samples.height);
    std::printf("  %lld iterations  palette %s%s\n", (long long)view.max_iterations, view.palette.c_str(),
                request.shortcuts.cardioid_bulb || request.shortcuts.periodicity ? "" : "  no shortcuts");
    if (!colouring_is_plain(view.colouring))
        std::printf("colouring  %s  interior %s\n", colouring_methods_text(view.colouring).c_str(),
                    interior_colour_name(view.colouring.interior));
    std::printf("precision  %s\n", precision_name(precision));
    std::printf("time       %.1f ms computing, %.1f ms colouring, %.1f ms writing, %.1f ms in all\n", total.compute_ms,
                colour_ms, write_ms, wall_ms);
    // Where the writing went (compute/io/image_io.h): the encoder on every core, the writer
    // thread beside it, and the final fsync. "waited" above zero means the disk was the slower
    // stage; --disk-check times the disk alone on the same number of bytes.
    const double write_and_fsync_ms = png_timings.write_ms + png_timings.fsync_ms;
    std::printf("png        %s encoder%s: encode %.1f ms (%.0f MB/s of RGB), write %.1f ms beside it (%.1f ms waited for it), "
                "fsync %.1f ms; %llu bytes (%.0f MB/s of PNG through write and fsync)\n",
                !png_timings.gpu_encoded ? "CPU" : png_encoder_note.empty() ? "GPU" : "GPU, then CPU",
                png_encoder_note.c_str(), png_timings.encode_ms,
                png_timings.encode_ms > 0 ? png_timings.raw_bytes / (png_timings.encode_ms * 1e3) : 0.0,
                png_timings.write_ms, png_timings.wait_ms, png_timings.fsync_ms,
                (unsigned long long)png_timings.file_bytes,
                write_and_fsync_ms > 0 ? png_timings.file_bytes / (write_and_fsync_ms * 1e3) : 0.0);
    // The GPU's share: its kernels and the sizes' copy are within the encode (this thread waits
    // for them); its compressed bytes are copied to the host on the writer's thread, span by span
    // beside the writes, so that copy is within the write, not the encode.
    if (png_timings.gpu_encoded)
        std::printf("png gpu    filter kernel %.1f ms, deflate kernel %.1f ms, compaction and CRC-32 kernel %.1f ms; "
                    "%.1f ms in the GPU encoder's calls, %.1f ms on the host's share (all within the encode); the %llu "
                    "compressed bytes copied to the host beside the writes, in %d spans through %.0f MiB of pinned "
                    "staging (pinned in %.1f ms on a helper thread, %.1f ms waited for): %.1f ms copying, %.1f ms of "
                    "the write waiting for the copies; outside the writing: %.1f ms allocating the encoder's device "
                    "buffers, %.1f ms waiting for the bands' rows (the first band's computing, then the helper's)\n",
                    gpu_filter_ms, gpu_deflate_ms, gpu_compact_ms, gpu_wall_ms, png_timings.encode_ms - gpu_wall_ms,
                    (unsigned long long)gpu_copy.bytes, gpu_copy.spans, double(gpu_copy.staging_bytes) / kMiB,
                    gpu_copy.staging_ms, gpu_copy.staging_wait_ms, gpu_copy.copy_ms, gpu_copy.copy_wait_ms,
                    gpu_setup_ms, gpu_rows_wait_ms);
    if (request.disk_check) {
        try {
            std::filesystem::path dir = resolve_output_path(request.png_path).parent_path();
            const double disk_ms = time_plain_disk_write_ms(dir, png_timings.file_bytes);
            std::printf("disk       the same %llu bytes in 1 MiB write()s and fsync (as dd bs=1M conv=fsync): %.1f ms "
                        "(%.0f MB/s); the PNG's write and fsync took %.2fx that\n",
                        (unsigned long long)png_timings.file_bytes, disk_ms,
                        disk_ms > 0 ? png_timings.file_bytes / (disk_ms * 1e3) : 0.0,
                        disk_ms > 0 ? write_and_fsync_ms / disk_ms : 0.0);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "mandelscope render: --disk-check: %s\n", e.what());
            return 2;
        }
    }
    std::printf("speed      %.3g iterations/s (%llu iterations executed)\n",
                total.compute_ms > 0 ? double(total.iterations) / (total.compute_ms * 1e-3) : 0.0,
                (unsigned long long)total.iterations);
    std::printf("output     %s\n", request.png_path.c_str());
    if (!request.raw_path.empty())
        std::printf("raw        %s (float32, %lld x %lld samples, interior = -1)\n", request.raw_path.c_str(),
                    (long long)sample_height64, (long long)sample_width64);
    if (!request.save_location.empty()) std::printf("location   %s\n", request.save_location.c_str());
    return 0;
}

int run_render_command(int argc, char** argv) {
    CLI::App app{"Render a view of the Mandelbrot set (or another formula, or a Julia set) to a PNG (the view is stored in the PNG's metadata)", "render"};
    RenderRequest request;
    std::string center = View{}.center_re + "," + View{}.center_im, size = "1280x720", png, raw;
    std::string zoom = View{}.zoom.text();
    bool no_shortcuts = false;
    std::string precision = "auto";
    std::string colouring = "smooth", interior = "flat";
    Colouring& colour = request.view.colouring;
    app.add_option("--center", center, "Centre RE,IM as decimal text, kept verbatim (write --center=-0.75,0)")
        ->capture_default_str();
    std::string formula = formula_name(Formula::Mandelbrot), julia;
    app.add_option("--formula", formula, formula_names() + " (each opens on its own default view)")
        ->capture_default_str();
    app.add_option("--julia", julia, "Draw the formula's Julia set of c = RE,IM (decimal text, kept verbatim)");
    app.add_option("--zoom", zoom, "Zoom: half the image height spans 2/zoom; any depth (4.00000000000E533)")
        ->capture_default_str();
    app.add_option("--size", size, "Image size WIDTHxHEIGHT in pixels")->capture_default_str();
    std::string iterations = "1000", location, save_location;
    bool print_view = false;
    auto* center_option = app.get_option("--center");
    auto* zoom_option = app.get_option("--zoom");
    auto* iter_option = app.add_option("--iter", iterations,
                                       "Maximum iterations (up to 1e11), or auto: 1000 + 600 per decade of zoom")
                            ->capture_default_str();
    app.add_option("--location", location,
                   "A Kalles Fraktaler location file (.kfr): its Re, Im, Zoom and Iterations (--iter overrides them)");
    app.add_option("--save-location", save_location, "Also write the view as a .kfr location file");
    app.add_flag("--disk-check", request.disk_check,
                 "After writing, time the disk alone on the PNG's size (write and fsync, as dd conv=fsync) to compare");
    app.add_option("--png-encoder", request.png_encoder,
                   "Who deflates the PNG: cuda (on the GPU, where the frame is coloured there), cpu, or auto "
                   "(cuda with --backend=cuda, no --supersample and no --raw)")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
        ->capture_default_str();
    app.add_flag("--print-view", print_view, "Print the view (centre, zoom, iterations, size) once the PNG is written");
    app.add_option("--palette", request.view.palette, "Palette name (a file in assets/palettes/; a name, not a path)")
        ->capture_default_str();
    app.add_option("--palette-file", request.palette_file, "A palette file anywhere (the format of assets/palettes/*.txt)");
    app.add_option("--offset", request.view.palette_offset, "Palette offset, in cycles")->capture_default_str();
    app.add_option("--density", request.view.palette_density, "Palette cycles per 100 iterations")->capture_default_str();
    app.add_option("--colouring", colouring,
                   "Colouring: a base (smooth, histogram or stripe) and layers (de, slope), comma-separated, e.g. "
                   "histogram,de,slope")
        ->capture_default_str();
    app.add_option("--interior", interior, "Interior colouring: flat (the palette's interior colour) or period")
        ->capture_default_str();
    app.add_option("--stripe-density", colour.stripe_density, "Stripe base: stripes per turn of arg z (1-64)")
        ->capture_default_str();
    app.add_option("--de-band", colour.de_band_px, "de layer: width of the dark band along the boundary, in pixels")
        ->capture_default_str();
    app.add_option("--slope-angle", colour.slope_angle_deg, "slope layer: light direction in degrees, counterclockwise from the right")
        ->capture_default_str();
    app.add_option("--slope-strength", colour.slope_strength, "slope layer: relief height (0 is flat)")
        ->capture_default_str();
    app.add_option("--backend", request.backend, "cpu, cuda, or auto (CUDA when a device is usable)")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
        ->capture_default_str();
    app.add_option("--precision", precision,
                   "auto (by depth: fp32, fp64, then perturbation in double and in floatexp), fp32, fp64, "
                   "deep-double or deep-floatexp")
        ->check(CLI::IsMember({"auto", "fp32", "fp64", "deep-double", "deep-floatexp"}))
        ->capture_default_str();
    app.add_option("--supersample", request.supersample, "K: render K x K samples per pixel and box-filter them (1-4)")
        ->check(CLI::Range(1, 4))
        ->capture_default_str();
    app.add_flag("--no-shortcuts", no_shortcuts, "Switch off the cardioid/bulb test and periodicity checking");
    app.add_option("-o,--output", png, "Output PNG file")->required();
    app.add_option("--raw", raw, "Also write the smooth iteration values: float32 .npy of the samples grid (height*K x width*K), interior = -1");
    // For tests of the band-by-band path: output rows per band, and the streaming PNG writer.
    app.add_option("--band-rows", request.band_rows, "Render and write this many rows at a time")->group("");
    if (int status = parse_command_line(app, argc, argv); status >= 0) return status;

    if (!parse_formula(formula, &request.view.formula))
        return bad_input("the formula '" + (formula.size() > 60 ? formula.substr(0, 60) + "..." : formula) +
                         "' is not one of " + formula_names());
    if (app.count("--julia") > 0) {
        if (std::string problem = parse_julia_option(julia, &request.view.julia_re, &request.view.julia_im);
            !problem.empty())
            return bad_input(problem);
        request.view.julia = true;
    }
    // A formula (or Julia set) opens on its own frame unless --center or --zoom say otherwise.
    const FormulaFrame frame = formula_default_frame(request.view.formula, request.view.julia);
    if (center_option->count() == 0) center = std::string(frame.center_re) + "," + frame.center_im;
    if (zoom_option->count() == 0) zoom = ViewZoom(frame.zoom).text();
    if (!location.empty()) {
        // The location gives centre, zoom and iterations; an explicit --iter wins over its count.
        // It also gives the formula and the Julia parameter (kfr.h).
        if (center_option->count() > 0 || zoom_option->count() > 0)
            return bad_input("--location gives the centre and the zoom: leave out --center and --zoom");
        if (app.count("--formula") > 0 || app.count("--julia") > 0)
            return bad_input("--location gives the formula and the Julia parameter: leave out --formula and --julia");
        DeepLocation kfr;
        if (std::string problem = read_kfr(location, &kfr); !problem.empty()) return bad_input(problem);
        request.view.center_re = kfr.center_re;
        request.view.center_im = kfr.center_im;
        request.view.formula = kfr.formula;
        request.view.julia = kfr.julia;
        request.view.julia_re = kfr.julia_re;
        request.view.julia_im = kfr.julia_im;
        request.view.zoom = ViewZoom::from_deep(kfr.zoom);
        request.view.max_iterations = kfr.max_iterations;
    } else {
        if (std::string problem = parse_center(center, &request.view); !problem.empty()) return bad_input(problem);
        if (std::string problem = ViewZoom::parse(zoom, &request.view.zoom); !problem.empty()) return bad_input(problem);
    }
    if (std::string problem = parse_size(size, &request.view); !problem.empty()) return bad_input(problem);
    if (std::string problem = parse_colouring_methods(colouring, &colour); !problem.empty()) return bad_input(problem);
    if (std::string problem = parse_interior_colour(interior, &colour.interior); !problem.empty())
        return bad_input(problem);
    // Iterations are fixed unless asked for: a render reproduces exactly what its command line
    // says. --iter=auto follows the window's rule (render/frame/view_math.h), at any depth.
    if (iterations == "auto") {
        request.view.max_iterations = std::min<int64_t>(
            kDeepMaxIterations, std::llround((1000.0 + 600.0 * std::max(0.0, request.view.zoom.log10())) / 100.0) * 100);
    } else if (location.empty() || iter_option->count() > 0) {
        if (std::string problem = parse_deep_iterations(iterations, &request.view.max_iterations); !problem.empty())
            return bad_input(problem);
    }
    if (!precision_from_name(precision, &request.precision)) return bad_input("unknown precision " + precision);
    request.save_location = save_location;
    request.shortcuts = no_shortcuts ? Shortcuts{false, false} : Shortcuts{};
    request.png_path = png;
    request.raw_path = raw;
    const int status = render_request(request);
    if (status == 0 && print_view)  // the same line as the window's --print-view
        std::printf("view: center=%s,%s zoom=%s iterations=%lld size=%dx%d\n", request.view.center_re.c_str(),
                    request.view.center_im.c_str(), request.view.zoom.text().c_str(),
                    (long long)request.view.max_iterations, request.view.width, request.view.height);
    return status;
}

}  // namespace ms
