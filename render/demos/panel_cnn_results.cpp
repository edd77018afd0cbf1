// panel_cnn_results.cpp: the measuring half of the CNN panel (panel_cnn.h): "Classify all
// 10,000" on the CPU and the GPU with accuracy, images/s, latency, speedup and time per stage;
// the confusion matrix as a coloured grid; the batch-size sweep (latency per call against
// images/s).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "compute/system/text_format.h"
#include "render/demos/panel_cnn.h"
#include "render/demos/panel_cnn_parts.h"
#include "render/ui/panels.h"
#include "render/ui/plot.h"

namespace ms {

namespace {

void draw_progress(CnnDemo& d, const char* what, float width) {
    char label[96];
    std::snprintf(label, sizeof label, "%s: %.0f%%", what, 100.0 * d.progress);
    ImGui::ProgressBar(float(d.progress), ImVec2(width - ImGui::GetFontSize() * 5.0f, 0.0f), label);
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) d.cancel = true;
}

void draw_result_row(const char* side, ImU32 colour, const std::optional<CnnEvalResult>& r) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colour), "%s", side);
    if (!r) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("not run");
        return;
    }
    ImGui::TableNextColumn();
    ImGui::Text("%.2f%%", 100.0 * r->accuracy);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_per_second(r->images_per_second).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%s / %d", format_duration_ms(r->batch_latency_ms).c_str(), r->batch);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r->device.c_str());
}

// One line per stage: its time in the (median) pass over the 10,000 images and its share.
void draw_stage_times(const char* side, const CnnEvalResult& r) {
    double sum = 0.0;
    for (const CnnLayerTime& l : r.layers) sum += l.ms;
    ImGui::Text("%s time per stage:", side);
    const float name_w = ImGui::CalcTextSize("conv2+relu+pool ").x;
    for (const CnnLayerTime& l : r.layers) {
        ImGui::TextDisabled("  %s", l.name.c_str());
        ImGui::SameLine(name_w + ImGui::GetFontSize());
        ImGui::Text("%10s  %3.0f%%", format_duration_ms(l.ms).c_str(), sum > 0.0 ? 100.0 * l.ms / sum : 0.0);
    }
}

void draw_classify_all(CnnDemo& d, float width) {
    ImGui::TextUnformatted("Classify all 10,000 test images");
    const bool busy = d.task != CnnTask::None;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14.0f);
    ImGui::SliderInt("images per call", &d.batch, 1, kCnnMaxBatch, "%d",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    help_marker(
        "The batch size: how many images one forward pass takes. A call of 1 image shows the "
        "latency one request would see; 10,000 at once give the most images per second. The "
        "batch-size sweep measures the whole range.");
    ImGui::BeginDisabled(busy);
    if (ImGui::Button("Classify on the CPU")) d.classify_all_cpu = true;
    ImGui::SameLine();
    ImGui::BeginDisabled(!d.cuda_unavailable.empty());
    if (ImGui::Button("Classify on the GPU")) d.classify_all_cuda = true;
    ImGui::EndDisabled();
    if (!d.cuda_unavailable.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("GPU unavailable: %s", d.cuda_unavailable.c_str());
    ImGui::EndDisabled();
    if (d.task == CnnTask::ClassifyAll)
        draw_progress(d, d.task_backend == CnnBackend::Cuda ? "classifying on the GPU" : "classifying on the CPU",
                      width);

    const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_NoHostExtendX |
                                  ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH;
    if (ImGui::BeginTable("##classify_all", 4, flags)) {
        // Fixed widths, not fitted to the contents: a fitted table is blank on the frame it
        // first appears, which may be the frame --screenshot saves.
        const float font = ImGui::GetFontSize();
        ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, 2.5f * font);
        ImGui::TableSetupColumn("accuracy", ImGuiTableColumnFlags_WidthFixed, 5.0f * font);
        ImGui::TableSetupColumn("images/s", ImGuiTableColumnFlags_WidthFixed, 5.0f * font);
        ImGui::TableSetupColumn("per call / batch", ImGuiTableColumnFlags_WidthFixed, 9.0f * font);
        ImGui::TableHeadersRow();
        draw_result_row("CPU", kCnnCpuColour, d.cpu_result);
        draw_result_row("GPU", kCnnGpuColour, d.cuda_result);
        ImGui::EndTable();
    }
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    if (d.cuda_result)
        ImGui::Text("GPU kernels alone: %s images/s (the rest is copying images in and logits out).",
                    format_per_second(d.cuda_result->compute_images_per_second).c_str());
    if (const double speedup = cnn_speedup(d.cpu_result, d.cuda_result); speedup > 0.0) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kCnnGpuColour),
                           "Speedup: the GPU classifies %.1fx as many images per second as the CPU.", speedup);
    } else if (!d.cuda_unavailable.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kCnnWarningColour);
        ImGui::TextWrapped("No GPU comparison here: %s", d.cuda_unavailable.c_str());
        ImGui::PopStyleColor();
    } else {
        ImGui::TextDisabled("Classify on both to see the speedup.");
    }
    if (d.cpu_result) draw_stage_times("CPU", *d.cpu_result);
    if (d.cuda_result) draw_stage_times("GPU", *d.cuda_result);
    ImGui::PopTextWrapPos();
    ImGui::Dummy(ImVec2(width, 0.0f));  // the block's width, whatever the texts
}

