// explorer.cpp: the explorer window, `mandelscope [options]` with no mode.
//
// Read it like Dear ImGui's example_glfw_opengl3/main.cpp: set up GLFW, OpenGL (through glad)
// and ImGui; plain local state; the main loop (poll events, new ImGui frame, turn input into
// view changes, draw the panels, carry out what they asked for, render the frame, draw,
// swap); clean up in reverse order. The pieces live in render/: navigation.h (input to view
// changes), frame_renderer.h (the render paths: interop, copy, cpu), panels.h (the panels),
// export_image.h (PNG export), png_stream.h (reopening a PNG's view).
//
// Test hooks: --screenshot saves the framebuffer once the view is completely rendered and at
// least --frames frames were shown, prints "render path: PATH" and exits 0; --print-view
// prints the view on exit; --bench-drag=N pans every frame for N frames and prints the frame
// rate; --export writes the PNG through the Export dialog's code without opening a window;
// --panel=NAME,... opens demo panels (vecadd, cnn); --vecadd-sweep=SIZES sweeps the vector-add
// demo at start, --cnn-classify-all=cpu,cuda and --cnn-sweep start the CNN demo's
// measurements (and --screenshot waits until they have finished); --panel=perf opens the
// Performance window (--perf-tab picks its tab) and --compare switches Compare on (--screenshot
// then waits for the compare of the view and logs its "compare: ..." line).
#include <glad/gl.h>
// glad must come before GLFW, which then includes no GL header of its own.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/explorer/explorer_options.h"
#include "app/explorer/soak.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/colour/palette.h"
#include "render/ui/panel_palette.h"
#include "compute/system/cuda_info.h"
#include "compute/system/process_memory.h"
#include "compute/fractal/view/view_record.h"
#include "compute/io/assets.h"
#include "render/demos/cnn_runner.h"
#include "render/demos/panel_vecadd.h"
#include "render/demos/vecadd_runner.h"
#include "render/frame/export_image.h"
#include "render/frame/frame_renderer.h"
#include "render/frame/julia_preview.h"
#include "render/frame/navigation.h"
#include "render/frame/png_stream.h"
#include "render/frame/view_math.h"
#include "render/perf/perf_monitor.h"
#include "render/platform/glfw_errors.h"
#include "render/platform/redraw.h"
#include "render/ui/panel_layout.h"
#include "render/ui/panels.h"

