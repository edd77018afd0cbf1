// palette.cpp: palette files (format in palette.h), the sampled table, and the scalar reference
// of CPU colouring (the SIMD one is colourize.cpp).
#include "compute/fractal/colour/palette.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "compute/fractal/view/view.h"
#include "compute/io/assets.h"
#include "compute/system/fault_injection.h"
#include "compute/system/number_text.h"

namespace ms {

namespace {

uint32_t pack_rgba(double r, double g, double b) {
    auto channel = [](double v) { return uint32_t(std::clamp(std::lround(v), 0L, 255L)); };
    return channel(r) | channel(g) << 8 | channel(b) << 16 | 0xffu << 24;
}

}  // namespace

Palette parse_palette(std::istream& in, const std::string& source, const std::string& name) {
    Palette palette;
    palette.name = name;
    std::string line;
    for (int line_number = 1; std::getline(in, line); ++line_number) {
        line = line.substr(0, line.find('#'));
        std::istringstream fields(line);
        std::string first;
        if (!(fields >> first)) continue;  // blank or comment
        auto fail = [&](const std::string& why) {
            throw std::runtime_error(source + ":" + std::to_string(line_number) + ": " + why);
        };
        int r = -1, g = -1, b = -1;
        if (!(fields >> r >> g >> b) || r < 0 || r > 255 || g < 0 || g > 255 || b < 0 || b > 255)
            fail("expected three colour values from 0 to 255");
        std::string extra;
        if (fields >> extra) fail("unexpected text '" + extra + "' after the colour");
        if (first == "interior") {
            palette.interior_r = uint8_t(r), palette.interior_g = uint8_t(g), palette.interior_b = uint8_t(b);
            continue;
        }
        // The decimal grammar of every other number Mandelscope reads (compute/number_text.h).
        double position = -1.0;
        if (!parse_finite_double(first, &position).empty() || !(position >= 0.0 && position < 1.0))
            fail("a stop's position must be a number in [0, 1), got '" + first + "'");
        if (palette.stops.size() >= size_t(kPaletteMaxStops))
            fail("more than " + std::to_string(kPaletteMaxStops) + " colour stops");
        palette.stops.push_back({position, uint8_t(r), uint8_t(g), uint8_t(b)});
    }
    if (palette.stops.empty()) throw std::runtime_error(source + ": the palette has no colour stops");
    if (palette.stops.size() < 2)
        throw std::runtime_error(source + ": the palette has only one colour stop (a gradient needs at least two)");
    std::stable_sort(palette.stops.begin(), palette.stops.end(),
                     [](const PaletteStop& a, const PaletteStop& b) { return a.position < b.position; });
    return palette;
}

Palette load_palette_file(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw std::runtime_error("cannot open palette file " + path.string() + ": it is not a regular file");
    std::ifstream in(path);
    if (!in || fault_injected(Fault::AssetOpen))  // (a test can make this fail: fault_injection.h)
        throw std::runtime_error("cannot open palette file " + path.string());
    return parse_palette(in, path.string(), path.stem().string());
}

std::vector<std::string> list_palettes() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(find_data_dir("assets") / "palettes"))
        if (entry.path().extension() == ".txt") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

Palette load_palette(const std::string& name) {
    // A name, never a path: "../x" or "/etc/passwd" from the command line or from a PNG's view
    // must not reach the file system. Files elsewhere come only through load_palette_file.
    if (!palette_name_is_plain(name)) throw std::invalid_argument(palette_name_problem(name));
    auto path = find_data_dir("assets") / "palettes" / (name + ".txt");
    if (!std::filesystem::exists(path)) {
        std::string known;
        for (const auto& n : list_palettes()) known += (known.empty() ? "" : ", ") + n;
        throw std::invalid_argument("unknown palette '" + name + "' (known: " + known + ")");
    }
    return load_palette_file(path);
}

