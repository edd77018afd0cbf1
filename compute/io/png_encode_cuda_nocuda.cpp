// png_encode_cuda_nocuda.cpp: the GPU's PNG encoder in a build without CUDA: constructing one
// says why it cannot run (callers fall back to the CPU encoder). The host emulation
// (png_deflate_parallel.cpp) is built either way.
#include <stdexcept>

#include "compute/io/png_encode_cuda.h"

namespace ms {

struct PngCudaEncoder::Impl {};

PngCudaEncoder::PngCudaEncoder(int) { throw std::runtime_error("this build has no CUDA"); }
PngCudaEncoder::~PngCudaEncoder() = default;
uint8_t* PngCudaEncoder::device_rows(int, size_t) { throw std::runtime_error("this build has no CUDA"); }
uint8_t* PngCudaEncoder::upload_rows(int, const uint8_t*, size_t) {
    throw std::runtime_error("this build has no CUDA");
}
const PngCudaEncoded& PngCudaEncoder::encode_rows_device(const uint8_t*, int) {
    throw std::runtime_error("this build has no CUDA");
}
PngCudaCopyStats PngCudaEncoder::copy_stats() const { return {}; }

}  // namespace ms
