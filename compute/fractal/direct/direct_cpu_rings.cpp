// direct_cpu_rings.cpp: direct points on rings (direct_cpu_rings.h).
#include "compute/fractal/direct/direct_cpu_rings.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "compute/fractal/direct/direct_point-inl.h"

namespace ms {

namespace {

constexpr double kTwoPi = 6.283185307179586;
// view.cpp's rule: neighbouring points at least this many ulps apart.
constexpr double kMinUlpsPerPoint = 8.0;

template <Formula F>
uint64_t rings_of(const View& view, const DirectRings& rings, float* mu_out, int threads,
                  const std::atomic<bool>* cancel, bool* cancelled) {
    const double cr = center_re_value(view), ci = center_im_value(view);
    const int max_iterations = direct_iterations(view);
    const bool shapes = F == Formula::Mandelbrot && !view.julia;
    const double julia_r = view.julia ? julia_re_value(view) : 0.0;
    const double julia_i = view.julia ? julia_im_value(view) : 0.0;
    const int columns = rings.columns;
    std::vector<double> cos_x(static_cast<size_t>(columns)), sin_x(static_cast<size_t>(columns));
    for (int x = 0; x < columns; ++x) {
        cos_x[size_t(x)] = std::cos(kTwoPi * (x + 0.5) / columns);
        sin_x[size_t(x)] = std::sin(kTwoPi * (x + 0.5) / columns);
    }
    uint64_t iterations = 0;
    bool stopped = false;
    const int count = int(rings.radius.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : omp_get_max_threads()) \
    reduction(+ : iterations) reduction(|| : stopped)
    for (int y = 0; y < count; ++y) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            stopped = true;
            continue;
        }
        const double r = rings.radius[size_t(y)];
        for (int x = 0; x < columns; ++x) {
            const double pr = cr + r * cos_x[size_t(x)], pi = ci + r * sin_x[size_t(x)];
            float mu = kInteriorMu;
            if (view.julia)
                mu = iterate_point<F, double>(pr, pi, julia_r, julia_i, max_iterations, true, &iterations);
            else if (!(shapes && in_cardioid_or_period2_bulb(pr, pi)))
                mu = iterate_point<F, double>(0.0, 0.0, pr, pi, max_iterations, true, &iterations);
            mu_out[size_t(y) * size_t(columns) + size_t(x)] = mu;
        }
    }
    if (cancelled) *cancelled = stopped;
    return iterations;
}

}  // namespace

bool direct_rings_resolve(const View& view, double radius, int columns) {
    const double magnitude = std::max({std::fabs(center_re_value(view)), std::fabs(center_im_value(view)), 2.0});
    return view.max_iterations <= kMaxDirectIterations &&
           radius * kTwoPi / columns >= kMinUlpsPerPoint * magnitude * std::numeric_limits<double>::epsilon();
}

uint64_t direct_cpu_rings(const View& view, const DirectRings& rings, float* mu_out, int threads,
                          const std::atomic<bool>* cancel, bool* cancelled) {
    switch (view.formula) {
    case Formula::Multibrot3: return rings_of<Formula::Multibrot3>(view, rings, mu_out, threads, cancel, cancelled);
    case Formula::Multibrot4: return rings_of<Formula::Multibrot4>(view, rings, mu_out, threads, cancel, cancelled);
    case Formula::Multibrot5: return rings_of<Formula::Multibrot5>(view, rings, mu_out, threads, cancel, cancelled);
    case Formula::Multibrot6: return rings_of<Formula::Multibrot6>(view, rings, mu_out, threads, cancel, cancelled);
    case Formula::Multibrot7: return rings_of<Formula::Multibrot7>(view, rings, mu_out, threads, cancel, cancelled);
    case Formula::Multibrot8: return rings_of<Formula::Multibrot8>(view, rings, mu_out, threads, cancel, cancelled);
    case Formula::BurningShip: return rings_of<Formula::BurningShip>(view, rings, mu_out, threads, cancel, cancelled);
    case Formula::Tricorn: return rings_of<Formula::Tricorn>(view, rings, mu_out, threads, cancel, cancelled);
    default: return rings_of<Formula::Mandelbrot>(view, rings, mu_out, threads, cancel, cancelled);
    }
}

}  // namespace ms
