// cuda_interop_nocuda.cpp: the CPU-only build's CUDA-GL sharing: it says why it cannot work.
#include <stdexcept>

#include "render/frame/cuda_interop.h"

namespace ms {

namespace {
[[noreturn]] void no_cuda() {
    throw std::runtime_error("this Mandelscope was built without CUDA (no nvcc at build time)");
}
}  // namespace

CudaGlBuffer cuda_register_gl_buffer(unsigned int) { no_cuda(); }
void cuda_unregister_gl_buffer(CudaGlBuffer& buffer) { buffer.resource = nullptr; }
uint8_t* cuda_map_gl_buffer(CudaGlBuffer&, std::size_t*) { no_cuda(); }
void cuda_unmap_gl_buffer(CudaGlBuffer&) { no_cuda(); }
void cuda_copy_into_gl_buffer(CudaGlBuffer&, const uint8_t*, std::size_t) { no_cuda(); }
void cuda_copy_to_host(uint8_t*, const uint8_t*, std::size_t) { no_cuda(); }

}  // namespace ms
