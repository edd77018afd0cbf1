// nucleus.cpp: the period search, Newton's method for the nucleus and the minibrot's size
// (see nucleus.h).
#include "compute/fractal/nucleus/nucleus.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include "compute/fractal/deep/deep_nucleus_probe.h"
#include "compute/fractal/deep/deep_reference.h"
#include "compute/fractal/numbers/mpfr.h"

namespace ms {

namespace {

constexpr int64_t kStride = 4096;  // iterations between cancel polls and progress calls
constexpr int kMaxNewtonSteps = 64;
// Converged: the nucleus's error is below |s| * 2^-kToleranceBits, a millionth of a pixel of any
// image up to a million pixels high that frames the minibrot.
constexpr int kToleranceBits = 40;
// The nucleus must lie within this many disc radii of the centre: the probe's step (or the
// caller's period) promised one inside the disc; one further away is another nucleus's.
constexpr double kTravelRadii = 4.0;

double elapsed_ms(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

bool cancelled(const NucleusSearch& search) { return search.cancel && search.cancel->load(std::memory_order_relaxed); }

double fe_log2(FloatExp x) { return std::log2(std::fabs(x.mantissa)) + double(x.exponent); }

FloatExp fe_cabs(DeepComplex<FloatExp> z) { return fe_sqrt(deep_norm(z)); }

// 1 / z.
DeepComplex<FloatExp> fe_reciprocal(DeepComplex<FloatExp> z) {
    const FloatExp n = deep_norm(z);
    return {fe_div(z.re, n), fe_div(-z.im, n)};
}

// arg z, with the parts aligned to one exponent first (they may be far outside double's range).
double fe_arg(DeepComplex<FloatExp> z) {
    const int64_t e = std::max(z.re.exponent, z.im.exponent);
    auto part = [&](FloatExp v) {
        const int64_t shift = v.exponent - e;
        return v.mantissa == 0.0 || shift < -1000 ? 0.0 : v.mantissa * fe_pow2(int(shift));
    };
    return std::atan2(part(z.im), part(z.re));
}

// value (> 0) as a DeepZoom.
DeepZoom deep_zoom_from_log10(double log10_value) {
    double exponent = std::floor(log10_value);
    double mantissa = std::pow(10.0, log10_value - exponent);
    if (mantissa >= 10.0) mantissa /= 10.0, exponent += 1.0;
    if (mantissa < 1.0) mantissa = 1.0;
    return DeepZoom{mantissa, int64_t(exponent)};
}

double deep_zoom_log10(DeepZoom zoom) { return std::log10(zoom.mantissa) + double(zoom.exponent10); }

// x as fixed-point decimal text with the decimals that `bits` bits after the binary point resolve
// (an absolute precision: the digits past it would be noise).
std::string fixed_decimal(mpfr_srcptr x, int64_t bits) {
    if (mpfr_zero_p(x)) return "0";
    const int64_t fraction_digits = std::max<int64_t>(1, int64_t(double(bits) * 0.30102999566398120));
    mpfr_exp_t exponent = 0;  // x = 0.digits * 10^exponent: first its exponent, then its digits
    mpfr_free_str(mpfr_get_str(nullptr, &exponent, 10, 2, x, MPFR_RNDN));
    const int64_t wanted = int64_t(exponent) + fraction_digits;
    if (wanted < 1) return "0";
    char* text = mpfr_get_str(nullptr, &exponent, 10, size_t(wanted), x, MPFR_RNDN);
    std::string s = text;
    mpfr_free_str(text);
    std::string sign;
    if (!s.empty() && s[0] == '-') sign = "-", s.erase(0, 1);
    std::string out;
    if (exponent <= 0) {
        out = "0." + std::string(size_t(-exponent), '0') + s;
    } else {
        if (int64_t(s.size()) < int64_t(exponent)) s.append(size_t(exponent) - s.size(), '0');
        out = s.substr(0, size_t(exponent)) + "." + s.substr(size_t(exponent));
    }
    while (out.size() > 1 && out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
    if (out.find_first_not_of("0.") == std::string::npos) return "0";
    return sign + out;
}

// The period: the orbit of the centre in MPFR, with the reference's nucleus probe
// (deep_nucleus_probe.h) along it. A period the probe finds is skipped when it is at most
// search.after_period, or when it echoes an earlier find: a multiple of an earlier period
// whose Newton step points where that one's did (Z_2p vanishes at a nucleus of period p too), or
// a multiple of a period whose nucleus is known to be the near one (after_period's, and those
// Newton's method converged to instead of a find's: skip_multiples_of). next() goes on from where
// the last call stopped.
class PeriodSearch {
public:
    PeriodSearch(const DeepLocation& around, FloatExp radius, int64_t max_period, const NucleusSearch& search)
        : bits_(mpfr_prec_t(deep_reference_precision_bits(
              deep_zoom_from_log10(std::log10(2.0) - fe_log2(radius) * 0.30102999566398120), 1024))),
          x_(bits_), y_(bits_), x2_(bits_), y2_(bits_), s_(bits_), cr_(bits_), ci_(bits_), probe_(radius),
          max_period_(max_period), search_(search) {
        mpfr_set_decimal(cr_.get(), around.center_re);
        mpfr_set_decimal(ci_.get(), around.center_im);
        mpfr_set_zero(x_.get(), 1);
        mpfr_set_zero(y_.get(), 1);
        if (search.after_period > 0) skip_multiples_of(search.after_period);
    }

    void skip_multiples_of(int64_t period) { near_periods_.push_back(period); }

    // The next period and *first_step (the probe's Newton step from the centre towards its
    // nucleus) and *size_log2 (the minibrot's size estimate there), or 0 with *failure set.
    int64_t next(DeepComplex<FloatExp>* first_step, double* size_log2, std::string* failure) {
        while (n_ < max_period_) {
            ++n_;
            // Z := Z^2 + C, as the reference orbit steps.
            mpfr_mandelbrot_step(x_.get(), y_.get(), cr_.get(), ci_.get(), x2_.get(), y2_.get(), s_.get());
            const DeepComplex<FloatExp> z{floatexp_from_mpfr(x_.get()), floatexp_from_mpfr(y_.get())};
            if (fe_to_double(deep_norm(z)) > 4.0) {
                *failure = "No nucleus near here: the centre's orbit escapes at iteration " + std::to_string(n_) +
                           " before one shows.";
                return 0;
            }
            const DeepComplex<FloatExp> lambda = lambda_;
            lambda_ = deep_twice(lambda_ * z);
            if (probe_.step(z)) {
                const DeepComplex<FloatExp> step = probe_.step_vector();
                bool echo = n_ <= search_.after_period;
                for (int64_t k : near_periods_) echo = echo || n_ % k == 0;
                for (const Find& f : finds_)
                    if (!echo && n_ % f.period == 0 && fe_cabs(step - f.step) < fe_ldexp(fe_cabs(f.step), -2))
                        echo = true;
                finds_.push_back({n_, step});
                if (!echo) {
                    *first_step = step;
                    *size_log2 = fe_log2(fe_cabs(step)) - fe_log2(fe_cabs(z)) - fe_log2(fe_cabs(lambda));
                    return n_;
                }
            }
            if (n_ % kStride == 0) {
                if (cancelled(search_)) {
                    *failure = "cancelled";
                    return 0;
                }
                if (search_.progress) search_.progress("period", double(n_) / double(max_period_));
            }
        }
        *failure = "No nucleus of period " + std::to_string(search_.after_period + 1) + " to " +
                   std::to_string(max_period_) + " lies near here (more iterations look further).";
        return 0;
    }

private:
    struct Find {
        int64_t period;
        DeepComplex<FloatExp> step;
    };
    mpfr_prec_t bits_;
    MpfrNumber x_, y_, x2_, y2_, s_, cr_, ci_;
    NucleusProbe<Formula::Mandelbrot> probe_;
    int64_t max_period_;
    const NucleusSearch& search_;
    int64_t n_ = 0;
    std::vector<Find> finds_;
    std::vector<int64_t> near_periods_;
    // prod_{k<n} 2 Z_k: with the probe's step it estimates the minibrot's size,
    // |s| = 1 / |lambda dZ_n/dc| = |step| / |lambda Z_n|, which sets Newton's first precision.
    DeepComplex<FloatExp> lambda_{fe_from_double(1.0), FloatExp{}};
};

// One Newton step's results.
struct NewtonStep {
    DeepComplex<FloatExp> delta;  // Z_p / (dZ_p/dc): c := c - delta
    DeepComplex<FloatExp> size;   // s = 1 / (beta lambda^2) = 1 / (lambda dZ_p/dc) at this c
    // For each n < p dividing p, Newton's step towards a nucleus of period n, |Z_n / dZ_n|: about
    // the error where c converges to that nucleus instead (Z_p vanishes there too).
    std::vector<std::pair<int64_t, FloatExp>> divisor_steps;
    bool finite = true;
};

// Z_p(c) at bits_z (three squarings an iteration, as the reference orbit), its derivative
// dZ_p/dc at bits_d (Newton tolerates a derivative of a few more bits than the digits the step
// gains: the step's relative error only multiplies the error left), and the size estimate in
// FloatExp. c is read at its own precision (bits_z). Returns false when cancelled.
bool newton_step(mpfr_srcptr c_re, mpfr_srcptr c_im, int64_t period, mpfr_prec_t bits_z, mpfr_prec_t bits_d,
                 const NucleusSearch& search, int step_index, mpfr_ptr delta_re, mpfr_ptr delta_im, NewtonStep* out) {
    MpfrNumber x(bits_z), y(bits_z), x2(bits_z), y2(bits_z), s(bits_z);
    MpfrNumber dr(bits_d), di(bits_d), zr(bits_d), zi(bits_d), a(bits_d), b(bits_d), t(bits_d);
    mpfr_set_zero(x.get(), 1);
    mpfr_set_zero(y.get(), 1);
    mpfr_set_zero(dr.get(), 1);
    mpfr_set_zero(di.get(), 1);
    DeepComplex<FloatExp> lambda{fe_from_double(1.0), FloatExp{}};
    out->divisor_steps.clear();
    for (int64_t n = 0; n < period; ++n) {
        if (n > 0) {
            if (period % n == 0) {  // Newton's step to a nucleus of period n: |Z_n / dZ_n|
                const DeepComplex<FloatExp> z{floatexp_from_mpfr(x.get()), floatexp_from_mpfr(y.get())};
                const DeepComplex<FloatExp> dz{floatexp_from_mpfr(dr.get()), floatexp_from_mpfr(di.get())};
                out->divisor_steps.push_back({n, fe_div(fe_cabs(z), fe_cabs(dz))});
            }
            // dZ_{n+1} = 2 Z_n dZ_n + 1, at bits_d, the product in three multiplies (Gauss):
            // (p + iq)(u + iv) = (k1 - k3) + i(k1 + k2), k1 = u(p + q), k2 = p(v - u), k3 = q(u + v).
            mpfr_set(zr.get(), x.get(), MPFR_RNDN);
            mpfr_set(zi.get(), y.get(), MPFR_RNDN);
            mpfr_add(a.get(), dr.get(), di.get(), MPFR_RNDN);
            mpfr_mul(a.get(), a.get(), zr.get(), MPFR_RNDN);  // k1
            mpfr_sub(b.get(), zi.get(), zr.get(), MPFR_RNDN);
            mpfr_mul(b.get(), b.get(), dr.get(), MPFR_RNDN);  // k2
            mpfr_add(t.get(), zr.get(), zi.get(), MPFR_RNDN);
            mpfr_mul(t.get(), t.get(), di.get(), MPFR_RNDN);  // k3
            mpfr_sub(dr.get(), a.get(), t.get(), MPFR_RNDN);
            mpfr_add(di.get(), a.get(), b.get(), MPFR_RNDN);
            mpfr_mul_2ui(dr.get(), dr.get(), 1, MPFR_RNDN);
            mpfr_mul_2ui(di.get(), di.get(), 1, MPFR_RNDN);
            mpfr_add_ui(dr.get(), dr.get(), 1, MPFR_RNDN);
            // lambda = prod_{n<p} 2 Z_n.
            const DeepComplex<FloatExp> z{floatexp_from_mpfr(x.get()), floatexp_from_mpfr(y.get())};
            lambda = deep_twice(lambda * z);
        } else {
            mpfr_set_ui(dr.get(), 1, MPFR_RNDN);  // dZ_1 = 1
        }
        mpfr_mandelbrot_step(x.get(), y.get(), c_re, c_im, x2.get(), y2.get(), s.get());
        if ((n + 1) % kStride == 0) {
            if (cancelled(search)) return false;
            if (search.progress)
                search.progress("newton", std::min(0.99, (step_index + double(n + 1) / double(period)) / 8.0));
        }
    }
    // dZ_p/dc = sum_k prod_{n=k}^{p-1} 2 Z_n = lambda beta: s = 1 / (lambda dZ_p/dc).
    out->size = fe_reciprocal(lambda *
                              DeepComplex<FloatExp>{floatexp_from_mpfr(dr.get()), floatexp_from_mpfr(di.get())});
    // delta = Z_p / dZ_p = Z_p conj(dZ_p) / |dZ_p|^2, at bits_d (a step needs no more).
    MpfrNumber norm(bits_d), u(bits_d), v(bits_d);
    mpfr_sqr(a.get(), dr.get(), MPFR_RNDN);
    mpfr_sqr(b.get(), di.get(), MPFR_RNDN);
    mpfr_add(norm.get(), a.get(), b.get(), MPFR_RNDN);
    mpfr_mul(u.get(), x.get(), dr.get(), MPFR_RNDN);
    mpfr_mul(v.get(), y.get(), di.get(), MPFR_RNDN);
    mpfr_add(u.get(), u.get(), v.get(), MPFR_RNDN);
    mpfr_mul(t.get(), y.get(), dr.get(), MPFR_RNDN);
    mpfr_mul(v.get(), x.get(), di.get(), MPFR_RNDN);
    mpfr_sub(v.get(), t.get(), v.get(), MPFR_RNDN);
    mpfr_div(delta_re, u.get(), norm.get(), MPFR_RNDN);
    mpfr_div(delta_im, v.get(), norm.get(), MPFR_RNDN);
    out->finite = mpfr_number_p(delta_re) && mpfr_number_p(delta_im);
    out->delta = {floatexp_from_mpfr(delta_re), floatexp_from_mpfr(delta_im)};
    return true;
}

std::string no_convergence(int64_t period, const char* why) {
    return "No nucleus of period " + std::to_string(period) + " converged near here (" + why + ").";
}

// c := c - step, for a step in FloatExp.
void subtract_step(mpfr_ptr c_re, mpfr_ptr c_im, DeepComplex<FloatExp> step) {
    MpfrNumber t{64};
    mpfr_set_d(t.get(), step.re.mantissa, MPFR_RNDN);
    mpfr_mul_2si(t.get(), t.get(), long(step.re.exponent), MPFR_RNDN);
    mpfr_sub(c_re, c_re, t.get(), MPFR_RNDN);
    mpfr_set_d(t.get(), step.im.mantissa, MPFR_RNDN);
    mpfr_mul_2si(t.get(), t.get(), long(step.im.exponent), MPFR_RNDN);
    mpfr_sub(c_im, c_im, t.get(), MPFR_RNDN);
}

// Newton's method for the nucleus of `period` from the centre; fills m (or m->failure).
// first_step: Newton's first step from the centre where the period search has made it (the
// probe's J_p^-1 Z_p, in double: about 50 good bits, as many as the early steps need), else null.
//
// The precision follows the digits: each step's |delta| is the error before it, and once the
// steps shrink quadratically (e_{k+1} = K e_k^2, K from the last two steps) the error after it is
// K |delta|^2. The next step runs Z_p at twice the good bits plus a margin (up to the target) and
// the derivative at as many bits as the step gains plus a margin. Converged: at the target
// precision, either the step is below the tolerance, or three steps have shown the quadratic
// rate and the error it leaves is below the tolerance (the digits to the tolerance are then
// stable: one more step would change none of them, and costs a whole orbit of the period).
// *lower_period: where c converged to the nucleus of a period dividing `period`, that period.
void find_nucleus(const DeepLocation& around, FloatExp radius, int64_t period, const NucleusSearch& search,
                  const DeepComplex<FloatExp>* first_step, double first_size_log2, Minibrot* m, int64_t* lower_period) {
    const DeepZoom radius_zoom = deep_zoom_from_log10(std::log10(2.0) - fe_log2(radius) * 0.30102999566398120);
    const int64_t bits0 = std::max<int64_t>(64, deep_reference_precision_bits(radius_zoom, 1024));
    const double period_bits = std::ceil(std::log2(double(period) + 1.0));
    MpfrNumber c_re{mpfr_prec_t(bits0)}, c_im{mpfr_prec_t(bits0)};
    MpfrNumber centre_re{mpfr_prec_t(bits0)}, centre_im{mpfr_prec_t(bits0)};
    mpfr_set_decimal(centre_re.get(), around.center_re);
    mpfr_set_decimal(centre_im.get(), around.center_im);
    mpfr_set(c_re.get(), centre_re.get(), MPFR_RNDN);
    mpfr_set(c_im.get(), centre_im.get(), MPFR_RNDN);
    const FloatExp travel_limit = radius * fe_from_double(kTravelRadii);
    int64_t bits_z = bits0;
    int64_t bits_d = std::max<int64_t>(64, bits0 / 2 + 32);
    std::vector<double> step_log2;  // log2 |delta| of each step so far
    // The bits of c (after the binary point) the result must get right, for a minibrot of size
    // 2^size_log2: kToleranceBits below its size, or below the disc's radius where that is smaller
    // (near a nucleus of a lower period dividing this one the estimate runs away). Z_p runs with
    // a margin for its rounding over the period.
    auto good_bits_for = [&](double size_log2) {
        return std::ceil(-std::min(size_log2, fe_log2(radius))) + kToleranceBits +
               double(std::max<int64_t>(0, search.extra_bits));
    };
    auto target_bits_for = [&](double good_bits) {
        return std::max<int64_t>(bits0, int64_t(good_bits + period_bits) + 16);
    };

    // After a step of log2 size d made with a derivative of bits_used bits at bits_z: the error it
    // leaves (log2), and whether the last three steps showed the quadratic rate.
    auto error_after = [&](double d, int64_t bits_used, bool* quadratic) {
        const size_t n = step_log2.size();
        double error = d;
        *quadratic = false;
        if (n >= 2 && d < step_log2[n - 2]) {
            error = std::min(d, 3.0 * d - 2.0 * step_log2[n - 2]);
            if (n >= 3) *quadratic = d <= 3.0 * step_log2[n - 2] - 2.0 * step_log2[n - 3] + 4.0;
        }
        error = std::max(error, d - double(bits_used) + 8.0);         // the derivative's rounding
        return std::max(error, -double(bits_z) + period_bits + 8.0);  // Z_p's rounding
    };
    // The next step's precisions from the error now: Z_p at the bits the next error needs (K e^2,
    // K from the last two steps once they shrink, else e^2 as if K were 1) plus a margin, up to the
    // target; the derivative at as many bits as the step gains plus a margin.
    auto plan = [&](double error_log2, int64_t target_bits) {
        const size_t n = step_log2.size();
        const bool k_known = n >= 2 && step_log2[n - 1] < step_log2[n - 2];
        double next_log2 = 2.0 * error_log2;
        if (k_known) next_log2 = std::max(next_log2, step_log2[n - 1] - 2.0 * step_log2[n - 2] + 2.0 * error_log2);
        const int64_t next_z = std::clamp<int64_t>(int64_t(-next_log2 + period_bits) + 32, bits_z,
                                                   std::max(bits_z, target_bits));
        // A derivative good to bits_d bits leaves 2^-bits_d e of error: below 2^-next_z at
        // next_z + 32 - (c's good bits) bits whatever K is, and below K e^2 at fewer once K is known.
        bits_d = int64_t(-next_log2 + error_log2) + 32;
        if (!k_known) bits_d = next_z - int64_t(-error_log2) + 32;
        bits_d = std::clamp<int64_t>(bits_d, 64, std::max<int64_t>(64, next_z));
        if (next_z > bits_z) {
            mpfr_prec_round(c_re.get(), mpfr_prec_t(next_z), MPFR_RNDN);
            mpfr_prec_round(c_im.get(), mpfr_prec_t(next_z), MPFR_RNDN);
            bits_z = next_z;
        }
    };
    if (first_step) {
        subtract_step(c_re.get(), c_im.get(), *first_step);
        const double d = fe_log2(fe_cabs(*first_step));
        step_log2.push_back(d);
        bool quadratic = false;
        plan(error_after(d, 40, &quadratic), target_bits_for(good_bits_for(first_size_log2)));
    }
    NewtonStep step;
    for (int k = 0; k < kMaxNewtonSteps; ++k) {
        MpfrNumber delta_re{mpfr_prec_t(bits_d)}, delta_im{mpfr_prec_t(bits_d)};
        if (!newton_step(c_re.get(), c_im.get(), period, mpfr_prec_t(bits_z), mpfr_prec_t(bits_d), search, k,
                         delta_re.get(), delta_im.get(), &step)) {
            m->failure = "cancelled";
            return;
        }
        m->newton_steps = k + 1;
        if (!step.finite) {
            m->failure = no_convergence(period, "the derivative vanished");
            return;
        }
        mpfr_sub(c_re.get(), c_re.get(), delta_re.get(), MPFR_RNDN);
        mpfr_sub(c_im.get(), c_im.get(), delta_im.get(), MPFR_RNDN);
        {  // How far from the centre: a nucleus out of the disc is another's.
            MpfrNumber dx(64), dy(64);
            mpfr_sub(dx.get(), c_re.get(), centre_re.get(), MPFR_RNDN);
            mpfr_sub(dy.get(), c_im.get(), centre_im.get(), MPFR_RNDN);
            const DeepComplex<FloatExp> d{floatexp_from_mpfr(dx.get()), floatexp_from_mpfr(dy.get())};
            if (!(fe_cabs(d) <= travel_limit)) {
                m->failure = no_convergence(period, "Newton's method left the disc");
                return;
            }
        }
        const FloatExp step_abs = fe_cabs(step.delta);
        const FloatExp size_abs = fe_cabs(step.size);
        if (!(size_abs.mantissa > 0.0)) {
            m->failure = no_convergence(period, "the size estimate vanished");
            return;
        }
        const double size_log2 = fe_log2(size_abs);
        const double good_bits = good_bits_for(size_log2);
        const int64_t target_bits = target_bits_for(good_bits);
        const double d = step_abs.mantissa == 0.0 ? -double(bits_z) : fe_log2(step_abs);
        step_log2.push_back(d);
        bool quadratic = false;
        const double error_log2 = error_after(d, bits_d, &quadratic);
        if (bits_z >= target_bits && (d <= -good_bits || (quadratic && error_log2 <= -good_bits))) {
            // Converged. The period is the nucleus's own unless a nucleus of a period n dividing
            // it lies as near as the error: c is converging to that one.
            for (const auto& [n, n_step] : step.divisor_steps) {
                if (n_step.mantissa == 0.0 || fe_log2(n_step) < d + 4.0) {
                    m->failure = "No nucleus of period " + std::to_string(period) +
                                 " converged near here (Newton's method found the nucleus of period " +
                                 std::to_string(n) + ").";
                    *lower_period = n;
                    return;
                }
            }
            m->found = true;
            m->period = period;
            m->precision_bits = bits_z;
            m->center_re = fixed_decimal(c_re.get(), int64_t(good_bits));
            m->center_im = fixed_decimal(c_im.get(), int64_t(good_bits));
            m->size = size_abs;
            m->angle = fe_arg(step.size);
            // Half the height spans 2 / zoom: the minibrot's |s| fills it at zoom 2 / |s|.
            m->size_zoom = deep_zoom_from_log10((1.0 - size_log2) * 0.30102999566398120);
            return;
        }
        plan(error_log2, target_bits);
    }
    m->failure = no_convergence(period, "Newton's method did not settle");
}

}  // namespace

std::string minibrot_support(const DeepLocation& location) {
    if (location.julia) return "Newton zoom looks for nuclei in the parameter plane, not in a Julia set.";
    if (location.formula != Formula::Mandelbrot) return "Newton zoom supports the Mandelbrot set.";
    return "";
}

Minibrot find_minibrot(const DeepLocation& around, FloatExp radius, const NucleusSearch& search) {
    Minibrot m;
    if (std::string why = minibrot_support(around); !why.empty()) {
        m.failure = why;
        return m;
    }
    if (std::string why = validate_deep_location(around); !why.empty()) {
        m.failure = why;
        return m;
    }
    if (!(radius.mantissa > 0.0)) {
        m.failure = "The search radius must be positive.";
        return m;
    }
    const int64_t max_period = search.max_period > 0 ? search.max_period : around.max_iterations;
    int64_t period = search.period;
    if (period < 0) {
        m.failure = "The period must be at least 1.";
        return m;
    }
    if (period > max_period) {
        m.failure = "The period " + std::to_string(period) + " is past the limit of " + std::to_string(max_period) +
                    " (more iterations raise it).";
        return m;
    }
    // Without a period given: the search's finds in turn, until Newton's method converges to a
    // nucleus of the period found (not to one of a period dividing it, which the search's echo
    // test may let through, nor outside the disc, where the probe's first-order step misjudged),
    // for at most kMaxCandidates finds; the last failure stands.
    constexpr int kMaxCandidates = 8;
    std::unique_ptr<PeriodSearch> periods;
    if (period == 0) periods = std::make_unique<PeriodSearch>(around, radius, max_period, search);
    for (int candidate = 0; candidate < kMaxCandidates; ++candidate) {
        DeepComplex<FloatExp> first_step{};
        double size_log2 = 0.0;
        if (periods) {
            const auto start = std::chrono::steady_clock::now();
            period = periods->next(&first_step, &size_log2, &m.failure);
            m.period_ms += elapsed_ms(start);
            if (period == 0) return m;
        }
        const auto newton_start = std::chrono::steady_clock::now();
        int64_t lower_period = 0;
        m.failure.clear();
        find_nucleus(around, radius, period, search, periods ? &first_step : nullptr, size_log2, &m, &lower_period);
        m.newton_ms += elapsed_ms(newton_start);
        if (!periods || m.found || m.failure == "cancelled") break;
        if (lower_period > 0) periods->skip_multiples_of(lower_period);
    }
    if (m.found && search.progress) search.progress("newton", 1.0);
    return m;
}

DeepZoom minibrot_frame_zoom(const Minibrot& m, double margin) {
    return deep_zoom_from_log10(deep_zoom_log10(m.size_zoom) - std::log10(margin > 0.0 ? margin : 1.0));
}

int64_t minibrot_iterations(const Minibrot& m, int64_t current) {
    const int64_t cycles = m.period > kDeepMaxIterations / kMinibrotCycles ? kDeepMaxIterations
                                                                            : m.period * kMinibrotCycles;
    return std::max(current, cycles);
}

DeepZoom zoom_fraction(DeepZoom from, DeepZoom to, double fraction) {
    // The exponents' difference in integers first: the zooms may be thousands of decades apart.
    const double span = double(to.exponent10 - from.exponent10) + std::log10(to.mantissa) - std::log10(from.mantissa);
    const double offset = std::log10(from.mantissa) + fraction * span;
    DeepZoom z = deep_zoom_from_log10(offset - std::floor(offset));
    z.exponent10 += from.exponent10 + int64_t(std::floor(offset));
    return z;
}

}  // namespace ms
