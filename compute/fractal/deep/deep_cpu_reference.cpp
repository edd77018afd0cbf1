// deep_cpu_reference.cpp: the brute-force truth. Every pixel iterated z <- f(z) + c in MPFR at
// one precision, nothing approximated; slow by design (tests use small images). Each formula's
// step is written here on its own, in the plainest form (z^d as d - 1 products, 2xy as a
// product), not shared with the reference orbit's (deep_reference.cpp), so that the truth does
// not inherit a slip of the code it judges.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/numbers/mpfr.h"
#include "compute/fractal/deep/deep_perturbation.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/maths/escape.h"

namespace ms {

namespace {

// One pixel's registers and its iteration for formula F: z_0 = (x, y), c = (cr, ci) as the
// caller set them. Returns the escape count (-1 inside) and writes mu.
struct BruteForceRegisters {
    MpfrNumber x, y, x2, y2, s, cr, ci, pr, pi, a, b;
    MpfrNumber dr, di, er, ei;  // the derivative (iterate_distance): D, or the Jacobian's two columns
    // The atom period (atom non-null): |z_k|^2 and the smallest so far, in MPFR (no value of the
    // orbit is too small for its exponent), and that k.
    MpfrNumber atom_t, atom_min;
    float* atom = nullptr;
    int64_t atom_k = 0;
    explicit BruteForceRegisters(mpfr_prec_t bits)
        : x(bits), y(bits), x2(bits), y2(bits), s(bits), cr(bits), ci(bits), pr(bits), pi(bits), a(bits), b(bits),
          dr(bits), di(bits), er(bits), ei(bits), atom_t(bits), atom_min(bits) {}

    // After step k, where the atom period is asked for: k if |z_k| is the smallest so far.
    void track_atom(int64_t k) {
        if (!atom) return;
        mpfr_sqr(atom_t.get(), x.get(), MPFR_RNDN);
        mpfr_fma(atom_t.get(), y.get(), y.get(), atom_t.get(), MPFR_RNDN);
        if (k == 1 || mpfr_less_p(atom_t.get(), atom_min.get())) {
            mpfr_set(atom_min.get(), atom_t.get(), MPFR_RNDN);
            atom_k = k;
        }
    }
    void finish_atom() const {
        if (atom) *atom = float(atom_k);
    }

    template <Formula F>
    void step() {
        if constexpr (F == Formula::Mandelbrot) {
            mpfr_mandelbrot_step(x.get(), y.get(), cr.get(), ci.get(), x2.get(), y2.get(), s.get());
        } else if constexpr (F == Formula::BurningShip || F == Formula::Tricorn) {
            // x' = x^2 - y^2 + cr; y' = 2|xy| + ci (Burning Ship) or -2xy + ci (Tricorn).
            mpfr_mul(s.get(), x.get(), y.get(), MPFR_RNDN);
            mpfr_mul_2ui(s.get(), s.get(), 1, MPFR_RNDN);
            if constexpr (F == Formula::BurningShip) mpfr_abs(s.get(), s.get(), MPFR_RNDN);
            else mpfr_neg(s.get(), s.get(), MPFR_RNDN);
            mpfr_sqr(x2.get(), x.get(), MPFR_RNDN);
            mpfr_sqr(y2.get(), y.get(), MPFR_RNDN);
            mpfr_sub(x.get(), x2.get(), y2.get(), MPFR_RNDN);
            mpfr_add(x.get(), x.get(), cr.get(), MPFR_RNDN);
            mpfr_add(y.get(), s.get(), ci.get(), MPFR_RNDN);
        } else {
            // z^d as z * z * ... * z (d - 1 complex products).
            mpfr_set(pr.get(), x.get(), MPFR_RNDN);
            mpfr_set(pi.get(), y.get(), MPFR_RNDN);
            for (int k = 1; k < formula_degree(F); ++k) {
                mpfr_complex_multiply_by(pr.get(), pi.get(), x.get(), y.get(), a.get(), b.get(), s.get());
            }
            mpfr_add(x.get(), pr.get(), cr.get(), MPFR_RNDN);
            mpfr_add(y.get(), pi.get(), ci.get(), MPFR_RNDN);
        }
    }

