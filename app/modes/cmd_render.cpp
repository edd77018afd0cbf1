// cmd_render.cpp: `mandelscope render`: one view to a PNG (the view in its tEXt chunk) and
// optionally the smooth values to .npy, on the CPU fast path or CUDA, with supersampling.
//
// Large images are rendered in horizontal bands and, beyond a few hundred MiB, written band by
// band (PngStreamWriter), so memory stays bounded whatever the size; the size is checked against
// the memory available before any work. Every bad input is found before rendering and reported
// as one sentence with exit status 2; the output files appear only when complete (AtomicFile).
// render_request reads as its steps: the checks (cmd_render_checks.cpp), the deep path past the
// direct kernels (cmd_render_deep.cpp), the band loop (cmd_render_bands.cpp), the summary here.
#include "app/modes/cmd_render.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "app/commands.h"
#include "app/modes/cmd_nucleus.h"
#include "app/modes/cmd_render_cluster.h"
#include "app/modes/cmd_render_steps.h"
#include "app/modes/render_options.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/view/view_record.h"
#include "compute/io/image_io.h"
#include "compute/system/cuda_start.h"
#include "compute/system/number_text.h"

namespace ms {

namespace {

constexpr size_t kMiB = size_t(1) << 20;

int bad_input(const std::string& sentence) { return render_bad_input(sentence); }

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Where the writing went (compute/io/image_io.h): the encoder on every core, the writer thread
// beside it, and the final fsync. "waited" above zero means the disk was the slower stage;
// --disk-check times the disk alone on the same number of bytes.
void print_png_summary(const RenderTimings& t) {
    const PngWriteTimings& png = t.png;
    const double write_and_fsync_ms = png.write_ms + png.fsync_ms;
    std::printf(
        "png        %s encoder%s: encode %.1f ms (%.0f MB/s of RGB), write %.1f ms beside it (%.1f ms waited for it), "
        "fsync %.1f ms; %llu bytes (%.0f MB/s of PNG through write and fsync)\n",
        !png.gpu_encoded             ? "CPU"
        : t.png_encoder_note.empty() ? "GPU"
                                     : "GPU, then CPU",
        t.png_encoder_note.c_str(), png.encode_ms, png.encode_ms > 0 ? png.raw_bytes / (png.encode_ms * 1e3) : 0.0,
        png.write_ms, png.wait_ms, png.fsync_ms, (unsigned long long)png.file_bytes,
        write_and_fsync_ms > 0 ? png.file_bytes / (write_and_fsync_ms * 1e3) : 0.0);
    // The GPU's share: its kernels and the sizes' copy are within the encode (this thread waits
    // for them); its compressed bytes are copied to the host on the writer's thread, span by span
    // beside the writes, so that copy is within the write, not the encode.
    if (!png.gpu_encoded) return;
    const PngCudaCopyStats& copy = t.gpu_copy;
    std::printf(
        "png gpu    filter kernel %.1f ms, deflate kernel %.1f ms, compaction and CRC-32 kernel %.1f ms; "
        "%.1f ms in the GPU encoder's calls, %.1f ms on the host's share (all within the encode); the %llu "
        "compressed bytes copied to the host beside the writes, in %d spans through %.0f MiB of pinned "
        "staging (pinned in %.1f ms on a helper thread, %.1f ms waited for): %.1f ms copying, %.1f ms of "
        "the write waiting for the copies; outside the writing: %.1f ms allocating the encoder's device "
        "buffers, %.1f ms waiting for the bands' rows (the first band's computing, then the helper's)\n",
        t.gpu_filter_ms, t.gpu_deflate_ms, t.gpu_compact_ms, t.gpu_wall_ms, png.encode_ms - t.gpu_wall_ms,
        (unsigned long long)copy.bytes, copy.spans, double(copy.staging_bytes) / kMiB, copy.staging_ms,
        copy.staging_wait_ms, copy.copy_ms, copy.copy_wait_ms, t.gpu_setup_ms, t.gpu_rows_wait_ms);
}

// --disk-check: the same number of bytes written to the PNG's folder in plain 1 MiB write()s
// and an fsync, to set the PNG's write and fsync against. Throws when the disk cannot be timed.
void print_disk_check(const RenderRequest& request, const PngWriteTimings& png) {
    const double write_and_fsync_ms = png.write_ms + png.fsync_ms;
    std::filesystem::path dir = resolve_output_path(request.png_path).parent_path();
    const double disk_ms = time_plain_disk_write_ms(dir, png.file_bytes);
    std::printf(
        "disk       the same %llu bytes in 1 MiB write()s and fsync (as dd bs=1M conv=fsync): %.1f ms "
        "(%.0f MB/s); the PNG's write and fsync took %.2fx that\n",
        (unsigned long long)png.file_bytes, disk_ms, disk_ms > 0 ? png.file_bytes / (disk_ms * 1e3) : 0.0,
        disk_ms > 0 ? write_and_fsync_ms / disk_ms : 0.0);
}

// The summary on stdout; --disk-check times the disk here. Returns the exit status.
int print_summary(const RenderRequest& request, const RenderPlan& plan, const RenderTimings& t) {
    const View& view = plan.view;
    const int k = plan.k;
    std::printf("backend    %s\n", plan.backend_text.c_str());
    std::printf("formula    %s", formula_name(view.formula));
    if (view.julia) std::printf(", Julia set of c = %s, %s", view.julia_re.c_str(), view.julia_im.c_str());
    std::printf("\n");
    std::printf("view       centre %s, %s  zoom %s  %dx%d", view.center_re.c_str(), view.center_im.c_str(),
                view.zoom.text().c_str(), view.width, view.height);
    if (k > 1) std::printf(" (%dx%d supersampling: %dx%d samples)", k, k, plan.samples.width, plan.samples.height);
    std::printf("  %lld iterations  palette %s%s\n", (long long)view.max_iterations, view.palette.c_str(),
                request.shortcuts.cardioid_bulb || request.shortcuts.periodicity ? "" : "  no shortcuts");
    if (!colouring_is_plain(view.colouring))
        std::printf("colouring  %s  interior %s\n", colouring_methods_text(view.colouring).c_str(),
                    interior_colour_name(view.colouring.interior));
    std::printf("precision  %s\n", precision_name(plan.precision));
    std::printf("time       %.1f ms computing, %.1f ms colouring, %.1f ms writing, %.1f ms in all\n",
                t.total.compute_ms, t.colour_ms, t.write_ms, t.wall_ms);
    print_png_summary(t);
    if (request.disk_check) {
        try {
            print_disk_check(request, t.png);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "mandelscope render: --disk-check: %s\n", e.what());
            return 2;
        }
    }
    std::printf("speed      %.3g iterations/s (%llu iterations executed)\n",
                t.total.compute_ms > 0 ? double(t.total.iterations) / (t.total.compute_ms * 1e-3) : 0.0,
                (unsigned long long)t.total.iterations);
    std::printf("output     %s\n", request.png_path.c_str());
    if (!request.raw_path.empty())
        std::printf("raw        %s (float32, %lld x %lld samples, interior = -1)\n", request.raw_path.c_str(),
                    (long long)plan.samples.height, (long long)plan.samples.width);
    if (!request.save_location.empty()) std::printf("location   %s\n", request.save_location.c_str());
    return 0;
}

}  // namespace

