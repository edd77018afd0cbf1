// test_render_panel_layout.cpp: the explorer's panel layout (render/panel_layout.h). At the
// window sizes the layout must serve (640x360, 1280x720, 1920x1080), with every panel open and with
// any widths the user may have dragged the panels to, the View panel, the column of tabs and
// the status line never overlap and stay inside the window; imgui.ini goes to
// $XDG_CONFIG_HOME/mandelscope, which is created.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "render/ui/panel_layout.h"

namespace ms {
namespace {

bool inside(const PanelRect& r, float width, float height) {
    return r.x >= 0.0f && r.y >= 0.0f && r.x + r.width <= width + 1e-3f && r.y + r.height <= height + 1e-3f;
}

TEST(PanelLayout, NothingOverlapsAtTheIssuesSizes) {
    const float sizes[][2] = {{640, 360}, {1280, 720}, {1920, 1080}, {480, 270}};
    const float widths[] = {0.0f, 150.0f, 380.0f, 900.0f, 5000.0f};  // 0: the default
    for (const auto& size : sizes) {
        for (float view_width : widths) {
            for (float column_width : widths) {
                for (bool column_open : {false, true}) {
                    const PanelLayout l = layout_panels(
                        {size[0], size[1], 60.0f, view_width, column_width, column_open});
                    SCOPED_TRACE(std::to_string(int(size[0])) + "x" + std::to_string(int(size[1])) + " view " +
                                 std::to_string(view_width) + " column " + std::to_string(column_width) +
                                 (column_open ? " open" : " closed"));
                    EXPECT_FALSE(rects_overlap(l.view, l.column));
                    EXPECT_FALSE(rects_overlap(l.view, l.status));
                    EXPECT_FALSE(rects_overlap(l.column, l.status));
                    EXPECT_TRUE(inside(l.view, size[0], size[1]));
                    EXPECT_TRUE(inside(l.column, size[0], size[1]));
                    EXPECT_TRUE(inside(l.status, size[0], size[1]));
                    EXPECT_FLOAT_EQ(l.status.width, size[0]);
                    EXPECT_FLOAT_EQ(l.status.height, 60.0f);
                    EXPECT_GT(l.view.width, 0.0f);
                    // The widths the user may drag to still leave the other panel its room.
                    if (column_open) {
                        EXPECT_GT(l.column.width, 0.0f);
                        EXPECT_LE(l.view.x + l.view_max_width, l.column.x + l.column.width - kMinColumnWidth * 0.5f);
                        EXPECT_GE(l.column.x + l.column.width - l.column_max_width, l.view.x + l.view.width);
                    } else {
                        EXPECT_EQ(l.column.width, 0.0f);
                    }
                }
            }
        }
    }
}

TEST(PanelLayout, DefaultsAtTheUsualSizes) {
    const PanelLayout l = layout_panels({1280, 720, 30, 0, 0, true});
    EXPECT_FLOAT_EQ(l.view.width, kDefaultViewWidth);
    EXPECT_FLOAT_EQ(l.column.width, std::min(kDefaultColumnWidth, 1280 - 3 * kPanelMargin - kDefaultViewWidth));
    EXPECT_FLOAT_EQ(l.view.height, 720 - 30 - 2 * kPanelMargin);  // down to the status line
    EXPECT_FLOAT_EQ(l.column.height, l.view.height);
    // At 640x360 the column narrows to what is left beside the View panel, at least its minimum.
    const PanelLayout small = layout_panels({640, 360, 30, 0, 0, true});
    EXPECT_GE(small.column.width, kMinColumnWidth);
    EXPECT_FLOAT_EQ(small.view.width + small.column.width, 640 - 3 * kPanelMargin);
    // A View panel dragged wide gives way to the column's minimum.
    const PanelLayout wide = layout_panels({640, 360, 30, 600, 0, true});
    EXPECT_FLOAT_EQ(wide.column.width, kMinColumnWidth);
}

TEST(PanelLayout, ASmallerStatusLineLeavesMoreRoom) {
    const PanelLayout one = layout_panels({1280, 720, 30, 0, 0, true});
    const PanelLayout three = layout_panels({1280, 720, 90, 0, 0, true});
    EXPECT_FLOAT_EQ(one.view.height - three.view.height, 60.0f);
    EXPECT_FLOAT_EQ(three.status.y, 720 - 90);
}

TEST(PanelLayout, SettingsGoToTheConfigFolder) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("ms_layout_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    setenv("XDG_CONFIG_HOME", (dir / "config").c_str(), 1);
    std::string error;
    const std::string path = panel_settings_path(&error);
    EXPECT_EQ(error, "");
    EXPECT_EQ(path, (dir / "config" / "mandelscope" / "imgui.ini").string());
    EXPECT_TRUE(std::filesystem::is_directory(dir / "config" / "mandelscope"));
    // A relative XDG_CONFIG_HOME is ignored (the XDG rule): HOME/.config instead.
    setenv("XDG_CONFIG_HOME", "relative/dir", 1);
    setenv("HOME", (dir / "home").c_str(), 1);
    EXPECT_EQ(panel_settings_path(&error), (dir / "home" / ".config" / "mandelscope" / "imgui.ini").string());
    // Where the folder cannot be made, a sentence and no path.
    std::filesystem::create_directories(dir);
    {
        std::FILE* f = std::fopen((dir / "file").c_str(), "w");
        std::fclose(f);
    }
    setenv("XDG_CONFIG_HOME", (dir / "file").c_str(), 1);
    EXPECT_EQ(panel_settings_path(&error), "");
    EXPECT_NE(error.find("file"), std::string::npos) << error;
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ms
