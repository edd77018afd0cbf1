// panel_device.cpp: the Device tab of the Performance window: the GPU and the CPU side by side,
// why CUDA cannot be used (when it cannot), the napkin estimates of CPU against GPU next to
// what this machine measures on the current view, and every attribute CUDA reports, filtered.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "compute/perf/perf_model.h"
#include "compute/system/text_format.h"
#include "render/perf/panel_perf.h"
#include "render/ui/panels.h"

namespace ms {

namespace {

const ImU32 kWarning = IM_COL32(230, 190, 90, 255);

std::string version_text(int v) {  // CUDA encodes 13.0 as 13000
    return v ? std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) : "none";
}

std::string bytes_text(double bytes) {
    char s[32];
    if (bytes >= 1024.0 * 1024 * 1024) std::snprintf(s, sizeof s, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024) std::snprintf(s, sizeof s, "%.0f MiB", bytes / (1024.0 * 1024));
    else std::snprintf(s, sizeof s, "%.0f KiB", bytes / 1024.0);
    return s;
}

// One row of the side-by-side table: what, the GPU's value, the CPU's value.
void fact_row(const char* what, const std::string& gpu, const std::string& cpu) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", what);
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", gpu.c_str());
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", cpu.c_str());
}

// Why no GPU figures: in words, from the CUDA query and from the renderer.
void draw_unavailable(const DevicePanelState& s) {
    ImGui::PushStyleColor(ImGuiCol_Text, kWarning);
    if (!s.cuda.usable) ImGui::TextWrapped("No usable CUDA device: %s.", s.cuda.reason.c_str());
    else if (!s.cuda_unavailable.empty())
        ImGui::TextWrapped("CUDA does not render here: %s.", s.cuda_unavailable.c_str());
    if (s.cuda.usable && s.cuda_unavailable.empty() && !s.interop_unavailable.empty())
        ImGui::TextWrapped("CUDA-GL interop unavailable: %s. CUDA frames are copied through host memory.",
                           s.interop_unavailable.c_str());
    ImGui::PopStyleColor();
}

void draw_facts(const DevicePanelState& s) {
    const CudaDeviceInfo* gpu = s.cuda.devices.empty()
                                    ? nullptr
                                    : &s.cuda.devices[size_t(std::clamp(s.device, 0, int(s.cuda.devices.size()) - 1))];
    const CpuInfo& cpu = s.cpu;
    std::string clock_source;
    const double cpu_hz = cpu_clock_hz(cpu, &clock_source);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##facts", 3, flags)) return;
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 6.0f);
    ImGui::TableSetupColumn("GPU");
    ImGui::TableSetupColumn("CPU");
    ImGui::TableHeadersRow();
    const std::string none = gpu ? "" : "-";
    fact_row("model", gpu ? gpu->name : "no device", cpu.model);
    fact_row(
        "units",
        gpu ? printf_text("%d SMs, compute capability %d.%d", gpu->sm_count, gpu->compute_major, gpu->compute_minor)
            : none,
        printf_text("%d cores, %d threads", cpu.cores, cpu.threads));
    fact_row("FP lanes",
             gpu ? printf_text("%d FP32, %d FP64 per SM", gpu->fp32_lanes_per_sm, gpu->fp64_lanes_per_sm) : none,
             printf_text("%s: %d FP32, %d FP64 per vector, %d FP pipes", cpu.simd_target.c_str(),
                         cpu_simd_lanes(cpu, Precision::Fp32), cpu_simd_lanes(cpu, Precision::Fp64), cpu.fp_pipes));
    fact_row(
        "clock",
        gpu ? printf_text("%.2f GHz SM, %.2f GHz memory", gpu->clock_khz / 1e6, gpu->memory_clock_khz / 1e6) : none,
        printf_text("%.2f GHz (%s)", cpu_hz / 1e9, clock_source.c_str()));
    fact_row(
        "memory",
        gpu ? printf_text("%s, %d-bit bus, %.0f GB/s theoretical", bytes_text(double(gpu->total_memory_bytes)).c_str(),
                          gpu->memory_bus_width_bits, gpu->memory_bytes_per_second / 1e9)
            : none,
        "");
    fact_row("L2", gpu ? bytes_text(gpu->l2_cache_bytes) : none, "");
    fact_row("software",
             printf_text("driver %s, runtime %s", version_text(s.cuda.driver_version).c_str(),
                         version_text(s.cuda.runtime_version).c_str()),
             printf_text("OpenMP, Highway (%s)", cpu.simd_target.c_str()));
    ImGui::EndTable();
}

