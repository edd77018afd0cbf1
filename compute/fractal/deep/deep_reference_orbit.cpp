// deep_reference_orbit.cpp: the MPFR reference orbit and its yardstick loop (see deep_reference.h);
// the cache and the precision rule are in deep_reference.cpp.
#include "compute/fractal/deep/deep_reference.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <stdexcept>
#include <thread>

#include "compute/fractal/deep/deep_nucleus_probe.h"
#include "compute/fractal/numbers/mpfr.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/maths/escape.h"

namespace ms {

namespace {

constexpr int64_t kProgressStride = 4096;  // iterations between progress calls / cancel polls

// The orbit's working set: Z = x + iy, C = cr + i ci, the squarings' temporaries, and (z^d only)
// the power's.
struct OrbitRegisters {
    MpfrNumber x, y, x2, y2, s, cr, ci, pr, pi, a, b;
    explicit OrbitRegisters(mpfr_prec_t bits)
        : x(bits), y(bits), x2(bits), y2(bits), s(bits), cr(bits), ci(bits), pr(bits), pi(bits), a(bits), b(bits) {}

    // x2 = x^2, y2 = y^2 and s = 2xy as (x + y)^2 - x^2 - y^2: three squarings.
    void squares_and_twice_xy() {
        mpfr_sqr(x2.get(), x.get(), MPFR_RNDN);
        mpfr_sqr(y2.get(), y.get(), MPFR_RNDN);
        mpfr_add(s.get(), x.get(), y.get(), MPFR_RNDN);
        mpfr_sqr(s.get(), s.get(), MPFR_RNDN);
        mpfr_sub(s.get(), s.get(), x2.get(), MPFR_RNDN);
        mpfr_sub(s.get(), s.get(), y2.get(), MPFR_RNDN);
    }

    // Z := Z^2 + C with three squarings: x' = x^2 - y^2 + cr, y' = (x + y)^2 - x^2 - y^2 + ci.
    void step() {
        squares_and_twice_xy();
        combine<Formula::Mandelbrot>();
    }

    // A degree-2 formula's new Z from x2, y2 and s = 2xy: s + ci (|s| for the Burning Ship, -s
    // for the Tricorn) and x2 - y2 + cr.
    template <Formula F>
    void combine() {
        if constexpr (F == Formula::BurningShip) {
            mpfr_abs(s.get(), s.get(), MPFR_RNDN);
            mpfr_add(y.get(), s.get(), ci.get(), MPFR_RNDN);
        } else if constexpr (F == Formula::Tricorn) {
            mpfr_sub(y.get(), ci.get(), s.get(), MPFR_RNDN);
        } else {
            static_assert(F == Formula::Mandelbrot);
            mpfr_add(y.get(), s.get(), ci.get(), MPFR_RNDN);
        }
        mpfr_sub(x.get(), x2.get(), y2.get(), MPFR_RNDN);
        mpfr_add(x.get(), x.get(), cr.get(), MPFR_RNDN);
    }

    // (pr, pi) := (pr, pi)^2.
    void square_power() {
        mpfr_mul(s.get(), pr.get(), pi.get(), MPFR_RNDN);
        mpfr_sqr(a.get(), pr.get(), MPFR_RNDN);
        mpfr_sqr(b.get(), pi.get(), MPFR_RNDN);
        mpfr_sub(pr.get(), a.get(), b.get(), MPFR_RNDN);
        mpfr_mul_2ui(pi.get(), s.get(), 1, MPFR_RNDN);
    }
    // (pr, pi) := (pr, pi) * (x, y).
    void multiply_power_by_z() {
        mpfr_complex_multiply_by(pr.get(), pi.get(), x.get(), y.get(), a.get(), b.get(), s.get());
    }
    // (pr, pi) := z^D by formula_math.h's square-and-multiply chain.
    template <int D>
    void power() {
        if constexpr (D == 1) {
            mpfr_set(pr.get(), x.get(), MPFR_RNDN);
            mpfr_set(pi.get(), y.get(), MPFR_RNDN);
        } else if constexpr (D % 2 == 1) {
            power<D - 1>();
            multiply_power_by_z();
        } else {
            power<D / 2>();
            square_power();
        }
    }

