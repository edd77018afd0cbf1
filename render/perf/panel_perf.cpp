// panel_perf.cpp: the Performance window: the Compare switch and its latest result on top (seen
// from every tab), then the Timings, Speedup and Device tabs (panel_timings.cpp,
// panel_speedup.cpp, panel_device.cpp). It times its own drawing, against kPanelBudgetMs.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "render/perf/panel_perf.h"
#include "compute/system/text_format.h"
#include "render/ui/panels.h"

namespace ms {

namespace {

constexpr double kPanelBudgetMs = 0.2;
const ImU32 kWarning = IM_COL32(230, 190, 90, 255);

// One line under the switch: what Compare is doing or found for the current view.
void draw_compare_line(const ComparePanelState& c) {
    if (!c.unavailable.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kWarning);
        ImGui::TextWrapped("Compare unavailable: %s.", c.unavailable.c_str());
        ImGui::PopStyleColor();
        return;
    }
    if (!c.enabled) return;
    if (c.waiting_for_view) {
        ImGui::TextDisabled("waiting for the view to settle...");
    } else if (c.status.running) {
        ImGui::TextDisabled("comparing this view: CUDA %s, CPU %.0f%%...",
                            c.status.cuda_done ? format_duration_ms(c.status.cuda_ms).c_str() : "...",
                            100.0 * c.status.cpu_progress);
    } else if (!c.history.empty()) {
        const CompareRecord& r = c.history.back();
        ImGui::PushStyleColor(ImGuiCol_Text, r.agree ? IM_COL32(140, 220, 140, 255) : IM_COL32(255, 110, 110, 255));
        ImGui::Text("view %d: %s", r.view_number, compare_summary(r).c_str());
        ImGui::PopStyleColor();
    }
}

}  // namespace

std::string format_rate(double iterations_per_second) {
    if (std::isnan(iterations_per_second)) return "-";
    char s[32];
    std::snprintf(s, sizeof s, "%.3g it/s", iterations_per_second);
    return s;
}

const char* perf_tab_name(PerfTab tab) {
    switch (tab) {
    case PerfTab::Timings: return "timings";
    case PerfTab::Speedup: return "speedup";
    case PerfTab::Device: return "device";
    }
    return "?";
}

std::string format_speedup(double times) {
    if (std::isnan(times)) return "-";
    char s[32];
    std::snprintf(s, sizeof s, times < 10.0 ? "%.1fx" : "%.0fx", times);
    return s;
}

void draw_perf_panels(PerfPanelsState& s, bool in_column) {
    if (!s.open || !in_column) return;
    const auto start = std::chrono::steady_clock::now();
    if (ImGui::BeginTabItem("Performance", &s.open, s.raise ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None)) {
        s.raise = false;
        ImGui::BeginDisabled(!s.compare.unavailable.empty());
        ImGui::Checkbox("Compare", &s.compare.enabled);
        ImGui::EndDisabled();
        help_marker(
            "Renders every new view on the CPU too (all cores, in the background, at the "
            "window's resolution and precision; a newer view cancels it), checks that the "
            "two frames agree and shows how much faster CUDA was.");
        // The panel's own cost, right-aligned on the same line.
        const SampleStats& own = s.timings.summary.panel_ms;
        char cost[64];
        std::snprintf(cost, sizeof cost, "this panel: %s/frame", format_duration_ms(own.median).c_str());
        // After the help marker on the same line, pushed to the right edge where there is room;
        // on a line of its own in a narrow column (where it would cover the checkbox).
        ImGui::SameLine();
        const float right = ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(cost).x;
        if (right >= ImGui::GetCursorPosX()) ImGui::SetCursorPosX(right);
        else ImGui::NewLine();
        if (own.count > 0 && own.median > kPanelBudgetMs)
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kWarning), "%s", cost);
        else ImGui::TextDisabled("%s", cost);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "Median time spent drawing this window (ImGui calls, host clock) over the last "
                "%d frames; budget %.1f ms. p95 %s.",
                own.count, kPanelBudgetMs, format_duration_ms(own.p95).c_str());
        draw_compare_line(s.compare);
        if (ImGui::BeginTabBar("##perf_tabs")) {
            // `tab` is asked for until the tab bar has shown it (a new tab bar can take a frame
            // or two); after that it remembers the user's clicks.
            auto item = [&](const char* label, PerfTab tab) {
                const bool asked = s.select_tab && s.tab == tab;
                if (!ImGui::BeginTabItem(label, nullptr,
                                         asked ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None))
                    return false;
                if (asked) s.select_tab = false;
                return true;
            };
            if (item("Timings", PerfTab::Timings)) {
                draw_timings_panel(s.timings);
                ImGui::EndTabItem();
            }
            if (item("Speedup", PerfTab::Speedup)) {
                draw_speedup_panel(s.compare);
                ImGui::EndTabItem();
            }
            if (item("Device", PerfTab::Device)) {
                draw_device_panel(s.device);
                ImGui::EndTabItem();
            }
            ImGui::EndTabBar();
        }
        ImGui::EndTabItem();
    }
    s.draw_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ms
