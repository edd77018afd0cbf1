// deep_perturbation.h: one pixel of a deep frame, the loop the CPU (deep_cpu.cpp) and CUDA
// (deep_cuda.cu) siblings share, templated on the delta type T (double or FloatExp), on the
// formula (formula.h), on Julia or parameter plane, and on rebasing (on, or off for the tests'
// plain perturbation). See deep_cpu.h for the maths; no instantiation branches on the formula
// per iteration.
//
// One perturbation step: with the reference at Z (= Z_m) and the pixel at Z + z, the pixel's
// next delta is f(Z + z) - f(Z) (+ dc on the parameter plane), written so that nothing large
// cancels:
//   Mandelbrot     (Z + (Z + z)) z                  (Z + z: the pixel's full value, which the
//                                                    loop has from the escape test before;
//                                                    with fused multiply-adds, below)
//   Tricorn        conj((2Z + z) z)                 (conj(Z + z)^2 - conj(Z)^2)
//   Multibrot d    sum_{k=1..d} C(d,k) Z^(d-k) z^k  (the binomial expansion of (Z + z)^d - Z^d,
//                  by Horner in z: no term is a difference of near-equal powers)
//   Burning Ship   re: (2X + x) x - (2Y + y) y
//                  im: 2 diffabs(XY, Xy + x(Y + y)), diffabs(c, d) = |c + d| - |c| by cases on
//                  the signs of c and c + d (C. Heiland-Allen, "At the Helm of the Burning Ship",
//                  EVA 2019, section on perturbation)
// Rebasing (Zhuoran, 2021; Heiland-Allen, "Deep zoom theory and practice (again)", 2022): when
// the pixel is nearer the critical point 0 than the reference is to it, |Z + z| < |z|, or the
// reference ends, the pixel restarts on the orbit of the critical point with its full value as
// the delta. That orbit is the reference itself on the parameter plane (Z_0 = 0), for every
// formula here: each has the one critical point 0 (the Burning Ship and Tricorn too: the
// article names the Burning Ship among the formulas that need one reference). A Julia set's
// pixels start on the view centre's orbit (z = their offset from it, no dc) and rebase onto its
// critical orbit W (W_0 = 0, deep_reference.h), where they stay.
#pragma once

#include <math.h>

#include <cstdint>
#include <type_traits>

#include "compute/fractal/deep/deep_atom.h"
#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/deep/deep_derivative.h"
#include "compute/fractal/numbers/floatexp.h"
#include "compute/fractal/maths/formula_math.h"

