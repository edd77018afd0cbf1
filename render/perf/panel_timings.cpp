// panel_timings.cpp: the Timings tab of the Performance window: where each frame's time goes
// (compute, map+unmap, upload, UI, present), min/median/p95 over the last frames, a rolling
// plot per stage, iterations per second against the device's limit, and, as a lesson, what an
// unsynchronised host timer around the kernel launch reports instead of the CUDA events.
#include <imgui.h>

#include <algorithm>
#include <cfloat>
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

const ImU32 kWrong = IM_COL32(255, 110, 110, 255);
const ImU32 kRight = IM_COL32(140, 220, 140, 255);

// Stage colours, shared by the table's swatches and the plot.
constexpr ImU32 kStageColours[kFrameStages + 1] = {
    IM_COL32(255, 160, 60, 255),   // compute
    IM_COL32(120, 200, 255, 255),  // map+unmap
    IM_COL32(200, 130, 255, 255),  // upload
    IM_COL32(130, 220, 130, 255),  // UI
    IM_COL32(240, 220, 100, 255),  // present
    IM_COL32(200, 200, 200, 160),  // the whole UI frame
};

void stats_row(const char* name, ImU32 colour, const SampleStats& st, double latest, const char* over) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    dl->AddRectFilled(ImVec2(p.x, p.y + 0.25f * h), ImVec2(p.x + 0.5f * h, p.y + 0.75f * h), colour);
    ImGui::Dummy(ImVec2(0.6f * h, h));
    ImGui::SameLine();
    ImGui::TextUnformatted(name);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%d samples %s", st.count, over);
    for (double v : {latest, st.min, st.median, st.p95}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_duration_ms(v).c_str());
    }
}

void draw_table(const TimingsPanelState& s) {
    const TimelineSummary& t = s.summary;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##stages", 5, flags)) return;
    ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    for (const char* c : {"last", "min", "median", "p95"})
        ImGui::TableSetupColumn(c, ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    const bool cuda = s.path == RenderPath::Interop || s.path == RenderPath::Copy;
    const char* rendered = "over the last rendered frames";
    const char* ui = "over the last UI frames";
    stats_row(cuda ? "compute (events)" : "compute (wall)", kStageColours[0], t.compute_ms, t.latest_compute_ms,
              rendered);
    stats_row("map+unmap", kStageColours[1], t.interop_ms, t.latest_interop_ms, rendered);
    stats_row("upload", kStageColours[2], t.upload_ms, t.latest_upload_ms, rendered);
    stats_row("UI", kStageColours[3], t.ui_ms, t.latest_ui_ms, ui);
    stats_row("present", kStageColours[4], t.present_ms, t.latest_present_ms, ui);
    stats_row("UI frame", kStageColours[5], t.frame_ms, t.latest_frame_ms, ui);
    ImGui::EndTable();
}

// The lesson: CUDA events (or a synchronised clock) against a host clock read right after the
// launch returns.
void draw_timing_lesson(const TimingsPanelState& s) {
    const SampleStats& events = s.summary.compute_ms;
    const SampleStats& host = s.summary.host_launch_ms;
    if (host.count == 0) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("Host timer without synchronisation: shown for CUDA frames only.");
        ImGui::PopStyleColor();
        help_marker(
            "A CUDA kernel launch returns as soon as the work is queued; a host clock read "
            "right after it measures the queuing, not the kernel. The CPU path has no such "
            "trap: its wall time is the work.");
        return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, kRight);
    ImGui::Text("CUDA events around the kernels: %s (median)", format_duration_ms(events.median).c_str());
    ImGui::PopStyleColor();
    ImGui::PushStyleColor(ImGuiCol_Text, kWrong);
    ImGui::Text("host clock around the launch, no sync: %s  WRONG", format_duration_ms(host.median).c_str());
    ImGui::PopStyleColor();
    help_marker(
        "Kernel launches are asynchronous: the call returns once the work is queued, "
        "long before the GPU has done it. A host timer stopped right after the launch "
        "measures the queuing only. Time GPU work with CUDA events (as here) or stop "
        "the host clock after cudaDeviceSynchronize().");
    if (host.median > 0.0 && events.median > 0.0)
        ImGui::TextDisabled("The unsynchronised timer would claim the frame %.0fx faster than it is.",
                            events.median / host.median);
}

