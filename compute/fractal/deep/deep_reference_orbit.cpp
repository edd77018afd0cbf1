// deep_reference_orbit.cpp: the MPFR reference orbit and its yardstick loop (see deep_reference.h);
// the cache and the precision rule are in deep_reference.cpp.
#include "compute/fractal/deep/deep_reference.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <new>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "compute/fractal/deep/deep_nucleus_probe.h"
#include "compute/fractal/numbers/mpfr.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/maths/escape.h"

namespace ms {

namespace {

constexpr int64_t kProgressStride = 4096;  // iterations between progress calls / cancel polls

// An MPFR number whose header and significand own whole cache lines (MPFR's custom allocation
// interface): the orbit's numbers are written by different threads when a team shares an
// iteration (SquaringTeam), and two of them in one line would pass it between cores on every
// write. Its precision is fixed (mpfr_set_prec and mpfr_clear are never called on it).
class alignas(64) CacheLineMpfr {
public:
    explicit CacheLineMpfr(mpfr_prec_t bits) {
        const size_t bytes = (mpfr_custom_get_size(bits) + 63) / 64 * 64;
        limbs_ = ::operator new(bytes, std::align_val_t(64));
        mpfr_custom_init(limbs_, bits);
        mpfr_custom_init_set(value_, MPFR_ZERO_KIND, 0, bits, limbs_);
    }
    ~CacheLineMpfr() { ::operator delete(limbs_, std::align_val_t(64)); }
    CacheLineMpfr(const CacheLineMpfr&) = delete;
    CacheLineMpfr& operator=(const CacheLineMpfr&) = delete;
    mpfr_ptr get() { return value_; }
    mpfr_srcptr get() const { return value_; }

private:
    mpfr_t value_;
    void* limbs_;
};

// The orbit's working set: Z = x + iy, C = cr + i ci, the squarings' temporaries, and (z^d only)
// the power's.
struct OrbitRegisters {
    CacheLineMpfr x, y, x2, y2, s, cr, ci, pr, pi, a, b;
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

// A number one thread advances and others wait for. Waiting spins first (an iteration's
// hand-over is shorter than a sleep and a wake-up at every precision a team runs at, and kSpinNs
// outlasts a squaring at e10000's precision), then sleeps in the kernel (std::atomic::wait, a
// futex on Linux), so that a thread whose partner is not running (fewer free cores than threads,
// the orbit's thread in a progress callback) gives its core back. The advancing side calls
// notify only when someone sleeps.
class Sequence {
public:
    static constexpr int64_t kSpinNs = 100'000;

    uint32_t load() const { return value_.load(std::memory_order_acquire); }
    void publish(uint32_t v) {
        value_.store(v, std::memory_order_seq_cst);
        if (sleepers_.load(std::memory_order_seq_cst) != 0) value_.notify_all();
    }
    // Returns once the value is `want`.
    void wait_for(uint32_t want) {
        if (load() == want) return;
        const auto start = std::chrono::steady_clock::now();
        for (int spins = 1;; ++spins) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            asm volatile("yield");
#endif
            if (load() == want) return;
            if (spins % 64 == 0 && std::chrono::steady_clock::now() - start > std::chrono::nanoseconds(kSpinNs)) break;
        }
        // Announced before the value is read again (both sequentially consistent): publish either
        // sees a sleeper or this thread sees the new value, so no wake-up is lost.
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        for (uint32_t v; (v = value_.load(std::memory_order_seq_cst)) != want;)
            value_.wait(v, std::memory_order_seq_cst);
        sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    }

private:
    alignas(64) std::atomic<uint32_t> value_{0};
    std::atomic<uint32_t> sleepers_{0};
};

// An iteration's three squarings shared between the orbit's thread and one or two helpers, the
// same MPFR operations on the same numbers as squares_and_twice_xy (the same orbit bit for bit):
//   two helpers: y^2 on one, (x + y)^2 on the other, x^2 on the orbit's thread;
//   one helper:  (x + y)^2 on it, x^2 and y^2 on the orbit's thread;
// then s = (x + y)^2 - x^2 - y^2 on the orbit's thread. The helpers only read x and y and write
// y2 and s (each number in its own cache lines: CacheLineMpfr); the orbit's thread writes x and
// y only between finish() and the next start(), while they wait. They meet through one sequence
// number each way per iteration (Sequence). The helpers live as long as the team, one orbit.
class SquaringTeam {
public:
    SquaringTeam(OrbitRegisters& r, int helpers) : r_(r), helpers_(helpers) {
        try {
            for (int k = 0; k < helpers_; ++k) threads_[k] = std::thread([this, k] { run(k); });
        } catch (...) {
            stop();
            throw;
        }
    }
    ~SquaringTeam() { stop(); }
    SquaringTeam(const SquaringTeam&) = delete;
    SquaringTeam& operator=(const SquaringTeam&) = delete;