float confusion_width() {
    return ImGui::CalcTextSize("9 T-shirt/top ").x + kCnnClasses * ImGui::CalcTextSize("00000").x;
}

// Rows: the true class; columns: the prediction; each cell's colour is its share of the row.
void draw_confusion(CnnDemo& d) {
    if (d.cpu_result && d.cuda_result) {
        ImGui::TextUnformatted("Confusion matrix of");
        ImGui::SameLine();
        ImGui::RadioButton("CPU", &d.confusion_backend, 0);
        ImGui::SameLine();
        ImGui::RadioButton("GPU", &d.confusion_backend, 1);
    } else {
        d.confusion_backend = d.cuda_result && !d.cpu_result ? 1 : 0;
        ImGui::Text("Confusion matrix%s", d.cpu_result ? " (CPU)" : d.cuda_result ? " (GPU)" : "");
    }
    const std::optional<CnnEvalResult>& r = d.confusion_backend == 1 ? d.cuda_result : d.cpu_result;
    if (!r) {
        ImGui::TextDisabled("It appears once \"Classify all\" has run.");
        ImGui::Dummy(ImVec2(confusion_width(), 0.0f));  // its place kept: the sweep does not jump
        return;
    }
    ImGui::TextDisabled("rows: true class, columns: predicted class");
    const float line = ImGui::GetTextLineHeight();
    const float cell_w = ImGui::CalcTextSize("00000").x;
    const float cell_h = line + 6.0f;
    const float label_w = confusion_width() - kCnnClasses * cell_w;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 size(label_w + kCnnClasses * cell_w, line + 4.0f + kCnnClasses * cell_h);
    ImGui::InvisibleButton("##confusion", size);
    const bool hovered = ImGui::IsItemHovered();
    const ImVec2 mouse = ImGui::GetMousePos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    char number[16];
    for (int c = 0; c < kCnnClasses; ++c) {  // column heads: the class numbers
        std::snprintf(number, sizeof number, "%d", c);
        const float w = ImGui::CalcTextSize(number).x;
        draw->AddText(ImVec2(origin.x + label_w + c * cell_w + (cell_w - w) / 2, origin.y), dim, number);
    }
    for (int t = 0; t < kCnnClasses; ++t) {
        int row_total = 0;
        for (int p = 0; p < kCnnClasses; ++p) row_total += r->confusion[t][p];
        const float y = origin.y + line + 4.0f + t * cell_h;
        char label[32];
        std::snprintf(label, sizeof label, "%d %s", t, kFashionMnistClassNames[t]);
        draw->AddText(ImVec2(origin.x, y + 3.0f), text, label);
        for (int p = 0; p < kCnnClasses; ++p) {
            const int count = r->confusion[t][p];
            const ImVec2 a(origin.x + label_w + p * cell_w, y);
            const ImVec2 b(a.x + cell_w - 1.0f, a.y + cell_h - 1.0f);
            draw->AddRectFilled(a, b, cnn_confusion_colour(count, row_total, t == p));
            if (count > 0) {
                std::snprintf(number, sizeof number, "%d", count);
                const float w = ImGui::CalcTextSize(number).x;
                draw->AddText(ImVec2(a.x + (cell_w - 1.0f - w) / 2, a.y + 3.0f), text, number);
            }
            if (hovered && mouse.x >= a.x && mouse.x < a.x + cell_w && mouse.y >= a.y && mouse.y < a.y + cell_h)
                ImGui::SetTooltip("%d %s images (%.1f%%) classified as %s", count, kFashionMnistClassNames[t],
                                  row_total ? 100.0 * count / row_total : 0.0, kFashionMnistClassNames[p]);
        }
    }
}

// "1.5 us", "46.3 ms", "1.2 s": a duration given in milliseconds, for ticks and tooltips.
std::string duration_text(double ms) {
    char text[32];
    if (ms >= 1e3) std::snprintf(text, sizeof text, "%.3g s", ms / 1e3);
    else if (ms >= 1.0) std::snprintf(text, sizeof text, "%.3g ms", ms);
    else std::snprintf(text, sizeof text, "%.3g us", ms * 1e3);
    return text;
}

struct SweepPlots {
    std::vector<PlotSeries> latency;     // ms per call against the batch
    std::vector<PlotSeries> throughput;  // images/s against the batch
};

