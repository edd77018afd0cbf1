// direct_cpu.cpp: the fast CPU path, direct_cpu(). All cores through OpenMP (rows,
// dynamic schedule: rows differ wildly in cost), each row explicitly vectorised with Google
// Highway. The SIMD target (AVX-512, AVX2, SSE4, ...) is picked at run time by Highway's
// dynamic dispatch: this file is compiled once per target (foreach_target.h re-includes it).
//
// How a chunk of rows is computed (RenderChunkImpl)
//   1. Coordinates: c's real part for every column (once per chunk), rounded to T as the
//      reference rounds it, and per row the cardioid/bulb test (in double, as in the reference)
//      where the row crosses those shapes' box; settled pixels become NaN (kDeadLane).
//   2. Rounds. Round 0 runs every pixel for steps 1..32 in groups of kGroup vectors that are
//      stepped together, interleaved, so that while one vector's multiply waits on its latency
//      the others fill the FP pipes; a group is a tile, one vector wide and kGroup rows high,
//      since neighbours tend to escape together. A group stops as soon as all its lanes are
//      done. Pixels still iterating at the end of a round are packed (Highway CompressStore)
//      into a queue, and the next round runs the queue for as many steps again: (32, 64],
//      (64, 128], ... Packing keeps the long-lived pixels of the boundary side by side, so few
//      lanes idle beside them, and all lanes of a group share one step count and so one save
//      schedule. A chunk is up to kMaxChunkRows rows, so that its survivors fill whole groups.
//   3. Smooth values for the chunk, vectorised (Highway's Log, in float; double's values two
//      vectors at a time, as one float vector).
//   Passes 1 and 3 live in direct_cpu_rows-inl.h.
//   The hot loop only steps the vectors and tests for an event (an escape, or a periodicity
//   candidate) with one integer max/min over the group; the rare events are settled off the hot
//   path, and finished lanes turn NaN, which compares false with everything and so raises no
//   further event.
//
// Same escape counts as the reference on every pixel (by default)
//   The iteration is written as the same sequence of IEEE operations as the reference,
//       zi' = (zr + zr) * zi + ci        ((2 * zr) * zi in the reference: zr + zr == 2 * zr exactly)
//       zr' = (zr*zr - zi*zi) + cr       (zr*zr and zi*zi kept from the previous norm)
//       |z'|^2 = zr'*zr' + zi'*zi'
//   with each multiply and add rounded separately, and this library is compiled with
//   -ffp-contract=off so that the compiler does not fuse them behind our back. The result is
//   the reference's escape count and iteration count on every pixel and on every SIMD target.
//   The smooth value's two logs are taken in float (direct_cpu_rows-inl.h), so mu agrees
//   with the reference's to a few float ulps.
//   Why escape counts can differ with FMA: the optional fused path
//   (CpuRenderControl::fused_multiply_add) uses Highway's MulAdd, which rounds a*b+c once
//   instead of twice. That changes the last bit of z now and then; near the boundary of the
//   set orbits are chaotic and a last-bit difference grows until the escape step moves by one
//   or more iterations (or a pixel escapes that did not). That is a thin scatter along the
//   boundary, which grows with the zoom and the iterations (tests/fractal/direct/test_direct_cpu.cpp
//   bounds it). On targets without FMA (SSE4) Highway emulates MulAdd as multiply + add, so the
//   fused path's picture would also depend on the machine. The fused form is faster (fewer FP
//   operations, a shorter dependency chain), most on Intel parts where adds and FMAs share two
//   ports; since it gives up the reference's picture, it is an option, off by default.
//
// Shortcuts (each switchable, both leave the picture unchanged):
//   cardioid/bulb: see 1. above; such pixels cost 0 iterations.
//   periodicity: exactly as the reference: z is saved on the schedule of next_periodicity_save()
//   (32, 64, ... then every periodicity_interval() steps) and compared exactly at the steps of
//   periodicity_compare_step() (every fourth); a repeat means the orbit is periodic in this
//   arithmetic.
// Iterations are counted like the reference: k for a pixel escaping at step k, max_iterations
// for interior pixels, k at a periodicity hit, 0 for the cardioid/bulb.

#ifndef MANDELSCOPE_MANDELBROT_CPU_SHARED
#define MANDELSCOPE_MANDELBROT_CPU_SHARED

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <omp.h>