    // Z := f(Z) + C for formula F (formula_math.h's formula_step, in MPFR).
    template <Formula F>
    void step_formula() {
        if constexpr (F == Formula::Mandelbrot) {
            step();
        } else if constexpr (formula_degree(F) == 2) {
            squares_and_twice_xy();
            combine<F>();
        } else {
            power<formula_degree(F)>();
            mpfr_add(x.get(), pr.get(), cr.get(), MPFR_RNDN);
            mpfr_add(y.get(), pi.get(), ci.get(), MPFR_RNDN);
        }
    }
};

// An iteration's three squarings on three threads: x^2 on the orbit's own thread while two
// helpers make y^2 and (x + y)^2, then s = (x + y)^2 - x^2 - y^2 there, as squares_and_twice_xy
// does (the same MPFR operations on the same numbers: the same orbit bit for bit). The helpers
// only read x and y and write y2 and s; the orbit's thread writes x and y only between finish()
// and the next start(), while they wait. They meet through two atomics each iteration, waiting
// by spinning (a squaring takes a few microseconds at the precisions the team runs at, from
// kReferenceTeamMinBits: a sleep and a wake-up would cost more), and yield after 2,000 pauses
// (tens of microseconds) so that a machine with fewer cores than threads still advances.
class SquaringTeam {
public:
    explicit SquaringTeam(OrbitRegisters& r) : r_(r) {
        for (int k = 0; k < 2; ++k) helpers_[k] = std::thread([this, k] { run(k); });
    }
    ~SquaringTeam() {
        drain();
        quit_.store(true, std::memory_order_relaxed);
        go_.store(generation_ + 1, std::memory_order_release);
        for (std::thread& t : helpers_) t.join();
    }
    SquaringTeam(const SquaringTeam&) = delete;
    SquaringTeam& operator=(const SquaringTeam&) = delete;

    // The helpers start on the current x and y.
    void start() { go_.store(++generation_, std::memory_order_release); }
    // x2 = x^2 here, then waits for the helpers and completes s = 2xy.
    void finish() {
        mpfr_sqr(r_.x2.get(), r_.x.get(), MPFR_RNDN);
        drain();
        mpfr_sub(r_.s.get(), r_.s.get(), r_.x2.get(), MPFR_RNDN);
        mpfr_sub(r_.s.get(), r_.s.get(), r_.y2.get(), MPFR_RNDN);
    }
    // Waits until the helpers have finished what start() gave them (then x and y may change).
    void drain() {
        for (Slot& slot : done_)
            wait_until([&] { return slot.generation.load(std::memory_order_acquire) == generation_; });
    }

private:
    struct alignas(64) Slot {
        std::atomic<int64_t> generation{0};
    };

    template <typename Ready>
    static void wait_until(Ready ready) {
        for (int spins = 0; !ready(); ++spins) {
            if (spins < 2000) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            } else {
                std::this_thread::yield();
            }
        }
    }

    void run(int k) {
        int64_t seen = 0;
        for (;;) {
            wait_until([&] { return go_.load(std::memory_order_acquire) != seen; });
            seen = go_.load(std::memory_order_acquire);
            if (quit_.load(std::memory_order_relaxed)) return;
            if (k == 0) {
                mpfr_sqr(r_.y2.get(), r_.y.get(), MPFR_RNDN);
            } else {
                mpfr_add(r_.s.get(), r_.x.get(), r_.y.get(), MPFR_RNDN);
                mpfr_sqr(r_.s.get(), r_.s.get(), MPFR_RNDN);
            }
            done_[k].generation.store(seen, std::memory_order_release);
        }
    }

