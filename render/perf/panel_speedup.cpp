// panel_speedup.cpp: the Speedup tab of the Performance window: with Compare on, every new view
// is also rendered on the other path (render/perf/compare_worker.h); this shows the job under way,
// the latest speedup and agreement, their history over the views visited, and the UI's frame
// rate while the CPU works in the background.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compute/system/text_format.h"
#include "render/perf/panel_perf.h"
#include "render/ui/panels.h"
#include "render/ui/plot.h"

namespace ms {

namespace {

const ImU32 kWarning = IM_COL32(230, 190, 90, 255);
const ImU32 kGood = IM_COL32(140, 220, 140, 255);
const ImU32 kBad = IM_COL32(255, 110, 110, 255);
const ImU32 kSpeedupColour = IM_COL32(255, 160, 60, 255);
const ImU32 kCpuColour = IM_COL32(120, 200, 255, 255);
const ImU32 kCudaColour = IM_COL32(130, 220, 130, 255);

void draw_job(const ComparePanelState& s) {
    const CompareStatus& job = s.status;
    if (s.waiting_for_view) {
        ImGui::TextDisabled("Waiting for the view to stand still on screen before comparing...");
        return;
    }
    if (!job.running) return;
    ImGui::Text("Comparing this view (%s):", precision_name(job.precision));
    ImGui::SameLine();
    if (job.cuda_done) ImGui::Text("CUDA %s;", format_duration_ms(job.cuda_ms).c_str());
    else ImGui::TextUnformatted("CUDA...");
    ImGui::SameLine();
    char label[48];
    std::snprintf(label, sizeof label, "CPU %.0f%%", 100.0 * job.cpu_progress);
    ImGui::ProgressBar(float(job.cpu_progress), ImVec2(-1.0f, 0.0f), label);
}

void draw_latest(const ComparePanelState& s) {
    if (s.history.empty()) {
        ImGui::TextDisabled("No view compared yet.");
        return;
    }
    const CompareRecord& r = s.history.back();
    ImGui::Text("View %d: %dx%d, zoom %.3g, %d iterations, %s", r.view_number, r.width, r.height, r.zoom, r.iterations,
                r.precision);
    ImGui::PushStyleColor(ImGuiCol_Text, kSpeedupColour);
    ImGui::Text("CUDA is %s faster", format_speedup(compare_speedup(r)).c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::TextDisabled("CPU %s (fast path, all cores), CUDA %s", format_duration_ms(r.cpu_ms).c_str(),
                        format_duration_ms(r.cuda_ms).c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, r.agree ? kGood : kBad);
    ImGui::Text("%s: %.2f%% of the pixels agree", r.agree ? "The frames agree" : "The frames DISAGREE",
                100.0 * r.agreement);
    ImGui::PopStyleColor();
    if (!r.agree && !s.status.disagreement.empty() && s.status.id > 0)
        ImGui::TextWrapped("%s", s.status.disagreement.c_str());
    help_marker(
        "Both paths render the same view at the window's resolution in the same precision, "
        "from the same smooth-value definition. They agree when the escape counts match "
        "(and the smooth values within rounding) on nearly every pixel; see "
        "compute/frame_compare.h. Compute time only: colouring and display are left out.");
}

void draw_history_plot(ComparePanelState& s) {
    if (s.history.size() < 1) return;
    PlotSeries speedup{"speedup", kSpeedupColour, PlotMarker::Circle, false, false, {}};
    PlotSeries cpu{"CPU ms", kCpuColour, PlotMarker::Square, false, false, {}};
    PlotSeries cuda{"CUDA ms", kCudaColour, PlotMarker::Diamond, false, false, {}};
    for (const CompareRecord& r : s.history) {
        speedup.points.push_back({double(r.view_number), compare_speedup(r)});
        cpu.points.push_back({double(r.view_number), r.cpu_ms});
        cuda.points.push_back({double(r.view_number), r.cuda_ms});
    }
    std::vector<PlotSeries> series{speedup, cpu, cuda};
    for (size_t i = 0; i < series.size(); ++i) series[i].hidden = s.hidden[i];
    PlotAxis x;
    x.title = "view (in the order visited)";
    x.format = [](double v) {  // views are whole numbers: no label between them
        return std::fabs(v - std::round(v)) < 1e-6 ? std::to_string(std::lround(v)) : std::string();
    };
    PlotAxis y;
    y.log = true;
    y.title = s.hidden[1] && s.hidden[2] ? "speedup (x)" : "speedup (x); time (ms)";
    plot_fit_axes(series, &x, &y);
    if (x.max - x.min < 4.0) x.max = x.min + 4.0;  // a few views: don't stretch one point over the plot
    const float height = std::clamp(0.55f * ImGui::GetContentRegionAvail().y, ImGui::GetFontSize() * 8.0f,
                                    ImGui::GetFontSize() * 15.0f);
    draw_plot("##speedup", x, y, series, {}, ImVec2(ImGui::GetContentRegionAvail().x, height));
    if (draw_plot_legend(series))
        for (size_t i = 0; i < series.size(); ++i) s.hidden[i] = series[i].hidden;
}

// The views compared, newest first.
void draw_history_table(const ComparePanelState& s) {
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingStretchProp;
    const float height = std::max(ImGui::GetTextLineHeightWithSpacing() * 4.0f,
                                  ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeightWithSpacing());
    if (!ImGui::BeginTable("##views", 7, flags, ImVec2(0.0f, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* c : {"view", "zoom", "iter.", "CPU", "CUDA", "speedup", "agree"}) ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(int(s.history.size()));
    while (clipper.Step()) {
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
            const CompareRecord& r = s.history[s.history.size() - 1 - size_t(row)];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.view_number);
            ImGui::TableNextColumn();
            ImGui::Text("%.3g", r.zoom);
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.iterations);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(format_duration_ms(r.cpu_ms).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(format_duration_ms(r.cuda_ms).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(format_speedup(compare_speedup(r)).c_str());
            ImGui::TableNextColumn();
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(r.agree ? kGood : kBad), "%.2f%%", 100.0 * r.agreement);
        }
    }
    ImGui::EndTable();
}

void draw_ui_rate(const ComparePanelState& s) {
    const SampleStats& st = s.ui_while_comparing;
    if (st.count == 0) return;
    ImGui::PushStyleColor(ImGuiCol_Text, st.p95 <= 1000.0 / 30.0 ? ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled)
                                                                 : ImGui::ColorConvertU32ToFloat4(kWarning));
    ImGui::Text("UI while the CPU compared: median %.0f fps, slowest %.0f fps (%d frames)", 1000.0 / st.median,
                1000.0 / st.max, st.count);
    ImGui::PopStyleColor();
}

}  // namespace

void draw_speedup_panel(ComparePanelState& s) {
    s.clear_history = false;
    // Why Compare is unavailable is said above the tabs (panel_perf.cpp), seen from every tab.
    if (s.unavailable.empty() && !s.enabled) {
        ImGui::TextWrapped(
            "Compare is off. Switch it on to render every new view on the CPU too, in the "
            "background, and see how much faster CUDA is.");
    }
    if (!s.status.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kBad);
        ImGui::TextWrapped("%s", s.status.error.c_str());
        ImGui::PopStyleColor();
    }
    draw_job(s);
    draw_latest(s);
    draw_ui_rate(s);
    ImGui::Spacing();
    draw_history_plot(s);
    if (s.history.empty()) return;
    draw_history_table(s);
    if (ImGui::SmallButton("Clear history")) s.clear_history = true;
}

}  // namespace ms
