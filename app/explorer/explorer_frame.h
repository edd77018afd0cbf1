// explorer_frame.h: the explorer window's state and the steps of one frame, in the order the
// main loop (explorer.cpp) calls them:
//
//   wait_for_frame        wait for events (or poll when the next frame is due at once); the
//                         window's size this frame
//   navigate              mouse and keyboard move the view; dropped files open
//   draw_panels           the panels, filled with the frame's facts and laid out so that none
//                         covers another (render/ui/panel_layout.h), raise their requests
//   carry_out_requests    the panels', the keys' and the test hooks' requests change the view,
//                         the settings, the window, and start the panels' work
//   settle_view           iterations follow the zoom, the history records, the palette follows
//   render_view           the renderer takes the settled view (render/frame/frame_renderer.h)
//   show_status_line      what this frame's rendering did, last
//   end_scripted_run      --screenshot and --frames end the run once their frame is drawn
//   swap_frame            the picture goes on screen; the CPU worker gets its next view
//   next_frame_wait       when to draw again: at once, after a short wait, or on an event
//
// The state is plain structs grouped by what they hold; each step takes the ones it reads and
// writes. The panels themselves live in render/ui/ and render/demos/; each only edits its own
// state and raises requests, and the steps here carry them out.
#pragma once

#include <optional>
#include <string>

#include "app/explorer/drag_benchmark.h"
#include "app/explorer/explorer_newton.h"
#include "app/explorer/explorer_options.h"
#include "app/explorer/explorer_video.h"
#include "app/explorer/soak.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"
#include "render/demos/cnn_runner.h"
#include "render/demos/panel_vecadd.h"
#include "render/demos/vecadd_runner.h"
#include "render/frame/export_image.h"
#include "render/frame/frame_renderer.h"
#include "render/frame/julia_preview.h"
#include "render/frame/navigation.h"
#include "render/frame/view_math.h"
#include "render/perf/perf_monitor.h"
#include "render/platform/redraw.h"
#include "render/ui/panel_layout.h"
#include "render/ui/panel_palette.h"
#include "render/ui/panels.h"

struct GLFWwindow;