    OrbitRegisters& r_;
    int64_t generation_ = 0;  // the orbit's thread's count of start() calls
    alignas(64) std::atomic<int64_t> go_{0};
    std::atomic<bool> quit_{false};
    Slot done_[2];
    std::thread helpers_[2];
};

// The running minimum of |Z_m|^2 over an orbit (or two): in double while the square is a
// normal double (almost always), in FloatExp where it is not.
struct MinNorm {
    FloatExp norm{};
    double norm_d = 0.0;
    bool have = false;
    void add(DeepComplex<double> zd, const DeepComplex<FloatExp>& zf) {
        const double n = zd.re * zd.re + zd.im * zd.im;
        if (have && n > 1e-300 && n >= norm_d) return;
        FloatExp f = n > 1e-300 ? fe_from_double(n) : deep_norm(zf);
        if (!have || f < norm) {
            norm = f;
            norm_d = fe_to_double(f);
            have = true;
        }
    }
};

// Iterates r's (x, y) under formula F up to max_iterations, storing Z_0 (the start) .. Z_last in
// z and z_fe. Returns false when cancelled; *escaped says how it ended. Progress is reported as
// (done + progress_base, progress_total).
// probe (or null): stops after Z_n when it finds a nucleus of period n near enough; *period = n.
// team (degree-2 formulas only): the squarings on three threads; the helpers start on the next
// iteration's squarings as soon as Z_n is made, while this thread stores Z_n.
template <Formula F>
bool run_orbit(OrbitRegisters& r, SquaringTeam* team, int64_t max_iterations, std::vector<DeepComplex<double>>* z,
               std::vector<DeepComplex<FloatExp>>* z_fe, MinNorm* min_norm, bool* escaped, NucleusProbe<F>* probe,
               int64_t* period, const ReferenceControl& control, int64_t progress_base, int64_t progress_total) {
    const double bailout_squared = formula_bailout_radius(F) * formula_bailout_radius(F);
    size_t reserve = size_t(std::min<int64_t>(max_iterations + 1, int64_t(1) << 20));
    z->reserve(reserve);
    z_fe->reserve(reserve);
    {
        DeepComplex<FloatExp> zf{floatexp_from_mpfr(r.x.get()), floatexp_from_mpfr(r.y.get())};
        z->push_back({fe_to_double(zf.re), fe_to_double(zf.im)});
        z_fe->push_back(zf);
    }
    // The helpers may still be squaring the last Z when the loop ends (escaped, cancelled): they
    // finish before the caller changes x and y.
    struct Drain {
        SquaringTeam* team;
        ~Drain() {
            if (team) team->drain();
        }
    } drain{team};
    if (team) team->start();
    for (int64_t n = 1; n <= max_iterations; ++n) {
        if constexpr (formula_degree(F) == 2) {
            if (team) {
                team->finish();
                r.combine<F>();
                if (n < max_iterations) team->start();
            } else {
                r.step_formula<F>();
            }
        } else {
            r.step_formula<F>();
        }
        DeepComplex<FloatExp> zf{floatexp_from_mpfr(r.x.get()), floatexp_from_mpfr(r.y.get())};
        DeepComplex<double> zd{fe_to_double(zf.re), fe_to_double(zf.im)};
        z->push_back(zd);
        z_fe->push_back(zf);
        min_norm->add(zd, zf);
        if (zd.re * zd.re + zd.im * zd.im > bailout_squared) {
            *escaped = true;
            break;
        }
        if (probe && probe->step(zf)) {
            *period = n;
            break;
        }
        if (n % kProgressStride == 0) {
            if (control.cancel && control.cancel->load(std::memory_order_relaxed)) return false;
            if (control.progress) control.progress(progress_base + n, progress_total);
        }
    }
    return true;
}

// The orbit (and a Julia set's critical orbit) for formula F.
template <Formula F>
bool compute_orbits(ReferenceOrbit* orbit, mpfr_prec_t bits, const ReferenceControl& control) {
    const int64_t max_iterations = orbit->max_iterations;
    const OrbitMap& map = orbit->map;
    OrbitRegisters r{bits};
    std::unique_ptr<SquaringTeam> team;
    if (reference_uses_team(F, bits, control.threads)) team = std::make_unique<SquaringTeam>(r);
    MinNorm min_norm;
    const int64_t total = map.julia ? 2 * max_iterations : max_iterations;
    if (map.julia) {
        mpfr_set_decimal(r.cr.get(), map.julia_re);
        mpfr_set_decimal(r.ci.get(), map.julia_im);
        mpfr_set_decimal(r.x.get(), orbit->center_re);
        mpfr_set_decimal(r.y.get(), orbit->center_im);
    } else {
        mpfr_set_decimal(r.cr.get(), orbit->center_re);
        mpfr_set_decimal(r.ci.get(), orbit->center_im);
        mpfr_set_zero(r.x.get(), 1);
        mpfr_set_zero(r.y.get(), 1);
    }
    // A Julia set's pixels rebase onto its critical orbit, not the one they start on: its orbits
    // run in full.
    std::unique_ptr<NucleusProbe<F>> probe;
    if (!map.julia && control.nucleus_radius.mantissa > 0.0)
        probe = std::make_unique<NucleusProbe<F>>(control.nucleus_radius);
    if (!run_orbit<F>(r, team.get(), max_iterations, &orbit->z, &orbit->z_fe, &min_norm, &orbit->escaped, probe.get(),
                      &orbit->period, control, 0, total))
        return false;
    if (probe && orbit->period > 0) orbit->nucleus_distance = probe->distance();
    if (map.julia) {
        mpfr_set_zero(r.x.get(), 1);
        mpfr_set_zero(r.y.get(), 1);
        int64_t no_period = 0;
        if (!run_orbit<F>(r, team.get(), max_iterations, &orbit->critical_z, &orbit->critical_z_fe, &min_norm,
                          &orbit->critical_escaped, nullptr, &no_period, control, max_iterations, total))
            return false;
    }
    orbit->min_abs = fe_sqrt(min_norm.norm);
    return true;
}

}  // namespace

