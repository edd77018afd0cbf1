// test_render_palette_editor.cpp: the palette editor's file work (render/ui/panel_palette.h,
// carry_out_palette_editor, no ImGui needed): what it saves loads back stop for stop and applies
// to the picture; a .kfr's Colors: line imports as equally spaced stops; bad files leave the
// palette as it was and say why; colour cycling turns the view's offset.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "compute/fractal/colour/palette.h"
#include "render/ui/panel_palette.h"

namespace {

std::filesystem::path temp_dir() {
    auto dir = std::filesystem::temp_directory_path() / ("mandelscope-palette-editor-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

// An editor in step with a view on "classic", as the window starts.
struct Editor {
    ms::PaletteEditorState state;
    ms::View view;
    ms::PaletteTable table;
    std::string table_name;
    Editor() {
        state.open = true;
        ms::carry_out_palette_editor(state, &view, &table, &table_name, 0.0);
    }
};

}  // namespace

TEST(PaletteEditor, SaveThenLoadRoundTripsEveryStop) {
    const auto dir = temp_dir();
    Editor e;
    ASSERT_EQ(e.state.palette.name, "classic");
    ASSERT_GE(e.state.palette.stops.size(), 2u);
    // Edit: a stop at a position with no short decimal, a new colour, a new interior.
    e.state.palette.stops.push_back({1.0 / 3.0, 12, 34, 56});
    e.state.palette.stops[0].r = 200;
    e.state.palette.interior_g = 77;
    e.state.edited = true;
    EXPECT_TRUE(ms::carry_out_palette_editor(e.state, &e.view, &e.table, &e.table_name, 0.0));
    EXPECT_EQ(e.table.rgba, ms::make_palette_table(e.state.palette).rgba) << "an edit applies to the picture";
    const ms::Palette edited = e.state.palette;

    e.state.path = (dir / "edited_1.txt").string();
    e.state.save = true;
    ms::carry_out_palette_editor(e.state, &e.view, &e.table, &e.table_name, 0.0);
    ASSERT_FALSE(e.state.message_is_error) << e.state.message;
    EXPECT_EQ(e.view.palette, "edited_1") << "the view names the saved file";

    Editor fresh;
    fresh.state.path = e.state.path;
    fresh.state.load = true;
    ms::carry_out_palette_editor(fresh.state, &fresh.view, &fresh.table, &fresh.table_name, 0.0);
    ASSERT_FALSE(fresh.state.message_is_error) << fresh.state.message;
    ASSERT_EQ(fresh.state.palette.stops.size(), edited.stops.size());
    ms::Palette sorted = edited;
    std::stable_sort(sorted.stops.begin(), sorted.stops.end(),
                     [](const ms::PaletteStop& a, const ms::PaletteStop& b) { return a.position < b.position; });
    for (size_t i = 0; i < sorted.stops.size(); ++i) {
        EXPECT_EQ(fresh.state.palette.stops[i].position, sorted.stops[i].position) << i;
        EXPECT_EQ(fresh.state.palette.stops[i].r, sorted.stops[i].r) << i;
        EXPECT_EQ(fresh.state.palette.stops[i].g, sorted.stops[i].g) << i;
        EXPECT_EQ(fresh.state.palette.stops[i].b, sorted.stops[i].b) << i;
    }
    EXPECT_EQ(fresh.state.palette.interior_g, 77);
    EXPECT_EQ(fresh.table.rgba, ms::make_palette_table(sorted).rgba);
    std::filesystem::remove_all(dir);
}

TEST(PaletteEditor, ImportsKallesFraktalersColorsLine) {
    const auto dir = temp_dir();
    const auto kfr = dir / "spot.kfr";
    std::ofstream(kfr) << "Re: -0.75\r\nIm: 0.1\r\nZoom: 1E3\r\nColors: 255,0,0,0,255,0,0,0,255,\r\nSlopes: 1\r\n";
    Editor e;
    e.state.kfr_path = kfr.string();
    e.state.import_kfr = true;
    EXPECT_TRUE(ms::carry_out_palette_editor(e.state, &e.view, &e.table, &e.table_name, 0.0));
    ASSERT_FALSE(e.state.message_is_error) << e.state.message;
    ASSERT_EQ(e.state.palette.stops.size(), 3u);
    EXPECT_EQ(e.state.palette.stops[1].position, 1.0 / 3.0);
    EXPECT_EQ(e.state.palette.stops[1].g, 255);
    EXPECT_EQ(e.state.palette.stops[2].b, 255);
    EXPECT_EQ(e.table.rgba[0] & 0xffffffu, 0x0000ffu) << "the picture's table starts red";
    std::filesystem::remove_all(dir);
}

TEST(PaletteEditor, BadFilesLeaveThePaletteAndSayWhy) {
    const auto dir = temp_dir();
    std::ofstream(dir / "one.txt") << "0.5 1 2 3\n";
    std::ofstream(dir / "nocolors.kfr") << "Re: 0\r\nIm: 0\r\n";
    std::ofstream(dir / "badcolors.kfr") << "Colors: 255,0,0,0,256,0,\r\n";
    Editor e;
    const ms::Palette before = e.state.palette;
    for (const auto& [path, kfr] : {std::pair<std::string, bool>{(dir / "one.txt").string(), false},
                                    {(dir / "missing.txt").string(), false},
                                    {(dir / "bad name.txt").string(), false},
                                    {(dir / "nocolors.kfr").string(), true},
                                    {(dir / "badcolors.kfr").string(), true}}) {
        e.state.message.clear();
        if (kfr) e.state.kfr_path = path, e.state.import_kfr = true;
        else e.state.path = path, e.state.load = true;
        ms::carry_out_palette_editor(e.state, &e.view, &e.table, &e.table_name, 0.0);
        e.state.load = e.state.import_kfr = false;
        EXPECT_TRUE(e.state.message_is_error) << path;
        EXPECT_FALSE(e.state.message.empty()) << path;
        EXPECT_EQ(e.state.palette.stops.size(), before.stops.size()) << path;
        std::printf("%s -> %s\n", path.c_str(), e.state.message.c_str());
    }
    std::filesystem::remove_all(dir);
}

TEST(PaletteEditor, CyclingTurnsTheOffset) {
    Editor e;
    e.state.cycling = true;
    e.state.cycles_per_second = 0.5f;
    e.view.palette_offset = 0.9;
    EXPECT_TRUE(ms::carry_out_palette_editor(e.state, &e.view, &e.table, &e.table_name, 0.05));
    EXPECT_NEAR(e.view.palette_offset, 0.925, 1e-9);
    ms::carry_out_palette_editor(e.state, &e.view, &e.table, &e.table_name, 0.1);
    ms::carry_out_palette_editor(e.state, &e.view, &e.table, &e.table_name, 0.1);
    EXPECT_NEAR(e.view.palette_offset, 0.025, 1e-9) << "wraps into [0, 1)";
    e.state.cycling = false;
    EXPECT_FALSE(ms::carry_out_palette_editor(e.state, &e.view, &e.table, &e.table_name, 0.1));
}
