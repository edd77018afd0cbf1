// deep_cpu_rings.h: deep pixels on rings around a view's centre, the samples of the exponential
// map (compute/video/expmap.h): ring y at radius radius[y], its point x at the angle
// 2 pi (x + 0.5) / columns, so dc = (centre - reference point) + radius[y] e^(i angle).
//
// The same reference orbit, BLA tables and per-pixel loop as deep_cpu (deep_cpu.h,
// deep_perturbation.h; the SIMD lanes of deep_cpu_lanes.h where deep_cpu takes them), only the
// points differ: a polar grid instead of the view's rectangle. The reference is the one
// reference_for gives `location` at width x height (a straight dive's last frame serves every
// ring above it); each call builds the BLA table for its own largest |dc| (the outer ring).
// Number type: double deltas while the innermost ring's point spacing is at least 1e-290 and
// the orbit fits double, FloatExp past that (options.number_type overrides).
#pragma once

#include <vector>

#include "compute/fractal/deep/deep_cpu.h"

namespace ms {

struct DeepRings {
    std::vector<FloatExp> radius;  // one per ring, any order, each > 0
    int columns = 0;               // points per ring
};

struct DeepRingsFrame {
    int columns = 0;
    int rings = 0;
    std::vector<int64_t> escape_count;  // ring-major (ring y's points at y * columns); -1 inside
    std::vector<double> mu;             // -1 inside
    // With options.distance: the distance estimate in units of the ring's point spacing,
    // radius[y] * 2 pi / columns (its neighbours' distance along the ring); 0 inside.
    std::vector<float> distance;
    DeepFrameStats stats;
    std::shared_ptr<const ReferenceOrbit> reference;  // the orbit the points ran against (null: cancelled)
};

// options: deep_cpu's (cache, BLA, distance, number type, threads, cancel); region, row_stride,
// row_done and bla_min_radius_pixels are not used. Throws std::invalid_argument with one
// sentence on a bad location, size or ring.
DeepRingsFrame deep_cpu_rings(const DeepLocation& location, int width, int height, const DeepRings& rings,
                              const DeepRenderOptions& options = {});

// What deep_cpu_rings and its CUDA sibling deep_cuda_rings (deep_cuda.h) share before their
// loops: the checks, the reference, the BLA table's largest |dc| (the outer ring's), the
// smallest point spacing and the number type. out gets its size, the reference and the
// reference's stats; its vectors stay empty. setup.orbit is null when cancelled.
struct DeepRingsSetup {
    DeepFrameSetup setup;
    DeepRenderOptions options;  // the caller's, without region and BLA headroom
    bool is_double = true;
};
DeepRingsSetup deep_rings_setup(const DeepLocation& location, int width, int height, const DeepRings& rings,
                                const DeepRenderOptions& options, DeepRingsFrame* out);

}  // namespace ms