    // The helpers start on the current x and y.
    void start() { go_.publish(++generation_); }
    // This thread's squarings, then waits for the helpers and completes s = 2xy.
    void finish() {
        mpfr_sqr(r_.x2.get(), r_.x.get(), MPFR_RNDN);
        if (helpers_ == 1) mpfr_sqr(r_.y2.get(), r_.y.get(), MPFR_RNDN);
        drain();
        mpfr_sub(r_.s.get(), r_.s.get(), r_.x2.get(), MPFR_RNDN);
        mpfr_sub(r_.s.get(), r_.s.get(), r_.y2.get(), MPFR_RNDN);
    }
    // Waits until the helpers have finished what start() gave them (then x and y may change).
    void drain() {
        for (int k = 0; k < helpers_; ++k) done_[k].wait_for(generation_);
    }

private:
    // Ends the helpers that were started (after their last squarings).
    void stop() {
        drain();
        quit_.store(true, std::memory_order_relaxed);
        go_.publish(generation_ + 1);
        for (std::thread& t : threads_)
            if (t.joinable()) t.join();
    }

    void run(int k) {
        // With one helper it makes (x + y)^2; with two, the first makes y^2.
        const bool square_y = helpers_ == 2 && k == 0;
        for (uint32_t seen = 0;;) {
            go_.wait_for(++seen);
            if (quit_.load(std::memory_order_relaxed)) return;
            if (square_y) {
                mpfr_sqr(r_.y2.get(), r_.y.get(), MPFR_RNDN);
            } else {
                mpfr_add(r_.s.get(), r_.x.get(), r_.y.get(), MPFR_RNDN);
                mpfr_sqr(r_.s.get(), r_.s.get(), MPFR_RNDN);
            }
            done_[k].publish(seen);
        }
    }

    OrbitRegisters& r_;
    const int helpers_;
    uint32_t generation_ = 0;  // the orbit's thread's count of start() calls (wraps harmlessly)
    Sequence go_;
    std::atomic<bool> quit_{false};
    Sequence done_[2];
    std::thread threads_[2];
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

// Where the team runs by the automatic choice (ReferenceControl::threads 0), this decides block by
// block whether the next kBlockIterations run on the team or on the orbit's thread alone: what
// the team gains depends on the cores that are free now, which a precision threshold cannot know
// (on a loaded machine a helper waits for the scheduler at every hand-over and the team loses
// many times over). It times the team's blocks and, now and then, one block without it, and
// runs the faster (the team's latest block against the fastest block alone); each trial the
// current way wins doubles the wait before the next trial (kMinTrialBlocks to kMaxTrialBlocks),
// so that a losing way costs a few percent at most. Both ways make the same orbit bit for bit.
class TeamGuard {
public:
    static constexpr int64_t kBlockIterations = 64;
    static constexpr int64_t kMinTrialBlocks = 16;
    static constexpr int64_t kMaxTrialBlocks = 1024;

