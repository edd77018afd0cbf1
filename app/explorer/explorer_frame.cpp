// explorer_frame.cpp: the steps of one frame of the explorer window (see explorer_frame.h).
#include "app/explorer/explorer_frame.h"

#include <glad/gl.h>
// glad must come before GLFW, which then includes no GL header of its own.
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "compute/fractal/view/kfr.h"
#include "compute/system/cuda_info.h"
#include "render/frame/png_stream.h"

namespace ms {

void show_message(StatusLineState& status, const std::string& text, bool error) {
    status.message = text;
    status.message_is_error = error;
    std::fprintf(error ? stderr : stdout, "mandelscope: %s\n", text.c_str());
    std::fflush(error ? stderr : stdout);
}

std::optional<View> read_view_file(const std::string& path, std::string* error) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return std::tolower(c); });
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

namespace {

// A view file dropped on the window: the place, iterations and colours, not the size (the
// window keeps its own; the zoom is relative to the height, so the same part of the plane
// shows). Its iteration count is kept, so automatic iterations are switched off.
bool open_dropped_view(const std::string& path, View* view, ExplorerSettings* settings, StatusLineState& status) {
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

// The paths whose frames come from a worker thread, over several UI frames.
bool waits_for_worker(RenderPath path) { return path == RenderPath::Cpu || is_deep_path(path); }

// The facts the View panel shows this frame.
void fill_view_panel(ViewPanelState& panel, const ExplorerPicture& picture, const FrameRenderer& renderer) {
    panel.view = picture.view;
    panel.settings = picture.settings;
    panel.cuda_unavailable = renderer.cuda_unavailable;
    panel.precision_in_use = resolve_precision(picture.view, picture.settings.precision);  // what this view renders in
    panel.deep_path = view_needs_deep_path(picture.view, picture.settings.precision);
    panel.can_back = history_can_back(picture.history, picture.view);
    panel.can_forward = history_can_forward(picture.history);
}

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
    status.progress_label = !status.deep                                         ? "rendering"
                            : renderer.deep_status.phase == DeepPhase::Reference ? "reference"
                                                                                 : "pixels";
    status.deep_frame_done = status.deep && renderer.deep_status.frame_id != 0 && renderer.deep_status.complete;
    status.deep_stats = renderer.deep_status.stats;
    status.deep_devices = renderer.deep_status.devices_used;
    // The number type of the frame shown, or, while the first comes, the one it will run in.
    if (status.deep)
        status.precision = status.deep_frame_done
                               ? (status.deep_stats.number_type == DeepNumberType::FloatExp ? Precision::DeepFloatExp
                                                                                            : Precision::DeepDouble)
                               : resolve_precision(view, settings.precision);
    if (status.deep) status.compute_ms = renderer.deep_status.stats.frame_ms;
    status.fallback_reason = fallback_reason(renderer, settings.backend);
    status.beyond_fp64 = !fp64_resolves(view) && !status.deep;
    if (status.deep && !renderer.deep_status.error.empty()) status.fallback_reason = renderer.deep_status.error;
}

// The right column's panels: Performance, the demos, Export and the palette editor. A panel
// just opened comes to the front of the column (the first, where several open at once).
void draw_side_column(ExplorerPanels& panels, PerfMonitor& perf, const ExplorerFrame& frame, bool column_open) {
    bool* opened[kColumnPanels] = {&perf.panels.open,          &panels.vecadd.open,         &panels.cnn.open,
                                   &panels.export_dialog.open, &panels.palette_editor.open, &panels.video.open};
    bool* raise[kColumnPanels] = {&perf.panels.raise,          &panels.vecadd.raise,         &panels.cnn.raise,
                                  &panels.export_dialog.raise, &panels.palette_editor.raise, &panels.video.raise};
    bool raised = false;
    for (int i = 0; i < kColumnPanels; ++i) {
        if (*opened[i] && !panels.column_was_open[i] && !raised) raised = *raise[i] = true;
        panels.column_was_open[i] = *opened[i];
    }
    const bool in_column = begin_side_column(frame.layout, column_open, &panels.column_width);
    draw_perf_panels(perf.panels, in_column);
    draw_vector_add_panel(panels.vecadd, in_column);
    draw_cnn_panel(panels.cnn, in_column);
    draw_export_dialog(panels.export_dialog, in_column);
    draw_palette_editor(panels.palette_editor, in_column);
    draw_video_panel(panels.video, in_column);
    if (in_column) end_side_column();
}

// The Julia preview inset, while the main view is a parameter plane: the Julia set of the point
// under the mouse. Over a panel the point stays, so the mouse can reach the inset and click it;
// the click makes that Julia set the view (Back returns).
void draw_julia_inset(ExplorerPanels& panels, ExplorerPicture& picture, ExplorerWorkers& workers,
                      const ExplorerWindow& w, ExplorerFrame& frame) {
    const ImGuiIO& io = ImGui::GetIO();
    JuliaPreview& preview = workers.julia_preview;
    View& view = picture.view;
    if (!io.WantCaptureMouse || !panels.julia_target.julia) {
        const glm::dvec2 mouse = io.WantCaptureMouse ? glm::dvec2(0.5 * frame.fb_width, 0.5 * frame.fb_height)
                                                     : w.input.cursor * frame.pixels_per_unit;
        panels.julia_target = julia_view_at(view, mouse, preview.width, preview.height);
    }
    update_julia_preview(preview, panels.julia_target, picture.palette,
                         picture.settings.backend == Backend::Cuda && workers.renderer.cuda_unavailable.empty());
    JuliaPreviewState& inset = panels.julia;
    inset.texture = preview.texture;
    inset.width = preview.width;
    inset.height = preview.height;
    inset.c_re = preview.shown.julia_re;
    inset.c_im = preview.shown.julia_im;
    inset.backend = preview.cuda ? "CUDA" : "CPU";
    inset.render_ms = preview.render_ms;
    draw_julia_preview(inset, frame.layout);
    if (inset.make_main) {
        View opened = preview.shown;
        opened.width = view.width;
        opened.height = view.height;
        opened.max_iterations = view.max_iterations;
        view = opened;
        frame.nav.record_history = true;
    }
}

// The Export dialog's requests: start (the view as it is now), cancel, and the result once
// the job ends.
void carry_out_export(ExportDialogState& dialog, ExportJob& job, const ExplorerPicture& picture,
                      StatusLineState& status) {
    if (dialog.start) {
        ExportSettings s{dialog.path,
                         dialog.width,
                         dialog.height,
                         dialog.supersample,
                         picture.settings.backend,
                         picture.settings.precision};
        dialog.result = validate_export_settings(s);
        dialog.result_is_error = !dialog.result.empty();
        if (dialog.result.empty()) start_export_job(job, picture.view, picture.palette, s);
    }
    if (dialog.cancel) cancel_export_job(job);
    if (ExportResult done; poll_export_job(job, &done)) {
        dialog.result = done.message;
        dialog.result_is_error = !done.ok && !done.cancelled;
        show_message(status, done.message, dialog.result_is_error);
    }
}

// F11: fullscreen on the primary monitor and back to the window where it was.
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

// --screenshot: the framebuffer as drawn this frame (back buffer), rows flipped to top-down,
// written as a PNG with the view in its metadata.
bool save_screenshot(const std::string& path, int width, int height, const View& view) {
    std::vector<uint8_t> rgba(size_t(width) * height * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    PngWriteResult written = write_png_streamed(
        path, width, height, view, height, [&](int first_row, int rows, uint8_t* out, std::string*) {
            for (int r = 0; r < rows; ++r)
                std::copy_n(rgba.data() + size_t(height - 1 - (first_row + r)) * width * 4, size_t(width) * 4,
                            out + size_t(r) * width * 4);
            return true;
        });
    if (!written.ok)
        std::fprintf(stderr, "mandelscope: cannot save the screenshot: %s; no file was written.\n",
                     written.error.c_str());
    return written.ok;
}

}  // namespace

bool wait_for_frame(ExplorerWindow& w, ExplorerFrame* frame) {
    // The callbacks queue the events in w.input; navigate() applies them once ImGui has said
    // whether it wants them. Nothing changing means no frame: an idle window sleeps.
    replay_delayed_key_releases(w.window, &w.input);  // the taps of the last frame end now
    frame->events_seen = w.input.event_count;
    if (w.wait_s > 0.0) glfwWaitEventsTimeout(w.wait_s);
    else glfwPollEvents();
    frame->start_s = glfwGetTime();
    glfwGetFramebufferSize(w.window, &frame->fb_width, &frame->fb_height);
    glfwGetWindowSize(w.window, &frame->window_width, &frame->window_height);
    if (frame->fb_width == 0 || frame->fb_height == 0 || glfwGetWindowAttrib(w.window, GLFW_ICONIFIED)) {
        // Minimised: nothing to draw, and no reason to spin.
        glfwWaitEventsTimeout(0.1);
        return false;
    }
    frame->pixels_per_unit = double(frame->fb_width) / std::max(1, frame->window_width);
    return true;
}

void navigate(ExplorerWindow& w, ExplorerPicture& picture, StatusLineState& status, ExplorerFrame& frame) {
    // When io.WantCaptureMouse is true (the mouse is over a panel), mouse input belongs to ImGui,
    // not to the picture; the same for the keyboard while a text field has it.
    const ImGuiIO& io = ImGui::GetIO();
    frame.nav = apply_navigation(w.input, w.navigation, &picture.view, frame.pixels_per_unit, io.WantCaptureMouse,
                                 io.WantCaptureKeyboard, glfwGetTime(), picture.settings.navigation);
    draw_box_zoom_overlay(w.navigation, frame.pixels_per_unit);
    for (const std::string& path : w.input.dropped_paths) {
        if (open_dropped_view(path, &picture.view, &picture.settings, status)) frame.nav.record_history = true;
    }
    w.input.dropped_paths.clear();
}

void draw_panels(ExplorerPanels& panels, ExplorerPicture& picture, ExplorerWorkers& workers, const ExplorerWindow& w,
                 bool no_ui, ExplorerFrame& frame) {
    PerfMonitor& perf = workers.perf;
    set_panel_opacity(picture.settings.panel_opacity);
    fill_view_panel(panels.view, picture, workers.renderer);
    panels.export_dialog.window_width = frame.fb_width;
    panels.export_dialog.window_height = frame.fb_height;
    panels.export_dialog.running = workers.export_job.running;
    panels.export_dialog.progress = workers.export_job.progress;
    panels.view.show_vector_add = panels.vecadd.open;
    panels.view.show_cnn = panels.cnn.open;
    panels.view.show_performance = perf.panels.open;
    panels.view.show_palette_editor = panels.palette_editor.open;
    panels.view.show_video = panels.video.open;
    fill_video_panel(panels.video, workers.video, picture.view);
    frame.demos_busy = vector_add_busy(workers.vecadd_runner) || cnn_demo_busy(workers.cnn_runner);
    const bool column_open = perf.panels.open || panels.vecadd.open || panels.cnn.open || panels.export_dialog.open ||
                             panels.palette_editor.open || panels.video.open;
    frame.layout = layout_panels({float(frame.fb_width), float(frame.fb_height),
                                  status_line_height(panels.status, float(frame.fb_width)), panels.view.width,
                                  panels.column_width, column_open});
    if (no_ui) return;
    draw_view_panel(panels.view, frame.layout);
    panels.vecadd.open = panels.view.show_vector_add;
    panels.cnn.open = panels.view.show_cnn;
    perf.panels.open = panels.view.show_performance;
    panels.palette_editor.open = panels.view.show_palette_editor;
    panels.video.open = panels.view.show_video;
    draw_side_column(panels, perf, frame, column_open);
    if (panels.view.julia_preview && !picture.view.julia) draw_julia_inset(panels, picture, workers, w, frame);
}

void carry_out_requests(ExplorerPanels& panels, ExplorerPicture& picture, ExplorerWorkers& workers,
                        ExplorerHooks& hooks, ExplorerWindow& w, bool screenshot_pending, ExplorerFrame& frame) {
    View& view = picture.view;
    ExplorerSettings& settings = picture.settings;
    NavigationRequests& nav = frame.nav;
    ViewPanelState& view_panel = panels.view;
    if (view_panel.view_edited) {
        view = view_panel.view;
        nav.record_history = true;
    }
    if (view_panel.settings_edited) {
        if (view_panel.settings.vsync != settings.vsync) glfwSwapInterval(view_panel.settings.vsync ? 1 : 0);
        settings = view_panel.settings;
        // CUDA chosen in a window that started on the CPU: asked now, and refused with the reason.
        if (settings.backend == Backend::Cuda && !frame_renderer_cuda_usable(workers.renderer)) {
            settings.backend = Backend::Cpu;
            show_message(panels.status, "CUDA unavailable: " + workers.renderer.cuda_unavailable, true);
        }
    }
    if (hooks.soak.frames > 0 && step_soak(hooks.soak, {&view, &nav, &view_panel, &panels.export_dialog, w.window}))
        glfwSetWindowShouldClose(w.window, GLFW_TRUE);
    if (nav.toggle_backend) {
        if (settings.backend == Backend::Cpu && !frame_renderer_cuda_usable(workers.renderer))
            show_message(panels.status, "CUDA unavailable: " + workers.renderer.cuda_unavailable, true);
        else settings.backend = settings.backend == Backend::Cpu ? Backend::Cuda : Backend::Cpu;
    }
    // Back during a Newton flight returns to where it started.
    if ((view_panel.back || nav.back) && !newton_flight_back(workers.newton, &view))
        history_back(picture.history, &view);
    if (view_panel.forward || nav.forward) history_forward(picture.history, &view);
    if (view_panel.reset) {
        view = reset_view(view);
        nav.record_history = true;
    }
    if (nav.toggle_fullscreen) toggle_fullscreen(w.window, &w.windowed, settings.vsync);
    if (nav.quit) glfwSetWindowShouldClose(w.window, GLFW_TRUE);
    if (view_panel.open_export) {
        if (!panels.export_dialog.open) {
            panels.export_dialog.open = true;
            panels.export_dialog.width = frame.fb_width;  // the window's size by default
            panels.export_dialog.height = frame.fb_height;
        }
        panels.export_dialog.raise = true;
    }
    carry_out_export(panels.export_dialog, workers.export_job, picture, panels.status);
    carry_out_vector_add(panels.vecadd, workers.vecadd_runner);
    carry_out_cnn_demo(panels.cnn, workers.cnn_runner);
    carry_out_video_panel(panels.video, workers.video, &view, &nav.view_changed, picture.palette, settings.precision,
                          settings.backend == Backend::Cuda && workers.renderer.cuda_unavailable.empty(), panels.status,
                          w.window, &hooks.exit_code);
    if (hooks.bench.frames > 0 && step_drag_benchmark(hooks.bench, &view, workers.renderer, settings) &&
        !screenshot_pending)
        glfwSetWindowShouldClose(w.window, GLFW_TRUE);
    // Any move of the user's (a gesture, a panel's edit, Home, Forward) takes over from a flight.
    const bool user_moved = nav.view_changed || nav.forward || view_panel.view_edited || view_panel.reset ||
                            view_panel.forward;
    carry_out_newton_zoom(workers.newton, picture, panels.status, w, frame, user_moved);
}

void settle_view(ExplorerPicture& picture, ExplorerPanels& panels, ExplorerWindow& w, bool no_ui,
                 ExplorerFrame& frame) {
    View& view = picture.view;
    // The default view fits the part of the window the panels leave free.
    update_default_framing(picture.default_framing, &view, &picture.history,
                           no_ui ? FramingArea{} : free_area(frame.layout, panels.view.shown));
    if (picture.settings.auto_iterations) view.max_iterations = auto_iterations(view.zoom);
    // The history remembers where a gesture ended.
    if (frame.nav.record_history || picture.history.views.empty()) history_record(picture.history, view);
    frame.palette_changed = carry_out_palette_editor(
        panels.palette_editor, &view, &picture.palette, &picture.palette_name,
        w.last_frame_start_s > 0.0 ? frame.start_s - w.last_frame_start_s : 0.0);
    w.last_frame_start_s = frame.start_s;
    update_palette(&view, &picture.palette_name, &picture.palette, panels.status);
    // Past FP64 the stripe base and the period interior cannot be had (BLA skips the iterations
    // they average): drop them, keep the other layers, and say so.
    if (view_needs_deep_path(view, picture.settings.precision) && drop_deep_unavailable_view_colouring(&view))
        show_message(panels.status,
                     "Past FP64 the stripe colouring and the period interior are not available "
                     "(the deep path skips the iterations they need): coloured without them.",
                     false);
}

bool render_view(ExplorerWorkers& workers, const ExplorerPicture& picture) {
    try {
        perf_mark(workers.perf, PerfMark::RenderStart);
        update_frame_renderer(workers.renderer, picture.view, picture.settings.backend, picture.settings.precision,
                              picture.palette);
        perf_mark(workers.perf, PerfMark::RenderEnd);
        return true;
    } catch (const std::exception& e) {  // a GL failure: say it, don't show a black window
        std::fprintf(stderr, "mandelscope: %s\n", e.what());
        return false;
    }
}

void show_status_line(ExplorerPanels& panels, const ExplorerPicture& picture, ExplorerWorkers& workers,
                      ExplorerHooks& hooks, const ExplorerWindow& w, bool no_ui, const ExplorerFrame& frame) {
    // Its warnings also go to the log, once each time they change.
    StatusLineState& status = panels.status;
    const StatusLineState before = status;
    fill_status_line(status, picture.view, picture.settings, workers.renderer, w.ui_frame_ms);
    if (status.fallback_reason != before.fallback_reason && !status.fallback_reason.empty())
        std::fprintf(stderr, "mandelscope: fallback: %s\n", status.fallback_reason.c_str());
    if (status.beyond_fp64 && !before.beyond_fp64) std::fprintf(stderr, "mandelscope: %s\n", kBeyondFp64Message);
    if (!no_ui) draw_status_line(status, frame.layout.status);
    if (hooks.soak.frames > 0 && status.message_is_error && status.message != before.message &&
        status.message.rfind("CUDA unavailable", 0) != 0)
        ++hooks.soak.errors;
    if (status.dismiss_message) status.message.clear();
}

void end_scripted_run(const ExplorerOptions& options, const ExplorerPicture& picture, ExplorerPanels& panels,
                      ExplorerWorkers& workers, ExplorerHooks& hooks, ExplorerWindow& w, const ExplorerFrame& frame) {
    if (hooks.frames_shown++ == 0) hooks.first_frame_s = glfwGetTime();
    const FrameRenderer& renderer = workers.renderer;
    // --screenshot: once the view is complete and nothing else is under way.
    if (!options.screenshot.empty() && hooks.frames_shown >= options.frames && renderer.complete &&
        hooks.bench.frames == 0 && !w.navigation.panning && !frame.demos_busy && perf_settled(workers.perf)) {
        bool saved = save_screenshot(options.screenshot, frame.fb_width, frame.fb_height, picture.view);
        double seconds = glfwGetTime() - hooks.first_frame_s;
        std::printf("screenshot after %d frames in %.2f s (%.1f UI frames/s while the view was computed)\n",
                    hooks.frames_shown, seconds, hooks.frames_shown > 1 ? (hooks.frames_shown - 1) / seconds : 0.0);
        std::printf("render path: %s\n", render_path_name(renderer.path));
        std::printf("status: %s\n", status_line_text(panels.status).c_str());
        std::printf("%s", perf_compare_log(workers.perf).c_str());
        hooks.exit_code = saved ? 0 : 2;  // a scripted run that cannot write its file: as bad output, 2
        glfwSetWindowShouldClose(w.window, GLFW_TRUE);
    }
    // --frames without --screenshot: show that many frames, then exit.
    if (options.screenshot.empty() && options.frames > 0 && hooks.frames_shown >= options.frames &&
        hooks.bench.frames == 0 && hooks.soak.frames == 0)
        glfwSetWindowShouldClose(w.window, GLFW_TRUE);
}

void swap_frame(ExplorerWindow& w, ExplorerWorkers& workers, ExplorerHooks& hooks, ExplorerFrame& frame) {
    perf_mark(workers.perf, PerfMark::SwapStart);
    const double swap_start_s = glfwGetTime();
    glfwSwapBuffers(w.window);
    frame.swap_s = glfwGetTime() - swap_start_s;
    perf_mark(workers.perf, PerfMark::SwapEnd);
    if (hooks.soak.frames > 0)
        sample_soak_memory(
            hooks.soak, workers.export_job.running,
            frame.window_width == hooks.soak.base_width && frame.window_height == hooks.soak.base_height);
    submit_frame_request(workers.renderer);                    // a new CPU view starts once this frame is on screen
    w.ui_frame_ms = 1000.0 * (glfwGetTime() - frame.start_s);  // the work of a frame, not the waits between
}

void next_frame_wait(ExplorerWindow& w, const ExplorerPanels& panels, const ExplorerPicture& picture,
                     const ExplorerWorkers& workers, const ExplorerHooks& hooks, const ExplorerOptions& options,
                     const ExplorerFrame& frame) {
    const FrameRenderer& renderer = workers.renderer;
    RedrawReasons reasons;
    reasons.events = w.input.event_count != frame.events_seen || frame.nav.view_changed || panels.view.view_edited ||
                     panels.view.settings_edited || frame.palette_changed;
    reasons.continuous = picture.settings.redraw_continuously || hooks.soak.frames > 0 ||
                         drag_benchmark_wants_next_frame(hooks.bench, renderer) ||
                         hooks.frames_shown < options.frames;  // --frames: a scripted run
    reasons.progress = (waits_for_worker(renderer.path) && !renderer.complete) || workers.export_job.running ||
                       video_busy(workers.video) || vector_add_busy(workers.vecadd_runner) ||
                       cnn_demo_busy(workers.cnn_runner) || !perf_settled(workers.perf) ||
                       w.navigation.last_wheel_time_s >= 0.0 || w.navigation.zoom_direction != 0 ||
                       newton_zoom_busy(workers.newton) || ImGui::GetIO().WantTextInput;
    // The cadence weighs what a frame costs the CPU. A GPU's GL spends the swap waiting (for
    // vsync, or for the X server to take the picture), not computing, so its swap is left out
    // there; a software rasteriser (llvmpipe) draws the picture during the swap, on the cores
    // the frame being computed needs, so there it counts.
    reasons.frame_s = w.ui_frame_ms / 1000.0 - (w.software_gl ? 0.0 : frame.swap_s);
    reasons.frame_wall_s = w.ui_frame_ms / 1000.0;
    w.wait_s = drag_benchmark_wait_s(hooks.bench, renderer, w.ui_frame_ms, next_frame_wait_s(w.redraw, reasons));
}

void print_view_line(const View& view) {
    std::printf("view: center=%s,%s zoom=%s iterations=%lld size=%dx%d formula=%s%s%s%s%s colouring=%s interior=%s\n",
                view.center_re.c_str(), view.center_im.c_str(), view.zoom.text().c_str(),
                (long long)view.max_iterations, view.width, view.height, formula_name(view.formula),
                view.julia ? " julia=" : "", view.julia ? view.julia_re.c_str() : "", view.julia ? "," : "",
                view.julia ? view.julia_im.c_str() : "", colouring_methods_text(view.colouring).c_str(),
                interior_colour_name(view.colouring.interior));
}

void stop_workers(ExplorerWorkers& workers) {
    stop_newton_zoom(workers.newton);
    stop_export_job(workers.export_job);
    stop_explorer_video(workers.video);
    stop_vecadd_runner(workers.vecadd_runner);
    stop_cnn_runner(workers.cnn_runner);
    stop_perf_monitor(workers.perf);
    destroy_julia_preview(workers.julia_preview);
    shutdown_frame_renderer(workers.renderer);
}

void report_soak(ExplorerHooks& hooks) {
    std::printf("%s", soak_report(hooks.soak, cuda_device_memory_used_bytes()).c_str());
    std::error_code ignored;
    std::filesystem::remove(hooks.soak.export_path, ignored);
    if (!soak_passed(hooks.soak)) hooks.exit_code = 1;
}

}  // namespace ms
