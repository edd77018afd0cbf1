// deep_cpu.cpp: the deep frame on the CPU: reference, BLA table, then perturbation with
// rebasing and BLA skips per pixel (see deep_cpu.h for the maths).
#include "compute/fractal/deep/deep_cpu.h"

#include <omp.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <typeinfo>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/deep/deep_cpu_lanes.h"
#include "compute/fractal/deep/deep_cpu_lanes_floatexp.h"
#include "compute/fractal/deep/deep_cpu_pixel-inl.h"
#include "compute/fractal/deep/deep_perturbation.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/maths/escape.h"

namespace ms {

namespace {

static_assert(kDeepBailoutSquared == kBailoutRadius * kBailoutRadius);
// Double deltas down to this pixel spacing; FloatExp below (the products of perturbation must
// stay clear of double's subnormals, 2.2e-308).
constexpr double kDoubleMinSpacing = 1e-290;
// The narrowest rows the SIMD lanes take (deep_cpu_lanes.h: four vectors of up to 8 doubles):
// narrower, most lanes would idle and the one-pixel loop is faster. The Burning Ship's and the
// Tricorn's one-pixel loop is slower than their lanes at any width (its folded step and 2x2
// matrices cost more a step, and their tables skip from level 4), so their rows take the lanes
// whatever their width.
constexpr int kLanesMinRegionWidth = 32;
template <Formula F>
constexpr int lanes_min_region_width() {
    return deep_formula_bla_is_matrix(F) ? 1 : kLanesMinRegionWidth;
}

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

using deep_cpu_detail::iterate_pixel;

template <typename T, Formula F, bool kJulia, bool kRebase, bool kDistance = false, bool kAtom = false>
void render_pixels(const DeepLocation& location, const DeepFrameSetup& setup, const DeepRenderOptions& options,
                   DeepFrame* frame) {
    // The region's pixels, each with its dc from its place in the whole frame.
    const int width = setup.frame_width, height = setup.frame_height;
    const DeepPixelRect region = setup.region;
    DeepFrameStats& stats = frame->stats;
    const ReferenceOrbit& orbit = *setup.orbit;
    const DeepComplex<T>* Z = deep_orbit_data<T>(orbit);
    const DeepComplex<T>* W = deep_critical_data<T>(orbit);
    const int64_t w_last = orbit.critical_last_index();
    using L = DeepBlaLinear<F, T>;
    std::shared_ptr<const BlaTable<T, L>> table, critical_table;
    if (!deep_frame_bla(setup, options, &table, &critical_table, &stats)) return;
    const BlaView<T, L> bla = bla_view(table.get());
    const BlaView<T, L> bla_w = bla_view(critical_table.get());
    // kAtom: each table's atom steps (deep_atom.h), for this frame.
    std::vector<DeepAtomStep<T>> atom_steps, atom_steps_w;
    if constexpr (kAtom) {
        atom_steps = build_deep_atom_steps(Z, bla);
        if (W) atom_steps_w = build_deep_atom_steps(W, bla_w);
    }
    const T spacing = deep_from_floatexp<T>(setup.spacing);
    const DeepComplex<T> offset{deep_from_floatexp<T>(setup.offset.re), deep_from_floatexp<T>(setup.offset.im)};
    const int64_t last_index = orbit.last_index();
    const int64_t max_iterations = location.max_iterations;
    const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    // The SIMD row loop serves every formula's parameter plane and Julia set in double deltas with
    // rebasing and BLA (deep frames down to 1e290), with or without the distance estimate and the
    // atom period; the FloatExp lanes (deep_cpu_lanes_floatexp.h) the same past 1e290. Frames with
    // BLA off (tests, and the benchmark's plain loop: the baseline) and a drag's narrow strips run
    // deep_iterate_pixel a pixel at a time.
    constexpr bool kLanesType = std::is_same_v<T, double> && deep_lanes_take(F) && kRebase;
    // A region a few pixels wide (a drag's strip, deep_pan.h) runs a pixel at a time too, but the
    // Burning Ship's and the Tricorn's (lanes_min_region_width): the lanes fill from one row, so
    // most would idle and the strip take longer.
    const bool use_lanes = kLanesType && options.use_bla && region.width >= lanes_min_region_width<F>() &&
                           (!kJulia || (W && critical_table));
    constexpr bool kFloatExpLanes = std::is_same_v<T, FloatExp> && deep_lanes_take(F) && kRebase;
    const bool use_floatexp_lanes = kFloatExpLanes && options.use_bla && region.width >= kLanesMinRegionWidth &&
                                    (!kJulia || (W && critical_table));

    auto start = Clock::now();
    uint64_t iterations = 0, bla_iterations = 0, bla_skips = 0, steps = 0, rebases = 0, escaped = 0;
    std::atomic<int> rows_done{0};
    bool cancelled = false;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) \
    reduction(+ : iterations, bla_iterations, bla_skips, steps, rebases, escaped) reduction(|| : cancelled)
    for (int row = 0; row < region.height; ++row) {
        const int y = region.y + row;  // the frame's row
        if (options.row_stride > 1 && y % options.row_stride != options.row_offset) continue;
        if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
            cancelled = true;
            continue;
        }
        DeepPixelCounters counters;
        const T dy = deep_from_double<T>(-(y + 0.5 - 0.5 * height)) * spacing;
        const size_t row_start = size_t(row) * size_t(region.width);
        // The pixel's offset from the reference point, as every path below takes it.
        auto dc_of = [&](int column) {
            const T dx = deep_from_double<T>(region.x + column + 0.5 - 0.5 * width) * spacing;
            return DeepComplex<T>{offset.re + dx, offset.im + dy};
        };
        float* distance_out = kDistance ? &frame->distance[row_start] : nullptr;
        bool row_done_by_lanes = false;
        if constexpr (kLanesType) {
            if (use_lanes) {
                // One pixel per SIMD lane (deep_cpu_lanes.h: the same arithmetic).
                thread_local std::vector<double> dc_re, dc_im;
                dc_re.resize(size_t(region.width));
                dc_im.resize(size_t(region.width));
                for (int column = 0; column < region.width; ++column) {
                    const DeepComplex<T> dc = dc_of(column);
                    dc_re[size_t(column)] = dc.re;
                    dc_im[size_t(column)] = dc.im;
                }
                DeepLanesRow job = deep_lanes_job(Z, last_index, bla, table.get(), max_iterations);
                job.formula = F;
                job.dc_re = dc_re.data();
                job.dc_im = dc_im.data();
                deep_lanes_outputs(region.width, &frame->escape_count[row_start], &frame->mu[row_start], spacing,
                                   distance_out, &job);
                if constexpr (kAtom) {
                    job.atom_steps = atom_steps.empty() ? nullptr : atom_steps.data();
                    job.atom_period = &frame->atom[row_start];
                }
                if constexpr (kJulia) {
                    deep_lanes_julia(W, w_last, bla_w, *critical_table, &job);
                    if constexpr (kAtom) job.atom_steps_w = atom_steps_w.empty() ? nullptr : atom_steps_w.data();
                }
                deep_lanes_row(job, &counters);
                row_done_by_lanes = true;
            }
        }
        if constexpr (kFloatExpLanes) {
            if (use_floatexp_lanes) {
                // One pixel per SIMD lane (deep_cpu_lanes_floatexp.h: the same arithmetic).
                thread_local std::vector<DeepComplex<FloatExp>> dc;
                dc.resize(size_t(region.width));
                for (int column = 0; column < region.width; ++column) dc[size_t(column)] = dc_of(column);
                DeepLanesRowFloatExp job = deep_lanes_floatexp_job(Z, last_index, bla, table.get(), max_iterations);
                job.formula = F;
                job.dc = dc.data();
                deep_lanes_outputs(region.width, &frame->escape_count[row_start], &frame->mu[row_start], spacing,
                                   distance_out, &job);
                if constexpr (kAtom) {
                    job.atom_steps = atom_steps.empty() ? nullptr : atom_steps.data();
                    job.atom_period = &frame->atom[row_start];
                }
                if constexpr (kJulia) {
                    deep_lanes_floatexp_julia(W, w_last, bla_w, *critical_table, &job);
                    if constexpr (kAtom) job.atom_steps_w = atom_steps_w.empty() ? nullptr : atom_steps_w.data();
                }
                deep_lanes_row_floatexp(job, &counters);
                row_done_by_lanes = true;
            }
        }
        if (!row_done_by_lanes) {
            for (int column = 0; column < region.width; ++column) {
                const DeepComplex<T> dc = dc_of(column);
                const size_t i = row_start + size_t(column);
                if constexpr (kAtom)
                    frame->escape_count[i] = iterate_pixel<T, kRebase, F, kJulia, kDistance, true>(
                        Z, last_index, bla, dc, max_iterations, &frame->mu[i], counters, W, w_last, &bla_w,
                        DeepDistanceOutput<T>{spacing, kDistance ? &frame->distance[i] : nullptr}, nullptr, nullptr,
                        nullptr, nullptr, int64_t(0),
                        DeepAtomOutput<T>{atom_steps.empty() ? nullptr : atom_steps.data(),
                                          atom_steps_w.empty() ? nullptr : atom_steps_w.data(), &frame->atom[i]});
                else if constexpr (kDistance)
                    frame->escape_count[i] = iterate_pixel<T, kRebase, F, kJulia, true>(
                        Z, last_index, bla, dc, max_iterations, &frame->mu[i], counters, W, w_last, &bla_w,
                        DeepDistanceOutput<T>{spacing, &frame->distance[i]});
                else
                    frame->escape_count[i] = iterate_pixel<T, kRebase, F, kJulia, false>(
                        Z, last_index, bla, dc, max_iterations, &frame->mu[i], counters, W, w_last, &bla_w);
            }
        }
        iterations += counters.iterations;
        bla_iterations += counters.bla_iterations;
        bla_skips += counters.bla_skips;
        steps += counters.steps;
        rebases += counters.rebases;
        escaped += counters.escaped;
        if (options.row_done) options.row_done(y, &frame->escape_count[row_start], &frame->mu[row_start]);
        int done = rows_done.fetch_add(1) + 1;
        if (options.row_progress) options.row_progress(done, region.height);
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

void deep_frame_outputs(const DeepRenderOptions& options, DeepFrame* frame) {
    const size_t pixels = size_t(frame->width) * size_t(frame->height);
    if (frame->escape_count.size() != pixels) frame->escape_count.assign(pixels, -1);
    if (frame->mu.size() != pixels) frame->mu.assign(pixels, -1.0);
    if (options.distance && frame->distance.size() != pixels) frame->distance.assign(pixels, 0.0f);
    if (options.atom && frame->atom.size() != pixels) frame->atom.assign(pixels, 0.0f);
}

ReferenceControl deep_reference_control(const DeepRenderOptions& options) {
    ReferenceControl control{options.cancel, options.reference_progress};
    control.stop_at_nucleus = options.rebase && options.stop_reference_at_period;
    return control;
}

DeepFrameSetup deep_frame_setup(const DeepLocation& location, int width, int height, const DeepRenderOptions& options,
                                DeepFrame* frame, bool outputs) {
    std::string error = validate_deep_location(location);
    if (error.empty() && (width < 1 || height < 1 || int64_t(width) * height > (int64_t(1) << 30)))
        error = "The image size must be between 1x1 pixels and 2^30 pixels in all.";
    DeepPixelRect region = options.region;
    if (region.width == 0 && region.height == 0) region = {0, 0, width, height};
    if (error.empty() && (region.x < 0 || region.y < 0 || region.width < 1 || region.height < 1 ||
                          region.x > width - region.width || region.y > height - region.height))
        error = "The region to render must be a nonempty rectangle inside the " + std::to_string(width) + "x" +
                std::to_string(height) + " image.";
    if (!error.empty()) throw std::invalid_argument(error);
    frame->width = region.width;
    frame->height = region.height;
    frame->region = region;
    if (!options.rebase && (location.formula != Formula::Mandelbrot || location.julia))
        throw std::invalid_argument(
            "Perturbation without rebasing is only a test of the Mandelbrot set's parameter plane.");
    if (outputs) deep_frame_outputs(options, frame);
    DeepFrameSetup setup;
    setup.region = region;
    setup.frame_width = width;
    setup.frame_height = height;
    setup.map = orbit_map(location);
    bool cached = false;
    setup.orbit = reference_for(options.cache, location, width, height, deep_reference_control(options), &cached);
    DeepFrameStats& stats = frame->stats;
    if (!setup.orbit) {
        stats.cancelled = true;
        return setup;
    }
    const ReferenceOrbit& orbit = *setup.orbit;
    frame->reference = setup.orbit;
    stats.reference_cached = cached;
    stats.reference_ms = cached ? 0.0 : orbit.compute_ms;
    stats.reference_iterations = orbit.last_index();
    stats.reference_period = orbit.period;
    stats.precision_bits = orbit.precision_bits;
    stats.number_type = deep_resolve_number_type(location.zoom, height, orbit, options.number_type);
    if (orbit.center_re != location.center_re || orbit.center_im != location.center_im)
        setup.offset = deep_center_offset(location, orbit);
    setup.spacing = deep_pixel_spacing(location.zoom, height);
    // The frame's largest |dc|: the reference's offset plus the half diagonal. A Julia set's
    // steps add no dc (its pixels' offsets are their starting deltas): 0 for its BLA tables.
    setup.max_dc = deep_cabs(setup.offset) +
                   setup.spacing * fe_from_double(0.5 * std::hypot(double(width), double(height)));
    if (location.julia) setup.max_dc = FloatExp{};
    return setup;
}

DeepBlaRequest deep_bla_request(const DeepFrameSetup& setup, const DeepRenderOptions& options) {
    DeepBlaRequest request;
    request.epsilon = options.bla_epsilon > 0.0 ? options.bla_epsilon : kBlaDefaultEpsilon;
    request.needed_dc = setup.max_dc;
    // The |dc| a new table is built for: the frame's largest, or the headroom asked for (a Julia
    // set's steps add no dc: none there).
    request.build_dc = setup.max_dc;
    if (options.bla_min_radius_pixels > 0.0 && !setup.map.julia) {
        const FloatExp headroom = setup.spacing * fe_from_double(options.bla_min_radius_pixels);
        if (headroom > request.build_dc) request.build_dc = headroom;
    }
    return request;
}

template <typename T, typename L>
bool deep_frame_bla(const DeepFrameSetup& setup, const DeepRenderOptions& options,
                    std::shared_ptr<const BlaTable<T, L>>* table, std::shared_ptr<const BlaTable<T, L>>* critical_table,
                    DeepFrameStats* stats) {
    const ReferenceOrbit& orbit = *setup.orbit;
    const Formula formula = setup.map.formula;
    auto build = [&](bool critical, const DeepBlaRequest& request) -> std::shared_ptr<BlaTable<T, L>> {
        auto built = std::make_shared<BlaTable<T, L>>();
        const DeepComplex<T>* z = critical ? deep_critical_data<T>(orbit) : deep_orbit_data<T>(orbit);
        const int64_t last = critical ? orbit.critical_last_index() : orbit.last_index();
        const T max_dc = deep_from_floatexp<T>(request.build_dc);
        bool ok;
        if constexpr (std::is_same_v<L, DeepMatrix<T>>)
            ok = build_bla_table_matrix(z, last, max_dc, request.epsilon, options.cancel, built.get(),
                                        formula == Formula::BurningShip);
        else
            ok = build_bla_table(z, last, max_dc, request.epsilon, options.cancel, built.get(),
                                 formula_degree(formula));
        return ok ? built : nullptr;
    };
    return deep_frame_tables<BlaTable<T, L>>(setup, options, typeid(BlaTable<T, L>).name(), false, build, table,
                                             critical_table, stats);
}

#define MS_DEEP_FRAME_BLA(T, L)                                                                                        \
    template bool deep_frame_bla<T, L>(const DeepFrameSetup&, const DeepRenderOptions&,                                \
                                       std::shared_ptr<const BlaTable<T, L>>*, std::shared_ptr<const BlaTable<T, L>>*, \
                                       DeepFrameStats*);
MS_DEEP_FRAME_BLA(double, DeepComplex<double>)
MS_DEEP_FRAME_BLA(FloatExp, DeepComplex<FloatExp>)
MS_DEEP_FRAME_BLA(double, DeepMatrix<double>)
MS_DEEP_FRAME_BLA(FloatExp, DeepMatrix<FloatExp>)
#undef MS_DEEP_FRAME_BLA

DeepFrame deep_cpu(const DeepLocation& location, int width, int height, const DeepRenderOptions& options) {
    auto start = Clock::now();
    DeepFrame frame;
    DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
    if (setup.orbit) {
        const bool is_double = frame.stats.number_type == DeepNumberType::Double;
        if (!options.rebase) {  // Mandelbrot only (deep_frame_setup checked)
            if (is_double) render_pixels<double, Formula::Mandelbrot, false, false>(location, setup, options, &frame);
            else render_pixels<FloatExp, Formula::Mandelbrot, false, false>(location, setup, options, &frame);
        } else if (options.atom) {  // every formula and Julia set, with or without the distance
            deep_dispatch_formula(setup.map, [&]<Formula F, bool kJulia>() {
                if (options.distance) {
                    if (is_double) render_pixels<double, F, kJulia, true, true, true>(location, setup, options, &frame);
                    else render_pixels<FloatExp, F, kJulia, true, true, true>(location, setup, options, &frame);
                } else {
                    if (is_double)
                        render_pixels<double, F, kJulia, true, false, true>(location, setup, options, &frame);
                    else render_pixels<FloatExp, F, kJulia, true, false, true>(location, setup, options, &frame);
                }
            });
        } else if (options.distance) {  // every formula and Julia set (deep_derivative.h)
            deep_dispatch_formula(setup.map, [&]<Formula F, bool kJulia>() {
                if (is_double) render_pixels<double, F, kJulia, true, true>(location, setup, options, &frame);
                else render_pixels<FloatExp, F, kJulia, true, true>(location, setup, options, &frame);
            });
        } else {
            deep_dispatch_formula(setup.map, [&]<Formula F, bool kJulia>() {
                if (is_double) render_pixels<double, F, kJulia, true>(location, setup, options, &frame);
                else render_pixels<FloatExp, F, kJulia, true>(location, setup, options, &frame);
            });
        }
    }
    frame.stats.frame_ms = ms_since(start);
    return frame;
}

void colourize_deep(const double* mu, int64_t count, const PaletteTable& palette, double palette_density,
                    double palette_offset, uint8_t* rgba_out) {
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
