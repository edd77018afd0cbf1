// deep_square_cuda_nocuda.cpp: the CPU-only build's GPU squarings: they say why they cannot run.
#include <stdexcept>

#include "compute/fractal/deep/deep_square_cuda.h"

namespace ms {

namespace {
[[noreturn]] void no_cuda() {
    throw std::runtime_error(
        "The GPU squarings are not available: this Mandelscope was built without CUDA (no nvcc at build time).");
}
}  // namespace

GpuSquaringChain gpu_squaring_chain(const std::vector<uint32_t>&, int) { no_cuda(); }
GpuSquaringChain gpu_squaring_chain_grid(const std::vector<uint32_t>&, int) { no_cuda(); }
double gpu_grid_barrier_us(int) { no_cuda(); }

}  // namespace ms
