// test_render_navigation.cpp: the window's gestures (render/frame/navigation.h) fed queued events
// without a window: the wheel's notch is the setting's, a held middle button or Page Up zooms by
// elapsed time (one slow frame reaches the same view as many quick ones) about the cursor, which
// stays put, and ends in the history; a right click without a drag asks for the Newton menu and
// M, J, N ask for a Newton zoom at the cursor.
#include <gtest/gtest.h>

#include <GLFW/glfw3.h>

#include <cmath>

#include <glm/geometric.hpp>

#include "render/frame/navigation.h"
#include "render/frame/view_math.h"

namespace ms {
namespace {

View test_view() {
    View v;
    v.center_re = "-0.75";
    v.center_im = "0.1";
    v.zoom = 3.0;
    v.width = 800;
    v.height = 600;
    return v;
}

glm::dvec2 point_at(const View& view, glm::dvec2 pixel) {
    return glm::dvec2(center_re_value(view), center_im_value(view)) + pixel_to_plane_offset(view, pixel);
}

InputEvent button(int which, int action, glm::dvec2 at, double time_s, int mods = 0) {
    return {.type = InputEvent::Type::Button,
            .position = at,
            .button = which,
            .action = action,
            .mods = mods,
            .time_s = time_s};
}

InputEvent key(int which, int action, glm::dvec2 at, double time_s) {
    return {.type = InputEvent::Type::Key, .position = at, .key = which, .action = action, .time_s = time_s};
}

// Feeds `events` as one frame ending at now_s; the cursor rests at `cursor`.
NavigationRequests frame(NavigationState& state, View* view, std::vector<InputEvent> events, glm::dvec2 cursor,
                         double now_s, const NavigationSettings& settings = {}) {
    NavigationInput input;
    input.events = std::move(events);
    input.cursor = cursor;
    return apply_navigation(input, state, view, 1.0, false, false, now_s, settings);
}

TEST(Navigation, WheelNotchIsTheSetting) {
    NavigationSettings settings;
    settings.wheel_zoom_per_notch = 2.0;
    View v = test_view();
    NavigationState state;
    const glm::dvec2 at{600.0, 200.0};
    frame(state, &v, {{.type = InputEvent::Type::Scroll, .position = at, .scroll = 1.0, .time_s = 0.0}}, at, 0.0,
          settings);
    EXPECT_DOUBLE_EQ(v.zoom.value(), 6.0);
}

TEST(Navigation, HeldMiddleButtonZoomsByElapsedTimeAboutTheCursor) {
    NavigationSettings settings;
    settings.zoom_doublings_per_second = 2.0;
    const glm::dvec2 at{600.0, 200.0};
    const View start = test_view();
    const glm::dvec2 point = point_at(start, at);

    // One slow frame: pressed at 0, released at 1 s: two doublings.
    View slow = start;
    NavigationState state;
    NavigationRequests r = frame(state, &slow, {button(GLFW_MOUSE_BUTTON_MIDDLE, GLFW_PRESS, at, 0.0)}, at, 0.0);
    EXPECT_EQ(state.zoom_direction, 1);
    r = frame(state, &slow, {button(GLFW_MOUSE_BUTTON_MIDDLE, GLFW_RELEASE, at, 1.0)}, at, 1.0, settings);
    EXPECT_EQ(state.zoom_direction, 0);
    EXPECT_TRUE(r.record_history);
    EXPECT_NEAR(slow.zoom.value(), 12.0, 1e-9);

    // Ten quick frames over the same second reach the same zoom, with the point held.
    View quick = start;
    NavigationState quick_state;
    frame(quick_state, &quick, {button(GLFW_MOUSE_BUTTON_MIDDLE, GLFW_PRESS, at, 0.0)}, at, 0.0, settings);
    for (int i = 1; i < 10; ++i) {
        r = frame(quick_state, &quick, {}, at, 0.1 * i, settings);
        EXPECT_TRUE(r.view_changed);
        EXPECT_FALSE(r.record_history);
    }
    frame(quick_state, &quick, {button(GLFW_MOUSE_BUTTON_MIDDLE, GLFW_RELEASE, at, 1.0)}, at, 1.0, settings);
    EXPECT_NEAR(quick.zoom.value(), 12.0, 1e-9);
    const glm::dvec2 still = point_at(quick, at);
    EXPECT_LT(glm::length(still - point) / pixel_step(quick), 1e-2);
    EXPECT_LT(glm::length(point_at(slow, at) - point) / pixel_step(slow), 1e-2);
}

TEST(Navigation, ShiftMiddleAndPageDownZoomOut) {
    const glm::dvec2 at{400.0, 300.0};
    View v = test_view();
    NavigationState state;
    frame(state, &v, {button(GLFW_MOUSE_BUTTON_MIDDLE, GLFW_PRESS, at, 0.0, GLFW_MOD_SHIFT)}, at, 0.0);
    frame(state, &v, {button(GLFW_MOUSE_BUTTON_MIDDLE, GLFW_RELEASE, at, 0.5, GLFW_MOD_SHIFT)}, at, 0.5);
    EXPECT_NEAR(v.zoom.value(), 1.5, 1e-9);  // 2 doublings/s for half a second, out

    View k = test_view();
    NavigationState key_state;
    frame(key_state, &k, {key(GLFW_KEY_PAGE_DOWN, GLFW_PRESS, at, 0.0)}, at, 0.0);
    frame(key_state, &k, {key(GLFW_KEY_PAGE_DOWN, GLFW_REPEAT, at, 0.3)}, at, 0.3);
    NavigationRequests r = frame(key_state, &k, {key(GLFW_KEY_PAGE_DOWN, GLFW_RELEASE, at, 0.5)}, at, 0.5);
    EXPECT_TRUE(r.record_history);
    EXPECT_NEAR(k.zoom.value(), 1.5, 1e-9);
    // Page Up zooms in; its release ends it even while a text field has the keyboard.
    View up = test_view();
    NavigationState up_state;
    frame(up_state, &up, {key(GLFW_KEY_PAGE_UP, GLFW_PRESS, at, 0.0)}, at, 0.0);
    NavigationInput input;
    input.events = {key(GLFW_KEY_PAGE_UP, GLFW_RELEASE, at, 0.5)};
    input.cursor = at;
    apply_navigation(input, up_state, &up, 1.0, false, true, 0.5);
    EXPECT_EQ(up_state.zoom_direction, 0);
    EXPECT_NEAR(up.zoom.value(), 6.0, 1e-9);
}

TEST(Navigation, RightClickAsksForTheMenuAndRightDragBoxes) {
    const glm::dvec2 at{300.0, 250.0};
    View v = test_view();
    NavigationState state;
    NavigationRequests r = frame(state, &v,
                                 {button(GLFW_MOUSE_BUTTON_RIGHT, GLFW_PRESS, at, 0.0),
                                  button(GLFW_MOUSE_BUTTON_RIGHT, GLFW_RELEASE, at + glm::dvec2(1.0, 0.0), 0.1)},
                                 at, 0.1);
    EXPECT_TRUE(r.menu);
    EXPECT_EQ(r.menu_pixel, at);
    EXPECT_FALSE(r.view_changed);
    r = frame(state, &v,
              {button(GLFW_MOUSE_BUTTON_RIGHT, GLFW_PRESS, at, 1.0),
               button(GLFW_MOUSE_BUTTON_RIGHT, GLFW_RELEASE, at + glm::dvec2(100.0, 80.0), 1.1)},
              at, 1.1);
    EXPECT_FALSE(r.menu);
    EXPECT_TRUE(r.view_changed);
}

TEST(Navigation, NewtonKeysAskAtTheCursor) {
    const glm::dvec2 at{512.0, 128.0};
    const struct {
        int key;
        NewtonTarget target;
    } cases[] = {{GLFW_KEY_M, NewtonTarget::Minibrot},
                 {GLFW_KEY_J, NewtonTarget::EmbeddedJulia},
                 {GLFW_KEY_N, NewtonTarget::NextPeriod}};
    for (const auto& c : cases) {
        View v = test_view();
        NavigationState state;
        NavigationRequests r = frame(state, &v, {key(c.key, GLFW_PRESS, at, 0.0)}, at, 0.0);
        EXPECT_EQ(r.newton, c.target);
        EXPECT_EQ(r.newton_pixel, at);
        EXPECT_FALSE(r.view_changed);
    }
    View v = test_view();
    NavigationState state;
    EXPECT_TRUE(frame(state, &v, {key(GLFW_KEY_ESCAPE, GLFW_PRESS, at, 0.0)}, at, 0.0).cancel_search);
}

}  // namespace
}  // namespace ms
