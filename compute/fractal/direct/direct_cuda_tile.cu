// direct_cuda_tile.cu: phase 1 of the CUDA Mandelbrot frame, the tile pass
// (direct_kernel), and the naive one-pixel-per-thread baseline it is measured against.
// Pixels still running after the first S iterations go to the survivors' queue, which
// direct_cuda_survivors.cu works through. See direct_cuda.cu for the whole design.
#include <cmath>
#include <type_traits>

#include "compute/fractal/direct/direct_cuda_kernels-inl.h"

namespace ms::direct_cuda_detail {

namespace {

// Phase 1, the tile kernel: one block per 32 x (8 * rounds) tile, each warp an 8x4 sub-tile per
// round (neighbours share their fate), S iterations per pixel tested one by one. Escaped and
// interior pixels are written; the survivors are gathered in shared memory and appended to the
// global queue with one atomic per block (coalesced copy).
// F: the formula (compile time). Other formulas than Mandelbrot may use up to 64 registers (4
// blocks per SM): z^d keeps more temporaries alive, and spills would cost more than occupancy.
// kFeatures = kFeatureDistance: the derivative rides along (direct_cuda_kernels-inl.h), an
// escaped pixel gets its distance here and a survivor's derivative goes to the queue; kColour and
// kMu are then 0 and true (write_distance_pixel tests its outputs). The derivative's registers
// (2 or 4 more T) do not fit Mandelbrot's 32 (ptxas: 36 to 96 bytes of spills in FP64): the
// tightest bounds without spills for every formula are 40 registers in FP32 (6 blocks per SM)
// and 48 in FP64 (5).
template <typename T, unsigned kFeatures>
constexpr int tile_blocks_per_sm(Formula f) {
    if constexpr (kFeatures != 0) return sizeof(T) == 4 ? 6 : 5;
    else return f == Formula::Mandelbrot ? 8 : 4;  // Mandelbrot: <= 32 registers, full occupancy
}

template <Formula F, typename T, bool kFused, int kColour, bool kMu, unsigned kFeatures = 0>
__global__ void __launch_bounds__(kBlockThreads, tile_blocks_per_sm<T, kFeatures>(F)) direct_kernel(KernelParams p) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    __shared__ int queue_count, queue_base;
    const int tile_height = kRoundHeight * p.tile_rounds;
    const int capacity = kTileWidth * tile_height;
    T* tile_cr = reinterpret_cast<T*>(shared_bytes);  // kTileWidth
    T* tile_ci = tile_cr + kTileWidth;                // tile_height
    T* queue_zr = tile_ci + tile_height;              // capacity
    T* queue_zi = queue_zr + capacity;                // capacity
    unsigned short* queue_pixel = reinterpret_cast<unsigned short*>(queue_zi + capacity);

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int tile_x = blockIdx.x * kTileWidth, tile_y = blockIdx.y * tile_height;
    const T bailout_squared = T(formula_bailout_radius(F) * formula_bailout_radius(F));
    // A Julia set's c (the same for every pixel); its pixels are z_0.
    const T julia_cr = T(p.julia_re), julia_ci = T(p.julia_im);

    // Pixel centres of the tile's columns and rows, computed once (in double, as PixelGrid does
    // on the host, then rounded to T like the reference).
    if (threadIdx.x < kTileWidth) tile_cr[threadIdx.x] = T(p.grid.re(p.rect_x + tile_x + int(threadIdx.x)));
    else if (threadIdx.x < kTileWidth + tile_height)
        tile_ci[threadIdx.x - kTileWidth] = T(p.grid.im(p.rect_y + tile_y + int(threadIdx.x) - kTileWidth));
    if (threadIdx.x == 0) queue_count = 0;
    __syncthreads();

