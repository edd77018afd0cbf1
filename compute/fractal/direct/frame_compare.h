// frame_compare.h: do two renders of the same view agree? The check behind the performance
// panel's Compare switch (CPU frame against GPU frame of the view on screen) and the bench's
// CUDA rows, with the thresholds the Mandelbrot tests hold every path to:
//   - at least 99.9% of pixels have the same integer escape count (mandelbrot_escape_count;
//     interior = -1), so FMA-style rounding may flip a thin scatter of boundary pixels;
//   - where the counts agree, the smooth values differ by at most 1e-3.
// A NaN on either side counts as a differing pixel. The frames are row-major mu values
// (direct_cpu / direct_cuda's mu output), width x height each.
//
//   FrameAgreement a = compare_mu_frames(cpu_mu.data(), gpu_mu.data(), width, height);
//   if (!a.agree) show(a.sentence);   // "The frames differ: only 97.21% of escape counts ..."
#pragma once

#include <cstddef>
#include <string>

namespace ms {

struct FrameAgreementThresholds {
    double min_identical_fraction = 0.999;  // of pixels with identical escape counts
    double max_mu_difference = 1e-3;        // where the counts agree
};

struct FrameAgreement {
    bool agree = false;
    size_t pixels = 0;
    size_t identical_counts = 0;      // pixels whose escape counts are equal
    double identical_fraction = 0.0;  // identical_counts / pixels (1 for empty frames)
    double max_mu_difference = 0.0;   // over the pixels whose counts agree
    int first_difference_x = -1;      // first pixel (row-major) whose count differs; -1: none
    int first_difference_y = -1;
    int largest_mu_difference_x = -1;  // where max_mu_difference was found; -1: none
    int largest_mu_difference_y = -1;
    std::string sentence;  // the verdict and its figures, in one sentence
};

FrameAgreement compare_mu_frames(const float* a, const float* b, int width, int height,
                                 const FrameAgreementThresholds& thresholds = {});

}  // namespace ms
