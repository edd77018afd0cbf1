// panel_widgets.cpp: small pieces every panel uses (declared in render/ui/panels.h).
#include <imgui.h>

#include <cstdio>
#include <string>

#include "render/ui/panels.h"

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

}  // namespace ms