namespace ms {

namespace {

// The latest notice for the status line, also printed (errors on stderr).
void show_message(StatusLineState& status, const std::string& text, bool error) {
    status.message = text;
    status.message_is_error = error;
    std::fprintf(error ? stderr : stdout, "mandelscope: %s\n", text.c_str());
    std::fflush(error ? stderr : stdout);
}

// A Kalles Fraktaler location (.kfr, compute/fractal/view/kfr.h: centre, zoom,
// iterations) or a PNG's view.
std::optional<View> read_view_file(const std::string& path, std::string* error) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
    if (extension != ".kfr") return read_png_view(path, error);
    DeepLocation location;
    if (std::string problem = read_kfr(path, &location); !problem.empty()) {
        *error = problem;
        if (!error->empty() && error->back() == '.') error->pop_back();  // the callers add their own
        return std::nullopt;
    }
    View view;
    view.center_re = location.center_re;
    view.center_im = location.center_im;
    view.zoom = ViewZoom::from_deep(location.zoom);
    view.max_iterations = location.max_iterations;
    view.formula = location.formula;
    view.julia = location.julia;
    view.julia_re = location.julia_re;
    view.julia_im = location.julia_im;
    if (std::string problem = validate_view(view); !problem.empty()) {
        *error = path + ": " + problem;
        return std::nullopt;
    }
    return view;
}

// A view file, for drag-and-drop and --open: the place, iterations and colours, not the size
// (the window keeps its own; the zoom is relative to the height, so the same part of the plane
// shows). Its iteration count is kept, so automatic iterations are switched off.
bool open_png_view(const std::string& path, View* view, ExplorerSettings* settings, StatusLineState& status) {
    std::string error;
    std::optional<View> opened = read_view_file(path, &error);
    if (!opened) {
        show_message(status, "Cannot open that view: " + error + ".", true);
        return false;
    }
    opened->width = view->width;
    opened->height = view->height;
    *view = *opened;
    settings->auto_iterations = false;
    show_message(status, "Opened the view saved in " + path + ".", false);
    return true;
}

// The palette table for view->palette; on failure the previous palette stays.
void update_palette(View* view, std::string* loaded_name, PaletteTable* table, StatusLineState& status) {
    if (view->palette == *loaded_name) return;
    try {
        *table = make_palette_table(load_palette(view->palette));
        *loaded_name = view->palette;
    } catch (const std::exception& e) {
        show_message(status, std::string("Cannot use that palette: ") + e.what(), true);
        view->palette = *loaded_name;
    }
}

// The facts the View panel shows this frame.
void fill_view_panel(ViewPanelState& panel, const View& view, const ExplorerSettings& settings,
                     const FrameRenderer& renderer, const ViewHistory& history) {
    panel.view = view;
    panel.settings = settings;
    panel.cuda_unavailable = renderer.cuda_unavailable;
    panel.precision_in_use = resolve_precision(view, settings.precision);  // what this view renders in
    panel.deep_path = view_needs_deep_path(view, settings.precision);
    panel.can_back = history_can_back(history, view);
    panel.can_forward = history_can_forward(history);
}

// The paths whose frames come from a worker thread, over several UI frames.
bool waits_for_worker(RenderPath path) { return path == RenderPath::Cpu || is_deep_path(path); }

// The facts the status line shows this frame.
void fill_status_line(StatusLineState& status, const View& view, const ExplorerSettings& settings,
                      const FrameRenderer& renderer, double ui_frame_ms) {
    status.backend = settings.backend;
    status.cuda_unavailable = renderer.cuda_unavailable;
    status.path = renderer.path;
    status.precision = renderer.precision_used;
    status.compute_ms = renderer.timings.compute_ms;
    status.ui_frame_ms = ui_frame_ms;
    status.width = view.width;
    status.height = view.height;
    status.zoom = view.zoom;
    status.iterations = view.max_iterations;
    status.deep = is_deep_path(renderer.path);
    status.rendering = (renderer.path == RenderPath::Cpu || status.deep) && !renderer.complete;
    status.progress = renderer.cpu_progress;
    status.progress_label = !status.deep ? "rendering"
                            : renderer.deep_status.phase == DeepPhase::Reference ? "reference"
                                                                                 : "pixels";
    status.deep_frame_done = status.deep && renderer.deep_status.frame_id != 0 && renderer.deep_status.complete;
    status.deep_stats = renderer.deep_status.stats;
    // The number type of the frame shown, or, while the first comes, the one it will run in.
    if (status.deep)
        status.precision = status.deep_frame_done ? (status.deep_stats.number_type == DeepNumberType::FloatExp
                                                         ? Precision::DeepFloatExp
                                                         : Precision::DeepDouble)
                                                  : resolve_precision(view, settings.precision);
    if (status.deep) status.compute_ms = renderer.deep_status.stats.frame_ms;
    status.fallback_reason = fallback_reason(renderer, settings.backend);
    status.beyond_fp64 = !fp64_resolves(view) && !status.deep;
    if (status.deep && !renderer.deep_status.error.empty()) status.fallback_reason = renderer.deep_status.error;
}

// The Export dialog's requests: start (the view as it is now), cancel, and the result once
// the job ends.
void carry_out_export(ExportDialogState& dialog, ExportJob& job, const View& view, const PaletteTable& palette,
                      const ExplorerSettings& settings, StatusLineState& status) {
    if (dialog.start) {
        ExportSettings s{dialog.path, dialog.width, dialog.height, dialog.supersample, settings.backend,
                         settings.precision};
        dialog.result = validate_export_settings(s);
        dialog.result_is_error = !dialog.result.empty();
        if (dialog.result.empty()) start_export_job(job, view, palette, s);
    }
    if (dialog.cancel) cancel_export_job(job);
    if (ExportResult done; poll_export_job(job, &done)) {
        dialog.result = done.message;
        dialog.result_is_error = !done.ok && !done.cancelled;
        show_message(status, done.message, dialog.result_is_error);
    }
}

// F11: fullscreen on the primary monitor and back to the window where it was.
struct WindowPlacement {
    int x = 0, y = 0, width = 0, height = 0;
};
void toggle_fullscreen(GLFWwindow* window, WindowPlacement* windowed, bool vsync) {
    if (glfwGetWindowMonitor(window)) {
        glfwSetWindowMonitor(window, nullptr, windowed->x, windowed->y, windowed->width, windowed->height, 0);
    } else if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) {
        glfwGetWindowPos(window, &windowed->x, &windowed->y);
        glfwGetWindowSize(window, &windowed->width, &windowed->height);
        const GLFWvidmode* mode = glfwGetVideoMode(monitor);
        glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    }
    glfwSwapInterval(vsync ? 1 : 0);  // some drivers forget it across the switch
}

// --screenshot: the framebuffer as drawn this frame (back buffer), rows flipped to top-down.
bool save_screenshot(const std::string& path, int width, int height, const View& view) {
    std::vector<uint8_t> rgba(size_t(width) * height * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    PngWriteResult written = write_png_streamed(path, width, height, view, height,
        [&](int first_row, int rows, uint8_t* out, std::string*) {
            for (int r = 0; r < rows; ++r)
                std::copy_n(rgba.data() + size_t(height - 1 - (first_row + r)) * width * 4, size_t(width) * 4,
                            out + size_t(r) * width * 4);
            return true;
        });
    if (!written.ok)
        std::fprintf(stderr, "mandelscope: cannot save the screenshot: %s; no file was written.\n", written.error.c_str());
    return written.ok;
}

// --bench-drag: pans a little every frame, by whole pixels as a hand dragging would, and reports
// frames/s.
// On the CPU path a view takes longer than a UI frame, so each view is rendered completely
// before the next pan, and the benchmark reports the window's CPU frame (coarse pass, full
// pass, colouring) against the same view computed as `mandelscope render` does
// (one direct_cpu call over the frame, no window), alternating the two in this run.
struct DragBenchmark {
    int frames = 0;          // asked for; 0: off
    int done = -1;           // -1: waiting for the first complete frame
    View start_view;
    std::chrono::steady_clock::time_point start;
    std::vector<double> compute_ms, interop_ms, upload_ms;
    std::vector<double> cpu_frame_ms, render_ms;  // CPU path: the window's frame, `render`'s compute
    // Deep paths: the hand moves the view every UI frame, as a real drag does, whether or not the
    // worker has finished the view before (it takes the newest when it is free); what counts is
    // each view that arrives complete at full resolution (a new frame id with its full pass), and
    // the UI's frame count says whether it stays live meanwhile.
    std::vector<double> deep_frame_ms;
    // Their parts (DeepFrameStats' pan_*_ms), the UI's upload of each and the UI frames' own time.
    std::vector<double> deep_strips_ms, deep_move_ms, deep_colour_ms, deep_copy_ms, deep_upload_ms, ui_frame_ms;
    std::chrono::steady_clock::time_point last_ui_frame;
    double start_upload_ms = 0.0;      // the UI's upload of the start view (a full frame)
    bool start_from_device = false;    // it came by a device-to-device copy (deep CUDA with interop)
    int deep_cached = 0;  // completed views whose reference came from the cache
    int deep_completed = 0;
    uint64_t deep_last_id = 0;
    int ui_frames = 0;
    double deep_pixels = 0.0, deep_reused_pixels = 0.0;  // over the views: reused by whole-pixel pans
    int sweep_step = 0;   // the sweep's phase, in 1/240 of a period
    int sweep_x = 0;      // the view's offset from start_view, whole pixels
};

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

// `view` computed as `mandelscope render --backend=cpu` computes it: one call over the whole
// frame from this (nice 0, normal policy) thread. The pauses let the other OpenMP team's
// threads stop spinning first, and this one's before the window's next frame.
double render_compute_ms(const View& view, Precision precision) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::vector<float> mu(size_t(view.width) * view.height);
    const double ms = direct_cpu(view, precision, Shortcuts{}, full_rect(view), mu.data()).compute_ms;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return ms;
}

