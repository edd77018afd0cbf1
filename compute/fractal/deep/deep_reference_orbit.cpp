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
#include "compute/system/process_memory.h"

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

// 2 v without a copy: a view of v's significand with the exponent one higher. v is a square (zero
// or positive), which the view only reads.
class Twice {
public:
    explicit Twice(mpfr_srcptr v) {
        void* limbs = mpfr_custom_get_significand(const_cast<mpfr_ptr>(v));
        if (mpfr_zero_p(v)) mpfr_custom_init_set(view_, MPFR_ZERO_KIND, 0, mpfr_get_prec(v), limbs);
        else
            mpfr_custom_init_set(view_, MPFR_REGULAR_KIND, mpfr_custom_get_exp(const_cast<mpfr_ptr>(v)) + 1,
                                 mpfr_get_prec(v), limbs);
    }
    mpfr_srcptr get() const { return view_; }

private:
    mpfr_t view_;
};

// A degree-2 formula's next Z from Z's squares x2 = x^2, y2 = y^2 and sum2 = (x + y)^2, part by
// part, so that each thread of a SquaringTeam makes only the parts it squares next. The serial
// step and every worker make each part by these operations, so their orbits agree bit for bit.
// x' = (x2 - y2) + cr.
void next_x(mpfr_srcptr x2, mpfr_srcptr y2, mpfr_srcptr cr, mpfr_ptr x) {
    mpfr_sub(x, x2, y2, MPFR_RNDN);
    mpfr_add(x, x, cr, MPFR_RNDN);
}

// 2xy = (sum2 - x2) - y2, then y' = 2xy + ci (|2xy| + ci for the Burning Ship, ci - 2xy for the
// Tricorn).
template <Formula F>
void next_y(mpfr_srcptr x2, mpfr_srcptr y2, mpfr_srcptr sum2, mpfr_srcptr ci, mpfr_ptr y) {
    mpfr_sub(y, sum2, x2, MPFR_RNDN);
    mpfr_sub(y, y, y2, MPFR_RNDN);
    if constexpr (F == Formula::BurningShip) {
        mpfr_abs(y, y, MPFR_RNDN);
        mpfr_add(y, y, ci, MPFR_RNDN);
    } else if constexpr (F == Formula::Tricorn) {
        mpfr_sub(y, ci, y, MPFR_RNDN);
    } else {
        static_assert(F == Formula::Mandelbrot);
        mpfr_add(y, y, ci, MPFR_RNDN);
    }
}

// s' = x' + y', the number the next (x + y)^2 squares: x' + y' (made first), or, from_squares,
// from the squares alone, x' + y' = (sum2 - 2 y2) + k with k = cr + ci (the Mandelbrot set's
// only; 2 y2 is exact), so that the thread that squares it waits neither for x' nor for y'. The
// second costs the serial step one addition more, so orbits take it only from the precision at
// which a team runs (sum_from_squares).
void next_sum(bool from_squares, mpfr_srcptr y2, mpfr_srcptr sum2, mpfr_srcptr k, mpfr_srcptr x, mpfr_srcptr y,
              mpfr_ptr s) {
    if (from_squares) {
        mpfr_sub(s, sum2, Twice(y2).get(), MPFR_RNDN);
        mpfr_add(s, s, k, MPFR_RNDN);
    } else {
        mpfr_add(s, x, y, MPFR_RNDN);
    }
}

// Whether formula F's orbit at `bits` makes s' from the squares (next_sum): the Mandelbrot set
// from kReferenceThreeThreadMinBits. The choice depends on nothing else, so that an orbit is the
// same on every machine and every thread count.
template <Formula F>
bool sum_from_squares(mpfr_prec_t bits) {
    return F == Formula::Mandelbrot && bits >= kReferenceThreeThreadMinBits;
}

// The orbit's working set: Z = x + iy and s, which stands for x + y (degree 2; next_sum makes it);
// C = cr + i ci and k = cr + ci; the squares; and (z^d only) the power's temporaries.
struct OrbitRegisters {
    CacheLineMpfr x, y, s, x2, y2, sum2, cr, ci, k, pr, pi, a, b;
    bool from_squares;  // next_sum's way (sum_from_squares)
    OrbitRegisters(mpfr_prec_t bits, bool from_squares)
        : x(bits), y(bits), s(bits), x2(bits), y2(bits), sum2(bits), cr(bits), ci(bits), k(bits), pr(bits), pi(bits),
          a(bits), b(bits), from_squares(from_squares) {}

