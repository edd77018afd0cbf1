// panel_cnn.cpp: the CNN demo panel (panel_cnn.h): what is loaded and why not, the grid of
// test images, the selected image in detail. The measurements ("Classify all", the confusion
// matrix, the batch-size sweep) are drawn by panel_cnn_results.cpp.
//
// Images are drawn as ImDrawList rectangles, one per non-background pixel (28x28 grayscale,
// scaled by a whole number so the edges stay sharp): no texture, so the panel holds no GL
// object. A page of the grid is about 20,000 rectangles, little work for ImGui to build. Only a
// software GL pays for them: under Xvfb's llvmpipe the window's frame rate drops with the panel
// open, nearly all of it in llvmpipe's rasteriser (see docs/performance.md).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "render/demos/panel_cnn.h"
#include "render/demos/panel_cnn_parts.h"
#include "render/ui/panels.h"

namespace ms {

namespace {

// A 28x28 image at `at`, `scale` pixels per image pixel: white ink on black.
void draw_image(ImDrawList* draw, ImVec2 at, float scale, const uint8_t* pixels) {
    draw->AddRectFilled(at, ImVec2(at.x + kCnnSide * scale, at.y + kCnnSide * scale), IM_COL32(0, 0, 0, 255));
    for (int y = 0; y < kCnnSide; ++y)
        for (int x = 0; x < kCnnSide; ++x) {
            const uint8_t v = pixels[y * kCnnSide + x];
            if (v < 4) continue;  // background (about half of a Fashion-MNIST image)
            draw->AddRectFilled(ImVec2(at.x + x * scale, at.y + y * scale),
                                ImVec2(at.x + (x + 1) * scale, at.y + (y + 1) * scale), IM_COL32(v, v, v, 255));
        }
}

// One feature map (28x28 floats >= 0) as a heat map, scaled to its own maximum.
void draw_heat_map(ImDrawList* draw, ImVec2 at, float scale, const float* map, float max_value) {
    draw->AddRectFilled(at, ImVec2(at.x + kCnnSide * scale, at.y + kCnnSide * scale), cnn_heat_colour(0.0f));
    if (max_value <= 0.0f) return;
    for (int y = 0; y < kCnnSide; ++y)
        for (int x = 0; x < kCnnSide; ++x) {
            const float t = map[y * kCnnSide + x] / max_value;
            if (t < 0.01f) continue;  // ReLU's zeros: the background colour already
            draw->AddRectFilled(ImVec2(at.x + x * scale, at.y + y * scale),
                                ImVec2(at.x + (x + 1) * scale, at.y + (y + 1) * scale), cnn_heat_colour(t));
        }
}

int shown_count(const CnnDemo& d) { return d.wrong_only ? int(d.misclassified.size()) : d.test->count; }
int shown_image(const CnnDemo& d, int position) { return d.wrong_only ? d.misclassified[position] : position; }

void draw_header(CnnDemo& d) {
    ImGui::TextWrapped(
        "A small CNN (conv 3x3 x16, conv 3x3 x32, fc 64, fc 10; 105,866 parameters) "
        "classifying Fashion-MNIST's 10,000 test images.");
    if (!d.weights_note.empty()) help_marker(("Weights " + d.weights_note).c_str());
    if (d.loaded) {
        ImGui::Text("CPU: %s", d.cpu_device.c_str());
        ImGui::SameLine(0.0f, ImGui::GetFontSize() * 2.0f);
        if (d.cuda_unavailable.empty()) {
            ImGui::Text("GPU: %s", d.cuda_device.c_str());
        } else {
            ImGui::PushStyleColor(ImGuiCol_Text, kCnnWarningColour);
            ImGui::TextWrapped("GPU unavailable: %s", d.cuda_unavailable.c_str());
            ImGui::PopStyleColor();
        }
    }
    if (d.task == CnnTask::Load) {
        char label[64];
        std::snprintf(label, sizeof label, "loading, classifying the grid: %.0f%%", 100.0 * d.progress);
        ImGui::ProgressBar(float(d.progress), ImVec2(ImGui::GetFontSize() * 24.0f, 0.0f), label);
    } else if (!d.load_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kCnnErrorColour);
        ImGui::TextWrapped("The demo cannot run: %s", d.load_error.c_str());
        ImGui::PopStyleColor();
        if (ImGui::Button("Try again")) d.load = true;
    }
    if (!d.message.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, d.message_is_error ? kCnnErrorColour : kCnnNoteColour);
        ImGui::TextWrapped("%s", d.message.c_str());
        ImGui::PopStyleColor();
    }
}

