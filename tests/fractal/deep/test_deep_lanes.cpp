// test_deep_lanes.cpp: deep_cpu's SIMD row loops (deep_cpu_lanes.h, and deep_cpu_lanes_floatexp.h
// for FloatExp deltas) against the one-pixel loop they replace (deep_iterate_pixel,
// deep_perturbation.h): the same escape count and the same smooth value (and distance estimate and
// atom period, where the frame has them), bit for bit, on every pixel, and the same counters
// (steps, skips, rebases), at the 1e50 location (rust-fractal-core's e50, Kalles Fraktaler 2's 1e50
// benchmark), at its centre seen from 1e20, at the glitch location glitch_test_3 (4.1e158), at
// Kalles Fraktaler 2's 4e533 and 1e1086, and with BLA off. The MPFR truth is test_deep_render's
// business: deep_cpu runs these loops there. Also deep_cuda's form of the loop (kPacked), run on
// the CPU, against the one-pixel loop.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cpu_rings.h"
#include "compute/fractal/deep/deep_cpu_lanes.h"
#include "compute/fractal/deep/deep_cpu_lanes_floatexp.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/deep/deep_perturbation.h"
#include "compute/io/assets.h"
#include "tests/fractal/deep/deep_family_locations.h"

using namespace ms;
using namespace ms::test;

