// panel_status.cpp: the status line along the bottom of the window: backend and render path,
// precision, frame times, resolution; why a faster path is not used; the latest message.
// It is always visible: its first line is cut with "..." where the window is too narrow (the
// whole line shows as a tooltip), and the lines below it wrap; status_line_height() tells the
// layout how tall it is, so no panel covers it.
#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "render/ui/panels.h"

namespace ms {

namespace {

const char* kProgressFormat = "%s %.0f%%";

float progress_bar_width() { return ImGui::GetFontSize() * 10.0f; }

// The lines below the first, in their colours.
struct StatusExtra {
    const std::string* text;
    ImU32 colour;
};
int status_extras(const StatusLineState& s, StatusExtra out[3]) {
    static const std::string beyond = kBeyondFp64Message;
    int n = 0;
    if (!s.fallback_reason.empty()) out[n++] = {&s.fallback_reason, IM_COL32(230, 190, 90, 255)};
    if (s.beyond_fp64) out[n++] = {&beyond, IM_COL32(255, 110, 110, 255)};
    if (!s.message.empty())
        out[n++] = {&s.message, s.message_is_error ? IM_COL32(255, 110, 110, 255) : IM_COL32(140, 220, 140, 255)};
    return n;
}

}  // namespace

std::string status_line_text(const StatusLineState& s) {
    std::string backend = s.backend == Backend::Cuda ? "CUDA" : "CPU";
    if (s.backend == Backend::Cpu && !s.cuda_unavailable.empty()) backend = "CPU (no GPU: " + s.cuda_unavailable + ")";
    char compute[32] = "-";
    if (s.compute_ms > 0.0) std::snprintf(compute, sizeof compute, "%.2f ms", s.compute_ms);
    char rest[256];
    // The UI's own time per frame: the window draws only when something changes, so a frame
    // rate would count the idle waits.
    const char* precision = !s.deep                                  ? precision_name(s.precision)
                            : s.precision == Precision::DeepFloatExp ? "perturbation floatexp"
                                                                     : "perturbation double";
    // The zoom in 4 digits: a double's %g while it is one, mantissa and decimal exponent past it.
    char zoom[48];
    if (s.zoom.fits_double()) std::snprintf(zoom, sizeof zoom, "%.4g", s.zoom.value());
    else std::snprintf(zoom, sizeof zoom, "%.4gE%lld", s.zoom.deep().mantissa, (long long)s.zoom.deep().exponent10);
    std::snprintf(
        rest, sizeof rest, " | path: %s | %s | frame %s | UI %.1f ms/frame | %dx%d | zoom %s | %lld iterations",
        render_path_name(s.path), precision, compute, s.ui_frame_ms, s.width, s.height, zoom, (long long)s.iterations);
    std::string text = backend + rest;
    if (s.deep && s.deep_frame_done) {
        const DeepFrameStats& d = s.deep_stats;
        char deep[256];
        // Digits: the reference's precision in decimal (bits * log10 2).
        std::snprintf(
            deep, sizeof deep,
            " | reference %lld digits, %lld iterations%s, %s | BLA %d levels (%s%s), %.1f%% of iterations skipped",
            (long long)std::llround(double(d.precision_bits) * 0.30102999566398119521),
            (long long)d.reference_iterations, d.reference_period > 0 ? " (stopped at a period)" : "",
            d.reference_cached ? "cached"
                               : (std::to_string(int64_t(std::llround(d.reference_ms))) + " ms, new").c_str(),
            d.bla_levels, d.bla_on_device ? "GPU" : "CPU", d.bla_cached ? ", cached" : "",
            d.iterations > 0 ? 100.0 * double(d.bla_iterations) / double(d.iterations) : 0.0);
        text += deep;
        if (s.deep_devices > 1) text += " | spread over " + std::to_string(s.deep_devices) + " GPUs";
        // A whole-pixel pan (deep_pan.h): the last frame's pixels moved, only the strips computed.
        const double pixels = double(s.width) * double(s.height);
        if (d.reused_pixels > 0 && pixels > 0.0) {
            char pan[32];
            if (d.pan_y == 0) std::snprintf(pan, sizeof pan, "%d px", std::abs(d.pan_x));
            else if (d.pan_x == 0) std::snprintf(pan, sizeof pan, "%d px", std::abs(d.pan_y));
            else std::snprintf(pan, sizeof pan, "%d, %d px", d.pan_x, d.pan_y);
            std::snprintf(deep, sizeof deep, " | reused %.1f%% of pixels (panned %s)",
                          100.0 * double(d.reused_pixels) / pixels, pan);
            text += deep;
        }
    }
    return text;
}

float status_line_height(const StatusLineState& s, float width) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float wrap = std::max(1.0f,
                                width - 2.0f * style.WindowPadding.x - ImGui::GetFrameHeight() - style.ItemSpacing.x);
    float height = 2.0f * style.WindowPadding.y + ImGui::GetFrameHeight();
    StatusExtra extras[3];
    for (int i = 0, n = status_extras(s, extras); i < n; ++i)
        height += style.ItemSpacing.y + ImGui::CalcTextSize(extras[i].text->c_str(), nullptr, false, wrap).y;
    return height;
}

void draw_status_line(StatusLineState& s, const PanelRect& area) {
    s.dismiss_message = false;
    ImGui::SetNextWindowPos(ImVec2(area.x, area.y));
    ImGui::SetNextWindowSize(ImVec2(area.width, area.height));
    ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                             ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                             ImGuiWindowFlags_NoNav;
    if (ImGui::Begin("##status", nullptr, flags)) {
        // The first line, cut to fit beside the progress bar, whole in the tooltip.
        const std::string text = status_line_text(s);
        float room = ImGui::GetContentRegionAvail().x;
        if (s.rendering) room -= progress_bar_width() + ImGui::GetStyle().ItemSpacing.x;
        std::string shown = text;
        if (ImGui::CalcTextSize(text.c_str()).x > room) {
            const float dots = ImGui::CalcTextSize("...").x;
            size_t fit = text.size();
            while (fit > 0 && ImGui::CalcTextSize(text.c_str(), text.c_str() + fit).x + dots > room) --fit;
            shown = text.substr(0, fit) + "...";
        }
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(shown.c_str());
        if (shown.size() != text.size() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
        if (s.rendering) {
            ImGui::SameLine();
            char label[32];
            std::snprintf(label, sizeof label, kProgressFormat,
                          s.progress_label.empty() ? "rendering" : s.progress_label.c_str(), 100.0 * s.progress);
            ImGui::ProgressBar(float(s.progress), ImVec2(progress_bar_width(), 0.0f), label);
        }
        // The warnings and the message, wrapped; the message can be dismissed.
        StatusExtra extras[3];
        for (int i = 0, n = status_extras(s, extras); i < n; ++i) {
            const bool message = extras[i].text == &s.message;
            if (message && ImGui::SmallButton("x")) s.dismiss_message = true;
            if (message) ImGui::SameLine();
            ImGui::PushStyleColor(ImGuiCol_Text, extras[i].colour);
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextUnformatted(extras[i].text->c_str());
            ImGui::PopTextWrapPos();
            ImGui::PopStyleColor();
        }
    }
    ImGui::End();
}

}  // namespace ms
