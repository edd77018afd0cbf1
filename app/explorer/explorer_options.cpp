// explorer_options.cpp: parsing and applying the explorer's options (see explorer_options.h).
#include "app/explorer/explorer_options.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

#include "app/commands.h"
#include "compute/fractal/colour/palette.h"
#include "compute/system/number_text.h"
#include "compute/io/image_io.h"
#include "compute/scale/deep_multi_gpu.h"
#include "render/demos/vecadd_runner.h"
#include "render/frame/view_math.h"

namespace ms {

// CLI11's PositiveNumber/NonNegativeNumber print "not in range 0.000000 to 1.79e308": say it plainly.
CLI::Validator at_least(double minimum, const char* what) {
    return CLI::Validator(
        [minimum, what](std::string& text) -> std::string {
            double v = 0.0;
            if (std::string problem = parse_finite_double(text, &v); !problem.empty()) return problem;
            if (!(v >= minimum)) return std::string("must be ") + what + ", not '" + text + "'";
            return {};
        },
        what);
}

void add_explorer_options(CLI::App& app, ExplorerOptions& o) {
    app.add_option("--backend", o.backend,
                   "cpu or cuda (falls back to the CPU, saying why, where CUDA cannot run); default: CUDA where it can "
                   "run, else the CPU")
        ->check(CLI::IsMember({"cpu", "cuda"}));
    app.add_option("--center", o.center, "centre of the view as RE,IM (decimal text, any number of digits)");
    app.add_option("--formula", o.formula, formula_names() + " (default mandelbrot; each opens on its own view)");
    app.add_option("--julia", o.julia,
                   "the formula's Julia set of c = RE,IM (decimal text) instead of its parameter plane");
    app.add_flag("--julia-preview", o.julia_preview,
                 "open the Julia preview inset (the Julia set of the point under the mouse)");
    app.add_option("--zoom", o.zoom,
                   "zoom: half the window's height spans 2/zoom; any depth up to 1E60000 (\"4.00000000000E533\")");
    app.add_option("--iter", o.iterations, "maximum iterations (default: automatic, following the zoom)")
        ->check(at_least(std::nextafter(0.0, 1.0), "a number above 0"));
    app.add_option("--size", o.size, "window size WxH in pixels (default 1280x720)");
    app.add_option("--palette", o.palette, "palette name (assets/palettes/NAME.txt; a name, not a path)");
    app.add_option("--palette-file", o.palette_file, "a palette file anywhere (the format of assets/palettes/*.txt)");
    app.add_option("--precision", o.precision, "auto, fp32, fp64, deep-double or deep-floatexp (perturbation)")
        ->check(CLI::IsMember({"auto", "fp32", "fp64", "deep-double", "deep-floatexp"}));
    app.add_option("--vsync", o.vsync, "on or off (default on)")->check(CLI::IsMember({"on", "off"}));
    app.add_flag("--no-ui", o.no_ui, "hide the panels: the picture only");
    app.add_option("--frames", o.frames,
                   "with --screenshot: frames to show at least before saving; without it: show N frames, then exit")
        ->check(at_least(0.0, "a number of at least 0"));
    app.add_option("--screenshot", o.screenshot,
                   "once the view is completely rendered, save the window as this PNG, print the render path, exit");
    CLI::Option* open = app.add_option("--open", o.open_path,
                                       "start at the view saved in a Mandelscope PNG, or at a Kalles Fraktaler "
                                       "location (.kfr: Re, Im, Zoom, Iterations)");
    // `mandelscope FILE`, as the desktop entry launches it (Exec=mandelscope %f): the same as
    // --open, for a file that exists (a mistyped mode name stays an error, not an empty window).
    app.add_option("file", o.open_path, "a view to start at, as --open takes it")
        ->check(CLI::ExistingFile)
        ->excludes(open);
    app.add_flag("--print-view", o.print_view, "print the view on exit");
    app.add_option("--bench-drag", o.bench_drag_frames, "pan a little every frame for N frames, print frames/s, exit")
        ->check(at_least(0.0, "a number of at least 0"));
    app.add_option("--soak", o.soak_frames,
                   "test hook: N frames of seeded random navigation, exports and resizes; report memory growth, exit "
                   "(status 1 if anything failed or resident memory grew by 5% or more)")
        ->check(at_least(0.0, "a number of at least 0"));
    app.add_option("--soak-seed", o.soak_seed, "with --soak: the seed of its random actions");
    app.add_option("--soak-skip", o.soak_skip,
                   "with --soak: comma-separated actions to leave out (resize,export,...), to isolate a cause");
    app.add_option("--export", o.export_path,
                   "write the view as this PNG (tiled, as the Export dialog does), no window");
    app.add_option("--export-size", o.export_size, "with --export: image size WxH (default: --size)");
    app.add_option("--supersample", o.supersample, "with --export: 1 to 4 (KxK samples per pixel)")
        ->check(CLI::Range(1, 4));
    app.add_option(
        "--panel", o.panel,
        "open panels at start, comma-separated: vecadd (the vector-add demo), cnn (the Fashion-MNIST network), "
        "perf (timings, Compare, device), palette (the palette editor), video (zoom videos)");
    app.add_option("--colouring", o.colouring,
                   "colouring: a base (smooth, histogram or stripe) and layers (de, slope), comma-separated "
                   "(default smooth; with --open, replaces the opened view's)");
    app.add_option("--interior", o.interior,
                   "interior colouring: flat or period (default flat; with --open, replaces the opened view's)");
    app.add_option("--vecadd-sweep", o.vecadd_sweep,
                   "open the vector-add panel and sweep these sizes at start (400,1e4,1e6 or default); "
                   "--screenshot waits for the sweep");
    app.add_option("--cnn-classify-all", o.cnn_classify_all,
                   "open the CNN panel and classify the 10,000 test images at start on cpu, cuda or cpu,cuda; "
                   "--screenshot waits for it");
    app.add_flag("--cnn-sweep", o.cnn_sweep,
                 "open the CNN panel and measure batch sizes 1..10,000 at start; --screenshot waits for it");
    app.add_option("--cnn-batch", o.cnn_batch, "the CNN panel's batch size (images per call) at start, 1 to 10000")
        ->check(CLI::Range(1, kCnnMaxBatch));
    app.add_option(
        "--cnn-data", o.cnn_data,
        std::string("folder of Fashion-MNIST's gzipped IDX files (default ") + kFashionMnistDefaultDir + ")");
    app.add_flag("--compare", o.compare,
                 "Compare on at start: every view is also rendered on the CPU in the background, checked and timed "
                 "against CUDA; --screenshot waits for it and logs a 'compare:' line");
    app.add_option("--video-render", o.video_render,
                   "open the Video panel, dive to the start view and render this MP4 (or PNG folder/), then exit "
                   "with the render's status");
    app.add_option("--video-size", o.video_size, "with --video-render: the video's size WxH (default 64x36)");
    app.add_option("--video-fps", o.video_fps, "with --video-render: frames a second (default 10)")
        ->check(CLI::Range(1, 240));
    app.add_option("--video-seconds", o.video_seconds, "with --video-render: the dive's length (default 2)")
        ->check(CLI::Range(0.1, 3600.0));
    app.add_option("--devices", o.devices,
                   "CUDA devices a deep frame of 2M pixels or more and the Video panel's videos are shared over, "
                   "comma-separated (0,1; a device may repeat); default: every visible device");
    app.add_option("--perf-tab", o.perf_tab, "the Performance window's tab at start: timings, speedup or device")
        ->check(CLI::IsMember({"timings", "speedup", "device"}));
}

namespace {

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    for (std::string part; std::getline(stream, part, ',');) parts.push_back(part);
    return parts;
}

}  // namespace

