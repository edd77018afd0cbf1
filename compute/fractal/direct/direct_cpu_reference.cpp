// direct_cpu_reference.cpp: the yardstick. One thread, one pixel at a time, scalar code
// that reads like the maths; every faster path (SIMD CPU, CUDA) is tested against it.
// Also home of the pieces all paths share: the shortcut tests and the smooth value. Every
// formula of formula.h and its Julia sets go through the same loop, the formula a template
// parameter (formula_math.h has the maths).
#include <chrono>
#include <cmath>
#include <vector>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/maths/escape.h"
#include "compute/fractal/direct/direct_features.h"
#include "compute/fractal/direct/direct_point-inl.h"

namespace ms {

namespace {

// Where the features variant writes one pixel's orbit features (orbit_features.h).
struct PixelFeatures {
    int stripe_density = 1;
    double pixel_step = 1.0;
    float* distance = nullptr;
    float* stripe = nullptr;
    float* period = nullptr;
    float* atom = nullptr;
};

// Iterates one point of formula F with the colouring's orbit sums (kFeatures: orbit_features.h's
// kFeature* bits), from z_0 = (zr, zi) with parameter (cr, ci), as iterate_point below does;
// julia: the derivative is by z_0 (orbit_features.h), shapes: the cardioid/bulb shortcut applies
// (Mandelbrot's parameter plane). Returns mu (or kInteriorMu) and adds the iterations it ran.
template <Formula F, typename T, unsigned kFeatures>
float iterate_point_features(T zr, T zi, T cr, T ci, bool julia, bool shapes, int max_iterations, bool periodicity,
                             uint64_t* iterations, const PixelFeatures& f) {
    OrbitAccumulator<T, kFeatures, F> orbit;
    orbit.set_stripe_density(f.stripe_density);
    if (julia) orbit.start_julia();
    if (shapes && atom_allows_shortcut(kFeatures) && in_cardioid_or_period2_bulb(double(cr), double(ci))) {
        finish_interior<kFeatures>(shortcut_period(double(cr), double(ci)), f.distance, f.stripe, f.period);
        return kInteriorMu;
    }
    const T bailout_squared = T(formula_bailout_radius(F) * formula_bailout_radius(F));
    T zr2 = zr * zr, zi2 = zi * zi;
    // Periodicity as in iterate_point below.
    T saved_r = 0, saved_i = 0;
    const int interval = periodicity_interval(max_iterations);
    int next_save = next_periodicity_save(0, interval);
    for (int k = 1; k <= max_iterations; ++k) {
        orbit.before_step(zr, zi);  // the derivative takes z_k
        formula_step<F>(zr, zi, zr2, zi2, cr, ci, ScalarAbs{});
        zr2 = zr * zr;
        zi2 = zi * zi;
        T norm = zr2 + zi2;
        orbit.after_step(zr, zi, norm);
        if (norm > bailout_squared) {
            *iterations += uint64_t(k);
            finish_escaped(orbit, k, double(zr), double(zi), double(norm), f.pixel_step, f.distance, f.stripe,
                           f.period);
            finish_atom(orbit, f.atom);
            return formula_smooth_mu_of<F>(k, double(norm));
        }
        if (periodicity) {
            if (periodicity_compare_step(k) && zr == saved_r && zi == saved_i) {
                *iterations += uint64_t(k);
                finish_interior_orbit<T, kFeatures, F>(zr, zi, cr, ci, f.distance, f.stripe, f.period);
                finish_atom(orbit, f.atom);
                return kInteriorMu;
            }
            if (k == next_save) {
                saved_r = zr;
                saved_i = zi;
                next_save = next_periodicity_save(k, interval);
            }
        }
    }
    *iterations += uint64_t(max_iterations);
    finish_interior_orbit<T, kFeatures, F>(zr, zi, cr, ci, f.distance, f.stripe, f.period);
    finish_atom(orbit, f.atom);
    return kInteriorMu;
}

template <Formula F, typename T>
void render_reference(const View& view, const Shortcuts& shortcuts, PixelRect rect, float* mu_out, FrameStats* stats) {
    const PixelGrid grid = make_pixel_grid(view);
    // The cardioid/bulb test is Mandelbrot's parameter plane's alone (formula_math.h).
    const int max_iterations = direct_iterations(view);
    const bool shapes = shortcuts.cardioid_bulb && F == Formula::Mandelbrot && !view.julia;
    const T julia_r = view.julia ? T(julia_re_value(view)) : T(0);
    const T julia_i = view.julia ? T(julia_im_value(view)) : T(0);
    for (int y = 0; y < rect.height; ++y) {
        for (int x = 0; x < rect.width; ++x) {
            const T pr = T(grid.re(rect.x + x));
            const T pi = T(grid.im(rect.y + y));
            float mu = kInteriorMu;
            if (view.julia)
                mu = iterate_point<F, T>(pr, pi, julia_r, julia_i, max_iterations, shortcuts.periodicity,
                                         &stats->iterations);
            else if (!(shapes && in_cardioid_or_period2_bulb(double(pr), double(pi))))
                mu = iterate_point<F, T>(T(0), T(0), pr, pi, max_iterations, shortcuts.periodicity, &stats->iterations);
            if (mu >= 0.0f) ++stats->escaped_pixels;
            mu_out[size_t(y) * rect.width + x] = mu;
        }
    }
}

template <typename T>
void render_reference_formula(const View& view, const Shortcuts& shortcuts, PixelRect rect, float* mu_out,
                              FrameStats* stats) {
    switch (view.formula) {
    case Formula::Mandelbrot: return render_reference<Formula::Mandelbrot, T>(view, shortcuts, rect, mu_out, stats);
    case Formula::Multibrot3: return render_reference<Formula::Multibrot3, T>(view, shortcuts, rect, mu_out, stats);
    case Formula::Multibrot4: return render_reference<Formula::Multibrot4, T>(view, shortcuts, rect, mu_out, stats);
    case Formula::Multibrot5: return render_reference<Formula::Multibrot5, T>(view, shortcuts, rect, mu_out, stats);
    case Formula::Multibrot6: return render_reference<Formula::Multibrot6, T>(view, shortcuts, rect, mu_out, stats);
    case Formula::Multibrot7: return render_reference<Formula::Multibrot7, T>(view, shortcuts, rect, mu_out, stats);
    case Formula::Multibrot8: return render_reference<Formula::Multibrot8, T>(view, shortcuts, rect, mu_out, stats);
    case Formula::BurningShip: return render_reference<Formula::BurningShip, T>(view, shortcuts, rect, mu_out, stats);
    case Formula::Tricorn: return render_reference<Formula::Tricorn, T>(view, shortcuts, rect, mu_out, stats);
    }
}

// The features variant, one pixel after another.
template <Formula F, typename T, unsigned kFeatures>
void render_features_reference(const View& view, const Shortcuts& shortcuts, PixelRect rect, float* mu_out,
                               const OrbitFeatureOutputs& out, FrameStats* stats) {
    // The atom variants compute every feature they cover (atom_feature_variant): the ones not
    // asked for go to scratch.
    std::vector<float> scratch;
    const bool fill = (kFeatures & kFeatureAtom) != 0 && kFeatures != kFeatureAtom;
    if (fill) scratch.resize(size_t(rect.width) * rect.height);
    OrbitFeatureOutputs full = out;
    if (fill) {
        for (float** p : {&full.distance, &full.stripe, &full.period})
            if (!*p) *p = scratch.data();
    }
    const PixelGrid grid = make_pixel_grid(view);
    const int max_iterations = direct_iterations(view);
    const bool shapes = shortcuts.cardioid_bulb && F == Formula::Mandelbrot && !view.julia;
    const T julia_r = view.julia ? T(julia_re_value(view)) : T(0);
    const T julia_i = view.julia ? T(julia_im_value(view)) : T(0);
    PixelFeatures f;
    f.stripe_density = view.colouring.stripe_density;
    f.pixel_step = grid.step;
    for (int y = 0; y < rect.height; ++y) {
        for (int x = 0; x < rect.width; ++x) {
            const size_t i = size_t(y) * rect.width + x;
            f.distance = full.distance ? full.distance + i : nullptr;
            f.stripe = full.stripe ? full.stripe + i : nullptr;
            f.period = full.period ? full.period + i : nullptr;
            f.atom = full.atom ? full.atom + i : nullptr;
            const T pr = T(grid.re(rect.x + x));
            const T pi = T(grid.im(rect.y + y));
            const float mu = view.julia ? iterate_point_features<F, T, kFeatures>(pr, pi, julia_r, julia_i, true, false,
                                                                                  max_iterations, shortcuts.periodicity,
                                                                                  &stats->iterations, f)
                                        : iterate_point_features<F, T, kFeatures>(T(0), T(0), pr, pi, false, shapes,
                                                                                  max_iterations, shortcuts.periodicity,
                                                                                  &stats->iterations, f);
            if (mu >= 0.0f) ++stats->escaped_pixels;
            mu_out[i] = mu;
        }
    }
}

template <Formula F, typename T>
void render_features_reference_of(unsigned features, const View& view, const Shortcuts& shortcuts, PixelRect rect,
                                  float* mu_out, const OrbitFeatureOutputs& out, FrameStats* stats) {
    switch (features) {
    case 1: return render_features_reference<F, T, 1>(view, shortcuts, rect, mu_out, out, stats);
    case 2: return render_features_reference<F, T, 2>(view, shortcuts, rect, mu_out, out, stats);
    case 3: return render_features_reference<F, T, 3>(view, shortcuts, rect, mu_out, out, stats);
    case 4: return render_features_reference<F, T, 4>(view, shortcuts, rect, mu_out, out, stats);
    case 5: return render_features_reference<F, T, 5>(view, shortcuts, rect, mu_out, out, stats);
    case 6: return render_features_reference<F, T, 6>(view, shortcuts, rect, mu_out, out, stats);
    case 7: return render_features_reference<F, T, 7>(view, shortcuts, rect, mu_out, out, stats);
    case kFeatureAtom: return render_features_reference<F, T, kFeatureAtom>(view, shortcuts, rect, mu_out, out, stats);
    case kAtomWithAllFeatures:
        return render_features_reference<F, T, kAtomWithAllFeatures>(view, shortcuts, rect, mu_out, out, stats);
    default: return render_reference<F, T>(view, shortcuts, rect, mu_out, stats);
    }
}

template <typename T>
void render_features_reference_any(unsigned features, const View& view, const Shortcuts& shortcuts, PixelRect rect,
                                   float* mu_out, const OrbitFeatureOutputs& out, FrameStats* stats) {
    switch (view.formula) {
#define MS_FEATURES_CASE(F) \
    case F: return render_features_reference_of<F, T>(features, view, shortcuts, rect, mu_out, out, stats);
        MS_FEATURES_CASE(Formula::Mandelbrot)
        MS_FEATURES_CASE(Formula::Multibrot3)
        MS_FEATURES_CASE(Formula::Multibrot4)
        MS_FEATURES_CASE(Formula::Multibrot5)
        MS_FEATURES_CASE(Formula::Multibrot6)
        MS_FEATURES_CASE(Formula::Multibrot7)
        MS_FEATURES_CASE(Formula::Multibrot8)
        MS_FEATURES_CASE(Formula::BurningShip)
        MS_FEATURES_CASE(Formula::Tricorn)
#undef MS_FEATURES_CASE
    }
}

}  // namespace

FrameStats direct_features_cpu_reference(const View& view, Precision precision, const Shortcuts& shortcuts,
                                         PixelRect rect, float* mu_out, const OrbitFeatureOutputs& outputs) {
    rect = resolve_rect(view, rect);
    FrameStats stats;
    stats.precision = resolve_direct_precision(view, precision);
    auto start = std::chrono::steady_clock::now();
    unsigned features = requested_features(outputs);
    if (features & kFeatureAtom) features = atom_feature_variant(features);
    if (stats.precision == Precision::Fp32)
        render_features_reference_any<float>(features, view, shortcuts, rect, mu_out, outputs, &stats);
    else render_features_reference_any<double>(features, view, shortcuts, rect, mu_out, outputs, &stats);
    stats.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return stats;
}

FrameStats direct_cpu_reference(const View& view, Precision precision, const Shortcuts& shortcuts, PixelRect rect,
                                float* mu_out) {
    rect = resolve_rect(view, rect);
    FrameStats stats;
    stats.precision = resolve_direct_precision(view, precision);
    auto start = std::chrono::steady_clock::now();
    if (stats.precision == Precision::Fp32) render_reference_formula<float>(view, shortcuts, rect, mu_out, &stats);
    else render_reference_formula<double>(view, shortcuts, rect, mu_out, &stats);
    stats.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return stats;
}

}  // namespace ms