// Moves the view for the next benchmark frame; returns true once the benchmark is over.
bool step_drag_benchmark(DragBenchmark& b, View* view, const FrameRenderer& renderer, const ExplorerSettings& settings) {
    const bool cpu = renderer.path == RenderPath::Cpu;
    const bool deep = is_deep_path(renderer.path);
    if (b.done < 0) {
        if (!renderer.complete) return false;
        b.done = 0;
        b.deep_last_id = renderer.deep_status.frame_id;  // the start view is not one of the drag's
        b.start_upload_ms = renderer.timings.upload_ms;
        b.start_from_device = renderer.deep_device_frames > 0;
        b.start_view = *view;
        b.start = std::chrono::steady_clock::now();
    } else if (deep) {
        ++b.ui_frames;
        const auto now = std::chrono::steady_clock::now();
        if (b.ui_frames > 1) b.ui_frame_ms.push_back(std::chrono::duration<double, std::milli>(now - b.last_ui_frame).count());
        b.last_ui_frame = now;
        const DeepRenderStatus& d = renderer.deep_status;
        if (d.complete && d.frame_id != b.deep_last_id) {  // a view finished since the last UI frame
            b.deep_last_id = d.frame_id;
            ++b.deep_completed;
            b.deep_frame_ms.push_back(d.stats.frame_ms);
            b.deep_strips_ms.push_back(d.stats.pan_strips_ms);
            b.deep_move_ms.push_back(d.stats.pan_move_ms);
            b.deep_colour_ms.push_back(d.stats.pan_colour_ms);
            b.deep_copy_ms.push_back(d.stats.pan_copy_ms);
            b.deep_upload_ms.push_back(renderer.timings.upload_ms);
            if (d.stats.reference_cached) ++b.deep_cached;
            b.deep_pixels += double(view->width) * view->height;
            b.deep_reused_pixels += double(d.stats.reused_pixels);
        }
    } else if (cpu) {
        if (!renderer.complete) return false;  // the CPU view is still coming in
        b.cpu_frame_ms.push_back(renderer.timings.compute_ms);
        b.render_ms.push_back(render_compute_ms(*view, settings.precision));
    } else {
        b.compute_ms.push_back(renderer.timings.compute_ms);
        b.interop_ms.push_back(renderer.timings.interop_ms);
        b.upload_ms.push_back(renderer.timings.upload_ms);
    }
    // After the last move, the deep bench waits (the view still) for that view to arrive complete.
    if (deep && b.done == b.frames && !renderer.complete) return false;
    if (b.done == b.frames) {
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - b.start).count();
        if (deep) {
            std::printf("bench-drag: the view moved %d times at %dx%d on the %s path (every UI frame, 1-2 whole "
                        "pixels), in %.3f s; %d views arrived complete at full resolution: %.2f views/s (%.1f ms "
                        "per view); deep frame median %.2f ms (reference cached in %d of %d views); reused %.1f%% "
                        "of pixels (whole-pixel pans); UI %.1f frames/s meanwhile (%d UI frames)\n",
                        b.frames, view->width, view->height, render_path_name(renderer.path), seconds,
                        b.deep_completed, b.deep_completed / seconds,
                        b.deep_completed ? 1000.0 * seconds / b.deep_completed : 0.0, median(b.deep_frame_ms),
                        b.deep_cached, b.deep_completed,
                        b.deep_pixels > 0.0 ? 100.0 * b.deep_reused_pixels / b.deep_pixels : 0.0,
                        b.ui_frames / seconds, b.ui_frames);
            std::printf("bench-drag: per complete view, medians: strips %.2f ms, moving the last frame %.2f ms, "
                        "colouring the strips %.2f ms, the display's copy %.2f ms, the UI's upload %.2f ms; "
                        "UI frame interval median %.2f ms\n",
                        median(b.deep_strips_ms), median(b.deep_move_ms), median(b.deep_colour_ms),
                        median(b.deep_copy_ms), median(b.deep_upload_ms), median(b.ui_frame_ms));
            std::printf("bench-drag: the start view (a full frame) reached the texture in %.3f ms of the UI thread, %s\n",
                        b.start_upload_ms,
                        b.start_from_device ? "by one device-to-device copy into the shared pixel buffer"
                                            : "from host memory");
        } else if (cpu) {
            const double window_ms = median(b.cpu_frame_ms), render_ms = median(b.render_ms);
            std::printf("bench-drag: %d views at %dx%d on the CPU path, each rendered completely: window frame median %.2f ms "
                        "(coarse pass, full pass, colouring), the same views computed as `render` does median "
                        "%.2f ms\n",
                        b.frames, view->width, view->height, window_ms, render_ms);
            std::printf("bench-drag: window CPU frame / render compute = %.2f (goal <= 1.3)\n",
                        render_ms > 0.0 ? window_ms / render_ms : 0.0);
            // The fastest of each: what the two cost with the least interference from other
            // programs (on a shared machine the medians move with its load).
            const double window_best = *std::min_element(b.cpu_frame_ms.begin(), b.cpu_frame_ms.end());
            const double render_best = *std::min_element(b.render_ms.begin(), b.render_ms.end());
            std::printf("bench-drag: fastest window CPU frame %.2f ms, fastest render compute %.2f ms: ratio %.2f\n",
                        window_best, render_best, render_best > 0.0 ? window_best / render_best : 0.0);
        } else {
            std::printf("bench-drag: %d frames at %dx%d in %.3f s: %.1f frames/s (%.2f ms per frame), render path %s%s\n",
                        b.frames, view->width, view->height, seconds, b.frames / seconds, 1000.0 * seconds / b.frames,
                        render_path_name(renderer.path),
                        settings.vsync ? ", vsync ON (capped by the display)" : ", vsync off");
            std::printf("bench-drag: median per frame: compute %.3f ms (CUDA events), map+unmap %.3f ms, texture upload %.3f ms\n",
                        median(b.compute_ms), median(b.interop_ms), median(b.upload_ms));
        }
        std::fflush(stdout);
        b.frames = 0;
        *view = b.start_view;
        return true;
    }
    // A slow back-and-forth sweep of +-60 pixels, in whole pixels as a hand drags (a cursor's
    // positions are integers): every frame a new view, 1 or 2 pixels from the one before (the
    // sweep's phase moves on until the rounded offset changes).
    int x = b.sweep_x;
    while (x == b.sweep_x) x = int(std::lround(60.0 * std::sin(2.0 * M_PI * ++b.sweep_step / 240.0)));
    b.sweep_x = x;
    glm::dvec2 centre{0.5 * view->width, 0.5 * view->height};
    *view = pan_view(b.start_view, centre, centre + glm::dvec2(double(x), 0.0));
    ++b.done;
    return false;
}