bool panel_requested(const ExplorerOptions& o, const std::string& name) {
    for (const std::string& part : split_commas(o.panel))
        if (part == name) return true;
    return false;
}

PerfTab perf_tab(const ExplorerOptions& o) {
    for (PerfTab tab : {PerfTab::Timings, PerfTab::Speedup, PerfTab::Device})
        if (o.perf_tab == perf_tab_name(tab)) return tab;
    return PerfTab::Timings;
}

bool parse_size(const std::string& text, int* width, int* height) {
    // Not sscanf's %d: it wraps 4294967297 to 1 without a word.
    return parse_size_text(text, INT_MAX, width, height).empty();
}

std::string clamp_window_size(int* width, int* height, int max_width, int max_height, const char* limit_name) {
    const int w = max_width > 0 ? std::min(*width, max_width) : *width;
    const int h = max_height > 0 ? std::min(*height, max_height) : *height;
    if (w == *width && h == *height) return {};
    std::string sentence = "the window size " + std::to_string(*width) + "x" + std::to_string(*height) +
                           " is larger than " + limit_name + " (" + std::to_string(max_width) + "x" +
                           std::to_string(max_height) + "), so the window opens at " + std::to_string(w) + "x" +
                           std::to_string(h);
    *width = w;
    *height = h;
    return sentence;
}