bool reference_uses_team(Formula formula, int64_t bits, int threads) {
    if (formula_degree(formula) != 2 || threads == 1) return false;
    if (threads >= 2) return true;
    return bits >= kReferenceTeamMinBits && std::thread::hardware_concurrency() >= 4;
}

std::shared_ptr<const ReferenceOrbit> compute_reference_orbit(const std::string& center_re,
                                                              const std::string& center_im, int64_t precision_bits,
                                                              int64_t max_iterations, const ReferenceControl& control,
                                                              const OrbitMap& map) {
    auto start = std::chrono::steady_clock::now();
    auto orbit = std::make_shared<ReferenceOrbit>();
    orbit->center_re = center_re;
    orbit->center_im = center_im;
    orbit->map = map;
    orbit->precision_bits = precision_bits;
    orbit->max_iterations = max_iterations;
    const mpfr_prec_t bits = mpfr_prec_t(precision_bits);
    bool done = false;
    try {
        switch (map.formula) {
        case Formula::Mandelbrot: done = compute_orbits<Formula::Mandelbrot>(orbit.get(), bits, control); break;
        case Formula::Multibrot3: done = compute_orbits<Formula::Multibrot3>(orbit.get(), bits, control); break;
        case Formula::Multibrot4: done = compute_orbits<Formula::Multibrot4>(orbit.get(), bits, control); break;
        case Formula::Multibrot5: done = compute_orbits<Formula::Multibrot5>(orbit.get(), bits, control); break;
        case Formula::Multibrot6: done = compute_orbits<Formula::Multibrot6>(orbit.get(), bits, control); break;
        case Formula::Multibrot7: done = compute_orbits<Formula::Multibrot7>(orbit.get(), bits, control); break;
        case Formula::Multibrot8: done = compute_orbits<Formula::Multibrot8>(orbit.get(), bits, control); break;
        case Formula::BurningShip: done = compute_orbits<Formula::BurningShip>(orbit.get(), bits, control); break;
        case Formula::Tricorn: done = compute_orbits<Formula::Tricorn>(orbit.get(), bits, control); break;
        }
    } catch (const std::bad_alloc&) {
        throw std::runtime_error("The reference orbit of " + std::to_string(max_iterations) +
                                 " iterations does not fit in memory.");
    }
    if (!done || (control.cancel && control.cancel->load(std::memory_order_relaxed))) return nullptr;
    if (control.progress) control.progress(max_iterations, max_iterations);
    orbit->compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return orbit;
}

int64_t bare_mpfr_orbit(const std::string& center_re, const std::string& center_im, int64_t precision_bits,
                        int64_t max_iterations) {
    OrbitRegisters r{mpfr_prec_t(precision_bits)};
    mpfr_set_decimal(r.cr.get(), center_re);
    mpfr_set_decimal(r.ci.get(), center_im);
    mpfr_set_zero(r.x.get(), 1);
    mpfr_set_zero(r.y.get(), 1);
    int64_t n = 1;
    for (; n <= max_iterations; ++n) {
        r.step();
        // The escape test any orbit loop needs, on the squares it already has (one iteration late).
        if (mpfr_cmp_ui(r.x2.get(), 65536) > 0 || mpfr_cmp_ui(r.y2.get(), 65536) > 0) break;
    }
    return std::min(n, max_iterations);
}

}  // namespace ms