namespace {

DeepLocation load(const std::string& name, const char* zoom = nullptr) {
    DeepLocation location;
    const std::string path = (find_data_dir("assets") / "locations").string() + "/" + name + ".kfr";
    EXPECT_EQ(read_kfr(path, &location), "");
    if (zoom) {
        EXPECT_EQ(parse_deep_zoom(zoom, &location.zoom), "");
    }
    return location;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// One pixel's outputs: escape count, smooth value, distance estimate, atom period.
struct PixelOutputs {
    int64_t count;
    double mu;
    float estimate, period;
};

// The lanes' outputs of pixel (x, y) are the one-pixel loop's, bit for bit; counts the pixels that
// differ in *differ and reports the first five.
void expect_same_pixel(int x, int y, const PixelOutputs& one, const PixelOutputs& lanes, int* differ) {
    if (one.count == lanes.count && same_bits(one.mu, lanes.mu) && same_bits(one.estimate, lanes.estimate) &&
        same_bits(one.period, lanes.period))
        return;
    if ((*differ)++ < 5)
        ADD_FAILURE() << "pixel (" << x << ", " << y << "): one-pixel loop " << one.count << " mu " << one.mu
                      << " estimate " << one.estimate << " period " << one.period << ", lanes " << lanes.count << " mu "
                      << lanes.mu << " estimate " << lanes.estimate << " period " << lanes.period;
}

// The lanes' counters are the one-pixel loop's.
void expect_same_counters(const DeepPixelCounters& lanes, const DeepPixelCounters& one) {
    EXPECT_EQ(lanes.iterations, one.iterations);
    EXPECT_EQ(lanes.bla_iterations, one.bla_iterations);
    EXPECT_EQ(lanes.bla_skips, one.bla_skips);
    EXPECT_EQ(lanes.steps, one.steps);
    EXPECT_EQ(lanes.rebases, one.rebases);
    EXPECT_EQ(lanes.escaped, one.escaped);
}

// What the lanes run with: the table's lane layout (BlaTable::lane_points), which the AVX-512 loop
// takes where the CPU has AVX-512 (without it the Highway loop runs), the distance estimate and the
// atom period; kAllInside: a frame that no pixel leaves (the checks that some escape are off).
enum Lanes : unsigned { kPortable = 0, kLayout = 1, kDistance = 2, kAtom = 4, kAllInside = 8 };

// A Julia set's critical orbit W and what goes with it (unused on a parameter plane); L the
// table's linear maps (complex numbers, or the Burning Ship's and the Tricorn's matrices).
template <typename T, class L = DeepComplex<T>>
struct CriticalOrbitOf {
    const DeepComplex<T>* W = nullptr;
    int64_t last = 0;
    const BlaView<T, L>* bla = nullptr;
    const DeepAtomStep<T>* atom_steps = nullptr;
};
template <class L = DeepComplex<double>>
struct CriticalOrbit : CriticalOrbitOf<double, L> {};

// The one-pixel loop of formula F with the outputs asked for.
template <Formula F, bool kJulia, bool kWithDistance, bool kWithAtom>
int64_t one_pixel(const DeepComplex<double>* Z, int64_t last, const BlaView<double, DeepBlaLinear<F, double>>& bla,
                  DeepComplex<double> dc, int64_t max_iterations, double* mu, DeepPixelCounters& counters,
                  double spacing, float* estimate, const DeepAtomStep<double>* atom_steps, float* period,
                  const CriticalOrbit<DeepBlaLinear<F, double>>& w) {
    return deep_iterate_pixel<double, true, F, kJulia, kWithDistance, false, false, false, kWithAtom>(
        Z, last, bla, dc, max_iterations, mu, counters, w.W, w.last, w.bla,
        DeepDistanceOutput<double>{spacing, kWithDistance ? estimate : nullptr}, nullptr, nullptr, nullptr, nullptr,
        int64_t(0), DeepAtomOutput<double>{atom_steps, w.atom_steps, kWithAtom ? period : nullptr});
}
template <Formula F, bool kJulia>
auto one_pixel_loop(bool distance, bool atom) {
    return distance ? (atom ? one_pixel<F, kJulia, true, true> : one_pixel<F, kJulia, true, false>)
                    : (atom ? one_pixel<F, kJulia, false, true> : one_pixel<F, kJulia, false, false>);
}
template <Formula F>
auto one_pixel_plane(bool julia, bool distance, bool atom) {
    return julia ? one_pixel_loop<F, true>(distance, atom) : one_pixel_loop<F, false>(distance, atom);
}
// Those of complex tables: the Mandelbrot set and the Multibrots.
decltype(one_pixel_plane<Formula::Mandelbrot>(false, false, false)) one_pixel_complex(Formula formula, bool julia,
                                                                                      bool distance, bool atom) {
    switch (formula) {
    case Formula::Multibrot3: return one_pixel_plane<Formula::Multibrot3>(julia, distance, atom);
    case Formula::Multibrot4: return one_pixel_plane<Formula::Multibrot4>(julia, distance, atom);
    case Formula::Multibrot5: return one_pixel_plane<Formula::Multibrot5>(julia, distance, atom);
    case Formula::Multibrot6: return one_pixel_plane<Formula::Multibrot6>(julia, distance, atom);
    case Formula::Multibrot7: return one_pixel_plane<Formula::Multibrot7>(julia, distance, atom);
    case Formula::Multibrot8: return one_pixel_plane<Formula::Multibrot8>(julia, distance, atom);
    default: return one_pixel_plane<Formula::Mandelbrot>(julia, distance, atom);
    }
}

// The formulas the lanes take (deep_cpu_lanes.h), their parameter planes and Julia sets: those
// of complex tables (the Mandelbrot set and the Multibrots), and those of matrix tables (the
// Burning Ship and the Tricorn).
template <class L>
auto one_pixel_for(Formula formula, bool julia, bool distance, bool atom) {
    if constexpr (std::is_same_v<L, DeepMatrix<double>>) {
        return formula == Formula::Tricorn ? one_pixel_plane<Formula::Tricorn>(julia, distance, atom)
                                           : one_pixel_plane<Formula::BurningShip>(julia, distance, atom);
    } else {
        return one_pixel_complex(formula, julia, distance, atom);
    }
}

// Renders the frame's rows both ways (as deep_cpu's render_pixels samples them) and compares; L
// the formula's linear maps (deep_formula_bla_is_matrix).
template <class L = DeepComplex<double>>
void check_lanes(const DeepLocation& location, int width, int height, bool use_bla, unsigned lanes_with = kPortable) {
    const bool layout = lanes_with & kLayout, distance = lanes_with & kDistance, atom = lanes_with & kAtom;
    SCOPED_TRACE("lanes target " + std::string(deep_lanes_target()) + (layout ? " with the lane layout" : "") +
                 (distance ? " with the distance estimate" : "") + (atom ? " with the atom period" : ""));
    DeepRenderOptions options;
    options.use_bla = use_bla;
    DeepFrame frame;
    const DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
    ASSERT_TRUE(setup.orbit);
    ASSERT_TRUE(setup.orbit->fits_double());
    std::shared_ptr<const BlaTable<double, L>> table, critical;
    ASSERT_TRUE((deep_frame_bla<double, L>(setup, options, &table, &critical, &frame.stats)));
    const BlaView<double, L> bla = bla_view(table.get());
    EXPECT_EQ(bla.levels > 0, use_bla);
    const double spacing = fe_to_double(setup.spacing);
    const DeepComplex<double> offset{fe_to_double(setup.offset.re), fe_to_double(setup.offset.im)};
    const DeepComplex<double>* Z = setup.orbit->z.data();
    const int64_t last = setup.orbit->last_index();

    DeepPixelCounters one, lanes;
    int differ = 0, pixels = 0;
    std::vector<double> dc_re(static_cast<size_t>(width)), dc_im(static_cast<size_t>(width)),
        mu(static_cast<size_t>(width));
    std::vector<int64_t> count(static_cast<size_t>(width));
    std::vector<float> estimate(static_cast<size_t>(width), -1.0f), period(static_cast<size_t>(width), -1.0f);
    int estimates = 0;  // pixels with a positive estimate
    std::vector<DeepAtomStep<double>> atom_steps;
    if (atom) atom_steps = build_deep_atom_steps(Z, bla);
    const DeepAtomStep<double>* steps = atom_steps.empty() ? nullptr : atom_steps.data();
    // A Julia set's critical orbit and its table.
    CriticalOrbit<L> w;
    const BlaView<double, L> bla_w = bla_view(critical.get());
    std::vector<DeepAtomStep<double>> atom_steps_w;
    if (location.julia) {
        ASSERT_TRUE(critical);
        w.W = deep_critical_data<double>(*setup.orbit);
        w.last = setup.orbit->critical_last_index();
        w.bla = &bla_w;
        if (atom) atom_steps_w = build_deep_atom_steps(w.W, bla_w);
        w.atom_steps = atom_steps_w.empty() ? nullptr : atom_steps_w.data();
    }
    int periods = 0;  // pixels with an atom period
    for (int y = 0; y < height; ++y) {
        const double dy = -(y + 0.5 - 0.5 * height) * spacing;
        for (int x = 0; x < width; ++x) {
            dc_re[size_t(x)] = offset.re + (x + 0.5 - 0.5 * width) * spacing;
            dc_im[size_t(x)] = offset.im + dy;
        }
        DeepLanesRow row;
        row.formula = location.formula;
        if (location.julia) {
            deep_lanes_julia(w.W, w.last, *w.bla, *critical, &row);
            row.atom_steps_w = w.atom_steps;
        }
        row.orbit = Z;
        row.last_index = last;
        deep_lanes_set_table(&bla, &row);
        row.bla_r2 = table ? table->r2.data() : nullptr;
        if (layout && table && !table->lane_points.empty()) {
            row.lane_points = table->lane_points.data();
            row.lane_chain = table->lane_chain.data();
        }
        row.dc_re = dc_re.data();
        row.dc_im = dc_im.data();
        row.count = width;
        row.max_iterations = location.max_iterations;
        row.escape_count = count.data();
        row.mu = mu.data();
        if (distance) {
            row.spacing = spacing;
            row.distance = estimate.data();
        }
        if (atom) {
            row.atom_steps = steps;
            row.atom_period = period.data();
        }
        deep_lanes_row(row, &lanes);
        for (int x = 0; x < width; ++x, ++pixels) {
            double expected_mu = 0.0;
            float expected_estimate = -1.0f, expected_period = -1.0f;
            const DeepComplex<double> dc{dc_re[size_t(x)], dc_im[size_t(x)]};
            const auto loop = one_pixel_for<L>(location.formula, location.julia, distance, atom);
            const int64_t expected = loop(Z, last, bla, dc, location.max_iterations, &expected_mu, one, spacing,
                                          &expected_estimate, steps, &expected_period, w);
            estimates += expected_estimate > 0.0f;
            periods += expected_period > 0.0f;
            expect_same_pixel(x, y, {expected, expected_mu, expected_estimate, expected_period},
                              {count[size_t(x)], mu[size_t(x)], estimate[size_t(x)], period[size_t(x)]}, &differ);
        }
    }
    EXPECT_EQ(differ, 0) << "of " << pixels << " pixels";
    expect_same_counters(lanes, one);
    if (!(lanes_with & kAllInside)) {
        EXPECT_GT(one.escaped, 0u);
    }
    if (use_bla) {
        EXPECT_GT(one.bla_skips, 0u);
    }
    if (distance && !(lanes_with & kAllInside)) {
        EXPECT_GT(estimates, pixels / 10) << "pixels with an estimate, of " << pixels;
    }
    if (atom) {
        EXPECT_GT(periods, pixels / 2) << "pixels with an atom period, of " << pixels;
    }
}

// The loop as deep_cuda runs it (kPacked: the orbit beside level 0's radii, skips found by
// bla_lookup_batched in the table's compact radii; kResume: in pieces of a step budget), here on
// the CPU, against the one-pixel loop: the same escape count, mu and counters on every pixel.
// deep_cuda's own test compares the GPU's frames with deep_cpu's where a device exists; this one
// runs everywhere.
template <typename T>
void check_packed(const DeepLocation& location, int width, int height, DeepNumberType type) {
    DeepRenderOptions options;
    options.number_type = type;
    DeepFrame frame;
    const DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
    ASSERT_TRUE(setup.orbit);
    std::shared_ptr<const BlaTable<T, DeepComplex<T>>> table, critical;
    ASSERT_TRUE((deep_frame_bla<T, DeepComplex<T>>(setup, options, &table, &critical, &frame.stats)));
    ASSERT_TRUE(table);
    const BlaView<T, DeepComplex<T>> bla = bla_view(table.get());
    BlaView<T, DeepComplex<T>> packed_bla = bla;
    packed_bla.r2 = table->r2.data();
    const DeepComplex<T>* Z = deep_orbit_data<T>(*setup.orbit);
    const int64_t last = setup.orbit->last_index();
    std::vector<DeepOrbitPoint<T>> points(static_cast<size_t>(last + 1));
    for (int64_t m = 0; m <= last; ++m) points[size_t(m)] = deep_orbit_point(Z, bla, m);
    const T spacing = deep_from_floatexp<T>(setup.spacing);
    const DeepComplex<T> offset{deep_from_floatexp<T>(setup.offset.re), deep_from_floatexp<T>(setup.offset.im)};
    DeepPixelCounters one, packed, resumed;
    int differ = 0, suspensions = 0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const T dy = deep_from_double<T>(-(y + 0.5 - 0.5 * height)) * spacing;
            const T dx = deep_from_double<T>(x + 0.5 - 0.5 * width) * spacing;
            const DeepComplex<T> dc{offset.re + dx, offset.im + dy};
            double expected_mu = 0.0, packed_mu = 0.0;
            const int64_t expected = deep_iterate_pixel<T, true>(Z, last, bla, dc, location.max_iterations,
                                                                 &expected_mu, one);
            const int64_t k = deep_iterate_pixel<T, true, Formula::Mandelbrot, false, false, false, true>(
                nullptr, last, packed_bla, dc, location.max_iterations, &packed_mu, packed, nullptr, 0, nullptr, {},
                nullptr, points.data());
            // And in pieces of at most 50 steps, as deep_cuda's passes run it.
            DeepPixelResume<T> state;
            double resumed_mu = 0.0;
            int64_t r = kDeepPixelSuspended;
            while (r == kDeepPixelSuspended) {
                r = deep_iterate_pixel<T, true, Formula::Mandelbrot, false, false, false, true, true>(
                    nullptr, last, packed_bla, dc, location.max_iterations, &resumed_mu, resumed, nullptr, 0, nullptr,
                    {}, nullptr, points.data(), nullptr, &state, 50);
                suspensions += r == kDeepPixelSuspended;
            }
            if (k != expected || !same_bits(expected_mu, packed_mu) || r != expected ||
                !same_bits(expected_mu, resumed_mu)) {
                if (differ++ < 5)
                    ADD_FAILURE() << "pixel (" << x << ", " << y << "): one-pixel loop " << expected << " mu "
                                  << expected_mu << ", packed " << k << " mu " << packed_mu << ", resumed " << r
                                  << " mu " << resumed_mu;
            }
        }
    EXPECT_EQ(differ, 0) << "of " << width * height << " pixels";
    for (const DeepPixelCounters* c : {&packed, &resumed}) {
        EXPECT_EQ(c->iterations, one.iterations);
        EXPECT_EQ(c->bla_iterations, one.bla_iterations);
        EXPECT_EQ(c->bla_skips, one.bla_skips);
        EXPECT_EQ(c->steps, one.steps);
        EXPECT_EQ(c->rebases, one.rebases);
        EXPECT_EQ(c->escaped, one.escaped);
    }
    EXPECT_GT(suspensions, width * height);
    EXPECT_GT(one.bla_skips, 0u);
    EXPECT_GT(one.rebases, 0u);
}

// The lanes' FloatExp operations against floatexp.h's, bit for bit: operands whose exponents differ
// by every amount around those where a case changes (64 for a sum, 110 either way for a fused
// multiply-add), both signs, zeros of both signs, exact cancellations and equal values.
void check_floatexp_operations() {
    std::mt19937_64 random(20261129);
    std::uniform_real_distribution<double> unit(1.0, 2.0);
    auto number = [&](int64_t exponent) { return FloatExp{(random() & 1 ? -1.0 : 1.0) * unit(random), exponent}; };
    std::vector<FloatExp> a, b, c;
    for (int64_t shift = -140; shift <= 140; ++shift)
        for (int k = 0; k < 6; ++k) {
            a.push_back(number(int64_t(random() % 4001) - 2000));
            b.push_back(number(int64_t(random() % 21) - 10));
            c.push_back(number(a.back().exponent + b.back().exponent - shift));  // a b about 2^shift of c
        }
    const FloatExp zero{0.0, kFloatExpZeroExponent}, negative_zero{-0.0, kFloatExpZeroExponent};
    for (int k = 0; k < 16; ++k) {
        const FloatExp x = number(int64_t(random() % 201) - 100), y = number(int64_t(random() % 201) - 100);
        const FloatExp cases[][3] = {
            {zero, x, y}, {x, negative_zero, y}, {x, y, zero},   {x, y, negative_zero},       {zero, zero, x},
            {x, -x, x},   {x, x, -(x * x)},      {-x, x, x * x}, {negative_zero, zero, zero}, {x, x, x}};
        for (const auto& t : cases) {
            a.push_back(t[0]);
            b.push_back(t[1]);
            c.push_back(t[2]);
        }
    }
    const size_t n = a.size();
    std::vector<FloatExp> sum(n), product(n), fused(n), less(n);
    deep_floatexp_lanes_apply(DeepFloatExpLaneOp::Add, a.data(), c.data(), nullptr, sum.data(), n);
    deep_floatexp_lanes_apply(DeepFloatExpLaneOp::Mul, a.data(), b.data(), nullptr, product.data(), n);
    deep_floatexp_lanes_apply(DeepFloatExpLaneOp::Fma, a.data(), b.data(), c.data(), fused.data(), n);
    deep_floatexp_lanes_apply(DeepFloatExpLaneOp::Less, a.data(), c.data(), nullptr, less.data(), n);
    auto same = [](FloatExp x, FloatExp y) { return same_bits(x.mantissa, y.mantissa) && x.exponent == y.exponent; };
    int differ = 0;
    for (size_t i = 0; i < n; ++i) {
        const bool ok = same(sum[i], a[i] + c[i]) && same(product[i], a[i] * b[i]) &&
                        same(fused[i], fe_fma(a[i], b[i], c[i])) && (less[i].mantissa == 1.0) == (a[i] < c[i]);
        if (!ok && differ++ < 5)
            ADD_FAILURE() << "operands " << i << ": (" << a[i].mantissa << ", " << a[i].exponent << ") ("
                          << b[i].mantissa << ", " << b[i].exponent << ") (" << c[i].mantissa << ", " << c[i].exponent
                          << ")";
    }
    EXPECT_EQ(differ, 0) << "of " << n << " operand triples";
}

// The one-pixel loop of formula F in FloatExp with the outputs asked for (kJulia: a Julia set,
// whose critical orbit is w).
template <Formula F, bool kJulia, bool kWithDistance, bool kWithAtom>
int64_t one_floatexp_pixel(const DeepComplex<FloatExp>* Z, int64_t last,
                           const BlaView<FloatExp, DeepBlaLinear<F, FloatExp>>& bla, DeepComplex<FloatExp> dc,
                           int64_t max_iterations, double* mu, DeepPixelCounters& counters, FloatExp spacing,
                           float* estimate, const DeepAtomStep<FloatExp>* atom_steps, float* period,
                           const CriticalOrbitOf<FloatExp, DeepBlaLinear<F, FloatExp>>& w) {
    return deep_iterate_pixel<FloatExp, true, F, kJulia, kWithDistance, false, false, false, kWithAtom>(
        Z, last, bla, dc, max_iterations, mu, counters, w.W, w.last, w.bla,
        DeepDistanceOutput<FloatExp>{spacing, kWithDistance ? estimate : nullptr}, nullptr, nullptr, nullptr, nullptr,
        int64_t(0), DeepAtomOutput<FloatExp>{atom_steps, w.atom_steps, kWithAtom ? period : nullptr});
}
template <Formula F, bool kJulia>
auto one_floatexp_pixel_on(bool distance, bool atom) {
    return distance ? (atom ? one_floatexp_pixel<F, kJulia, true, true> : one_floatexp_pixel<F, kJulia, true, false>)
                    : (atom ? one_floatexp_pixel<F, kJulia, false, true> : one_floatexp_pixel<F, kJulia, false, false>);
}
template <Formula F>
auto one_floatexp_pixel_plane(bool julia, bool distance, bool atom) {
    return julia ? one_floatexp_pixel_on<F, true>(distance, atom) : one_floatexp_pixel_on<F, false>(distance, atom);
}
// The formula's loop, of complex tables (the Mandelbrot set and the Multibrots) or of matrix
// tables (the Burning Ship and the Tricorn), as check_lanes' one_pixel_for picks it.
template <class L>
auto one_floatexp_pixel_for(Formula formula, bool julia, bool distance, bool atom) {
    if constexpr (std::is_same_v<L, DeepMatrix<FloatExp>>) {
        return formula == Formula::BurningShip ? one_floatexp_pixel_plane<Formula::BurningShip>(julia, distance, atom)
                                               : one_floatexp_pixel_plane<Formula::Tricorn>(julia, distance, atom);
    } else {
        switch (formula) {
        case Formula::Multibrot3: return one_floatexp_pixel_plane<Formula::Multibrot3>(julia, distance, atom);
        case Formula::Multibrot4: return one_floatexp_pixel_plane<Formula::Multibrot4>(julia, distance, atom);
        case Formula::Multibrot5: return one_floatexp_pixel_plane<Formula::Multibrot5>(julia, distance, atom);
        case Formula::Multibrot6: return one_floatexp_pixel_plane<Formula::Multibrot6>(julia, distance, atom);
        case Formula::Multibrot7: return one_floatexp_pixel_plane<Formula::Multibrot7>(julia, distance, atom);
        case Formula::Multibrot8: return one_floatexp_pixel_plane<Formula::Multibrot8>(julia, distance, atom);
        default: return one_floatexp_pixel_plane<Formula::Mandelbrot>(julia, distance, atom);
        }
    }
}

// The FloatExp lanes (deep_cpu_lanes_floatexp.h) against the one-pixel loop in FloatExp: the same
// escape count and smooth value (and distance estimate with `distance`, atom period with `atom`)
// on every pixel, and the same counters. max_iterations > 0 replaces the location's (a limit some
// pixels reach); all_inside: a frame that no pixel leaves (the checks that some escape are off).
// The location may be a Julia set's, and shallower than 1e290 (FloatExp deltas are asked for).
// L: the formula's table's linear maps (check_floatexp picks them).
template <class L>
void check_floatexp_of(const DeepLocation& location, int width, int height, bool use_bla, int64_t max_iterations,
                       bool distance, bool atom, bool all_inside) {
    SCOPED_TRACE(std::string("floatexp lanes, ") + formula_name(location.formula) + ", BLA " +
                 (use_bla ? "on" : "off") + (location.julia ? ", a Julia set" : "") +
                 (distance ? ", the distance estimate" : "") + (atom ? ", the atom period" : ""));
    DeepRenderOptions options;
    options.use_bla = use_bla;
    options.number_type = DeepNumberType::FloatExp;
    DeepFrame frame;
    const DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
    ASSERT_TRUE(setup.orbit);
    std::shared_ptr<const BlaTable<FloatExp, L>> table, critical;
    ASSERT_TRUE((deep_frame_bla<FloatExp, L>(setup, options, &table, &critical, &frame.stats)));
    const BlaView<FloatExp, L> bla = bla_view(table.get());
    EXPECT_EQ(bla.levels > 0, use_bla);
    const DeepComplex<FloatExp>* Z = deep_orbit_data<FloatExp>(*setup.orbit);
    const int64_t last = setup.orbit->last_index();
    const int64_t limit = max_iterations > 0 ? max_iterations : location.max_iterations;
    DeepPixelCounters one, lanes;
    int differ = 0, inside = 0;
    std::vector<DeepComplex<FloatExp>> dc(static_cast<size_t>(width));
    std::vector<int64_t> count(static_cast<size_t>(width));
    std::vector<double> mu(static_cast<size_t>(width));
    std::vector<float> estimate(static_cast<size_t>(width), -1.0f);
    std::vector<float> period(static_cast<size_t>(width), -1.0f);
    int estimates = 0;  // pixels with a positive estimate
    int periods = 0;    // pixels with an atom period
    std::vector<DeepAtomStep<FloatExp>> atom_steps;
    if (atom) atom_steps = build_deep_atom_steps(Z, bla);
    const DeepAtomStep<FloatExp>* steps = atom_steps.empty() ? nullptr : atom_steps.data();
    const auto one_pixel = one_floatexp_pixel_for<L>(location.formula, location.julia, distance, atom);
    // A Julia set's critical orbit and its table.
    CriticalOrbitOf<FloatExp, L> w;
    const BlaView<FloatExp, L> bla_w = bla_view(critical.get());
    std::vector<DeepAtomStep<FloatExp>> atom_steps_w;
    if (location.julia) {
        ASSERT_TRUE(critical || !use_bla);
        w.W = deep_critical_data<FloatExp>(*setup.orbit);
        w.last = setup.orbit->critical_last_index();
        w.bla = &bla_w;
        if (atom) atom_steps_w = build_deep_atom_steps(w.W, bla_w);
        w.atom_steps = atom_steps_w.empty() ? nullptr : atom_steps_w.data();
    }
    for (int y = 0; y < height; ++y) {
        // deep_cpu's render_pixels: dc = offset + (dx, dy) in FloatExp.
        const FloatExp dy = fe_from_double(-(y + 0.5 - 0.5 * height)) * setup.spacing;
        for (int x = 0; x < width; ++x) {
            const FloatExp dx = fe_from_double(x + 0.5 - 0.5 * width) * setup.spacing;
            dc[size_t(x)] = DeepComplex<FloatExp>{setup.offset.re + dx, setup.offset.im + dy};
        }
        DeepLanesRowFloatExp row = deep_lanes_floatexp_job(Z, last, bla, table.get(), limit);
        row.formula = location.formula;
        row.dc = dc.data();
        row.count = width;
        row.escape_count = count.data();
        row.mu = mu.data();
        if (distance) {
            row.spacing = setup.spacing;
            row.distance = estimate.data();
        }
        if (atom) {
            row.atom_steps = steps;
            row.atom_period = period.data();
        }
        if (location.julia && critical) {
            deep_lanes_floatexp_julia(w.W, w.last, bla_w, *critical, &row);
            row.atom_steps_w = w.atom_steps;
        }
        deep_lanes_row_floatexp(row, &lanes);
        for (int x = 0; x < width; ++x) {
            double expected_mu = 0.0;
            float expected_estimate = -1.0f, expected_period = -1.0f;
            const int64_t expected = one_pixel(Z, last, bla, dc[size_t(x)], limit, &expected_mu, one, setup.spacing,
                                               &expected_estimate, steps, &expected_period, w);
            inside += expected < 0;
            estimates += expected_estimate > 0.0f;
            periods += expected_period > 0.0f;
            expect_same_pixel(x, y, {expected, expected_mu, expected_estimate, expected_period},
                              {count[size_t(x)], mu[size_t(x)], estimate[size_t(x)], period[size_t(x)]}, &differ);
        }
    }
    if (distance && !all_inside) {
        EXPECT_GT(estimates, width * height / 10) << "pixels with an estimate";
    }
    if (atom) {
        EXPECT_GT(periods, width * height / 2) << "pixels with an atom period";
    }
    EXPECT_EQ(differ, 0) << "of " << width * height << " pixels";
    expect_same_counters(lanes, one);
    if (!all_inside) {
        EXPECT_GT(one.escaped, 0u);
        EXPECT_GT(one.rebases, 0u);
    }
    if (use_bla) {
        EXPECT_GT(one.bla_skips, 0u);
    }
    if (max_iterations > 0) {
        EXPECT_GT(inside, 0) << "pixels at the limit";
    }
}
void check_floatexp(const DeepLocation& location, int width, int height, bool use_bla, int64_t max_iterations = 0,
                    bool distance = false, bool atom = false, bool all_inside = false) {
    if (deep_formula_bla_is_matrix(location.formula))
        check_floatexp_of<DeepMatrix<FloatExp>>(location, width, height, use_bla, max_iterations, distance, atom,
                                                all_inside);
    else
        check_floatexp_of<DeepComplex<FloatExp>>(location, width, height, use_bla, max_iterations, distance, atom,
                                                 all_inside);
}

}  // namespace

