// panel_cnn_results.cpp: the measuring half of the CNN panel (panel_cnn.h): "Classify all
// 10,000" on the CPU and the GPU with accuracy, images/s, latency, speedup and time per stage;
// the confusion matrix as a coloured grid; the batch-size sweep (latency per call against
// images/s).
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "render/panel_cnn.h"
#include "render/panel_cnn_parts.h"

namespace ms {

namespace {

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

std::string ms_text(double ms) {
    char text[32];
    if (ms < 1.0)
        std::snprintf(text, sizeof text, "%.1f us", ms * 1e3);
    else
        std::snprintf(text, sizeof text, "%.2f ms", ms);
    return text;
}

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
        ImGui::TextDisabled("not run yet");
        return;
    }
    ImGui::TableNextColumn();
    ImGui::Text("%.2f%%", 100.0 * r->accuracy);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(rate_text(r->images_per_second).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%s / %d", ms_text(r->batch_latency_ms).c_str(), r->batch);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r->device.c_str());
}

void draw_stage_times(const char* side, const CnnEvalResult& r) {
    double sum = 0.0;
    for (const CnnLayerTime& l : r.layers) sum += l.ms;
    std::string text = std::string(side) + " time per stage:";
    for (const CnnLayerTime& l : r.layers) {
        char part[96];
        std::snprintf(part, sizeof part, "  %s %s (%.0f%%)", l.name.c_str(), ms_text(l.ms).c_str(),
                      sum > 0.0 ? 100.0 * l.ms / sum : 0.0);
        text += part;
    }
    ImGui::TextWrapped("%s", text.c_str());
}

void draw_classify_all(CnnDemo& d, float width) {
    ImGui::TextUnformatted("Classify all 10,000 test images");
    const bool busy = d.task != CnnTask::None;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14.0f);
    ImGui::SliderInt("images per call", &d.batch, 1, kCnnMaxBatch, "%d",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    help_marker("The batch size: how many images one forward pass takes. A call of 1 image shows the "
                "latency one request would see; 10,000 at once give the most images per second. The "
                "sweep on the right measures the whole range.");
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
        draw_progress(d, d.task_backend == CnnBackend::Cuda ? "classifying on the GPU" : "classifying on the CPU", width);

    const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_NoHostExtendX |
                                  ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH;
    if (ImGui::BeginTable("##classify_all", 5, flags)) {
        ImGui::TableSetupColumn("");
        ImGui::TableSetupColumn("accuracy");
        ImGui::TableSetupColumn("images/s");
        ImGui::TableSetupColumn("per call / batch");
        ImGui::TableSetupColumn("device");
        ImGui::TableHeadersRow();
        draw_result_row("CPU", kCnnCpuColour, d.cpu_result);
        draw_result_row("GPU", kCnnGpuColour, d.cuda_result);
        ImGui::EndTable();
    }
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    if (d.cuda_result)
        ImGui::Text("GPU kernels alone: %s images/s (the rest is copying images in and logits out).",
                    rate_text(d.cuda_result->compute_images_per_second).c_str());
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

float confusion_width() { return ImGui::CalcTextSize("9 T-shirt/top ").x + kCnnClasses * ImGui::CalcTextSize("00000").x; }

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

// The sweep's figures, one row per batch size; the slider's batch highlighted.
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
        ImGui::TextDisabled("Each size runs a few thousand images (all 10,000 from 1,024 up) and keeps the median call. "
                            "Bigger batches give more images per second, but every image waits for its whole batch.");
        ImGui::PopTextWrapPos();
        return;
    }
    std::vector<int> batches;
    for (const auto* side : {&d.cpu_sweep, &d.cuda_sweep})
        for (const CnnSweepPoint& p : *side) batches.push_back(p.batch);
    std::sort(batches.begin(), batches.end());
    batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
    auto find = [](const std::vector<CnnSweepPoint>& side, int batch) -> const CnnSweepPoint* {
        for (const CnnSweepPoint& p : side)
            if (p.batch == batch) return &p;
        return nullptr;
    };
    const bool gpu = !d.cuda_sweep.empty() || d.cuda_unavailable.empty();
    const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_NoHostExtendX |
                                  ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH;
    if (ImGui::BeginTable("##sweep", gpu ? 5 : 3, flags)) {
        ImGui::TableSetupColumn("batch");
        ImGui::TableSetupColumn("CPU per call");
        ImGui::TableSetupColumn("CPU images/s");
        if (gpu) {
            ImGui::TableSetupColumn("GPU per call");
            ImGui::TableSetupColumn("GPU images/s");
        }
        ImGui::TableHeadersRow();
        for (int batch : batches) {
            ImGui::TableNextRow();
            if (batch == d.batch)
                ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, ImGui::GetColorU32(ImGuiCol_HeaderActive, 0.5f));
            ImGui::TableNextColumn();
            ImGui::Text("%d", batch);
            for (const auto* side : {&d.cpu_sweep, &d.cuda_sweep}) {
                if (side == &d.cuda_sweep && !gpu) break;
                const CnnSweepPoint* p = find(*side, batch);
                ImGui::TableNextColumn();
                if (p) ImGui::TextUnformatted(ms_text(p->batch_latency_ms).c_str());
                ImGui::TableNextColumn();
                if (p) ImGui::TextUnformatted(rate_text(p->images_per_second).c_str());
            }
        }
        ImGui::EndTable();
    }
}

}  // namespace

void draw_cnn_results(CnnDemo& d) {
    const float font = ImGui::GetFontSize();
    const float classify_w = font * 34.0f;
    ImGui::BeginGroup();
    draw_classify_all(d, classify_w);
    ImGui::EndGroup();
    cnn_next_block(confusion_width());
    ImGui::BeginGroup();
    draw_confusion(d);
    ImGui::EndGroup();
    const float sweep_w = font * 30.0f;
    cnn_next_block(sweep_w);
    ImGui::BeginGroup();
    draw_sweep(d, sweep_w);
    ImGui::EndGroup();
}

}  // namespace ms
