// direct_cuda_tuning.h: the knobs of the CUDA Mandelbrot kernels, for tests and benchmarks
// that compare variants (the renderer itself calls direct_cuda, which uses the defaults).
// Every variant computes the same picture; they differ only in speed (and `fused_multiply_add`
// in the last bit of some orbits: see direct_cuda.cu).
#pragma once

#include "compute/fractal/direct/direct.h"

namespace ms {

struct CudaTuning {
    bool naive = false;               // baseline: one pixel per thread, escape test every iteration
    bool fused_multiply_add = false;  // x^2 - y^2 with one FMA (one instruction less per iteration)
                                      // instead of the reference's separately rounded products
    int block_steps = 32;             // N: iterations between escape tests in the second phase (8, 16, 32)
    int first_phase_iterations = 64;  // S: iterations every pixel gets in the tile kernel, tested one
                                      // by one, before the survivors are queued for the GPU-wide phase 2
    int tile_rounds = 4;              // a block renders a 32 x (8 * tile_rounds) pixel tile (1..8)
    int service_batch = 8;            // phase 2: lanes that wait for the finish/refill path (1..32)
    int survivor_blocks_per_sm = 0;   // phase 2's persistent grid: blocks per SM (0: as many as fit)
};

// The tuning direct_cuda uses for a precision (Fp32 or Fp64).
CudaTuning default_cuda_tuning(Precision precision);

// direct_cuda and direct_cuda_to_host with explicit knobs; throw std::invalid_argument
// for knobs out of range.
FrameStats direct_cuda_tuned(const View& view, Precision precision, const Shortcuts& shortcuts,
                             const PaletteTable& palette, PixelRect rect, uint8_t* rgba_device, float* mu_device,
                             const CudaTuning& tuning);
FrameStats direct_cuda_tuned_to_host(const View& view, Precision precision, const Shortcuts& shortcuts,
                                     const PaletteTable& palette, PixelRect rect, uint8_t* rgba_host, float* mu_host,
                                     const CudaTuning& tuning);

}  // namespace ms