TEST(DeepLanes, PackedLoopMatchesOnePixelLoop) {
    check_packed<double>(load("e50", "1e20"), 23, 13, DeepNumberType::Double);
    check_packed<double>(load("glitch_test_3"), 17, 11, DeepNumberType::Double);
    check_packed<double>(load("e227"), 6, 4, DeepNumberType::Double);
    check_packed<FloatExp>(load("e533"), 9, 5, DeepNumberType::FloatExp);
}

TEST(DeepLanes, MatchesOnePixelLoopAtE50) { check_lanes(load("e50"), 29, 17, true); }

TEST(DeepLanes, MatchesOnePixelLoopAtE20) { check_lanes(load("e50", "1e20"), 37, 21, true); }

TEST(DeepLanes, MatchesOnePixelLoopAtGlitchLocation) { check_lanes(load("glitch_test_3"), 24, 14, true); }

TEST(DeepLanes, LaneLayoutMatchesOnePixelLoopAtE50) { check_lanes(load("e50"), 29, 17, true, kLayout); }

TEST(DeepLanes, LaneLayoutMatchesOnePixelLoopAtE20) { check_lanes(load("e50", "1e20"), 37, 21, true, kLayout); }

TEST(DeepLanes, LaneLayoutMatchesOnePixelLoopAtGlitchLocation) {
    check_lanes(load("glitch_test_3"), 24, 14, true, kLayout);
}

