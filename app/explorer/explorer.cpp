// explorer.cpp: the explorer window, `mandelscope [options]` with no mode.
//
// Read it like Dear ImGui's example_glfw_opengl3/main.cpp: set up GLFW, OpenGL (through glad)
// and ImGui; plain local state; the main loop (poll events, new ImGui frame, turn input into
// view changes, draw the panels, carry out what they asked for, render the frame, draw, swap);
// clean up in reverse order. The start's steps are in explorer_start.h, a frame's in
// explorer_frame.h; the pieces they use live in render/: navigation.h (input to view changes),
// frame_renderer.h (the render paths: interop, copy, cpu, deep), panels.h (the panels),
// export_image.h (PNG export), png_stream.h (reopening a PNG's view).
//
// Test hooks: --screenshot saves the framebuffer once the view is completely rendered and at
// least --frames frames were shown, prints "render path: PATH" and exits 0; --print-view
// prints the view on exit; --bench-drag=N pans every frame for N frames and prints the frame
// rate (drag_benchmark.h); --soak=N navigates at random for N frames (soak.h); --export writes
// the PNG through the Export dialog's code without opening a window (headless_export.h);
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

#include <cstdio>
#include <string>

#include "app/commands.h"
#include "app/explorer/explorer_frame.h"
#include "app/explorer/explorer_options.h"
#include "app/explorer/explorer_start.h"
#include "app/explorer/headless_export.h"
#include "compute/system/cuda_start.h"
#include "compute/system/process_memory.h"

namespace ms {

int run_explorer(int argc, char** argv) {
    // A window runs for hours and exports images of any size: large blocks go back to the
    // system when freed rather than fragment the heap (compute/system/process_memory.h).
    keep_large_blocks_mapped();
    ExplorerOptions options;
    if (int rc = parse_explorer_command_line(argc, argv, &options); rc >= 0) return rc;
    // CUDA's driver and context start while the window, OpenGL and ImGui come up.
    if (options.backend != "cpu") cuda_start_in_background();

    // The first view: from the options, with --open first, so the export, the screenshot and
    // the window all start at the opened view.
    ExplorerPicture picture;
    ExplorerPanels panels;
    if (int rc = set_up_first_view(options, &picture, panels.status); rc >= 0) return rc;
    if (!options.export_path.empty())
        return export_without_window(picture.view, picture.palette, export_settings(options, picture.settings));

    // Setup window
    ExplorerWindow w;
    if (!open_window(&picture.view, picture.settings.vsync, &w)) return 1;
    install_navigation_callbacks(w.window, &w.input);  // before ImGui, which chains to them

    // Setup Dear ImGui context
    set_up_imgui(w);

    // Our state
    ExplorerWorkers workers;
    if (!start_renderer(options, workers.renderer, &picture.settings)) return 1;
    start_newton_zoom(workers.newton);
    set_up_panels(options, panels, workers);
    workers.video.devices = picture.settings.devices;
    ExplorerHooks hooks;
    if (!set_up_hooks(options, hooks)) return 2;
    start_perf_monitor(workers.perf, panel_requested(options, "perf"), options.compare, perf_tab(options));

    // Main loop. Anything thrown out of it (a GL failure, a view the renderer cannot take)
    // ends the program with its sentence, after the cleanup below has stopped every worker.
    try {
        while (!glfwWindowShouldClose(w.window)) {
            // Wait for events (inputs, window resize, etc.), or poll when the next frame is due
            // at once.
            ExplorerFrame frame;
            if (!wait_for_frame(w, &frame)) continue;  // minimised
            picture.view.width = frame.fb_width;
            picture.view.height = frame.fb_height;

            // Start the Dear ImGui frame
            perf_mark(workers.perf, PerfMark::FrameStart);
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            ImGui::NewFrame();

            // Input moves the view; the panels show the frame's facts and raise requests, which
            // are then carried out; the view is settled for this frame.
            navigate(w, picture, panels.status, frame);
            draw_panels(panels, picture, workers, w, options.no_ui, frame);
            carry_out_requests(panels, picture, workers, hooks, w, !options.screenshot.empty(), frame);
            settle_view(picture, panels, w, options.no_ui, frame);

            // Rendering: the view, then the status line (it tells what the rendering did), then
            // the picture and the panels on screen.
            if (!render_view(workers, picture)) {
                hooks.exit_code = 1;
                break;
            }
            show_status_line(panels, picture, workers, hooks, w, options.no_ui, frame);
            // Compare renders each view on CUDA too: a window that started on the CPU asks for it now.
            if (workers.perf.panels.compare.enabled) frame_renderer_cuda_usable(workers.renderer);
            update_perf_monitor(workers.perf, picture.view, picture.settings.precision, workers.renderer,
                                picture.palette);
            ImGui::Render();
            perf_mark(workers.perf, PerfMark::UiBuilt);
            draw_frame(workers.renderer, picture.view, frame.fb_width, frame.fb_height);
            perf_mark(workers.perf, PerfMark::DrawDataStart);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
            perf_mark(workers.perf, PerfMark::DrawDataEnd);
            end_scripted_run(options, picture, panels, workers, hooks, w, frame);
            swap_frame(w, workers, hooks, frame);
            next_frame_wait(w, panels, picture, workers, hooks, options, frame);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mandelscope: %s\n", e.what());
        hooks.exit_code = 1;
    }
    if (options.print_view) print_view_line(picture.view);

    // Cleanup
    stop_workers(workers);
    if (hooks.soak.frames > 0) report_soak(hooks);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(w.window);
    glfwTerminate();
    return hooks.exit_code;
}

}  // namespace ms
