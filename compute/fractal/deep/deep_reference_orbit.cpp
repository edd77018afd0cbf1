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
#include "compute/fractal/deep/deep_reference_guard.h"
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

// Asks for every cache line of v's header and significand at once, for reading or (Write) for
// writing. A number another core has just written reaches this one line by line as a squaring
// or an addition walks it, each line a miss of about the length of a hand-over; asked for
// together, the misses overlap and a number arrives in about the time of one.
template <bool Write>
void prefetch_number(mpfr_srcptr v) {
    const char* limbs = reinterpret_cast<const char*>(v->_mpfr_d);
    const size_t bytes = size_t((v->_mpfr_prec + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS) * sizeof(mp_limb_t);
    __builtin_prefetch(v, Write);
    for (size_t at = 0; at < bytes; at += 64) __builtin_prefetch(limbs + at, Write);
}

// Z := f(Z) for degree-2 formula F from Z's squares x2 = x^2, y2 = y^2 and sum2 = (x + y)^2:
// 2xy = (sum2 - x2) - y2 into s (which may be sum2 itself), then y = 2xy + ci (|2xy| for the
// Burning Ship, ci - 2xy for the Tricorn) and x = (x2 - y2) + cr. The serial step and every
// worker of a SquaringTeam make Z by these operations, so their orbits agree bit for bit.
template <Formula F>
void next_z_from_squares(mpfr_srcptr x2, mpfr_srcptr y2, mpfr_srcptr sum2, mpfr_ptr s, mpfr_ptr x, mpfr_ptr y,
                         mpfr_srcptr cr, mpfr_srcptr ci) {
    mpfr_sub(s, sum2, x2, MPFR_RNDN);
    mpfr_sub(s, s, y2, MPFR_RNDN);
    if constexpr (F == Formula::BurningShip) {
        mpfr_abs(s, s, MPFR_RNDN);
        mpfr_add(y, s, ci, MPFR_RNDN);
    } else if constexpr (F == Formula::Tricorn) {
        mpfr_sub(y, ci, s, MPFR_RNDN);
    } else {
        static_assert(F == Formula::Mandelbrot);
        mpfr_add(y, s, ci, MPFR_RNDN);
    }
    mpfr_sub(x, x2, y2, MPFR_RNDN);
    mpfr_add(x, x, cr, MPFR_RNDN);
}

// The orbit's working set: Z = x + iy, C = cr + i ci, the squarings' temporaries, and (z^d only)
// the power's.
struct OrbitRegisters {
    CacheLineMpfr x, y, x2, y2, s, cr, ci, pr, pi, a, b;
    explicit OrbitRegisters(mpfr_prec_t bits)
        : x(bits), y(bits), x2(bits), y2(bits), s(bits), cr(bits), ci(bits), pr(bits), pi(bits), a(bits), b(bits) {}

    // x2 = x^2, y2 = y^2 and s = (x + y)^2: three squarings.
    void squares() {
        mpfr_sqr(x2.get(), x.get(), MPFR_RNDN);
        mpfr_sqr(y2.get(), y.get(), MPFR_RNDN);
        mpfr_add(s.get(), x.get(), y.get(), MPFR_RNDN);
        mpfr_sqr(s.get(), s.get(), MPFR_RNDN);
    }

    // Z := Z^2 + C with three squarings: x' = x^2 - y^2 + cr, y' = (x + y)^2 - x^2 - y^2 + ci.
    void step() { step_formula<Formula::Mandelbrot>(); }

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
        if constexpr (formula_degree(F) == 2) {
            squares();
            next_z_from_squares<F>(x2.get(), y2.get(), s.get(), s.get(), x.get(), y.get(), cr.get(), ci.get());
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
// notify only when someone sleeps. Values only grow (wrapping harmlessly): a waiter returns once
// the value has reached what it wants.
class Sequence {
public:
    static constexpr int64_t kSpinNs = 100'000;

    uint32_t load() const { return value_.load(std::memory_order_acquire); }
    void publish(uint32_t v) {
        value_.store(v, std::memory_order_seq_cst);
        if (sleepers_.load(std::memory_order_seq_cst) != 0) value_.notify_all();
    }
    // Returns once the value is `want` or later.
    void wait_for(uint32_t want) {
        if (reached(load(), want)) return;
        const auto start = std::chrono::steady_clock::now();
        for (int spins = 1;; ++spins) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            asm volatile("yield");
#endif
            if (reached(load(), want)) return;
            if (spins % 64 == 0 && std::chrono::steady_clock::now() - start > std::chrono::nanoseconds(kSpinNs)) break;
        }
        // Announced before the value is read again (both sequentially consistent): publish either
        // sees a sleeper or this thread sees the new value, so no wake-up is lost.
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        for (uint32_t v; !reached(v = value_.load(std::memory_order_seq_cst), want);)
            value_.wait(v, std::memory_order_seq_cst);
        sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    }
    // Whether `value` is `want` or later, counting in a window of 2^31 that wraps.
    static bool reached(uint32_t value, uint32_t want) { return int32_t(value - want) >= 0; }

private:
    alignas(64) std::atomic<uint32_t> value_{0};
    std::atomic<uint32_t> sleepers_{0};
};

// An iteration's three squarings x^2, y^2 and (x + y)^2 shared between the orbit's thread (worker
// 0) and one or two helpers:
//   two helpers: x^2 on the orbit's thread, y^2 on the first, (x + y)^2 on the second;
//   one helper:  x^2 and y^2 on the orbit's thread, (x + y)^2 on the helper.
// Each worker keeps its own Z and publishes its squares; every worker then reads the others' and
// makes the next Z itself by next_z_from_squares, as the serial step does (the same orbit bit for
// bit). An iteration thus costs one squaring, one hand-over and the additions, where a worker
// that made Z and handed it out would wait for two hand-overs. The orbit's thread keeps its Z in
// the OrbitRegisters, and stores and tests it; the helpers keep theirs in Lane.
// Squares are published as iteration n (Sequence done_) into the squares' slot n % 2: a worker
// writes slot n % 2 again at n + 2 only after every other worker has published n + 1, which each
// does after it has read the squares of n. A run on the team starts at an iteration (start) and
// ends after one (step's last, or stop_after_unplanned for an orbit that stops without
// warning); the helpers then park until the next start and say so (parked_), before the orbit's
// thread may change its Z or start again.
template <Formula F>
class SquaringTeam {
public:
    SquaringTeam(OrbitRegisters& r, int helpers, mpfr_prec_t bits)
        : r_(r), helpers_(helpers), squares_{Slot(bits), Slot(bits)} {
        for (int k = 0; k < helpers_; ++k) lanes_[k] = std::make_unique<Lane>(bits);
        try {
            for (int k = 0; k < helpers_; ++k) threads_[k] = std::thread([this, k] { run(k); });
        } catch (...) {
            quit();
            throw;
        }
    }
    ~SquaringTeam() { quit(); }
    SquaringTeam(const SquaringTeam&) = delete;
    SquaringTeam& operator=(const SquaringTeam&) = delete;

    // The helpers take the orbit's current Z and work on from it with this thread.
    void start() {
        const uint32_t n = tick_ + 1;
        stop_after(n + 0x7fffffffu);  // as far ahead as reached() can tell
        start_.store(n, std::memory_order_relaxed);
        go_.publish(++generation_);
        running_ = true;
    }
    bool running() const { return running_; }

    // One iteration on the team, Z := f(Z) in the orbit's registers. last: the helpers park after
    // it instead of going on to the next.
    void step(bool last) {
        const uint32_t n = ++tick_;
        Slot& slot = squares_[n % 2];
        prefetch_number<true>(slot.x2.get());
        if (helpers_ == 1) prefetch_number<true>(slot.y2.get());
        mpfr_sqr(slot.x2.get(), r_.x.get(), MPFR_RNDN);
        if (helpers_ == 1) mpfr_sqr(slot.y2.get(), r_.y.get(), MPFR_RNDN);
        if (last) stop_after(n);
        done_[0].publish(n);
        for (int k = 1; k <= helpers_; ++k) done_[k].wait_for(n);
        next_z(slot, r_.x.get(), r_.y.get(), r_.s.get(), r_.cr.get(), r_.ci.get());
        if (last) park();
    }
    // The orbit stops after the iteration step ran without `last`: the helpers, now on the next,
    // park without reading the squares the orbit's thread does not make. That tick is spent.
    void stop_after_unplanned() {
        const uint32_t n = ++tick_;
        stop_after(n);
        done_[0].publish(n);
        park();
    }

private:
    // The squares of one iteration; (x + y)^2 and then 2xy in s.
    struct Slot {
        CacheLineMpfr x2, y2, s;
        explicit Slot(mpfr_prec_t bits) : x2(bits), y2(bits), s(bits) {}
    };
    // A helper's own Z and the scratch its next Z is made in.
    struct Lane {
        CacheLineMpfr x, y, s;
        explicit Lane(mpfr_prec_t bits) : x(bits), y(bits), s(bits) {}
    };

    // Z := f(Z) from the squares of one iteration into x and y (s: scratch; the slot's squares stay
    // for the other workers).
    static void next_z(const Slot& sq, mpfr_ptr x, mpfr_ptr y, mpfr_ptr s, mpfr_srcptr cr, mpfr_srcptr ci) {
        prefetch_number<false>(sq.x2.get());
        prefetch_number<false>(sq.y2.get());
        prefetch_number<false>(sq.s.get());
        next_z_from_squares<F>(sq.x2.get(), sq.y2.get(), sq.s.get(), s, x, y, cr, ci);
    }

    void stop_after(uint32_t n) { stop_.store(n, std::memory_order_relaxed); }  // published by done_[0]

    // Waits until the helpers have parked (then the orbit's Z may change, or a new run start).
    void park() {
        for (int k = 0; k < helpers_; ++k) parked_[k].wait_for(generation_);
        running_ = false;
    }

    // Ends the helpers (parked, or never started).
    void quit() {
        if (running_) stop_after_unplanned();
        quit_.store(true, std::memory_order_relaxed);
        go_.publish(++generation_);
        for (std::thread& t : threads_)
            if (t.joinable()) t.join();
    }

    // Helper k (worker k + 1): y^2 with two helpers, else (x + y)^2.
    void run(int k) {
        const int me = k + 1;
        const bool square_y = helpers_ == 2 && k == 0;
        Lane& lane = *lanes_[k];
        for (uint32_t generation = 1;; ++generation) {
            go_.wait_for(generation);
            if (quit_.load(std::memory_order_relaxed)) return;
            prefetch_number<false>(r_.x.get());
            prefetch_number<false>(r_.y.get());
            mpfr_set(lane.x.get(), r_.x.get(), MPFR_RNDN);
            mpfr_set(lane.y.get(), r_.y.get(), MPFR_RNDN);
            for (uint32_t n = start_.load(std::memory_order_relaxed);; ++n) {
                Slot& slot = squares_[n % 2];
                prefetch_number<true>(square_y ? slot.y2.get() : slot.s.get());
                if (square_y) {
                    mpfr_sqr(slot.y2.get(), lane.y.get(), MPFR_RNDN);
                } else {
                    mpfr_add(slot.s.get(), lane.x.get(), lane.y.get(), MPFR_RNDN);
                    mpfr_sqr(slot.s.get(), slot.s.get(), MPFR_RNDN);
                }
                done_[me].publish(n);
                for (int other = 0; other <= helpers_; ++other)
                    if (other != me) done_[other].wait_for(n);
                if (Sequence::reached(n, stop_.load(std::memory_order_relaxed))) break;
                next_z(slot, lane.x.get(), lane.y.get(), lane.s.get(), r_.cr.get(), r_.ci.get());
            }
            parked_[k].publish(generation);
        }
    }

    OrbitRegisters& r_;
    const int helpers_;
    Slot squares_[2];
    std::unique_ptr<Lane> lanes_[2];
    uint32_t generation_ = 0;  // the orbit's thread's count of start() calls
    uint32_t tick_ = 0;        // the last iteration the orbit's thread published, counted over every run
    bool running_ = false;     // started and not parked
    Sequence go_;
    std::atomic<uint32_t> start_{0};
    std::atomic<uint32_t> stop_{0};
    std::atomic<bool> quit_{false};
    Sequence done_[3];
    Sequence parked_[2];
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

// Iterates r's (x, y) under formula F up to max_iterations, storing Z_0 (the start) .. Z_last in
// z and z_fe. Returns false when cancelled; *escaped says how it ended. Progress is reported as
// (done + progress_base, progress_total).
// probe (or null): stops after Z_n when it finds a nucleus of period n near enough; *period = n.
// team (degree-2 formulas only, or null): the workers the iterations run on; guard (or null):
// which blocks of iterations they run, the team parking at the end of each block.
template <Formula F>
bool run_orbit(OrbitRegisters& r, SquaringTeam<F>* team, TeamGuard* guard, int64_t max_iterations,
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
    // However the loop ends (escaped, period found, cancelled, an exception), the helpers park
    // before the caller changes Z.
    struct Park {
        SquaringTeam<F>* team;
        ~Park() {
            if (team && team->running()) team->stop_after_unplanned();
        }
    } park{team};
    auto block_start = std::chrono::steady_clock::now();
    for (int64_t n = 1; n <= max_iterations; ++n) {
        bool stepped = false;
        if constexpr (formula_degree(F) == 2) {
            if (team && (!guard || guard->use_team())) {
                if (!team->running()) team->start();
                team->step(n == max_iterations || (guard && n % TeamGuard::kBlockIterations == 0));
                stepped = true;
            }
        }
        if (!stepped) r.step_formula<F>();
        if (guard && n % TeamGuard::kBlockIterations == 0) {
            const auto now = std::chrono::steady_clock::now();
            guard->block_done(std::chrono::duration<double>(now - block_start).count());
            block_start = now;
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
    std::unique_ptr<SquaringTeam<F>> team;
    TeamGuard guard;
    if constexpr (formula_degree(F) == 2) {
        if (const int threads = reference_threads(F, bits, control.threads); threads > 1) {
            // Where the system refuses a thread, the orbit runs on this one: the same orbit.
            try {
                team = std::make_unique<SquaringTeam<F>>(r, threads - 1, bits);
            } catch (const std::system_error&) {
            }
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
