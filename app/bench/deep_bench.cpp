// deep_bench.cpp: the deep zoom's benchmark (see deep_bench.h).
#include "app/bench/deep_bench.h"
#include "compute/system/text_format.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdlib>
#include <cstdio>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <thread>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include <gmp.h>
#include <mpfr.h>
#include <omp.h>
#include <random>

#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/deep/deep_square_cuda.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/deep/deep_perturbation.h"

namespace ms {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

DeepLocation load_location(const std::string& folder, const std::string& name) {
    DeepLocation location;
    std::string error = read_kfr(folder + "/" + name + ".kfr", &location);
    if (!error.empty()) throw std::runtime_error(error);
    return location;
}

// The reference orbit of `location`'s centre on `threads` threads (ReferenceControl::threads),
// its time folded into *best_ms (the least of the calls).
std::shared_ptr<const ReferenceOrbit> timed_orbit(const DeepLocation& location, int64_t bits, int64_t iterations,
                                                  int threads, double* best_ms) {
    ReferenceControl control;
    control.threads = threads;
    const auto start = Clock::now();
    auto orbit = compute_reference_orbit(location.center_re, location.center_im, bits, iterations, control);
    *best_ms = std::min(*best_ms, ms_since(start));
    return orbit;
}

}  // namespace

void deep_bench_reference(const std::string& folder, const std::vector<std::string>& names, int height,
                          const DeepBenchPrint& print) {
    print(
        printf_text("Reference orbit on one thread and on three (ReferenceControl::threads), against a bare MPFR "
                    "loop (3 squarings + 6 adds per iteration, same precision, one thread); best of 3; %u hardware "
                    "threads; auto picks three from %lld bits:",
                    std::thread::hardware_concurrency(), (long long)kReferenceThreeThreadMinBits));
    print(printf_text("  %-8s %6s %10s %10s %10s %10s %7s %8s %8s %6s", "location", "bits", "iterations", "1 thr ms",
                      "3 thr ms", "bare ms", "1/bare", "3/bare", "speedup", "same"));
    for (const std::string& name : names) {
        DeepLocation location = load_location(folder, name);
        int64_t bits = deep_reference_precision_bits(location.zoom, height);
        double one_ms = 1e300, team_ms = 1e300, bare_ms = 1e300;
        int64_t iterations = 0;
        bool same = true;
        for (int run = 0; run < 3; ++run) {
            const auto orbit = timed_orbit(location, bits, location.max_iterations, 1, &one_ms);
            const auto team_orbit = timed_orbit(location, bits, location.max_iterations, 3, &team_ms);
            iterations = orbit->last_index();
            same = same &&
                   std::equal(orbit->z_fe.begin(), orbit->z_fe.end(), team_orbit->z_fe.begin(), team_orbit->z_fe.end(),
                              [](const DeepComplex<FloatExp>& a, const DeepComplex<FloatExp>& b) {
                                  return a.re == b.re && a.im == b.im;
                              });
            const auto start = Clock::now();
            bare_mpfr_orbit(location.center_re, location.center_im, bits, iterations);
            bare_ms = std::min(bare_ms, ms_since(start));
        }
        print(printf_text("  %-8s %6lld %10lld %10.1f %10.1f %10.1f %6.2fx %7.2fx %7.2fx %6s", name.c_str(),
                          (long long)bits, (long long)iterations, one_ms, team_ms, bare_ms, one_ms / bare_ms,
                          team_ms / bare_ms, one_ms / team_ms, same ? "yes" : "NO"));
    }
}

void deep_bench_reference_team(const std::vector<int64_t>& bits, int64_t iterations, const DeepBenchPrint& print) {
    // Inside the period-2 bulb: the orbit never escapes at any precision, and its numbers keep
    // every bit of their significands (it only nears its cycle), so each precision runs all
    // `iterations` at its full cost.
    DeepLocation location;
    location.center_re = "-1.1";
    location.center_im = "0.1";
    print(
        printf_text("Reference orbit of c = -1.1 + 0.1i (bounded), %lld iterations, on 1, 2 and 3 threads "
                    "(ReferenceControl::threads), by precision (best of 3; %u hardware threads):",
                    (long long)iterations, std::thread::hardware_concurrency()));
    print(printf_text("  %8s %10s %10s %10s %10s %8s %8s", "bits", "1 thr ms", "2 thr ms", "3 thr ms", "ns/iter 1",
                      "1/2", "1/3"));
    for (int64_t b : bits) {
        double ms[3] = {1e300, 1e300, 1e300};
        for (int run = 0; run < 3; ++run)
            for (int threads = 1; threads <= 3; ++threads)
                timed_orbit(location, b, iterations, threads, &ms[threads - 1]);
        print(printf_text("  %8lld %10.1f %10.1f %10.1f %10.0f %7.2fx %7.2fx", (long long)b, ms[0], ms[1], ms[2],
                          ms[0] * 1e6 / double(iterations), ms[0] / ms[1], ms[0] / ms[2]));
    }
}

