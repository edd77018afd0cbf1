// panel_palette.cpp: the palette editor (panel_palette.h): stops, preview, files, KF import,
// colour cycling.
#include "render/ui/panel_palette.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "render/ui/panels.h"

namespace ms {

namespace {

// The gradient as make_palette_table() samples it, drawn as a strip of the table's colours,
// with a tick under each stop.
void draw_preview(const Palette& palette, float width, float height) {
    const PaletteTable table = make_palette_table(palette);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const int columns = std::max(1, int(width));
    for (int x = 0; x < columns; ++x) {
        const uint32_t c = table.rgba[size_t(x) * kPaletteTableSize / columns];
        draw->AddRectFilled(ImVec2(origin.x + x, origin.y), ImVec2(origin.x + x + 1, origin.y + height),
                            IM_COL32(c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff, 255));
    }
    for (const PaletteStop& s : palette.stops) {
        const float x = origin.x + float(s.position) * width;
        draw->AddTriangleFilled(ImVec2(x, origin.y + height), ImVec2(x - 5, origin.y + height + 8),
                                ImVec2(x + 5, origin.y + height + 8), IM_COL32(230, 230, 230, 255));
    }
    ImGui::Dummy(ImVec2(width, height + 10));
}

bool sort_stops(Palette& palette) {
    const bool sorted = std::is_sorted(
        palette.stops.begin(), palette.stops.end(),
        [](const PaletteStop& a, const PaletteStop& b) { return a.position < b.position; });
    if (!sorted)
        std::stable_sort(palette.stops.begin(), palette.stops.end(),
                         [](const PaletteStop& a, const PaletteStop& b) { return a.position < b.position; });
    return !sorted;
}

void set_message(PaletteEditorState& s, const std::string& text, bool error) {
    s.message = text;
    s.message_is_error = error;
}

}  // namespace

void draw_palette_editor(PaletteEditorState& s, bool in_column) {
    s.edited = s.load = s.save = s.import_kfr = false;
    if (!s.open || !in_column) return;
    if (!ImGui::BeginTabItem("Palette", &s.open, s.raise ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None))
        return;
    s.raise = false;
    const float width = std::min(ImGui::GetFontSize() * 28.0f, ImGui::GetContentRegionAvail().x);
    if (s.palette.stops.size() < 2) {  // not loaded yet (carry_out_palette_editor loads the view's)
        ImGui::TextDisabled("No palette loaded.");
        ImGui::EndTabItem();
        return;
    }
    ImGui::Text("%s: %zu stops", s.palette.name.c_str(), s.palette.stops.size());
    draw_preview(s.palette, width, ImGui::GetFontSize() * 2.0f);

    // The stops: position, colour, remove. A gradient keeps at least two.
    int remove = -1;
    if (ImGui::BeginChild("stops", ImVec2(width, ImGui::GetFontSize() * 12.0f), true)) {
        for (int i = 0; i < int(s.palette.stops.size()); ++i) {
            PaletteStop& stop = s.palette.stops[i];
            ImGui::PushID(i);
            float position = float(stop.position);
            ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
            if (ImGui::SliderFloat("##position", &position, 0.0f, 0.999f, "%.3f")) {
                stop.position = std::clamp(double(position), 0.0, 0.999);
                s.edited = true;
            }
            ImGui::SameLine();
            float rgb[3] = {stop.r / 255.0f, stop.g / 255.0f, stop.b / 255.0f};
            if (ImGui::ColorEdit3("##colour", rgb, ImGuiColorEditFlags_NoInputs)) {
                stop.r = uint8_t(std::lround(std::clamp(rgb[0], 0.0f, 1.0f) * 255.0f));
                stop.g = uint8_t(std::lround(std::clamp(rgb[1], 0.0f, 1.0f) * 255.0f));
                stop.b = uint8_t(std::lround(std::clamp(rgb[2], 0.0f, 1.0f) * 255.0f));
                s.edited = true;
            }
            ImGui::SameLine();
            ImGui::BeginDisabled(s.palette.stops.size() <= 2);
            if (ImGui::SmallButton("remove")) remove = i;
            ImGui::EndDisabled();
            ImGui::PopID();
        }
    }
    ImGui::EndChild();
    if (remove >= 0) {
        s.palette.stops.erase(s.palette.stops.begin() + remove);
        s.edited = true;
    }
    if (ImGui::Button("Add stop") && s.palette.stops.size() < size_t(kPaletteMaxStops)) {
        // Halfway along the widest gap, in the colour the gradient has there.
        const auto& st = s.palette.stops;
        size_t widest = 0;
        double gap = -1.0;
        for (size_t i = 0; i < st.size(); ++i) {
            const double next = i + 1 < st.size() ? st[i + 1].position : st[0].position + 1.0;
            if (next - st[i].position > gap) gap = next - st[i].position, widest = i;
        }
        double position = st[widest].position + gap / 2.0;
        position -= std::floor(position);
        const uint32_t c = make_palette_table(s.palette).rgba[size_t(position * kPaletteTableSize) % kPaletteTableSize];
        s.palette.stops.push_back({position, uint8_t(c & 0xff), uint8_t((c >> 8) & 0xff), uint8_t((c >> 16) & 0xff)});
        s.edited = true;
    }
    ImGui::SameLine();
    float interior[3] = {s.palette.interior_r / 255.0f, s.palette.interior_g / 255.0f, s.palette.interior_b / 255.0f};
    if (ImGui::ColorEdit3("interior", interior, ImGuiColorEditFlags_NoInputs)) {
        s.palette.interior_r = uint8_t(std::lround(interior[0] * 255.0f));
        s.palette.interior_g = uint8_t(std::lround(interior[1] * 255.0f));
        s.palette.interior_b = uint8_t(std::lround(interior[2] * 255.0f));
        s.edited = true;
    }
    if (sort_stops(s.palette)) s.edited = true;

    ImGui::Separator();
    ImGui::Checkbox("cycle colours", &s.cycling);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    ImGui::SliderFloat("cycles/s", &s.cycles_per_second, -2.0f, 2.0f, "%.2f");
    help_marker("Turns the palette's offset (View panel) at this speed: the colours flow through the picture.");

    ImGui::Separator();
    ImGui::SetNextItemWidth(width - ImGui::GetFontSize() * 7.0f);
    ImGui::InputText("##path", &s.path);
    ImGui::SameLine();
    if (ImGui::Button("Load")) s.load = true;
    ImGui::SameLine();
    if (ImGui::Button("Save")) s.save = true;
    help_marker(
        "The format of assets/palettes/*.txt. A PNG names its palette by the file's name: save into "
        "assets/palettes/ to reopen the PNG with these colours.");
    ImGui::SetNextItemWidth(width - ImGui::GetFontSize() * 7.0f);
    ImGui::InputText("##kfr", &s.kfr_path);
    ImGui::SameLine();
    if (ImGui::Button("Import .kfr")) s.import_kfr = true;
    help_marker("Kalles Fraktaler's Colors: line (R,G,B triples) as equally spaced stops.");
    if (!s.message.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text,
                              s.message_is_error ? IM_COL32(255, 110, 110, 255) : IM_COL32(140, 220, 140, 255));
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
        ImGui::TextUnformatted(s.message.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
    }
    ImGui::EndTabItem();
}

bool carry_out_palette_editor(PaletteEditorState& s, View* view, PaletteTable* table, std::string* table_name,
                              double seconds) {
    bool redraw = false;
    // The view names another palette (the View panel's combo, a dropped PNG): edit that one.
    if (view->palette != s.loaded_name) {
        s.loaded_name = view->palette;
        try {
            s.palette = load_palette(view->palette);
        } catch (const std::exception&) {
            // The window says why elsewhere (it keeps its previous palette); nothing to edit anew.
        }
    }
    auto apply = [&](const std::string& name) {
        s.palette.name = name;
        s.loaded_name = name;
        view->palette = name;
        *table = make_palette_table(s.palette);
        *table_name = name;
        redraw = true;
    };
    auto plain_stem = [&](const std::string& path, std::string* stem) {
        *stem = std::filesystem::path(path).stem().string();
        if (palette_name_is_plain(*stem)) return true;
        set_message(s, "The file's name must be letters, digits, '-' and '_' (it names the palette in PNGs).", true);
        return false;
    };
    std::string stem;
    if (s.load && plain_stem(s.path, &stem)) {
        try {
            s.palette = load_palette_file(s.path);
            apply(stem);
            set_message(s, "Loaded " + s.path + ".", false);
        } catch (const std::exception& e) {
            set_message(s, std::string(e.what()) + ".", true);
        }
    }
    if (s.save && plain_stem(s.path, &stem)) {
        try {
            Palette named = s.palette;
            named.name = stem;
            save_palette_file(s.path, named);
            s.palette = named;
            apply(stem);
            set_message(s, "Saved " + s.path + ".", false);
        } catch (const std::exception& e) {
            set_message(s, std::string(e.what()) + ".", true);
        }
    }
    if (s.import_kfr) {
        try {
            std::ifstream in(s.kfr_path, std::ios::binary);
            if (!in) throw std::runtime_error("cannot open " + s.kfr_path);
            std::ostringstream text;
            text << in.rdbuf();
            const Palette imported = palette_from_kfr_colours(text.str(), s.kfr_path);
            const Palette previous = s.palette;
            s.palette = imported;
            s.palette.interior_r = previous.interior_r;
            s.palette.interior_g = previous.interior_g;
            s.palette.interior_b = previous.interior_b;
            apply(view->palette);  // unsaved: the view keeps its palette's name until a Save
            set_message(s,
                        "Imported " + std::to_string(imported.stops.size()) + " colours from " + s.kfr_path +
                            " (Save to keep them).",
                        false);
        } catch (const std::exception& e) {
            set_message(s, std::string(e.what()) + ".", true);
        }
    }
    if (s.edited) apply(view->palette);
    if (s.open && s.cycling && s.cycles_per_second != 0.0f && seconds > 0.0) {
        double offset = view->palette_offset + double(s.cycles_per_second) * std::min(seconds, 0.1);
        view->palette_offset = offset - std::floor(offset);
        redraw = true;
    }
    return redraw;
}

}  // namespace ms
