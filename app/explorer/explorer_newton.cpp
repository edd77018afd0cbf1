// explorer_newton.cpp: the Newton zoom's requests, flight, menu and overlay (see
// explorer_newton.h).
#include "app/explorer/explorer_newton.h"

#include <glad/gl.h>
// glad must come before GLFW, which then includes no GL header of its own.
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <glm/geometric.hpp>

#include "app/explorer/explorer_frame.h"
#include "compute/fractal/nucleus/nucleus.h"
#include "compute/fractal/view/deep_navigation.h"

namespace ms {

namespace {

constexpr double kHoverRestSeconds = 0.35;  // the cursor rests this long before its lookup
constexpr const char* kMenuName = "Newton zoom";

const char* target_title(NewtonTarget target) {
    switch (target) {
    case NewtonTarget::Minibrot: return "the minibrot";
    case NewtonTarget::EmbeddedJulia: return "the embedded Julia set";
    case NewtonTarget::NextPeriod: return "the next period";
    default: return "the nucleus";
    }
}

ViewZoom view_zoom_of(DeepZoom zoom) {
    // Shallow zooms stay doubles, as the wheel leaves them (view_math.cpp's zoom_view_about).
    if (zoom.exponent10 < 300 && zoom.exponent10 > -300)
        return ViewZoom(zoom.mantissa * std::pow(10.0, zoom.exponent10));
    return ViewZoom::from_deep(zoom);
}

// "-1.7548776662" from a long decimal: enough digits to read, not the hundreds the nucleus has.
std::string short_decimal(const std::string& text, size_t digits = 14) {
    return text.size() <= digits + 2 ? text : text.substr(0, digits + 2) + "...";
}

// Where the search's answer takes the view: the nucleus in the middle, at the minibrot's zoom
// (its size times the margin), or a fraction of the way there in log zoom (the embedded Julia
// set). Colours and iterations stay the view's (automatic iterations follow the zoom).
View newton_destination(const View& view, const NucleusResult& r, const NavigationSettings& settings) {
    View to = view;
    to.center_re = r.minibrot.center_re;
    to.center_im = r.minibrot.center_im;
    DeepZoom zoom = minibrot_frame_zoom(r.minibrot, settings.minibrot_margin);
    if (r.job.target == NewtonTarget::EmbeddedJulia)
        zoom = zoom_fraction(view_zoom(r.job.view), zoom, settings.julia_fraction);
    to.zoom = view_zoom_of(zoom);
    return to;
}

void start_flight(NewtonZoom& n, ExplorerPicture& picture, StatusLineState& status, const NucleusResult& r,
                  double now_s);

void ask(NewtonZoom& n, ExplorerPicture& picture, StatusLineState& status, NewtonTarget target, const View& view,
         glm::dvec2 pixel, double now_s) {
    const NavigationSettings& settings = picture.settings.navigation;
    NucleusJob job;
    job.target = target;
    job.view = view;
    job.pixel = pixel;
    job.radius_pixels = settings.search_radius_pixels;
    // The resting cursor's answer is this one's: the minibrot and its Julia set fly at once.
    if (n.hover_done && n.hover.minibrot.found && target != NewtonTarget::NextPeriod &&
        same_place(n.hover.job.view, view) && glm::distance(n.hover.job.pixel, pixel) < 0.5 &&
        n.hover.job.radius_pixels == job.radius_pixels) {
        NucleusResult r = n.hover;
        r.job.target = target;
        start_flight(n, picture, status, r, now_s);
        return;
    }
    request_nucleus(n.worker, job);
    show_message(status,
                 std::string("Newton zoom: looking for ") + target_title(target) + " near the cursor (Esc cancels).",
                 false);
}

void start_flight(NewtonZoom& n, ExplorerPicture& picture, StatusLineState& status, const NucleusResult& r,
                  double now_s) {
    View& view = picture.view;
    View to = newton_destination(view, r, picture.settings.navigation);
    // Enough iterations for the minibrot: automatic iterations (which follow the zoom alone)
    // give way to a fixed count where they would be too few.
    to.max_iterations = minibrot_iterations(r.minibrot, std::max(view.max_iterations, auto_iterations(to.zoom)));
    if (picture.settings.auto_iterations && to.max_iterations > auto_iterations(to.zoom))
        picture.settings.auto_iterations = false;
    history_record(picture.history, view);  // Back returns here
    n.flight = start_view_flight(view, to, now_s, picture.settings.navigation.flight_seconds);
    n.flight_shown = view;
    n.flying_to = r.job.target;
    n.flying_period = r.minibrot.period;
    char text[512];
    std::snprintf(text, sizeof text,
                  "Newton zoom: period %lld nucleus at %s, %s (%d Newton steps, %.0f ms); flying to zoom %s.",
                  (long long)r.minibrot.period, short_decimal(r.minibrot.center_re).c_str(),
                  short_decimal(r.minibrot.center_im).c_str(), r.minibrot.newton_steps, r.ms, to.zoom.text().c_str());
    show_message(status, text, false);
}

void take_result(NewtonZoom& n, ExplorerPicture& picture, StatusLineState& status, double now_s) {
    NucleusResult r;
    if (!take_nucleus_result(n.worker, &r)) return;
    if (r.job.target == NewtonTarget::None) {  // the resting cursor's lookup
        n.hover = std::move(r);
        n.hover_done = true;
        return;
    }
    if (!r.minibrot.found) {
        std::string why = r.minibrot.failure.empty() ? "no nucleus converged near here" : r.minibrot.failure;
        if (!why.empty() && why.back() == '.') why.pop_back();
        show_message(status, std::string("Newton zoom to ") + target_title(r.job.target) + ": " + why + ".", true);
        return;
    }
    start_flight(n, picture, status, r, now_s);
}

void fly(NewtonZoom& n, ExplorerPicture& picture, StatusLineState& status, ExplorerFrame& frame, double now_s) {
    if (!n.flight.active) return;
    bool arrived = false;
    const int width = picture.view.width, height = picture.view.height;  // the window's, this frame
    picture.view = view_flight_at(n.flight, now_s, &arrived);
    picture.view.width = width;
    picture.view.height = height;
    if (!arrived)  // on the way: the iterations the zoom there needs, at least the start's
        picture.view.max_iterations = std::max(n.flight.from.max_iterations, auto_iterations(picture.view.zoom));
    n.flight_shown = picture.view;
    frame.nav.view_changed = true;
    if (!arrived) return;
    n.flight.active = false;
    frame.nav.record_history = true;
    show_message(status,
                 std::string("Newton zoom: arrived at ") + target_title(n.flying_to) + " (period " +
                     std::to_string(n.flying_period) + ", zoom " + picture.view.zoom.text() + ", " +
                     std::to_string(picture.view.max_iterations) + " iterations).",
                 false);
}

// The resting cursor: once it has rested kHoverRestSeconds on the picture, its lookup goes to
// the worker; moving on drops the answer (and cancels a lookup under way).
void follow_hover(NewtonZoom& n, const View& view, glm::dvec2 cursor, bool over_panel, bool gesture,
                  const NavigationSettings& settings, double now_s) {
    const NucleusStatus status = nucleus_status(n.worker);
    const bool searching = status.busy && status.target != NewtonTarget::None;
    const bool moved = glm::distance(cursor, n.hover_pixel) >= 0.5 || !same_place(view, n.hover_view) ||
                       (n.hover_done && n.hover.job.radius_pixels != settings.search_radius_pixels);
    n.hover_waiting = false;
    if (moved || over_panel) {  // the answer was for another place: drop it
        if (status.busy && status.target == NewtonTarget::None) cancel_nucleus(n.worker);
        n.hover_pixel = cursor;
        n.hover_view = view;
        n.hover_since_s = now_s;
        n.hover_asked = n.hover_done = false;
        return;
    }
    if (!settings.show_period || gesture || n.flight.active || searching || n.hover_asked) return;
    if (now_s - n.hover_since_s < kHoverRestSeconds) {
        n.hover_waiting = true;  // the next frame must come to ask
        return;
    }
    NucleusJob job;
    job.view = view;
    job.pixel = cursor;
    job.radius_pixels = settings.search_radius_pixels;
    n.hover_asked = request_nucleus(n.worker, job) != 0;
}

// The same centre, zoom and map (iterations and colours aside: they follow the zoom).
bool same_spot(const View& a, const View& b) {
    return a.center_re == b.center_re && a.center_im == b.center_im && a.zoom == b.zoom && a.formula == b.formula &&
           a.julia == b.julia;
}

// Pixels of `view` from its top-left corner to a point given as decimal text.
glm::dvec2 pixel_of(const View& view, const std::string& re, const std::string& im) {
    const DeepZoom zoom = view_zoom(view);
    return {0.5 * view.width + deep_decimal_difference_pixels(re, view.center_re, zoom, view.height),
            0.5 * view.height - deep_decimal_difference_pixels(im, view.center_im, zoom, view.height)};
}

// Text beside the cursor (screen coordinates), kept inside the window, shadowed so that it reads on
// any colour.
void draw_label(ImDrawList* draw, ImVec2 cursor, const char* text, ImU32 colour) {
    const ImVec2 size = ImGui::CalcTextSize(text);
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImVec2 at(cursor.x + 14.0f, cursor.y + 10.0f);
    if (at.x + size.x > display.x - 4.0f) at.x = std::max(4.0f, display.x - 4.0f - size.x);
    if (at.y + size.y > display.y - 4.0f) at.y = std::max(4.0f, cursor.y - 10.0f - size.y);
    draw->AddText(ImVec2(at.x + 1, at.y + 1), IM_COL32(0, 0, 0, 255), text);
    draw->AddText(at, colour, text);
}

// Over the picture: the resting cursor's nucleus (a ring the minibrot's size, its period and
// where it is), or the search under way.
void draw_overlay(NewtonZoom& n, const View& view, glm::dvec2 cursor_pixel, double pixels_per_unit) {
    ImDrawList* draw = ImGui::GetForegroundDrawList();
    const NucleusStatus status = nucleus_status(n.worker);
    const auto to_screen = [&](glm::dvec2 p) {
        return ImVec2(float(p.x / pixels_per_unit), float(p.y / pixels_per_unit));
    };
    if (status.busy && status.target != NewtonTarget::None) {
        char text[160];
        std::snprintf(text, sizeof text, "Newton zoom: looking for %s%s%s %.0f%%  (Esc cancels)",
                      target_title(status.target), status.stage.empty() ? "" : ": ", status.stage.c_str(),
                      100.0 * status.fraction);
        draw_label(draw, to_screen(cursor_pixel), text, IM_COL32(255, 255, 160, 255));
        return;
    }
    if (!n.hover_done || n.flight.active || !same_place(n.hover.job.view, view)) return;
    const Minibrot& m = n.hover.minibrot;
    const ImVec2 cursor = to_screen(n.hover.job.pixel);
    char text[256];
    if (m.found) {
        const glm::dvec2 nucleus = pixel_of(view, m.center_re, m.center_im);
        const double half_px = 0.5 * view.height * deep_zoom_ratio(view_zoom(view), m.size_zoom);
        const float radius = float(std::clamp(std::isfinite(half_px) ? half_px : 4.0, 4.0, 4.0 * view.height) /
                                   pixels_per_unit);
        draw->AddCircle(to_screen(nucleus), radius, IM_COL32(255, 255, 255, 200), 48, 1.5f);
        draw->AddLine(cursor, to_screen(nucleus), IM_COL32(255, 255, 255, 120), 1.0f);
        std::snprintf(text, sizeof text, "period %lld  nucleus %s, %s", (long long)m.period,
                      short_decimal(m.center_re).c_str(), short_decimal(m.center_im).c_str());
    } else {
        std::snprintf(text, sizeof text, "no nucleus near here");
    }
    draw_label(draw, cursor, text, IM_COL32(255, 255, 255, 255));
}

void draw_menu(NewtonZoom& n, ExplorerPicture& picture, StatusLineState& status, double now_s) {
    if (!ImGui::BeginPopup(kMenuName)) return;
    // A title line: the period where the menu was opened, once the resting cursor's lookup had it.
    if (n.menu_answered) ImGui::TextDisabled("Newton zoom: period %lld here", (long long)n.menu_answer.minibrot.period);
    else ImGui::TextDisabled("Newton zoom");
    NewtonTarget chosen = NewtonTarget::None;
    if (ImGui::MenuItem("Zoom to the minibrot", "M")) chosen = NewtonTarget::Minibrot;
    if (ImGui::MenuItem("Zoom to the embedded Julia set", "J")) chosen = NewtonTarget::EmbeddedJulia;
    if (ImGui::MenuItem("Zoom to the next period", "N")) chosen = NewtonTarget::NextPeriod;
    ImGui::EndPopup();
    if (chosen == NewtonTarget::None) return;
    if (n.menu_answered && chosen != NewtonTarget::NextPeriod) {
        NucleusResult r = n.menu_answer;
        r.job.target = chosen;
        start_flight(n, picture, status, r, now_s);
    } else {
        ask(n, picture, status, chosen, n.menu_view, n.menu_pixel, now_s);
    }
}

}  // namespace

void start_newton_zoom(NewtonZoom& newton) {
    newton.worker.on_news = [] { glfwPostEmptyEvent(); };  // wakes the main loop from its wait
    start_nucleus_worker(newton.worker);
}

bool newton_flight_back(NewtonZoom& newton, View* view) {
    if (!newton.flight.active) return false;
    newton.flight.active = false;
    const int width = view->width, height = view->height;
    *view = newton.flight.from;
    view->width = width;
    view->height = height;
    return true;
}

void carry_out_newton_zoom(NewtonZoom& n, ExplorerPicture& picture, StatusLineState& status, const ExplorerWindow& w,
                           ExplorerFrame& frame, bool user_moved) {
    const double now_s = glfwGetTime();
    View& view = picture.view;
    NavigationRequests& nav = frame.nav;
    const NavigationSettings& settings = picture.settings.navigation;
    // The user's own move takes over from a flight (the gesture records itself).
    // A view that is no longer where the flight put it (a dropped file, the Julia inset) too.
    if (n.flight.active && (user_moved || !same_spot(view, n.flight_shown))) n.flight.active = false;
    if (nav.cancel_search) {
        const NucleusStatus s = nucleus_status(n.worker);
        if (s.busy && s.target != NewtonTarget::None) show_message(status, "Newton zoom cancelled.", false);
        cancel_nucleus(n.worker);
        if (n.flight.active) {  // Esc stops a flight where it is
            n.flight.active = false;
            nav.record_history = true;
        }
    }
    if (nav.newton != NewtonTarget::None) ask(n, picture, status, nav.newton, view, nav.newton_pixel, now_s);
    if (nav.menu) {
        n.menu_pixel = nav.menu_pixel;
        n.menu_view = view;
        // The resting cursor's answer, if it is for this pixel: the title shows its period and a
        // pick flies at once.
        n.menu_answered = n.hover_done && n.hover.minibrot.found && same_place(n.hover.job.view, view) &&
                          glm::distance(n.hover.job.pixel, n.menu_pixel) < 0.5;
        if (n.menu_answered) n.menu_answer = n.hover;
        ImGui::OpenPopup(kMenuName);
    }
    draw_menu(n, picture, status, now_s);
    take_result(n, picture, status, now_s);
    fly(n, picture, status, frame, now_s);
    const ImGuiIO& io = ImGui::GetIO();
    const bool gesture = w.navigation.panning || w.navigation.boxing || w.navigation.zoom_direction != 0;
    // Away from the picture: over a panel, outside the window (ImGui has no position for it), or
    // not moved yet since the start (a pointer that merely lies over the window, as in a
    // scripted run, asks for nothing).
    const glm::dvec2 cursor = w.input.cursor * frame.pixels_per_unit;
    if (!n.cursor_started) {
        n.cursor_started = true;
        n.start_cursor = cursor;
    }
    n.cursor_moved = n.cursor_moved || cursor != n.start_cursor;
    const bool away = io.WantCaptureMouse || !ImGui::IsMousePosValid() || !n.cursor_moved;
    follow_hover(n, view, cursor, away, gesture, settings, now_s);
    draw_overlay(n, view, cursor, frame.pixels_per_unit);
}

bool newton_zoom_busy(const NewtonZoom& n) {
    return n.flight.active || n.hover_waiting || nucleus_status(n.worker).busy;
}

void stop_newton_zoom(NewtonZoom& newton) { stop_nucleus_worker(newton.worker); }

}  // namespace ms