    // Before an orbit's first step, once Z and C are set: s = x + y and k = cr + ci.
    void begin() {
        mpfr_add(s.get(), x.get(), y.get(), MPFR_RNDN);
        mpfr_add(k.get(), cr.get(), ci.get(), MPFR_RNDN);
    }

    // x2 = x^2, y2 = y^2 and sum2 = s^2: three squarings.
    void squares() {
        mpfr_sqr(x2.get(), x.get(), MPFR_RNDN);
        mpfr_sqr(y2.get(), y.get(), MPFR_RNDN);
        mpfr_sqr(sum2.get(), s.get(), MPFR_RNDN);
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
            next_y<F>(x2.get(), y2.get(), sum2.get(), ci.get(), y.get());
            next_x(x2.get(), y2.get(), cr.get(), x.get());
            next_sum(from_squares, y2.get(), sum2.get(), k.get(), x.get(), y.get(), s.get());
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

// An iteration's three squarings x^2, y^2 and s^2 shared between the orbit's thread (worker 0)
// and one or two helpers:
//   two helpers: x^2 on the orbit's thread, y^2 on the first, s^2 on the second;
//   one helper:  x^2 and y^2 on the orbit's thread, s^2 on the helper.
// Each worker publishes its squares and then makes, from everyone's, the parts of the next Z it
// squares next (next_x, next_y, next_sum), as the serial step does: the same orbit bit for bit.
// The orbit's thread makes x', and y' unless the y^2 helper hands it over; the y^2 helper makes
// y'; the s^2 helper makes s', from the squares alone where the orbit takes that way
// (sum_from_squares), else from x' and y', which it then makes too. With two helpers and s' from
// the squares (split_) every thread thus makes one part with at most three additions, and an
// iteration costs one squaring, one hand-over and those additions; the y^2 helper hands y' to the
// orbit's thread as a FloatExp (y_fe_, y_done_), which the orbit's thread reads after it has
// squared x' for the next iteration, so that its storing and testing of Z overlap the others'
// work.
// Squares are published as iteration n (Sequence done_) into the squares' slot n % 2: a worker
// writes slot n % 2 again at n + 2 only after every other worker has published n + 1, which each
// does after it has read the squares of n. A run on the team starts at an iteration (start, which
// publishes its squares) and ends after one planned beforehand (last), where the helpers put the
// parts of Z they keep (y with split_, s) into the registers and park; or it stops without
// warning (stop_after_unplanned: the orbit ends there), the helpers then parking without making
// anything more. Either way they say so (parked_) before the orbit's thread may change its Z or
// start again.
template <Formula F>
class SquaringTeam {
public:
    SquaringTeam(OrbitRegisters& r, int helpers, mpfr_prec_t bits)
        : r_(r), helpers_(helpers), split_(r.from_squares && helpers == 2), squares_{Slot(bits), Slot(bits)} {
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

    // The helpers take the orbit's current Z (and s) and work on from it with this thread, which
    // publishes its squares of the run's first iteration; last: the run ends after it.
    void start(bool last) {
        const uint32_t n = tick_ + 1;
        stop_after(n + 0x7fffffffu);  // as far ahead as reached() can tell
        discard_.store(false, std::memory_order_relaxed);
        start_.store(n, std::memory_order_relaxed);
        go_.publish(++generation_);
        running_ = true;
        publish_squares(n, last);
    }
    bool running() const { return running_; }

    // Finishes the iteration whose squares this thread published, Z := f(Z): x' (and y') in the
    // orbit's registers. last: the helpers park after it, Z and s whole in the registers; else
    // this thread publishes the next iteration's squares (next_last: the run ends after that
    // one). Returns y' as a FloatExp.
    FloatExp step(bool last, bool next_last) {
        const uint32_t n = tick_;
        for (int k = 1; k <= helpers_; ++k) done_[k].wait_for(n);
        const Slot& slot = squares_[n % 2];
        prefetch_number<false>(slot.x2.get());
        prefetch_number<false>(slot.y2.get());
        if (!split_) prefetch_number<false>(slot.s.get());
        next_x(slot.x2.get(), slot.y2.get(), r_.cr.get(), r_.x.get());
        if (!split_) next_y<F>(slot.x2.get(), slot.y2.get(), slot.s.get(), r_.ci.get(), r_.y.get());
        if (last) {
            park();
            return floatexp_from_mpfr(r_.y.get());
        }
        publish_squares(n + 1, next_last);
        if (!split_) return floatexp_from_mpfr(r_.y.get());
        y_done_.wait_for(n);
        return y_fe_[n % 2].value;
    }
    // The orbit stops after a step without `last`: the helpers, now on the next iteration, park
    // at the one after without making anything from it (this thread publishes no squares for it).
    // The registers' Z is not kept: the orbit ends.
    void stop_after_unplanned() {
        const uint32_t n = ++tick_;
        discard_.store(true, std::memory_order_relaxed);
        stop_after(n);
        done_[0].publish(n);
        park();
    }

private:
    // The squares of one iteration: x^2, y^2, s^2.
    struct Slot {
        CacheLineMpfr x2, y2, s;
        explicit Slot(mpfr_prec_t bits) : x2(bits), y2(bits), s(bits) {}
    };
    // A helper's own parts of Z.
    struct Lane {
        CacheLineMpfr x, y, s;
        explicit Lane(mpfr_prec_t bits) : x(bits), y(bits), s(bits) {}
    };
    // y' of one iteration as a FloatExp, on a cache line of its own.
    struct alignas(64) YFe {
        FloatExp value;
    };

    // This thread's squares for iteration n and their publication.
    void publish_squares(uint32_t n, bool last) {
        tick_ = n;
        Slot& slot = squares_[n % 2];
        prefetch_number<true>(slot.x2.get());
        if (helpers_ == 1) prefetch_number<true>(slot.y2.get());
        mpfr_sqr(slot.x2.get(), r_.x.get(), MPFR_RNDN);
        if (helpers_ == 1) mpfr_sqr(slot.y2.get(), r_.y.get(), MPFR_RNDN);
        if (last) stop_after(n);
        done_[0].publish(n);
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

    // Helper k (worker k + 1): y^2 with two helpers, else s^2.
    void run(int k) {
        const int me = k + 1;
        const bool square_y = helpers_ == 2 && k == 0;
        Lane& lane = *lanes_[k];
        for (uint32_t generation = 1;; ++generation) {
            go_.wait_for(generation);
            if (quit_.load(std::memory_order_relaxed)) return;
            prefetch_number<false>(r_.x.get());
            prefetch_number<false>(r_.y.get());
            prefetch_number<false>(r_.s.get());
            if (square_y || !r_.from_squares) mpfr_set(lane.y.get(), r_.y.get(), MPFR_RNDN);
            if (!square_y) {
                mpfr_set(lane.s.get(), r_.s.get(), MPFR_RNDN);
                if (!r_.from_squares) mpfr_set(lane.x.get(), r_.x.get(), MPFR_RNDN);
            }
            for (uint32_t n = start_.load(std::memory_order_relaxed);; ++n) {
                Slot& slot = squares_[n % 2];
                if (square_y) {
                    prefetch_number<true>(slot.y2.get());
                    mpfr_sqr(slot.y2.get(), lane.y.get(), MPFR_RNDN);
                } else {
                    prefetch_number<true>(slot.s.get());
                    mpfr_sqr(slot.s.get(), lane.s.get(), MPFR_RNDN);
                }
                done_[me].publish(n);
                for (int other = 0; other <= helpers_; ++other)
                    if (other != me) done_[other].wait_for(n);
                const bool stop = Sequence::reached(n, stop_.load(std::memory_order_relaxed));
                if (stop && discard_.load(std::memory_order_relaxed)) break;
                make_next(slot, square_y, lane);
                if (stop) {
                    if (!square_y) mpfr_set(r_.s.get(), lane.s.get(), MPFR_RNDN);
                    else if (split_) mpfr_set(r_.y.get(), lane.y.get(), MPFR_RNDN);
                    break;
                }
                if (square_y && split_) {
                    y_fe_[n % 2].value = floatexp_from_mpfr(lane.y.get());
                    y_done_.publish(n);
                }
            }
            parked_[k].publish(generation);
        }
    }

    // A helper's parts of the next Z from the squares in `slot`: y' for the y^2 helper; s' (and,
    // unless s' comes from the squares, the x' and y' it is made from) for the s^2 helper.
    void make_next(const Slot& slot, bool square_y, Lane& lane) {
        prefetch_number<false>(slot.y2.get());
        prefetch_number<false>(slot.s.get());
        if (square_y || !r_.from_squares) prefetch_number<false>(slot.x2.get());
        if (square_y) {
            next_y<F>(slot.x2.get(), slot.y2.get(), slot.s.get(), r_.ci.get(), lane.y.get());
            return;
        }
        if (!r_.from_squares) {
            next_y<F>(slot.x2.get(), slot.y2.get(), slot.s.get(), r_.ci.get(), lane.y.get());
            next_x(slot.x2.get(), slot.y2.get(), r_.cr.get(), lane.x.get());
        }
        next_sum(r_.from_squares, slot.y2.get(), slot.s.get(), r_.k.get(), lane.x.get(), lane.y.get(), lane.s.get());
    }

    OrbitRegisters& r_;
    const int helpers_;
    const bool split_;  // two helpers and s' from the squares: the orbit's thread makes x' alone
    Slot squares_[2];
    std::unique_ptr<Lane> lanes_[2];
    YFe y_fe_[2];
    uint32_t generation_ = 0;  // the orbit's thread's count of start() calls
    uint32_t tick_ = 0;        // the last iteration the orbit's thread published, counted over every run
    bool running_ = false;     // started and not parked
    Sequence go_;
    std::atomic<uint32_t> start_{0};
    std::atomic<uint32_t> stop_{0};
    std::atomic<bool> discard_{false};  // the stop is unplanned: its iteration has no squares
    std::atomic<bool> quit_{false};
    Sequence done_[3];
    Sequence y_done_;  // the y^2 helper's y' of iteration n is in y_fe_[n % 2] (split_)
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
    // The arrays fill as the orbit runs: 2 MiB pages make that 512 times fewer faults.
    advise_huge_pages(z->data(), z->capacity() * sizeof(z->front()));
    advise_huge_pages(z_fe->data(), z_fe->capacity() * sizeof(z_fe->front()));
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
    // The iterations after which the team parks: the last, and (guard) each block's last.
    const auto team_parks_after = [&](int64_t n) {
        return n == max_iterations || (guard && n % TeamGuard::kBlockIterations == 0);
    };
    r.begin();
    for (int64_t n = 1; n <= max_iterations; ++n) {
        DeepComplex<FloatExp> zf;
        bool stepped = false;
        if constexpr (formula_degree(F) == 2) {
            if (team && (!guard || guard->use_team())) {
                if (!team->running()) team->start(team_parks_after(n));
                const FloatExp y = team->step(team_parks_after(n), team_parks_after(n + 1));
                zf = {floatexp_from_mpfr(r.x.get()), y};
                stepped = true;
            }
        }
        if (!stepped) {
            r.step_formula<F>();
            zf = {floatexp_from_mpfr(r.x.get()), floatexp_from_mpfr(r.y.get())};
        }
        if (guard && n % TeamGuard::kBlockIterations == 0) {
            const auto now = std::chrono::steady_clock::now();
            guard->block_done(std::chrono::duration<double>(now - block_start).count());
            block_start = now;
        }
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
    OrbitRegisters r{bits, sum_from_squares<F>(bits)};
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
    OrbitRegisters r{mpfr_prec_t(precision_bits), sum_from_squares<Formula::Mandelbrot>(mpfr_prec_t(precision_bits))};
    mpfr_set_decimal(r.cr.get(), center_re);
    mpfr_set_decimal(r.ci.get(), center_im);
    mpfr_set_zero(r.x.get(), 1);
    mpfr_set_zero(r.y.get(), 1);
    r.begin();
    int64_t n = 1;
    for (; n <= max_iterations; ++n) {
        r.step();
        // The escape test any orbit loop needs, on the squares it already has (one iteration late).
        if (mpfr_cmp_ui(r.x2.get(), 65536) > 0 || mpfr_cmp_ui(r.y2.get(), 65536) > 0) break;
    }
    return std::min(n, max_iterations);
}

}  // namespace ms