// The distance estimate: the same estimate, bit for bit, from both lane loops.
TEST(DeepLanes, DistanceMatchesOnePixelLoopAtE50) {
    check_lanes(load("e50"), 29, 17, true, kDistance);
    check_lanes(load("e50"), 29, 17, true, kLayout | kDistance);
}

TEST(DeepLanes, DistanceMatchesOnePixelLoopAtE20) {
    check_lanes(load("e50", "1e20"), 37, 21, true, kDistance);
    check_lanes(load("e50", "1e20"), 37, 21, true, kLayout | kDistance);
}

TEST(DeepLanes, DistanceMatchesOnePixelLoopAtGlitchLocation) {
    check_lanes(load("glitch_test_3"), 24, 14, true, kDistance);
    check_lanes(load("glitch_test_3"), 24, 14, true, kLayout | kDistance);
}

// The atom period: the same period, alone and beside the estimate, from both lane loops.
TEST(DeepLanes, AtomPeriodMatchesOnePixelLoopAtE50) {
    check_lanes(load("e50"), 29, 17, true, kAtom);
    check_lanes(load("e50"), 29, 17, true, kLayout | kAtom);
    check_lanes(load("e50"), 29, 17, true, kLayout | kAtom | kDistance);
}

TEST(DeepLanes, AtomPeriodMatchesOnePixelLoopAtE20) {
    check_lanes(load("e50", "1e20"), 37, 21, true, kAtom | kDistance);
    check_lanes(load("e50", "1e20"), 37, 21, true, kLayout | kAtom);
}

