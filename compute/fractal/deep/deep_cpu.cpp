// deep_cpu.cpp: the deep frame on the CPU: reference, BLA table, then perturbation with
// rebasing and BLA skips per pixel (see deep_cpu.h for the maths).
#include "compute/fractal/deep/deep_cpu.h"

#include <omp.h>

#include <chrono>
#include <cstring>
#include <cmath>
#include <stdexcept>

#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/mandelbrot.h"

namespace ms {

namespace {

constexpr double kBailoutSquared = kBailoutRadius * kBailoutRadius;
// Double deltas down to this pixel spacing; FloatExp below (the products of perturbation must
// stay clear of double's subnormals, 2.2e-308).
constexpr double kDoubleMinSpacing = 1e-290;

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

template <typename T> T from_floatexp(FloatExp x);
template <> double from_floatexp<double>(FloatExp x) { return fe_to_double(x); }
template <> FloatExp from_floatexp<FloatExp>(FloatExp x) { return x; }

struct PixelCounters {
    uint64_t iterations = 0, bla_iterations = 0, bla_skips = 0, steps = 0, rebases = 0, escaped = 0;
};

// One pixel: returns its escape count (-1 inside) and writes mu.
template <typename T, bool kRebase>
inline int64_t iterate_pixel(const DeepComplex<T>* Z, int64_t last_index, const BlaView<T>& bla,
                             DeepComplex<T> dc, int64_t max_iterations, double* mu_out,
                             PixelCounters& counters) {
    DeepComplex<T> z{};
    int64_t m = 0, n = 0;
    while (n < max_iterations) {
        const BlaStep<T>* skip = bla_lookup(bla, m, deep_norm(z), max_iterations - n);
        if (skip) {
            z = skip->a * z + skip->b * dc;
            m += skip->length;
            n += skip->length;
            counters.bla_iterations += uint64_t(skip->length);
            ++counters.bla_skips;
        } else {
            z = (deep_twice(Z[m]) + z) * z + dc;
            ++m;
            ++n;
            ++counters.steps;
        }
        const DeepComplex<T> full = Z[m] + z;
        const T full_norm = deep_norm(full);
        const double norm = deep_to_double(full_norm);
        if (norm > kBailoutSquared) {
            counters.iterations += uint64_t(n);
            ++counters.escaped;
            double mu = double(n) + 1.0 - std::log2(0.5 * std::log(norm));
            *mu_out = mu > 0.0 ? mu : 0.0;
            return n;
        }
        if ((kRebase && full_norm < deep_norm(z)) || m == last_index) {
            z = full;
            m = 0;
            ++counters.rebases;
        }
    }
    counters.iterations += uint64_t(max_iterations);
    *mu_out = -1.0;
    return -1;
}

template <typename T>
void render_pixels(const DeepLocation& location, const ReferenceOrbit& orbit, const DeepComplex<T>* Z,
                   DeepComplex<FloatExp> offset_fe, FloatExp spacing_fe, const DeepRenderOptions& options,
                   DeepFrame* frame) {
    const int width = frame->width, height = frame->height;
    DeepFrameStats& stats = frame->stats;
    // BLA table for this frame's largest |dc|: the reference's offset plus the half diagonal.
    BlaTable<T> table;
    if (options.use_bla) {
        FloatExp half_diagonal = spacing_fe * fe_from_double(0.5 * std::hypot(double(width), double(height)));
        FloatExp max_dc = deep_cabs(offset_fe) + half_diagonal;
        double epsilon = options.bla_epsilon > 0.0 ? options.bla_epsilon : kBlaDefaultEpsilon;
        if (!build_bla_table(Z, orbit.last_index(), from_floatexp<T>(max_dc), epsilon,
                             options.cancel, &table)) {
            stats.cancelled = true;
            return;
        }
        stats.bla_ms = table.build_ms;
        stats.bla_levels = table.view.levels;
    }
    const BlaView<T> bla = options.use_bla ? bla_view(&table) : BlaView<T>{};
    const T spacing = from_floatexp<T>(spacing_fe);
    const DeepComplex<T> offset{from_floatexp<T>(offset_fe.re), from_floatexp<T>(offset_fe.im)};
    const int64_t last_index = orbit.last_index();
    const int64_t max_iterations = location.max_iterations;
    const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();

    auto start = Clock::now();
    uint64_t iterations = 0, bla_iterations = 0, bla_skips = 0, steps = 0, rebases = 0, escaped = 0;
    std::atomic<int> rows_done{0};
    bool cancelled = false;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) \
    reduction(+ : iterations, bla_iterations, bla_skips, steps, rebases, escaped) reduction(|| : cancelled)
    for (int y = 0; y < height; ++y) {
        if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
            cancelled = true;
            continue;
        }
        PixelCounters counters;
        const T dy = deep_from_double<T>(-(y + 0.5 - 0.5 * height)) * spacing;
        for (int x = 0; x < width; ++x) {
            const T dx = deep_from_double<T>(x + 0.5 - 0.5 * width) * spacing;
            const DeepComplex<T> dc{offset.re + dx, offset.im + dy};
            const size_t i = size_t(y) * size_t(width) + size_t(x);
            frame->escape_count[i] =
                options.rebase ? iterate_pixel<T, true>(Z, last_index, bla, dc, max_iterations, &frame->mu[i], counters)
                               : iterate_pixel<T, false>(Z, last_index, bla, dc, max_iterations, &frame->mu[i], counters);
        }
        iterations += counters.iterations;
        bla_iterations += counters.bla_iterations;
        bla_skips += counters.bla_skips;
        steps += counters.steps;
        rebases += counters.rebases;
        escaped += counters.escaped;
        int done = rows_done.fetch_add(1) + 1;
        if (options.row_progress) options.row_progress(done, height);
    }
    stats.pixels_ms = ms_since(start);
    stats.iterations = iterations;
    stats.bla_iterations = bla_iterations;
    stats.bla_skips = bla_skips;
    stats.perturbation_steps = steps;
    stats.rebases = rebases;
    stats.escaped_pixels = escaped;
    stats.cancelled = stats.cancelled || cancelled;
}

}  // namespace

