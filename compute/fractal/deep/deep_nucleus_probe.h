// deep_nucleus_probe.h: the probe that finds, along a parameter-plane orbit, the first period
// whose nucleus lies within a radius of the orbit's point. The reference orbit stops there
// (deep_reference.cpp); Newton zoom (nucleus/) takes that period for its nucleus.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "compute/fractal/numbers/floatexp.h"
#include "compute/fractal/view/formula.h"

namespace ms {

// Finds where the orbit may stop: the first n at which a nucleus of period n (a c with Z_n(c) = 0)
// lies within `radius` of the reference point C. It carries the orbit's Jacobian
// J_n = dZ_n/dc, J_{n+1} = Df(Z_n) J_n + I (a real 2x2 matrix, so that the Burning Ship's folds
// and the Tricorn's conjugation fit as Mandelbrot does), and takes Newton's step towards the
// nucleus, J_n^-1 Z_n: the nucleus is about that far away. J spans thousands of decimal
// exponents, so it is held as a double matrix times 2^scale, renormalised each step. It starts
// from Z_0 = 0 (the parameter plane's orbits only).
//
// Why the orbit can stop there (deep_perturbation.h rebases every pixel when the reference
// ends: z := Z_n + z, m := 0): from Z_n on, a pixel's orbit continues from its full value, exact
// but for the rounding of Z_n + z, about 2^-53 |Z_n|. A pixel's own differences at step n are
// |J_n| times its offset, so that rounding is 2^-53 |J_n^-1 Z_n| / spacing pixels: with the
// nucleus within the frame's half diagonal, under 1e-13 pixels at 1024x1024. The orbit past n
// is then never needed: every pixel has rebased by then. At the kf2 locations (1024x1024):
// 5e227 stops at 567,135 of 1,152,065 iterations, 4e533 at 52,859 of 105,762,
// 1e1086 at 179,301 of 538,505.
template <Formula F>
class NucleusProbe {
public:
    explicit NucleusProbe(FloatExp radius) : radius_(radius) {}

    // Z_n, after Z_{n-1} at the call before: steps J, then tests Z_n. True when a nucleus of period
    // n is within radius.
    bool step(const DeepComplex<FloatExp>& z) {
        jacobian_step();
        return nucleus_within(z);
    }
    FloatExp distance() const { return distance_; }
    // Newton's step J_n^-1 Z_n of the last step that found a nucleus (its length is distance()).
    DeepComplex<FloatExp> step_vector() const { return step_vector_; }

private:
    // Z = (x, y) * 2^e with max(|x|, |y|) in [1, 2); false for Z = 0.
    static bool aligned(const DeepComplex<FloatExp>& z, double* x, double* y, int64_t* e) {
        if (z.re.mantissa == 0.0 && z.im.mantissa == 0.0) return false;
        *e = std::max(z.re.exponent, z.im.exponent);
        auto part = [&](FloatExp v) {
            const int64_t shift = v.exponent - *e;
            return v.mantissa == 0.0 || shift < -1000 ? 0.0 : v.mantissa * fe_pow2(int(shift));
        };
        *x = part(z.re);
        *y = part(z.im);
        return true;
    }