// One path's figures (perf_stats.h's throughput_figures): the iterations stepped per second
// against the limit and, where BLA skipped some (deep frames), the pixels' effective rate and
// the share it skipped, on a line of their own.
void throughput_line(const char* name, double steps_per_second, double iterations_per_second, double skipped_fraction,
                     const IterationLimit& limit) {
    if (std::isnan(steps_per_second)) {
        ImGui::TextDisabled("%s: no frame measured yet", name);
        return;
    }
    const ThroughputFigures f = throughput_figures(steps_per_second, iterations_per_second, skipped_fraction, limit);
    if (!(limit.iterations_per_second > 0.0)) {
        ImGui::Text("%s: %s", name, format_rate(f.steps_per_second).c_str());
    } else {
        ImGui::Text("%s: %s = %.*f%% of its limit %s", name, format_rate(f.steps_per_second).c_str(),
                    f.percent_of_limit < 1.0 ? 2 : 0, f.percent_of_limit,
                    format_rate(limit.iterations_per_second).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("limit = %s", limit.formula.c_str());
    }
    if (f.skipped_fraction > 0.0) {
        ImGui::TextDisabled("      effective %s (BLA skipped %.1f%% of the iterations)",
                            format_rate(f.effective_per_second).c_str(), 100.0 * f.skipped_fraction);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "The pixels advanced this many iterations per second; BLA covered the skipped ones "
                "in a few steps each, so only the steps run count against the limit.");
    }
}

void draw_throughput(const TimingsPanelState& s) {
    ImGui::TextUnformatted("Iterations per second (median of the last frames)");
    help_marker(
        "Iterations actually run (shortcut pixels count none) divided by the compute "
        "time; on the deep paths, the perturbation steps run (the iterations BLA skipped "
        "are shown apart, as the effective rate). The limit is what the cores can issue: GPU SMs x FP lanes x clock / "
        "instructions per iteration (counted in the kernel's SASS); CPU cores x SIMD "
        "lanes x FP pipes x clock / FP operations per iteration. The CPU figure "
        "includes Compare's full-speed renders; the window's own CPU frames run below "
        "the UI's priority and include the coarse preview.");
    const TimelineSummary& t = s.summary;
    throughput_line("CUDA", t.cuda_steps_per_second, t.cuda_iterations_per_second, t.cuda_skipped_fraction,
                    s.cuda_limit);
    throughput_line("CPU ", t.cpu_steps_per_second, t.cpu_iterations_per_second, t.cpu_skipped_fraction, s.cpu_limit);
}