// Paging: previous, next, the page as a slider, a random page; the wrong-only filter.
void draw_grid_controls(CnnDemo& d, const CnnGridPage& page) {
    if (ImGui::ArrowButton("##previous", ImGuiDir_Left)) d.page = page.page - 1;
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) d.page = page.page + 1;
    ImGui::SameLine();
    int shown_page = page.page + 1;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12.0f);
    if (ImGui::SliderInt("##page", &shown_page, 1, page.pages, "page %d", ImGuiSliderFlags_AlwaysClamp))
        d.page = shown_page - 1;
    ImGui::SameLine();
    ImGui::Text("of %d", page.pages);
    ImGui::SameLine();
    if (ImGui::Button("Random page")) {
        std::minstd_rand random(std::random_device{}());
        d.page = std::uniform_int_distribution<int>(0, page.pages - 1)(random);
    }
    ImGui::SameLine();
    if (ImGui::Checkbox("wrong only", &d.wrong_only)) {
        // Stay with the selected image when it is in the new list; else the first page.
        const int selected_page = cnn_page_of_image(d.wrong_only ? d.misclassified : std::vector<int>{}, d.selected);
        d.page = std::max(0, selected_page);
        if (selected_page < 0 && d.wrong_only && !d.misclassified.empty()) d.selected = d.misclassified[0];
    }
    ImGui::SameLine();
    ImGui::TextDisabled("(%zu of %d wrong)", d.misclassified.size(), d.test->count);
}

// The grid: one invisible button over the whole page; the cell under the mouse gets a
// tooltip and a click selects it.
void draw_grid(CnnDemo& d) {
    const CnnGridPage page = cnn_grid_page(shown_count(d), d.page);
    d.page = page.page;
    draw_grid_controls(d, page);

    // 3x where the panel is tall enough for the grid and the measurements below it (a
    // 1080-line window), 2x otherwise (the default 1280x720 window).
    const float scale = ImGui::GetWindowHeight() >= 62.0f * ImGui::GetFontSize() ? 3.0f : 2.0f;
    const float image_side = kCnnSide * scale;
    const float line = ImGui::GetTextLineHeight();
    const float cell_w = std::max(image_side, ImGui::CalcTextSize("Pullover 100%").x) + 2.0f;
    const float cell_h = image_side + 2.0f * line + 6.0f;
    const float gap = 5.0f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 size(kCnnGridColumns * (cell_w + gap) - gap, kCnnGridRows * (cell_h + gap) - gap);
    ImGui::InvisibleButton("##grid", size);
    const bool hovered = ImGui::IsItemHovered();
    const bool clicked = ImGui::IsItemClicked();
    const ImVec2 mouse = ImGui::GetMousePos();
    ImDrawList* draw = ImGui::GetWindowDrawList();

    for (int k = 0; k < page.count; ++k) {
        const int image = shown_image(d, page.first + k);
        const ImVec2 cell(origin.x + (k % kCnnGridColumns) * (cell_w + gap),
                          origin.y + (k / kCnnGridColumns) * (cell_h + gap));
        const ImVec2 at(cell.x + std::floor((cell_w - image_side) / 2), cell.y + 1.0f);
        draw_image(draw, at, scale, d.test->image(image));
        const int truth = d.test->labels[image];
        const int predicted = d.predicted[image];
        const float confidence = d.probabilities[size_t(image) * kCnnClasses + predicted];
        const bool wrong = predicted != truth;
        const ImVec2 image_end(at.x + image_side, at.y + image_side);
        if (wrong)
            draw->AddRect(ImVec2(at.x - 1, at.y - 1), ImVec2(image_end.x + 1, image_end.y + 1), kCnnWrongColour, 0.0f,
                          0, 2.0f);
        if (image == d.selected)
            draw->AddRect(ImVec2(cell.x - 3, cell.y - 3), ImVec2(cell.x + cell_w + 3, cell.y + cell_h + 1),
                          kCnnSelectedColour, 3.0f, 0, 2.0f);
        char text[64];
        std::snprintf(text, sizeof text, "%s %.0f%%", kCnnShortClassNames[predicted], 100.0 * confidence);
        draw->AddText(ImVec2(cell.x + 1, image_end.y + 3), wrong ? kCnnWrongColour : kCnnRightColour, text);
        std::snprintf(text, sizeof text, "true %s", kCnnShortClassNames[truth]);
        draw->AddText(ImVec2(cell.x + 1, image_end.y + 3 + line), ImGui::GetColorU32(ImGuiCol_TextDisabled), text);

        const bool under_mouse = mouse.x >= cell.x && mouse.x < cell.x + cell_w + gap && mouse.y >= cell.y &&
                                 mouse.y < cell.y + cell_h + gap;
        if (hovered && under_mouse) {
            ImGui::SetTooltip("Test image %d\ntrue class: %s\npredicted: %s (%.1f%%)%s", image,
                              kFashionMnistClassNames[truth], kFashionMnistClassNames[predicted], 100.0 * confidence,
                              wrong ? "  WRONG" : "");
            if (clicked) d.selected = image;
        }
    }
}