#include "compute/fractal/direct/cpu_row_jobs.h"
#include "compute/fractal/direct/direct.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/maths/escape.h"

namespace ms::cpu_simd {

// Rows of the image to render (shared by every SIMD target's code): y is the first. The frame's
// part (CpuRowJob) is setup_cpu_frame's (cpu_row_jobs.h).
struct ChunkJob : CpuRowJob {
    bool fused_multiply_add = false;
    // The smooth value mu = k + mu_constant - ln(ln|z_k|^2 / 2) * log_scale (formula_math.h's,
    // with log2 folded in: log_scale = 1 / ln d; Mandelbrot's 1 and 1 / ln 2).
    float mu_constant = 1.0f;
    float log_scale = 1.44269504088896340736f;
    double bailout_squared = kBailoutRadius * kBailoutRadius;
    float* mu_out = nullptr;  // first row's output (width floats per row)
    int mu_stride = 0;        // floats from one row's output to the next
};

// The value of a lane with nothing (more) to iterate (settled by the cardioid/bulb test, padding,
// finished): a NaN, which compares false with everything, with the sign bit set, so that read as
// an integer it is negative (see IterateGroup).
template <typename T>
inline constexpr T kDeadLane = -std::numeric_limits<T>::quiet_NaN();

// Rows in a chunk at most, for T: enough pixels that each round's survivors fill whole groups
// (rounds pack a chunk's survivors only), few enough that a chunk's scratch stays in the L2 cache
// (16 rows of 3840 pixels: 0.7 MB in float). Double's chunks are half as many rows, the same
// bytes: more rows pay in float, not in double.
template <typename T>
inline constexpr int kMaxChunkRows = 64 / sizeof(T);

// Each thread's chunk scratches (one per SIMD target and number type it has run) register how
// to free themselves here, so that release_cpu_render_scratch() can give their memory back.
inline thread_local std::vector<std::function<void()>> scratch_releasers;

}  // namespace ms::cpu_simd

#endif  // MANDELSCOPE_MANDELBROT_CPU_SHARED

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/fractal/direct/direct_cpu.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per SIMD target
#include <hwy/highway.h>

#include "compute/fractal/direct/direct_cpu_rows-inl.h"  // RowCoordinates, RowSmoothValues, conversions

HWY_BEFORE_NAMESPACE();
namespace ms::cpu_simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// formula_step() for this target (see formula_step-inl.h).
#include "compute/fractal/maths/formula_step-inl.h"

// Vectors iterated together (interleaved) by one thread. The dependency chain of one iteration
// (zr -> zr*zr -> - zi*zi -> + cr) is three dependent operations, whose latencies add up to
// several times the few cycles it takes to issue one vector's ~11 operations: four independent
// vectors keep the FP pipes busy. The group's state (about 10 vectors each) fits AVX-512's 32
// registers with c, ci and the saved orbit value as memory operands.
constexpr int kGroup = 4;
static_assert(kMaxChunkRows<float> % kGroup == 0 && kMaxChunkRows<double> % kGroup == 0,
              "round-0 groups are tiles of kGroup rows");

// First round: steps 1..32, ending on the first periodicity save. Later rounds double:
// (32, 64], (64, 128], ...
constexpr int kFirstRoundSteps = 32;
static_assert(kFirstRoundSteps == kPeriodicityFirstSave, "round 0 ends on the first periodicity save");

// One iteration of z -> f(z) + c on a vector. zr2, zi2 carry zr*zr, zi*zi from the previous
// step (the unfused form reuses them); returns |z|^2 of the new z. Mandelbrot keeps its own
// hand-written step (and the fused option); the other formulas take formula_math.h's, the same
// operations as the reference (kFma is false for them).
template <Formula F, bool kFma, class V>
HWY_INLINE V Step(V& zr, V& zi, V& zr2, V& zi2, const V cr, const V ci) {
    if constexpr (F != Formula::Mandelbrot) {
        static_assert(!kFma, "only Mandelbrot has the fused form");
        formula_step<F>(zr, zi, zr2, zi2, cr, ci, [](V v) { return hn::Abs(v); });
        zr2 = hn::Mul(zr, zr);
        zi2 = hn::Mul(zi, zi);
        return hn::Add(zr2, zi2);
    } else if constexpr (kFma) {
        const V t = hn::NegMulAdd(zi, zi, cr);     // cr - zi*zi, rounded once
        zi = hn::MulAdd(hn::Add(zr, zr), zi, ci);  // 2 zr zi + ci, rounded once
        zr = hn::MulAdd(zr, zr, t);
        zi2 = hn::Mul(zi, zi);
        return hn::MulAdd(zr, zr, zi2);
    } else {
        zi = hn::Add(hn::Mul(hn::Add(zr, zr), zi), ci);
        zr = hn::Add(hn::Sub(zr2, zi2), cr);
        zr2 = hn::Mul(zr, zr);
        zi2 = hn::Mul(zi, zi);
        return hn::Add(zr2, zi2);
    }
}

