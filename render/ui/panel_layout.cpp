// panel_layout.cpp: where the explorer's panels go (see panel_layout.h).
#include "render/ui/panel_layout.h"

#include <imgui.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ms {

bool rects_overlap(const PanelRect& a, const PanelRect& b) {
    return a.width > 0.0f && a.height > 0.0f && b.width > 0.0f && b.height > 0.0f && a.x < b.x + b.width &&
           b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

PanelLayout layout_panels(const PanelLayoutInput& in) {
    PanelLayout out;
    const float m = kPanelMargin;
    const float status_height = std::min(in.status_height, in.window_height);
    out.status = {0.0f, in.window_height - status_height, in.window_width, status_height};
    const float height = std::max(0.0f, in.window_height - status_height - 2.0f * m);
    const float room = std::max(0.0f, in.window_width - 2.0f * m);  // across, inside the margins

    float view_width = in.view_width > 0.0f ? in.view_width : kDefaultViewWidth;
    float column_width = in.column_width > 0.0f ? in.column_width : kDefaultColumnWidth;
    if (!in.column_open) {
        out.view_max_width = room;
        view_width = std::min(view_width, room);
        column_width = 0.0f;
    } else {
        // Both side by side with a margin between. Where they do not fit, the column keeps
        // its minimum and the View panel gives way first, then the column.
        const float across = std::max(0.0f, room - m);
        view_width = std::min(view_width, std::max(std::min(kMinViewWidth, across * 0.5f), across - kMinColumnWidth));
        column_width = std::clamp(column_width, std::min(kMinColumnWidth, across - view_width), across - view_width);
        out.view_max_width = std::max(view_width, across - std::min(kMinColumnWidth, across * 0.5f));
        out.column_max_width = across - view_width;
    }
    out.view = {m, m, view_width, height};
    out.column = {in.window_width - m - column_width, m, column_width, in.column_open ? height : 0.0f};
    return out;
}

FramingArea free_area(const PanelLayout& layout, const PanelRect& view_panel) {
    const float m = kPanelMargin;
    const float right = layout.column.width > 0.0f && layout.column.height > 0.0f ? layout.column.x - m
                                                                                  : layout.status.width;
    const float bottom = layout.status.height > 0.0f ? layout.status.y - m : layout.status.y;
    if (view_panel.width <= 0.0f || view_panel.height <= 0.0f) return {0.0, 0.0, right, bottom};
    const FramingArea beside{view_panel.x + view_panel.width + m, 0.0, right - (view_panel.x + view_panel.width + m),
                             bottom};
    const FramingArea below{0.0, view_panel.y + view_panel.height + m, right,
                            bottom - (view_panel.y + view_panel.height + m)};
    // The height of a 16:9 frame that fits (0 when the area is empty).
    auto fits = [](const FramingArea& a) { return std::max(0.0, std::min(a.width / kDefaultFrameAspect, a.height)); };
    return fits(below) > fits(beside) ? below : beside;
}

std::string panel_settings_path(std::string* error) {
    std::string base;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg == '/') {
        base = xdg;
    } else if (const char* home = std::getenv("HOME"); home && *home) {
        base = std::string(home) + "/.config";
    } else {
        *error = "neither XDG_CONFIG_HOME nor HOME is set";
        return {};
    }
    // mkdir -p of base/mandelscope.
    const std::string dir = base + "/mandelscope";
    for (size_t slash = 1; slash != std::string::npos;) {
        slash = dir.find('/', slash + 1);
        const std::string part = dir.substr(0, slash);
        if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
            *error = "cannot create " + part + ": " + std::strerror(errno);
            return {};
        }
    }
    struct stat st {};
    if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        *error = dir + " is not a folder";
        return {};
    }
    return dir + "/imgui.ini";
}

void place_view_panel(const PanelLayout& layout) {
    ImGui::SetNextWindowPos(ImVec2(layout.view.x, layout.view.y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(layout.view.width, 0.0f), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSizeConstraints(
        ImVec2(std::min(kMinViewWidth, layout.view_max_width), 0.0f),
        ImVec2(std::max(1.0f, layout.view_max_width), std::max(1.0f, layout.view.height)));
}

bool begin_side_column(const PanelLayout& layout, bool any_open, float* width) {
    if (!any_open || layout.column.width <= 0.0f || layout.column.height <= 0.0f) return false;
    // Anchored by its top-right corner, so dragging its left edge widens it to the left.
    ImGui::SetNextWindowPos(ImVec2(layout.column.x + layout.column.width, layout.column.y), ImGuiCond_Always,
                            ImVec2(1.0f, 0.0f));
    // The width is the user's (imgui.ini keeps it); the constraints hold the height to the
    // room above the status line and the width to what leaves the View panel its room.
    ImGui::SetNextWindowSize(ImVec2(layout.column.width, layout.column.height), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSizeConstraints(
        ImVec2(std::min(kMinColumnWidth, layout.column_max_width), layout.column.height),
        ImVec2(std::max(1.0f, layout.column_max_width), layout.column.height));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse;
    const bool shown = ImGui::Begin("Panels", nullptr, flags);
    *width = ImGui::GetWindowWidth();
    if (!shown ||
        !ImGui::BeginTabBar("##panels", ImGuiTabBarFlags_Reorderable | ImGuiTabBarFlags_FittingPolicyScroll)) {
        ImGui::End();
        return false;
    }
    return true;
}

void end_side_column() {
    ImGui::EndTabBar();
    ImGui::End();
}

void set_panel_opacity(float opacity) {
    ImGui::GetStyle().Colors[ImGuiCol_WindowBg].w = std::clamp(opacity, 0.2f, 1.0f);
}

}  // namespace ms
