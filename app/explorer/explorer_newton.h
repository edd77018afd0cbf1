// explorer_newton.h: the Newton zoom in the window: a key (M, J, N) or the right-click menu
// asks for the minibrot under the cursor, its embedded Julia set or the next period; the search
// runs on render/frame/nucleus_worker.h's thread; once it finds the nucleus the view flies there
// (render/frame/view_flight.h), and Back (Backspace, Ctrl+Z) returns. While the mouse rests on
// the picture, the period and nucleus under it are looked up too and drawn over the picture.
// A failure ("no nucleus ... converged near here") is a status message, never a wait.
//
// Each frame, after the keys and panels (carry_out_requests), carry_out_newton_zoom takes the
// frame's requests and the worker's result and moves the flight on; the history records where a
// flight starts and where it lands, never the views on the way.
#pragma once

#include <glm/vec2.hpp>

#include "compute/fractal/view/view.h"
#include "render/frame/nucleus_worker.h"
#include "render/frame/view_flight.h"

namespace ms {

struct ExplorerPicture;
struct ExplorerWindow;
struct ExplorerFrame;
struct StatusLineState;

struct NewtonZoom {
    NucleusWorker worker;
    ViewFlight flight;
    View flight_shown;  // the view the flight set last: another one means the user moved it
    NewtonTarget flying_to = NewtonTarget::None;
    int64_t flying_period = 0;
    // The right-click menu: where it was opened, in which view.
    glm::dvec2 menu_pixel{0.0, 0.0};
    View menu_view;
    bool menu_answered = false;  // the resting cursor's answer was there for menu_pixel
    NucleusResult menu_answer;
    // The resting cursor: where it rests since when, whether its lookup was asked, and the
    // answer (for the view and pixel it was asked at).
    bool cursor_started = false;  // start_cursor holds the cursor of the first frame
    bool cursor_moved = false;    // the cursor has moved since: the lookup may start
    glm::dvec2 start_cursor{0.0, 0.0};
    glm::dvec2 hover_pixel{-1.0, -1.0};
    View hover_view;
    double hover_since_s = 0.0;
    bool hover_waiting = false;  // resting, not asked yet: the frames must go on
    bool hover_asked = false;
    bool hover_done = false;
    NucleusResult hover;
};

// Starts the worker (its results wake the main loop).
void start_newton_zoom(NewtonZoom& newton);
// Back while flying: the view returns to where the flight started (already in the history),
// and the flight stops. Returns false when no flight was under way (Back then walks the history).
bool newton_flight_back(NewtonZoom& newton, View* view);
// The frame's Newton requests (keys, the menu, Esc), the worker's result, the flight, the
// resting cursor's lookup; draws the menu and the overlay. `user_moved`: the user moved the view
// this frame (a flight under way stops there).
void carry_out_newton_zoom(NewtonZoom& newton, ExplorerPicture& picture, StatusLineState& status,
                           const ExplorerWindow& w, ExplorerFrame& frame, bool user_moved);
// The next frame is due soon: a flight, a search or a resting cursor's lookup is under way.
bool newton_zoom_busy(const NewtonZoom& newton);
void stop_newton_zoom(NewtonZoom& newton);

}  // namespace ms
