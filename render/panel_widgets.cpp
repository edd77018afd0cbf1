// panel_widgets.cpp: small pieces every panel uses (declared in render/panels.h).
#include <imgui.h>

#include <cstdio>
#include <string>

#include "render/panels.h"

namespace ms {

void help_marker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
        ImGui::TextUnformatted(text);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

std::string rate_text(double per_second) {
    char text[32];
    if (per_second >= 1e6)
        std::snprintf(text, sizeof text, "%.2fM", per_second / 1e6);
    else if (per_second >= 1e3)
        std::snprintf(text, sizeof text, "%.1fk", per_second / 1e3);
    else
        std::snprintf(text, sizeof text, "%.0f", per_second);
    return text;
}

}  // namespace ms