namespace {

// Seconds per call of step(count) (count squarings in a row), with count doubled until a call
// lasts 50 ms; the best of 3 such calls.
template <class Step>
double seconds_per_squaring(Step step) {
    int64_t count = 4;
    auto call_seconds = [&] {
        const Clock::time_point start = Clock::now();
        step(count);
        return ms_since(start) / 1000.0;
    };
    while (call_seconds() < 0.05 && count < (int64_t(1) << 30)) count *= 2;
    double best = 1e300;
    for (int round = 0; round < 3; ++round) best = std::min(best, call_seconds());
    return best / double(count);
}

}  // namespace

void deep_bench_gpu_squaring(const std::vector<int64_t>& bits, const DeepBenchPrint& print) {
    print(
        "A chain of exact squarings, each depending on the last (as a reference orbit's), on one CPU thread "
        "(GMP's mpn_sqr, a whole square; MPFR's mpfr_sqr, the orbit's: rounded to the precision), in one "
        "block of " +
        std::to_string(kGpuSquaringThreads) +
        " GPU threads and over a cooperative grid (a whole square, checked against GMP's; mpfr/GPU against the "
        "faster), best of 3:");
    print(printf_text("  %8s %7s %12s %12s %12s %12s %10s %6s", "bits", "limbs", "mpn_sqr us", "mpfr_sqr us",
                      "GPU block us", "GPU grid us", "mpfr/GPU", "same"));
    for (int64_t b : bits) {
        const size_t limbs = size_t((b + 63) / 64);
        std::mt19937_64 rng{uint64_t(b)};
        std::vector<mp_limb_t> a(limbs), square(2 * limbs);
        for (mp_limb_t& l : a) l = rng();
        a[0] |= 1;
        const std::vector<mp_limb_t> start = a;
        const double mpn_us = 1e6 * seconds_per_squaring([&](int64_t count) {
                                  for (int64_t k = 0; k < count; ++k) {
                                      mpn_sqr(square.data(), a.data(), mp_size_t(limbs));
                                      std::copy(square.begin(), square.begin() + ptrdiff_t(limbs), a.begin());
                                  }
                              });
        mpfr_t x;
        mpfr_init2(x, mpfr_prec_t(b));
        mpfr_set_ui(x, 1, MPFR_RNDN);
        mpfr_div_ui(x, x, 3, MPFR_RNDN);  // 0.0101... : every bit of the significand set by the division
        const double mpfr_us = 1e6 * seconds_per_squaring([&](int64_t count) {
                                   for (int64_t k = 0; k < count; ++k) {
                                       mpfr_sqr(x, x, MPFR_RNDN);
                                       mpfr_set_exp(x, 0);  // back into [1/2, 1): the exponent would run out
                                   }
                               });
        mpfr_clear(x);
        std::vector<uint32_t> words(2 * limbs);
        for (size_t i = 0; i < limbs; ++i) {
            words[2 * i] = uint32_t(start[i]);
            words[2 * i + 1] = uint32_t(start[i] >> 32);
        }
        std::vector<mp_limb_t> first(2 * limbs);
        mpn_sqr(first.data(), start.data(), mp_size_t(limbs));
        double block_us = 1e300, grid_us = 1e300;
        bool same = true;
        auto check = [&](const GpuSquaringChain& chain) {
            for (size_t i = 0; i < 2 * limbs; ++i)
                same = same && (mp_limb_t(chain.first_square[2 * i]) | mp_limb_t(chain.first_square[2 * i + 1])
                                                                           << 32) == first[i];
            return chain.us_per_squaring;
        };
        const int count = int(std::clamp(2e5 / std::max(1.0, mpfr_us), 16.0, 20000.0));
        for (int round = 0; round < 3; ++round) {
            block_us = std::min(block_us, check(gpu_squaring_chain(words, count)));
            grid_us = std::min(grid_us, check(gpu_squaring_chain_grid(words, count)));
        }
        print(printf_text("  %8lld %7zu %12.2f %12.2f %12.2f %12.2f %9.2fx %6s", (long long)b, limbs, mpn_us, mpfr_us,
                          block_us, grid_us, mpfr_us / std::min(block_us, grid_us), same ? "yes" : "NO"));
    }
    print(printf_text("A grid-wide barrier (one block of 256 threads on each multiprocessor): %.2f us",
                      gpu_grid_barrier_us(20000)));
}

namespace {

// One count a thread, on a cache line of its own.
struct alignas(64) MeetingCount {
    std::atomic<uint32_t> value{0};
};

// A spinning wait's pause (the squaring team's Sequence waits so).
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// Seconds `meetings` meetings of `threads` threads take.
double meetings_seconds(int threads, int meetings) {
    std::vector<MeetingCount> counts(static_cast<size_t>(threads));
    auto meet = [&](int me) {
        for (uint32_t n = 1; n <= uint32_t(meetings); ++n) {
            counts[size_t(me)].value.store(n, std::memory_order_release);
            for (int other = 0; other < threads; ++other)
                while (other != me && int32_t(counts[size_t(other)].value.load(std::memory_order_acquire) - n) < 0)
                    spin_pause();
        }
    };
    const Clock::time_point start = Clock::now();
    std::vector<std::thread> helpers;
    for (int k = 1; k < threads; ++k) helpers.emplace_back(meet, k);
    meet(0);
    for (std::thread& t : helpers) t.join();
    return ms_since(start) / 1000.0;
}

}  // namespace