int render_bad_input(const std::string& sentence) {
    // Sentences from compute/fractal/deep/ end with their own full stop.
    const bool stop = !sentence.empty() && sentence.back() == '.';
    std::fprintf(stderr, "mandelscope render: %s%s\n", sentence.c_str(), stop ? "" : ".");
    return 2;
}

int render_request(const RenderRequest& request) {
    // Check everything before any work.
    RenderPlan plan;
    if (std::string problem = check_request(request, &plan); !problem.empty()) return bad_input(problem);
    if (request.backend != "cpu") cuda_start_in_background();
    // The path, by depth (view.h: resolve_precision): the direct FP32/FP64 kernels while they
    // resolve the pixels, then perturbation (cmd_render_deep.cpp). --precision can force one.
    plan.precision = resolve_precision(plan.samples, request.precision);
    // The deep path chooses its backend itself, once its reference orbit has started.
    if (is_deep(plan.precision)) return render_deep_request(request, std::move(plan));
    if (std::string problem = choose_backend(request, &plan); !problem.empty()) return bad_input(problem);
    if (std::string problem = check_devices_visible(request); !problem.empty()) return bad_input(problem);
    if (std::string problem = check_direct_path(request, &plan); !problem.empty()) return bad_input(problem);
    if (std::string problem = plan_memory(request, &plan); !problem.empty()) return bad_input(problem);
    if (std::string problem = check_disk(request, plan); !problem.empty()) return bad_input(problem);
    warn_unresolved(plan);
    const std::string view_json = view_to_json(ViewRecord{plan.view, plan.precision, plan.k});
    RenderOutputs outputs;
    if (std::string problem = open_outputs(request, plan, view_json, &outputs); !problem.empty())
        return bad_input(problem);

    // Render, band by band.
    const auto start = std::chrono::steady_clock::now();
    RenderTimings timings;
    try {
        render_bands(request, plan, view_json, outputs, timings);
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "mandelscope render: ran out of memory while rendering; no file was written.\n");
        return 2;
    } catch (const std::exception& e) {  // a CUDA failure, a full disk: one sentence, status 2 as for bad input
        std::fprintf(stderr, "mandelscope render: %s; no file was written.\n", e.what());
        return 2;
    }
    timings.wall_ms = ms_since(start);
    return print_summary(request, plan, timings);
}

