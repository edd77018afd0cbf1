// panel_julia_preview.cpp: the Julia preview inset (panels.h): the picture the main loop
// rendered for the point under the mouse, its parameter, and the click that opens it.
#include <imgui.h>

#include <cstdint>

#include "render/ui/panel_layout.h"
#include "render/ui/panels.h"

namespace ms {

void draw_julia_preview(JuliaPreviewState& s, const PanelLayout& layout) {
    s.make_main = false;
    if (s.texture == 0) return;
    // Bottom left of the picture: right of the View panel, above the status line.
    ImGui::SetNextWindowPos(ImVec2(layout.view.x + layout.view.width + kPanelMargin, layout.status.y - kPanelMargin),
                            ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                   ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing;
    if (ImGui::Begin("Julia preview", nullptr, flags)) {
        ImGui::Text("Julia set of c = %.12s, %.12s", s.c_re.c_str(), s.c_im.c_str());
        ImGui::ImageButton(reinterpret_cast<ImTextureID>(static_cast<uintptr_t>(s.texture)),
                           ImVec2(float(s.width), float(s.height)), ImVec2(0, 0), ImVec2(1, 1), 0);
        if (ImGui::IsItemClicked()) s.make_main = true;
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Click: open this Julia set (Back returns)");
        ImGui::TextDisabled("%s, %.1f ms", s.backend, s.render_ms);
    }
    ImGui::End();
}

}  // namespace ms