void deep_bench_hand_over(int meetings, const DeepBenchPrint& print) {
    const unsigned cores = std::thread::hardware_concurrency();
    print(
        printf_text("Meetings of spinning threads (each publishes a count and waits for the others'), %d in a row, "
                    "best of 5; %u hardware threads:",
                    meetings, cores));
    for (int threads = 2; threads <= 3; ++threads) {
        if (unsigned(threads) > cores) {
            print(printf_text("  %d threads: not measured (fewer hardware threads)", threads));
            continue;
        }
        double best = 1e300;
        for (int run = 0; run < 5; ++run) best = std::min(best, meetings_seconds(threads, meetings));
        print(printf_text("  %d threads: %.0f ns a meeting", threads, 1e9 * best / meetings));
    }
}

void deep_bench_core_to_core(int rounds, const DeepBenchPrint& print) {
#if defined(__linux__)
    std::vector<int> cpus;
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        print("Core to core: the process's CPUs could not be read");
        return;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
    const auto pin = [](int cpu) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        return pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
    };
    print(
        printf_text("One-way hand-over between two pinned threads, ns (a row's thread writes an odd count and "
                    "spins with pause until the column's answers with the next even one; %d round trips, half "
                    "the mean; the squaring team's iterations pay such crossings):",
                    rounds));
    std::string header = "  from\\to";
    for (int cpu : cpus) header += printf_text("%5d", cpu);
    print(header);
    std::vector<double> all;
    for (int from : cpus) {
        std::string line = printf_text("  %7d", from);
        for (int to : cpus) {
            if (from == to) {
                line += "    -";
                continue;
            }
            MeetingCount flag;
            bool pinned = true;
            std::thread answer([&] {
                pinned = pin(to) && pinned;
                for (uint32_t k = 0; k < uint32_t(rounds); ++k) {
                    while (flag.value.load(std::memory_order_acquire) != 2 * k + 1) spin_pause();
                    flag.value.store(2 * k + 2, std::memory_order_release);
                }
            });
            const bool here = pin(from);
            const Clock::time_point start = Clock::now();
            for (uint32_t k = 0; k < uint32_t(rounds); ++k) {
                flag.value.store(2 * k + 1, std::memory_order_release);
                while (flag.value.load(std::memory_order_acquire) != 2 * k + 2) spin_pause();
            }
            const double ns = ms_since(start) * 1e6 / (2.0 * rounds);
            answer.join();
            if (!here || !pinned) {
                line += "    ?";
                continue;
            }
            all.push_back(ns);
            line += printf_text("%5.0f", ns);
        }
        print(line);
    }
    // The calling thread runs on every CPU it could again (later benchmarks start threads from it).
    pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);
    if (!all.empty()) {
        std::sort(all.begin(), all.end());
        print(printf_text("  pairs: %zu, fastest %.0f ns, median %.0f ns, slowest %.0f ns", all.size(), all.front(),
                          all[all.size() / 2], all.back()));
    }
#else
    (void)rounds;
    print("Core to core: measured on Linux only (threads pinned with pthread_setaffinity_np)");
#endif
}

namespace {

bool same_orbit(const ReferenceOrbit& a, const ReferenceOrbit& b) {
    auto same_fe = [](const DeepComplex<FloatExp>& p, const DeepComplex<FloatExp>& q) {
        return p.re.mantissa == q.re.mantissa && p.re.exponent == q.re.exponent && p.im.mantissa == q.im.mantissa &&
               p.im.exponent == q.im.exponent;
    };
    auto same_d = [](const DeepComplex<double>& p, const DeepComplex<double>& q) {
        return p.re == q.re && p.im == q.im;
    };
    return std::equal(a.z_fe.begin(), a.z_fe.end(), b.z_fe.begin(), b.z_fe.end(), same_fe) &&
           std::equal(a.z.begin(), a.z.end(), b.z.begin(), b.z.end(), same_d) && a.period == b.period &&
           a.escaped == b.escaped && a.nucleus_distance.mantissa == b.nucleus_distance.mantissa &&
           a.nucleus_distance.exponent == b.nucleus_distance.exponent && a.min_abs.mantissa == b.min_abs.mantissa &&
           a.min_abs.exponent == b.min_abs.exponent;
}

}  // namespace

