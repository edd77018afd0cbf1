// panel_status.cpp: the status line along the bottom of the window: backend and render path,
// precision, frame times, resolution; why a faster path is not used; the latest message.
#include <imgui.h>

#include <cstdio>

#include "render/ui/panels.h"

namespace ms {

void draw_status_line(StatusLineState& s) {
    s.dismiss_message = false;
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    int lines = 1 + !s.fallback_reason.empty() + s.beyond_fp64 + !s.message.empty();
    float height = ImGui::GetFrameHeightWithSpacing() * lines + ImGui::GetStyle().WindowPadding.y;
    ImGui::SetNextWindowPos(ImVec2(viewport->WorkPos.x, viewport->WorkPos.y + viewport->WorkSize.y - height));
    ImGui::SetNextWindowSize(ImVec2(viewport->WorkSize.x, height));
    ImGui::SetNextWindowBgAlpha(0.75f);
    ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                             ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                             ImGuiWindowFlags_NoNav;
    if (ImGui::Begin("##status", nullptr, flags)) {
        char compute[32] = "-";
        if (s.compute_ms > 0.0) std::snprintf(compute, sizeof compute, "%.2f ms", s.compute_ms);
        ImGui::Text("%s | path: %s | %s | frame %s | UI %.1f ms (%.0f fps) | %dx%d | zoom %.4g | %d iterations",
                    s.backend == Backend::Cuda ? "CUDA" : "CPU", render_path_name(s.path), precision_name(s.precision),
                    compute, s.ui_frame_ms, s.ui_frame_ms > 0.0 ? 1000.0 / s.ui_frame_ms : 0.0, s.width, s.height,
                    s.zoom, s.iterations);
        if (s.rendering) {
            ImGui::SameLine();
            char label[32];
            std::snprintf(label, sizeof label, "rendering %.0f%%", 100.0 * s.progress);
            ImGui::ProgressBar(float(s.progress), ImVec2(ImGui::GetFontSize() * 10.0f, 0.0f), label);
        }
        if (!s.fallback_reason.empty()) {
            ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(230, 190, 90, 255));
            ImGui::TextUnformatted(s.fallback_reason.c_str());
            ImGui::PopStyleColor();
        }
        if (s.beyond_fp64) {
            ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 110, 255));
            ImGui::TextUnformatted(kBeyondFp64Message);
            ImGui::PopStyleColor();
        }
        if (!s.message.empty()) {
            if (ImGui::SmallButton("x")) s.dismiss_message = true;
            ImGui::SameLine();
            ImGui::PushStyleColor(ImGuiCol_Text, s.message_is_error ? IM_COL32(255, 110, 110, 255) : IM_COL32(140, 220, 140, 255));
            ImGui::TextUnformatted(s.message.c_str());
            ImGui::PopStyleColor();
        }
    }
    ImGui::End();
}

}  // namespace ms
