// frame_compare.cpp: the agreement check of frame_compare.h.
#include "compute/fractal/direct/frame_compare.h"

#include <cmath>
#include <cstdio>

#include "compute/fractal/direct/direct.h"

namespace ms {

FrameAgreement compare_mu_frames(const float* a, const float* b, int width, int height,
                                 const FrameAgreementThresholds& thresholds) {
    FrameAgreement r;
    r.pixels = width > 0 && height > 0 ? size_t(width) * size_t(height) : 0;
    for (size_t i = 0; i < r.pixels; ++i) {
        const bool same = !std::isnan(a[i]) && !std::isnan(b[i]) &&
                          mandelbrot_escape_count(a[i]) == mandelbrot_escape_count(b[i]);
        if (!same) {
            if (r.first_difference_x < 0) {
                r.first_difference_x = int(i % size_t(width));
                r.first_difference_y = int(i / size_t(width));
            }
            continue;
        }
        ++r.identical_counts;
        const double d = std::fabs(double(a[i]) - double(b[i]));
        if (d > r.max_mu_difference || r.largest_mu_difference_x < 0) {
            r.max_mu_difference = d;
            r.largest_mu_difference_x = int(i % size_t(width));
            r.largest_mu_difference_y = int(i / size_t(width));
        }
    }
    r.identical_fraction = r.pixels ? double(r.identical_counts) / double(r.pixels) : 1.0;
    const bool counts_ok = r.identical_fraction >= thresholds.min_identical_fraction;
    const bool mu_ok = r.max_mu_difference <= thresholds.max_mu_difference;
    r.agree = counts_ok && mu_ok;

    char text[512];
    const double percent = 100.0 * r.identical_fraction, need = 100.0 * thresholds.min_identical_fraction;
    if (r.agree) {
        std::snprintf(text, sizeof text,
                      "The frames agree: %.3f%% of escape counts identical (at least %.1f%% needed), smooth "
                      "values within %.2g where they match (%.2g allowed).",
                      percent, need, r.max_mu_difference, thresholds.max_mu_difference);
    } else if (!counts_ok) {
        std::snprintf(text, sizeof text,
                      "The frames differ: only %.3f%% of escape counts identical (at least %.1f%% needed), the "
                      "first difference at pixel (%d, %d).",
                      percent, need, r.first_difference_x, r.first_difference_y);
    } else {
        std::snprintf(text, sizeof text,
                      "The frames differ: %.3f%% of escape counts identical, but smooth values differ by %.3g "
                      "at pixel (%d, %d) (at most %.2g allowed).",
                      percent, r.max_mu_difference, r.largest_mu_difference_x, r.largest_mu_difference_y,
                      thresholds.max_mu_difference);
    }
    r.sentence = text;
    return r;
}

}  // namespace ms
