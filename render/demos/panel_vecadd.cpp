// panel_vecadd.cpp: the Vector-add demo panel (see panel_vecadd.h): the machine, the size (a
// log slider from 400 to what memory allows), Run and Sweep with a progress bar and Cancel, the
// table of variants at one size, Save CSV. The sweep's plots are panel_vecadd_sweep.cpp.
#include "render/demos/panel_vecadd.h"
#include "compute/system/text_format.h"
#include "render/ui/panels.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "render/demos/panel_vecadd_parts.h"
#include "render/ui/plot.h"

namespace ms {

namespace {

std::string format_bytes(double bytes) {
    if (bytes >= 1e9) return printf_text("%.1f GB", bytes / 1e9);
    if (bytes >= 1e6) return printf_text("%.1f MB", bytes / 1e6);
    if (bytes >= 1e3) return printf_text("%.1f KB", bytes / 1e3);
    return printf_text("%.0f bytes", bytes);
}

void coloured_wrapped(ImU32 colour, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

// A small line-and-marker swatch, as in the plot's legend.
void variant_swatch(VecAddVariant v) {
    const VecAddVariantStyle st = vecadd_variant_style(v);
    const float h = ImGui::GetTextLineHeight(), w = 1.6f * h;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(w, h));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float mid = at.y + 0.5f * h + 1.0f;
    dl->AddLine(ImVec2(at.x, mid), ImVec2(at.x + w, mid), st.colour, 2.0f);
    draw_plot_marker(dl, ImVec2(at.x + 0.5f * w, mid), st.marker, st.colour);
    ImGui::SameLine();
}

void draw_machine(const VectorAddDemo& s) {
    if (!s.machine_known) {
        ImGui::TextDisabled("Measuring this machine (cores, memory, the GPU and its host link)...");
        return;
    }
    const VecAddHost& h = s.machine.host;
    ImGui::Text("CPU: %d threads, SIMD %s, %s of memory available", h.threads, h.simd_target.c_str(),
                format_bytes(double(h.available_memory_bytes)).c_str());
    const VecAddDevice& d = s.machine.device;
    if (!d.available) {
        coloured_wrapped(kVecAddWarningColour, "GPU: none (" + d.reason + "); the GPU rows say so.");
        return;
    }
    ImGui::Text("GPU: %s, %d SMs, %s free, memory %.0f GB/s (theoretical)", d.name.c_str(), d.sm_count,
                format_bytes(double(d.free_memory_bytes)).c_str(), d.memory_gb_per_second);
    ImGui::Text("Host link: %s, measured %.1f GB/s to the GPU, %.1f GB/s back",
                d.pcie.empty() ? "PCIe (generation unknown)" : d.pcie.c_str(), d.link_h2d_gb_per_second,
                d.link_d2h_gb_per_second);
}

// The size: a log slider from 400 to what memory allows, a field for typing any size (also
// one past memory, which then says why it cannot run), and shortcuts.
void draw_size(VectorAddDemo& s, const std::vector<VecAddVariant>& variants) {
    const bool busy = s.task == VecAddTask::Run || s.task == VecAddTask::Sweep;
    const float font = ImGui::GetFontSize();
    ImGui::BeginDisabled(busy || !s.machine_known);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Size");
    ImGui::SameLine();
    const ImU64 low = kVecAddPanelMinElements;
    const ImU64 high = std::max<ImU64>(low + 1, s.max_elements);
    ImU64 value = s.elements;
    const std::string shown = vecadd_format_elements(double(s.elements)) + " elements";
    ImGui::SetNextItemWidth(font * 18.0f);
    if (ImGui::SliderScalar("##size", ImGuiDataType_U64, &value, &low, &high, shown.c_str(),
                            ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_NoInput)) {
        s.elements = size_t(value);
        s.size_text.clear();
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(font * 7.0f);
    if (ImGui::InputTextWithHint("##typed", "1e6, 2^28", &s.size_text, ImGuiInputTextFlags_EnterReturnsTrue) ||
        ImGui::IsItemDeactivatedAfterEdit()) {
        size_t n = 0;
        if (const std::string why = vecadd_parse_size(s.size_text, &n); why.empty()) {
            s.elements = n;
            s.message.clear();
        } else if (!s.size_text.empty()) {
            s.message = "Size not changed: " + why + ".";
            s.message_is_error = true;
        }
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Type any size (400, 1e6, 2^28) and press Enter");
    struct Shortcut {
        const char* label;
        size_t n;
    };
    for (Shortcut sc : {Shortcut{"400", 400}, Shortcut{"1M", 1000000}, Shortcut{"max", s.max_elements}}) {
        ImGui::SameLine();
        ImGui::BeginDisabled(sc.n == 0);
        if (ImGui::SmallButton(sc.label)) {
            s.elements = sc.n;
            s.size_text.clear();
        }
        ImGui::EndDisabled();
    }
    ImGui::EndDisabled();
    ImGui::TextDisabled("%zu elements: 3 arrays of %s; the ticked variants need %s of host memory in all", s.elements,
                        format_bytes(4.0 * double(s.elements)).c_str(),
                        format_bytes(double(vecadd_host_bytes_needed(s.elements, variants))).c_str());
    if (s.machine_known) {
        const std::string why = vecadd_check_size(s.machine, s.elements, variants);
        if (!why.empty()) coloured_wrapped(kVecAddErrorColour, "Too large for this machine: " + why + ".");
    }
}

// Run / Sweep, or the progress bar and Cancel while a task runs; then the latest message.
void draw_actions(VectorAddDemo& s, const std::vector<VecAddVariant>& variants) {
    const float font = ImGui::GetFontSize();
    if (s.task == VecAddTask::Run || s.task == VecAddTask::Sweep) {
        char percent[16];
        std::snprintf(percent, sizeof percent, "%.0f%%", 100.0 * s.progress);
        ImGui::PushStyleColor(ImGuiCol_PlotHistogram, IM_COL32(66, 130, 210, 255));  // white text stays readable
        ImGui::ProgressBar(float(s.progress), ImVec2(font * 20.0f, 0.0f), percent);
        ImGui::PopStyleColor();
        ImGui::SameLine();
        ImGui::AlignTextToFramePadding();
        ImGui::Text("%s: measuring %s elements", s.task == VecAddTask::Run ? "Run" : "Sweep",
                    vecadd_format_elements(double(s.progress_elements)).c_str());
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) s.cancel = true;
    } else {
        const bool fits = s.machine_known && vecadd_check_size(s.machine, s.elements, variants).empty();
        const bool ready = s.machine_known && s.task == VecAddTask::None && !variants.empty();
        ImGui::BeginDisabled(!ready || !fits);
        if (ImGui::Button("Run")) s.run = true;
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("Measure the ticked variants at %s elements (median of 7 after a warm-up)",
                              vecadd_format_elements(double(s.elements)).c_str());
        ImGui::SameLine(0.0f, 2.0f * ImGui::GetStyle().ItemSpacing.x);
        ImGui::BeginDisabled(!ready);
        if (ImGui::Button("Sweep")) s.start_sweep = true;
        ImGui::SameLine();
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted("up to");
        ImGui::SameLine();
        const ImU64 low = 1000, high = std::max<ImU64>(low + 1, s.max_elements);
        ImU64 top = s.sweep_max_elements == 0 ? high : std::min<ImU64>(s.sweep_max_elements, high);
        const std::vector<size_t> sizes = vecadd_default_sizes(size_t(top));
        const std::string shown = vecadd_format_elements(double(top)) + " (" + std::to_string(sizes.size()) + " sizes)";
        ImGui::SetNextItemWidth(font * 12.0f);
        if (ImGui::SliderScalar("##sweep_top", ImGuiDataType_U64, &top, &low, &high, shown.c_str(),
                                ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_NoInput))
            s.sweep_max_elements = top >= high ? 0 : size_t(top);
        ImGui::EndDisabled();
        help_marker(
            "The sweep measures every ticked variant at 100, 200, 400, 1000, ... elements up to this "
            "size (at most 2^28, and what memory allows), then draws time and bandwidth against "
            "size. The measurements share the CPU and GPU with the picture: leave it still meanwhile.");
    }
    if (s.task == VecAddTask::MachineInfo) ImGui::TextDisabled("Run and Sweep wait for the machine's facts.");
    if (!s.message.empty()) coloured_wrapped(s.message_is_error ? kVecAddErrorColour : kVecAddGoodColour, s.message);
}

// The rows the table shows: the latest Run at the chosen size, else the sweep's rows at that
// size, else the latest Run whatever its size. `source` says which.
std::vector<VecAddResult> table_rows(const VectorAddDemo& s, std::string* source) {
    std::vector<VecAddResult> rows;
    const bool run_here = !s.run_rows.empty() && s.run_rows.front().elements == s.elements;
    if (!run_here) {
        for (const VecAddResult& r : s.sweep.results)
            if (r.elements == s.elements) rows.push_back(r);
        if (!rows.empty()) *source = "from the sweep";
    }
    if (rows.empty() && !s.run_rows.empty()) {
        rows = s.run_rows;
        *source = s.task == VecAddTask::Run ? "measuring..." : "the latest Run";
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const VecAddResult& a, const VecAddResult& b) { return int(a.variant) < int(b.variant); });
    return rows;
}

// One row per variant: its checkbox (measured or not), then the results at the chosen size.
void draw_variant_table(VectorAddDemo& s) {
    std::string source;
    const std::vector<VecAddResult> rows = table_rows(s, &source);
    if (rows.empty())
        ImGui::TextDisabled("Tick the variants to measure; Run measures them at %s elements, Sweep over many sizes.",
                            vecadd_format_elements(double(s.elements)).c_str());
    else
        ImGui::Text("At %s elements (%s)", vecadd_format_elements(double(rows.front().elements)).c_str(),
                    source.c_str());
    const bool busy = s.task == VecAddTask::Run || s.task == VecAddTask::Sweep;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_BordersOuterH | ImGuiTableFlags_SizingFixedFit;
    if (ImGui::BeginTable("##results", 6, flags)) {
        ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("time");
        ImGui::TableSetupColumn("GB/s");
        ImGui::TableSetupColumn("% of limit");
        ImGui::TableSetupColumn("vs 1 thread");
        ImGui::TableSetupColumn("max error");
        ImGui::TableHeadersRow();
        for (VecAddVariant v : vecadd_all_variants()) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushID(int(v));
            ImGui::BeginDisabled(busy);
            ImGui::Checkbox("##on", &s.variant_enabled[int(v)]);
            ImGui::EndDisabled();
            ImGui::PopID();
            ImGui::SameLine();
            variant_swatch(v);
            ImGui::TextUnformatted(vecadd_variant_label(v));
            if (ImGui::IsItemHovered()) {
                ImGui::BeginTooltip();
                ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
                ImGui::TextUnformatted(vecadd_variant_style(v).help);
                ImGui::PopTextWrapPos();
                ImGui::EndTooltip();
            }
            const auto found = std::find_if(rows.begin(), rows.end(),
                                            [v](const VecAddResult& r) { return r.variant == v; });
            if (found == rows.end()) continue;
            const VecAddResult& r = *found;
            ImGui::TableNextColumn();
            if (!r.ok) {
                ImGui::PushStyleColor(ImGuiCol_Text, kVecAddWarningColour);
                ImGui::TextUnformatted(r.error == "cancelled" ? "cancelled" : "not measured");
                ImGui::PopStyleColor();
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.error.c_str());
                continue;
            }
            ImGui::TextUnformatted(format_duration_ms(r.time_ms).c_str());
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("median of %d; fastest %s; %s per call as the host sees it", r.repeats,
                                  format_duration_ms(r.min_time_ms).c_str(), format_duration_ms(r.wall_ms).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(vecadd_format_gbps(r.gb_per_second).c_str());
            ImGui::TableNextColumn();
            if (r.limit_gb_per_second > 0) {
                ImGui::Text("%.0f%% of %s", r.percent_of_limit, r.limit_name.c_str());
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip("%s: %.1f GB/s", r.limit_name.c_str(), r.limit_gb_per_second);
            } else {
                ImGui::TextDisabled("-");
            }
            ImGui::TableNextColumn();
            if (r.speedup_vs_one_thread > 0) {
                const double x = r.speedup_vs_one_thread;
                ImGui::PushStyleColor(ImGuiCol_Text, x >= 1.0 ? kVecAddGoodColour : kVecAddErrorColour);
                ImGui::TextUnformatted(printf_text(x < 0.01 ? "%.2g\u00d7" : "%.3g\u00d7", x).c_str());
                ImGui::PopStyleColor();
            } else {
                ImGui::TextDisabled("-");
            }
            ImGui::TableNextColumn();
            ImGui::PushStyleColor(ImGuiCol_Text, r.max_abs_error == 0.0 ? kVecAddGoodColour : kVecAddErrorColour);
            ImGui::TextUnformatted(r.max_abs_error == 0.0 ? "0" : printf_text("%.2g", r.max_abs_error).c_str());
            ImGui::PopStyleColor();
        }
        ImGui::EndTable();
    }
    // Why rows were not measured, once per reason ("GPU rows: built without CUDA").
    std::vector<std::string> reasons;
    for (const VecAddResult& r : rows)
        if (!r.ok && r.error != "cancelled" && std::find(reasons.begin(), reasons.end(), r.error) == reasons.end())
            reasons.push_back(r.error);
    for (const std::string& why : reasons) {
        std::string who;
        bool all_gpu = true;
        for (const VecAddResult& r : rows)
            if (!r.ok && r.error == why) {
                all_gpu &= vecadd_variant_is_gpu(r.variant);
                who += std::string(who.empty() ? "" : ", ") + vecadd_variant_label(r.variant);
            }
        coloured_wrapped(kVecAddWarningColour, (all_gpu ? std::string("GPU rows") : who) + ": " + why + ".");
    }
}

void draw_csv(VectorAddDemo& s) {
    const bool has_results = !s.sweep.results.empty() || !s.run_rows.empty();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("CSV");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 22.0f);
    ImGui::InputText("##csv", &s.csv_path);
    ImGui::SameLine();
    ImGui::BeginDisabled(!has_results || s.csv_path.empty());
    if (ImGui::Button("Save CSV")) s.save_csv = true;
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(!has_results               ? "Run or Sweep first"
                          : !s.sweep.results.empty() ? "Every variant and size of the sweep, one row each"
                                                     : "The latest Run's rows");
}

}  // namespace