namespace {

void add_render_options(CLI::App& app, RenderRequest& request, RenderOptionTexts& o) {
    add_view_place_options(app, o);
    app.add_option("--save-location", o.save_location, "Also write the view as a .kfr location file");
    app.add_flag("--disk-check", request.disk_check,
                 "After writing, time the disk alone on the PNG's size (write and fsync, as dd conv=fsync) to compare");
    app.add_option("--png-encoder", request.png_encoder,
                   "Who deflates the PNG: cuda (on the GPU, where the frame is coloured there), cpu, or auto "
                   "(cuda with --backend=cuda, no --supersample and no --raw)")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
        ->capture_default_str();
    add_newton_zoom_options(app, o);
    app.add_flag("--print-view", o.print_view,
                 "Print the view (centre, zoom, iterations, size) once the PNG is written");
    add_view_look_options(app, request, o);
    add_devices_option(app, o,
                       "CUDA devices a deep frame's bands are shared over, comma-separated (0,1; a device may "
                       "repeat); default: every visible device for frames of 16M samples or more, one device below");
    app.add_option("-o,--output", o.png, "Output PNG file")->required();
    app.add_option(
        "--raw", o.raw,
        "Also write the smooth iteration values: float32 .npy of the samples grid (height*K x width*K), interior = -1");
    // For tests of the band-by-band path: output rows per band, and the streaming PNG writer.
    app.add_option("--band-rows", request.band_rows, "Render and write this many rows at a time")->group("");
}

// The view options (render_options.cpp), then render's own outputs.
std::string apply_render_options(const CLI::App& app, const RenderOptionTexts& o, RenderRequest* request) {
    if (std::string problem = apply_view_options(app, o, request); !problem.empty()) return problem;
    if (std::string problem = apply_devices_option(app, o, request); !problem.empty()) return problem;
    request->save_location = o.save_location;
    request->png_path = o.png;
    request->raw_path = o.raw;
    // Newton zoom moves the view before the checks, which then see the view it renders.
    return apply_newton_zoom(app, o, request);
}

}  // namespace

int run_render_command(int argc, char** argv) {
    CLI::App app{
        "Render a view of the Mandelbrot set (or another formula, or a Julia set) to a PNG (the view is stored in the "
        "PNG's metadata)",
        "render"};
    RenderRequest request;
    RenderOptionTexts texts;
    add_render_options(app, request, texts);
    ClusterRenderOptions cluster;  // under mpirun, --shard, --join: cmd_render_cluster.cpp
    add_cluster_render_options(app, cluster);
    if (int status = parse_command_line(app, argc, argv); status >= 0) return status;
    std::string problem = apply_render_options(app, texts, &request);
    if (cluster_render_wanted(cluster)) return render_cluster_command(request, cluster, problem);
    if (!problem.empty()) return bad_input(problem);
    const int status = render_request(request);
    if (status == 0 && texts.print_view)  // the same line as the window's --print-view
        std::printf("view: center=%s,%s zoom=%s iterations=%lld size=%dx%d\n", request.view.center_re.c_str(),
                    request.view.center_im.c_str(), request.view.zoom.text().c_str(),
                    (long long)request.view.max_iterations, request.view.width, request.view.height);
    return status;
}

}  // namespace ms