const char* deep_number_type_name(DeepNumberType type) {
    switch (type) {
        case DeepNumberType::Auto: return "auto";
        case DeepNumberType::Double: return "double";
        case DeepNumberType::FloatExp: return "floatexp";
    }
    return "?";
}

DeepNumberType deep_resolve_number_type(DeepZoom zoom, int height, const ReferenceOrbit& orbit,
                                        DeepNumberType requested) {
    if (requested != DeepNumberType::Auto) return requested;
    FloatExp spacing = deep_pixel_spacing(zoom, height);
    if (spacing >= fe_from_double(kDoubleMinSpacing) && orbit.fits_double()) return DeepNumberType::Double;
    return DeepNumberType::FloatExp;
}

DeepFrame deep_cpu(const DeepLocation& location, int width, int height,
                   const DeepRenderOptions& options) {
    std::string error = validate_deep_location(location);
    if (error.empty() && (width < 1 || height < 1))
        error = "The image size must be at least 1x1 pixels.";
    if (!error.empty()) throw std::invalid_argument(error);
    auto start = Clock::now();
    DeepFrame frame;
    frame.width = width;
    frame.height = height;
    frame.escape_count.assign(size_t(width) * size_t(height), -1);
    frame.mu.assign(size_t(width) * size_t(height), -1.0);

    ReferenceControl control{options.cancel, options.reference_progress};
    bool cached = false;
    auto orbit = reference_for(options.cache, location, width, height, control, &cached);
    if (!orbit) {
        frame.stats.cancelled = true;
        frame.stats.frame_ms = ms_since(start);
        return frame;
    }
    DeepFrameStats& stats = frame.stats;
    stats.reference_cached = cached;
    stats.reference_ms = cached ? 0.0 : orbit->compute_ms;
    stats.reference_iterations = orbit->last_index();
    stats.precision_bits = orbit->precision_bits;
    stats.number_type = deep_resolve_number_type(location.zoom, height, *orbit, options.number_type);

    DeepComplex<FloatExp> offset{};
    if (orbit->center_re != location.center_re || orbit->center_im != location.center_im)
        offset = deep_center_offset(location, *orbit);
    FloatExp spacing = deep_pixel_spacing(location.zoom, height);
    if (stats.number_type == DeepNumberType::Double)
        render_pixels<double>(location, *orbit, orbit->z.data(), offset, spacing, options, &frame);
    else
        render_pixels<FloatExp>(location, *orbit, orbit->z_fe.data(), offset, spacing, options, &frame);
    stats.frame_ms = ms_since(start);
    return frame;
}

void colorize_deep(const double* mu, int64_t count, const PaletteTable& palette,
                   double palette_density, double palette_offset, uint8_t* rgba_out) {
    const double scale = palette_density / 100.0 * kPaletteTableSize;
    const double offset = palette_offset * kPaletteTableSize;
    for (int64_t i = 0; i < count; ++i) {
        uint32_t c = palette.interior_rgba;
        if (mu[i] >= 0.0) {
            // Reduce the position modulo the table before it meets float maths anywhere:
            // mu * scale reaches 1e9 at 1e7 iterations and keeps its fraction only in double.
            double position = std::fmod(mu[i] * scale + offset, double(kPaletteTableSize));
            c = palette_lookup(palette.rgba.data(), position);
        }
        std::memcpy(rgba_out + 4 * i, &c, 4);
    }
}

}  // namespace ms