    template <Formula F>
    int64_t iterate(int64_t max_iterations, double* mu, int64_t* iterations) {
        const double bailout_squared = formula_bailout_radius(F) * formula_bailout_radius(F);
        for (int64_t k = 1; k <= max_iterations; ++k) {
            step<F>();
            track_atom(k);
            double xd = mpfr_get_d(x.get(), MPFR_RNDN), yd = mpfr_get_d(y.get(), MPFR_RNDN);
            double norm = xd * xd + yd * yd;
            if (norm > bailout_squared) {
                *mu = smooth_mu<F>(k, norm);
                *iterations += uint64_t(k);
                finish_atom();
                return k;
            }
        }
        *iterations += uint64_t(max_iterations);
        finish_atom();
        return -1;
    }

    // The smooth value at the escape at k with |z_k|^2 = norm.
    template <Formula F>
    static double smooth_mu(int64_t k, double norm) {
        return formula_degree(F) == 2 ? std::max(0.0, double(k) + 1.0 - std::log2(0.5 * std::log(norm)))
                                      : double(formula_smooth_mu(F, int(std::min<int64_t>(k, INT32_MAX)), norm));
    }

    // The iteration with the derivative beside it, in MPFR (its exponent range holds any
    // derivative), written from the maths and not from deep_derivative.h: with z_k before the
    // step,
    //   holomorphic  D <- d z^(d-1) D + 1        (dz/dc; on a Julia set dz/dz_0, D_0 = 1, no + 1)
    //   Tricorn, Burning Ship: the Jacobian's columns (dr, di) = dz/dx and (er, ei) = dz/dy,
    //       f(x + iy) = (x^2 - y^2, s 2xy) + c with s = -1 (Tricorn) or sign(xy) (Burning Ship),
    //       so each column (u, v) -> (2x u - 2y v, s (2y u + 2x v)), plus I on the parameter plane
    //       (the identity at the start of a Julia set).
    // At the escape the distance estimate in pixels of `spacing`: |z| ln|z| / |D| (holomorphic),
    // |z|^2 ln|z| / |J^T z| (the others); 0 inside.
    template <Formula F>
    int64_t iterate_distance(bool julia, int64_t max_iterations, const MpfrNumber& spacing, double* mu, float* distance,
                             int64_t* iterations) {
        constexpr bool kHolomorphic = formula_is_holomorphic(F);
        constexpr int kDegree = formula_degree(F);
        const double bailout_squared = formula_bailout_radius(F) * formula_bailout_radius(F);
        mpfr_set_ui(dr.get(), julia ? 1 : 0, MPFR_RNDN);
        mpfr_set_zero(di.get(), 1);
        mpfr_set_zero(er.get(), 1);
        mpfr_set_ui(ei.get(), julia ? 1 : 0, MPFR_RNDN);
        for (int64_t k = 1; k <= max_iterations; ++k) {
            if constexpr (kHolomorphic) {
                // (pr, pi) = z^(d-1) as d - 2 products, then D <- d (pr, pi) D (+ 1).
                mpfr_set(pr.get(), x.get(), MPFR_RNDN);
                mpfr_set(pi.get(), y.get(), MPFR_RNDN);
                for (int j = 2; j < kDegree; ++j) {
                    mpfr_complex_multiply_by(pr.get(), pi.get(), x.get(), y.get(), a.get(), b.get(), s.get());
                }
                mpfr_mul(a.get(), pr.get(), dr.get(), MPFR_RNDN);
                mpfr_mul(b.get(), pi.get(), di.get(), MPFR_RNDN);
                mpfr_sub(a.get(), a.get(), b.get(), MPFR_RNDN);
                mpfr_mul(b.get(), pr.get(), di.get(), MPFR_RNDN);
                mpfr_mul(s.get(), pi.get(), dr.get(), MPFR_RNDN);
                mpfr_add(b.get(), b.get(), s.get(), MPFR_RNDN);
                mpfr_mul_ui(dr.get(), a.get(), kDegree, MPFR_RNDN);
                if (!julia) mpfr_add_ui(dr.get(), dr.get(), 1, MPFR_RNDN);
                mpfr_mul_ui(di.get(), b.get(), kDegree, MPFR_RNDN);
            } else {
                const bool flip = F == Formula::Tricorn || mpfr_sgn(x.get()) * mpfr_sgn(y.get()) < 0;
                mpfr_mul_2ui(x2.get(), x.get(), 1, MPFR_RNDN);  // 2x, 2y (step() sets x2, y2 again)
                mpfr_mul_2ui(y2.get(), y.get(), 1, MPFR_RNDN);
                for (auto [u, v] : {std::pair{dr.get(), di.get()}, std::pair{er.get(), ei.get()}}) {
                    mpfr_mul(a.get(), x2.get(), u, MPFR_RNDN);
                    mpfr_mul(s.get(), y2.get(), v, MPFR_RNDN);
                    mpfr_sub(a.get(), a.get(), s.get(), MPFR_RNDN);
                    mpfr_mul(b.get(), y2.get(), u, MPFR_RNDN);
                    mpfr_mul(s.get(), x2.get(), v, MPFR_RNDN);
                    mpfr_add(b.get(), b.get(), s.get(), MPFR_RNDN);
                    mpfr_set(u, a.get(), MPFR_RNDN);
                    if (flip) mpfr_neg(v, b.get(), MPFR_RNDN);
                    else mpfr_set(v, b.get(), MPFR_RNDN);
                }
                if (!julia) {
                    mpfr_add_ui(dr.get(), dr.get(), 1, MPFR_RNDN);
                    mpfr_add_ui(ei.get(), ei.get(), 1, MPFR_RNDN);
                }
            }
            step<F>();
            track_atom(k);
            const double xd = mpfr_get_d(x.get(), MPFR_RNDN), yd = mpfr_get_d(y.get(), MPFR_RNDN);
            const double norm = xd * xd + yd * yd;
            if (norm > bailout_squared) {
                *mu = smooth_mu<F>(k, norm);
                finish_atom();
                // |D| (or |J^T z|) times spacing: the derivative per pixel, in double's range for
                // any pixel off the boundary.
                double numerator;
                if constexpr (kHolomorphic) {
                    mpfr_hypot(a.get(), dr.get(), di.get(), MPFR_RNDN);
                    numerator = 0.5 * std::sqrt(norm) * std::log(norm);
                } else {
                    mpfr_mul(a.get(), dr.get(), x.get(), MPFR_RNDN);
                    mpfr_mul(s.get(), di.get(), y.get(), MPFR_RNDN);
                    mpfr_add(a.get(), a.get(), s.get(), MPFR_RNDN);
                    mpfr_mul(b.get(), er.get(), x.get(), MPFR_RNDN);
                    mpfr_mul(s.get(), ei.get(), y.get(), MPFR_RNDN);
                    mpfr_add(b.get(), b.get(), s.get(), MPFR_RNDN);
                    mpfr_hypot(a.get(), a.get(), b.get(), MPFR_RNDN);
                    numerator = 0.5 * norm * std::log(norm);
                }
                mpfr_mul(a.get(), a.get(), spacing.get(), MPFR_RNDN);
                const double d = numerator / mpfr_get_d(a.get(), MPFR_RNDN);
                *distance = d >= 0.0 && d < 3.0e38 ? float(d) : 0.0f;
                *iterations += uint64_t(k);
                return k;
            }
        }
        *distance = 0.0f;
        *iterations += uint64_t(max_iterations);
        finish_atom();
        return -1;
    }
};

// fn.template operator()<F>() for the formula.
template <typename Fn>
int64_t with_formula(Formula formula, Fn&& fn) {
    switch (formula) {
    case Formula::Mandelbrot: return fn.template operator()<Formula::Mandelbrot>();
    case Formula::Multibrot3: return fn.template operator()<Formula::Multibrot3>();
    case Formula::Multibrot4: return fn.template operator()<Formula::Multibrot4>();
    case Formula::Multibrot5: return fn.template operator()<Formula::Multibrot5>();
    case Formula::Multibrot6: return fn.template operator()<Formula::Multibrot6>();
    case Formula::Multibrot7: return fn.template operator()<Formula::Multibrot7>();
    case Formula::Multibrot8: return fn.template operator()<Formula::Multibrot8>();
    case Formula::BurningShip: return fn.template operator()<Formula::BurningShip>();
    case Formula::Tricorn: return fn.template operator()<Formula::Tricorn>();
    }
    return -1;
}

}  // namespace

DeepFrame deep_cpu_reference(const DeepLocation& location, int width, int height, int64_t precision_bits, bool distance,
                             bool atom) {
    std::string error = validate_deep_location(location);
    if (!error.empty()) throw std::invalid_argument(error);
    auto start = std::chrono::steady_clock::now();
    if (precision_bits <= 0) precision_bits = deep_reference_precision_bits(location.zoom, height) + 32;
    const mpfr_prec_t bits = mpfr_prec_t(precision_bits);
    DeepFrame frame;
    frame.width = width;
    frame.height = height;
    frame.escape_count.assign(size_t(width) * size_t(height), -1);
    frame.mu.assign(size_t(width) * size_t(height), -1.0);
    if (distance) frame.distance.assign(size_t(width) * size_t(height), 0.0f);
    if (atom) frame.atom.assign(size_t(width) * size_t(height), 0.0f);
    frame.stats.precision_bits = precision_bits;
    // The same spacing the deep path uses (one rounding of the exact value to 53 bits), taken
    // exactly: both paths then sample the same points.
    const FloatExp spacing_fe = deep_pixel_spacing(location.zoom, height);
    const int64_t max_iterations = location.max_iterations;
    const int64_t pixels = int64_t(width) * height;
    uint64_t iterations = 0, escaped = 0;
    // A 1x1 frame (the tests' bisections judge each midpoint with one) runs on the calling
    // thread: a team for one pixel only wakes threads that then spin between the frames, which
    // on a loaded machine makes the bisecting tests many times slower (libgomp's spinning, unless
    // OMP_WAIT_POLICY=passive).
#pragma omp parallel reduction(+ : iterations, escaped) if (pixels > 1)
    {
        MpfrNumber center_re(bits), center_im(bits), spacing(bits), pixel_re(bits), pixel_im(bits);
        BruteForceRegisters r(bits);
        mpfr_set_decimal(center_re.get(), location.center_re);
        mpfr_set_decimal(center_im.get(), location.center_im);
        mpfr_set_d(spacing.get(), spacing_fe.mantissa, MPFR_RNDN);
        mpfr_mul_2si(spacing.get(), spacing.get(), long(spacing_fe.exponent), MPFR_RNDN);
        int64_t thread_iterations = 0;
#pragma omp for schedule(dynamic, 1)
        for (int64_t p = 0; p < pixels; ++p) {
            const int px = int(p % width), py = int(p / width);
            mpfr_mul_d(pixel_re.get(), spacing.get(), px + 0.5 - 0.5 * width, MPFR_RNDN);
            mpfr_add(pixel_re.get(), pixel_re.get(), center_re.get(), MPFR_RNDN);
            mpfr_mul_d(pixel_im.get(), spacing.get(), -(py + 0.5 - 0.5 * height), MPFR_RNDN);
            mpfr_add(pixel_im.get(), pixel_im.get(), center_im.get(), MPFR_RNDN);
            if (location.julia) {  // z_0 = pixel, c fixed
                mpfr_set(r.x.get(), pixel_re.get(), MPFR_RNDN);
                mpfr_set(r.y.get(), pixel_im.get(), MPFR_RNDN);
                mpfr_set_decimal(r.cr.get(), location.julia_re);
                mpfr_set_decimal(r.ci.get(), location.julia_im);
            } else {  // z_0 = 0, c = pixel
                mpfr_set_zero(r.x.get(), 1);
                mpfr_set_zero(r.y.get(), 1);
                mpfr_set(r.cr.get(), pixel_re.get(), MPFR_RNDN);
                mpfr_set(r.ci.get(), pixel_im.get(), MPFR_RNDN);
            }
            double mu = -1.0;
            r.atom = atom ? &frame.atom[size_t(p)] : nullptr;
            const int64_t k = with_formula(location.formula, [&]<Formula F>() {
                return distance ? r.iterate_distance<F>(location.julia, max_iterations, spacing, &mu,
                                                        &frame.distance[size_t(p)], &thread_iterations)
                                : r.iterate<F>(max_iterations, &mu, &thread_iterations);
            });
            frame.escape_count[size_t(p)] = k;
            if (k >= 0) {
                frame.mu[size_t(p)] = mu;
                ++escaped;
            }
        }
        iterations += uint64_t(thread_iterations);
    }
    frame.stats.iterations = iterations;
    frame.stats.escaped_pixels = escaped;
    frame.stats.frame_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return frame;
}

}  // namespace ms
