// direct_cuda_survivors.cu: phase 2 of the CUDA Mandelbrot frame. A persistent grid works
// through the queue of pixels that survived the tile pass (direct_cuda_tile.cu), refilling
// a lane as soon as its pixel is done. See direct_cuda.cu for the whole design.
#include <algorithm>
#include <atomic>
#include <type_traits>

#include "compute/fractal/direct/direct_cuda_kernels-inl.h"

namespace ms::direct_cuda_detail {

namespace {

constexpr int kChunk = 32;

// kFeatures = kFeatureDistance: the derivative comes from the queue (by pixel), runs beside z
// through the blocks and their redo, and an escaped pixel's distance is finished here.
// The minimum of resident blocks that the launch bounds name, which sets ptxas's register budget:
// none (0: nvcc then writes no .minnctapersm, as for bounds without it) for the smooth kernels, and
// 1 for the distance instantiation. There the FP64 kernel takes 107 registers (2 blocks an SM, no
// spills) instead of the 61 that ptxas chooses unbounded, and runs faster, its loop being bound by
// the FP64 pipe; the FP32 one is faster too (see docs/performance.md). At 6 blocks (40 registers,
// with spills) the FP32 kernel is slower.
template <unsigned kFeatures>
constexpr int survivors_min_blocks() {
    return kFeatures != 0 ? 1 : 0;
}

template <Formula F, typename T, bool kFused, int kBlockSteps, bool kPeriodicity, unsigned kFeatures = 0>
__global__ void __launch_bounds__(kBlockThreads, survivors_min_blocks<kFeatures>())
    direct_survivors_kernel(KernelParams p) {
    const int lane = threadIdx.x & 31;
    const T bailout_squared = T(formula_bailout_radius(F) * formula_bailout_radius(F));
    const int max_iterations = p.max_iterations;
    const int queued = *p.queue_count;  // written by the tile kernel, which has finished
    LaneStats stats;
    if (queued > 0) {
        bool drained = false;               // warp-uniform: the queue has no entries left
        int chunk_next = 0, chunk_end = 0;  // warp-uniform: this warp's entries to hand out
        bool have = false;
        unsigned have_mask = 0;  // warp-uniform: the lanes that hold a pixel
        int pixel = 0, k = 0;
        T cr = 0, ci = 0;
        Orbit<T> o;
        T saved_zr = 0, saved_zi = 0;
        int blocks = 0, next_save = 1;
        // The derivative (kFeatures only): an empty struct in the smooth kernel, whose code is then
        // the same as without it, instruction for instruction.
        std::conditional_t<kFeatures != 0, Derivative<T>, NoDerivative> d;
        for (;;) {
            // Refill the idle lanes from the warp's chunk, taking new chunks as needed.
            unsigned need = drained ? 0u : ~have_mask;
            while (need) {
                if (chunk_next >= chunk_end) {
                    int start = 0;
                    if (lane == 0) start = atomicAdd(p.queue_head, kChunk);
                    start = __shfl_sync(kFullMask, start, 0);
                    if (start >= queued) {
                        drained = true;
                        break;
                    }
                    chunk_next = start;
                    chunk_end = min(start + kChunk, queued);
                }
                const int available = chunk_end - chunk_next;
                const int rank = __popc(need & lanemask_lt());
                if (((need >> lane) & 1u) && rank < available) {
                    const int entry = chunk_next + rank;
                    pixel = p.queue_pixel[entry];
                    cr = static_cast<const T*>(p.queue_cr)[entry];
                    ci = static_cast<const T*>(p.queue_ci)[entry];
                    o = orbit_at(static_cast<const T*>(p.queue_zr)[entry], static_cast<const T*>(p.queue_zi)[entry]);
                    k = p.first_phase_iterations;
                    if constexpr (kFeatures != 0) {
                        d.dzr = static_cast<const T*>(p.queue_dzr)[pixel];
                        d.dzi = static_cast<const T*>(p.queue_dzi)[pixel];
                        if constexpr (!formula_is_holomorphic(F)) {
                            d.dxr = static_cast<const T*>(p.queue_dxr)[pixel];
                            d.dxi = static_cast<const T*>(p.queue_dxi)[pixel];
                        }
                        d.one = p.julia ? T(0) : T(1);
                    }
                    saved_zr = o.zr;
                    saved_zi = o.zi;
                    blocks = 0;
                    next_save = 1;
                    have = true;
                }
                chunk_next += min(__popc(need), available);
                have_mask = __ballot_sync(kFullMask, have);
                need = chunk_next < chunk_end ? 0u : ~have_mask;  // else every idle lane got one
            }
            if (have_mask == 0) break;

            // Blocks of N steps. A lane that needs attention (its block escaped, fewer than N
            // iterations left, or its orbit repeated) waits until p.service_batch lanes do (idle
            // lanes that a refill could serve count too), or no lane is still running: the finish
            // and refill paths below then run once for several lanes instead of once per lane,
            // which is most of phase 2's cost on boundary pixels.
            const int idle = drained ? 0 : 32 - __popc(have_mask);
            bool finish = false, periodic = false;
            for (;;) {
                if (have && !finish && !periodic) {
                    if (k > max_iterations - kBlockSteps) {
                        finish = true;  // fewer than N steps left: go one by one
                    } else {
                        const Orbit<T> start = o;  // register copies: no FP64-pipe work
                        const auto d_start = d;
#pragma unroll
                        for (int j = 0; j < kBlockSteps; ++j) {
                            if constexpr (kScaledDerivative<F, kFeatures>) {
                                scaled_derivative_step<T, kFeatures>(d, o.zr, o.zi, j);
                                step<F, T, kFused>(o, cr, ci);
                            } else if constexpr (kFeatures != 0) {
                                step<F, T, kFused, kFeatures>(o, d, cr, ci);
                            } else {
                                step<F, T, kFused>(o, cr, ci);
                            }
                        }
                        if constexpr (kScaledDerivative<F, kFeatures>) unscale_derivative(d, kBlockSteps);
                        if (!(norm<F, T, kFused>(o) <= bailout_squared)) {  // also catches NaN
                            o = start;
                            if constexpr (kFeatures != 0) d = d_start;
                            finish = true;
                        } else {
                            k += kBlockSteps;
                            if constexpr (kPeriodicity) {
                                if (o.zr == saved_zr && o.zi == saved_zi) {
                                    periodic = true;
                                } else if (++blocks == next_save) {
                                    saved_zr = o.zr;
                                    saved_zi = o.zi;
                                    next_save *= 2;
                                }
                            }
                        }
                    }
                }
                const unsigned waiting = __ballot_sync(kFullMask, finish || periodic);
                if (waiting == have_mask || __popc(waiting) + idle >= p.service_batch) break;
            }

            // The service: the lanes whose block escaped repeat it step by step (or go one by one
            // to max_iterations). Its exits differ per lane, so the warp meets again before the
            // lanes that are done colour and write their pixels together.
            T n = 0;
            bool escaped = false;
            if (finish) {
                // After a block that escaped this finds the exact escape step, since it repeats
                // the same operations.
                const int limit = k > max_iterations - kBlockSteps ? max_iterations : k + kBlockSteps;
                if constexpr (kFeatures != 0)
                    escaped = iterate_checked<F, T, kFused, kFeatures>(o, d, cr, ci, k, limit, n);
                else escaped = iterate_checked<F, T, kFused>(o, cr, ci, k, limit, n);
            }
            __syncwarp();
            // Done: periodic, escaped, or at max_iterations. (A block that escaped always escapes
            // in its redo, so a finishing lane that did not escape is at max_iterations.)
            if (periodic || escaped || (finish && k >= max_iterations)) {
                stats.iterations += unsigned(k);
                stats.escaped += escaped ? 1u : 0u;
                if constexpr (kFeatures != 0)
                    write_distance_pixel(p, size_t(pixel), escaped ? fast_smooth_mu<F>(p, k, n) : kInteriorMu,
                                         escaped ? escaped_distance<F>(p, o, d, n) : 0.0f);
                else write_pixel(p, size_t(pixel), escaped ? fast_smooth_mu<F>(p, k, n) : kInteriorMu);
                have = false;
            }
            have_mask = __ballot_sync(kFullMask, have);
        }
    }
    flush_stats(p, stats, threadIdx.x, kBlockThreads);
}

// The baseline: one pixel per thread in 16x16 blocks, the escape test every iteration, written
// the way nvcc contracts the reference's expressions by default. The tile kernel is measured
// against it (CudaTuning::naive); same output and statistics (no shortcuts).

// The survivors kernel runs as a persistent grid: as many blocks as fit on the GPU at once.
// (tuning.survivor_blocks_per_sm, if set and lower, caps it: fewer lanes each take more pixels).
template <Formula F, typename T, bool kFused, int kBlockSteps, bool kPeriodicity, unsigned kFeatures>
void launch_survivors_kernel(const KernelParams& p, const CudaTuning& tuning, int sm_count) {
    auto kernel = direct_survivors_kernel<F, T, kFused, kBlockSteps, kPeriodicity, kFeatures>;
    // Per instantiation, the same on every device we run on; threads on several devices may ask
    // at once and store the same answer.
    static std::atomic<int> known{0};
    int blocks_per_sm = known.load(std::memory_order_relaxed);
    if (blocks_per_sm == 0) {
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kBlockThreads, 0));
        blocks_per_sm = std::max(blocks_per_sm, 1);
        known.store(blocks_per_sm, std::memory_order_relaxed);
    }
    const int cap = tuning.survivor_blocks_per_sm;
    kernel<<<sm_count*(cap > 0 ? std::min(cap, blocks_per_sm) : blocks_per_sm), kBlockThreads>>>(p);
}