// The selected image: large, with what it is and what the network says; its class
// probabilities as bars (most likely first); the first layer's 16 feature maps. A column as
// wide as the bars (selected_width), so that it fits beside the grid in a 1600-pixel window.
float bar_width() { return ImGui::GetFontSize() * 11.0f; }
float selected_width() {
    return ImGui::CalcTextSize("T-shirt/top ").x + bar_width() + 6.0f + ImGui::CalcTextSize("100.0% true").x;
}

void draw_selected(CnnDemo& d) {
    const int image = d.selected;
    const int truth = d.test->labels[image];
    const float* p = &d.probabilities[size_t(image) * kCnnClasses];
    const std::array<int, kCnnClasses> order = cnn_classes_by_probability(p);
    const int predicted = order[0];
    const bool wrong = predicted != truth;
    const ImVec4 verdict = ImGui::ColorConvertU32ToFloat4(wrong ? kCnnWrongColour : kCnnRightColour);

    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float scale = 4.0f;
    const float side = kCnnSide * scale;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    draw_image(draw, at, scale, d.test->image(image));
    if (wrong)
        draw->AddRect(ImVec2(at.x - 1, at.y - 1), ImVec2(at.x + side + 1, at.y + side + 1), kCnnWrongColour, 0.0f, 0,
                      2.0f);
    ImGui::Dummy(ImVec2(side, side));
    ImGui::SameLine(0.0f, ImGui::GetFontSize());
    ImGui::BeginGroup();
    ImGui::Text("Test image %d", image);
    ImGui::Text("true class: %s", kFashionMnistClassNames[truth]);
    ImGui::TextColored(verdict, "predicted:  %s", kFashionMnistClassNames[predicted]);
    ImGui::TextColored(verdict, "confidence: %.1f%%", 100.0 * p[predicted]);
    ImGui::TextColored(verdict, wrong ? "WRONG" : "right");
    ImGui::EndGroup();

    // Bars, one per class.
    const float row = ImGui::GetTextLineHeight() + 2.0f;
    const float name_w = ImGui::CalcTextSize("T-shirt/top ").x;
    const float bar_w = bar_width();
    const ImVec2 bars = ImGui::GetCursorScreenPos();
    for (int k = 0; k < kCnnClasses; ++k) {
        const int c = order[k];
        const float y = bars.y + k * row;
        const ImU32 text_colour = c == truth ? ImGui::GetColorU32(ImGuiCol_Text)
                                             : ImGui::GetColorU32(ImGuiCol_TextDisabled);
        draw->AddText(ImVec2(bars.x, y), text_colour, kFashionMnistClassNames[c]);
        const ImVec2 bar(bars.x + name_w, y + 2.0f);
        const ImVec2 bar_end(bar.x + bar_w, y + row - 2.0f);
        draw->AddRectFilled(bar, bar_end, IM_COL32(50, 50, 58, 255));
        const ImU32 fill = k == 0 ? (wrong ? kCnnWrongColour : kCnnRightColour) : IM_COL32(90, 130, 200, 255);
        draw->AddRectFilled(bar, ImVec2(bar.x + std::max(1.0f, bar_w * p[c]), bar_end.y), fill);
        if (c == truth && wrong) draw->AddRect(bar, bar_end, kCnnRightColour);
        char text[48];
        std::snprintf(text, sizeof text, "%5.1f%%%s", 100.0 * p[c], c == truth ? " true" : "");
        draw->AddText(ImVec2(bar_end.x + 6.0f, y), text_colour, text);
    }
    ImGui::Dummy(ImVec2(selected_width(), kCnnClasses * row));

    // Feature maps, 4 x 4.
    if (d.feature_maps_of != image || d.feature_maps.size() < size_t(kCnnConv1Channels) * kCnnPixels) return;
    ImGui::TextUnformatted("First layer: 16 feature maps");
    help_marker(
        "conv1 (3x3, 16 filters) + ReLU on this image, before pooling: 16 maps of 28x28, "
        "each coloured from 0 (black) to its own largest value (pale yellow).");
    const float map_scale = 2.0f;
    const float map_side = kCnnSide * map_scale;
    const float gap = 4.0f;
    const int columns = 4;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 size(columns * (map_side + gap) - gap, (kCnnConv1Channels / columns) * (map_side + gap) - gap);
    ImGui::InvisibleButton("##maps", size);
    const bool hovered = ImGui::IsItemHovered();
    const ImVec2 mouse = ImGui::GetMousePos();
    for (int m = 0; m < kCnnConv1Channels; ++m) {
        const float* map = &d.feature_maps[size_t(m) * kCnnPixels];
        const float max_value = *std::max_element(map, map + kCnnPixels);
        const ImVec2 at_map(origin.x + (m % columns) * (map_side + gap), origin.y + (m / columns) * (map_side + gap));
        draw_heat_map(draw, at_map, map_scale, map, max_value);
        if (hovered && mouse.x >= at_map.x && mouse.x < at_map.x + map_side + gap && mouse.y >= at_map.y &&
            mouse.y < at_map.y + map_side + gap)
            ImGui::SetTooltip("Feature map %d of 16: largest value %.3f", m + 1, max_value);
    }
}

}  // namespace

// Starts a block `width` wide beside the previous one when it fits, else below it.
void cnn_next_block(float width) {
    const float right = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x;
    const float spacing = ImGui::GetFontSize() * 2.0f;
    if (ImGui::GetWindowContentRegionMax().x - right >= width + spacing) ImGui::SameLine(0.0f, spacing);
}

void draw_cnn_panel(CnnDemo& d, bool in_column) {
    d.load = d.classify_all_cpu = d.classify_all_cuda = d.start_sweep = d.cancel = false;
    if (!d.open || !in_column) return;
    if (!ImGui::BeginTabItem("CNN", &d.open, d.raise ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None)) return;
    d.raise = false;
    ImGui::BeginChild("##cnn", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted("CNN: Fashion-MNIST on the CPU and the GPU");
    draw_header(d);
    if (d.loaded && d.test && !d.predicted.empty()) {
        ImGui::Separator();
        ImGui::BeginGroup();
        draw_grid(d);
        ImGui::EndGroup();
        cnn_next_block(selected_width());
        ImGui::BeginGroup();
        draw_selected(d);
        ImGui::EndGroup();
        ImGui::Separator();
        draw_cnn_results(d);
    }
    ImGui::EndChild();
    ImGui::EndTabItem();
}

}  // namespace ms