// Pixels at e50's centre from 1e30 that have not escaped by 5,000 iterations, whose smallest
// values lie inside skips (the atom steps' values, deep_atom.h).
TEST(DeepLanes, AtomPeriodFromInsideSkipsMatchesOnePixelLoop) {
    DeepLocation location = load("e50", "1e30");
    location.max_iterations = 5000;
    check_lanes(location, 40, 20, true, kAtom | kAllInside);
    check_lanes(location, 40, 20, true, kLayout | kAtom | kAllInside);
    check_lanes(location, 40, 20, true, kLayout | kAtom | kDistance | kAllInside);
}

TEST(DeepLanes, AtomPeriodMatchesOnePixelLoopAtGlitchLocation) {
    check_lanes(load("glitch_test_3"), 24, 14, true, kAtom);
    check_lanes(load("glitch_test_3"), 24, 14, true, kLayout | kAtom);
}

// Few iterations: lanes reach the limit inside skips' reach (the skip lengths capped).
TEST(DeepLanes, LaneLayoutMatchesOnePixelLoopNearTheLimit) {
    DeepLocation location = load("e50");
    location.max_iterations = 262000;
    check_lanes(location, 41, 9, true, kLayout);
    check_lanes(location, 41, 9, true, kLayout | kDistance);
    check_lanes(location, 41, 9, true, kLayout | kAtom);
}