void deep_bench_reference_threads(const std::string& folder, const std::vector<std::string>& names, int width,
                                  int height, int64_t max_iterations, int rounds, const DeepBenchPrint& print) {
    print(printf_text(
        "Reference orbit of a %dx%d frame (its precision, stopped at the nucleus in view as a render's is) on 1, 2 "
        "and 3 threads (ReferenceControl::threads) and as chosen (0: the threshold and the guard), %d rounds "
        "interleaved, medians; %u hardware threads; auto picks 3 from %lld bits (3+ hardware threads), 2 from %lld "
        "bits (2 hardware threads):",
        width, height, rounds, std::thread::hardware_concurrency(), (long long)kReferenceThreeThreadMinBits,
        (long long)kReferenceTwoThreadMinBits));
    print(printf_text("  %-8s %6s %8s %8s %9s %9s %9s %9s %6s %6s %6s %7s %5s", "location", "bits", "iters", "period",
                      "1 thr ms", "2 thr ms", "3 thr ms", "auto ms", "1/2", "1/3", "1/auto", "ns/it 1", "same"));
    constexpr int kThreads[] = {1, 2, 3, 0};
    for (const std::string& name : names) {
        const DeepLocation location = load_location(folder, name);
        const int64_t bits = deep_reference_precision_bits(location.zoom, height);
        const int64_t iterations = max_iterations > 0 ? std::min(max_iterations, location.max_iterations)
                                                      : location.max_iterations;
        std::vector<double> ms[4];
        bool same = true;
        std::shared_ptr<const ReferenceOrbit> serial;
        for (int round = 0; round < rounds; ++round) {
            for (int k = 0; k < 4; ++k) {
                ReferenceControl control;
                control.threads = kThreads[k];
                control.nucleus_radius = deep_half_diagonal(location.zoom, width, height);
                const auto start = Clock::now();
                auto orbit = compute_reference_orbit(location.center_re, location.center_im, bits, iterations, control,
                                                     orbit_map(location));
                ms[k].push_back(ms_since(start));
                if (!serial) serial = orbit;
                same = same && orbit && same_orbit(*serial, *orbit);
            }
        }
        double median[4];
        for (int k = 0; k < 4; ++k) {
            std::sort(ms[k].begin(), ms[k].end());
            median[k] = ms[k][ms[k].size() / 2];
        }
        print(printf_text("  %-8s %6lld %8lld %8lld %9.1f %9.1f %9.1f %9.1f %5.2fx %5.2fx %5.2fx %7.0f %5s",
                          name.c_str(), (long long)bits, (long long)serial->last_index(), (long long)serial->period,
                          median[0], median[1], median[2], median[3], median[0] / median[1], median[0] / median[2],
                          median[0] / median[3], median[0] * 1e6 / double(std::max<int64_t>(serial->last_index(), 1)),
                          same ? "yes" : "NO"));
    }
    print(
        "  (same: every Z_m in double and FloatExp, the period, the nucleus distance, escape and min |Z| equal "
        "to one thread's, every round)");
}

void deep_bench_locations(const std::string& folder, const std::vector<std::string>& names, int width, int height,
                          const DeepBenchPrint& print, bool use_cuda) {
    print(printf_text(
        "Deep frames at %dx%d on %s (BLA, nothing cached; reference on the CPU, BLA table on the %s):", width, height,
        use_cuda ? "CUDA (pixels ms: kernel, CUDA events)" : "the CPU (all cores)", use_cuda ? "GPU" : "CPU"));
    print(printf_text("  %-10s %-9s %6s %9s %10s %8s %10s %10s %14s %7s %10s", "location", "numbers", "bits", "ref its",
                      "ref ms", "BLA ms", "pixels ms", "frame ms", "iterations", "BLA %", "Git/s eff"));
    for (const std::string& name : names) {
        DeepLocation location = load_location(folder, name);
        DeepRenderOptions options;
        options.reference_progress = [&](int64_t done, int64_t total) {
            if (done % (int64_t(1) << 18) == 0)
                print(printf_text("    %s reference: %lld of %lld iterations", name.c_str(), (long long)done,
                                  (long long)total));
        };
        DeepFrame frame = use_cuda ? deep_cuda(location, width, height, options)
                                   : deep_cpu(location, width, height, options);
        const DeepFrameStats& s = frame.stats;
        print(printf_text("  %-10s %-9s %6lld %9lld %10.1f %8.1f %10.1f %10.1f %14llu %6.1f%% %10.2f", name.c_str(),
                          deep_number_type_name(s.number_type), (long long)s.precision_bits,
                          (long long)s.reference_iterations, s.reference_ms, s.bla_ms, s.pixels_ms, s.frame_ms,
                          (unsigned long long)s.iterations, 100.0 * double(s.bla_iterations) / double(s.iterations),
                          double(s.iterations) / (s.pixels_ms * 1e6)));
    }
    print("  (Git/s eff: pixel iterations, BLA-skipped ones included, per second of the pixel loop)");
}