// Pixels still iterating after a round, packed (structure of arrays) for the next round.
template <typename T>
struct Queue {
    using TI = hwy::MakeSigned<T>;
    std::vector<T> cr, ci, zr, zi, sr, si;
    std::vector<TI> index;  // pixel index in the chunk
    size_t count = 0;
    void resize(size_t n) {
        for (auto* v : {&cr, &ci, &zr, &zi, &sr, &si}) v->resize(n);
        index.resize(n);
    }
};

// Per-thread scratch for one chunk of rows: every pixel's c (real part), the iterations it
// ran and |z|^2 where it escaped (0 if it did not), the smooth values of one row, and two
// queues that the rounds pass survivors through.
template <typename T>
struct ChunkScratch {
    using TI = hwy::MakeSigned<T>;
    std::vector<T> re;  // c's real part per column (NaN in the padding)
    std::vector<T> cr;
    std::vector<TI> k;
    std::vector<T> norm;
    std::vector<float> mu;
    Queue<T> queue[2];
    void resize(size_t pixels, size_t row) {
        if (cr.size() >= pixels && mu.size() >= row) return;
        re.resize(row);
        cr.resize(pixels);
        k.resize(pixels + 1);  // + a dummy cell that padding lanes scatter to
        norm.resize(pixels + 1);
        mu.resize(row);
        queue[0].resize(pixels);
        queue[1].resize(pixels);
    }
};

// A group of kGroup vectors iterated together: the per-lane state of its pixels.
template <class D>
struct Group {
    using V = hn::Vec<D>;
    using VI = hn::Vec<hn::RebindToSigned<D>>;
    V cr[kGroup], ci[kGroup], zr[kGroup], zi[kGroup], zr2[kGroup], zi2[kGroup], sr[kGroup], si[kGroup];
    V norm_out[kGroup];        // |z|^2 at the escape; 0 while not escaped
    VI k_out[kGroup];          // iterations run, recorded when the pixel finishes
    hn::Mask<D> done[kGroup];  // escaped, caught by the periodicity check, or nothing to iterate
};