TEST(DeepLanes, MatchesOnePixelLoopWithoutBla) {
    DeepLocation location = load("e50", "1e20");
    location.max_iterations = 20000;
    check_lanes(location, 19, 11, false);
    check_lanes(location, 19, 11, false, kDistance | kAtom);
}

// The fused multiply-adds (deep_perturbation.h) are Highway's MulAdd only where the target has
// FMA; on SSE4 the lanes take std::fma lane by lane, and still give the one-pixel loop's bits.
TEST(DeepLanes, MatchOnATargetWithoutFma) {
    if (!(hwy::SupportedTargets() & HWY_SSE4)) GTEST_SKIP() << "this CPU has no SSE4 target to fall back to";
    // The CPU's own targets again when the test ends, also through a failed assertion.
    struct Restore {
        ~Restore() { hwy::SetSupportedTargetsForTest(0); }
    } restore;
    hwy::SetSupportedTargetsForTest(HWY_SSE4);
    EXPECT_STREQ(deep_lanes_target(), "SSE4");
    check_lanes(load("e50", "1e20"), 37, 21, true);
    check_lanes(load("e50", "1e20"), 37, 21, true, kDistance | kAtom);
}

// The FloatExp lanes on the CPU's other targets: AVX2 (4 lanes, int64 compares emulated in part)
// and SSE4 (2 lanes, fe_fma's std::fma lane by lane).
TEST(DeepLanes, FloatExpMatchesOnOtherTargets) {
    struct Restore {
        ~Restore() { hwy::SetSupportedTargetsForTest(0); }
    } restore;
    int targets = 0;
    for (int64_t target : {int64_t(HWY_AVX2), int64_t(HWY_SSE4)}) {
        if (!(hwy::SupportedTargets() & target)) continue;
        hwy::SetSupportedTargetsForTest(target);
        SCOPED_TRACE(hwy::TargetName(target));
        check_floatexp_operations();
        check_floatexp(load("e533"), 19, 7, true, 0, true);
        check_floatexp(load("e533"), 19, 7, true, 0, true, true);
        check_floatexp(boundary_location(kJuliaRabbit, kSteps1e60, kFamilyIterations, "1E50"), 19, 7, true, 0, true,
                       true);
        ++targets;
    }
    if (targets == 0) GTEST_SKIP() << "this CPU has neither AVX2 nor SSE4";
}

// deep_cpu uses the lanes for this case: its frame is the one-pixel loop's (every row's pixels
// above) and BLA on and off agree there as test_deep_render asks.
TEST(DeepLanes, DeepCpuUsesThem) {
    const DeepLocation location = load("e50", "1e20");
    DeepRenderOptions options;
    options.threads = 2;
    const DeepFrame frame = deep_cpu(location, 37, 21, options);
    DeepPixelCounters one;
    std::shared_ptr<const BlaTable<double, DeepComplex<double>>> table, critical;
    DeepFrame scratch;
    const DeepFrameSetup setup = deep_frame_setup(location, 37, 21, options, &scratch);
    ASSERT_TRUE((deep_frame_bla<double, DeepComplex<double>>(setup, options, &table, &critical, &scratch.stats)));
    const BlaView<double, DeepComplex<double>> bla = bla_view(table.get());
    const double spacing = fe_to_double(setup.spacing);
    int differ = 0;
    for (int y = 0; y < 21; ++y)
        for (int x = 0; x < 37; ++x) {
            double mu = 0.0;
            const DeepComplex<double> dc{fe_to_double(setup.offset.re) + (x + 0.5 - 0.5 * 37) * spacing,
                                         fe_to_double(setup.offset.im) + -(y + 0.5 - 0.5 * 21) * spacing};
            const int64_t k = deep_iterate_pixel<double, true>(setup.orbit->z.data(), setup.orbit->last_index(), bla,
                                                               dc, location.max_iterations, &mu, one);
            const size_t i = size_t(y) * 37 + size_t(x);
            differ += k != frame.escape_count[i] || !same_bits(mu, frame.mu[i]);
        }
    EXPECT_EQ(differ, 0);
    EXPECT_EQ(frame.stats.perturbation_steps, one.steps);
    EXPECT_EQ(frame.stats.bla_skips, one.bla_skips);
}

// deep_cpu_rings (the video's polar grid) takes the lanes with the distance estimate too: every
// point's count, mu and estimate are the one-pixel loop's.
void check_rings(const DeepLocation& location) {
    DeepRings rings;
    rings.columns = 40;
    const FloatExp step = deep_pixel_spacing(location.zoom, 24);
    for (int r = 0; r < 8; ++r) rings.radius.push_back(step * fe_from_double(std::exp2(5.0 - r)));
    DeepRenderOptions options;
    options.distance = true;
    options.threads = 2;
    const DeepRingsFrame frame = deep_cpu_rings(location, 40, 24, rings, options);
    ASSERT_EQ(frame.distance.size(), size_t(8 * 40));
    DeepRingsFrame scratch;
    const DeepRingsSetup rs = deep_rings_setup(location, 40, 24, rings, options, &scratch);
    ASSERT_TRUE(rs.is_double);
    std::shared_ptr<const BlaTable<double, DeepComplex<double>>> table, critical;
    ASSERT_TRUE((deep_frame_bla<double, DeepComplex<double>>(rs.setup, rs.options, &table, &critical, &scratch.stats)));
    const BlaView<double, DeepComplex<double>> bla = bla_view(table.get());
    const BlaView<double, DeepComplex<double>> bla_w = bla_view(critical.get());
    CriticalOrbit<> w;
    if (location.julia) {
        ASSERT_TRUE(critical);
        w.W = deep_critical_data<double>(*rs.setup.orbit);
        w.last = rs.setup.orbit->critical_last_index();
        w.bla = &bla_w;
    }
    const DeepComplex<double> offset{fe_to_double(rs.setup.offset.re), fe_to_double(rs.setup.offset.im)};
    constexpr double kTwoPi = 6.283185307179586;  // deep_cpu_rings.cpp's
    const auto loop = one_pixel_for<DeepComplex<double>>(location.formula, location.julia, true, false);
    DeepPixelCounters one;
    int differ = 0, estimates = 0;
    for (int y = 0; y < 8; ++y) {
        const double radius = fe_to_double(rings.radius[size_t(y)]);
        const double spacing = radius * (kTwoPi / 40);
        for (int x = 0; x < 40; ++x) {
            const double angle = kTwoPi * (x + 0.5) / 40;
            const DeepComplex<double> dc{offset.re + radius * std::cos(angle), offset.im + radius * std::sin(angle)};
            double mu = 0.0;
            float estimate = -1.0f;
            const int64_t k = loop(rs.setup.orbit->z.data(), rs.setup.orbit->last_index(), bla, dc,
                                   location.max_iterations, &mu, one, spacing, &estimate, nullptr, nullptr, w);
            const size_t i = size_t(y) * 40 + size_t(x);
            estimates += estimate > 0.0f;
            differ += k != frame.escape_count[i] || !same_bits(mu, frame.mu[i]) ||
                      !same_bits(estimate, frame.distance[i]);
        }
    }
    EXPECT_EQ(differ, 0) << "of 320 points";
    EXPECT_GT(estimates, 40);
    EXPECT_EQ(frame.stats.perturbation_steps, one.steps);
    EXPECT_EQ(frame.stats.bla_skips, one.bla_skips);
    EXPECT_EQ(frame.stats.rebases, one.rebases);
}

