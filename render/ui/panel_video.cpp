// panel_video.cpp: the Video panel (panel_video.h): keyframes, the path preview, the output's
// settings, and the render's progress with its latest frame.
#include "render/ui/panel_video.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "compute/system/text_format.h"
#include "compute/video/dive_plan.h"
#include "render/ui/panels.h"

namespace ms {

std::vector<Keyframe> dive_keyframes(const View& view, double seconds) {
    Keyframe start = keyframe_from_view(view, 0.0);
    // A straight dive starts at zoom 1 (or at the view's own zoom where that is shallower).
    start.zoom = view.zoom.log10() > 0.0 ? ViewZoom(1.0) : view.zoom;
    return {start, keyframe_from_view(view, std::max(seconds, 0.1))};
}

void insert_keyframe(std::vector<Keyframe>* keyframes, const Keyframe& keyframe) {
    auto at = std::lower_bound(keyframes->begin(), keyframes->end(), keyframe.time_s,
                               [](const Keyframe& k, double t) { return k.time_s < t; });
    if (at != keyframes->end() && at->time_s == keyframe.time_s) *at = keyframe;
    else keyframes->insert(at, keyframe);
}

namespace {

void sort_keyframes(std::vector<Keyframe>* keyframes) {
    std::stable_sort(keyframes->begin(), keyframes->end(),
                     [](const Keyframe& a, const Keyframe& b) { return a.time_s < b.time_s; });
}

// The output path follows the codec: "NAME.mp4" for a video, "NAME_frames/" for a PNG folder.
void match_path_to_codec(std::string* path, bool folder) {
    const bool is_folder = !path->empty() && path->back() == '/';
    if (folder == is_folder) return;
    if (folder) {
        if (path->size() > 4 && path->compare(path->size() - 4, 4, ".mp4") == 0) path->resize(path->size() - 4);
        *path += "_frames/";
    } else {
        path->pop_back();
        if (path->size() > 7 && path->compare(path->size() - 7, 7, "_frames") == 0) path->resize(path->size() - 7);
        *path += ".mp4";
    }
}

// A separator and a title (ImGui::SeparatorText's look, for ImGui versions before 1.89.6).
void section_title(const char* title) {
    ImGui::Separator();
    ImGui::TextDisabled("%s", title);
}

void draw_sentence(const std::string& text, bool error, float width) {
    if (text.empty()) return;
    ImGui::PushStyleColor(ImGuiCol_Text, error ? IM_COL32(255, 110, 110, 255) : IM_COL32(140, 220, 140, 255));
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

// The keyframe list: time (editable), zoom, iterations, centre, and a delete button a row.
void draw_keyframe_table(VideoPanelState& s) {
    if (s.keyframes.empty()) {
        ImGui::TextDisabled("No keyframes: \"Dive to here\" or \"Add keyframe\".");
        return;
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit |
                                  ImGuiTableFlags_ScrollY;
    const float rows = float(std::min<size_t>(s.keyframes.size(), 6) + 1);
    if (!ImGui::BeginTable("keyframes", 5, flags, ImVec2(0.0f, rows * ImGui::GetFrameHeightWithSpacing() + 4.0f)))
        return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("time s");
    ImGui::TableSetupColumn("zoom");
    ImGui::TableSetupColumn("iterations");
    ImGui::TableSetupColumn("centre", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("");
    ImGui::TableHeadersRow();
    int remove = -1;
    bool retimed = false;
    for (size_t i = 0; i < s.keyframes.size(); ++i) {
        Keyframe& k = s.keyframes[i];
        ImGui::PushID(int(i));
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.5f);
        ImGui::InputDouble("##time", &k.time_s, 0.0, 0.0, "%.2f");
        if (ImGui::IsItemDeactivatedAfterEdit()) retimed = true;
        k.time_s = std::max(k.time_s, 0.0);
        ImGui::TableNextColumn();
        // Six digits read at a glance; the file keeps every digit.
        if (k.zoom.fits_double()) ImGui::Text("%.6g", k.zoom.value());
        else ImGui::TextUnformatted(k.zoom.text().c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%lld", (long long)k.max_iterations);
        ImGui::TableNextColumn();
        ImGui::Text("%.18s, %.18s", k.center_re.c_str(), k.center_im.c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", k.center_re.c_str(), k.center_im.c_str());
        ImGui::TableNextColumn();
        if (ImGui::SmallButton("x")) remove = int(i);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Delete this keyframe");
        ImGui::PopID();
    }
    ImGui::EndTable();
    if (remove >= 0) s.keyframes.erase(s.keyframes.begin() + remove);
    if (retimed) sort_keyframes(&s.keyframes);
}

void draw_progress(VideoPanelState& s, float width) {
    char label[64];
    std::snprintf(label, sizeof label, "%lld / %lld", (long long)s.frames_done, (long long)s.frames_total);
    const double share = s.frames_total > 0 ? double(s.frames_done) / double(s.frames_total) : 0.0;
    ImGui::ProgressBar(float(share), ImVec2(width - ImGui::GetFontSize() * 5.0f, 0.0f), label);
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) s.cancel = true;
    ImGui::Text("%s: %s frames/s, ETA %s", s.stage.empty() ? "rendering" : s.stage.c_str(),
                format_per_second(s.frames_per_second).c_str(),
                s.eta_s > 0.0 ? format_duration_ms(1000.0 * s.eta_s).c_str() : "-");
}

void draw_latest_frame(const VideoPanelState& s, float width) {
    if (s.preview_texture == 0 || s.preview_width <= 0) return;
    // As large as the panel's width and 14 lines of text allow (a small video's frames grow).
    const float fit = std::min(width / float(s.preview_width), ImGui::GetFontSize() * 14.0f / float(s.preview_height));
    ImGui::Text("Frame %lld of %lld:", (long long)s.preview_frame + 1, (long long)s.frames_total);
    ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<uintptr_t>(s.preview_texture)),
                 ImVec2(float(s.preview_width) * fit, float(s.preview_height) * fit));
}

}  // namespace

void draw_video_panel(VideoPanelState& s, bool in_column) {
    s.show_preview = s.even_pace = s.save = s.load = s.render = s.cancel = false;
    if (!s.open || !in_column) return;
    if (!ImGui::BeginTabItem("Video", &s.open, s.raise ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None))
        return;
    s.raise = false;
    const float width = std::min(ImGui::GetFontSize() * 28.0f, ImGui::GetContentRegionAvail().x);
    const float number_width = ImGui::GetFontSize() * 5.0f;

    ImGui::BeginDisabled(s.running);
    section_title("Path");
    if (ImGui::Button("Dive to here")) {
        s.keyframes = dive_keyframes(s.view, s.length_s);
        s.add_time_s = s.keyframes.back().time_s + 2.0;
        s.preview_s = 0.0f;
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("A straight dive: the current centre from zoom 1 down to the current view, over the length");
    ImGui::SameLine();
    if (ImGui::Button("Add keyframe")) {
        insert_keyframe(&s.keyframes, keyframe_from_view(s.view, s.add_time_s));
        s.add_time_s += 2.0;
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(number_width);
    ImGui::InputDouble("at s", &s.add_time_s, 0.0, 0.0, "%.2f");
    s.add_time_s = std::max(s.add_time_s, 0.0);
    ImGui::SetNextItemWidth(number_width);
    ImGui::InputDouble("length s", &s.length_s, 0.0, 0.0, "%.1f");
    s.length_s = std::clamp(s.length_s, 0.1, 1e6);
    ImGui::SameLine();
    if (ImGui::Button("Even pace")) s.even_pace = true;
    help_marker("Retimes the keyframes over the length in proportion to the flight path between them, so the "
                "camera flies at one speed (docs/keyframes.md).");
    draw_keyframe_table(s);

    // The path preview: the window shows the planned frame at the slider's time.
    if (s.plan_problem.empty() && s.plan_seconds > 0.0) {
        ImGui::SetNextItemWidth(width - ImGui::GetFontSize() * 4.0f);
        if (ImGui::SliderFloat("preview", &s.preview_s, 0.0f, float(s.plan_seconds), "%.2f s")) s.show_preview = true;
        ImGui::TextDisabled("%lld frames, %.2f s", (long long)s.plan_frames, s.plan_seconds);
    } else if (!s.keyframes.empty()) {
        draw_sentence(s.plan_problem, true, width);
    }

    section_title("Output");
    ImGui::SetNextItemWidth(number_width * 2.0f);
    int size[2] = {s.width, s.height};
    if (ImGui::InputInt2("size", size)) {
        // yuv420p needs even sides (the video job refuses odd ones with a sentence).
        s.width = std::clamp(size[0], 2, 16384);
        s.height = std::clamp(size[1], 2, 16384);
    }
    ImGui::SameLine();
    if (ImGui::Button("360p")) s.width = 640, s.height = 360;
    ImGui::SameLine();
    if (ImGui::Button("1080p")) s.width = 1920, s.height = 1080;
    ImGui::SetNextItemWidth(number_width);
    ImGui::InputInt("fps", &s.fps);
    s.fps = std::clamp(s.fps, 1, kVideoMaxFps);
    ImGui::SetNextItemWidth(width * 0.6f);
    if (ImGui::Combo("codec", &s.codec, kVideoCodecNames, IM_ARRAYSIZE(kVideoCodecNames)))
        match_path_to_codec(&s.output_path, s.codec == 2);
    ImGui::SetNextItemWidth(width * 0.8f);
    ImGui::InputText("file", &s.output_path);

    section_title("Keyframe file");
    ImGui::SetNextItemWidth(width * 0.6f);
    ImGui::InputText("##keyframes", &s.keyframes_path);
    ImGui::SameLine();
    if (ImGui::Button("Save")) s.save = true;
    ImGui::SameLine();
    if (ImGui::Button("Load")) s.load = true;
    ImGui::EndDisabled();

    ImGui::Separator();
    if (s.running) {
        draw_progress(s, width);
    } else {
        ImGui::BeginDisabled(!s.plan_problem.empty() || s.keyframes.empty());
        if (ImGui::Button("Render")) s.render = true;
        ImGui::EndDisabled();
    }
    draw_sentence(s.result, s.result_is_error, width);
    draw_latest_frame(s, width);
    ImGui::EndTabItem();
}

}  // namespace ms
