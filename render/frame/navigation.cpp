// navigation.cpp: input queue and gestures (see navigation.h).
#include "render/frame/navigation.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include <algorithm>

#include <cmath>

#include <glm/geometric.hpp>

#include "render/frame/view_math.h"

namespace ms {

namespace {

constexpr double kDoubleClickSeconds = 0.35;
constexpr double kDoubleClickPixels = 4.0;
constexpr double kWheelPauseSeconds = 0.4;
constexpr double kKeyPanFraction = 0.1;
constexpr double kKeyZoomFactor = 2.0;

NavigationInput* input_of(GLFWwindow* window) {
    return static_cast<NavigationInput*>(glfwGetWindowUserPointer(window));
}

void push(GLFWwindow* window, InputEvent event) {
    NavigationInput* input = input_of(window);
    event.position = input->cursor;
    event.time_s = glfwGetTime();
    input->events.push_back(event);
    ++input->event_count;
}

// Events the view does not use, which may still change what ImGui draws.
void count_event(GLFWwindow* window) { ++input_of(window)->event_count; }
void on_char(GLFWwindow* window, unsigned int) { count_event(window); }
void on_focus(GLFWwindow* window, int) { count_event(window); }
void on_cursor_enter(GLFWwindow* window, int) { count_event(window); }
void on_framebuffer_size(GLFWwindow* window, int, int) { count_event(window); }

void on_cursor(GLFWwindow* window, double x, double y) {
    input_of(window)->cursor = {x, y};
    push(window, {.type = InputEvent::Type::Move});
}

void on_button(GLFWwindow* window, int button, int action, int mods) {
    push(window, {.type = InputEvent::Type::Button, .button = button, .action = action, .mods = mods});
}

void on_scroll(GLFWwindow* window, double, double y) { push(window, {.type = InputEvent::Type::Scroll, .scroll = y}); }

void on_key(GLFWwindow* window, int key, int, int action, int mods) {
    push(window, {.type = InputEvent::Type::Key, .key = key, .action = action, .mods = mods});
}

void on_drop(GLFWwindow* window, int count, const char** paths) {
    for (int i = 0; i < count; ++i) input_of(window)->dropped_paths.emplace_back(paths[i]);
    count_event(window);
}

void on_key_delaying_release(GLFWwindow* window, int key, int scancode, int action, int mods) {
    NavigationInput* input = input_of(window);
    if (action == GLFW_PRESS) input->keys_pressed.push_back(key);
    if (action == GLFW_RELEASE &&
        std::find(input->keys_pressed.begin(), input->keys_pressed.end(), key) != input->keys_pressed.end()) {
        input->delayed_releases.push_back({key, scancode, mods});
        ++input->event_count;  // a frame must follow to release it
        return;
    }
    ImGui_ImplGlfw_KeyCallback(window, key, scancode, action, mods);  // ImGui, then on_key
}

// Continuous zoom up to `until_s` about `pixel`: the zoom grows by 2^(rate * elapsed), whatever
// the frame rate.
void advance_continuous_zoom(NavigationState& state, View* view, glm::dvec2 pixel, double until_s,
                             const NavigationSettings& settings, NavigationRequests& out) {
    if (state.zoom_direction == 0) return;
    const double elapsed_s = until_s - state.zoom_applied_s;
    if (!(elapsed_s > 0.0)) return;
    state.zoom_applied_s = until_s;
    const double factor = std::exp2(state.zoom_direction * settings.zoom_doublings_per_second * elapsed_s);
    View zoomed = zoom_view_about(*view, pixel, factor);
    if (same_place(zoomed, *view)) return;
    *view = zoomed;
    if (state.panning) {  // a drag under way continues from the zoomed view
        state.pan_start_view = *view;
        state.pan_grab = pixel;
    }
    out.view_changed = true;
}

void start_continuous_zoom(NavigationState& state, int direction, int key, double time_s) {
    state.zoom_direction = direction;
    state.zoom_key = key;
    state.zoom_applied_s = time_s;
}

void end_continuous_zoom(NavigationState& state, NavigationRequests& out) {
    state.zoom_direction = 0;
    state.zoom_key = 0;
    out.record_history = true;
}

NewtonTarget newton_key_target(int key) {
    switch (key) {
    case GLFW_KEY_M: return NewtonTarget::Minibrot;
    case GLFW_KEY_J: return NewtonTarget::EmbeddedJulia;
    case GLFW_KEY_N: return NewtonTarget::NextPeriod;
    default: return NewtonTarget::None;
    }
}

void handle_key(const InputEvent& e, NavigationState& state, View* view, double pixels_per_unit,
                NavigationRequests& out) {
    if (e.action == GLFW_RELEASE) return;
    const bool ctrl = e.mods & GLFW_MOD_CONTROL, shift = e.mods & GLFW_MOD_SHIFT;
    const glm::dvec2 centre{0.5 * view->width, 0.5 * view->height};
    View before = *view;
    switch (e.key) {
    case GLFW_KEY_LEFT: *view = pan_view_by_fraction(*view, {-kKeyPanFraction, 0.0}); break;
    case GLFW_KEY_RIGHT: *view = pan_view_by_fraction(*view, {kKeyPanFraction, 0.0}); break;
    case GLFW_KEY_UP: *view = pan_view_by_fraction(*view, {0.0, -kKeyPanFraction}); break;
    case GLFW_KEY_DOWN: *view = pan_view_by_fraction(*view, {0.0, kKeyPanFraction}); break;
    case GLFW_KEY_EQUAL:  // '+' is Shift+'=' on most layouts; '=' alone zooms in too
    case GLFW_KEY_KP_ADD: *view = zoom_view_about(*view, centre, kKeyZoomFactor); break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: *view = zoom_view_about(*view, centre, 1.0 / kKeyZoomFactor); break;
    case GLFW_KEY_HOME: *view = reset_view(*view); break;
    case GLFW_KEY_PAGE_UP:
    case GLFW_KEY_PAGE_DOWN:
        if (e.action == GLFW_PRESS && state.zoom_direction == 0)
            start_continuous_zoom(state, e.key == GLFW_KEY_PAGE_UP ? 1 : -1, e.key, e.time_s);
        break;
    case GLFW_KEY_M:
    case GLFW_KEY_J:
    case GLFW_KEY_N:
        if (!ctrl && e.action == GLFW_PRESS) {
            out.newton = newton_key_target(e.key);
            out.newton_pixel = e.position * pixels_per_unit;
        }
        break;
    case GLFW_KEY_ESCAPE: out.cancel_search = true; break;
    case GLFW_KEY_BACKSPACE: out.back = true; break;
    case GLFW_KEY_Z:
        if (ctrl) (shift ? out.forward : out.back) = true;
        break;
    case GLFW_KEY_Y:
        if (ctrl) out.forward = true;
        break;
    case GLFW_KEY_C:
        if (!ctrl && e.action == GLFW_PRESS) out.toggle_backend = true;
        break;
    case GLFW_KEY_F11:
        if (e.action == GLFW_PRESS) out.toggle_fullscreen = true;
        break;
    case GLFW_KEY_Q:
        if (ctrl) out.quit = true;
        break;
    default: break;
    }
    if (!same_place(before, *view)) {
        state.panning = false;  // a key in the middle of a drag ends it where it is
        out.view_changed = out.record_history = true;
    }
}

}  // namespace

void install_key_release_delay(GLFWwindow* window) { glfwSetKeyCallback(window, on_key_delaying_release); }

void replay_delayed_key_releases(GLFWwindow* window, NavigationInput* input) {
    input->keys_pressed.clear();
    std::vector<NavigationInput::KeyRelease> releases;
    releases.swap(input->delayed_releases);
    for (const auto& r : releases) ImGui_ImplGlfw_KeyCallback(window, r.key, r.scancode, GLFW_RELEASE, r.mods);
}

void install_navigation_callbacks(GLFWwindow* window, NavigationInput* input) {
    glfwSetWindowUserPointer(window, input);
    glfwSetCursorPosCallback(window, on_cursor);
    glfwSetMouseButtonCallback(window, on_button);
    glfwSetScrollCallback(window, on_scroll);
    glfwSetKeyCallback(window, on_key);
    glfwSetDropCallback(window, on_drop);
    glfwSetCharCallback(window, on_char);
    glfwSetWindowFocusCallback(window, on_focus);
    glfwSetCursorEnterCallback(window, on_cursor_enter);
    glfwSetFramebufferSizeCallback(window, on_framebuffer_size);
    glfwSetWindowRefreshCallback(window, count_event);
}

NavigationRequests apply_navigation(NavigationInput& input, NavigationState& state, View* view, double pixels_per_unit,
                                    bool imgui_wants_mouse, bool imgui_wants_keyboard, double now_s,
                                    const NavigationSettings& settings) {
    NavigationRequests out;
    // Continuous zoom holds its point: the cursor's, or the centre's while a key zooms with the
    // mouse over a panel.
    auto zoom_pixel = [&](glm::dvec2 cursor_pixel) {
        return state.zoom_key != 0 && imgui_wants_mouse ? glm::dvec2(0.5 * view->width, 0.5 * view->height)
                                                        : cursor_pixel;
    };
    glm::dvec2 last_pixel = input.cursor * pixels_per_unit;
    if (!input.events.empty()) last_pixel = input.events.front().position * pixels_per_unit;
    for (const InputEvent& e : input.events) {
        const glm::dvec2 pixel = e.position * pixels_per_unit;
        // Each event happens after the zoom held until its time, about where the cursor was.
        advance_continuous_zoom(state, view, zoom_pixel(last_pixel), e.time_s, settings, out);
        last_pixel = pixel;
        switch (e.type) {
        case InputEvent::Type::Move:
            if (state.panning) {
                *view = pan_view(state.pan_start_view, state.pan_grab, pixel);
                out.view_changed = true;
            }
            if (state.boxing) state.box_end = pixel;
            break;
        case InputEvent::Type::Button:
            if (e.action == GLFW_PRESS && !imgui_wants_mouse && !state.panning && !state.boxing) {
                if (e.button == GLFW_MOUSE_BUTTON_LEFT) {
                    bool double_click = e.time_s - state.last_click_time_s < kDoubleClickSeconds &&
                                        glm::distance(pixel, state.last_click) < kDoubleClickPixels;
                    if (double_click) {
                        *view = center_view_on(*view, pixel);
                        out.view_changed = out.record_history = true;
                        state.last_click_time_s = -1.0;
                    } else {
                        state.last_click_time_s = e.time_s;
                        state.last_click = pixel;
                    }
                    state.panning = true;
                    state.pan_start_view = *view;
                    state.pan_grab = pixel;
                } else if (e.button == GLFW_MOUSE_BUTTON_RIGHT) {
                    state.boxing = true;
                    state.box_start = state.box_end = pixel;
                } else if (e.button == GLFW_MOUSE_BUTTON_MIDDLE && state.zoom_direction == 0) {
                    start_continuous_zoom(state, (e.mods & GLFW_MOD_SHIFT) ? -1 : 1, 0, e.time_s);
                }
            } else if (e.action == GLFW_RELEASE) {
                if (e.button == GLFW_MOUSE_BUTTON_LEFT && state.panning) {
                    *view = pan_view(state.pan_start_view, state.pan_grab, pixel);
                    state.panning = false;
                    out.view_changed = true;
                    out.record_history = !same_place(*view, state.pan_start_view);
                } else if (e.button == GLFW_MOUSE_BUTTON_RIGHT && state.boxing) {
                    state.boxing = false;
                    View boxed = box_zoom_view(*view, state.box_start, pixel);
                    if (!same_place(boxed, *view)) {
                        *view = boxed;
                        out.view_changed = out.record_history = true;
                    } else if (glm::distance(pixel, state.box_start) < kDoubleClickPixels) {
                        out.menu = true;  // a click, not a drag
                        out.menu_pixel = state.box_start;
                    }
                } else if (e.button == GLFW_MOUSE_BUTTON_MIDDLE && state.zoom_direction != 0 && state.zoom_key == 0) {
                    end_continuous_zoom(state, out);
                }
            }
            break;
        case InputEvent::Type::Scroll:
            if (!imgui_wants_mouse && e.scroll != 0.0) {
                *view = zoom_view_about(*view, pixel, std::pow(settings.wheel_zoom_per_notch, e.scroll));
                // A drag under way continues from the zoomed view.
                if (state.panning) {
                    state.pan_start_view = *view;
                    state.pan_grab = pixel;
                }
                state.last_wheel_time_s = e.time_s;
                out.view_changed = true;
            }
            break;
        case InputEvent::Type::Key:
            // The release of the key that holds a zoom ends it, wherever the keyboard is.
            if (e.action == GLFW_RELEASE && state.zoom_direction != 0 && e.key == state.zoom_key)
                end_continuous_zoom(state, out);
            else if (!imgui_wants_keyboard) handle_key(e, state, view, pixels_per_unit, out);
            break;
        }
    }
    input.events.clear();
    advance_continuous_zoom(state, view, zoom_pixel(input.cursor * pixels_per_unit), now_s, settings, out);
    if (state.last_wheel_time_s >= 0.0 && now_s - state.last_wheel_time_s > kWheelPauseSeconds) {
        state.last_wheel_time_s = -1.0;
        out.record_history = true;
    }
    return out;
}

void draw_box_zoom_overlay(const NavigationState& state, double pixels_per_unit) {
    if (!state.boxing) return;
    ImDrawList* draw = ImGui::GetForegroundDrawList();
    ImVec2 a(float(state.box_start.x / pixels_per_unit), float(state.box_start.y / pixels_per_unit));
    ImVec2 b(float(state.box_end.x / pixels_per_unit), float(state.box_end.y / pixels_per_unit));
    draw->AddRectFilled(a, b, IM_COL32(255, 255, 255, 40));
    draw->AddRect(a, b, IM_COL32(255, 255, 255, 220), 0.0f, 0, 1.5f);
}

}  // namespace ms
