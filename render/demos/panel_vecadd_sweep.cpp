// panel_vecadd_sweep.cpp: the Vector-add panel's sweep: time and bandwidth against size as
// log-log plots (render/ui/plot.h), one line per variant, the crossovers numbered on the time plot
// and listed below, the device's ceilings on the bandwidth plot, the legend, and the lesson.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compute/system/text_format.h"
#include "render/demos/panel_vecadd_parts.h"
#include "render/ui/plot.h"

namespace ms {

namespace {

struct SweepSeries {
    std::vector<PlotSeries> time;
    std::vector<PlotSeries> bandwidth;
    std::vector<VecAddVariant> variants;  // of each series
};

SweepSeries sweep_series(const VectorAddDemo& s) {
    SweepSeries out;
    for (VecAddVariant v : s.sweep.variants) {
        std::vector<const VecAddResult*> rows;
        for (const VecAddResult& r : s.sweep.results)
            if (r.variant == v && r.ok && r.time_ms > 0) rows.push_back(&r);
        std::sort(rows.begin(), rows.end(),
                  [](const VecAddResult* a, const VecAddResult* b) { return a->elements < b->elements; });
        const VecAddVariantStyle st = vecadd_variant_style(v);
        PlotSeries time;
        time.label = vecadd_variant_label(v);
        time.colour = st.colour;
        time.marker = st.marker;
        time.dashed = v == VecAddVariant::GpuDeviceCopy;
        time.hidden = s.plot_hidden[int(v)];
        PlotSeries bandwidth = time;
        for (const VecAddResult* r : rows) {
            time.points.push_back({double(r->elements), r->time_ms});
            bandwidth.points.push_back({double(r->elements), r->gb_per_second});
        }
        out.time.push_back(std::move(time));
        out.bandwidth.push_back(std::move(bandwidth));
        out.variants.push_back(v);
    }
    return out;
}

// Crossovers worth marking: where a variant overtakes one of the CPU rows for good.
std::vector<VecAddCrossover> marked_crossovers(const VectorAddDemo& s, const SweepSeries& series) {
    std::vector<VecAddCrossover> marked;
    auto shown = [&](VecAddVariant v) {
        for (size_t i = 0; i < series.variants.size(); ++i)
            if (series.variants[i] == v) return !series.time[i].hidden && !series.time[i].points.empty();
        return false;
    };
    for (const VecAddCrossover& c : s.lesson.crossovers)
        if (c.crossing == VecAddCrossing::At && shown(c.challenger) && shown(c.baseline)) marked.push_back(c);
    return marked;
}

}  // namespace

void draw_vector_add_sweep(VectorAddDemo& s) {
    if (s.sweep.results.empty()) {
        ImGui::TextDisabled(s.task == VecAddTask::Sweep
                                ? "The first results are on their way..."
                                : "Press Sweep to measure every ticked variant over sizes from 100 up.");
        return;
    }
    SweepSeries series = sweep_series(s);
    PlotAxis x{.log = true,
               .title = "array size (elements)",
               .format = plot_format_si,
               .name = "size",
               .value_format = [](double n) { return printf_text("%.0f elements", n); }};
    PlotAxis time_y{.log = true,
                    .title = "time per add (median)",
                    .format = format_duration_ms,
                    .name = "time",
                    .value_format = format_duration_ms};
    PlotAxis bw_y{.log = true,
                  .title = "bandwidth, GB/s (12 bytes per element)",
                  .format = vecadd_format_gbps,
                  .name = "bandwidth",
                  .value_format = [](double v) { return vecadd_format_gbps(v) + " GB/s"; }};
    PlotAxis x_unused;
    plot_fit_axes(series.time, &x, &time_y);
    plot_fit_axes(series.bandwidth, &x_unused, &bw_y);

    // The crossovers on the time plot, numbered; the ceilings on the bandwidth plot.
    std::vector<PlotAnnotation> time_notes, bw_notes;
    const std::vector<VecAddCrossover> crossovers = marked_crossovers(s, series);
    for (size_t i = 0; i < crossovers.size(); ++i) {
        const VecAddCrossover& c = crossovers[i];
        const auto it = std::find(series.variants.begin(), series.variants.end(), c.challenger);
        const PlotSeries& line = series.time[size_t(it - series.variants.begin())];
        time_notes.push_back({c.estimate_elements, plot_series_value_at(line, x, time_y, c.estimate_elements),
                              std::to_string(i + 1), IM_COL32(255, 255, 255, 230)});
    }
    const VecAddDevice& d = s.sweep.machine.device;
    if (d.available && d.memory_gb_per_second > 0)
        bw_notes.push_back({NAN, d.memory_gb_per_second,
                            "device memory " + vecadd_format_gbps(d.memory_gb_per_second) + " GB/s",
                            IM_COL32(120, 215, 90, 200)});
    if (d.available && d.link_h2d_gb_per_second > 0)
        bw_notes.push_back(
            {NAN, d.link_h2d_gb_per_second,
             "host link " + vecadd_format_gbps(d.link_h2d_gb_per_second) + " GB/s (measured, to the GPU)",
             IM_COL32(80, 165, 255, 200)});
    // Keep the ceilings in view.
    for (const PlotAnnotation& a : bw_notes) plot_include(&bw_y, 1.3 * a.y);  // room for the label

    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    const bool side_by_side = avail >= 60.0f * ImGui::GetFontSize();
    const float w = side_by_side ? 0.5f * (avail - spacing) : avail;
    const float h = std::clamp(0.62f * w, 12.0f * ImGui::GetFontSize(), 24.0f * ImGui::GetFontSize());
    PlotResult time_hit = draw_plot("##time", x, time_y, series.time, time_notes, ImVec2(w, h));
    if (side_by_side) ImGui::SameLine();
    PlotResult bw_hit = draw_plot("##bandwidth", x, bw_y, series.bandwidth, bw_notes, ImVec2(w, h));
    // A click on a point shows that size in the table.
    for (const PlotResult& hit : {time_hit, bw_hit})
        if (hit.clicked)
            s.elements = size_t(series.time[size_t(hit.hovered.series)].points[size_t(hit.hovered.point)].x);

    if (draw_plot_legend(series.time))
        for (size_t i = 0; i < series.variants.size(); ++i)
            s.plot_hidden[int(series.variants[i])] = series.time[i].hidden;
    ImGui::TextDisabled("Click a legend entry to hide or show its line; click a point to see its size in the table.");

    for (size_t i = 0; i < crossovers.size(); ++i) {
        const VecAddCrossover& c = crossovers[i];
        ImGui::Text("%zu", i + 1);
        ImGui::SameLine();
        ImGui::TextWrapped("%s overtakes %s from ~%s elements (measured: faster at every size from %s on)",
                           vecadd_variant_label(c.challenger), vecadd_variant_label(c.baseline),
                           vecadd_format_elements(c.estimate_elements).c_str(),
                           vecadd_format_elements(double(c.elements)).c_str());
    }
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 235, 160, 255));
    ImGui::TextWrapped("%s%s", s.task == VecAddTask::Sweep ? "So far: " : "Lesson: ", s.lesson.sentence.c_str());
    ImGui::PopStyleColor();
}

}  // namespace ms