namespace ms {

// kBailoutRadius^2, as in compute/fractal/direct/direct.h (256^2).
inline constexpr double kDeepBailoutSquared = 65536.0;

struct DeepPixelCounters {
    uint64_t iterations = 0, bla_iterations = 0, bla_skips = 0, steps = 0, rebases = 0, escaped = 0;
};

// Where one pixel's work went, for the benchmark that counts it (deep_bench_work; the loop's
// kWork instantiation, never the renderers'): ordinary steps before the pixel's first BLA skip
// and, after each rebase, before the next skip; level-0 tests that failed (each iteration that
// stepped) and skips by level (floor(log2(length))), and steps by how far |z| was past the
// single-step radius: bucket k holds log2(|z| / |2 Z_m|) in [4k - 56, 4k - 52) (the radius is
// epsilon = 2^-53 of |2 Z_m|; the last bucket holds everything from -4 up).
struct DeepPixelWork {
    uint64_t steps_before_first_skip = 0;
    uint64_t steps_after_rebase_before_skip = 0;
    uint64_t skips_by_level[kBlaMaxLevels] = {};
    uint64_t steps_by_ratio[14] = {};
};

// Binomial coefficient C(n, k), for the Multibrot step.
constexpr double deep_binomial(int n, int k) {
    double c = 1.0;
    for (int i = 1; i <= k; ++i) c = c * double(n - k + i) / double(i);
    return c;
}

// diffabs(c, d) = |c + d| - |c| without cancellation (the Burning Ship's step).
template <typename T>
MS_DEEP_HD T deep_diffabs(T c, T d) {
    const T s = c + d;
    if (!deep_negative(c)) return !deep_negative(s) ? d : -(deep_twice(c) + d);
    return !deep_negative(s) ? deep_twice(c) + d : -d;
}

// The Mandelbrot set's loop (kFused in deep_iterate_pixel) rounds with fused multiply-adds, each
// a*b + c rounded once (IEEE 754's fusedMultiplyAdd: fma() on CUDA, std::fma and Highway's MulAdd
// on the CPU, deep_cpu_lanes.cpp; fe_fma for FloatExp, which keeps double's bits in its range):
//   a z + c  re = fma(a.re, z.re, fma(-a.im, z.im, c.re)),  im = fma(a.re, z.im, fma(a.im, z.re, c.im))
//   a z      re = fma(a.re, z.re, -(a.im z.im)),            im = fma(a.re, z.im, a.im z.re)
//   |a|^2    fma(a.re, a.re, a.im a.im)
// A step is z -> a z + dc with a = 2 Z_m + z, a skip z -> A z + B dc. Two roundings of the
// product and sum where separate roundings take four, and two of a norm where they take three:
// the CUDA loop issues fewer instructions a step on the double-precision pipe (its SASS), and
// its dependency chain is shorter.
// The other formulas keep separate roundings.
template <typename T>
MS_DEEP_HD DeepComplex<T> deep_fused_mul_add(DeepComplex<T> a, DeepComplex<T> z, DeepComplex<T> c) {
    return {deep_fma(a.re, z.re, deep_fma(-a.im, z.im, c.re)), deep_fma(a.re, z.im, deep_fma(a.im, z.re, c.im))};
}
template <typename T>
MS_DEEP_HD DeepComplex<T> deep_fused_mul(DeepComplex<T> a, DeepComplex<T> z) {
    return {deep_fma(a.re, z.re, -(a.im * z.im)), deep_fma(a.re, z.im, a.im * z.re)};
}
template <typename T>
MS_DEEP_HD T deep_fused_norm(DeepComplex<T> a) {
    return deep_fma(a.re, a.re, a.im * a.im);
}

// f(Z + z) - f(Z) for formula F other than the Mandelbrot set (the header comment's table; the
// Mandelbrot set's loop takes its step as a z with a = Z + full, below); the caller adds dc.
template <Formula F, typename T>
MS_DEEP_HD DeepComplex<T> deep_perturbation_step(DeepComplex<T> Z, DeepComplex<T> z) {
    static_assert(F != Formula::Mandelbrot, "the Mandelbrot set's step is deep_iterate_pixel's fused one");
    if constexpr (F == Formula::Tricorn) {
        const DeepComplex<T> w = (deep_twice(Z) + z) * z;
        return {w.re, -w.im};
    } else if constexpr (F == Formula::BurningShip) {
        const T re = (deep_twice(Z.re) + z.re) * z.re - (deep_twice(Z.im) + z.im) * z.im;
        const T im = deep_twice(deep_diffabs(Z.re * Z.im, Z.re * z.im + z.re * (Z.im + z.im)));
        return {re, im};
    } else {
        constexpr int d = formula_degree(F);
        // Z^1 .. Z^(d-1).
        DeepComplex<T> power[d];
        power[1] = Z;
        MS_DEEP_UNROLL
        for (int j = 2; j < d; ++j) power[j] = power[j - 1] * Z;
        // Horner: acc = z + d Z, then acc = acc z + C(d,k) Z^(d-k) for k = d-2 .. 1; result acc z.
        DeepComplex<T> acc{z.re + deep_times_small(Z.re, double(d)), z.im + deep_times_small(Z.im, double(d))};
        MS_DEEP_UNROLL
        for (int k = d - 2; k >= 1; --k) {
            const double b = deep_binomial(d, k);
            const DeepComplex<T>& p = power[d - k];
            acc = acc * z;
            acc = {acc.re + deep_times_small(p.re, b), acc.im + deep_times_small(p.im, b)};
        }
        return acc * z;
    }
}

// The linear maps of formula F's BLA table (deep_bla.h): real 2x2 matrices for the Burning Ship
// and the Tricorn, complex multiplications for the others.
constexpr bool deep_formula_bla_is_matrix(Formula formula) {
    return formula == Formula::BurningShip || formula == Formula::Tricorn;
}
template <Formula F, typename T>
using DeepBlaLinear = std::conditional_t<deep_formula_bla_is_matrix(F), DeepMatrix<T>, DeepComplex<T>>;

// The smooth value of a pixel that escaped at n with |z_n|^2 = norm: direct.h's for degree 2,
// formula_math.h's generalisation (log_d, bailout 64) for the Multibrots.
template <Formula F>
MS_DEEP_HD double deep_smooth_mu(int64_t n, double norm) {
    double mu;
    if constexpr (formula_degree(F) == 2) {
        mu = double(n) + 1.0 - log2(0.5 * log(norm));
    } else {
        const double scale = 1.0 / log2(double(formula_degree(F)));
        const double constant = 1.0 + log2(log(formula_bailout_radius(F))) * scale - kLog2LnBailout;
        mu = double(n) + constant - log2(0.5 * log(norm)) * scale;
    }
    return mu > 0.0 ? mu : 0.0;
}

// The distance estimate's inputs (kDistance, every formula and Julia set): the pixel spacing
// and where the estimate goes.
//
// The derivative is tracked in the image's units: D = dz/dc * spacing, the change of z per
// pixel, so that DE in pixels is |z| ln|z| / |D| with nothing left to divide. Steps, for the
// Mandelbrot set (deep_derivative.h has every formula's, the Jacobians and the Julia sets'):
//   perturbation   D <- 2 (Z_m + z) D + spacing   (D_0 = 0; Z_m + z is the pixel's full value)
//   BLA skip       D <- A D + B spacing           (the derivative of z -> A z + B dc)
//   rebase         D unchanged                    (the full value, hence its derivative, is)
// Why scaled: dz/dc itself reaches |z| ln|z| / (DE in pixels * spacing), past 1e300 at a
// spacing of 1e-290 where double deltas still run, and overflows double soon after; D in
// pixels stays near |z| ln|z| / DE_px (about 1e3 on a filament a pixel wide) at every depth,
// and underflow cannot start (D_1 = spacing, above 1e-290 for double deltas, and each step
// adds it again). So D takes the deltas' type T where they are double; past, doubles under one
// shared exponent (deep_derivative.h's DeepScaled).
// Where |D| overflows anyway (a pixel within 1e-150 of a pixel of the boundary, or an orbit
// that stays chaotic for very long) the estimate is 0: on the boundary, as the direct path's.
template <typename T>
struct DeepDistanceOutput {
    T spacing{};
    float* distance = nullptr;  // DE in pixels; 0 inside
};

// The reference at m and level 0's BLA radius there (bla_first_radius), side by side: what every
// iteration of the pixel loop loads. On CUDA a pixel's m soon differs from its warp neighbours'
// (rebases, skips of different lengths), so each lane's loads are their own memory sectors: one
// 32-byte element (double) is one sector a step instead of two (Z_m, and the radius inside a
// 48-byte table entry). deep_cuda builds the array on the device from the orbit and the table;
// the values are the same, so the escape counts are too. The CPU reads the orbit and the table.
template <typename T>
struct alignas(sizeof(T) == 8 ? 32 : 16) DeepOrbitPoint {
    DeepComplex<T> z;
    T r0;
};

// Reads a point's values. On CUDA in 16-byte loads (2 for double, 3 for FloatExp: each FloatExp
// of the point is 16-byte aligned): copying the over-aligned struct, the compiler falls back to
// single-byte loads, which slow the kernel several times.
template <typename T>
MS_DEEP_HD void deep_load_point(const DeepOrbitPoint<T>* p, DeepComplex<T>* z, T* r0) {
#ifdef __CUDA_ARCH__
    const double2* q = reinterpret_cast<const double2*>(p);
    if constexpr (std::is_same_v<T, double>) {
        const double2 a = __ldg(q), b = __ldg(q + 1);
        *z = DeepComplex<double>{a.x, a.y};
        *r0 = b.x;
        return;
    } else if constexpr (std::is_same_v<T, FloatExp>) {
        const double2 a = __ldg(q), b = __ldg(q + 1), c = __ldg(q + 2);
        *z = DeepComplex<FloatExp>{FloatExp{a.x, __double_as_longlong(a.y)}, FloatExp{b.x, __double_as_longlong(b.y)}};
        *r0 = FloatExp{c.x, __double_as_longlong(c.y)};
        return;
    }
#endif
    *z = p->z;
    *r0 = p->r0;
}

// The point at m of an orbit z and its table's view bla (deep_cuda's pack_orbit_kernel, and the
// test that runs the kPacked loop on the CPU).
template <typename T, typename L>
MS_DEEP_HD DeepOrbitPoint<T> deep_orbit_point(const DeepComplex<T>* z, const BlaView<T, L>& bla, int64_t m) {
    return DeepOrbitPoint<T>{z[m], bla_first_radius(bla, m)};
}

// kWork: the steps run since the pixel's start or its last rebase, where no skip came since,
// count as steps before a skip (the first skip, or the first after a rebase).
MS_DEEP_HD void deep_count_steps_before_skip(DeepPixelWork* work, uint64_t steps_since, bool skipped_since,
                                             uint64_t rebases) {
    if (!skipped_since) {
        if (rebases == 0) work->steps_before_first_skip += steps_since;
        else work->steps_after_rebase_before_skip += steps_since;
    }
}

// kWork: a step's place in steps_by_ratio. Zm is the step's Z_m and z2 the |z|^2 that the failed
// level-0 test saw.
template <typename T>
MS_DEEP_HD void deep_count_step_ratio(DeepPixelWork* work, T z2, DeepComplex<T> Zm) {
    const double ratio2 = deep_to_double(deep_div(z2, deep_norm(deep_twice(Zm))));
    int bucket = ratio2 > 0.0 ? int(floor((0.5 * log2(ratio2) + 56.0) / 4.0)) : 0;
    bucket = bucket < 0 ? 0 : bucket > 13 ? 13 : bucket;
    ++work->steps_by_ratio[bucket];
}

// A finished pixel's figures: n iterations in all, bla_iterations of them skipped in bla_skips
// skips, every other one a step.
MS_DEEP_HD void deep_add_pixel_counters(DeepPixelCounters& counters, uint64_t n, uint64_t bla_iterations,
                                        uint64_t bla_skips, uint64_t rebases) {
    counters.iterations += n;
    counters.bla_iterations += bla_iterations;
    counters.bla_skips += bla_skips;
    counters.steps += n - bla_iterations;
    counters.rebases += rebases;
}

// A pixel's loop between two calls (kResume: deep_cuda's passes, which move the pixels still
// running into full warps): everything the loop carries that cannot be recomputed from it.
// Z_m, level 0's radius and |z|^2 are reloaded and recomputed exactly as the loop has them.
template <typename T>
struct alignas(16) DeepPixelResume {
    DeepComplex<T> z{};
    int64_t m = 0, base = 0;
    uint64_t bla_iterations = 0, bla_skips = 0, rebases = 0;
    bool started = false;      // false: the pixel starts from the beginning
    bool on_critical = false;  // a Julia set's pixel rebased onto W
};
// What deep_iterate_pixel returns when kResume's step budget ran out (the state is in *resume).
inline constexpr int64_t kDeepPixelSuspended = -2;

// Iterates the pixel at dc (its offset from the reference point). Returns its escape count
// (-1 inside) and writes mu (-1 inside). Julia sets (kJulia): dc is the pixel's offset from
// Z_0 (the view centre's orbit), no dc is added per step, and rebasing moves the pixel onto
// W (the critical orbit, its BLA table bla_w); elsewhere W, w_last and bla_w are not used.
// kDistance: also the distance estimate (DeepDistanceOutput above, deep_derivative.h); the loop
// without it is the smooth-only loop, unchanged.
// kPacked (CUDA): Z_m and level 0's radius come from `packed` (a Julia set's W from packed_w),
// DeepOrbitPoint above; Z and W are then unused; skips are looked up by bla_lookup_batched (the
// tables' views carry their radii in r2).
// kResume: starts from *resume where resume->started (else from the beginning), and once
// step_budget perturbation steps have run in this call, stops at the top of the loop, writes the
// state to *resume and returns kDeepPixelSuspended (counters and mu untouched); calls until one
// returns anything else compute what one uninterrupted call does, bit for bit. Not with
// kDistance or kWork.
// kAtom: also the atom-domain period into *atom.period (deep_atom.h): the full value's smallest
// |Z_m + z|^2 after each step and skip, and each skip's atom step (atom.steps, beside the BLA
// table, entry for entry). Not with kResume; the escape counts and mu are the loop's without it.
template <typename T, bool kRebase, Formula F = Formula::Mandelbrot, bool kJulia = false, bool kDistance = false,
          bool kWork = false, bool kPacked = false, bool kResume = false, bool kAtom = false>
MS_DEEP_HD int64_t deep_iterate_pixel(const DeepComplex<T>* Z, int64_t last_index,
                                      const BlaView<T, DeepBlaLinear<F, T>>& bla, DeepComplex<T> dc,
                                      int64_t max_iterations, double* mu_out, DeepPixelCounters& counters,
                                      const DeepComplex<T>* W = nullptr, int64_t w_last = 0,
                                      const BlaView<T, DeepBlaLinear<F, T>>* bla_w = nullptr,
                                      DeepDistanceOutput<T> distance = {}, DeepPixelWork* work = nullptr,
                                      const DeepOrbitPoint<T>* packed = nullptr,
                                      const DeepOrbitPoint<T>* packed_w = nullptr, DeepPixelResume<T>* resume = nullptr,
                                      int64_t step_budget = 0, DeepAtomOutput<T> atom = {}) {
    static_assert(!(kWork && kPacked), "kWork's ratio reads the step's Z_m, which kPacked has replaced by then");
    static_assert(!kResume || (!kDistance && !kWork), "kResume carries neither the derivative nor the work counts");
    static_assert(!(kResume && kAtom), "kResume does not carry the atom period");
    constexpr double bailout_squared = formula_bailout_radius(F) * formula_bailout_radius(F);
    DeepComplex<T> z{};
    if constexpr (kJulia) z = dc;
    // kDistance: the derivative D (deep_derivative.h). kCurrent (also the Mandelbrot set's step):
    // the pixel's full value before the step (Z_0 + z at the start: 0 on the parameter plane;
    // after a step, the `full` of the step before, also across a rebase, Z_0 = 0: Z_0 + full and
    // full differ at most in the sign of a zero, which the step's Z + full removes).
    [[maybe_unused]] DeepDerivative<F, T> derivative = deep_derivative_start<F, kJulia>(distance.spacing);
    // kFused: the Mandelbrot set's arithmetic (deep_fused_mul_add above). Its step's a = 2 Z_m + z
    // is Z_m + current (current = Z_m + z, which the loop has from the escape test): two additions
    // where Z_m + Z_m + z would be four, and as tight: after the rebase test |current| >= |z|, so
    // |2 Z_m + z| = |2 current - z| >= |current| and the two roundings stay within 2 ulp of it.
    constexpr bool kFused = F == Formula::Mandelbrot;
    constexpr bool kCurrent = kDistance || kFused;
    [[maybe_unused]] DeepComplex<T> current{};
    // The index m on the orbit: 32-bit on CUDA (kPacked), where the host refuses orbits of 2^31
    // points or more (deep_cuda.cu; 64 GB of packed points), so that m's add, compare and address
    // are one instruction each; 64-bit on the CPU.
    using Index = std::conditional_t<kPacked, int32_t, int64_t>;
    const DeepComplex<T>* orbit = Z;
    Index last = Index(last_index);
    // The iteration n is base + m: a step and a skip advance n and m alike, and only a rebase
    // (m := 0) moves base. So the loop carries m alone and its end as m's bound, limit =
    // max_iterations - base (n < max_iterations is m < limit): no per-step count of n.
    Index m = 0;
    int64_t base = 0, limit = max_iterations;
    // Carried between iterations, each loaded or computed once per iteration: the reference at m
    // (the step's Z_m is the previous iteration's Z_{m+1}), level 0's BLA radius at m (loaded
    // beside it: most iterations fail that test and step at once) and |z|^2 (the rebase test's,
    // which the next lookup needs). Every value is the one the plain loop computes, in the same
    // order, so the escape counts are those of one bla_lookup() per iteration. Z_{m+1} is not
    // loaded an iteration ahead: that would hold more registers a thread than the latency it
    // hides is worth.
    const BlaView<T, DeepBlaLinear<F, T>>* active = &bla;       // a Julia set's switches to bla_w with W
    [[maybe_unused]] const DeepOrbitPoint<T>* points = packed;  // and packed to packed_w
    DeepComplex<T> Zm;
    T r0;
    auto load_reference = [&](Index at) {
        if constexpr (kPacked) {
            deep_load_point(points + at, &Zm, &r0);
        } else {
            Zm = orbit[at];
            r0 = bla_first_radius(*active, at);
        }
    };
    uint64_t bla_iterations = 0, bla_skips = 0, rebases = 0;
    [[maybe_unused]] bool on_critical = false;
    // kAtom: the atom steps of the table in use, the smallest |full|^2 so far and its n (0: none yet).
    [[maybe_unused]] const DeepAtomStep<T>* atom_steps = atom.steps;
    [[maybe_unused]] T atom_norm{};
    [[maybe_unused]] int64_t atom_n = 0;
    if constexpr (kResume) {
        if (resume->started) {
            z = resume->z;
            m = Index(resume->m);
            base = resume->base;
            limit = max_iterations - base;
            bla_iterations = resume->bla_iterations;
            bla_skips = resume->bla_skips;
            rebases = resume->rebases;
            if constexpr (kJulia) {
                on_critical = resume->on_critical;
                if (on_critical) {
                    orbit = W;
                    last = Index(w_last);
                    active = bla_w;
                    points = packed_w;
                }
            }
        }
    }
    load_reference(m);
    if constexpr (kCurrent) current = Zm + z;
    // |z|^2 and |full|^2, fused for the Mandelbrot set.
    // (Always inlined: deep_cpu.cpp compiles the loop for FMA, which a lambda left out of line
    // would not take.)
    auto norm_of = [](const DeepComplex<T>& v) __attribute__((always_inline)) {
        return kFused ? deep_fused_norm(v) : deep_norm(v);
    };
    // a z + b_dc (a z on a Julia set): a skip's (b_dc = B dc) or the Mandelbrot set's step
    // (b_dc = dc); fused for the Mandelbrot set.
    auto linear = [&](const DeepBlaLinear<F, T>& a, const DeepComplex<T>& b_dc) __attribute__((always_inline)) {
        if constexpr (kFused) return kJulia ? deep_fused_mul(a, z) : deep_fused_mul_add(a, z, b_dc);
        else if constexpr (kJulia) return bla_apply(a, z);
        else return bla_apply(a, z) + b_dc;
    };
    T z2 = norm_of(z);  // at the top of the loop z2 is always |z|^2, also after a rebase
    // kWork: steps since the start or the last rebase, and whether a skip came since.
    [[maybe_unused]] uint64_t steps_since = 0;
    [[maybe_unused]] bool skipped_since = false;
    // m meets the orbit's end (a rebase) or the iteration limit (the loop's end) only at or past
    // bound = min(last, limit): one comparison an iteration tells both apart from the common case.
    // kResume: the budget is a third such bound. Steps so far are base + m - bla_iterations (every
    // iteration not skipped), so the budget ends at m = cap, which a skip moves up by its length
    // and a rebase down by the m it leaves (cap = m + step_budget at the start of the call).
    [[maybe_unused]] int64_t cap = m + step_budget;
    auto bound_of = [&]() {  // at most last, so an Index
        int64_t b = last < limit ? last : limit;
        if constexpr (kResume) b = cap < b ? cap : b;
        return Index(b);
    };
    Index bound = bound_of();
    // kShared (CUDA's Mandelbrot loop): a step is z -> A z + dc with A = 2 Z_m + z, the very
    // product (2Z + z) z the step computes, and a skip is z -> A z + B dc. So each lane picks its
    // A and its B dc (dc itself for a step) and the multiplication and the sum run once, outside
    // the branch: in a warp where some lanes step and others skip, the two sides do not each pay
    // for their own. The roundings are those of the two branches below, bit for bit. Z_{m+1} is
    // loaded after the choice: loading it before, to hide the load that the full value below
    // waits on, would hold more registers a thread than the latency it hides is worth.
    constexpr bool kShared = kPacked && F == Formula::Mandelbrot && !kDistance && !kWork && !kAtom;
    // The loop's only exits are the escape's return and the breaks at its end: the common path
    // (no escape, no rebase, m < bound) is one branch back to the top.
    if (m < limit)
        for (;;) {
            if constexpr (kShared) {
                DeepComplex<T> a, b_dc;
                Index length = 1;
                if (z2 < r0) {
                    const BlaStep<T, DeepBlaLinear<F, T>>* skip = bla_lookup_batched(*active, m, z2, limit - m);
                    a = skip->a;
                    if constexpr (!kJulia) b_dc = bla_apply(skip->b, dc);
                    length = Index(skip->length);
                    bla_iterations += uint64_t(length);
                    ++bla_skips;
                    if constexpr (kResume) {
                        cap += length;
                        bound = bound_of();
                    }
                } else {
                    a = Zm + current;  // 2 Z_m + z (kFused above)
                    if constexpr (!kJulia) b_dc = dc;
                }
                m += length;
                load_reference(m);  // goes out before the arithmetic, which hides its latency
                z = linear(a, b_dc);
            } else if (z2 < r0) {
                const BlaStep<T, DeepBlaLinear<F, T>>* skip = kPacked
                                                                  ? bla_lookup_batched(*active, m, z2, limit - m)
                                                                  : bla_lookup_above_first(*active, m, z2, limit - m);
                if constexpr (kWork) {
                    deep_count_steps_before_skip(work, steps_since, skipped_since, rebases);
                    skipped_since = true;
                    ++work->skips_by_level[63 - __builtin_clzll(uint64_t(skip->length))];
                }
                if constexpr (kDistance)
                    deep_derivative_skip<F, kJulia>(skip->a, skip->b, distance.spacing, &derivative);
                if constexpr (kAtom) {
                    // The values inside the skip, by its reference's (deep_atom.h), before the one it lands on.
                    const DeepAtomStep<T>& inside = atom_steps[skip - active->entries];
                    if (inside.offset != 0 && (atom_n == 0 || inside.norm < atom_norm)) {
                        atom_norm = inside.norm;
                        atom_n = base + int64_t(m) + inside.offset;
                    }
                }
                DeepComplex<T> b_dc{};
                if constexpr (!kJulia) b_dc = bla_apply(skip->b, dc);
                z = linear(skip->a, b_dc);
                m += Index(skip->length);
                bla_iterations += uint64_t(skip->length);
                ++bla_skips;
                if constexpr (kPacked) load_reference(m);
                if constexpr (kResume) {
                    cap += skip->length;
                    bound = bound_of();
                }
            } else {
                // kPacked: the next point's load goes out before the step's arithmetic, which hides
                // its latency (a step is at m < last, so m + 1 is on the orbit).
                [[maybe_unused]] DeepComplex<T> next_z;
                [[maybe_unused]] T next_r0;
                if constexpr (kPacked) deep_load_point(points + (m + 1), &next_z, &next_r0);
                if constexpr (kDistance) deep_derivative_step<F, kJulia>(current, distance.spacing, &derivative);
                if constexpr (kFused) {
                    z = linear(Zm + current, dc);  // 2 Z_m + z (kFused above)
                } else {
                    z = deep_perturbation_step<F>(Zm, z);
                    if constexpr (!kJulia) z = z + dc;
                }
                ++m;
                if constexpr (kPacked) {
                    Zm = next_z;
                    r0 = next_r0;
                }
                if constexpr (kWork) {
                    ++steps_since;
                    // Zm is still the step's Z_m here (z is already the next delta).
                    deep_count_step_ratio(work, z2, Zm);
                }
            }
            if constexpr (!kPacked) load_reference(m);
            const DeepComplex<T> full = Zm + z;
            const T full_norm = norm_of(full);
            if constexpr (kAtom) {
                if (atom_n == 0 || full_norm < atom_norm) {
                    atom_norm = full_norm;
                    atom_n = base + int64_t(m);
                }
            }
            const double norm = deep_to_double(full_norm);
            if (norm > bailout_squared) {
                if constexpr (kWork) deep_count_steps_before_skip(work, steps_since, skipped_since, rebases);
                const int64_t n = base + m;
                deep_add_pixel_counters(counters, uint64_t(n), bla_iterations, bla_skips, rebases);
                ++counters.escaped;
                *mu_out = deep_smooth_mu<F>(n, norm);
                if constexpr (kDistance) *distance.distance = deep_distance_estimate<F>(full, norm, derivative);
                if constexpr (kAtom) *atom.period = float(atom_n);
                return n;
            }
            if constexpr (kCurrent) current = full;
            // Zhuoran's rebase: the pixel is closer to 0 than to the reference; restart the
            // reference from Z_0 = 0 (a Julia set's W_0 = 0) with the pixel's full value. And where
            // the orbit ends.
            z2 = norm_of(z);
            const bool closer = kRebase && full_norm < z2;
            if (!closer && m < bound) continue;  // and m < limit still
            if (closer || m == last) {
                z = full;
                z2 = full_norm;
                if constexpr (kResume) cap -= m;
                base += m;
                limit = max_iterations - base;
                m = 0;
                if constexpr (kJulia) {
                    orbit = W;
                    last = Index(w_last);
                    active = bla_w;
                    points = packed_w;
                    on_critical = true;
                    if constexpr (kAtom) atom_steps = atom.steps_w;
                }
                load_reference(0);
                if constexpr (kWork) {
                    deep_count_steps_before_skip(work, steps_since, skipped_since, rebases);
                    steps_since = 0;
                    skipped_since = false;
                }
                ++rebases;
                bound = bound_of();
            }
            if (!(m < limit)) break;
            if constexpr (kResume) {
                if (m >= cap) {
                    *resume = DeepPixelResume<T>{z, m, base, bla_iterations, bla_skips, rebases, true, on_critical};
                    return kDeepPixelSuspended;
                }
            }
        }
    if constexpr (kWork) deep_count_steps_before_skip(work, steps_since, skipped_since, rebases);
    deep_add_pixel_counters(counters, uint64_t(max_iterations), bla_iterations, bla_skips, rebases);
    *mu_out = -1.0;
    if constexpr (kDistance) *distance.distance = 0.0f;
    if constexpr (kAtom) *atom.period = float(atom_n);
    return -1;
}

}  // namespace ms