// --export without a window, with a progress line on stderr. A failure (a full disk, an
// unwritable path) exits 2 with one sentence, as `render` does; the file appears only when
// complete, so nothing is left behind.
int export_without_window(const View& view, const PaletteTable& palette, const ExportSettings& settings) {
    bool tty = isatty(2);
    int last_tenth = -1;
    ExportResult result = export_view_png(view, palette, settings, nullptr, [&](double p) {
        if (tty) {
            std::fprintf(stderr, "\rexporting %3.0f%%", 100.0 * p);
        } else if (int(p * 10) != last_tenth) {
            last_tenth = int(p * 10);
            std::fprintf(stderr, "exporting %d%%\n", last_tenth * 10);
        }
    });
    if (tty) std::fprintf(stderr, "\n");
    if (result.ok) {
        std::printf("mandelscope: %s\n", result.message.c_str());
        return 0;
    }
    std::fprintf(stderr, "mandelscope: %s; no file was written.\n", result.message.c_str());
    return 2;
}

}  // namespace

int run_explorer(int argc, char** argv) {
    // A window runs for hours and exports images of any size: large blocks go back to the
    // system when freed rather than fragment the heap (compute/system/process_memory.h).
    keep_large_blocks_mapped();
    ExplorerOptions options;
    CLI::App app{"Mandelscope: explore the Mandelbrot set (no mode: the window)", "mandelscope"};
    add_explorer_options(app, options);
    add_program_help(app);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;
    View view;
    ExplorerSettings settings;
    if (std::string problem = apply_explorer_options(options, &view, &settings); !problem.empty()) {
        std::fprintf(stderr, "mandelscope: %s\n", problem.c_str());
        return 2;
    }
    StatusLineState status;
    bool view_given = !options.center.empty() || !options.zoom.empty();  // kept as given (DefaultFraming)
    // --open first: the export, the screenshot and the window all start at the PNG's view.
    if (!options.open_path.empty()) {
        std::string error;
        std::optional<View> opened = read_view_file(options.open_path, &error);
        // A scripted run (--export, --screenshot, --frames) fails on a PNG it cannot open; the
        // window says so and starts at the default view.
        const bool scripted = !options.export_path.empty() || !options.screenshot.empty() || options.frames > 0;
        if (!opened && scripted) {
            std::fprintf(stderr, "mandelscope: cannot open that view: %s.\n", error.c_str());
            return 2;
        }
        if (!opened) {
            show_message(status, "Cannot open that view: " + error + ".", true);
        } else {
            opened->width = view.width;
            opened->height = view.height;
            view = *opened;
            apply_colouring_options(options, &view.colouring);  // validated above: the command line's win
            settings.auto_iterations = false;
            view_given = true;
            show_message(status, "Opened the view saved in " + options.open_path + ".", false);
        }
    }
    std::string palette_name;
    PaletteTable palette;
    if (!options.palette_file.empty() && options.open_path.empty()) {
        try {
            palette = make_palette_table(load_palette_file(options.palette_file));
            palette_name = view.palette;  // the file's stem (apply_explorer_options)
        } catch (const std::exception& e) {
            std::fprintf(stderr, "mandelscope: --palette-file: %s.\n", e.what());
            return 2;
        }
    }
    update_palette(&view, &palette_name, &palette, status);
    if (palette_name.empty()) {
        // A scripted run (--export, --screenshot) fails with the sentence already printed; an
        // interactive window keeps going with a built-in gradient and says so on its status line.
        if (!options.export_path.empty() || !options.screenshot.empty() || options.frames > 0) return 2;
        palette = make_palette_table(builtin_grey_palette());
        palette_name = view.palette;
        show_message(status, status.message + "; showing a built-in grey gradient", true);
    }
    if (!options.export_path.empty()) return export_without_window(view, palette, export_settings(options, settings));

    // Setup window
    install_glfw_error_callback();
    if (!glfwInit()) {
        std::fprintf(stderr, "mandelscope: no display is available for the window (%s); `mandelscope render` makes images without one.\n",
                     last_glfw_error().c_str());
        return 1;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GL_TRUE);
    // A window larger than the screen (or than GL can draw, checked below) fails with a raw X
    // or GL error deep inside the first frame: clamp it here and say so.
    if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) {
        if (const GLFWvidmode* mode = glfwGetVideoMode(monitor))
            if (std::string clamped = clamp_window_size(&view.width, &view.height, mode->width, mode->height, "the screen");
                !clamped.empty())
                std::fprintf(stderr, "mandelscope: %s.\n", clamped.c_str());
    }
    GLFWwindow* window = glfwCreateWindow(view.width, view.height, "Mandelscope", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "mandelscope: cannot open an OpenGL 3.3 window here (%s).\n", last_glfw_error().c_str());
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(window);
    if (!gladLoadGL(glfwGetProcAddress)) {
        std::fprintf(stderr, "mandelscope: cannot load the OpenGL functions of this context.\n");
        glfwDestroyWindow(window);
        glfwTerminate();
        return 1;
    }
    glfwSwapInterval(settings.vsync ? 1 : 0);
    std::printf("OpenGL: %s\n", gl_renderer_description().c_str());
    const bool software_gl = gl_is_software_rasteriser();
    {
        GLint max_texture = 0, max_viewport[2] = {0, 0};
        glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
        glGetIntegerv(GL_MAX_VIEWPORT_DIMS, max_viewport);
        int width = view.width, height = view.height;
        if (std::string clamped = clamp_window_size(&width, &height, std::min(max_texture, max_viewport[0]),
                                                    std::min(max_texture, max_viewport[1]), "what OpenGL can draw here");
            !clamped.empty()) {
            std::fprintf(stderr, "mandelscope: %s.\n", clamped.c_str());
            glfwSetWindowSize(window, width, height);
        }
    }
    NavigationInput input;
    install_navigation_callbacks(window, &input);  // before ImGui, which chains to them

    // Setup Dear ImGui context
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    // The panels' sizes and collapsed states are kept between launches in the user's config
    // folder (never in whatever directory we were started from).
    std::string ini_error;
    const std::string ini_path = panel_settings_path(&ini_error);
    io.IniFilename = ini_path.empty() ? nullptr : ini_path.c_str();
    if (ini_path.empty()) std::fprintf(stderr, "mandelscope: the panels' layout will not be kept: %s.\n", ini_error.c_str());
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    install_key_release_delay(window);  // no key tap is lost between two frames (navigation.h)
    ImGui_ImplOpenGL3_Init("#version 330 core");

    // Our state
    FrameRenderer renderer;
    renderer.cpu.on_news = [] { glfwPostEmptyEvent(); };  // wakes the loop below from its wait
    renderer.deep.on_news = [] { glfwPostEmptyEvent(); };
    try {
        init_frame_renderer(renderer, find_data_dir("shaders"));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mandelscope: %s\n", e.what());
        return 1;
    }
    // Without --backend, a machine where CUDA cannot run starts on the CPU (the status line
    // says why); --backend=cuda there falls back, saying so as a warning.
    if (options.backend.empty() && !renderer.cuda_unavailable.empty()) {
        settings.backend = Backend::Cpu;
        std::printf("backend: CPU (no GPU: %s)\n", renderer.cuda_unavailable.c_str());
    }
    ViewHistory history;
    DefaultFraming default_framing = start_default_framing(view, view_given);  // render/frame/view_math.h
    NavigationState navigation;
    ViewPanelState view_panel;
    view_panel.palettes = list_palettes();
    view_panel.julia_preview = options.julia_preview;
    JuliaPreview julia_preview;       // the inset's picture (render/frame/julia_preview.h)
    JuliaPreviewState julia_panel;
    View julia_target;                // the Julia view of the point under the mouse
    ExportDialogState export_dialog;
    ExportJob export_job;
    PaletteEditorState palette_editor;  // the palette editor tab (render/ui/panel_palette.h)
    palette_editor.open = panel_requested(options, "palette");
    double last_frame_start_s = 0.0;    // for colour cycling's step
    VectorAddDemo vecadd;
    VecAddRunner vecadd_runner;  // the demo's measurements run on its thread
    apply_panel_options(options, &vecadd, &vecadd_runner);
    CnnDemo cnn;
    CnnRunner cnn_runner;  // the CNN demo's data, CUDA context and measurements, on its thread
    apply_cnn_panel_options(options, &cnn, &cnn_runner);
    WindowPlacement windowed;
    float column_width = 0.0f;  // the right column's, as the user left it (render/ui/panel_layout.h)
    bool column_was_open[5] = {false, false, false, false, false};  // Performance, Vector add, CNN, Export, Palette
    DragBenchmark bench;
    bench.frames = options.bench_drag_frames;
    SoakTest soak;  // --soak (app/explorer/soak.h)
    soak.frames = options.soak_frames;
    soak.seed = options.soak_seed;
    if (std::string problem = parse_soak_skip(options.soak_skip, &soak.skipped_actions); !problem.empty()) {
        std::fprintf(stderr, "mandelscope: %s.\n", problem.c_str());
        return 2;
    }
    soak.export_path = (std::filesystem::temp_directory_path() /
                        ("mandelscope-soak-" + std::to_string(getpid()) + ".png")).string();
    PerfMonitor perf;  // the Performance window: timings, Compare, device (render/perf/perf_monitor.h)
    start_perf_monitor(perf, panel_requested(options, "perf"), options.compare, perf_tab(options));
    int frames_shown = 0;
    double first_frame_s = 0.0;
    RedrawState redraw;
    double ui_frame_ms = 0.0;  // the last frame's own time, from its events to its swap
    double wait_s = 0.0;  // how long to wait for events before the next frame (render/platform/redraw.h)
    int exit_code = 0;

    // Main loop. Anything thrown out of it (a GL failure, a view the renderer cannot take)
    // ends the program with its sentence, after the cleanup below has stopped every worker.
    try {
        while (!glfwWindowShouldClose(window)) {
            // Wait for events (inputs, window resize, etc.), or poll when the next frame is due
            // at once. The callbacks queue them in `input`; they are applied below, once ImGui
            // has said whether it wants them. Nothing changing means no frame: an idle window
            // sleeps.
            replay_delayed_key_releases(window, &input);  // the taps of the last frame end now
            const uint64_t events_seen = input.event_count;
            if (wait_s > 0.0) glfwWaitEventsTimeout(wait_s);
            else glfwPollEvents();
            const double frame_start_s = glfwGetTime();
            int fb_width = 0, fb_height = 0, window_width = 0, window_height = 0;
            glfwGetFramebufferSize(window, &fb_width, &fb_height);
            glfwGetWindowSize(window, &window_width, &window_height);
            if (fb_width == 0 || fb_height == 0 || glfwGetWindowAttrib(window, GLFW_ICONIFIED)) {
                // Minimised: nothing to draw, and no reason to spin.
                glfwWaitEventsTimeout(0.1);
                continue;
            }
            view.width = fb_width;
            view.height = fb_height;
            const double pixels_per_unit = double(fb_width) / std::max(1, window_width);

            // Start the Dear ImGui frame
            perf_mark(perf, PerfMark::FrameStart);
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            ImGui::NewFrame();

            // Mouse and keyboard move the view. When io.WantCaptureMouse is true (the mouse is
            // over a panel), mouse input belongs to ImGui, not to the picture; the same for the
            // keyboard while a text field has it.
            NavigationRequests nav = apply_navigation(input, navigation, &view, pixels_per_unit, io.WantCaptureMouse,
                                                      io.WantCaptureKeyboard, glfwGetTime());
            draw_box_zoom_overlay(navigation, pixels_per_unit);
            for (const std::string& path : input.dropped_paths) {
                if (open_png_view(path, &view, &settings, status)) nav.record_history = true;
            }
            input.dropped_paths.clear();

            // The panels: filled with the frame's facts, laid out so that none covers another
            // (render/ui/panel_layout.h), drawn, then their requests carried out.
            set_panel_opacity(settings.panel_opacity);
            fill_view_panel(view_panel, view, settings, renderer, history);
            export_dialog.window_width = fb_width;
            export_dialog.window_height = fb_height;
            export_dialog.running = export_job.running;
            export_dialog.progress = export_job.progress;
            view_panel.show_vector_add = vecadd.open;
            view_panel.show_cnn = cnn.open;
            view_panel.show_performance = perf.panels.open;
            view_panel.show_palette_editor = palette_editor.open;
            // Whether the demos' work is running, as this frame's panels show it.
            const bool demos_busy = vector_add_busy(vecadd_runner) || cnn_demo_busy(cnn_runner);
            const bool column_open = perf.panels.open || vecadd.open || cnn.open || export_dialog.open || palette_editor.open;
            const PanelLayout layout = layout_panels({float(fb_width), float(fb_height), status_line_height(status, float(fb_width)),
                                                      view_panel.width, column_width, column_open});
            if (!options.no_ui) {
                draw_view_panel(view_panel, layout);
                vecadd.open = view_panel.show_vector_add;
                cnn.open = view_panel.show_cnn;
                perf.panels.open = view_panel.show_performance;
                palette_editor.open = view_panel.show_palette_editor;
                // A panel just opened comes to the front of the column (the first, where several open at once).
                bool* opened[5] = {&perf.panels.open, &vecadd.open, &cnn.open, &export_dialog.open, &palette_editor.open};
                bool* raise[5] = {&perf.panels.raise, &vecadd.raise, &cnn.raise, &export_dialog.raise, &palette_editor.raise};
                bool raised = false;
                for (int i = 0; i < 5; ++i) {
                    if (*opened[i] && !column_was_open[i] && !raised) raised = *raise[i] = true;
                    column_was_open[i] = *opened[i];
                }
                const bool in_column = begin_side_column(layout, column_open, &column_width);
                draw_perf_panels(perf.panels, in_column);
                draw_vector_add_panel(vecadd, in_column);
                draw_cnn_panel(cnn, in_column);
                draw_export_dialog(export_dialog, in_column);
                draw_palette_editor(palette_editor, in_column);
                if (in_column) end_side_column();
                // The Julia preview inset, while the main view is a parameter plane: the Julia set
                // of the point under the mouse. Over a panel the point stays, so the mouse can
                // reach the inset and click it.
                if (view_panel.julia_preview && !view.julia) {
                    if (!io.WantCaptureMouse || !julia_target.julia) {
                        const glm::dvec2 mouse = io.WantCaptureMouse ? glm::dvec2(0.5 * fb_width, 0.5 * fb_height)
                                                                     : input.cursor * pixels_per_unit;
                        julia_target = julia_view_at(view, mouse, julia_preview.width, julia_preview.height);
                    }
                    update_julia_preview(julia_preview, julia_target, palette,
                                         settings.backend == Backend::Cuda && renderer.cuda_unavailable.empty());
                    julia_panel.texture = julia_preview.texture;
                    julia_panel.width = julia_preview.width;
                    julia_panel.height = julia_preview.height;
                    julia_panel.c_re = julia_preview.shown.julia_re;
                    julia_panel.c_im = julia_preview.shown.julia_im;
                    julia_panel.backend = julia_preview.cuda ? "CUDA" : "CPU";
                    julia_panel.render_ms = julia_preview.render_ms;
                    draw_julia_preview(julia_panel, layout);
                    if (julia_panel.make_main) {  // the click: this Julia set becomes the view (Back returns)
                        View opened = julia_preview.shown;
                        opened.width = view.width;
                        opened.height = view.height;
                        opened.max_iterations = view.max_iterations;
                        view = opened;
                        nav.record_history = true;
                    }
                }
            }

            if (view_panel.view_edited) {
                view = view_panel.view;
                nav.record_history = true;
            }
            if (view_panel.settings_edited) {
                if (view_panel.settings.vsync != settings.vsync) glfwSwapInterval(view_panel.settings.vsync ? 1 : 0);
                settings = view_panel.settings;
            }
            if (soak.frames > 0 && step_soak(soak, {&view, &nav, &view_panel, &export_dialog, window}))
                glfwSetWindowShouldClose(window, GLFW_TRUE);
            if (nav.toggle_backend) {
                if (settings.backend == Backend::Cpu && !renderer.cuda_unavailable.empty())
                    show_message(status, "CUDA unavailable: " + renderer.cuda_unavailable, true);
                else
                    settings.backend = settings.backend == Backend::Cpu ? Backend::Cuda : Backend::Cpu;
            }
            if (view_panel.back || nav.back) history_back(history, &view);
            if (view_panel.forward || nav.forward) history_forward(history, &view);
            if (view_panel.reset) {
                view = reset_view(view);
                nav.record_history = true;
            }
            if (nav.toggle_fullscreen) toggle_fullscreen(window, &windowed, settings.vsync);
            if (nav.quit) glfwSetWindowShouldClose(window, GLFW_TRUE);
            if (view_panel.open_export) {
                if (!export_dialog.open) {
                export_dialog.open = true;
                export_dialog.width = fb_width;  // the window's size by default
                export_dialog.height = fb_height;
            }
                export_dialog.raise = true;
            }
            carry_out_export(export_dialog, export_job, view, palette, settings, status);
            carry_out_vector_add(vecadd, vecadd_runner);
            carry_out_cnn_demo(cnn, cnn_runner);
            if (bench.frames > 0 && step_drag_benchmark(bench, &view, renderer, settings) && options.screenshot.empty())
                glfwSetWindowShouldClose(window, GLFW_TRUE);

            // The default view fits the part of the window the panels leave free.
            update_default_framing(default_framing, &view, &history,
                                   options.no_ui ? FramingArea{} : free_area(layout, view_panel.shown));
            // The view is settled for this frame: iterations follow the zoom, the history
            // remembers where a gesture ended, the palette follows the view.
            if (settings.auto_iterations) view.max_iterations = auto_iterations(view.zoom);
            if (nav.record_history || history.views.empty()) history_record(history, view);
            const bool palette_changed = carry_out_palette_editor(
                palette_editor, &view, &palette, &palette_name,
                last_frame_start_s > 0.0 ? frame_start_s - last_frame_start_s : 0.0);
            last_frame_start_s = frame_start_s;
            update_palette(&view, &palette_name, &palette, status);
            // Past FP64 the stripe base and the period interior cannot be had (BLA skips the
            // iterations they average): drop them, keep the other layers, and say so.
            if (view_needs_deep_path(view, settings.precision) && drop_deep_unavailable_view_colouring(&view))
                show_message(status, "Past FP64 the stripe colouring and the period interior are not available "
                                     "(the deep path skips the iterations they need): coloured without them.",
                             false);

            // Rendering
            try {
                perf_mark(perf, PerfMark::RenderStart);
                update_frame_renderer(renderer, view, settings.backend, settings.precision, palette);
                perf_mark(perf, PerfMark::RenderEnd);
            } catch (const std::exception& e) {  // a GL failure: say it, don't show a black window
                std::fprintf(stderr, "mandelscope: %s\n", e.what());
                exit_code = 1;
                break;
            }
            // The status line last: it tells what this frame's rendering did. Its warnings also go
            // to the log, once each time they change.
            const StatusLineState before = status;
            fill_status_line(status, view, settings, renderer, ui_frame_ms);
            if (status.fallback_reason != before.fallback_reason && !status.fallback_reason.empty())
                std::fprintf(stderr, "mandelscope: fallback: %s\n", status.fallback_reason.c_str());
            if (status.beyond_fp64 && !before.beyond_fp64) std::fprintf(stderr, "mandelscope: %s\n", kBeyondFp64Message);
            if (!options.no_ui) draw_status_line(status, layout.status);
            if (soak.frames > 0 && status.message_is_error && status.message != before.message &&
                status.message.rfind("CUDA unavailable", 0) != 0)
                ++soak.errors;
            if (status.dismiss_message) status.message.clear();
            update_perf_monitor(perf, view, settings.precision, renderer, palette);

            ImGui::Render();
            perf_mark(perf, PerfMark::UiBuilt);
            draw_frame(renderer, view, fb_width, fb_height);
            perf_mark(perf, PerfMark::DrawDataStart);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
            perf_mark(perf, PerfMark::DrawDataEnd);
            if (frames_shown++ == 0) first_frame_s = glfwGetTime();

            if (!options.screenshot.empty() && frames_shown >= options.frames && renderer.complete && bench.frames == 0 &&
                !navigation.panning && !demos_busy && perf_settled(perf)) {
                bool saved = save_screenshot(options.screenshot, fb_width, fb_height, view);
                double seconds = glfwGetTime() - first_frame_s;
                std::printf("screenshot after %d frames in %.2f s (%.1f UI frames/s while the view was computed)\n",
                            frames_shown, seconds, frames_shown > 1 ? (frames_shown - 1) / seconds : 0.0);
                std::printf("render path: %s\n", render_path_name(renderer.path));
                std::printf("status: %s\n", status_line_text(status).c_str());
                std::printf("%s", perf_compare_log(perf).c_str());
                exit_code = saved ? 0 : 2;  // a scripted run that cannot write its file: as bad output, 2
                glfwSetWindowShouldClose(window, GLFW_TRUE);
            }
            // --frames without --screenshot: show that many frames, then exit (a scripted run).
            if (options.screenshot.empty() && options.frames > 0 && frames_shown >= options.frames && bench.frames == 0 &&
                soak.frames == 0)
                glfwSetWindowShouldClose(window, GLFW_TRUE);
            perf_mark(perf, PerfMark::SwapStart);
            const double swap_start_s = glfwGetTime();
            glfwSwapBuffers(window);
            const double swap_s = glfwGetTime() - swap_start_s;
            perf_mark(perf, PerfMark::SwapEnd);
            if (soak.frames > 0)
                sample_soak_memory(soak, export_job.running,
                                   window_width == soak.base_width && window_height == soak.base_height);
            submit_frame_request(renderer);  // a new CPU view starts once this frame is on screen
            ui_frame_ms = 1000.0 * (glfwGetTime() - frame_start_s);  // the work of a frame, not the waits between

            // When to draw the next frame: at once, after a short wait while work shows
            // progress, or when an event comes.
            RedrawReasons reasons;
            reasons.events = input.event_count != events_seen || nav.view_changed || view_panel.view_edited ||
                             view_panel.settings_edited || palette_changed;
            // (A benchmark on the CPU path waits for each view like a user would, for its rows,
            // and takes its next step in the frame after the last rows came in.)
            reasons.continuous = settings.redraw_continuously || soak.frames > 0 ||
                                 (bench.frames > 0 && (!waits_for_worker(renderer.path) || renderer.complete)) ||
                                 frames_shown < options.frames;  // --frames: a scripted run
            reasons.progress = (waits_for_worker(renderer.path) && !renderer.complete) || export_job.running ||
                               vector_add_busy(vecadd_runner) || cnn_demo_busy(cnn_runner) ||
                               !perf_settled(perf) || navigation.last_wheel_time_s >= 0.0 || io.WantTextInput;
            // The cadence weighs what a frame costs the CPU. A GPU's GL spends the swap waiting (for
            // vsync, or for the X server to take the picture), not computing, so its swap is left
            // out there; a software rasteriser (llvmpipe) draws the picture during the swap, on
            // the cores the frame being computed needs, so there it counts. (With the swap
            // counted, the H100 host's UI drew 6.4 frames/s while Compare's CPU frame ran.)
            reasons.frame_s = ui_frame_ms / 1000.0 - (software_gl ? 0.0 : swap_s);
            reasons.frame_wall_s = ui_frame_ms / 1000.0;
            wait_s = next_frame_wait_s(redraw, reasons);
            // A drag benchmark on a deep path draws the UI at a display's 60 frames/s while the
            // worker computes (the UI frames it manages are its figure), not flat out, which
            // would take a core from the worker; a finished frame's news wakes it at once.
            if (bench.frames > 0 && is_deep_path(renderer.path) && !renderer.complete)
                wait_s = std::max(0.0, 1.0 / 60.0 - ui_frame_ms / 1000.0);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mandelscope: %s\n", e.what());
        exit_code = 1;
    }

    if (options.print_view)
        std::printf("view: center=%s,%s zoom=%s iterations=%lld size=%dx%d formula=%s%s%s%s%s colouring=%s interior=%s\n",
                    view.center_re.c_str(), view.center_im.c_str(), view.zoom.text().c_str(),
                    (long long)view.max_iterations, view.width, view.height, formula_name(view.formula),
                    view.julia ? " julia=" : "", view.julia ? view.julia_re.c_str() : "", view.julia ? "," : "",
                    view.julia ? view.julia_im.c_str() : "", colouring_methods_text(view.colouring).c_str(),
                    interior_colour_name(view.colouring.interior));

    // Cleanup
    stop_export_job(export_job);
    stop_vecadd_runner(vecadd_runner);
    stop_cnn_runner(cnn_runner);
    stop_perf_monitor(perf);
    destroy_julia_preview(julia_preview);
    shutdown_frame_renderer(renderer);
    if (soak.frames > 0) {
        std::printf("%s", soak_report(soak, cuda_device_memory_used_bytes()).c_str());
        std::error_code ignored;
        std::filesystem::remove(soak.export_path, ignored);
        if (!soak_passed(soak)) exit_code = 1;
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return exit_code;
}

}  // namespace ms