SweepPlots sweep_plots(const CnnDemo& d) {
    SweepPlots plots;
    auto add = [&](const char* label, ImU32 colour, PlotMarker marker, const std::vector<CnnSweepPoint>& points,
                   bool hidden) {
        if (points.empty()) return;
        PlotSeries latency;
        latency.label = label;
        latency.colour = colour;
        latency.marker = marker;
        latency.hidden = hidden;
        PlotSeries throughput = latency;
        for (const CnnSweepPoint& p : points) {  // measured in increasing batch order
            latency.points.push_back({double(p.batch), p.batch_latency_ms});
            throughput.points.push_back({double(p.batch), p.images_per_second});
        }
        plots.latency.push_back(std::move(latency));
        plots.throughput.push_back(std::move(throughput));
    };
    add("CPU", kCnnCpuColour, PlotMarker::Circle, d.cpu_sweep, d.plot_hidden[0]);
    add("GPU", kCnnGpuColour, PlotMarker::Square, d.cuda_sweep, d.plot_hidden[1]);
    return plots;
}

// Latency per call and images/s against the batch size, log-log, side by side; the slider's
// batch as a vertical line, with the figures there (interpolated between measured sizes). A
// click on a point sets the slider to that batch.
void draw_sweep(CnnDemo& d, float width) {
    ImGui::TextUnformatted("Batch size: latency against throughput");
    ImGui::BeginDisabled(d.task != CnnTask::None);
    if (ImGui::Button("Measure batch sizes 1 to 10,000")) d.start_sweep = true;
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextDisabled(d.cuda_unavailable.empty() ? "(CPU and GPU)" : "(CPU only)");
    if (d.task == CnnTask::Sweep) draw_progress(d, "measuring", width);
    if (d.cpu_sweep.empty() && d.cuda_sweep.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
        ImGui::TextDisabled(
            "Each size runs a few thousand images (all 10,000 from 1,024 up) and keeps the median call. "
            "Bigger batches give more images per second, but every image waits for its whole batch.");
        ImGui::PopTextWrapPos();
        ImGui::Dummy(ImVec2(width, 0.0f));
        return;
    }
    SweepPlots plots = sweep_plots(d);
    const PlotAxis x{.log = true,
                     .title = "images per call",
                     .format = plot_format_si,
                     .name = "batch",
                     .value_format = [](double b) { return std::to_string(int(b)) + " images"; }};
    PlotAxis latency_y{.log = true,
                       .title = "latency per call",
                       .format = duration_text,
                       .name = "latency",
                       .value_format = duration_text};
    PlotAxis throughput_y{.log = true,
                          .title = "images per second",
                          .format = plot_format_si,
                          .name = "throughput",
                          .value_format = [](double v) { return format_per_second(v) + " images/s"; }};
    PlotAxis x_latency = x, x_throughput = x;
    plot_fit_axes(plots.latency, &x_latency, &latency_y);
    plot_fit_axes(plots.throughput, &x_throughput, &throughput_y);
    const std::vector<PlotAnnotation> slider = {{double(d.batch), NAN, "", IM_COL32(255, 210, 60, 170)}};

    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const ImVec2 size(0.5f * (width - spacing), std::max(12.0f * ImGui::GetFontSize(), 0.4f * width));
    const PlotResult latency_hit = draw_plot("##latency", x_latency, latency_y, plots.latency, slider, size);
    ImGui::SameLine();
    const PlotResult throughput_hit = draw_plot("##throughput", x_throughput, throughput_y, plots.throughput, slider,
                                                size);
    for (const PlotResult& hit : {latency_hit, throughput_hit})
        if (hit.clicked) d.batch = int(plots.latency[size_t(hit.hovered.series)].points[size_t(hit.hovered.point)].x);
    if (draw_plot_legend(plots.latency))
        for (const PlotSeries& series : plots.latency) d.plot_hidden[series.label == "GPU"] = series.hidden;

    // The figures at the slider's batch.
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    for (size_t i = 0; i < plots.latency.size(); ++i) {
        const double ms = plot_series_value_at(plots.latency[i], x_latency, latency_y, d.batch);
        const double rate = plot_series_value_at(plots.throughput[i], x_throughput, throughput_y, d.batch);
        if (!std::isfinite(ms) || !std::isfinite(rate)) continue;
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(plots.latency[i].colour), "%s",
                           plots.latency[i].label.c_str());
        ImGui::SameLine();
        ImGui::Text("at %d images per call: %s per call, %s images/s", d.batch, duration_text(ms).c_str(),
                    format_per_second(rate).c_str());
    }
    ImGui::TextDisabled("The yellow line is the slider's batch; click a point to move the slider there.");
    ImGui::PopTextWrapPos();
}

}  // namespace

void draw_cnn_results(CnnDemo& d) {
    const float font = ImGui::GetFontSize();
    const float classify_w = font * 28.0f;
    ImGui::BeginGroup();
    draw_classify_all(d, classify_w);
    ImGui::EndGroup();
    cnn_next_block(confusion_width());
    ImGui::BeginGroup();
    draw_confusion(d);
    ImGui::EndGroup();
    const float sweep_w = font * 44.0f;
    cnn_next_block(sweep_w);
    ImGui::BeginGroup();
    draw_sweep(d, sweep_w);
    ImGui::EndGroup();
}

}  // namespace ms