TEST(DeepLanes, RingsWithTheDistanceEstimateMatchOnePixelLoop) {
    check_rings(load("e50", "1e20"));
    check_rings(boundary_location(kMultibrot3, kSteps1e60, kFamilyIterations, "1E20"));
    check_rings(boundary_location(kJuliaRabbit, kSteps1e60, kFamilyIterations, "1E50"));
}

// A family view on the Highway lanes (the AVX-512 loop is the Mandelbrot set's parameter
// plane's; given the lane layout, these rows still take the Highway loop): smooth, DE, and DE
// with the atom period.
void check_family(const FamilyCase& c, const char* zoom) {
    SCOPED_TRACE(c.name);
    const DeepLocation location = boundary_location(c, kSteps1e60, kFamilyIterations, zoom);
    check_lanes(location, 33, 13, true);
    check_lanes(location, 33, 13, true, kLayout | kDistance);
    check_lanes(location, 33, 13, true, kAtom | kDistance);
}

// The Multibrots at boundary views of 1E20: every degree's step (its Horner form) and derivative
// (d w^(d-1) D).
TEST(DeepLanes, MultibrotsMatchOnePixelLoop) {
    const FamilyCase multibrot8{"multibrot8", Formula::Multibrot8, false, "0", "0", "1.3", "0.4"};
    for (const FamilyCase* c : {&kMultibrot3, &kMultibrot4Tip, &kMultibrot5, &multibrot8}) check_family(*c, "1E20");
}

// Julia sets of the Mandelbrot set and of Multibrot 3 at 1E50: z_0 = dc, no dc a step, the
// critical orbit W and its table after a lane's first rebase.
TEST(DeepLanes, JuliaSetsMatchOnePixelLoop) {
    for (const FamilyCase* c : {&kJuliaRabbit, &kJuliaMultibrot3}) check_family(*c, "1E50");
}

// The Burning Ship and the Tricorn (their steps: the fold's diffabs cases, the conjugate; their
// skips by real 2x2 matrices; the estimate's Jacobian, the fold's sign per lane), smooth, with the
// estimate and with the atom period, at boundary views: their parameter
// planes at 1E20 (the hull at its iteration count where double deltas decide every pixel) and the
// Burning Ship's Julia set at 1E50.
void check_fold(const FamilyCase& c, const char* zoom, int64_t iterations = kFamilyIterations) {
    SCOPED_TRACE(c.name);
    const DeepLocation location = boundary_location(c, kSteps1e60, iterations, zoom);
    check_lanes<DeepMatrix<double>>(location, 33, 13, true);
    check_lanes<DeepMatrix<double>>(location, 33, 13, true, kAtom);
    check_lanes<DeepMatrix<double>>(location, 33, 13, true, kDistance);
    check_lanes<DeepMatrix<double>>(location, 33, 13, true, kDistance | kAtom);
}
TEST(DeepLanes, BurningShipAndTricornMatchOnePixelLoop) {
    for (const FamilyCase* c : {&kBurningShip, &kTricorn}) check_fold(*c, "1E20");
    check_fold(kBurningShipHull, "1E20", kBurningShipHullIterations1e20);
    check_fold(kJuliaBurningShip, "1E50");
}

// A row of a formula the lanes do not take (deep_lanes_take: none yet outside formula.h's) is
// refused with a sentence, not iterated as another; every formula is taken.
TEST(DeepLanes, RefuseAFormulaTheyDoNotTake) {
    const Formula none = Formula(255);  // no formula
    DeepLanesRow row;
    row.formula = none;
    DeepPixelCounters counters;
    EXPECT_THROW(deep_lanes_row(row, &counters), std::invalid_argument);
    DeepLanesRowFloatExp floatexp_row;
    floatexp_row.formula = none;
    EXPECT_THROW(deep_lanes_row_floatexp(floatexp_row, &counters), std::invalid_argument);
    EXPECT_FALSE(deep_lanes_take(none));
    for (Formula formula :
         {Formula::Mandelbrot, Formula::Multibrot3, Formula::Multibrot4, Formula::Multibrot5, Formula::Multibrot6,
          Formula::Multibrot7, Formula::Multibrot8, Formula::BurningShip, Formula::Tricorn}) {
        EXPECT_TRUE(deep_lanes_take(formula)) << formula_name(formula);
    }
}

// FloatExp deltas on the lanes, at Kalles Fraktaler 2's 4E533 and 1E1086 benchmark locations: the
// whole loop (steps, skips, rebases, escapes), at a limit that some pixels reach, and with BLA off.
TEST(DeepLanes, FloatExpMatchesOnePixelLoopAtE533) {
    check_floatexp(load("e533"), 37, 19, true);
    check_floatexp(load("e533"), 37, 19, true, 0, true);
}

TEST(DeepLanes, FloatExpMatchesOnePixelLoopAtE1086) {
    check_floatexp(load("e1086"), 29, 13, true);
    check_floatexp(load("e1086"), 29, 13, true, 0, true);
}

TEST(DeepLanes, FloatExpMatchesOnePixelLoopNearTheLimit) {
    check_floatexp(load("e533"), 33, 9, true, 104500);
    check_floatexp(load("e533"), 33, 9, true, 104500, true);
}

TEST(DeepLanes, FloatExpMatchesOnePixelLoopWithoutBla) { check_floatexp(load("e533"), 9, 5, false, 0, true); }

// The atom period on the FloatExp lanes, alone and beside the estimate, at 4E533 and 1E1086, near
// the limit (periods of pixels that never escape) and without BLA (no skips, no atom steps).
TEST(DeepLanes, FloatExpAtomPeriodMatchesOnePixelLoop) {
    check_floatexp(load("e533"), 37, 19, true, 0, false, true);
    check_floatexp(load("e533"), 37, 19, true, 0, true, true);
    check_floatexp(load("e1086"), 29, 13, true, 0, false, true);
    check_floatexp(load("e533"), 33, 9, true, 104500, true, true);
    check_floatexp(load("e533"), 9, 5, false, 0, false, true);
    // e50's centre from 1e30 in FloatExp, 5,000 iterations: no pixel escapes, and the smallest
    // values lie inside skips.
    DeepLocation location = load("e50", "1e30");
    location.max_iterations = 5000;
    check_floatexp(location, 40, 20, true, 0, false, true, true);
    check_floatexp(location, 40, 20, true, 0, true, true, true);
}