    // This thread's column and first row; each round moves down 8 rows. live_rows: the tile's
    // rows inside the rectangle, none where the column is outside it (one test per round).
    const int col = (warp & 3) * 8 + (lane & 7);
    const T cr = tile_cr[col];
    const int live_rows = tile_x + col < p.rect_width ? min(tile_height, p.rect_height - tile_y) : 0;
    const int first = p.first_phase_iterations;
    // The skip below is proven for Mandelbrot's parameter plane only.
    const bool may_skip = F == Formula::Mandelbrot && !p.julia && first >= 3;
    unsigned iterations = 0, escaped_pixels = 0;  // at most 8 rounds x S each: fits easily
    int row = (warp >> 2) * 4 + (lane >> 3);
    unsigned offset = unsigned(tile_y + row) * unsigned(p.rect_width) + unsigned(tile_x + col);
    for (int round = 0; round < p.tile_rounds; ++round) {
        bool survivor = false;
        Orbit<T> o;
        Derivative<T> d;  // kFeatures only
        if (row < live_rows) {
            const T ci = tile_ci[row];
            float mu = kInteriorMu, distance = 0.0f;
            if (!(F == Formula::Mandelbrot && p.cardioid_bulb &&
                  known_interior(cr, ci))) {  // else interior, 0 iterations
                // z_1 = c (the reference's 0*0 - 0*0 + c has the same value, for every
                // formula: f(0) = 0), so k starts at 1. A Julia set starts from z_0 = the pixel
                // with c fixed, at k = 0 and with no escape test before the first step (n = 0).
                // Selected here, once, so both sets share the loops below (one copy of each).
                const T c_re = p.julia ? julia_cr : cr, c_im = p.julia ? julia_ci : ci;
                o = orbit_at(cr, ci);
                if constexpr (kFeatures != 0) d = derivative_start<F, T>(p.julia);
                int k = p.julia ? 0 : 1;
                T n = p.julia ? T(0) : norm<F, T, kFused>(o);
                bool escaped;
                if (may_skip && n <= T(12)) {
                    // |c|^2 <= 12: |z_2| <= 15.5 and |z_3| <= 243 < 256, so steps 1 to 3 cannot
                    // escape (a 5% margin, far above rounding): no test for them.
                    step<F, T, kFused, kFeatures>(o, d, c_re, c_im);
                    step<F, T, kFused, kFeatures>(o, d, c_re, c_im);
                    k = 3;
                    escaped = iterate_checked<F, T, kFused, kFeatures>(o, d, c_re, c_im, k, first, n);
                } else {
                    escaped = n > bailout_squared ||
                              iterate_checked<F, T, kFused, kFeatures>(o, d, c_re, c_im, k, first, n);
                }
                if (escaped) {
                    mu = fast_smooth_mu<F>(p, k, n);
                    if constexpr (kFeatures != 0) distance = escaped_distance<F>(p, o, d, n);
                    iterations += unsigned(k);
                    ++escaped_pixels;
                } else if (k >= p.max_iterations) {
                    iterations += unsigned(k);
                } else {
                    survivor = true;
                }
            }
            // One write for every pixel finished here (a single store per warp and round).
            if constexpr (kFeatures != 0) {
                if (!survivor) {
                    write_distance_pixel(p, offset, mu, distance);
                } else {
                    // A survivor's derivative, straight to its pixel's slot (not staged in shared memory).
                    static_cast<T*>(p.queue_dzr)[offset] = d.dzr;
                    static_cast<T*>(p.queue_dzi)[offset] = d.dzi;
                    if constexpr (!formula_is_holomorphic(F)) {
                        static_cast<T*>(p.queue_dxr)[offset] = d.dxr;
                        static_cast<T*>(p.queue_dxi)[offset] = d.dxi;
                    }
                }
            } else {
                if (!survivor) write_pixel_at<kColour, kMu>(p, offset, mu);
            }
        }
        // Queue the survivors in shared memory, one shared atomic per warp.
        const unsigned survivors = __ballot_sync(kFullMask, survivor);
        if (survivors) {
            int base = 0;
            if (lane == 0) base = atomicAdd(&queue_count, __popc(survivors));
            base = __shfl_sync(kFullMask, base, 0);
            if (survivor) {
                const int slot = base + __popc(survivors & lanemask_lt());
                queue_pixel[slot] = (unsigned short)(row * kTileWidth + col);
                queue_zr[slot] = o.zr;
                queue_zi[slot] = o.zi;
            }
        }
        row += kRoundHeight;
        offset += unsigned(p.rect_width) * kRoundHeight;
    }
    LaneStats stats;
    stats.iterations = iterations;
    stats.escaped = escaped_pixels;
    __syncthreads();
    // Append them to the global queue: one global atomic per block, then a coalesced copy (c
    // comes from the tile's tables, so phase 2 neither divides nor recomputes it).
    const int count = queue_count;
    if (count > 0) {
        if (threadIdx.x == 0) queue_base = atomicAdd(p.queue_count, count);
        __syncthreads();
        const int base = queue_base;
        for (int i = threadIdx.x; i < count; i += kBlockThreads) {
            const int pixel = queue_pixel[i];
            const int pixel_row = pixel >> 5, pixel_col = pixel & (kTileWidth - 1);
            const int entry = base + i;
            p.queue_pixel[entry] = (tile_y + pixel_row) * p.rect_width + tile_x + pixel_col;
            static_cast<T*>(p.queue_cr)[entry] = p.julia ? julia_cr : tile_cr[pixel_col];
            static_cast<T*>(p.queue_ci)[entry] = p.julia ? julia_ci : tile_ci[pixel_row];
            static_cast<T*>(p.queue_zr)[entry] = queue_zr[i];
            static_cast<T*>(p.queue_zi)[entry] = queue_zi[i];
        }
    }
    flush_stats<true>(p, stats, threadIdx.x, kBlockThreads);
}

// Phase 2, the survivors kernel: a persistent grid shares the queue out. Each warp takes chunks
// of kChunk entries (one global atomic per chunk) and refills a lane as soon as its pixel is done,
// so long-lived pixels are packed into full warps spread over every SM, instead of one block
// working through its own tile's survivors while the rest of the GPU idles. Survivors run blocks
// of N steps with one escape test; on escape the lane goes back to the block's start and repeats
// it step by step, so k stays exact. Periodicity (Brent) compares z with a saved value at the end
// of every block and saves z after 1, 2, 4, 8... blocks. An orbit that repeats exactly is periodic
// in this arithmetic, so the pixel never escapes: the reference, which compares every step, marks
// it interior too. Comparing only every N steps finds the same orbits (once the save interval
// exceeds lcm(period, N)), a few blocks later; only the iteration statistic differs.

template <typename T>
__global__ void direct_naive_kernel(KernelParams p) {
    const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    LaneStats stats;
    if (x < p.rect_width && y < p.rect_height) {
        const T cr = T(p.grid.re(p.rect_x + x)), ci = T(p.grid.im(p.rect_y + y));
        const T bailout_squared = T(kBailoutRadius * kBailoutRadius);
        T zr = 0, zi = 0;
        float mu = kInteriorMu;
        int k = 1;
        for (; k <= p.max_iterations; ++k) {
            T new_zr = fused(zr, zr, -(zi * zi)) + cr;
            zi = fused(T(2) * zr, zi, ci);
            zr = new_zr;
            T n = fused(zr, zr, zi * zi);
            if (n > bailout_squared) {
                mu = fast_smooth_mu(p, k, n);
                ++stats.escaped;
                break;
            }
        }
        stats.iterations = unsigned(k > p.max_iterations ? p.max_iterations : k);
        write_pixel(p, size_t(y) * size_t(p.rect_width) + size_t(x), mu);
    }
    flush_stats(p, stats, threadIdx.y * 16 + threadIdx.x, 256);
}

// Whether every palette position of the frame stays below 2^19 entries, where colour_of's float
// path is exact enough: mu < max_iterations (fast_smooth_mu subtracts log2(log2 |z|^2) > 4), with
// a margin for the float rounding of mu and of the bound itself.
bool positions_fit_float(const KernelParams& p) {
    return double(p.max_iterations) * std::fabs(p.palette_scale) + p.palette_offset < 0.99 * 524288.0;
}

}  // namespace