// How each variant looks in the table, the plots and the legend: CPU rows warm, GPU rows cool,
// the memcpy reference grey and dashed; distinct markers so the lines read without colour too.
VecAddVariantStyle vecadd_variant_style(VecAddVariant v) {
    switch (v) {
    case VecAddVariant::CpuOneThread:
        return {IM_COL32(255, 165, 60, 255), PlotMarker::Circle,
                "A plain loop on one core (the compiler vectorises it). The baseline of the speedups "
                "and the reference every other variant is checked against."};
    case VecAddVariant::CpuAllCores:
        return {IM_COL32(245, 95, 110, 255), PlotMarker::Square,
                "Every core (OpenMP), SIMD chosen at run time (Highway). Waking the threads costs "
                "microseconds, so it needs large arrays to pay off."};
    case VecAddVariant::GpuKernelOnly:
        return {IM_COL32(120, 215, 90, 255), PlotMarker::Diamond,
                "a and b already on the GPU: one kernel launch, timed with CUDA events. Its limit is "
                "the device memory's bandwidth."};
    case VecAddVariant::GpuPageable:
        return {IM_COL32(190, 140, 255, 255), PlotMarker::TriangleDown,
                "Copy a and b from ordinary (pageable) host memory, launch, copy c back. The driver "
                "stages pageable memory through a pinned buffer of its own."};
    case VecAddVariant::GpuPinned:
        return {IM_COL32(80, 165, 255, 255), PlotMarker::TriangleUp,
                "The same with page-locked (pinned) host memory: the copies use the host link's "
                "full rate."};
    case VecAddVariant::GpuStreams:
        return {IM_COL32(60, 215, 215, 255), PlotMarker::Plus,
                "Pinned memory in chunks over several CUDA streams: one chunk's kernel overlaps the "
                "next chunk's copies, and both directions of the link run at once."};
    case VecAddVariant::GpuDeviceCopy:
        return {IM_COL32(170, 170, 170, 255), PlotMarker::Cross,
                "Reference: cudaMemcpy of one array from device to device (8 bytes per element): "
                "about the best the device memory does in practice."};
    }
    return {IM_COL32(255, 255, 255, 255), PlotMarker::Circle, ""};
}

