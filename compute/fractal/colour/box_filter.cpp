// box_filter.cpp: see box_filter.h.
#include "compute/fractal/colour/box_filter.h"

#include <cstddef>
#include <cstring>

namespace ms {

void box_filter_rgba(const uint8_t* samples, int sample_width, int k, int out_width, int out_rows, uint8_t* out) {
    if (k == 1) {
        for (int y = 0; y < out_rows; ++y)
            std::memcpy(out + size_t(y) * out_width * 4, samples + size_t(y) * sample_width * 4, size_t(out_width) * 4);
        return;
    }
    const int area = k * k;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < out_rows; ++y) {
        for (int x = 0; x < out_width; ++x) {
            int sum[4] = {0, 0, 0, 0};
            for (int sy = 0; sy < k; ++sy) {
                const uint8_t* p = samples + (size_t(y * k + sy) * sample_width + size_t(x) * k) * 4;
                for (int sx = 0; sx < k; ++sx)
                    for (int c = 0; c < 4; ++c) sum[c] += p[sx * 4 + c];
            }
            // The integer form of round(sum / area) with halves up: sums are never negative.
            uint8_t* o = out + (size_t(y) * out_width + x) * 4;
            for (int c = 0; c < 4; ++c) o[c] = uint8_t((sum[c] + area / 2) / area);
        }
    }
}

}  // namespace ms