PaletteTable make_palette_table(const Palette& palette) {
    PaletteTable table;
    table.rgba.resize(kPaletteTableSize);
    table.interior_rgba = pack_rgba(palette.interior_r, palette.interior_g, palette.interior_b);
    const auto& stops = palette.stops;
    const size_t n = stops.size();
    for (int i = 0; i < kPaletteTableSize; ++i) {
        double t = double(i) / kPaletteTableSize;
        // The stop at or before t (wrapping to the last stop), and the one after it.
        size_t next = 0;
        while (next < n && stops[next].position <= t) ++next;
        const PaletteStop& a = stops[(next + n - 1) % n];
        const PaletteStop& b = stops[next % n];
        double span = b.position - a.position;
        if (span <= 0.0) span += 1.0;
        double along = t - a.position;
        if (along < 0.0) along += 1.0;
        double f = n == 1 ? 0.0 : along / span;
        table.rgba[i] = pack_rgba(a.r + f * (b.r - a.r), a.g + f * (b.g - a.g), a.b + f * (b.b - a.b));
    }
    return table;
}

std::string format_palette(const Palette& palette) {
    std::string text = "# " + palette.name + " (written by Mandelscope's palette editor)\n";
    char line[96];
    std::snprintf(line, sizeof line, "interior %d %d %d\n", palette.interior_r, palette.interior_g, palette.interior_b);
    text += line;
    for (const PaletteStop& stop : palette.stops) {
        // 17 significant digits: the position reads back as the same double.
        std::snprintf(line, sizeof line, "%.17g %d %d %d\n", stop.position, stop.r, stop.g, stop.b);
        text += line;
    }
    return text;
}

void save_palette_file(const std::filesystem::path& path, const Palette& palette) {
    const std::filesystem::path temporary = path.string() + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << format_palette(palette);
        out.close();
        if (!out) {
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            throw std::runtime_error("cannot write palette file " + path.string());
        }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::filesystem::remove(temporary, ec);
        throw std::runtime_error("cannot write palette file " + path.string());
    }
}

Palette palette_from_kfr_colours(const std::string& kfr_text, const std::string& source) {
    std::istringstream in(kfr_text);
    std::string line, colours;
    bool found = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.rfind("Colors:", 0) == 0) {
            colours = line.substr(7);
            found = true;
            break;
        }
    }
    if (!found) throw std::runtime_error(source + " has no 'Colors:' line");
    std::vector<int> values;
    std::istringstream fields(colours);
    std::string field;
    while (std::getline(fields, field, ',')) {
        const size_t a = field.find_first_not_of(" \t"), b = field.find_last_not_of(" \t");
        if (a == std::string::npos) continue;  // KF ends the list with a comma
        field = field.substr(a, b - a + 1);
        if (field.size() > 3 || field.find_first_not_of("0123456789") != std::string::npos || std::stoi(field) > 255)
            throw std::runtime_error(source + ": the Colors line holds '" + field.substr(0, 20) +
                                     "', not a colour value from 0 to 255");
        values.push_back(std::stoi(field));
    }
    if (values.size() % 3 != 0)
        throw std::runtime_error(source + ": the Colors line has " + std::to_string(values.size()) +
                                 " values, not whole R,G,B triples");
    const size_t n = values.size() / 3;
    if (n < 2) throw std::runtime_error(source + ": the Colors line has fewer than two colours");
    if (n > size_t(kPaletteMaxStops))
        throw std::runtime_error(source + ": the Colors line has more than " + std::to_string(kPaletteMaxStops) +
                                 " colours");
    Palette palette;
    palette.name = std::filesystem::path(source).stem().string();
    for (size_t i = 0; i < n; ++i)
        palette.stops.push_back(
            {double(i) / double(n), uint8_t(values[3 * i]), uint8_t(values[3 * i + 1]), uint8_t(values[3 * i + 2])});
    return palette;
}

Palette builtin_grey_palette() {
    Palette p;
    p.name = "built-in grey";
    p.stops = {{0.0, 16, 16, 16}, {0.5, 235, 235, 235}};
    return p;
}

}  // namespace ms