// Iterates a group from step k_begin + 1 to k_end at most (all its lanes share the step count),
// stopping early once every lane is done. The hot loop only steps the vectors and tests for an
// event: some lane escaped, or (periodicity, at a compared step) its real part is back exactly on
// the saved value.
// Events are rare (a pixel finishes once), so they are handled off the hot path: record the
// step and |z|^2, confirm a periodicity candidate on the imaginary part, and turn finished lanes
// to NaN, which compares false with everything and so raises no further event. The handler has no
// per-vector branch: which of the four vectors holds the event is unpredictable, and the
// branches' mispredictions cost more than blending all four. Saves and compares follow the
// reference's schedule (next_periodicity_save, periodicity_compare_step). Returns the step
// reached.
template <class D, Formula F, bool kPeriodicity, bool kFma>
HWY_INLINE int IterateGroup(D d, Group<D>& g, int k_begin, int k_end, int interval) {
    int next_save = next_periodicity_save(k_begin, interval);
    using T = hn::TFromD<D>;
    const hn::RebindToSigned<D> di;
    const auto bailout = hn::Set(d, T(formula_bailout_radius(F) * formula_bailout_radius(F)));
    const auto nan = hn::Set(d, kDeadLane<T>);
    const auto bailout_bits = hn::BitCast(di, bailout);
    const auto zero_bits = hn::Zero(di);
    static_assert(kGroup == 4, "the event test below combines four vectors");
    hn::Vec<D> norm[kGroup];
    for (int k = k_begin + 1; k <= k_end; ++k) {
        for (int v = 0; v < kGroup; ++v)
            norm[v] = Step<F, kFma>(g.zr[v], g.zi[v], g.zr2[v], g.zi2[v], g.cr[v], g.ci[v]);
        // Does any lane need attention: |z|^2 > R^2 (an escape) or, with periodicity, zr exactly
        // on the saved value? Asked with integer max/min over the four vectors and one compare
        // each, not eight compares and seven mask ORs: AVX-512 has eight mask registers, too few
        // for the per-vector masks, and shuttling them through general registers would double
        // the cost of a step. Read as integers, non-negative floats order as floats do; dead lanes
        // hold a NaN with the sign bit set (kDeadLane, and x86's default NaN), a negative
        // integer that never wins the max. zr - sr is 0 exactly when zr == sr (finite values),
        // and |zr - sr| as an integer is 0 exactly then. A positive NaN could only raise
        // needless events: the handler below tests each condition exactly.
        const auto top = hn::Max(hn::Max(hn::BitCast(di, norm[0]), hn::BitCast(di, norm[1])),
                                 hn::Max(hn::BitCast(di, norm[2]), hn::BitCast(di, norm[3])));
        auto event = top > bailout_bits;
        const bool compare = kPeriodicity && periodicity_compare_step(k);
        if (compare) {
            auto gap = [&](int v) { return hn::BitCast(di, hn::Abs(hn::Sub(g.zr[v], g.sr[v]))); };
            event = hn::Or(event, hn::Min(hn::Min(gap(0), gap(1)), hn::Min(gap(2), gap(3))) == zero_bits);
        }
        if (HWY_UNLIKELY(!hn::AllFalse(di, event))) {
            const auto kv = hn::Set(di, hwy::MakeSigned<T>(k));
            for (int v = 0; v < kGroup; ++v) {
                const auto escaped = norm[v] > bailout;  // dead (NaN) lanes never qualify
                auto finished = escaped;
                // An exact repeat of the saved value: the orbit is periodic in this arithmetic
                // and never escapes (interior; |z|^2 stays unrecorded).
                if (compare) finished = hn::Or(finished, hn::And(g.zr[v] == g.sr[v], g.zi[v] == g.si[v]));
                g.norm_out[v] = hn::IfThenElse(escaped, norm[v], g.norm_out[v]);
                g.k_out[v] = hn::IfThenElse(hn::RebindMask(di, finished), kv, g.k_out[v]);
                // A NaN z (and squares) makes the next step's z and |z|^2 NaN. The squares too:
                // from finite squares Mandelbrot's zr would be finite once more (a needless
                // event), and Burning Ship's |zi| a NaN with the sign bit clear, positive as an
                // integer, which would raise an event on every step after.
                g.zr[v] = hn::IfThenElse(finished, nan, g.zr[v]);
                g.zi[v] = hn::IfThenElse(finished, nan, g.zi[v]);
                g.zr2[v] = hn::IfThenElse(finished, nan, g.zr2[v]);
                g.zi2[v] = hn::IfThenElse(finished, nan, g.zi2[v]);
                g.done[v] = hn::Or(g.done[v], finished);
            }
            const auto all_done = hn::And(hn::And(g.done[0], g.done[1]), hn::And(g.done[2], g.done[3]));
            if (hn::AllTrue(d, all_done)) return k;
        }
        if (kPeriodicity && k == next_save) {
            for (int v = 0; v < kGroup; ++v) {
                g.sr[v] = g.zr[v];
                g.si[v] = g.zi[v];
            }
            next_save = next_periodicity_save(k, interval);
        }
    }
    return k_end;
}

