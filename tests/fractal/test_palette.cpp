// test_palette.cpp: what the README says of palettes: the five shipped names load; a file comes
// only through load_palette_file (--palette-file), whose path may be "x.txt", "./x.txt",
// "dir/x.txt" or absolute; --palette refuses a path; an unknown name is refused with a sentence
// that lists the known names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fractal/palette.h"

namespace ms {
namespace {

TEST(Palette, NamesArePlainPathsAreNot) {
    EXPECT_TRUE(palette_name_is_plain("fire"));
    EXPECT_FALSE(palette_name_is_plain("./fire"));
    EXPECT_FALSE(palette_name_is_plain("mine.txt"));
    EXPECT_FALSE(palette_name_is_plain("/abs/mine"));
    EXPECT_THROW(load_palette("./fire"), std::invalid_argument);
}

TEST(Palette, EveryShippedNameLoads) {
    const std::vector<std::string> names = list_palettes();
    for (const char* expected : {"classic", "fire", "grayscale", "ocean", "rainbow"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    for (const std::string& name : names) EXPECT_GE(load_palette(name).stops.size(), 2u) << name;
}

TEST(Palette, PathFormsLoadTheFile) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ms_palette_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir / "sub");
    {
        std::ofstream f(dir / "sub" / "two.txt");
        f << "# two stops\ninterior 1 2 3\n0.0 255 0 0\n0.5 0 0 255\n";
    }
    const std::filesystem::path old_cwd = std::filesystem::current_path();
    std::filesystem::current_path(dir);
    for (const std::string& form : std::vector<std::string>{"sub/two.txt", "./sub/two.txt", (dir / "sub" / "two.txt").string()}) {
        const Palette p = load_palette_file(form);
        ASSERT_EQ(p.stops.size(), 2u) << form;
        EXPECT_EQ(p.stops[1].b, 255) << form;
        EXPECT_EQ(p.interior_g, 2) << form;
    }
    std::filesystem::current_path(dir / "sub");
    EXPECT_EQ(load_palette_file("two.txt").stops.size(), 2u);  // a bare file name
    try {
        load_palette_file("missing.txt");
        ADD_FAILURE() << "a missing palette file was accepted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("missing.txt"), std::string::npos) << e.what();
    }
    std::filesystem::current_path(old_cwd);
    std::filesystem::remove_all(dir);
    try {
        load_palette("no_such_name");
        ADD_FAILURE() << "an unknown palette name was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("fire"), std::string::npos) << "the known names are listed: " << e.what();
    }
}

}  // namespace
}  // namespace ms