void draw_rolling_plot(TimingsPanelState& s) {
    const FrameTimeline& t = s.timeline;
    std::vector<PlotSeries> series;
    auto add = [&](int index, const char* label, const SampleRing& ring, PlotMarker marker) {
        PlotSeries ps;
        ps.label = label;
        ps.colour = kStageColours[index];
        ps.marker = marker;
        ps.hidden = s.hidden[size_t(index)];
        std::vector<double> values = ring_values(ring);
        const int n = int(values.size());
        ps.points.reserve(values.size());
        // x: frames before the latest (0 is the newest), so the plot scrolls to the left.
        for (int i = 0; i < n; ++i) ps.points.push_back({double(i - n + 1), values[size_t(i)]});
        series.push_back(std::move(ps));
    };
    // Compute, map and upload happen on the frames that render: points, joined while every frame
    // renders (a drag). UI and present happen on every frame: lines.
    add(0, "compute", t.stages[size_t(FrameStage::Compute)], PlotMarker::Circle);
    add(1, "map+unmap", t.stages[size_t(FrameStage::Interop)], PlotMarker::Square);
    add(2, "upload", t.stages[size_t(FrameStage::Upload)], PlotMarker::Diamond);
    add(3, "UI", t.stages[size_t(FrameStage::Ui)], PlotMarker::None);
    add(4, "present", t.stages[size_t(FrameStage::Present)], PlotMarker::None);
    // The UI frame's total is in the table, not here: it is about the sum of these lines, and
    // each 300-point line takes a visible share of the panel's drawing budget (kPanelBudgetMs).
    PlotAxis x;
    x.title = "UI frames ago";
    PlotAxis y;
    y.log = true;
    y.title = "ms";
    plot_fit_axes(series, &x, &y);
    x.min = -double(std::max(1, t.stages[0].capacity - 1));
    x.max = 0.0;
    plot_include(&y, 1000.0 / 30.0);  // the 30 fps line stays in view
    // Compare promises the UI never drops below 30 frames/s: the line a UI frame must stay under.
    std::vector<PlotAnnotation> marks{{NAN, 1000.0 / 30.0, "30 fps", IM_COL32(255, 255, 255, 110)}};
    const float height = std::clamp(ImGui::GetContentRegionAvail().y - 2.0f * ImGui::GetFrameHeightWithSpacing(),
                                    ImGui::GetFontSize() * 9.0f, ImGui::GetFontSize() * 26.0f);
    draw_plot("##timeline", x, y, series, marks, ImVec2(ImGui::GetContentRegionAvail().x, height));
    if (draw_plot_legend(series))
        for (size_t i = 0; i < series.size(); ++i) s.hidden[i] = series[i].hidden;
}

}  // namespace

void draw_timings_panel(TimingsPanelState& s) {
    const FrameTimeline& t = s.timeline;
    ImGui::Text("path: %s, %s | %llu UI frames, %llu rendered", render_path_name(s.path), precision_name(s.precision),
                (unsigned long long)t.ui_frames, (unsigned long long)t.rendered_frames);
    help_marker(
        "compute: CUDA events around the kernels (CUDA paths) or the CPU frame's wall time. "
        "map+unmap: the interop buffer handed to CUDA and back. upload: glTexSubImage2D. "
        "UI: building and drawing the ImGui frame. present: glfwSwapBuffers, which also "
        "waits for the GPU's GL work and, with vsync on, for the display. Compute, map and "
        "upload are taken over the last frames that rendered a new view; the others over "
        "the last UI frames.");
    if (s.deep) {
        // A deep frame's compute is all of it: the MPFR reference (0 when cached), the BLA
        // table's build and the pixels (deep_cpu.h's DeepFrameStats).
        const DeepFrameStats& d = s.deep_stats;
        ImGui::Text("deep frame %s = reference %s (%s) + BLA %s (%d levels, %s on the %s) + pixels %s",
                    format_duration_ms(d.frame_ms).c_str(), format_duration_ms(d.reference_ms).c_str(),
                    d.reference_cached ? "cached" : "new", format_duration_ms(d.bla_ms).c_str(), d.bla_levels,
                    d.bla_cached ? "cached" : "built", d.bla_on_device ? "GPU" : "CPU",
                    format_duration_ms(d.pixels_ms).c_str());
        ImGui::Text("BLA skipped %.1f%% of %llu iterations; %llu rebases",
                    d.iterations ? 100.0 * double(d.bla_iterations) / double(d.iterations) : 0.0,
                    (unsigned long long)d.iterations, (unsigned long long)d.rebases);
        if (d.reused_pixels > 0)
            ImGui::Text("a pan by (%d, %d) px: %llu pixels reused, the pixels and iterations above are the strips'",
                        d.pan_x, d.pan_y, (unsigned long long)d.reused_pixels);
    }
    draw_table(s);
    ImGui::Spacing();
    draw_timing_lesson(s);
    ImGui::Spacing();
    draw_throughput(s);
    ImGui::Spacing();
    draw_rolling_plot(s);
}

}  // namespace ms
