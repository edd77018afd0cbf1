// navigation.h: mouse and keyboard to view changes.
//
// GLFW callbacks only queue what happened (NavigationInput); once per frame, after ImGui has
// decided who owns the mouse and keyboard, apply_navigation() turns the queue into view
// changes through render/view_math.h. Queuing keeps fast sequences exact (a press, moves and
// a release within one frame, as xdotool sends them) and keeps the order of events.
//
//   left drag       pan (the point under the cursor stays under it)
//   wheel           zoom about the cursor (NavigationSettings::wheel_zoom_per_notch a notch)
//   middle held     continuous zoom in about the cursor (Shift: out), XaoS's way
//   right drag      box zoom;  right click (no drag)  the Newton menu (NavigationRequests::menu)
//   double click    centre on the point
//   arrows          pan a tenth of the window;  + / -  zoom 2x;  Home  the default view
//   Page Up / Page Down held  continuous zoom in / out about the cursor
//   M, J, N         Newton zoom under the cursor: to the minibrot, its embedded Julia set, the
//                   next period;  Esc  cancels the search
//   Backspace, Ctrl+Z  back;  Ctrl+Y, Ctrl+Shift+Z  forward
//   C  CPU/CUDA;  F11  fullscreen;  Ctrl+Q  quit
//
// Continuous zoom is time-based: while held, the zoom grows by 2^(rate * elapsed seconds), so a
// slow frame makes a larger step, never a slower zoom.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec2.hpp>

#include "compute/fractal/view/view.h"

struct GLFWwindow;

namespace ms {

struct InputEvent {
    enum class Type { Move, Button, Scroll, Key } type = Type::Move;
    glm::dvec2 position{0.0, 0.0};  // cursor, window coordinates, at the event
    int button = 0;                 // GLFW_MOUSE_BUTTON_*
    int key = 0;                    // GLFW_KEY_*
    int action = 0;                 // GLFW_PRESS / GLFW_RELEASE / GLFW_REPEAT
    int mods = 0;                   // GLFW_MOD_*
    double scroll = 0.0;            // wheel notches, positive away from the user
    double time_s = 0.0;            // glfwGetTime()
};

// What the callbacks collect between two frames.
struct NavigationInput {
    std::vector<InputEvent> events;
    std::vector<std::string> dropped_paths;  // files dropped on the window
    glm::dvec2 cursor{0.0, 0.0};             // last known cursor position, window coordinates
    // Counts everything that reached the window (input, text, focus, the cursor entering or
    // leaving, a resize, an expose): the main loop redraws when it changes (render/platform/redraw.h).
    uint64_t event_count = 0;
    // Keys pressed since the last frame, and releases held back for the next one (see
    // install_key_release_delay).
    std::vector<int> keys_pressed;
    struct KeyRelease {
        int key, scancode, mods;
    };
    std::vector<KeyRelease> delayed_releases;
};

// Installs the cursor, button, scroll, key and drop callbacks, and the character, focus,
// cursor-enter, resize and refresh callbacks that only count events. Call it before
// ImGui_ImplGlfw_InitForOpenGL(window, true), which chains to the callbacks installed before it.
void install_navigation_callbacks(GLFWwindow* window, NavigationInput* input);

// Dear ImGui 1.86 reads keys as "down or not" once per frame, so a key pressed and released
// between two frames (a quick tap while a frame takes long, or xdotool) never reaches it: Enter
// in a text field would be lost, the field would stay active with its typed text, and the click
// that finally deactivated it would commit that text, snapping the view back. Call this after
// ImGui_ImplGlfw_InitForOpenGL: a release that follows its press within one frame is held back,
// and replay_delayed_key_releases() hands it to ImGui (and the callbacks above) before the next
// frame's events. (ImGui 1.87 queues input events itself.)
void install_key_release_delay(GLFWwindow* window);
void replay_delayed_key_releases(GLFWwindow* window, NavigationInput* input);

// The user's choices for the gestures (the View panel edits them).
struct NavigationSettings {
    double wheel_zoom_per_notch = 1.25;      // zoom factor of one wheel notch (> 1)
    double zoom_doublings_per_second = 2.0;  // continuous zoom's rate
    // Newton zoom (render/frame/nucleus_worker.h, render/frame/view_flight.h).
    double search_radius_pixels = 24.0;  // the nucleus is looked for this close to the cursor
    double minibrot_margin = 2.0;        // the minibrot's view: its size times this
    double julia_fraction = 0.5;         // the embedded Julia set: this far in log zoom from the view to the minibrot
    double flight_seconds = 1.5;         // the flight there
    bool show_period = true;             // the period and nucleus under a resting cursor
};

// Gestures under way, kept between frames.
struct NavigationState {
    bool panning = false;
    View pan_start_view;
    glm::dvec2 pan_grab{0.0, 0.0};  // framebuffer pixels
    bool boxing = false;
    glm::dvec2 box_start{0.0, 0.0};  // framebuffer pixels
    glm::dvec2 box_end{0.0, 0.0};
    double last_click_time_s = -1.0;
    glm::dvec2 last_click{0.0, 0.0};
    double last_wheel_time_s = -1.0;  // a wheel burst is recorded in the history once it pauses
    // Continuous zoom: +1 in, -1 out, 0 none; held by the middle button or by a key (its
    // GLFW_KEY_*, 0 for the button); applied up to zoom_applied_s.
    int zoom_direction = 0;
    int zoom_key = 0;
    double zoom_applied_s = 0.0;
};

// Newton zoom (render/frame/nucleus_worker.h): what a key or the menu asks for.
enum class NewtonTarget { None, Minibrot, EmbeddedJulia, NextPeriod };

// What the frame's input asks of the main loop, beyond the view changes already made.
struct NavigationRequests {
    bool view_changed = false;
    bool record_history = false;  // a gesture ended: remember where it left the view
    bool back = false;
    bool forward = false;
    bool toggle_backend = false;
    bool toggle_fullscreen = false;
    bool quit = false;
    // Newton zoom under `newton_pixel` (framebuffer pixels): a key asked for it.
    NewtonTarget newton = NewtonTarget::None;
    glm::dvec2 newton_pixel{0.0, 0.0};
    bool cancel_search = false;  // Esc
    // A right click without a drag: open the Newton menu at `menu_pixel`.
    bool menu = false;
    glm::dvec2 menu_pixel{0.0, 0.0};
};

// Consumes input.events. `pixels_per_unit` converts window coordinates to framebuffer pixels
// (HiDPI). When ImGui wants the mouse (a panel under it) or the keyboard (a text field), the
// matching events are ignored, as the imgui examples advise; a drag that started on the
// picture keeps going over a panel.
// Continuous zoom, while held, zooms up to now_s about the last cursor position.
NavigationRequests apply_navigation(NavigationInput& input, NavigationState& state, View* view, double pixels_per_unit,
                                    bool imgui_wants_mouse, bool imgui_wants_keyboard, double now_s,
                                    const NavigationSettings& settings = {});

// The rubber band of a box zoom, drawn over everything (ImGui foreground draw list).
void draw_box_zoom_overlay(const NavigationState& state, double pixels_per_unit);

}  // namespace ms