int parse_explorer_command_line(int argc, char** argv, ExplorerOptions* options) {
    CLI::App app{"Mandelscope: explore the Mandelbrot set (no mode: the window)", "mandelscope"};
    add_explorer_options(app, *options);
    add_program_help(app);
    return parse_command_line(app, argc, argv);
}

std::string apply_explorer_options(const ExplorerOptions& o, View* view, ExplorerSettings* settings) {
    if (std::string problem = parse_size_text(o.size, INT_MAX, &view->width, &view->height); !problem.empty())
        return "--size: " + problem;
    if (!o.formula.empty() && !parse_formula(o.formula, &view->formula))
        return "--formula: '" + o.formula.substr(0, 60) + "' is not one of " + formula_names();
    if (!o.julia.empty()) {
        if (std::string problem = parse_julia_option(o.julia, &view->julia_re, &view->julia_im); !problem.empty())
            return "--julia: " + problem;
        view->julia = true;
    }
    {
        // The formula's own frame, unless --center and --zoom say otherwise (below).
        const FormulaFrame frame = formula_default_frame(view->formula, view->julia);
        view->center_re = frame.center_re;
        view->center_im = frame.center_im;
        view->zoom = frame.zoom;
    }
    if (!o.center.empty()) {
        std::string problem = parse_center_option(o.center, &view->center_re, &view->center_im);
        if (!problem.empty()) return "--center: " + problem;
    }
    // Not clamped: `render` refuses a zoom out of range, and so does the window (validate_view).
    if (!o.zoom.empty())
        if (std::string problem = ViewZoom::parse(o.zoom, &view->zoom); !problem.empty()) return "--zoom: " + problem;
    view->palette = o.palette;
    if (!o.palette_file.empty()) {
        // The view names the palette by the file's stem; the colours come from the file.
        view->palette = std::filesystem::path(o.palette_file).stem().string();
    } else if (!palette_name_is_plain(o.palette)) {
        return "--palette: " + palette_name_problem(o.palette);
    }
    if (o.supersample != 0 && o.export_path.empty())
        return "--supersample applies to --export only (the window's Export dialog has its own setting)";
    if (!o.export_path.empty() && (o.frames != 0 || !o.screenshot.empty() || o.bench_drag_frames != 0))
        return "--export writes the PNG without a window, so --frames, --screenshot and --bench-drag do not apply";
    settings->auto_iterations = o.iterations == 0;
    view->max_iterations = o.iterations > 0 ? o.iterations : auto_iterations(view->zoom);
    settings->backend = o.backend == "cpu" ? Backend::Cpu : Backend::Cuda;
    if (!precision_from_name(o.precision, &settings->precision)) settings->precision = Precision::Auto;
    settings->vsync = o.vsync == "on";
    if (!o.devices.empty()) {
        if (o.backend == "cpu") return "--devices picks CUDA devices: leave out --backend=cpu";
        if (std::string problem = parse_device_list(o.devices, int(deep_visible_devices().size()), &settings->devices);
            !problem.empty())
            return "--devices: " + problem;
    }
    if (!o.export_size.empty()) {
        int w, h;
        if (std::string problem = parse_size_text(o.export_size, INT_MAX, &w, &h); !problem.empty())
            return "--export-size: " + problem;
    }
    for (const std::string& name : split_commas(o.panel))
        if (std::find(std::begin(kPanelNames), std::end(kPanelNames), name) == std::end(kPanelNames))
            return "--panel takes panel names separated by commas (vecadd, cnn, perf, palette, video), not '" + name +
                   "'";
    if (int w, h; !o.video_render.empty())
        if (std::string problem = parse_size_text(o.video_size, 16384, &w, &h); !problem.empty())
            return "--video-size: " + problem;
    if (std::string problem = apply_colouring_options(o, &view->colouring); !problem.empty()) return problem;
    for (const std::string& backend : split_commas(o.cnn_classify_all))
        if (backend != "cpu" && backend != "cuda")
            return "--cnn-classify-all takes cpu, cuda or cpu,cuda, not '" + o.cnn_classify_all + "'";
    if (!o.vecadd_sweep.empty() && o.vecadd_sweep != "default") {
        std::vector<size_t> sizes;
        if (std::string why = vecadd_parse_sizes(o.vecadd_sweep, &sizes); !why.empty()) return "--vecadd-sweep: " + why;
    }
    // Output files are checked before the window opens or the export starts, not after.
    for (const auto& [option, path] : {std::pair<const char*, const std::string*>{"--export", &o.export_path},
                                       std::pair<const char*, const std::string*>{"--screenshot", &o.screenshot}})
        if (!path->empty())
            if (std::string problem = check_writable(*path, ".png"); !problem.empty())
                return std::string(option) + ": " + problem;
    // The window and its export render any depth (deep paths past FP64).
    return validate_view(*view);
}

