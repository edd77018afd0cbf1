// explorer_options.h: the explorer window's command-line options and how they set the first
// view and settings (kept apart from explorer.cpp so the main loop reads straight through).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "compute/fractal/view/view.h"
#include "render/demos/cnn_runner.h"
#include "render/frame/export_image.h"
#include "render/perf/panel_perf.h"
#include "render/ui/panels.h"

namespace ms {

struct VectorAddDemo;  // render/demos/panel_vecadd.h
struct VecAddRunner;   // render/demos/vecadd_runner.h

struct ExplorerOptions {
    std::string backend;            // cpu | cuda (falls back, with the reason, where CUDA cannot run);
                                    // "" (not given): CUDA where it can run, else the CPU
    std::string center;             // "RE,IM"; empty: the default view's
    std::string formula;            // formula_name(); empty: Mandelbrot
    std::string julia;              // "RE,IM": the Julia set of that c; empty: the parameter plane
    bool julia_preview = false;     // open the Julia preview inset at start
    std::string zoom;               // "": the default view's; else ViewZoom's text ("1e50", "4.0E533")
    int64_t iterations = 0;         // 0: automatic, following the zoom
    std::string size = "1280x720";  // window size, WxH
    std::string palette = "classic";
    std::string palette_file;  // a palette file anywhere (explicit); overrides --palette
    std::string precision = "auto";
    std::string vsync = "on";
    bool no_ui = false;
    int frames = 0;  // 0: not given. With --screenshot: frames before saving; alone: exit after them
    std::string screenshot;
    std::string open_path;
    bool print_view = false;
    int bench_drag_frames = 0;
    int soak_frames = 0;  // --soak=N: random navigation for N frames (app/explorer/soak.h)
    uint64_t soak_seed = 1;
    std::string soak_skip;  // --soak-skip=resize,export: actions the soak leaves out
    std::string export_path;
    std::string export_size;  // empty: --size
    int supersample = 0;      // 0: not given (1); only with --export
    std::string panel;        // --panel=vecadd,cnn,perf,palette: open these panels at start
    std::string devices;      // --devices=0,1: CUDA devices a large deep frame and a video spread over; "": every visible one
    // --colouring (compute/fractal/view/colouring.h), as `render` takes it, and --interior; "" (not
    // given): smooth and flat, or what the view opened with --open carries. Given, they apply to
    // the opened view too.
    std::string colouring;
    std::string interior;
    std::string vecadd_sweep;          // sizes ("400,1e4,1e6") or "default": sweep once at start
    std::string cnn_classify_all;      // "cpu", "cuda" or "cpu,cuda": classify the test set at start
    bool cnn_sweep = false;            // measure the batch sizes at start
    int cnn_batch = 1000;              // the CNN panel's batch size at start
    std::string cnn_data;              // Fashion-MNIST's folder; empty: the Debian package's
    bool compare = false;              // Compare (every view also on the other path) on at start
    std::string perf_tab = "timings";  // the Performance window's first tab: timings, speedup, device
    // --video-render=OUT: the Video panel dives to the start view and renders OUT, then the window
    // closes with the render's status (app/explorer/explorer_video.h); the settings it uses.
    std::string video_render;
    std::string video_size = "64x36";
    int video_fps = 10;
    double video_seconds = 2.0;
};

// The panels --panel can open (comma-separated): the demos and the Performance window.
inline constexpr const char* kPanelNames[] = {"vecadd", "cnn", "perf", "palette", "video"};

void add_explorer_options(CLI::App& app, ExplorerOptions& options);
// The window's whole command line (its options, the program's --help footer and --version) into
// *options. Returns -1 to go on, else the exit status (0 after --help, 2 after a parse error).
int parse_explorer_command_line(int argc, char** argv, ExplorerOptions* options);
// Sets the first view (its size is the window's) and settings; returns "" or the sentence
// saying which option is wrong.
std::string apply_explorer_options(const ExplorerOptions& options, View* view, ExplorerSettings* settings);
// Opens the panels the options name and queues --vecadd-sweep (checked by
// apply_explorer_options first).
// --colouring and --interior, where given, into *colouring ("" or the first option's sentence).
std::string apply_colouring_options(const ExplorerOptions& options, Colouring* colouring);
void apply_panel_options(const ExplorerOptions& options, VectorAddDemo* vecadd, VecAddRunner* vecadd_runner);
// Opens the CNN panel when the options name it and queues its start-up work (options checked by
// apply_explorer_options first).
void apply_cnn_panel_options(const ExplorerOptions& options, CnnDemo* demo, CnnRunner* runner);
// Is `name` among --panel's comma-separated names?
bool panel_requested(const ExplorerOptions& options, const std::string& name);
// --perf-tab as a PerfTab.
PerfTab perf_tab(const ExplorerOptions& options);
ExportSettings export_settings(const ExplorerOptions& options, const ExplorerSettings& settings);

// "1920x1080" -> 1920, 1080 (compute/number_text.h's parse_size_text, any side up to INT_MAX);
// false when malformed, not positive or too large.
bool parse_size(const std::string& text, int* width, int* height);

// The window's size within what the screen and GL can show: each side at most `max_width` and
// `max_height` (0: no limit). Returns "" when the size fits, else the sentence saying what it
// was clamped to and why (the window then opens at *width x *height).
std::string clamp_window_size(int* width, int* height, int max_width, int max_height, const char* limit_name);

}  // namespace ms
