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
#include "app/modes/cmd_render_steps.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/view/view_record.h"
#include "compute/io/image_io.h"
#include "compute/system/number_text.h"

namespace ms {

namespace {

constexpr size_t kMiB = size_t(1) << 20;

// "RE,IM" with the text of each part kept verbatim (compute/view.h, the same in every mode).
std::string parse_center(const std::string& text, View* view) {
    return parse_center_option(text, &view->center_re, &view->center_im);
}

// "WxH" with whole numbers: compute/number_text.h's parser, linear in the text's length, so a
// size of thousands of digits is refused with a sentence rather than exhausting the stack.
std::string parse_size(const std::string& text, View* view) {
    return parse_size_text(text, INT_MAX, &view->width, &view->height);
}

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
    if (std::string problem = choose_backend(request, &plan); !problem.empty()) return bad_input(problem);
    // The path, by depth (view.h: resolve_precision): the direct FP32/FP64 kernels while they
    // resolve the pixels, then perturbation (cmd_render_deep.cpp). --precision can force one.
    plan.precision = resolve_precision(plan.samples, request.precision);
    if (is_deep(plan.precision)) {
        if (std::string problem = deep_view_colouring_problem(plan.view); !problem.empty()) return bad_input(problem);
        if (request.png_encoder == "cuda")
            return bad_input(
                "--png-encoder=cuda encodes frames of the direct kernels; the deep path's frames are encoded on the "
                "CPU");
        return render_deep_request(request, plan.view, plan.samples, plan.cuda, plan.backend_text, plan.table);
    }
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

// The command line's texts, kept as given until apply_render_options parses them into the
// request (the options that need no parsing go straight into it).
struct RenderOptionTexts {
    std::string center = View{}.center_re + "," + View{}.center_im;
    std::string size = "1280x720";
    std::string png, raw;
    std::string zoom = View{}.zoom.text();
    bool no_shortcuts = false;
    std::string precision = "auto";
    std::string colouring = "smooth", interior = "flat";
    std::string formula = formula_name(Formula::Mandelbrot), julia;
    std::string iterations = "1000", location, save_location;
    bool print_view = false;
    CLI::Option* center_option = nullptr;  // whether --center, --zoom and --iter were given
    CLI::Option* zoom_option = nullptr;
    CLI::Option* iter_option = nullptr;
};

void add_render_options(CLI::App& app, RenderRequest& request, RenderOptionTexts& o) {
    Colouring& colour = request.view.colouring;
    app.add_option("--center", o.center, "Centre RE,IM as decimal text, kept verbatim (write --center=-0.75,0)")
        ->capture_default_str();
    app.add_option("--formula", o.formula, formula_names() + " (each opens on its own default view)")
        ->capture_default_str();
    app.add_option("--julia", o.julia, "Draw the formula's Julia set of c = RE,IM (decimal text, kept verbatim)");
    app.add_option("--zoom", o.zoom, "Zoom: half the image height spans 2/zoom; any depth (4.00000000000E533)")
        ->capture_default_str();
    app.add_option("--size", o.size, "Image size WIDTHxHEIGHT in pixels")->capture_default_str();
    o.center_option = app.get_option("--center");
    o.zoom_option = app.get_option("--zoom");
    o.iter_option = app.add_option("--iter", o.iterations,
                                   "Maximum iterations (up to 1e11), or auto: 1000 + 600 per decade of zoom")
                        ->capture_default_str();
    app.add_option("--location", o.location,
                   "A Kalles Fraktaler location file (.kfr): its Re, Im, Zoom and Iterations (--iter overrides them)");
    app.add_option("--save-location", o.save_location, "Also write the view as a .kfr location file");
    app.add_flag("--disk-check", request.disk_check,
                 "After writing, time the disk alone on the PNG's size (write and fsync, as dd conv=fsync) to compare");
    app.add_option("--png-encoder", request.png_encoder,
                   "Who deflates the PNG: cuda (on the GPU, where the frame is coloured there), cpu, or auto "
                   "(cuda with --backend=cuda, no --supersample and no --raw)")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
        ->capture_default_str();
    app.add_flag("--print-view", o.print_view,
                 "Print the view (centre, zoom, iterations, size) once the PNG is written");
    app.add_option("--palette", request.view.palette, "Palette name (a file in assets/palettes/; a name, not a path)")
        ->capture_default_str();
    app.add_option("--palette-file", request.palette_file,
                   "A palette file anywhere (the format of assets/palettes/*.txt)");
    app.add_option("--offset", request.view.palette_offset, "Palette offset, in cycles")->capture_default_str();
    app.add_option("--density", request.view.palette_density, "Palette cycles per 100 iterations")
        ->capture_default_str();
    app.add_option("--colouring", o.colouring,
                   "Colouring: a base (smooth, histogram or stripe) and layers (de, slope, atom), comma-separated, "
                   "e.g. histogram,de,slope or smooth,atom")
        ->capture_default_str();
    app.add_option("--interior", o.interior, "Interior colouring: flat (the palette's interior colour) or period")
        ->capture_default_str();
    app.add_option("--stripe-density", colour.stripe_density, "Stripe base: stripes per turn of arg z (1-64)")
        ->capture_default_str();
    app.add_option("--de-band", colour.de_band_px, "de layer: width of the dark band along the boundary, in pixels")
        ->capture_default_str();
    app.add_option("--slope-angle", colour.slope_angle_deg,
                   "slope layer: light direction in degrees, counterclockwise from the right")
        ->capture_default_str();
    app.add_option("--slope-strength", colour.slope_strength, "slope layer: relief height (0 is flat)")
        ->capture_default_str();
    app.add_option("--atom-strength", colour.atom_strength,
                   "atom layer: how much of the atom domain's hue (0-1) blends into each pixel, interior included")
        ->capture_default_str();
    app.add_option("--backend", request.backend, "cpu, cuda, or auto (CUDA when a device is usable)")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
        ->capture_default_str();
    app.add_option("--precision", o.precision,
                   "auto (by depth: fp32, fp64, then perturbation in double and in floatexp), fp32, fp64, "
                   "deep-double or deep-floatexp")
        ->check(CLI::IsMember({"auto", "fp32", "fp64", "deep-double", "deep-floatexp"}))
        ->capture_default_str();
    app.add_option("--supersample", request.supersample, "K: render K x K samples per pixel and box-filter them (1-4)")
        ->check(CLI::Range(1, 4))
        ->capture_default_str();
    app.add_flag("--no-shortcuts", o.no_shortcuts, "Switch off the cardioid/bulb test and periodicity checking");
    app.add_option("-o,--output", o.png, "Output PNG file")->required();
    app.add_option(
        "--raw", o.raw,
        "Also write the smooth iteration values: float32 .npy of the samples grid (height*K x width*K), interior = -1");
    // For tests of the band-by-band path: output rows per band, and the streaming PNG writer.
    app.add_option("--band-rows", request.band_rows, "Render and write this many rows at a time")->group("");
}

// The texts into the request, in the order the options are checked. Returns "" or the sentence
// saying which option is wrong.
std::string apply_render_options(const CLI::App& app, const RenderOptionTexts& o, RenderRequest* request) {
    Colouring& colour = request->view.colouring;
    const std::string& formula = o.formula;
    if (!parse_formula(formula, &request->view.formula))
        return "the formula '" + (formula.size() > 60 ? formula.substr(0, 60) + "..." : formula) + "' is not one of " +
               formula_names();
    if (app.count("--julia") > 0) {
        if (std::string problem = parse_julia_option(o.julia, &request->view.julia_re, &request->view.julia_im);
            !problem.empty())
            return problem;
        request->view.julia = true;
    }
    // A formula (or Julia set) opens on its own frame unless --center or --zoom say otherwise.
    const FormulaFrame frame = formula_default_frame(request->view.formula, request->view.julia);
    const std::string center = o.center_option->count() == 0 ? std::string(frame.center_re) + "," + frame.center_im
                                                             : o.center;
    const std::string zoom = o.zoom_option->count() == 0 ? ViewZoom(frame.zoom).text() : o.zoom;
    if (!o.location.empty()) {
        // The location gives centre, zoom and iterations; an explicit --iter wins over its count.
        // It also gives the formula and the Julia parameter (kfr.h).
        if (o.center_option->count() > 0 || o.zoom_option->count() > 0)
            return "--location gives the centre and the zoom: leave out --center and --zoom";
        if (app.count("--formula") > 0 || app.count("--julia") > 0)
            return "--location gives the formula and the Julia parameter: leave out --formula and --julia";
        DeepLocation kfr;
        if (std::string problem = read_kfr(o.location, &kfr); !problem.empty()) return problem;
        request->view.center_re = kfr.center_re;
        request->view.center_im = kfr.center_im;
        request->view.formula = kfr.formula;
        request->view.julia = kfr.julia;
        request->view.julia_re = kfr.julia_re;
        request->view.julia_im = kfr.julia_im;
        request->view.zoom = ViewZoom::from_deep(kfr.zoom);
        request->view.max_iterations = kfr.max_iterations;
    } else {
        if (std::string problem = parse_center(center, &request->view); !problem.empty()) return problem;
        if (std::string problem = ViewZoom::parse(zoom, &request->view.zoom); !problem.empty()) return problem;
    }
    if (std::string problem = parse_size(o.size, &request->view); !problem.empty()) return problem;
    if (std::string problem = parse_colouring_methods(o.colouring, &colour); !problem.empty()) return problem;
    if (std::string problem = parse_interior_colour(o.interior, &colour.interior); !problem.empty()) return problem;
    // Iterations are fixed unless asked for: a render reproduces exactly what its command line
    // says. --iter=auto follows the window's rule (render/frame/view_math.h), at any depth.
    if (o.iterations == "auto") {
        request->view.max_iterations = std::min<int64_t>(
            kDeepMaxIterations,
            std::llround((1000.0 + 600.0 * std::max(0.0, request->view.zoom.log10())) / 100.0) * 100);
    } else if (o.location.empty() || o.iter_option->count() > 0) {
        if (std::string problem = parse_deep_iterations(o.iterations, &request->view.max_iterations); !problem.empty())
            return problem;
    }
    if (!precision_from_name(o.precision, &request->precision)) return "unknown precision " + o.precision;
    request->save_location = o.save_location;
    request->shortcuts = o.no_shortcuts ? Shortcuts{false, false} : Shortcuts{};
    request->png_path = o.png;
    request->raw_path = o.raw;
    return {};
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
    if (int status = parse_command_line(app, argc, argv); status >= 0) return status;
    if (std::string problem = apply_render_options(app, texts, &request); !problem.empty()) return bad_input(problem);
    const int status = render_request(request);
    if (status == 0 && texts.print_view)  // the same line as the window's --print-view
        std::printf("view: center=%s,%s zoom=%s iterations=%lld size=%dx%d\n", request.view.center_re.c_str(),
                    request.view.center_im.c_str(), request.view.zoom.text().c_str(),
                    (long long)request.view.max_iterations, request.view.width, request.view.height);
    return status;
}

}  // namespace ms