// After a group's round: lanes still iterating either reached max_iterations (interior: they
// ran that many iterations) or are packed into the next round's queue.
template <class D>
HWY_INLINE void FinishGroupRound(D d, Group<D>& g, int k_reached, int max_iterations,
                                 const hn::Vec<hn::RebindToSigned<D>>* index, Queue<hn::TFromD<D>>* next) {
    const hn::RebindToSigned<D> di;
    for (int v = 0; v < kGroup; ++v) {
        const auto alive = hn::Not(g.done[v]);
        if (hn::AllFalse(d, alive)) continue;
        if (k_reached >= max_iterations) {
            g.k_out[v] = hn::IfThenElse(hn::RebindMask(di, alive),
                                        hn::Set(di, hwy::MakeSigned<hn::TFromD<D>>(max_iterations)), g.k_out[v]);
            continue;
        }
        const size_t at = next->count;
        hn::CompressStore(g.cr[v], alive, d, next->cr.data() + at);
        hn::CompressStore(g.ci[v], alive, d, next->ci.data() + at);
        hn::CompressStore(g.zr[v], alive, d, next->zr.data() + at);
        hn::CompressStore(g.zi[v], alive, d, next->zi.data() + at);
        hn::CompressStore(g.sr[v], alive, d, next->sr.data() + at);
        hn::CompressStore(g.si[v], alive, d, next->si.data() + at);
        next->count += hn::CompressStore(index[v], hn::RebindMask(di, alive), di, next->index.data() + at);
    }
}