std::string apply_colouring_options(const ExplorerOptions& o, Colouring* colouring) {
    if (!o.colouring.empty())
        if (std::string problem = parse_colouring_methods(o.colouring, colouring); !problem.empty())
            return "--colouring: " + problem;
    if (!o.interior.empty())
        if (std::string problem = parse_interior_colour(o.interior, &colouring->interior); !problem.empty())
            return "--interior: " + problem;
    return {};
}

void apply_panel_options(const ExplorerOptions& o, VectorAddDemo* vecadd, VecAddRunner* vecadd_runner) {
    vecadd->open = panel_requested(o, "vecadd") || !o.vecadd_sweep.empty();
    if (o.vecadd_sweep.empty()) return;
    vecadd_runner->sweep_at_start = true;
    vecadd_runner->sweep_at_start_sizes.clear();  // "default": the panel's log scale
    if (o.vecadd_sweep != "default") vecadd_parse_sizes(o.vecadd_sweep, &vecadd_runner->sweep_at_start_sizes);
}

void apply_cnn_panel_options(const ExplorerOptions& o, CnnDemo* demo, CnnRunner* runner) {
    demo->open = panel_requested(o, "cnn") || !o.cnn_classify_all.empty() || o.cnn_sweep;
    demo->batch = o.cnn_batch;
    runner->data_dir = o.cnn_data;
    // Loading is queued now, not when the panel first draws, so --screenshot waits for it.
    if (demo->open) queue_cnn_job(*runner, {CnnTask::Load});
    for (const std::string& backend : split_commas(o.cnn_classify_all))
        queue_cnn_job(*runner,
                      {CnnTask::ClassifyAll, backend == "cuda" ? CnnBackend::Cuda : CnnBackend::Cpu, o.cnn_batch});
    if (o.cnn_sweep) queue_cnn_job(*runner, {CnnTask::Sweep, CnnBackend::Cpu, o.cnn_batch});
}

ExportSettings export_settings(const ExplorerOptions& o, const ExplorerSettings& settings) {
    ExportSettings s;
    s.path = o.export_path;
    if (!parse_size(o.export_size.empty() ? o.size : o.export_size, &s.width, &s.height)) s.width = s.height = 0;
    s.supersample = std::max(1, o.supersample);
    s.backend = settings.backend;
    s.precision = settings.precision;
    return s;
}

}  // namespace ms
