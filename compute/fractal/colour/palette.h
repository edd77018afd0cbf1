// palette.h: cyclic colour gradients loaded from assets/palettes/NAME.txt.
//
// File format (plain text, one stop per line, '#' starts a comment):
//     interior R G B          colour of interior pixels (optional, default 0 0 0)
//     POSITION R G B          a gradient stop: POSITION in [0, 1), R G B in 0..255
// At least two stops. Stops are sorted by position; the gradient wraps from the last stop to the first, so it is
// cyclic. A palette is sampled into a PaletteTable of kPaletteTableSize RGBA8 entries, which
// both the CPU and the CUDA colouring index with linear interpolation.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace ms {

inline constexpr int kPaletteTableSize = 1024;

struct PaletteStop {
    double position = 0.0;  // 0..1
    uint8_t r = 0, g = 0, b = 0;
};

struct Palette {
    std::string name;
    std::vector<PaletteStop> stops;
    uint8_t interior_r = 0, interior_g = 0, interior_b = 0;
};

struct PaletteTable {
    std::vector<uint32_t> rgba;  // kPaletteTableSize entries, packed R | G<<8 | B<<16 | A<<24
    uint32_t interior_rgba = 0xff000000u;
};

inline constexpr int kPaletteMaxStops = 4096;

// Throws std::runtime_error with a sentence naming the file (`source`) and line on bad input.
Palette parse_palette(std::istream& in, const std::string& source, const std::string& name);
// Any file (--palette-file): a regular file in the format above.
Palette load_palette_file(const std::filesystem::path& path);
// By name (--palette, a PNG's view): assets/palettes/NAME.txt only. A name that is not plain
// (letters, digits, '-', '_') is refused before the file system sees it.
Palette load_palette(const std::string& name);
std::vector<std::string> list_palettes();  // names found in assets/palettes/
PaletteTable make_palette_table(const Palette& palette);
// The palette in the file format above (what parse_palette reads back, stop for stop).
std::string format_palette(const Palette& palette);
// Writes format_palette() through a temporary file and a rename (no partial file); throws
// std::runtime_error with a sentence naming the file.
void save_palette_file(const std::filesystem::path& path, const Palette& palette);
// The gradient of a Kalles Fraktaler location file's "Colors:" line: R,G,B triples (0..255,
// comma-separated, as KF writes them) as equally spaced stops of one cycle. `kfr_text` is the
// whole file; throws std::runtime_error with a sentence naming `source` when there is no
// Colors line, a value is not a whole number in 0..255, the count is not a multiple of three,
// or fewer than two colours remain.
Palette palette_from_kfr_colours(const std::string& kfr_text, const std::string& source);
// A grey gradient built into the program, for a window whose palette file cannot be opened:
// it keeps drawing (and says why) instead of closing.
Palette builtin_grey_palette();

}  // namespace ms

namespace ms {

// Colour at table position `position` (in table entries, any real value: it wraps), linearly
// interpolated between the two nearest entries. Shared by the CPU colouring and the CUDA kernel.
#ifdef __CUDACC__
__host__ __device__
#endif
    // floor(), exactly, without the libm call that the portable build (no SSE4.1) makes of it: that
    // call would dominate colouring, which `render` spends on every pixel.
    inline double
    palette_floor(double x) {
    if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) return floor(x);  // |x| >= 2^52, NaN
    const double t = double(int64_t(x));  // truncated toward zero: exact in this range
    return t > x ? t - 1.0 : t;
}

inline uint32_t palette_lookup(const uint32_t* table, double position) {
    double wrapped = position - kPaletteTableSize * palette_floor(position / kPaletteTableSize);
    // Just below a multiple of the size, wrapped can round up to the size itself: that is entry
    // 0 with f = 0 (f = 1024 would overflow the channels). A rounding below 0, or
    // the NaN of an infinite position, is 0 too.
    if (wrapped >= kPaletteTableSize) wrapped -= kPaletteTableSize;
    if (!(wrapped > 0.0)) wrapped = 0.0;
    int i = int(wrapped);
    int j = i + 1 == kPaletteTableSize ? 0 : i + 1;
    float f = float(wrapped - i);
    uint32_t a = table[i], b = table[j], out = 0xff000000u;
    for (int shift = 0; shift < 24; shift += 8) {
        float ca = float((a >> shift) & 0xff), cb = float((b >> shift) & 0xff);
        out |= uint32_t(ca + f * (cb - ca) + 0.5f) << shift;
    }
    return out;
}

}  // namespace ms