std::string vecadd_format_gbps(double v) { return v >= 1000 ? printf_text("%.0f", v) : printf_text("%.3g", v); }

std::vector<VecAddVariant> vecadd_enabled_variants(const VectorAddDemo& demo) {
    std::vector<VecAddVariant> variants;
    for (VecAddVariant v : vecadd_all_variants())
        if (demo.variant_enabled[int(v)]) variants.push_back(v);
    return variants;
}

void draw_vector_add_panel(VectorAddDemo& s, bool in_column) {
    s.run = s.start_sweep = s.cancel = s.save_csv = false;
    if (!s.open || !in_column) return;
    if (!ImGui::BeginTabItem("Vector add", &s.open, s.raise ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None))
        return;
    s.raise = false;
    ImGui::BeginChild("##vecadd");  // scrolls inside the tab, under the tab bar
    ImGui::TextUnformatted("Vector add: when does the GPU win?");
    const std::vector<VecAddVariant> variants = vecadd_enabled_variants(s);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped(
        "c = a + b on float32 arrays: each element reads 8 bytes and writes 4, so every variant is "
        "limited by memory, not arithmetic. Each result is checked against one CPU thread's.");
    ImGui::PopStyleColor();
    draw_machine(s);
    ImGui::Separator();
    draw_size(s, variants);
    draw_actions(s, variants);
    draw_variant_table(s);
    if (ImGui::CollapsingHeader("Sweep: time and bandwidth against size", ImGuiTreeNodeFlags_DefaultOpen))
        draw_vector_add_sweep(s);
    ImGui::Separator();
    draw_csv(s);
    ImGui::EndChild();
    ImGui::EndTabItem();
}

}  // namespace ms
