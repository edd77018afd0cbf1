// orbit_features.h: the kernels' compile-time variant that accumulates, along each orbit, what
// the colouring layers need (colouring.h) besides the smooth value:
// Every formula of formula.h and its Julia sets (the formula a template parameter F, as in the
// smooth kernels; Julia or not is data: z_0 and c, and the derivative's start below).
//   distance  exterior distance estimate G / |grad G| at the escape, G = ln|z_k| (the escape
//             potential up to the factor d^-k, which cancels), in pixels (divided by the pixel
//             step); 0 for interior pixels. The derivative D (formula_derivative_step,
//             formula_step-inl.h) is dz_k/dc on the parameter plane (D_0 = 0, D_{k+1} =
//             f'(z_k) D_k + 1) and dz_k/dz_0 on a Julia set (D_0 = 1, D_{k+1} = f'(z_k) D_k).
//             Holomorphic maps (Mandelbrot, Multibrot d): f' = d z^(d-1) and the estimate is
//             |z| ln|z| / |D|, the same for every degree: with the Boettcher map Phi (conformal
//             from the outside of a connected set to the outside of the unit disc, G = ln|Phi|),
//             Koebe's 1/4 theorem gives sinh G / (2 e^G |G'|) < dist < 2 sinh G / |G'|, which for a
//             small G (near the set, a large bailout) is est / 2 < dist < 2 est whatever d is;
//             d only enters G's scale d^-k, which the ratio G / |G'| cancels. For a Julia set this
//             holds where the set is connected (c in the parameter plane's set).
//             Burning Ship and Tricorn are not holomorphic: D is the real 2x2 Jacobian of z_k
//             by the pixel's (x, y) (dual numbers, as Kalles Fraktaler and Fraktaler-3 carry
//             for them), and the estimate is the same G / |grad G| with grad ln|z| = J^T z / |z|^2:
//             |z|^2 ln|z| / |J^T z|, the norm along the direction in which |z| grows fastest
//             (for a holomorphic map J^T z has length |z| |D|, so this is the formula above). No
//             Koebe bound holds for them: it is a shading that finds their filaments, not a
//             proven distance.
//   stripe    the stripe average over k = 1..K of 1/2 + 1/2 sin(s arg z_k) (s whole:
//             sin(s arg z) = Im((z/|z|)^s), no trigonometry), blended between the averages
//             over 1..K and 1..K-1 by mu's fraction (log_d(ln|z_K| / ln R), formula_math.h) so
//             that it is continuous across escape counts; 0 for interior pixels.
//   period    an interior pixel's period: the orbit's, once it has settled after the steps run
//             (orbit_period(): at most kMaxOrbitPeriod extra steps of the formula, interior
//             pixels only, so nothing is added to the iteration loop); on Mandelbrot's parameter
//             plane 1 in the main cardioid and 2 in the period-2 bulb when the shortcut settles
//             them (the only proven shortcut); 0 where the orbit has not settled and for
//             escaped pixels.
//   atom      the atom-domain period: the step n >= 1 at which |z_n| is smallest so far (the
//             first such n on a tie), over every step the orbit runs, escaped or interior. Its
//             domains surround each hyperbolic component of period n and so point at the
//             minibrots. The orbit must be seen whole, so the atom variant takes no
//             cardioid/bulb shortcut (atom_shortcuts(): those pixels iterate like the rest);
//             the periodicity test still ends an interior orbit, which changes nothing: once
//             z_k repeats an earlier z_j exactly, every later value is one already seen, so no
//             new minimum can come. Kept as a float (exact up to 2^24).
//
// Three siblings, as for the smooth kernels:
//   direct_features_cpu_reference  one thread, the reference iterate_point with kFeatures
//   direct_features_cpu            every core (OpenMP), orbit_point_features() below
//   direct_features_cuda           one CUDA thread per pixel, orbit_point_features() too
// The smooth-only kernels are untouched: features are a template parameter, so a smooth frame
// keeps its speed exactly. Escape counts and mu follow the smooth kernels' rules (cardioid and
// bulb test, the same periodicity schedule), so mu matches direct_cpu_reference.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/maths/escape.h"