void deep_bench_plain(const std::string& folder, const std::string& name, int width, int height, int rows_stride,
                      int rounds, const DeepBenchPrint& print) {
    DeepLocation location = load_location(folder, name);
    double load_before[3] = {};
    getloadavg(load_before, 3);
    ReferenceCache cache;
    DeepRenderOptions full;
    full.cache = &cache;
    // 1. The full pipeline over the whole frame, end to end (the cache starts empty: reference
    // and BLA table included; both are kept for the sampled rounds below).
    DeepFrame fast = deep_cpu(location, width, height, full);
    const DeepFrameStats& f = fast.stats;
    print(
        printf_text("%s at %dx%d, full pipeline (%s deltas, BLA, all %d threads), whole frame: reference %.1f ms "
                    "(%lld iterations, %lld bits), BLA %.1f ms (%d levels), pixels %.1f ms, frame %.1f ms; "
                    "%llu iterations, %llu (%.1f%%) skipped by BLA in %llu skips, %llu perturbation steps",
                    name.c_str(), width, height, deep_number_type_name(f.number_type), omp_get_max_threads(),
                    f.reference_ms, (long long)f.reference_iterations, (long long)f.precision_bits, f.bla_ms,
                    f.bla_levels, f.pixels_ms, f.frame_ms, (unsigned long long)f.iterations,
                    (unsigned long long)f.bla_iterations, 100.0 * double(f.bla_iterations) / double(f.iterations),
                    (unsigned long long)f.bla_skips, (unsigned long long)f.perturbation_steps));

    // The plain loop: the same reference and pixel grid, double deltas, rebasing, no BLA, one
    // thread (deep_iterate_pixel one pixel at a time, as every renderer without BLA runs it).
    DeepRenderOptions plain;
    plain.cache = &cache;
    plain.use_bla = false;
    plain.threads = 1;
    plain.number_type = DeepNumberType::Double;
    // 2. The sample: every k-th row (rows y = k/2 mod k), spread over the frame so that its
    // costly and cheap rows are in proportion. k (unless given) makes the plain loop take about
    // 15 s, from a first plain row's ns per iteration and the whole frame's iterations.
    const double target_ms = 15000.0;
    if (rows_stride < 1) {
        plain.row_stride = height;
        plain.row_offset = height / 2;
        DeepFrame probe = deep_cpu(location, width, height, plain);
        const double ns = probe.stats.pixels_ms * 1e6 / double(std::max<uint64_t>(probe.stats.iterations, 1));
        const double plain_frame_ms = ns * double(f.iterations) * 1e-6;
        rows_stride = std::clamp(int(std::ceil(plain_frame_ms / target_ms)), 1, height);
    }
    uint64_t sample_iterations = 0;
    for (int y = rows_stride / 2; y < height; y += rows_stride)
        for (int x = 0; x < width; ++x) {
            const int64_t k = fast.escape_count[size_t(y) * size_t(width) + size_t(x)];
            sample_iterations += uint64_t(k < 0 ? location.max_iterations : k);
        }
    const int sample_rows = (height - rows_stride / 2 + rows_stride - 1) / rows_stride;
    print(printf_text(
        "  sample: every %d-th row (%d of %d rows), %.1f%% of the frame's iterations; %d rounds, each the "
        "pipeline then the plain loop on those rows (reference and BLA table from the cache)",
        rows_stride, sample_rows, height, 100.0 * double(sample_iterations) / double(f.iterations), rounds));
    full.row_stride = plain.row_stride = rows_stride;
    full.row_offset = plain.row_offset = rows_stride / 2;
    // 3. Rounds, interleaved, so that both see the same load: the pipeline on the sample, the
    // plain loop on the sample, the pipeline's whole frame (its reference and BLA table cached:
    // the end-to-end figure adds the first frame's reference and BLA ms back).
    DeepRenderOptions whole = full;
    whole.row_stride = 1;
    whole.row_offset = 0;
    std::vector<double> pipeline_ms, plain_ms, plain_ns, whole_ms;
    int mismatches = 0, compared = 0;
    for (int round = 0; round < rounds; ++round) {
        DeepFrame a = deep_cpu(location, width, height, full);
        DeepFrame b = deep_cpu(location, width, height, plain);
        whole_ms.push_back(deep_cpu(location, width, height, whole).stats.pixels_ms);
        pipeline_ms.push_back(a.stats.pixels_ms);
        plain_ms.push_back(b.stats.pixels_ms);
        plain_ns.push_back(b.stats.pixels_ms * 1e6 / double(b.stats.iterations));
        for (int y = full.row_offset; y < height; y += rows_stride)
            for (int x = 0; x < width; ++x, ++compared) {
                const size_t i = size_t(y) * size_t(width) + size_t(x);
                mismatches += a.escape_count[i] != b.escape_count[i];
            }
        print(
            printf_text("  round %d: pipeline %.1f ms (%llu iterations, %.1f%% by BLA), plain loop %.1f ms (%llu "
                        "iterations, %.2f ns each): %.1fx; the pipeline's whole frame %.1f ms (pixels)",
                        round + 1, a.stats.pixels_ms, (unsigned long long)a.stats.iterations,
                        100.0 * double(a.stats.bla_iterations) / double(a.stats.iterations), b.stats.pixels_ms,
                        (unsigned long long)b.stats.iterations, plain_ns.back(), b.stats.pixels_ms / a.stats.pixels_ms,
                        whole_ms.back()));
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    };
    const double pipe = median(pipeline_ms), slow = median(plain_ms), ns = median(plain_ns);
    print(
        printf_text("  sampled rows, medians: pipeline %.1f ms, plain loop %.1f ms: %.1fx (pixels alone, the same "
                    "rows); escape counts: %d of %d pixels differ",
                    pipe, slow, slow / pipe, mismatches, compared));
    // 4. The whole frame: the plain loop costs the same per iteration everywhere (one step
    // each), so its frame is its median ns per iteration times the frame's iterations, plus
    // the same reference the pipeline paid.
    const double plain_frame_ms = f.reference_ms + ns * double(f.iterations) * 1e-6;
    const double pipeline_frame_ms = f.reference_ms + f.bla_ms + median(whole_ms);
    double load_after[3] = {};
    getloadavg(load_after, 3);
    print(
        printf_text("  whole frame, medians: pipeline %.1f ms end to end (reference %.1f + BLA %.1f + pixels %.1f, "
                    "measured), plain loop %.1f ms (the same reference plus %.2f ns x %llu iterations, scaled from "
                    "the sample): %.1fx end to end",
                    pipeline_frame_ms, f.reference_ms, f.bla_ms, median(whole_ms), plain_frame_ms, ns,
                    (unsigned long long)f.iterations, plain_frame_ms / pipeline_frame_ms));
    print(printf_text("  load average (1 min) %.2f before, %.2f after", load_before[0], load_after[0]));
}

