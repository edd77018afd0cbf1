// box_filter.h: supersampling's last step. A view rendered at k x k samples per pixel becomes
// one pixel per k x k block of sample colours: each channel is the mean of its k*k samples,
// rounded to the nearest integer with halves rounding up. `render` (direct and deep paths) and
// the window's Export all filter through this one function, so a supersampled view gives the
// same pixels every way it is made.
#pragma once

#include <cstdint>

namespace ms {

// samples: RGBA rows of sample_width samples, at least out_rows * k of them; out: out_rows rows
// of out_width pixels, where out_width * k <= sample_width. k == 1 copies the pixels. Runs on
// every core (OpenMP), one output row per iteration.
void box_filter_rgba(const uint8_t* samples, int sample_width, int k, int out_width, int out_rows, uint8_t* out);

}  // namespace ms