template <typename T>
void launch_naive_kernel(const KernelParams& p) {
    dim3 grid((p.rect_width + 15) / 16, (p.rect_height + 15) / 16);
    direct_naive_kernel<T><<<grid, dim3(16, 16)>>>(p);
    CUDA_CHECK_LAUNCH();
}

template <typename T, unsigned kFeatures>
void launch_tile_pass(const KernelParams& p, Formula formula, bool fused_multiply_add) {
    const int tile_height = kRoundHeight * p.tile_rounds;
    const int capacity = kTileWidth * tile_height;
    const size_t shared_bytes = sizeof(T) * (kTileWidth + tile_height + 2 * size_t(capacity)) +
                                sizeof(unsigned short) * capacity;
    const dim3 grid((p.rect_width + kTileWidth - 1) / kTileWidth, (p.rect_height + tile_height - 1) / tile_height);
    auto tile = [&](auto formula_tag, auto fused_tag) {
        constexpr Formula F = decltype(formula_tag)::value;
        constexpr bool kFused = decltype(fused_tag)::value;
        if constexpr (kFeatures != 0) {
            // The distance instantiation: its outputs are tested per pixel (write_distance_pixel).
            // Mandelbrot's on a Julia set adds nothing to its scaled derivative (kFeatureJuliaSet).
            constexpr unsigned kJulia = F == Formula::Mandelbrot ? kFeatures | kFeatureJuliaSet : kFeatures;
            if (p.julia) direct_kernel<F, T, kFused, 0, true, kJulia><<<grid, kBlockThreads, shared_bytes>>>(p);
            else direct_kernel<F, T, kFused, 0, true, kFeatures><<<grid, kBlockThreads, shared_bytes>>>(p);
        } else {
            auto go = [&](auto colour_tag) {
                constexpr int kColour = decltype(colour_tag)::value;
                if (p.mu) direct_kernel<F, T, kFused, kColour, true><<<grid, kBlockThreads, shared_bytes>>>(p);
                else direct_kernel<F, T, kFused, kColour, false><<<grid, kBlockThreads, shared_bytes>>>(p);
            };
            if (!p.rgba) go(std::integral_constant<int, 0>{});
            else if (positions_fit_float(p)) go(std::integral_constant<int, 1>{});
            else go(std::integral_constant<int, 2>{});
        }
    };
    // The fused form is Mandelbrot's only (the host refuses it for the others).
    with_formula(formula, [&](auto formula_tag) {
        if constexpr (decltype(formula_tag)::value == Formula::Mandelbrot && kFeatures == 0) {
            if (fused_multiply_add) tile(formula_tag, std::true_type{});
            else tile(formula_tag, std::false_type{});
        } else {
            tile(formula_tag, std::false_type{});
        }
    });
    CUDA_CHECK_LAUNCH();
}

template void launch_naive_kernel<float>(const KernelParams&);
template void launch_naive_kernel<double>(const KernelParams&);
template void launch_tile_pass<float, 0>(const KernelParams&, Formula, bool);
template void launch_tile_pass<double, 0>(const KernelParams&, Formula, bool);
template void launch_tile_pass<float, kFeatureDistance>(const KernelParams&, Formula, bool);
template void launch_tile_pass<double, kFeatureDistance>(const KernelParams&, Formula, bool);

}  // namespace ms::direct_cuda_detail