template <class D, Formula F, bool kPeriodicity, bool kFma>
HWY_NOINLINE void RenderChunkImpl(D d, const ChunkJob& job, int rows, RowJobsResult* result) {
    using T = hn::TFromD<D>;
    using TI = hwy::MakeSigned<T>;
    const hn::RebindToSigned<D> di;
    const size_t lanes = hn::Lanes(d);
    const size_t group_pixels = kGroup * lanes;
    // Rows padded to whole steps of the smooth values (whole vectors); the padding (NaN c) is
    // never iterated.
    const size_t step = SmoothValuesStep<T>();
    const size_t padded_width = (size_t(job.width) + step - 1) / step * step;
    const size_t pixels = padded_width * size_t(rows);

    thread_local ChunkScratch<T> scratch;
    thread_local bool registered = false;
    if (!registered) {  // this thread's scratch of this kind, freed by release_cpu_render_scratch()
        scratch_releasers.push_back([] { scratch = ChunkScratch<T>{}; });
        registered = true;
    }
    // Queues hold up to every pixel, plus a group of padding and a vector of Compress slack.
    scratch.resize(pixels + group_pixels + lanes, padded_width);
    const TI dummy = TI(pixels);  // padding lanes scatter their results here
    const auto zero = hn::Zero(d);
    const auto lane_index = hn::Iota(di, TI(0));  // (Highway's integer Iota is a scalar loop: once)

    // Round 0: every pixel of the chunk, steps 1..32.
    Queue<T>* queue = &scratch.queue[0];
    queue->count = 0;
    int k_end = std::min(kFirstRoundSteps, job.max_iterations);
    const int interval = periodicity_interval(job.max_iterations);
    ColumnCoordinates<T>(job, padded_width, scratch.re.data());
    // The columns that can hold cardioid/bulb pixels (re increases with the column), found by
    // binary search: a linear scan would be a visible part of a full-view frame.
    const T* re_end = scratch.re.data() + job.width;
    const T* first = std::lower_bound(static_cast<const T*>(scratch.re.data()), re_end, kShapesMinRe,
                                      [](T a, double b) { return double(a) < b; });
    const T* last = std::upper_bound(first, re_end, kShapesMaxRe, [](double b, T a) { return b < double(a); });
    const size_t shapes_begin = size_t(first - scratch.re.data()), shapes_end = size_t(last - scratch.re.data());
    for (int row = 0; row < rows; ++row)
        RowCoordinates<T>(job, job.y + row, padded_width, scratch.re.data(), shapes_begin, shapes_end,
                          scratch.cr.data() + size_t(row) * padded_width);
    // Groups are tiles: the chunk's vector-wide blocks of pixels, taken column by column (all the
    // rows of one block, then the next block), kGroup at a time; with a multiple of kGroup rows
    // a group is one vector wide and kGroup rows high. Neighbours in a square-ish tile share their
    // fate (escape step) more often than the same number of pixels in one row, so fewer lanes
    // idle beside a slow one and round 0 runs fewer lane-steps than with strips of kGroup
    // vectors in a row.
    const size_t blocks = padded_width / lanes * size_t(rows);
    T row_ci[kMaxChunkRows<T>] = {};
    for (int row = 0; row < rows; ++row) row_ci[row] = T(job.grid.im(job.y + row));
    // A Julia set starts from z_0 = the pixel with c fixed; the parameter plane from z_0 = 0
    // with c = the pixel (formula_math.h). Padding lanes hold a NaN either way.
    const auto julia_cr = hn::Set(d, T(job.julia_re)), julia_ci = hn::Set(d, T(job.julia_im));
    int block_row = 0;   // the next block's row in the chunk
    size_t block_x = 0;  // and its first column
    for (size_t b = 0; b < blocks; b += kGroup) {
        Group<D> g;
        hn::Vec<decltype(di)> index[kGroup];
        size_t at[kGroup];
        for (int v = 0; v < kGroup; ++v) {
            const bool exists = b + v < blocks;
            at[v] = size_t(block_row) * padded_width + block_x;
            g.cr[v] = exists ? hn::LoadU(d, scratch.cr.data() + at[v]) : hn::Set(d, kDeadLane<T>);
            g.ci[v] = hn::Set(d, row_ci[block_row]);
            if (++block_row == rows) {
                block_row = 0;
                block_x += lanes;
            }
            g.zr[v] = g.zi[v] = g.zr2[v] = g.zi2[v] = g.sr[v] = g.si[v] = g.norm_out[v] = zero;
            g.k_out[v] = hn::Zero(di);
            g.done[v] = hn::IsNaN(g.cr[v]);
            if (job.julia) {
                g.zr[v] = g.cr[v];
                g.zi[v] = g.ci[v];
                g.zr2[v] = hn::Mul(g.zr[v], g.zr[v]);
                g.zi2[v] = hn::Mul(g.zi[v], g.zi[v]);
                g.cr[v] = hn::IfThenElse(g.done[v], g.cr[v], julia_cr);  // padding stays NaN
                g.ci[v] = julia_ci;
            }
            index[v] = hn::Add(lane_index, hn::Set(di, TI(at[v])));  // dead lanes are never queued
        }
        auto live = hn::Not(g.done[0]);
        for (int v = 1; v < kGroup; ++v) live = hn::Or(live, hn::Not(g.done[v]));
        // No repeat test before the first save (step 32, the end of this round): see
        // next_periodicity_save(). The save itself is made here for the survivors.
        const int k_reached = hn::AllFalse(d, live) ? 0 : IterateGroup<D, F, false, kFma>(d, g, 0, k_end, interval);
        if (kPeriodicity && k_reached == kPeriodicityFirstSave)
            for (int v = 0; v < kGroup; ++v) {
                g.sr[v] = g.zr[v];
                g.si[v] = g.zi[v];
            }
        FinishGroupRound(d, g, k_reached, job.max_iterations, index, queue);
        for (int v = 0; v < kGroup && b + v < blocks; ++v) {
            hn::StoreU(g.k_out[v], di, scratch.k.data() + at[v]);
            hn::StoreU(g.norm_out[v], d, scratch.norm.data() + at[v]);
        }
    }

    // Later rounds: the survivors, packed, for (k_end, 2 k_end] steps each round. Doubling keeps
    // the repacking of long-lived pixels (the interior of a view with the shortcuts off) to a
    // logarithm of the iterations; rounds of a fixed length would repack them over and over.
    for (int round = 1; queue->count > 0; ++round) {
        Queue<T>* next = &scratch.queue[round & 1];
        next->count = 0;
        const int k_begin = k_end;
        k_end = k_begin <= job.max_iterations / 2 ? 2 * k_begin : job.max_iterations;
        // Pad the queue to whole groups with lanes that have nothing to iterate (a saved value
        // of 0, not a NaN with the same bits as z, so that the repeat test never fires on them).
        for (size_t i = queue->count; i < (queue->count + group_pixels - 1) / group_pixels * group_pixels; ++i) {
            queue->cr[i] = queue->ci[i] = queue->zr[i] = queue->zi[i] = kDeadLane<T>;
            queue->sr[i] = queue->si[i] = T(0);
            queue->index[i] = dummy;
        }
        for (size_t i = 0; i < queue->count; i += group_pixels) {
            Group<D> g;
            hn::Vec<decltype(di)> index[kGroup];
            for (int v = 0; v < kGroup; ++v) {
                const size_t at = i + v * lanes;
                g.cr[v] = hn::LoadU(d, queue->cr.data() + at);
                g.ci[v] = hn::LoadU(d, queue->ci.data() + at);
                g.zr[v] = hn::LoadU(d, queue->zr.data() + at);
                g.zi[v] = hn::LoadU(d, queue->zi.data() + at);
                g.sr[v] = hn::LoadU(d, queue->sr.data() + at);
                g.si[v] = hn::LoadU(d, queue->si.data() + at);
                g.zr2[v] = hn::Mul(g.zr[v], g.zr[v]);
                g.zi2[v] = hn::Mul(g.zi[v], g.zi[v]);
                g.norm_out[v] = zero;
                g.k_out[v] = hn::Zero(di);
                g.done[v] = hn::IsNaN(g.cr[v]);
                index[v] = hn::LoadU(di, queue->index.data() + at);
            }
            const int k_reached = IterateGroup<D, F, kPeriodicity, kFma>(d, g, k_begin, k_end, interval);
            FinishGroupRound(d, g, k_reached, job.max_iterations, index, next);
            // Results of the lanes that finished go back to their pixels (a few per group:
            // scalar stores beat AVX-512 scatters, which write every lane).
            for (int v = 0; v < kGroup; ++v) {
                auto finished = k_reached >= job.max_iterations ? hn::Not(hn::IsNaN(g.cr[v]))
                                                                : hn::AndNot(hn::IsNaN(g.cr[v]), g.done[v]);
                if (hn::AllFalse(d, finished)) continue;
                HWY_ALIGN TI lane_k[HWY_MAX_BYTES / sizeof(T)];
                HWY_ALIGN TI lane_index_out[HWY_MAX_BYTES / sizeof(T)];
                HWY_ALIGN T lane_norm[HWY_MAX_BYTES / sizeof(T)];
                hn::Store(g.k_out[v], di, lane_k);
                hn::Store(index[v], di, lane_index_out);
                hn::Store(g.norm_out[v], d, lane_norm);
                uint8_t bit_bytes[8] = {};
                hn::StoreMaskBits(d, finished, bit_bytes);
                uint64_t bits = 0;
                std::memcpy(&bits, bit_bytes, sizeof(bits));
                for (; bits; bits &= bits - 1) {
                    const int lane = __builtin_ctzll(bits);
                    scratch.k[size_t(lane_index_out[lane])] = lane_k[lane];
                    scratch.norm[size_t(lane_index_out[lane])] = lane_norm[lane];
                }
            }
        }
        queue = next;
    }

    uint64_t iterations = 0, escaped = 0;
    for (int row = 0; row < rows; ++row) {
        const size_t at = size_t(row) * padded_width;
        RowSmoothValues<T>(job, padded_width, scratch.k.data() + at, scratch.norm.data() + at, scratch.mu.data(),
                           &iterations, &escaped);
        std::copy(scratch.mu.data(), scratch.mu.data() + job.width, job.mu_out + size_t(row) * size_t(job.mu_stride));
    }
    result->iterations += iterations;
    result->escaped_pixels += escaped;
}