namespace ms {

inline constexpr unsigned kFeatureDistance = 1u;
inline constexpr unsigned kFeatureStripe = 2u;
inline constexpr unsigned kFeaturePeriod = 4u;
inline constexpr unsigned kAllFeatures = 7u;  // distance, stripe and period
inline constexpr unsigned kFeatureAtom = 8u;
// The atom layer's compiled variants: the atom period alone, or with every other feature (the
// kernels compute what a frame does not ask for into scratch), so that the atom layer doubles
// no kernel's instantiations. atom_feature_variant() picks one for a request.
inline constexpr unsigned kAtomWithAllFeatures = kAllFeatures | kFeatureAtom;
inline constexpr unsigned atom_feature_variant(unsigned features) {
    return features == kFeatureAtom ? kFeatureAtom : kAtomWithAllFeatures;
}
// The stripes' term in the CUDA kernels of the escaped pass, fixed at compile time: with
// kFeatureStripeFixed the density is at most 8 (stripe_polynomial's fast form) and
// kFeatureStripeOdd says whether it is odd, so the step has neither the test for the general form
// nor the parity's select, and it takes the hardware's 1 / |z|^2 for an even density instead of
// squaring 1 / |z|. Without it the kernel decides per step, as the CPU paths, which ignore the bits.
inline constexpr unsigned kFeatureStripeFixed = 1u << 9;
inline constexpr unsigned kFeatureStripeOdd = 1u << 10;

// Outputs, rect-sized and row-major like mu; a null pointer is a feature not computed.
struct OrbitFeatureOutputs {
    float* distance = nullptr;
    float* stripe = nullptr;
    float* period = nullptr;
    float* atom = nullptr;  // the atom-domain period
};

// Which features `outputs` asks for (kFeature* bits).
inline unsigned requested_features(const OrbitFeatureOutputs& outputs) {
    return (outputs.distance ? kFeatureDistance : 0u) | (outputs.stripe ? kFeatureStripe : 0u) |
           (outputs.period ? kFeaturePeriod : 0u) | (outputs.atom ? kFeatureAtom : 0u);
}

// Whether a frame's features allow the cardioid/bulb shortcut: not with the atom period, which
// needs every orbit's values (see above).
MS_HD inline bool atom_allows_shortcut(unsigned features) { return (features & kFeatureAtom) == 0; }

// --- What every path accumulates (host and device) ----------------------------------------

MS_HD inline float feature_sqrt(float x) { return sqrtf(x); }
MS_HD inline double feature_sqrt(double x) { return sqrt(x); }

// Im(u^s) for a unit vector u = (ur, ui) and a whole s >= 1, by repeated squaring (the last
// square, which the result does not use, skipped).
template <typename S>
MS_HD inline S stripe_power_im(S ur, S ui, int s) {
    S pr = S(1), pi = S(0);
    for (int e = s; e > 0;) {
        if (e & 1) {
            const S r = pr * ur - pi * ui;
            pi = pr * ui + pi * ur;
            pr = r;
        }
        e >>= 1;
        if (e == 0) break;
        const S r = ur * ur - ui * ui;
        ui = S(2) * ur * ui;
        ur = r;
    }
    return pi;
}

// The GPU's stripe term for s <= 8 (OrbitAccumulator::after_step): with t = arg z and x = cos 2t,
//   s = 2m:      sin(s t) = sin 2t U_{m-1}(x)
//   s = 2m + 1:  sin(s t) = sin t (U_m(x) + U_{m-1}(x))
// (U_j the Chebyshev polynomials of the second kind, U_{-1} = 0), Q(x) = q0 + q1 x + q2 x^2 + q3 x^3
// in both cases. The step then needs only |z|^-1 or |z|^-2, the squares and (zr + zr) zi that the
// formula's next step computes anyway, and three FMAs whatever s is, instead of a loop of s - 1.
// Its coefficients are whole numbers of at most 8 in size: in float the term is within 2.2e-6 of
// sin(s t) for every s <= 8 (s = 7 the worst; test_colouring's StripePolynomialIsSinOfSTimesTheAngle).
struct StripePolynomial {
    float q0 = 1.0f, q1 = 0.0f, q2 = 0.0f, q3 = 0.0f;
    bool odd = true;   // s odd: the factor is sin t, else sin 2t
    bool fast = true;  // s <= 8; above, the GPU takes stripe_power_im
};

MS_HD inline StripePolynomial stripe_polynomial(int s) {
    StripePolynomial p;
    p.fast = s >= 1 && s <= 8;
    p.odd = (s & 1) != 0;
    if (!p.fast) return p;
    // U_{j+1} = 2x U_j - U_{j-1}, on the monomial coefficients, up to U_m (odd) or U_{m-1} (even).
    float previous[4] = {0.0f, 0.0f, 0.0f, 0.0f}, u[4] = {1.0f, 0.0f, 0.0f, 0.0f};  // U_{-1}, U_0
    const int m = s / 2, top = p.odd ? m : m - 1;
    for (int j = 0; j < top; ++j) {
        const float next[4] = {-previous[0], 2.0f * u[0] - previous[1], 2.0f * u[1] - previous[2],
                               2.0f * u[2] - previous[3]};
        for (int i = 0; i < 4; ++i) {
            previous[i] = u[i];
            u[i] = next[i];
        }
    }
    const float add = p.odd ? 1.0f : 0.0f;  // odd: U_m + U_{m-1}
    p.q0 = u[0] + add * previous[0];
    p.q1 = u[1] + add * previous[1];
    p.q2 = u[2] + add * previous[2];
    p.q3 = u[3] + add * previous[3];
    return p;
}

// sin(s arg z) for z = (fr, fi) in float, by poly (stripe_polynomial(s), s <= 8), given
// fr^2 - fi^2 and (fr + fr) fi (which the formula's step takes too: passed in, so that the
// compiler computes them once) and inv = 1 / |z|.
// add + lead Q(x), Q's coefficients times scale (a power of 2: exact): both forms' last step.
MS_HD inline float stripe_lead_times_q(const StripePolynomial& poly, float lead, float x, float add = 0.0f,
                                       float scale = 1.0f) {
    const float q = fmaf(fmaf(fmaf(scale * poly.q3, x, scale * poly.q2), x, scale * poly.q1), x, scale * poly.q0);
    return fmaf(lead, q, add);
}

MS_HD inline float stripe_sin_fast(float fr2_minus_fi2, float two_fr_fi, float fi, float inv,
                                   const StripePolynomial& poly) {
    const float inv2 = inv * inv;
    const float x = fr2_minus_fi2 * inv2;                       // cos 2t
    const float lead = poly.odd ? fi * inv : two_fr_fi * inv2;  // sin t or sin 2t
    return stripe_lead_times_q(poly, lead, x);
}

#ifdef __CUDA_ARCH__
// The hardware's reciprocal square root (MUFU.RSQ) alone, for a normal x: rsqrtf() adds a
// scaling of subnormal inputs around it, 3 more instructions.
__device__ __forceinline__ float rsqrt_approx_ftz(float x) {
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
// The same for the reciprocal (MUFU.RCP), which __frcp_rn and 1.0f / x refine to IEEE rounding.
__device__ __forceinline__ float rcp_approx_ftz(float x) {
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// add + sin(s arg z) for s <= 8 of the parity kOdd, known at compile time (kFeatureStripeFixed),
// with one FMA: from fr^2, fi^2, their difference and fr fi, which the formula's next step takes
// too. An odd s needs sin t = fi / |z| and so 1 / |z|; an even one only 1 / |z|^2, one MUFU.RCP,
// and sin 2t = 2 fr fi / |z|^2, its 2 moved into Q's coefficients (a loop invariant; scaling by 2
// is exact, so the same bits as 2 fr fi).
// kClamp: |z|^2 is kept above 1e-30, where the .ftz MUFU of a subnormal or zero |z|^2 would make an
// infinity and the term NaN. The escaped orbits of a parameter plane need no clamp: were |z_k|^2
// in float below 2^-126 (|z_k| < 1.1e-19), f(z_k) would be far below c's last bit, so z_{k+1}
// would round to c = z_1 (or, with Re c or Im c exactly 0, to z_1 but for a part that the next
// step rounds away), and the orbit would repeat exactly and never escape. A Julia set's orbit
// starts at the pixel, so it may pass through 0.
template <bool kOdd, bool kClamp>
__device__ __forceinline__ float stripe_sin_fixed(float fr2, float fi2, float difference, float fr_fi, float fi,
                                                  const StripePolynomial& poly, float add = 0.0f) {
    const float squared = kClamp ? fmaxf(fr2 + fi2, 1e-30f) : fr2 + fi2;
    float inv2, lead, scale;
    if constexpr (kOdd) {
        const float inv = rsqrt_approx_ftz(squared);
        inv2 = inv * inv;
        lead = fi * inv;  // sin t
        scale = 1.0f;
    } else {
        inv2 = rcp_approx_ftz(squared);
        lead = fr_fi * inv2;  // sin 2t / 2
        scale = 2.0f;
    }
    return stripe_lead_times_q(poly, lead, difference * inv2, add, scale);  // x = cos 2t
}
#endif

// Whether an orbit is of the parameter plane or of a Julia set: data on the CPU paths (Runtime:
// start_julia() decides), a compile-time parameter of the CUDA kernels (Parameter, Julia), so
// that the parameter plane's derivative adds a constant 1 as it always did and a kernel carries
// no register for it.
enum class OrbitPlane : uint8_t { Runtime, Parameter, Julia };

// The per-orbit sums of a pixel of formula F, for kFeatures (a kFeature* mask). T is the
// iteration's type.
template <typename T, unsigned kFeatures, Formula F = Formula::Mandelbrot, OrbitPlane P = OrbitPlane::Runtime>
struct OrbitAccumulator {
    // The derivative D (formula_derivative_step): (dzr, dzi) is dz/dc (holomorphic maps) or
    // the Jacobian's first column, (dxr, dxi) its second (Burning Ship, Tricorn only).
    T dzr = 0, dzi = 0, dxr = 0, dxi = 0;
    T dz_add = 1;  // what each step adds (P = Runtime): 1 on the parameter plane, 0 on a Julia set
    T stripe_sum = 0, stripe_last = 0;
    float stripe_part = 0.0f;  // FP64 with kFeatureStripeFixed: the terms since the last flush_stripe()
    int stripe_density = 1;
    StripePolynomial stripe_poly;  // the GPU's term for stripe_density (set_stripe_density)
    // kFeatureAtom: the steps seen, the smallest |z_n|^2 so far and its n.
    int atom_steps = 0, atom_period = 0;
    T atom_norm = T(INFINITY);

    // The polynomial is the GPU's only: the CPU's term (stripe_power_im) never reads it, so a CPU
    // pixel does not make it.
    MS_HD void set_stripe_density(int s) {
#ifdef __CUDA_ARCH__
        set_stripe_density(s, stripe_polynomial(s));
#else
        stripe_density = s;
#endif
    }
    // The same with the polynomial already made (a kernel makes it once, not per pixel).
    MS_HD void set_stripe_density(int s, const StripePolynomial& poly) {
        stripe_density = s;
        stripe_poly = poly;
    }
    // The stripe sums as the finish takes them: the terms 1/2 + 1/2 sin(s arg z_j) over the k steps
    // run, and the last term. The CPU adds up the terms; the GPU the sines alone (after_step: one
    // instruction a step less), whose sums these turn into the terms'.
    MS_HD double stripe_terms_sum(int k) const {
#ifdef __CUDA_ARCH__
        return 0.5 * double(k) + 0.5 * (double(stripe_sum) + double(stripe_part));
#else
        (void)k;
        return double(stripe_sum);
#endif
    }
    MS_HD double stripe_terms_last() const {
#ifdef __CUDA_ARCH__
        static_assert((kFeatures & kFeatureStripeFixed) == 0, "the fixed form keeps no last term: last_sine()");
        return 0.5 + 0.5 * double(stripe_last);
#else
        return double(stripe_last);
#endif
    }
    // Adds stripe_part to the sum (FP64 with kFeatureStripeFixed; nothing to do otherwise).
    MS_HD void flush_stripe() {
        if constexpr ((kFeatures & kFeatureStripeFixed) != 0 && sizeof(T) == 8) {
            stripe_sum += T(stripe_part);
            stripe_part = 0.0f;
        }
    }
    // Whether the fixed stripe term clamps |z|^2 (stripe_sin_fixed): for a Julia set's orbits, and
    // where the plane is data.
    static constexpr bool kStripeClamp = P != OrbitPlane::Parameter;
#ifdef __CUDA_ARCH__
    // The GPU's sum of the sines, stripe_part included.
    __device__ float sine_sum() const {
        if constexpr (sizeof(T) == 8) return float(stripe_sum + T(stripe_part));
        else return stripe_sum;
    }
    // The GPU's last sine, of z_k = (zr, zi): kept per step, or with kFeatureStripeFixed made again
    // here by the step's own arithmetic (so the same bits).
    __device__ float last_sine(T zr, T zi) const {
        if constexpr ((kFeatures & kFeatureStripeFixed) != 0) {
            const float fr = float(zr), fi = float(zi);
            const float fr2 = fr * fr, fi2 = fi * fi;
            return stripe_sin_fixed<(kFeatures & kFeatureStripeOdd) != 0, kStripeClamp>(fr2, fi2, fr2 - fi2, fr * fi,
                                                                                        fi, stripe_poly);
        } else {
            (void)zr, (void)zi;
            return float(stripe_last);
        }
    }
#endif

    // A Julia set differentiates by z_0: D_0 = the identity, nothing added per step.
    MS_HD void start_julia() {
        dzr = T(1);
        dxi = T(1);
        dz_add = T(0);
    }
    MS_HD T derivative_add() const {
        if constexpr (P == OrbitPlane::Parameter) return T(1);
        else if constexpr (P == OrbitPlane::Julia) return T(0);
        else return dz_add;
    }
    // Before the step z_k -> z_{k+1}: the derivative uses z_k.
    MS_HD void before_step(T zr, T zi) {
        if constexpr ((kFeatures & kFeatureDistance) != 0)
            formula_derivative_step<F>(zr, zi, dzr, dzi, dxr, dxi, derivative_add(), T(formula_degree(F)),
                                       ScalarDerivativeOps{});
    }
    // After the step, with z_k (k >= 1) and |z_k|^2.
    MS_HD void after_step(T zr, T zi, T norm) {
        (void)zr, (void)zi, (void)norm;
        if constexpr ((kFeatures & kFeatureAtom) != 0) {
            ++atom_steps;
            if (norm < atom_norm) {
                atom_norm = norm;
                atom_period = atom_steps;
            }
        }
        if constexpr ((kFeatures & kFeatureStripe) != 0) {
            // sin(s arg z) = Im(u^s), u = z / |z|, by repeated squaring.
#ifdef __CUDA_ARCH__
            // On the GPU the term is computed in float, with the hardware's reciprocal square root
            // (one MUFU.RSQ instead of an IEEE square root and division, which in FP64 are long
            // DFMA sequences), and for s <= 8 as lead * Q(cos 2t) (StripePolynomial): the squares
            // and (zr + zr) zi are the next step's own (the same expressions, so the compiler
            // computes them once in FP32), three FMAs evaluate Q whatever s is, and in FP64 only z
            // is converted to float (2 conversions a step; |z|^2 is taken again in float). The
            // term differs from the CPU's by at most 2.2e-6 (the tests allow 1e-5 on the average),
            // while the sum stays in T so that it does not drift over thousands of steps. (|z|^2 is
            // kept above 1e-30, where a double's tiny |z| would leave float's range.)
            // What both ways need comes first, outside the rare branch, so that the next step's
            // identical expressions reuse it.
            const float fr = float(zr), fi = float(zi);
            const float fr2 = fr * fr, fi2 = fi * fi, difference = fr2 - fi2, fr_fi = fr * fi;
            if constexpr ((kFeatures & kFeatureStripeFixed) != 0) {
                // The density's form fixed at compile time. The last term is not kept per step
                // (last_sine() makes it again at the escape), so the term goes into a float sum
                // with the FMA that makes it: stripe_sum itself in FP32; in FP64 stripe_part, which
                // flush_stripe() adds to the double sum every few steps (one conversion and one
                // FP64 addition per flush, not per step).
                constexpr bool kOdd = (kFeatures & kFeatureStripeOdd) != 0;
                if constexpr (sizeof(T) == 4)
                    stripe_sum = stripe_sin_fixed<kOdd, kStripeClamp>(fr2, fi2, difference, fr_fi, fi, stripe_poly,
                                                                      stripe_sum);
                else
                    stripe_part = stripe_sin_fixed<kOdd, kStripeClamp>(fr2, fi2, difference, fr_fi, fi, stripe_poly,
                                                                       stripe_part);
                return;
            }
            const float two_fr_fi = fr_fi + fr_fi;  // (fr + fr) fi: doubling is exact
            const float inv = rsqrt_approx_ftz(fmaxf(fr2 + fi2, 1e-30f));
            float im;
            if (stripe_poly.fast) im = stripe_sin_fast(difference, two_fr_fi, fi, inv, stripe_poly);
            else im = stripe_power_im(fr * inv, fi * inv, stripe_density);
            stripe_last = T(im);  // the sine alone: stripe_terms_sum() and _last() make the terms
#else
            const T inv = T(1) / feature_sqrt(norm);
            stripe_last = T(0.5) + T(0.5) * stripe_power_im(zr * inv, zi * inv, stripe_density);
#endif
            stripe_sum += stripe_last;
        }
    }
};

// The atom period of a finished orbit (kFeatureAtom; escaped or interior alike), into *atom.
template <typename T, unsigned kFeatures, Formula F, OrbitPlane P>
MS_HD inline void finish_atom(const OrbitAccumulator<T, kFeatures, F, P>& a, float* atom) {
    if constexpr ((kFeatures & kFeatureAtom) != 0) *atom = float(a.atom_period);
    (void)a, (void)atom;
}

// The features of an escaped pixel (escape at step k with |z_k|^2 = norm, z_k = (zr, zi)).
template <typename T, unsigned kFeatures, Formula F, OrbitPlane P>
MS_HD inline void finish_escaped(const OrbitAccumulator<T, kFeatures, F, P>& a, int k, double zr, double zi,
                                 double norm, double pixel_step, float* distance, float* stripe, float* period) {
    if constexpr ((kFeatures & kFeatureDistance) != 0) {
        double d = 0.0;
        if constexpr (formula_is_holomorphic(F)) {
            const double dz = sqrt(double(a.dzr) * double(a.dzr) + double(a.dzi) * double(a.dzi));
            d = 0.5 * sqrt(norm) * log(norm) / dz / pixel_step;  // |z| ln|z| = 1/2 |z| ln|z|^2
        } else {
            // J^T z: the columns' dot products with z.
            const double gx = double(a.dzr) * zr + double(a.dzi) * zi;
            const double gy = double(a.dxr) * zr + double(a.dxi) * zi;
            d = 0.5 * norm * log(norm) / sqrt(gx * gx + gy * gy) / pixel_step;  // |z|^2 ln|z| / |J^T z|
        }
        *distance = d >= 0.0 && d < 3.0e38 ? float(d) : 0.0f;  // an overflowed D: on the boundary
    }
    if constexpr ((kFeatures & kFeatureStripe) != 0) {
        // mu's fraction: log_d(ln|z_k| / ln R) lies in (0, 1]; weight 1 at |z_k| just past R.
        constexpr bool kMandelbrotRadius = formula_degree(F) == 2;  // R = kBailoutRadius
        const double l = kMandelbrotRadius ? log2(0.5 * log(norm)) - kLog2LnBailout
                                           : (log2(0.5 * log(norm)) - log2(log(formula_bailout_radius(F)))) /
                                                 log2(double(formula_degree(F)));
        const double w = 1.0 - (l < 0.0 ? 0.0 : l > 1.0 ? 1.0 : l);
        const double sum = a.stripe_terms_sum(k), last = a.stripe_terms_last();
        const double all = sum / k;
        const double previous = k > 1 ? (sum - last) / (k - 1) : all;
        *stripe = float(w * all + (1.0 - w) * previous);
    }
    if constexpr ((kFeatures & kFeaturePeriod) != 0) *period = 0.0f;  // the interior's only
    (void)zr;
    (void)zi;
}

// The period of an interior pixel's orbit once it has settled: the first p <= kMaxOrbitPeriod with
// |z_{n+p} - z_n|^2 <= eps (1 + |z_n|^2), eps at FP32's or FP64's resolution; 0 when the orbit
// has not settled (the boundary, or a longer period). Runs only for interior pixels of the
// period variant, at most kMaxOrbitPeriod extra steps each.
inline constexpr int kMaxOrbitPeriod = 1024;
template <typename T, Formula F = Formula::Mandelbrot>
MS_HD inline int orbit_period(T zr, T zi, T cr, T ci) {
    const T eps = sizeof(T) == 4 ? T(1e-8) : T(1e-16);
    const T bound = eps * (T(1) + zr * zr + zi * zi);
    T r = zr, i = zi;
    for (int p = 1; p <= kMaxOrbitPeriod; ++p) {
        formula_step<F>(r, i, r * r, i * i, cr, ci, ScalarAbs{});
        const T dr = r - zr, di = i - zi;
        if (dr * dr + di * di <= bound) return p;
    }
    return 0;
}

// The constants of the GPU's float finish (finish_escaped_fast below) for a formula, made once a
// frame on the host: the smooth value mu = k + C - S log2(ln|z|) (formula_math.h) and the
// stripes' blend log_d(ln|z| / ln R) = S (log2(ln|z|) - log2(ln R)), with ln|z| = 1/2 ln 2
// log2|z|^2, so log2(ln|z|) = log2(log2|z|^2) + log2(1/2 ln 2):
//   mu_offset = C - S log2(1/2 ln 2), log_scale = S = 1 / log2(d),
//   stripe_offset = log2(1/2 ln 2) - log2(ln R).
// Mandelbrot's (C = S = 1, R = 256) are the defaults.
inline constexpr double kLog2HalfLn2 = -1.528766372930583;  // log2(0.5 ln 2)
struct FastFinishConstants {
    float inverse_pixel_step = 1.0f;
    float mu_offset = float(1.0 - kLog2HalfLn2);
    float log_scale = 1.0f;
    float stripe_offset = float(kLog2HalfLn2 - kLog2LnBailout);
};
// Host code (the launchers).
inline FastFinishConstants make_fast_finish_constants(Formula formula, double pixel_step) {
    const SmoothConstants smooth = formula_smooth_constants(formula);
    FastFinishConstants f;
    f.inverse_pixel_step = float(1.0 / pixel_step);
    f.mu_offset = float(smooth.mu_constant - smooth.mu_scale * kLog2HalfLn2);
    f.log_scale = float(smooth.mu_scale);
    f.stripe_offset = float(kLog2HalfLn2 - std::log2(std::log(formula_bailout_radius(formula))));
    return f;
}

#ifdef __CUDACC__  // both of nvcc's passes (device functions only; plain C++ never sees them)
// The GPU's finish of an escaped pixel: finish_escaped() and smooth_mu() in float, with the
// hardware's log2 and reciprocal square root (MUFU, about 2^-22 relative), instead of double
// library logs, square roots and divisions. Those would be most of the features kernel's FP64
// work on an FP32 frame (about a hundred FP64 instructions a pixel), where an exterior pixel's
// whole orbit is a few dozen float steps. The results stay
// within the tests' tolerances of the reference's double ones (relative 1e-5 for mu and the
// distance, absolute 1e-5 for stripes: test_colouring_cuda); k, and so which pixels escaped,
// is untouched. Mandelbrot keeps its literal constants; the other formulas take `f`'s.
__device__ __forceinline__ float feature_log2_approx(float x) {
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// 1 / |(x, y)|: |.|^2 in T, then the hardware's reciprocal square root in float where it fits,
// else in double from the parts (an FP64 frame's derivative, or an FP32 one's square, may pass
// float's range).
template <typename T>
__device__ __forceinline__ float feature_inverse_length(T x, T y) {
    const T squared = x * x + y * y;
    if (squared < T(3.0e38) && squared > T(1.0e-30)) return rsqrtf(float(squared));
    return float(1.0 / sqrt(double(x) * double(x) + double(y) * double(y)));
}

// mu = k + 1 - log2(ln|z|) = k + (1 - log2(0.5 ln 2)) - log2(log2 |z|^2), as the smooth kernels'
// fast_smooth_mu (norm > the bailout's square here, so no subnormal reaches the .ftz log).
template <Formula F>
__device__ __forceinline__ float feature_fast_mu(int k, float log2_norm, const FastFinishConstants& f) {
    float mu;
    if constexpr (F == Formula::Mandelbrot) {
        constexpr float kMuConstantF = 2.528766372930583f;  // 1 - log2(0.5 ln 2)
        mu = float(k) + (kMuConstantF - feature_log2_approx(log2_norm));
    } else {
        mu = float(k) + (f.mu_offset - f.log_scale * feature_log2_approx(log2_norm));
    }
    return mu > 0.0f ? mu : 0.0f;
}

// The distance estimate of an escaped pixel in float (finish_escaped's, see above): z_k = (zr,
// zi), n = |z_k|^2 in float (clamped to its range), log2_norm = log2 n, D = (dzr, dzi) and, for
// Burning Ship and Tricorn, (dxr, dxi). Shared by the features kernels and the smooth kernels'
// distance instantiation (direct_cuda_kernels-inl.h), so both give the same value.
template <Formula F, typename T>
__device__ __forceinline__ float fast_distance_estimate(T dzr, T dzi, T dxr, T dxi, T zr, T zi, float n,
                                                        float log2_norm, float inverse_pixel_step) {
    float d;
    if constexpr (formula_is_holomorphic(F)) {
        // |z| ln|z| / |dz| = 1/2 |z| ln|z|^2 / |dz|.
        (void)dxr, (void)dxi, (void)zr, (void)zi;
        const float inverse_dz = feature_inverse_length(dzr, dzi);
        d = 0.5f * 0.6931471805599453f * log2_norm * (n * rsqrtf(n)) * inverse_dz * inverse_pixel_step;
    } else {
        // |z|^2 ln|z| / |J^T z| (finish_escaped); J^T z in double, as the reference takes it
        // (a product of the derivative and z may pass float's range).
        const double gx = double(dzr) * double(zr) + double(dzi) * double(zi);
        const double gy = double(dxr) * double(zr) + double(dxi) * double(zi);
        const float inverse_g = feature_inverse_length(gx, gy);
        d = 0.5f * 0.6931471805599453f * log2_norm * n * inverse_g * inverse_pixel_step;
    }
    return d >= 0.0f && d < 3.0e38f ? d : 0.0f;  // an overflowed dz: on the boundary
}

template <typename T, unsigned kFeatures, Formula F, OrbitPlane P>
__device__ __forceinline__ float finish_escaped_fast(const OrbitAccumulator<T, kFeatures, F, P>& a, int k, T zr, T zi,
                                                     T norm, const FastFinishConstants& f, float* distance,
                                                     float* stripe, float* period) {
    const float n = fminf(float(norm), 3.402823466e38f);
    const float log2_norm = feature_log2_approx(n);
    if constexpr ((kFeatures & kFeatureDistance) != 0)
        *distance = fast_distance_estimate<F>(a.dzr, a.dzi, a.dxr, a.dxi, zr, zi, n, log2_norm, f.inverse_pixel_step);
    if constexpr ((kFeatures & kFeatureStripe) != 0) {
        // mu's fraction: log_d(ln|z_k| / ln R) = S (log2(log2|z|^2) + log2(0.5 ln 2) - log2(ln R)).
        float l;
        if constexpr (formula_degree(F) == 2) {
            constexpr float kOffset = float(kLog2HalfLn2 - kLog2LnBailout);
            l = feature_log2_approx(log2_norm) + kOffset;
        } else {
            l = (feature_log2_approx(log2_norm) + f.stripe_offset) * f.log_scale;
        }
        const float w = 1.0f - (l < 0.0f ? 0.0f : l > 1.0f ? 1.0f : l);
        // The means of the sines (after_step adds up the sines alone), then the terms' blend.
        const float sum = a.sine_sum(), last = a.last_sine(zr, zi);
        const float all = sum / float(k);
        const float previous = k > 1 ? (sum - last) / float(k - 1) : all;
        *stripe = 0.5f + 0.5f * (w * all + (1.0f - w) * previous);
    }
    if constexpr ((kFeatures & kFeaturePeriod) != 0) *period = 0.0f;
    return feature_fast_mu<F>(k, log2_norm, f);
}
#endif

template <unsigned kFeatures>
MS_HD inline void finish_interior(int period_found, float* distance, float* stripe, float* period) {
    if constexpr ((kFeatures & kFeatureDistance) != 0) *distance = 0.0f;
    if constexpr ((kFeatures & kFeatureStripe) != 0) *stripe = 0.0f;
    if constexpr ((kFeatures & kFeaturePeriod) != 0) *period = float(period_found);
}

// An interior pixel that iterated to z: its period (if asked) from where the orbit settled.
template <typename T, unsigned kFeatures, Formula F = Formula::Mandelbrot>
MS_HD inline void finish_interior_orbit(T zr, T zi, T cr, T ci, float* distance, float* stripe, float* period) {
    int found = 0;
    if constexpr ((kFeatures & kFeaturePeriod) != 0) found = orbit_period<T, F>(zr, zi, cr, ci);
    finish_interior<kFeatures>(found, distance, stripe, period);
}

// 2 in the period-2 bulb, else 1 (for a pixel the cardioid/bulb shortcut settled).
MS_HD inline int shortcut_period(double x, double y) {
    const double xb = x + 1.0;
    return xb * xb + y * y <= 0.0625 ? 2 : 1;
}

// One pixel of formula F, the features variant: the reference's iteration (same roundings, same
// periodicity schedule) with the accumulator. The orbit starts at z_0 = (zr0, zi0) with the
// parameter (cr, ci): (0, pixel) on the parameter plane, (pixel, the fixed c) on a Julia set.
// cardioid_bulb: the shortcut, which the caller asks only for Mandelbrot's parameter plane.
// Returns mu or kInteriorMu; adds the iterations it ran.
template <typename T, unsigned kFeatures, Formula F = Formula::Mandelbrot>
MS_HD inline float orbit_point_features(T zr0, T zi0, T cr, T ci, bool julia, int max_iterations, bool cardioid_bulb,
                                        bool periodicity, int stripe_density, double pixel_step, uint64_t* iterations,
                                        float* distance, float* stripe, float* period, float* atom = nullptr) {
    OrbitAccumulator<T, kFeatures, F> a;
    a.set_stripe_density(stripe_density);
    if (julia) a.start_julia();
    if (F == Formula::Mandelbrot && cardioid_bulb && atom_allows_shortcut(kFeatures) &&
        in_cardioid_or_period2_bulb(double(cr), double(ci))) {
        finish_interior<kFeatures>(shortcut_period(double(cr), double(ci)), distance, stripe, period);
        return kInteriorMu;
    }
    const T bailout_squared = T(formula_bailout_radius(F) * formula_bailout_radius(F));
    T zr = zr0, zi = zi0, saved_r = 0, saved_i = 0;
    T zr2 = zr * zr, zi2 = zi * zi;
    const int interval = periodicity_interval(max_iterations);
    int next_save = next_periodicity_save(0, interval);
    for (int k = 1; k <= max_iterations; ++k) {
        a.before_step(zr, zi);
        formula_step<F>(zr, zi, zr2, zi2, cr, ci, ScalarAbs{});
        zr2 = zr * zr;
        zi2 = zi * zi;
        const T norm = zr2 + zi2;
        a.after_step(zr, zi, norm);
        if (norm > bailout_squared) {
            *iterations += uint64_t(k);
            finish_escaped(a, k, double(zr), double(zi), double(norm), pixel_step, distance, stripe, period);
            finish_atom(a, atom);
            return formula_smooth_mu_of<F>(k, double(norm));
        }
        if (periodicity) {
            if (periodicity_compare_step(k) && zr == saved_r && zi == saved_i) {
                *iterations += uint64_t(k);
                finish_interior_orbit<T, kFeatures, F>(zr, zi, cr, ci, distance, stripe, period);
                finish_atom(a, atom);
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
    finish_interior_orbit<T, kFeatures, F>(zr, zi, cr, ci, distance, stripe, period);
    finish_atom(a, atom);
    return kInteriorMu;
}

// The orbit of one pixel in blocks of kOrbitBlockSteps steps with one escape test each: the
// persistent CUDA kernel's loop (direct_cuda_features.cu), here as a plain struct so that the
// CPU tests run it against the reference (test_colouring.cpp). A block runs its steps without a
// test; an orbit past the bailout keeps growing (to inf or NaN, which `!(norm <= R^2)` also
// catches), so an escape anywhere in the block shows at its end, and the block then runs again
// step by step from its saved start (z and the accumulator): the escape step, mu and the features
// are the step-by-step loop's. The reference compares z for periodicity at every fourth step and
// saves it at multiples of 32 or of the interval, all block ends, so the blocks follow its
// periodicity schedule exactly: the same iterations, the same interior pixels. Within a block's
// length of max_iterations it goes one step at a time.
inline constexpr int kOrbitBlockSteps = kPeriodicityCompareStride;

enum class OrbitState { Running, Escaped, Interior };

template <typename T, unsigned kFeatures, Formula F = Formula::Mandelbrot, OrbitPlane P = OrbitPlane::Runtime>
struct BlockedOrbit {
    T cr = 0, ci = 0;
    T zr = 0, zi = 0, norm = 0;  // z_k and |z_k|^2
    T saved_r = 0, saved_i = 0;
    int k = 0, next_save = 0;
    OrbitAccumulator<T, kFeatures, F, P> acc;

    // z_0 = (z_re, z_im) and the parameter c (orbit_point_features' arguments); julia must agree
    // with P where P is not Runtime.
    MS_HD void start(T z_re, T z_im, T c_re, T c_im, bool julia, int stripe_density, int interval) {
        start(z_re, z_im, c_re, c_im, julia, stripe_density, stripe_polynomial(stripe_density), interval);
    }
    // The same with the stripes' polynomial already made (stripe_polynomial(stripe_density)).
    MS_HD void start(T z_re, T z_im, T c_re, T c_im, bool julia, int stripe_density, const StripePolynomial& poly,
                     int interval) {
        *this = BlockedOrbit{};
        zr = z_re;
        zi = z_im;
        cr = c_re;
        ci = c_im;
        next_save = next_periodicity_save(0, interval);
        acc.set_stripe_density(stripe_density, poly);
        if (julia) acc.start_julia();
    }

    // One step, z -> f(z) + c with the accumulator's updates, in the reference's order; |z|^2.
    MS_HD T advance() {
        acc.before_step(zr, zi);
#ifdef __CUDA_ARCH__
        // The quadratic formulas with the smooth kernels' step: the same bits, one FMA for Im.
        if constexpr (formula_degree(F) == 2) {
            T zr2 = zr * zr, zi2 = zi * zi;
            quadratic_step_fused<F>(zr, zi, zr2, zi2, cr, ci, ScalarDerivativeOps{}, ScalarAbs{});
        } else {
            formula_step<F>(zr, zi, zr * zr, zi * zi, cr, ci, ScalarAbs{});
        }
#else
        formula_step<F>(zr, zi, zr * zr, zi * zi, cr, ci, ScalarAbs{});
#endif
        const T n = zr * zr + zi * zi;
        acc.after_step(zr, zi, n);
        return n;
    }

    // One block (or one step near the end); k counts the steps run.
    MS_HD OrbitState run_block(int max_iterations, bool periodicity, int interval) {
        const T bailout_squared = T(formula_bailout_radius(F) * formula_bailout_radius(F));
        if (k <= max_iterations - kOrbitBlockSteps) {
            const T start_r = zr, start_i = zi;
            const OrbitAccumulator<T, kFeatures, F, P> start_acc = acc;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
            for (int j = 0; j < kOrbitBlockSteps; ++j) norm = advance();
            if (!(norm <= bailout_squared)) {
                // Escaped within the block: again step by step from its start.
                zr = start_r;
                zi = start_i;
                acc = start_acc;
                for (int j = 0; j < kOrbitBlockSteps; ++j) {
                    ++k;
                    norm = advance();
                    if (norm > bailout_squared) return OrbitState::Escaped;
                }
                return OrbitState::Escaped;  // not reached: the same steps escape again
            }
            k += kOrbitBlockSteps;
            acc.flush_stripe();
        } else {
            ++k;
            norm = advance();
            if (norm > bailout_squared) return OrbitState::Escaped;
        }
        // The reference's tests after step k, in its order.
        if (periodicity && periodicity_compare_step(k) && zr == saved_r && zi == saved_i) return OrbitState::Interior;
        if (k >= max_iterations) return OrbitState::Interior;
        if (periodicity && k == next_save) {
            saved_r = zr;
            saved_i = zi;
            next_save = next_periodicity_save(k, interval);
        }
        return OrbitState::Running;
    }

    // The features of a finished orbit (period only where asked for); returns mu.
    // The atom period (kFeatureAtom) is acc's: finish_atom(acc, ...).
    MS_HD float finish(OrbitState state, double pixel_step, float* distance, float* stripe, float* period) const {
        if (state == OrbitState::Escaped) {
            finish_escaped(acc, k, double(zr), double(zi), double(norm), pixel_step, distance, stripe, period);
            return formula_smooth_mu_of<F>(k, double(norm));
        }
        finish_interior_orbit<T, kFeatures, F>(zr, zi, cr, ci, distance, stripe, period);
        return kInteriorMu;
    }
#ifdef __CUDA_ARCH__
    // The same on the GPU, an escaped pixel finished in float (finish_escaped_fast) with the
    // frame's constants (make_fast_finish_constants).
    __device__ float finish_fast(OrbitState state, const FastFinishConstants& f, float* distance, float* stripe,
                                 float* period) const {
        if (state == OrbitState::Escaped) return finish_escaped_fast(acc, k, zr, zi, norm, f, distance, stripe, period);
        finish_interior_orbit<T, kFeatures, F>(zr, zi, cr, ci, distance, stripe, period);
        return kInteriorMu;
    }
#endif
};

}  // namespace ms
