// exr_write.h: a frame's raw values as an OpenEXR file in Kalles Fraktaler's layout, the one
// zoomasm and KF's own tools read (KF 2.15's exr.cpp; Fraktaler-3 writes the same):
//   attributes  "Iterations" (int; a string past INT_MAX), "IterationsBias" (int, 1024), and
//               "KallesFraktaler2+" (string: the location as KF's .kfr text)
//   N   uint    escape count + IterationsBias; 0xFFFFFFFF for a pixel that never escaped
//               (0 means not computed, which every pixel here is); past 2^32 - 1 - bias
//               iterations N0 and N1 instead (low and high 32 bits)
//   NF  float   the smooth fraction: escape count + NF is the continuous iteration count,
//               NF = 1 - log_d(ln|z| / ln R) in [0, 1) (0 inside)
//   DEX float   the distance estimate in pixels (0 inside), with DEY
//   DEY float   0: the deep and direct paths keep the estimate's length, not its direction, so
//               the vector (DEX, DEY) has the right length and points along x
// Rows are top row first, as the image; scan lines compressed with ZIP (one line a block, as
// KF). The T channel (the final z's phase) is not written: no path here keeps the final z.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ms {

inline constexpr int64_t kExrIterationsBias = 1024;

struct ExrFrame {
    int width = 0;
    int height = 0;
    const int64_t* escape_count = nullptr;  // width * height, row-major; -1 inside
    const double* mu = nullptr;             // the smooth value (direct.h's mu; -1 inside)
    const float* distance = nullptr;        // DE in pixels, or null: no DEX and DEY channels
    int64_t max_iterations = 0;
    std::string kfr_text;  // the "KallesFraktaler2+" attribute; empty: none
};

// The NF channel's value for a pixel (escape count n, smooth value mu): mu + log2(ln 256) - n,
// clamped to [0, 1) (escape.h's mu = n + 1 - log2(ln|z|) for degree 2, and formula_math.h's
// generalisation, both shift KF's fraction by the same constant).
float exr_smooth_fraction(int64_t n, double mu);

// Writes `path` (replacing it). "" on success, else one sentence.
std::string write_exr(const std::string& path, const ExrFrame& frame);

// What read_exr gives back (tests; and any tool that reads KF's files).
struct ExrRawImage {
    int width = 0;
    int height = 0;
    int64_t max_iterations = 0;
    int64_t bias = 0;
    std::string kfr_text;
    std::vector<int64_t> escape_count;  // N (or N0/N1) minus the bias; -1 inside
    std::vector<float> nf;
    std::vector<float> dex, dey;  // empty without those channels
};
std::string read_exr(const std::string& path, ExrRawImage* out);

}  // namespace ms