namespace {

// Where the work of one frame's sampled rows goes (deep_bench_work): the loop's kWork
// instantiation, one pixel at a time, the counts summed over the sample.
struct WorkTotals {
    uint64_t pixels = 0, interior = 0;
    DeepPixelCounters all, inside;  // every sampled pixel; the interior (max-iteration) ones
    DeepPixelWork work;
};

template <typename T>
WorkTotals count_work(const DeepLocation& location, int width, int height, int rows_stride,
                      const DeepRenderOptions& options) {
    DeepFrame frame;
    DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
    std::shared_ptr<const BlaTable<T>> table, critical;
    deep_frame_bla<T, DeepComplex<T>>(setup, options, &table, &critical, &frame.stats);
    const BlaView<T> bla = bla_view(table.get());
    const DeepComplex<T>* Z = deep_orbit_data<T>(*setup.orbit);
    const int64_t last = setup.orbit->last_index();
    const T spacing = deep_from_floatexp<T>(setup.spacing);
    const DeepComplex<T> offset{deep_from_floatexp<T>(setup.offset.re), deep_from_floatexp<T>(setup.offset.im)};
    std::vector<int> rows;
    for (int y = rows_stride / 2; y < height; y += rows_stride) rows.push_back(y);
    std::vector<WorkTotals> per_row(rows.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t r = 0; r < rows.size(); ++r) {
        WorkTotals& t = per_row[r];
        const T dy = deep_from_double<T>(-(rows[r] + 0.5 - 0.5 * height)) * spacing;
        for (int x = 0; x < width; ++x) {
            const T dx = deep_from_double<T>(x + 0.5 - 0.5 * width) * spacing;
            DeepPixelCounters c;
            double mu = 0.0;
            const int64_t k = deep_iterate_pixel<T, true, Formula::Mandelbrot, false, false, true>(
                Z, last, bla, DeepComplex<T>{offset.re + dx, offset.im + dy}, location.max_iterations, &mu, c, nullptr,
                0, nullptr, {}, &t.work);
            ++t.pixels;
            auto add = [](DeepPixelCounters& to, const DeepPixelCounters& from) {
                to.iterations += from.iterations;
                to.bla_iterations += from.bla_iterations;
                to.bla_skips += from.bla_skips;
                to.steps += from.steps;
                to.rebases += from.rebases;
                to.escaped += from.escaped;
            };
            add(t.all, c);
            if (k < 0) {
                ++t.interior;
                add(t.inside, c);
            }
        }
    }
    WorkTotals sum;
    for (const WorkTotals& t : per_row) {
        sum.pixels += t.pixels;
        sum.interior += t.interior;
        for (auto [to, from] : {std::pair{&sum.all, &t.all}, std::pair{&sum.inside, &t.inside}}) {
            to->iterations += from->iterations;
            to->bla_iterations += from->bla_iterations;
            to->bla_skips += from->bla_skips;
            to->steps += from->steps;
            to->rebases += from->rebases;
            to->escaped += from->escaped;
        }
        sum.work.steps_before_first_skip += t.work.steps_before_first_skip;
        sum.work.steps_after_rebase_before_skip += t.work.steps_after_rebase_before_skip;
        for (int l = 0; l < kBlaMaxLevels; ++l) sum.work.skips_by_level[l] += t.work.skips_by_level[l];
        for (int b = 0; b < 14; ++b) sum.work.steps_by_ratio[b] += t.work.steps_by_ratio[b];
    }
    return sum;
}

}  // namespace