// The napkin maths of GPU tutorials against what this machine measures (compute/perf/perf_model.h).
void draw_estimates(const DevicePanelState& s) {
    ImGui::TextUnformatted("CPU against GPU: estimates and reality");
    help_marker(
        "GPU tutorials compare cores x clock. That ignores what a core does per clock: a CPU core "
        "works on a whole SIMD vector and may have several FP pipes, a GPU 'core' is one FP32 "
        "lane. The corrected estimate counts lanes and the FP operations one iteration needs. "
        "'Measured' divides iterations by compute time over the last frames of each path (turn "
        "Compare on: both paths then render the same frames). 'est./meas.' is the estimate "
        "divided by the measured speedup: above 1 the estimate promised too much. Each row counts "
        "its own unit per second (core-cycles, FLOP, iterations): hover its name for the arithmetic.");
    const CudaDeviceInfo no_device;
    const CudaDeviceInfo& gpu = s.cuda.devices.empty()
                                    ? no_device
                                    : s.cuda.devices[size_t(std::clamp(s.device, 0, int(s.cuda.devices.size()) - 1))];
    const std::vector<SpeedupEstimate> estimates = estimate_gpu_speedup(s.cpu, gpu, s.precision);
    const double cpu_rate = std::isnan(s.cpu_iterations_per_second) ? 0.0 : s.cpu_iterations_per_second;
    const double gpu_rate = std::isnan(s.cuda_iterations_per_second) ? 0.0 : s.cuda_iterations_per_second;
    const SpeedupCheck check = check_speedup_estimates(estimates, cpu_rate, gpu_rate);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("##estimates", 5, flags)) {
        ImGui::TableSetupColumn(precision_name(s.precision), ImGuiTableColumnFlags_WidthStretch, 2.2f);
        ImGui::TableSetupColumn("CPU /s", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn("GPU /s", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn("GPU/CPU", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn("est./meas.", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableHeadersRow();
        auto number = [](double v) {
            if (!(v > 0.0)) ImGui::TextDisabled("-");
            else ImGui::Text("%.3g", v);
        };
        auto speedup = [](double v) {
            if (!(v > 0.0)) ImGui::TextDisabled("-");
            else ImGui::TextUnformatted(format_speedup(v).c_str());
        };
        for (size_t i = 0; i < estimates.size(); ++i) {
            const SpeedupEstimate& e = estimates[i];
            const EstimateCheck& c = check.estimates[i];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%s", e.name.c_str());
            const bool hovered = ImGui::IsItemHovered();
            ImGui::TableNextColumn();
            number(e.cpu_per_second);
            ImGui::TableNextColumn();
            number(e.gpu_per_second);
            ImGui::TableNextColumn();
            speedup(e.speedup);
            ImGui::TableNextColumn();
            if (c.ratio > 0.0) {
                const bool close = c.ratio < 1.5 && c.ratio > 1.0 / 1.5;
                ImGui::TextColored(close ? ImVec4(0.55f, 0.86f, 0.55f, 1.0f) : ImVec4(0.9f, 0.75f, 0.35f, 1.0f),
                                   "%.2gx", c.ratio);
            } else {
                ImGui::TextDisabled("-");
            }
            if (hovered)
                ImGui::SetTooltip("%s per second\nCPU: %s\nGPU: %s\n%s", e.unit.c_str(), e.cpu_formula.c_str(),
                                  e.gpu_formula.c_str(), c.sentence.c_str());
        }
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("measured here");
        ImGui::TableNextColumn();
        number(cpu_rate);
        ImGui::TableNextColumn();
        number(gpu_rate);
        ImGui::TableNextColumn();
        speedup(check.measured_speedup);
        ImGui::TableNextColumn();
        ImGui::EndTable();
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", check.summary.c_str());
    ImGui::PopStyleColor();
}

void draw_attributes(DevicePanelState& s) {
    if (s.cuda.devices.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("No device attributes to list: %s.",
                           s.cuda.reason.empty() ? "no CUDA device" : s.cuda.reason.c_str());
        ImGui::PopStyleColor();
        return;
    }
    if (s.cuda.devices.size() > 1) {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14.0f);
        std::string label = s.cuda.devices[size_t(s.device)].name;
        if (ImGui::BeginCombo("device", label.c_str())) {
            for (int i = 0; i < int(s.cuda.devices.size()); ++i)
                if (ImGui::Selectable((std::to_string(i) + ": " + s.cuda.devices[size_t(i)].name).c_str(),
                                      i == s.device))
                    s.device = i;
            ImGui::EndCombo();
        }
    }
    const auto& attributes = s.cuda.devices[size_t(s.device)].attributes;
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::InputTextWithHint("##filter", "filter attributes (words, e.g. \"clock rate\")", &s.filter);
    const std::vector<int> shown = filter_attributes(attributes, s.filter);
    ImGui::TextDisabled("%d of %d attributes (cudaDeviceGetAttribute)", int(shown.size()), int(attributes.size()));
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingStretchProp;
    // The rest of the tab, at least a few rows.
    const float height = std::max(ImGui::GetTextLineHeightWithSpacing() * 6.0f, ImGui::GetContentRegionAvail().y);
    if (!ImGui::BeginTable("##attributes", 2, flags, ImVec2(0.0f, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("attribute", ImGuiTableColumnFlags_WidthStretch, 3.0f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;  // only the visible rows are laid out
    clipper.Begin(int(shown.size()));
    while (clipper.Step()) {
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
            const auto& [name, value] = attributes[size_t(shown[size_t(row)])];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%d", value);
        }
    }
    ImGui::EndTable();
}

}  // namespace

void draw_device_panel(DevicePanelState& s) {
    if (!s.facts_ready) {
        ImGui::TextDisabled("Asking CUDA and the CPU...");
        return;
    }
    draw_unavailable(s);
    draw_facts(s);
    ImGui::Spacing();
    draw_estimates(s);
    ImGui::Spacing();
    draw_attributes(s);
}

}  // namespace ms