    // J_n = Df(Z_{n-1}) J_{n-1} + I, with Z_{n-1} as the last nucleus_within aligned it.
    void jacobian_step() {
        double x = previous_x_, y = previous_y_;
        int64_t e = previous_e_;
        double d[4] = {0.0, 0.0, 0.0, 0.0};  // Df(Z) / 2^de, row-major
        int64_t de = 0;
        if (previous_nonzero_) {
            if constexpr (F == Formula::Mandelbrot) {
                d[0] = 2 * x, d[1] = -2 * y, d[2] = 2 * y, d[3] = 2 * x;
            } else if constexpr (F == Formula::Tricorn) {  // (x^2 - y^2, -2xy)
                d[0] = 2 * x, d[1] = -2 * y, d[2] = -2 * y, d[3] = -2 * x;
            } else if constexpr (F == Formula::BurningShip) {  // (x^2 - y^2, 2|x||y|)
                d[0] = 2 * x, d[1] = -2 * y, d[2] = 2 * std::copysign(y, x), d[3] = 2 * std::copysign(x, y);
            } else {  // z^k: k z^(k-1), a complex number
                constexpr int k = formula_degree(F);
                double pr = 1.0, pi = 0.0;
                for (int i = 1; i < k; ++i) {
                    const double t = pr * x - pi * y;
                    pi = pr * y + pi * x;
                    pr = t;
                }
                d[0] = k * pr, d[1] = -k * pi, d[2] = k * pi, d[3] = k * pr;
                e *= k - 1;
            }
            de = e;
        }
        // J := Df J (scale + de), then + I.
        const double m0 = d[0] * m_[0] + d[1] * m_[2], m1 = d[0] * m_[1] + d[1] * m_[3];
        const double m2 = d[2] * m_[0] + d[3] * m_[2], m3 = d[2] * m_[1] + d[3] * m_[3];
        m_[0] = m0, m_[1] = m1, m_[2] = m2, m_[3] = m3;
        scale_ += de;
        const bool zero = m0 == 0.0 && m1 == 0.0 && m2 == 0.0 && m3 == 0.0;
        if (zero || scale_ < -1000) {  // J tiny: J + I is I to double precision
            const double f = zero ? 0.0 : std::ldexp(1.0, int(std::max<int64_t>(scale_, -1100)));
            m_[0] = 1.0 + m_[0] * f, m_[1] *= f, m_[2] *= f, m_[3] = 1.0 + m_[3] * f;
            scale_ = 0;
        } else if (scale_ < 1000) {
            const double one = fe_pow2(int(-scale_));
            m_[0] += one;
            m_[3] += one;
        }  // else I is below J's last bit
        const double largest = std::max(std::max(std::fabs(m_[0]), std::fabs(m_[1])),
                                        std::max(std::fabs(m_[2]), std::fabs(m_[3])));
        if (largest == 0.0) return;  // a zero J (+ I) has no scale to take out
        const int biased = int((fe_bits(largest) >> 52) & 0x7ff);
        const int k = biased > 0 ? biased - 1023 : std::ilogb(largest);
        const double f = fe_pow2(-k);
        m_[0] *= f, m_[1] *= f, m_[2] *= f, m_[3] *= f;
        scale_ += k;
    }

    bool nucleus_within(const DeepComplex<FloatExp>& z) {
        previous_nonzero_ = aligned(z, &previous_x_, &previous_y_, &previous_e_);  // the next step's Df
        const double x = previous_x_, y = previous_y_;
        const int64_t e = previous_e_;
        if (!previous_nonzero_) {  // Z_n = 0 exactly: the reference point is the nucleus
            distance_ = FloatExp{};
            return true;
        }
        // |J^-1 Z| >= |Z| / |J| >= 2^(e - scale - 2): most steps end here.
        if (e - scale_ - 2 > radius_.exponent + 1) return false;
        const double det = m_[0] * m_[3] - m_[1] * m_[2];
        if (!(std::fabs(det) > 0.0)) return false;
        const double ux = (m_[3] * x - m_[1] * y) / det, uy = (m_[0] * y - m_[2] * x) / det;
        const FloatExp step = fe_make(std::hypot(ux, uy), e - scale_);
        if (!(step < radius_)) return false;
        distance_ = step;
        step_vector_ = {fe_make(ux, e - scale_), fe_make(uy, e - scale_)};
        return true;
    }

    FloatExp radius_;
    FloatExp distance_{};
    DeepComplex<FloatExp> step_vector_{};
    double m_[4] = {0.0, 0.0, 0.0, 0.0};  // J = m_ * 2^scale_, J_0 = 0
    int64_t scale_ = 0;
    // Z_{n-1} aligned (Z_0 = 0 to begin with).
    bool previous_nonzero_ = false;
    double previous_x_ = 0.0, previous_y_ = 0.0;
    int64_t previous_e_ = 0;
};

}  // namespace ms