// A Julia set on the FloatExp lanes: z_0 = dc, no dc a step or a skip, D_0 = spacing, and after a
// lane's first rebase the critical orbit W, its table and its atom steps. The rabbit's at 1E50 (in
// FloatExp deltas) with every output, and at 1E300, where the frame needs them.
TEST(DeepLanes, FloatExpJuliaSetsMatchOnePixelLoop) {
    const DeepLocation near = boundary_location(kJuliaRabbit, kSteps1e60, kFamilyIterations, "1E50");
    check_floatexp(near, 33, 13, true);
    check_floatexp(near, 33, 13, true, 0, true);
    check_floatexp(near, 33, 13, true, 0, false, true);
    check_floatexp(near, 33, 13, true, 0, true, true);
    check_floatexp(near, 17, 5, true, 500, true, true);  // a limit some pixels reach
    const DeepLocation deep = boundary_location(kJuliaRabbit, kSteps1e320, 4000, "1E300");
    check_floatexp(deep, 29, 11, true, 0, true, true);
}

// The Multibrots on the FloatExp lanes: every degree's step (its Horner form), its skip A z + B dc
// and its derivative d w^(d-1) D, at boundary views of 1E20 (FloatExp asked for), with and without
// the estimate and the atom period; Multibrot 3's Julia set at 1E50.
TEST(DeepLanes, FloatExpMultibrotsMatchOnePixelLoop) {
    const FamilyCase multibrot8{"multibrot8", Formula::Multibrot8, false, "0", "0", "1.3", "0.4"};
    for (const FamilyCase* c : {&kMultibrot3, &kMultibrot4Tip, &kMultibrot5, &multibrot8}) {
        SCOPED_TRACE(c->name);
        const DeepLocation location = boundary_location(*c, kSteps1e60, kFamilyIterations, "1E20");
        check_floatexp(location, 23, 9, true);
        check_floatexp(location, 23, 9, true, 0, true, true);
    }
    const DeepLocation julia = boundary_location(kJuliaMultibrot3, kSteps1e60, kFamilyIterations, "1E50");
    check_floatexp(julia, 23, 9, true, 0, true);
    check_floatexp(julia, 23, 9, true, 0, false, true);
}

// The Burning Ship and the Tricorn on the FloatExp lanes: their folded steps (the Burning Ship's
// diffabs by its cases, the Tricorn's conjugate), skips by real 2x2 matrices and the estimate's
// Jacobian (the fold's sign per lane), at boundary views of 1E20 (FloatExp asked for; about half
// the pixels reach the limit), with and without the estimate and the atom period; the Burning
// Ship's Julia set at 1E50; the Tricorn's tip and the Burning Ship's Julia set at 1E320, where the
// frame needs them.
TEST(DeepLanes, FloatExpBurningShipAndTricornMatchOnePixelLoop) {
    for (const FamilyCase* c : {&kTricorn, &kBurningShip, &kBurningShipHull}) {
        SCOPED_TRACE(c->name);
        const DeepLocation location = boundary_location(*c, kSteps1e60, kFamilyIterations, "1E20");
        check_floatexp(location, 23, 9, true);
        check_floatexp(location, 23, 9, true, 0, true);
        check_floatexp(location, 23, 9, true, 0, false, true);
    }
    const DeepLocation julia = boundary_location(kJuliaBurningShip, kSteps1e60, kFamilyIterations, "1E50");
    check_floatexp(julia, 23, 9, true);
    check_floatexp(julia, 23, 9, true, 0, true, true);
    for (const FamilyCase* c : {&kTricornTip, &kJuliaBurningShip}) {
        SCOPED_TRACE(c->name);
        check_floatexp(boundary_location(*c, kSteps1e320, 1500, "1E320"), 29, 11, true, 0, true, true);
    }
}

// deep_cpu_rings (the video's polar grid) takes the FloatExp lanes for rings past 1e290, with the
// distance estimate: every point's count, mu and estimate are the one-pixel loop's.
TEST(DeepLanes, FloatExpRingsMatchOnePixelLoop) {
    const DeepLocation location = load("e533");
    DeepRings rings;
    rings.columns = 40;
    const FloatExp step = deep_pixel_spacing(location.zoom, 24);
    for (int r = 0; r < 6; ++r) rings.radius.push_back(step * fe_from_double(std::exp2(5.0 - r)));
    DeepRenderOptions options;
    options.threads = 2;
    options.distance = true;
    const DeepRingsFrame frame = deep_cpu_rings(location, 40, 24, rings, options);
    ASSERT_EQ(frame.distance.size(), size_t(6 * 40));
    DeepRingsFrame scratch;
    const DeepRingsSetup rs = deep_rings_setup(location, 40, 24, rings, options, &scratch);
    ASSERT_FALSE(rs.is_double);
    std::shared_ptr<const BlaTable<FloatExp, DeepComplex<FloatExp>>> table, critical;
    ASSERT_TRUE(
        (deep_frame_bla<FloatExp, DeepComplex<FloatExp>>(rs.setup, rs.options, &table, &critical, &scratch.stats)));
    const BlaView<FloatExp, DeepComplex<FloatExp>> bla = bla_view(table.get());
    const DeepComplex<FloatExp>* Z = deep_orbit_data<FloatExp>(*rs.setup.orbit);
    constexpr double kTwoPi = 6.283185307179586;  // deep_cpu_rings.cpp's
    DeepPixelCounters one;
    int differ = 0, estimates = 0;
    for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 40; ++x) {
            const double angle = kTwoPi * (x + 0.5) / 40;
            const FloatExp radius = rings.radius[size_t(y)];
            const DeepComplex<FloatExp> dc{rs.setup.offset.re + radius * fe_from_double(std::cos(angle)),
                                           rs.setup.offset.im + radius * fe_from_double(std::sin(angle))};
            const FloatExp spacing = radius * fe_from_double(kTwoPi / 40);
            double mu = 0.0;
            float estimate = -1.0f;
            const int64_t k = deep_iterate_pixel<FloatExp, true, Formula::Mandelbrot, false, true>(
                Z, rs.setup.orbit->last_index(), bla, dc, location.max_iterations, &mu, one, nullptr, 0, nullptr,
                DeepDistanceOutput<FloatExp>{spacing, &estimate});
            const size_t i = size_t(y) * 40 + size_t(x);
            estimates += estimate > 0.0f;
            differ += k != frame.escape_count[i] || !same_bits(mu, frame.mu[i]) ||
                      !same_bits(estimate, frame.distance[i]);
        }
    EXPECT_EQ(differ, 0) << "of 240 points";
    EXPECT_GT(estimates, 24);
    EXPECT_GT(one.escaped, 0u);
    EXPECT_EQ(frame.stats.perturbation_steps, one.steps);
    EXPECT_EQ(frame.stats.bla_skips, one.bla_skips);
    EXPECT_EQ(frame.stats.rebases, one.rebases);
}

// The FloatExp operations on this CPU's own target (check_floatexp_operations).
TEST(DeepLanes, FloatExpOperationsMatchTheScalarOnes) { check_floatexp_operations(); }