// Mandelbrot: every N of the tuning. The other formulas and the distance instantiation: N = 32
// only, the default (fewer kernels to compile; N is a knob for tuning Mandelbrot).
template <Formula F, typename T, bool kFused, unsigned kFeatures>
void launch_survivors_kernel(const KernelParams& p, const CudaTuning& tuning, bool periodicity, int sm_count) {
    auto go = [&](auto steps_tag) {
        constexpr int kSteps = decltype(steps_tag)::value;
        if (periodicity) launch_survivors_kernel<F, T, kFused, kSteps, true, kFeatures>(p, tuning, sm_count);
        else launch_survivors_kernel<F, T, kFused, kSteps, false, kFeatures>(p, tuning, sm_count);
    };
    if constexpr (F != Formula::Mandelbrot || kFeatures != 0) {
        go(std::integral_constant<int, 32>{});
    } else {
        switch (tuning.block_steps) {
        case 8: go(std::integral_constant<int, 8>{}); break;
        case 16: go(std::integral_constant<int, 16>{}); break;
        default: go(std::integral_constant<int, 32>{}); break;
        }
    }
}

}  // namespace

template <typename T, unsigned kFeatures>
void launch_survivors_pass(const KernelParams& p, Formula formula, const CudaTuning& tuning, bool periodicity,
                           int sm_count) {
    with_formula(formula, [&](auto formula_tag) {
        constexpr Formula F = decltype(formula_tag)::value;
        if constexpr (F == Formula::Mandelbrot && kFeatures == 0) {
            if (tuning.fused_multiply_add) launch_survivors_kernel<F, T, true, 0>(p, tuning, periodicity, sm_count);
            else launch_survivors_kernel<F, T, false, 0>(p, tuning, periodicity, sm_count);
        } else if constexpr (F == Formula::Mandelbrot) {
            if (p.julia)
                launch_survivors_kernel<F, T, false, kFeatures | kFeatureJuliaSet>(p, tuning, periodicity, sm_count);
            else launch_survivors_kernel<F, T, false, kFeatures>(p, tuning, periodicity, sm_count);
        } else {
            launch_survivors_kernel<F, T, false, kFeatures>(p, tuning, periodicity, sm_count);
        }
    });
    CUDA_CHECK_LAUNCH();
}

template void launch_survivors_pass<float, 0>(const KernelParams&, Formula, const CudaTuning&, bool, int);
template void launch_survivors_pass<double, 0>(const KernelParams&, Formula, const CudaTuning&, bool, int);
template void launch_survivors_pass<float, kFeatureDistance>(const KernelParams&, Formula, const CudaTuning&, bool,
                                                             int);
template void launch_survivors_pass<double, kFeatureDistance>(const KernelParams&, Formula, const CudaTuning&, bool,
                                                              int);

}  // namespace ms::direct_cuda_detail