namespace ms {

// What the window shows: the view, how it is rendered, its palette, and the way back.
struct ExplorerPicture {
    View view;
    ExplorerSettings settings;
    PaletteTable palette;
    std::string palette_name;  // the palette `palette` was made from ("" until one loads)
    ViewHistory history;
    DefaultFraming default_framing;  // the default view fits the free area (render/frame/view_math.h)
};

// The window itself and its input, between frames.
struct WindowPlacement {  // where the window was before F11 made it fullscreen
    int x = 0, y = 0, width = 0, height = 0;
};
struct ExplorerWindow {
    GLFWwindow* window = nullptr;
    bool software_gl = false;  // a software rasteriser (llvmpipe) draws the frames
    NavigationInput input;     // the GLFW callbacks queue events here (navigation.h)
    NavigationState navigation;
    WindowPlacement windowed;
    RedrawState redraw;
    double wait_s = 0.0;              // how long to wait for events before the next frame (redraw.h)
    double ui_frame_ms = 0.0;         // the last frame's own time, from its events to its swap
    double last_frame_start_s = 0.0;  // for colour cycling's step
    std::string ini_path;             // the panels' layout file; ImGui's io.IniFilename points into it
};

// The panels' state between frames (each panel's struct is declared beside its draw function).
inline constexpr int kColumnPanels = 6;  // Performance, Vector add, CNN, Export, Palette, Video
struct ExplorerPanels {
    ViewPanelState view;
    StatusLineState status;
    ExportDialogState export_dialog;
    PaletteEditorState palette_editor;  // the palette editor tab (render/ui/panel_palette.h)
    VideoPanelState video;              // the Video tab (render/ui/panel_video.h)
    VectorAddDemo vecadd;
    CnnDemo cnn;
    JuliaPreviewState julia;
    View julia_target;          // the Julia view of the point under the mouse
    float column_width = 0.0f;  // the right column's, as the user left it (panel_layout.h)
    bool column_was_open[kColumnPanels] = {false, false, false, false, false, false};
};

// The work behind the picture and the panels, each on its own thread or the GPU: started after
// the window, stopped before it closes.
struct ExplorerWorkers {
    FrameRenderer renderer;
    JuliaPreview julia_preview;  // the inset's picture (render/frame/julia_preview.h)
    ExportJob export_job;
    VecAddRunner vecadd_runner;  // the vector-add demo's measurements
    CnnRunner cnn_runner;        // the CNN demo's data, CUDA context and measurements
    PerfMonitor perf;            // the Performance window: timings, Compare, device (perf_monitor.h)
    ExplorerVideo video;         // the Video panel's render and its latest frame (explorer_video.h)
    NewtonZoom newton;           // the Newton zoom's search thread and flight (explorer_newton.h)
};

// The test hooks' progress (explorer_options.h: --bench-drag, --soak, --screenshot, --frames).
struct ExplorerHooks {
    DragBenchmark bench;  // app/explorer/drag_benchmark.h
    SoakTest soak;        // app/explorer/soak.h
    int frames_shown = 0;
    double first_frame_s = 0.0;  // glfwGetTime() when the first frame was drawn
    int exit_code = 0;           // what the run returns (a scripted run sets it)
};

// One frame's facts, gathered as the frame goes and read by the later steps.
struct ExplorerFrame {
    double start_s = 0.0;                     // glfwGetTime() after the events came
    uint64_t events_seen = 0;                 // input.event_count before them
    int fb_width = 0, fb_height = 0;          // pixels
    int window_width = 0, window_height = 0;  // screen coordinates
    double pixels_per_unit = 1.0;             // pixels per screen coordinate (HiDPI)
    NavigationRequests nav;
    PanelLayout layout;
    bool demos_busy = false;       // the demos' work runs, as this frame's panels show it
    bool palette_changed = false;  // the palette editor changed the palette
    double swap_s = 0.0;           // glfwSwapBuffers' own time
};

// ---- Shared by the start and the frames ---------------------------------------------------

// The latest notice for the status line, also printed ("mandelscope: TEXT"; errors on stderr).
void show_message(StatusLineState& status, const std::string& text, bool error);
// A view file: a Kalles Fraktaler location (.kfr, compute/fractal/view/kfr.h: centre, zoom,
// iterations, formula) or a PNG with its view. On failure, nullopt and *error says why (no
// full stop).
std::optional<View> read_view_file(const std::string& path, std::string* error);
// The palette table for view->palette; on failure the previous palette stays (and the status
// line says why).
void update_palette(View* view, std::string* loaded_name, PaletteTable* table, StatusLineState& status);

// ---- The steps of a frame ------------------------------------------------------------------

// Waits for events, or polls when the next frame is due at once, and reads the window's size.
// Returns false while the window is minimised (after a short wait): nothing to draw.
bool wait_for_frame(ExplorerWindow& w, ExplorerFrame* frame);
void navigate(ExplorerWindow& w, ExplorerPicture& picture, StatusLineState& status, ExplorerFrame& frame);
void draw_panels(ExplorerPanels& panels, ExplorerPicture& picture, ExplorerWorkers& workers, const ExplorerWindow& w,
                 bool no_ui, ExplorerFrame& frame);
void carry_out_requests(ExplorerPanels& panels, ExplorerPicture& picture, ExplorerWorkers& workers,
                        ExplorerHooks& hooks, ExplorerWindow& w, bool screenshot_pending, ExplorerFrame& frame);
void settle_view(ExplorerPicture& picture, ExplorerPanels& panels, ExplorerWindow& w, bool no_ui, ExplorerFrame& frame);
// Returns false after a failure it printed (a GL error): the run ends with status 1.
bool render_view(ExplorerWorkers& workers, const ExplorerPicture& picture);
void show_status_line(ExplorerPanels& panels, const ExplorerPicture& picture, ExplorerWorkers& workers,
                      ExplorerHooks& hooks, const ExplorerWindow& w, bool no_ui, const ExplorerFrame& frame);
// Counts the frame just drawn; saves the screenshot, or ends a --frames run, when it is due.
void end_scripted_run(const ExplorerOptions& options, const ExplorerPicture& picture, ExplorerPanels& panels,
                      ExplorerWorkers& workers, ExplorerHooks& hooks, ExplorerWindow& w, const ExplorerFrame& frame);
void swap_frame(ExplorerWindow& w, ExplorerWorkers& workers, ExplorerHooks& hooks, ExplorerFrame& frame);
// Sets w.wait_s: how long the next frame waits for events.
void next_frame_wait(ExplorerWindow& w, const ExplorerPanels& panels, const ExplorerPicture& picture,
                     const ExplorerWorkers& workers, const ExplorerHooks& hooks, const ExplorerOptions& options,
                     const ExplorerFrame& frame);

// ---- The end -------------------------------------------------------------------------------

// --print-view's line, printed on exit.
void print_view_line(const View& view);
// Stops every worker and frees their GL and CUDA resources (the context still current).
void stop_workers(ExplorerWorkers& workers);
// --soak's report once the workers have released their memory; removes the soak's export and
// sets hooks.exit_code to 1 where the soak failed.
void report_soak(ExplorerHooks& hooks);

}  // namespace ms