    bool use_team() const { return team_; }
    // The block that ran as use_team() said took `seconds`.
    void block_done(double seconds) {
        // The team's latest block against this thread's fastest: a block alone is only ever slowed
        // by others' work, and the team must show that it beats one thread at its best.
        if (team_) team_seconds_ = seconds;
        else alone_seconds_ = alone_seconds_ < 0.0 ? seconds : std::min(alone_seconds_, seconds);
        if (team_seconds_ < 0.0 || alone_seconds_ < 0.0) {  // the first block of each way
            team_ = team_seconds_ < 0.0;
            return;
        }
        const bool team_faster = team_seconds_ < alone_seconds_;
        if (trial_) {
            trial_ = false;
            wait_blocks_ = team_ == team_faster ? kMinTrialBlocks : std::min(2 * wait_blocks_, kMaxTrialBlocks);
            blocks_ = 0;
        } else if (++blocks_ >= wait_blocks_) {
            trial_ = true;
            team_ = !team_faster;
            return;
        }
        team_ = team_faster;
    }

private:
    bool team_ = true;
    bool trial_ = false;  // the block now running tries the slower way
    double team_seconds_ = -1.0;
    double alone_seconds_ = -1.0;
    int64_t blocks_ = 0;  // blocks run the faster way since the last trial
    int64_t wait_blocks_ = kMinTrialBlocks;
};

// Iterates r's (x, y) under formula F up to max_iterations, storing Z_0 (the start) .. Z_last in
// z and z_fe. Returns false when cancelled; *escaped says how it ended. Progress is reported as
// (done + progress_base, progress_total).
// probe (or null): stops after Z_n when it finds a nucleus of period n near enough; *period = n.
// team (degree-2 formulas only): the squarings shared with its helpers, which start on the next
// iteration's squarings as soon as Z_n is made, while this thread stores Z_n; guard (or null):
// which blocks of iterations the team runs.
template <Formula F>
bool run_orbit(OrbitRegisters& r, SquaringTeam* team, TeamGuard* guard, int64_t max_iterations,
               std::vector<DeepComplex<double>>* z, std::vector<DeepComplex<FloatExp>>* z_fe, MinNorm* min_norm,
               bool* escaped, NucleusProbe<F>* probe, int64_t* period, const ReferenceControl& control,
               int64_t progress_base, int64_t progress_total) {
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
    bool started = false;  // the helpers are squaring the current Z
    if (team && (!guard || guard->use_team())) {
        team->start();
        started = true;
    }
    auto block_start = std::chrono::steady_clock::now();
    for (int64_t n = 1; n <= max_iterations; ++n) {
        bool stepped = false;
        if constexpr (formula_degree(F) == 2) {
            if (started) {
                team->finish();
                r.combine<F>();
                started = false;
                stepped = true;
            }
        }
        if (!stepped) r.step_formula<F>();
        if (guard && n % TeamGuard::kBlockIterations == 0) {
            const auto now = std::chrono::steady_clock::now();
            guard->block_done(std::chrono::duration<double>(now - block_start).count());
            block_start = now;
        }
        if (team && n < max_iterations && (!guard || guard->use_team())) {
            team->start();
            started = true;
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
    TeamGuard guard;
    if (const int threads = reference_threads(F, bits, control.threads); threads > 1) {
        // Where the system refuses a thread, the orbit runs on this one: the same orbit.
        try {
            team = std::make_unique<SquaringTeam>(r, threads - 1);
        } catch (const std::system_error&) {
        }
    }
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
    TeamGuard* const automatic = team && control.threads == 0 ? &guard : nullptr;
    if (!run_orbit<F>(r, team.get(), automatic, max_iterations, &orbit->z, &orbit->z_fe, &min_norm, &orbit->escaped,
                      probe.get(), &orbit->period, control, 0, total))
        return false;
    if (probe && orbit->period > 0) orbit->nucleus_distance = probe->distance();
    if (map.julia) {
        mpfr_set_zero(r.x.get(), 1);
        mpfr_set_zero(r.y.get(), 1);
        int64_t no_period = 0;
        if (!run_orbit<F>(r, team.get(), automatic, max_iterations, &orbit->critical_z, &orbit->critical_z_fe,
                          &min_norm, &orbit->critical_escaped, nullptr, &no_period, control, max_iterations, total))
            return false;
    }
    orbit->min_abs = fe_sqrt(min_norm.norm);
    return true;
}

}  // namespace

int reference_threads(Formula formula, int64_t bits, int threads) {
    // Threads may share an iteration only where MPFR keeps its flags and exponent range per
    // thread; the Multibrots' powers are a chain of dependent products (formula_math.h).
    if (formula_degree(formula) != 2 || threads == 1 || !mpfr_buildopt_tls_p()) return 1;
    if (threads >= 2) return std::min(threads, 3);
    const unsigned cores = std::thread::hardware_concurrency();
    if (cores >= 3 && bits >= kReferenceThreeThreadMinBits) return 3;
    if (cores == 2 && bits >= kReferenceTwoThreadMinBits) return 2;
    return 1;
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
