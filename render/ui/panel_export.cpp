// panel_export.cpp: the Export PNG dialog: file, size (default the window's), supersampling,
// then a progress bar with Cancel while the export runs on its own thread.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>

#include "render/frame/export_image.h"
#include "render/ui/panels.h"

namespace ms {

void draw_export_dialog(ExportDialogState& s, bool in_column) {
    s.start = s.cancel = false;
    if (!s.open || !in_column) return;
    if (!ImGui::BeginTabItem("Export PNG", &s.open, s.raise ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None))
        return;
    s.raise = false;
    const float width = std::min(ImGui::GetFontSize() * 26.0f, ImGui::GetContentRegionAvail().x);
    ImGui::BeginDisabled(s.running);
    ImGui::SetNextItemWidth(width);
    ImGui::InputText("##path", &s.path);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
    int size[2] = {s.width, s.height};
    if (ImGui::InputInt2("size", size)) {
        s.width = std::clamp(size[0], 1, kMaxExportSide);
        s.height = std::clamp(size[1], 1, kMaxExportSide);
    }
    ImGui::SameLine();
    if (ImGui::Button("window")) {
        s.width = s.window_width;
        s.height = s.window_height;
    }
    ImGui::SameLine();
    if (ImGui::Button("16K")) {
        // 16384 on the longer side, the window's aspect ratio kept.
        double aspect = s.window_height > 0 ? double(s.window_width) / s.window_height : 1.0;
        s.width = aspect >= 1.0 ? 16384 : std::max(1, int(16384 * aspect + 0.5));
        s.height = aspect >= 1.0 ? std::max(1, int(16384 / aspect + 0.5)) : 16384;
    }
    const char* ss_names[] = {"1x1 (none)", "2x2", "3x3", "4x4"};
    int ss = s.supersample - 1;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
    if (ImGui::Combo("supersampling", &ss, ss_names, 4)) s.supersample = ss + 1;
    double megapixels = double(s.width) * s.height / 1e6;
    ImGui::TextDisabled("%.1f megapixels, %.0f M samples; rendered in strips", megapixels,
                        megapixels * s.supersample * s.supersample);
    ImGui::EndDisabled();

    if (s.running) {
        char label[32];
        std::snprintf(label, sizeof label, "%.0f%%", 100.0 * s.progress);
        ImGui::ProgressBar(float(s.progress), ImVec2(width - ImGui::GetFontSize() * 5.0f, 0.0f), label);
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) s.cancel = true;
    } else if (ImGui::Button("Export")) {
        s.start = true;
    }
    if (!s.result.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text,
                              s.result_is_error ? IM_COL32(255, 110, 110, 255) : IM_COL32(140, 220, 140, 255));
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
        ImGui::TextUnformatted(s.result.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
    }
    ImGui::EndTabItem();
}

}  // namespace ms
