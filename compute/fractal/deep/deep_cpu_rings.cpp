// deep_cpu_rings.cpp: deep pixels on rings (deep_cpu_rings.h), deep_cpu's loop over a polar grid.
#include "compute/fractal/deep/deep_cpu_rings.h"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "compute/fractal/deep/deep_cpu_lanes.h"
#include "compute/fractal/deep/deep_cpu_lanes_floatexp.h"
#include "compute/fractal/deep/deep_cpu_pixel-inl.h"
#include "compute/fractal/deep/deep_perturbation.h"

namespace ms {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
constexpr double kTwoPi = 6.283185307179586;
// deep_cpu's limits: double deltas down to this point spacing, and the SIMD lanes from rings of
// this many points.
constexpr double kDoubleMinSpacing = 1e-290;
constexpr int kLanesMinColumns = 32;

template <typename T, Formula F, bool kJulia, bool kDistance>
void render_rings(const DeepLocation& location, const DeepFrameSetup& setup, const DeepRings& rings,
                  const DeepRenderOptions& options, DeepRingsFrame* out) {
    DeepFrameStats& stats = out->stats;
    const ReferenceOrbit& orbit = *setup.orbit;
    const DeepComplex<T>* Z = deep_orbit_data<T>(orbit);
    const DeepComplex<T>* W = deep_critical_data<T>(orbit);
    const int64_t w_last = orbit.critical_last_index();
    using L = DeepBlaLinear<F, T>;
    std::shared_ptr<const BlaTable<T, L>> table, critical_table;
    if (!deep_frame_bla(setup, options, &table, &critical_table, &stats)) return;
    const BlaView<T, L> bla = bla_view(table.get());
    const BlaView<T, L> bla_w = bla_view(critical_table.get());
    const DeepComplex<T> offset{deep_from_floatexp<T>(setup.offset.re), deep_from_floatexp<T>(setup.offset.im)};
    const int64_t last_index = orbit.last_index();
    const int64_t max_iterations = location.max_iterations;
    const int columns = rings.columns;
    const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    constexpr bool kLanesType = std::is_same_v<T, double> && deep_lanes_take(F);
    const bool use_lanes = kLanesType && options.use_bla && columns >= kLanesMinColumns &&
                           (!kJulia || (W && critical_table));
    // Rings past 1e290 of every formula and plane the FloatExp lanes take (deep_cpu_lanes_floatexp.h).
    constexpr bool kFloatExpLanes = std::is_same_v<T, FloatExp> && deep_lanes_take(F);
    const bool use_floatexp_lanes = kFloatExpLanes && options.use_bla && columns >= kLanesMinColumns &&
                                    (!kJulia || (W && critical_table));
    // The unit circle's points, shared by every ring.
    std::vector<double> cos_x(static_cast<size_t>(columns)), sin_x(static_cast<size_t>(columns));
    for (int x = 0; x < columns; ++x) {
        const double angle = kTwoPi * (x + 0.5) / columns;
        cos_x[size_t(x)] = std::cos(angle);
        sin_x[size_t(x)] = std::sin(angle);
    }

    const auto start = Clock::now();
    uint64_t iterations = 0, bla_iterations = 0, bla_skips = 0, steps = 0, rebases = 0, escaped = 0;
    bool cancelled = false;
    const int count = int(rings.radius.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) \
    reduction(+ : iterations, bla_iterations, bla_skips, steps, rebases, escaped) reduction(|| : cancelled)
    for (int y = 0; y < count; ++y) {
        if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
            cancelled = true;
            continue;
        }
        DeepPixelCounters counters;
        const T radius = deep_from_floatexp<T>(rings.radius[size_t(y)]);
        const size_t row_start = size_t(y) * size_t(columns);
        thread_local std::vector<DeepComplex<T>> dc;
        dc.resize(size_t(columns));
        for (int x = 0; x < columns; ++x)
            dc[size_t(x)] = {offset.re + radius * deep_from_double<T>(cos_x[size_t(x)]),
                             offset.im + radius * deep_from_double<T>(sin_x[size_t(x)])};
        // The derivative in units of this ring's point spacing (deep_perturbation.h's
        // DeepDistanceOutput), so the estimate comes out in those units.
        [[maybe_unused]] const T spacing = radius * deep_from_double<T>(kTwoPi / columns);
        float* distance_out = kDistance ? &out->distance[row_start] : nullptr;
        bool done_by_lanes = false;
        if constexpr (kLanesType) {
            if (use_lanes) {
                thread_local std::vector<double> dc_re, dc_im;
                dc_re.resize(size_t(columns));
                dc_im.resize(size_t(columns));
                for (int x = 0; x < columns; ++x) {
                    dc_re[size_t(x)] = dc[size_t(x)].re;
                    dc_im[size_t(x)] = dc[size_t(x)].im;
                }
                DeepLanesRow job = deep_lanes_job(Z, last_index, bla, table.get(), max_iterations);
                job.formula = F;
                job.dc_re = dc_re.data();
                job.dc_im = dc_im.data();
                deep_lanes_outputs(columns, &out->escape_count[row_start], &out->mu[row_start], spacing, distance_out,
                                   &job);
                if constexpr (kJulia) deep_lanes_julia(W, w_last, bla_w, *critical_table, &job);
                deep_lanes_row(job, &counters);
                done_by_lanes = true;
            }
        }
        if constexpr (kFloatExpLanes) {
            if (use_floatexp_lanes) {
                DeepLanesRowFloatExp job = deep_lanes_floatexp_job(Z, last_index, bla, table.get(), max_iterations);
                job.formula = F;
                job.dc = dc.data();
                deep_lanes_outputs(columns, &out->escape_count[row_start], &out->mu[row_start], spacing, distance_out,
                                   &job);
                if constexpr (kJulia) deep_lanes_floatexp_julia(W, w_last, bla_w, *critical_table, &job);
                deep_lanes_row_floatexp(job, &counters);
                done_by_lanes = true;
            }
        }
        if (!done_by_lanes) {
            for (int x = 0; x < columns; ++x) {
                const size_t i = row_start + size_t(x);
                if constexpr (kDistance)
                    out->escape_count[i] = deep_cpu_detail::iterate_pixel<T, true, F, kJulia, true>(
                        Z, last_index, bla, dc[size_t(x)], max_iterations, &out->mu[i], counters, W, w_last, &bla_w,
                        DeepDistanceOutput<T>{spacing, &out->distance[i]});
                else
                    out->escape_count[i] = deep_cpu_detail::iterate_pixel<T, true, F, kJulia, false>(
                        Z, last_index, bla, dc[size_t(x)], max_iterations, &out->mu[i], counters, W, w_last, &bla_w);
            }
        }
        iterations += counters.iterations;
        bla_iterations += counters.bla_iterations;
        bla_skips += counters.bla_skips;
        steps += counters.steps;
        rebases += counters.rebases;
        escaped += counters.escaped;
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

DeepRingsSetup deep_rings_setup(const DeepLocation& location, int width, int height, const DeepRings& rings,
                                const DeepRenderOptions& options_in, DeepRingsFrame* out) {
    if (rings.columns < 1 || rings.radius.empty())
        throw std::invalid_argument("The rings must have at least one ring of at least one point.");
    FloatExp largest{}, smallest{};
    for (size_t y = 0; y < rings.radius.size(); ++y) {
        const FloatExp r = rings.radius[y];
        if (!(r > FloatExp{}) || !std::isfinite(r.mantissa))
            throw std::invalid_argument("Every ring's radius must be positive and finite.");
        if (y == 0 || r > largest) largest = r;
        if (y == 0 || r < smallest) smallest = r;
    }
    DeepRingsSetup rs;
    rs.options = options_in;
    rs.options.region = {};
    rs.options.bla_min_radius_pixels = 0.0;
    out->columns = rings.columns;
    out->rings = int(rings.radius.size());
    DeepFrame frame;  // deep_frame_setup's checks and the reference; its outputs stay empty
    rs.setup = deep_frame_setup(location, width, height, rs.options, &frame, false);
    out->stats = frame.stats;
    out->reference = rs.setup.orbit;
    if (!rs.setup.orbit) return rs;
    // The BLA table's largest |dc|: the outer ring's, from the reference point (a Julia set's
    // steps add no dc: 0, as deep_frame_setup has it).
    if (!location.julia) rs.setup.max_dc = deep_cabs(rs.setup.offset) + largest;
    const FloatExp spacing = smallest * fe_from_double(kTwoPi / rings.columns);
    rs.setup.spacing = spacing;
    DeepNumberType type = rs.options.number_type;
    if (type == DeepNumberType::Auto)
        type = spacing >= fe_from_double(kDoubleMinSpacing) && rs.setup.orbit->fits_double() ? DeepNumberType::Double
                                                                                             : DeepNumberType::FloatExp;
    out->stats.number_type = type;
    rs.is_double = type == DeepNumberType::Double;
    return rs;
}

DeepRingsFrame deep_cpu_rings(const DeepLocation& location, int width, int height, const DeepRings& rings,
                              const DeepRenderOptions& options_in) {
    const auto start = Clock::now();
    DeepRingsFrame out;
    const DeepRingsSetup rs = deep_rings_setup(location, width, height, rings, options_in, &out);
    if (!rs.setup.orbit) return out;
    const size_t points = size_t(out.rings) * size_t(out.columns);
    out.escape_count.assign(points, -1);
    out.mu.assign(points, -1.0);
    if (rs.options.distance) out.distance.assign(points, 0.0f);
    const DeepRenderOptions& options = rs.options;
    const bool is_double = rs.is_double;
    deep_dispatch_formula(rs.setup.map, [&]<Formula F, bool kJulia>() {
        if (options.distance) {
            if (is_double) render_rings<double, F, kJulia, true>(location, rs.setup, rings, options, &out);
            else render_rings<FloatExp, F, kJulia, true>(location, rs.setup, rings, options, &out);
        } else {
            if (is_double) render_rings<double, F, kJulia, false>(location, rs.setup, rings, options, &out);
            else render_rings<FloatExp, F, kJulia, false>(location, rs.setup, rings, options, &out);
        }
    });
    out.stats.frame_ms = ms_since(start);
    return out;
}

}  // namespace ms
