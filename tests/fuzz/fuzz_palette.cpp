// fuzz_palette.cpp: the assets/palettes text format (compute/palette.h), as --palette-file reads
// it. A palette it accepts has 1..kPaletteMaxStops stops with positions in [0, 1), sorted, and
// makes a table; anything else is a std::runtime_error naming the line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "compute/fractal/colour/palette.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    ms::Palette palette;
    try {
        palette = ms::parse_palette(in, "fuzz.txt", "fuzz");
    } catch (const std::runtime_error&) {
        return 0;
    }
    if (palette.stops.empty() || palette.stops.size() > size_t(ms::kPaletteMaxStops)) std::abort();
    for (size_t i = 0; i < palette.stops.size(); ++i) {
        const double p = palette.stops[i].position;
        if (!(p >= 0.0 && p < 1.0) || (i > 0 && p < palette.stops[i - 1].position)) std::abort();
    }
    const ms::PaletteTable table = ms::make_palette_table(palette);
    if (table.rgba.size() != size_t(ms::kPaletteTableSize)) std::abort();
    return 0;
}