void deep_bench_work(const std::string& folder, const std::vector<std::string>& names, int width, int height,
                     int rows_stride, const DeepBenchPrint& print) {
    rows_stride = std::max(rows_stride, 1);
    print(
        printf_text("Where the work goes: Mandelbrot's loop one pixel at a time (the CPU's and CUDA's), every %d-th "
                    "row of %dx%d; per pixel of the sample",
                    rows_stride, width, height));
    print(printf_text("  %-7s %-8s %7s %9s %9s %8s %7s %7s %6s %9s %9s %8s %8s", "name", "numbers", "pixels", "its/px",
                      "steps/px", "skips/px", "rebases", "inside", "its%", "steps in%", "first/px", "rebase/px",
                      "levels"));
    for (const std::string& name : names) {
        const DeepLocation location = load_location(folder, name);
        DeepFrame probe;
        ReferenceCache cache;  // the probe's reference serves the count
        DeepRenderOptions options;
        options.cache = &cache;
        deep_frame_setup(location, width, height, options, &probe);
        const bool is_double = probe.stats.number_type == DeepNumberType::Double;
        const WorkTotals t = is_double ? count_work<double>(location, width, height, rows_stride, options)
                                       : count_work<FloatExp>(location, width, height, rows_stride, options);
        const double px = double(std::max<uint64_t>(t.pixels, 1));
        int levels_used = 0;
        std::string histogram;
        for (int l = 0; l < kBlaMaxLevels; ++l)
            if (t.work.skips_by_level[l]) {
                levels_used = l + 1;
                histogram += printf_text(" %d:%.1f", l, double(t.work.skips_by_level[l]) / px);
            }
        print(printf_text("  %-7s %-8s %7llu %9.0f %9.0f %8.1f %7.2f %6.1f%% %5.1f%% %8.1f%% %9.1f %8.1f %8d",
                          name.c_str(), deep_number_type_name(probe.stats.number_type), (unsigned long long)t.pixels,
                          double(t.all.iterations) / px, double(t.all.steps) / px, double(t.all.bla_skips) / px,
                          double(t.all.rebases) / px, 100.0 * double(t.interior) / px,
                          100.0 * double(t.inside.iterations) / double(std::max<uint64_t>(t.all.iterations, 1)),
                          100.0 * double(t.inside.steps) / double(std::max<uint64_t>(t.all.steps, 1)),
                          double(t.work.steps_before_first_skip) / px,
                          double(t.work.steps_after_rebase_before_skip) / px, levels_used));
        print(
            printf_text("          interior pixels: %.0f steps, %.1f skips, %.2f rebases each; skips per pixel by "
                        "level (log2 of the length):%s",
                        double(t.inside.steps) / double(std::max<uint64_t>(t.interior, 1)),
                        double(t.inside.bla_skips) / double(std::max<uint64_t>(t.interior, 1)),
                        double(t.inside.rebases) / double(std::max<uint64_t>(t.interior, 1)), histogram.c_str()));
        std::string ratios;
        for (int b = 0; b < 14; ++b)
            ratios += printf_text(
                " %s%d:%.1f%%", b == 13 ? ">=" : "", 4 * b - 56,
                100.0 * double(t.work.steps_by_ratio[b]) / double(std::max<uint64_t>(t.all.steps, 1)));
        print("          steps by log2(|z| / |2 Z_m|) (a single step's radius: -53):" + ratios);
    }
    print(
        "  its: iterations; steps: ordinary perturbation steps (each also a failed level-0 BLA test); inside: pixels "
        "reaching the iteration limit, their share of the iterations and of the steps; first: steps before a pixel's "
        "first BLA skip; rebase: steps after a rebase before the next skip");
}