// The formula is a template parameter of the whole chunk (one switch per chunk, none per step).
// The fused form is Mandelbrot's only.
template <typename T, Formula F>
void RenderChunkFormula(const ChunkJob& job, int rows, RowJobsResult* result) {
    using D = hn::ScalableTag<T>;
    const D d;
    if (F == Formula::Mandelbrot && job.fused_multiply_add) {
        if (job.periodicity) RenderChunkImpl<D, F, true, F == Formula::Mandelbrot>(d, job, rows, result);
        else RenderChunkImpl<D, F, false, F == Formula::Mandelbrot>(d, job, rows, result);
    } else {
        if (job.periodicity) RenderChunkImpl<D, F, true, false>(d, job, rows, result);
        else RenderChunkImpl<D, F, false, false>(d, job, rows, result);
    }
}

template <typename T>
void RenderChunk(const ChunkJob& job, int rows, RowJobsResult* result) {
    switch (job.formula) {
    case Formula::Mandelbrot: return RenderChunkFormula<T, Formula::Mandelbrot>(job, rows, result);
    case Formula::Multibrot3: return RenderChunkFormula<T, Formula::Multibrot3>(job, rows, result);
    case Formula::Multibrot4: return RenderChunkFormula<T, Formula::Multibrot4>(job, rows, result);
    case Formula::Multibrot5: return RenderChunkFormula<T, Formula::Multibrot5>(job, rows, result);
    case Formula::Multibrot6: return RenderChunkFormula<T, Formula::Multibrot6>(job, rows, result);
    case Formula::Multibrot7: return RenderChunkFormula<T, Formula::Multibrot7>(job, rows, result);
    case Formula::Multibrot8: return RenderChunkFormula<T, Formula::Multibrot8>(job, rows, result);
    case Formula::BurningShip: return RenderChunkFormula<T, Formula::BurningShip>(job, rows, result);
    case Formula::Tricorn: return RenderChunkFormula<T, Formula::Tricorn>(job, rows, result);
    }
}

