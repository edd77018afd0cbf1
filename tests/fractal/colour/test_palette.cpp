// test_palette.cpp: what the README says of palettes: the five shipped names load; a file comes
// only through load_palette_file (--palette-file), whose path may be "x.txt", "./x.txt",
// "dir/x.txt" or absolute; --palette refuses a path; an unknown name is refused with a sentence
// that lists the known names. colourize() (SIMD, every target this machine runs) equals
// colourize_reference() byte for byte, on a rendered frame's mu and on the edge cases of the
// table's wrap.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <random>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/colour/palette.h"
#include "tests/validate.h"

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
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("ms_palette_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir / "sub");
    {
        std::ofstream f(dir / "sub" / "two.txt");
        f << "# two stops\ninterior 1 2 3\n0.0 255 0 0\n0.5 0 0 255\n";
    }
    const std::filesystem::path old_cwd = std::filesystem::current_path();
    std::filesystem::current_path(dir);
    for (const std::string& form :
         std::vector<std::string>{"sub/two.txt", "./sub/two.txt", (dir / "sub" / "two.txt").string()}) {
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

// Smooth values that exercise every branch of palette_lookup: a rendered frame's mu, interior
// (-1), NaN, exact multiples of the table's period and the doubles just below them (where the
// wrapped position rounds up to the period), huge values, and random ones; an odd count so
// that the SIMD loop's scalar tail runs too.
std::vector<float> colouring_inputs(const View& view) {
    std::vector<float> mu(size_t(view.width) * view.height);
    direct_cpu(view, Precision::Fp32, Shortcuts{}, full_rect(view), mu.data());
    const double period = 100.0 / view.palette_density;  // mu per trip round the table
    for (int k = -3; k <= 3; ++k) {
        const float at = float(k * period - view.palette_offset * period);
        mu.insert(mu.end(), {at, std::nextafter(at, -1e30f), std::nextafter(at, 1e30f)});
    }
    mu.insert(mu.end(), {-1.0f, -0.0f, 0.0f, std::numeric_limits<float>::quiet_NaN(), 1e-30f, 3.0e38f, 16777216.0f,
                         std::numeric_limits<float>::denorm_min()});
    std::mt19937 random(15);
    std::uniform_real_distribution<float> any(-50.0f, 5000.0f);
    for (int i = 0; i < 4001; ++i) mu.push_back(any(random));
    return mu;
}

TEST(Colourize, SimdEqualsTheReferenceOnEveryTarget) {
    View view;
    view.width = 160;
    view.height = 90;
    view.max_iterations = 500;
    const PaletteTable table = make_palette_table(load_palette("classic"));
    for (const auto& [density, offset] :
         std::vector<std::pair<double, double>>{{1.0, 0.0}, {3.7, 0.25}, {100.0, 0.999}}) {
        view.palette_density = density;
        view.palette_offset = offset;
        const std::vector<float> mu = colouring_inputs(view);
        std::vector<uint32_t> expected(mu.size()), got(mu.size());
        colourize_reference(mu.data(), int64_t(mu.size()), table, view, reinterpret_cast<uint8_t*>(expected.data()));
        // Every channel of every pixel is a byte of the table's colours, so no entry may be
        // past 255 (a wrap at exactly 1024 would overflow into the next channel).
        for (size_t i = 0; i < mu.size(); ++i)
            ASSERT_EQ(expected[i] >> 24, 0xffu) << "alpha of pixel " << i << " (mu " << mu[i] << ")";
        for (const std::string& target : direct_cpu_simd_targets()) {
            ASSERT_TRUE(direct_cpu_use_simd_target(target));
            std::fill(got.begin(), got.end(), 0u);
            colourize(mu.data(), int64_t(mu.size()), table, view, reinterpret_cast<uint8_t*>(got.data()));
            const std::string what = "colourize on " + target + " at density " + std::to_string(density);
            const test::ValidationResult r = test::validate_result(what.c_str(), expected.data(), got.data(),
                                                                   expected.size(), 0.0);
            EXPECT_EQ(r.mismatches, 0u) << what;
        }
        ASSERT_TRUE(direct_cpu_use_simd_target(""));
    }
}

// The wrap itself: a position a hair below 0 (or a multiple of the size) wraps to a value
// that rounds up to the size itself; that is entry 0's colour, not a blend 1024 entries long.
TEST(Colourize, PositionRoundingUpToThePeriodIsEntryZero) {
    PaletteTable table;
    table.rgba.assign(kPaletteTableSize, 0xff000000u);
    table.rgba[0] = 0xff0a0b0cu;
    table.rgba[1] = 0xff0d0e0fu;
    table.rgba[kPaletteTableSize - 1] = 0xfff0f0f0u;
    // -1e-300 / 1024 floors to -1, and -1e-300 + 1024 rounds to 1024.
    for (double position : {std::nextafter(5.0 * kPaletteTableSize, 0.0), 5.0 * kPaletteTableSize, 0.0, -1e-300}) {
        const uint32_t c = palette_lookup(table.rgba.data(), position);
        EXPECT_TRUE(c == table.rgba[0] || c == table.rgba[kPaletteTableSize - 1])
            << std::hex << c << " at " << position;
    }
}

}  // namespace
}  // namespace ms
