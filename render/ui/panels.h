// panels.h: the explorer's ImGui panels, each one function over a small plain struct
// (the imgui demo's ShowExampleAppX(bool*) pattern).
//
// The main loop fills each state with the facts of the frame (the current view, what the
// renderer did), calls draw_X(state), then reads back what the user edited and the requests
// raised (bool fields, cleared by the panel at the start of each draw) and carries them out.
// Panels own no GPU resource and change nothing themselves.
#pragma once

#include <string>
#include <vector>

#include "compute/fractal/view/view.h"
#include "render/frame/frame_renderer.h"
#include "render/frame/navigation.h"
#include "render/ui/panel_layout.h"

namespace ms {

// Shared by every panel (panel_widgets.cpp): a "(?)" after the last item whose tooltip shows
// `text`. Numbers are formatted with compute/system/text_format.h, as on the command line.
void help_marker(const char* text);

// What the user chose, beyond the view itself.
struct ExplorerSettings {
    Backend backend = Backend::Cuda;  // asked for; the renderer falls back when it must
    Precision precision = Precision::Auto;
    bool auto_iterations = true;  // iterations follow the zoom (view_math.h)
    bool vsync = true;
    // Draw every frame even when nothing changes (the Timings panel then shows the UI's full
    // frame rate). Off: the window draws only on input, arriving rows or running work.
    bool redraw_continuously = false;
    float panel_opacity = 1.0f;  // of the panels' backgrounds over the fractal (0.2 to 1)
    NavigationSettings navigation;  // zoom speeds and the Newton zoom's choices
    // The CUDA devices a large deep frame spreads over (--devices); empty: every visible one.
    std::vector<int> devices;
};

// Shown where the view is deeper than FP64 resolves (compute/fractal/view/view.h: fp64_resolves)
// and a direct precision was forced (automatic precision renders it on a deep path).
inline constexpr const char* kBeyondFp64Message =
    "Past FP64's resolution: neighbouring pixels are closer together than double precision can "
    "tell apart, so the picture turns blocky. Set the precision to auto: deeper views then render "
    "by perturbation from a high-precision reference (the deep path).";

// ---- View panel (panel_view.cpp) ---------------------------------------------------------
struct ViewPanelState {
    // Filled by the main loop each frame; the panel edits them in place.
    View view;
    ExplorerSettings settings;
    // Facts shown.
    std::vector<std::string> palettes;
    std::string cuda_unavailable;  // why CUDA cannot be chosen; "" when it can
    Precision precision_in_use = Precision::Fp64;
    bool deep_path = false;  // the view renders on a deep path (perturbation)
    bool can_back = false;
    bool can_forward = false;
    // Requests raised this frame.
    bool view_edited = false;      // `view` was changed: apply it
    bool settings_edited = false;  // `settings` was changed: apply them
    bool back = false;
    bool forward = false;
    bool reset = false;
    bool open_export = false;
    bool show_vector_add = false;      // the Vector-add demo panel's toggle (edited in place)
    bool show_cnn = false;             // the CNN demo panel's toggle (edited in place)
    bool show_performance = false;     // the Performance window's toggle (edited in place)
    bool show_palette_editor = false;  // the palette editor's toggle (edited in place)
    bool show_video = false;           // the Video panel's toggle (edited in place)
    bool julia_preview = false;        // the Julia preview inset's toggle (edited in place)
    // The panel's own, kept between frames: the centre being typed or pasted.
    std::string center_re_text;
    std::string center_im_text;
    std::string center_error;          // why the last typed centre was refused
    bool center_being_edited = false;  // a centre field had the keyboard last frame
    std::string julia_re_text;         // the Julia parameter being typed, likewise
    std::string julia_im_text;
    std::string julia_error;
    bool julia_being_edited = false;
    std::string zoom_text;   // the zoom being typed
    std::string zoom_error;  // why the last typed zoom was refused
    bool zoom_being_edited = false;
    float width = 0.0f;  // as drawn (the user may resize it); 0: not yet
    PanelRect shown;     // where it was drawn this frame (collapsed: its title bar)
};
// Drawn at layout.view (panel_layout.h); records its width for the next frame's layout and its
// rectangle for free_area().
void draw_view_panel(ViewPanelState& state, const PanelLayout& layout);

// ---- Julia preview inset (panel_julia_preview.cpp) -------------------------------------------
// XaoS's live Julia preview: while the main view shows a parameter plane, a small picture of the
// Julia set of the point under the mouse. The main loop renders it (render/frame/julia_preview.h)
// and owns its texture; the panel shows it and raises the click.
struct JuliaPreviewState {
    // Filled by the main loop each frame.
    unsigned texture = 0;       // GL texture name; 0: nothing to show yet
    int width = 0, height = 0;  // its pixels
    std::string c_re, c_im;     // the parameter it shows (decimal text)
    const char* backend = "";   // "CPU" or "CUDA", and its time
    double render_ms = 0.0;
    // Request raised this frame.
    bool make_main = false;  // clicked: the main view becomes this Julia set (Back returns)
};
// Drawn at the bottom left of the picture, beside the View panel and above the status line.
void draw_julia_preview(JuliaPreviewState& state, const PanelLayout& layout);

// Parses "RE,IM", "RE, IM" or "RE IM" (as copied by the panel or given to --center) into the
// two decimal texts. Returns "" on success, else the sentence saying what is wrong.
std::string parse_center_text(const std::string& text, std::string* re, std::string* im);

// ---- Status line (panel_status.cpp) --------------------------------------------------------
struct StatusLineState {
    Backend backend = Backend::Cpu;         // asked for
    std::string cuda_unavailable;           // why there is no GPU to render on ("" when there is)
    RenderPath path = RenderPath::None;     // what ran
    Precision precision = Precision::Fp64;  // in use (deep paths: DeepDouble or DeepFloatExp)
    double compute_ms = 0.0;
    double ui_frame_ms = 0.0;
    int width = 0;
    int height = 0;
    ViewZoom zoom = 1.0;
    int64_t iterations = 0;
    bool rendering = false;  // a CPU or deep frame is under way
    double progress = 0.0;
    std::string progress_label;  // what the progress bar counts ("" : "rendering")
    // Deep paths: the last finished frame's figures (reference, BLA, skipped share).
    bool deep = false;
    bool deep_frame_done = false;  // deep_stats describe a finished frame
    DeepFrameStats deep_stats;
    int deep_devices = 1;  // > 1: the finished frame was spread over that many GPU slots
    std::string fallback_reason;
    bool beyond_fp64 = false;
    std::string message;  // the latest notice (an export, a dropped file...)
    bool message_is_error = false;
    bool dismiss_message = false;  // request: the user closed the message
};
// Drawn in `area` (layout.status). Its first line is cut with "..." where it does not fit, and
// shows the whole of it as a tooltip; the warnings and the message below it wrap.
void draw_status_line(StatusLineState& state, const PanelRect& area);
// How tall the status line is at `width` pixels, with the text it shows now (call in a frame).
float status_line_height(const StatusLineState& state, float width);
// Its first line: backend, path, precision, frame and UI times, size, zoom, iterations; on a
// deep path the precision is the perturbation's number type, and the reference (digits,
// iterations, ms, new or cached), the BLA levels and the share of iterations BLA skipped follow.
std::string status_line_text(const StatusLineState& state);

// ---- Export dialog (panel_export.cpp) ------------------------------------------------------
struct ExportDialogState {
    bool open = false;
    bool raise = false;  // request: bring its tab of the right column to the front
    std::string path = "mandelscope.png";
    int width = 1920;
    int height = 1080;
    int supersample = 1;
    int window_width = 0;  // for the "window size" button
    int window_height = 0;
    // Facts shown.
    bool running = false;
    double progress = 0.0;
    std::string result;
    bool result_is_error = false;
    // Requests.
    bool start = false;
    bool cancel = false;
};
// The "Export PNG" tab of the right column (when open and the column is drawn, panel_layout.h).
void draw_export_dialog(ExportDialogState& state, bool in_column);

}  // namespace ms