void RenderChunkF32(const ChunkJob& job, int rows, RowJobsResult* result) { RenderChunk<float>(job, rows, result); }
void RenderChunkF64(const ChunkJob& job, int rows, RowJobsResult* result) { RenderChunk<double>(job, rows, result); }
const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace ms::cpu_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE

namespace ms {

namespace cpu_simd {
HWY_EXPORT(RenderChunkF32);
HWY_EXPORT(RenderChunkF64);
HWY_EXPORT(TargetName);
}  // namespace cpu_simd

std::string direct_cpu_simd_target() { return HWY_DYNAMIC_DISPATCH(cpu_simd::TargetName)(); }

void release_cpu_render_scratch() {
#pragma omp parallel
    {
        for (const auto& release : cpu_simd::scratch_releasers) release();
    }
}

namespace {

// What this binary has code for and this CPU runs, best first. Listed once, before any
// direct_cpu_use_simd_target() narrows Highway's view of the CPU.
const std::vector<int64_t>& available_targets() {
    static const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
    return targets;
}

}  // namespace

std::vector<std::string> direct_cpu_simd_targets() {
    std::vector<std::string> names;
    for (int64_t target : available_targets()) names.push_back(hwy::TargetName(target));
    return names;
}

bool direct_cpu_use_simd_target(const std::string& name) {
    int64_t chosen = 0;
    if (!name.empty()) {
        for (int64_t target : available_targets())
            if (name == hwy::TargetName(target)) chosen = target;
        if (!chosen) return false;
    }
    hwy::SetSupportedTargetsForTest(chosen);  // 0: back to what the CPU supports
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    return true;
}

FrameStats direct_cpu(const View& view, Precision precision, const Shortcuts& shortcuts, PixelRect rect, float* mu_out,
                      const CpuRenderControl& control) {
    const CpuFrameSetup frame = setup_cpu_frame(view, precision, shortcuts, rect);
    cpu_simd::ChunkJob base{frame.job};
    const SmoothConstants smooth = formula_smooth_constants(view.formula);
    base.mu_constant = float(smooth.mu_constant);
    base.log_scale = float(smooth.mu_scale / std::log(2.0));
    base.bailout_squared = formula_bailout_radius(view.formula) * formula_bailout_radius(view.formula);
    base.fused_multiply_add = control.fused_multiply_add;
    const bool fp32 = frame.precision == Precision::Fp32;
    auto* render_chunk = fp32 ? HWY_DYNAMIC_DISPATCH(cpu_simd::RenderChunkF32)
                              : HWY_DYNAMIC_DISPATCH(cpu_simd::RenderChunkF64);

    // Jobs of a few rows (kMaxChunkRows at most): enough pixels per job for the rounds to pack
    // survivors densely, and enough jobs (16 per thread) for the dynamic schedule to even out
    // rows that differ wildly in cost.
    const int width = frame.rect.width;
    const int rows_per_job = std::clamp(frame.rect.height / (16 * std::max(1, omp_get_max_threads())), 1,
                                        fp32 ? cpu_simd::kMaxChunkRows<float> : cpu_simd::kMaxChunkRows<double>);
    return run_cpu_row_jobs(frame, rows_per_job, control, [&](int row, int rows, RowJobsResult* counts) {
        cpu_simd::ChunkJob job = base;
        job.y = frame.rect.y + row;
        job.mu_out = mu_out + size_t(row) * size_t(width);
        job.mu_stride = width;
        render_chunk(job, rows, counts);
    });
}

}  // namespace ms

#endif  // HWY_ONCE