std::vector<DeepKf2Row> deep_bench_kf2(const std::string& folder, int width, int height, bool use_cuda,
                                       const DeepBenchPrint& print,
                                       const std::function<void(double, const std::string&)>& progress) {
    const bool kf_size = width == 1024 && height == 1024;
    print(
        printf_text("Kalles Fraktaler 2 benchmark locations at %dx%d on %s, against KF 2.12.11's published CPU times "
                    "(1024x1024)",
                    width, height, use_cuda ? "CUDA" : "the CPU (all cores)"));
    print(
        "  end to end: MPFR reference + BLA table + pixels, nothing cached; frame: the same frame again with its "
        "reference cached (BLA built and pixels); kept: again with the BLA table kept too (pixels)");
    print(printf_text("  %-7s %-9s %5s %9s %9s %8s %10s %10s %8s %7s %9s %8s  %s", "kf2", "numbers", "bits", "ref its",
                      "ref ms", "BLA ms", "pixels ms", "end-to-end", "KF s", "ratio", "frame ms", "kept ms", "marks"));
    std::vector<DeepKf2Row> rows;
    const int count = int(std::size(kDeepKf2Locations));
    int missed = 0;
    for (int i = 0; i < count; ++i) {
        DeepKf2Row row;
        row.location = kDeepKf2Locations[i];
        const std::string path = folder + "/" + row.location.name + ".kfr";
        DeepLocation location;
        if (std::string error = read_kfr(path, &location); !error.empty()) {
            row.missing = "no public location file (" + std::string(row.location.name) + ".kfr)";
            print(printf_text("  %-7s skipped: %s", row.location.label, row.missing.c_str()));
            rows.push_back(row);
            continue;
        }
        ReferenceCache cache;
        DeepRenderOptions options;
        options.cache = &cache;
        options.reference_progress = [&](int64_t done, int64_t total) {
            if (progress)
                progress((i + 0.5 * double(done) / double(std::max<int64_t>(total, 1))) / count,
                         std::string(row.location.label) + ": reference orbit");
        };
        options.row_progress = [&](int done, int all) {
            if (progress)
                progress((i + 0.5 + 0.25 * double(done) / all) / count, std::string(row.location.label) + ": pixels");
        };
        auto render = [&]() {
            return use_cuda ? deep_cuda(location, width, height, options) : deep_cpu(location, width, height, options);
        };
        row.end_to_end = render().stats;
        options.reference_progress = nullptr;
        options.row_progress = [&](int done, int all) {
            if (progress)
                progress((i + 0.75 + 0.25 * double(done) / all) / count,
                         std::string(row.location.label) + ": frame with the reference cached");
        };
        // The frame with the reference cached builds its BLA table again: a cache of its own
        // holds the orbit only. Then, with the table kept beside the orbit as a window keeps it.
        ReferenceCache orbit_only;
        options.cache = &orbit_only;
        if (auto orbit = cache.find(location, width, height)) orbit_only.insert(orbit);
        row.cached = render().stats;
        options.cache = &cache;
        row.bla_kept = render().stats;
        const DeepFrameStats& e = row.end_to_end;
        row.ratio = row.location.kf_seconds * 1000.0 / e.frame_ms;
        std::string marks = "(marks need 1024x1024)";
        if (kf_size) {
            const bool goal = row.ratio >= kDeepKf2GoalRatio, bar = row.ratio >= kDeepKf2ResolveRatio,
                       frame = row.cached.frame_ms <= kDeepKf2FrameGoalMs,
                       kept = row.bla_kept.frame_ms <= kDeepKf2FrameGoalMs;
            missed += !goal + !bar + !frame;
            marks = printf_text("100x %s, 30x %s, 50 ms %s (%s with the BLA kept)", goal ? "met" : "MISSED",
                                bar ? "met" : "MISSED", frame ? "met" : "MISSED", kept ? "met" : "missed");
        }
        print(printf_text("  %-7s %-9s %5lld %9lld %9.1f %8.1f %10.1f %10.1f %8.1f %6.1fx %9.1f %8.1f  %s",
                          row.location.label, deep_number_type_name(e.number_type), (long long)e.precision_bits,
                          (long long)e.reference_iterations, e.reference_ms, e.bla_ms, e.pixels_ms, e.frame_ms,
                          row.location.kf_seconds, row.ratio, row.cached.frame_ms, row.bla_kept.frame_ms,
                          marks.c_str()));
        const double pixels = double(width) * double(height);
        print(printf_text(
            "          %s; %llu iterations, %.1f%% skipped by BLA; per pixel %.0f perturbation steps and %.0f "
            "BLA skips; BLA table built on the %s; cached frame: reference %s, BLA %s; kept: BLA %s%s",
            e.reference_period > 0
                ? printf_text("reference stopped at period %lld", (long long)e.reference_period).c_str()
                : "reference ran in full",
            (unsigned long long)e.iterations,
            e.iterations ? 100.0 * double(e.bla_iterations) / double(e.iterations) : 0.0,
            double(e.perturbation_steps) / pixels, double(e.bla_skips) / pixels, e.bla_on_device ? "GPU" : "CPU",
            row.cached.reference_cached ? "reused" : "RECOMPUTED", row.cached.bla_cached ? "REUSED" : "built",
            row.bla_kept.bla_cached ? "reused" : "BUILT AGAIN",
            use_cuda
                ? printf_text(", %.1f MB copied to the device (end to end %.1f MB)",
                              1e-6 * double(row.bla_kept.device_bytes_copied), 1e-6 * double(e.device_bytes_copied))
                      .c_str()
                : ""));
        rows.push_back(row);
    }
    print(
        "  ratio: KF's CPU time / our end-to-end time; goals (H100 host, 1024x1024): end to end >= 100x "
        "KF, resolved at 30x; the frame alone <= 50 ms");
    if (kf_size) print(printf_text("  %d mark(s) MISSED", missed));
    else
        print(
            printf_text("  at %dx%d the ratio sets unlike sizes side by side (KF's times are for 1024x1024, %.0fx "
                        "the pixels): a measure of the pipeline, not of the goal",
                        width, height, 1048576.0 / (double(width) * height)));
    return rows;
}

}  // namespace ms
