// cuda_interop.h: sharing an OpenGL pixel buffer object with CUDA, behind a plain interface
// (no CUDA or GL types) so the rest of render/ compiles without the CUDA headers.
// cuda_interop.cu implements it with the CUDA runtime; cuda_interop_nocuda.cpp, in builds
// without CUDA, throws "built without CUDA".
//
// Life of the buffer (render/frame/frame_renderer.cpp): register once per size, then every frame
// map -> compute/direct_cuda writes RGBA8 into the mapped device pointer -> unmap ->
// glTexSubImage2D from the buffer. Registration needs a current OpenGL context of NVIDIA's
// driver; on Mesa (llvmpipe) it fails with "unknown error", and the caller falls back.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ms {

struct CudaGlBuffer {
    void* resource = nullptr;  // cudaGraphicsResource_t
};

// All throw std::runtime_error with a sentence naming the CUDA call and its error.
CudaGlBuffer cuda_register_gl_buffer(unsigned int gl_buffer);
void cuda_unregister_gl_buffer(CudaGlBuffer& buffer);  // no-op for an unregistered one; never throws
uint8_t* cuda_map_gl_buffer(CudaGlBuffer& buffer, std::size_t* bytes);
void cuda_unmap_gl_buffer(CudaGlBuffer& buffer);
// A frame already in device memory (the deep worker's, deep_device_frame.h) into the buffer:
// map, one device-to-device copy of `bytes` (at most the buffer's size), unmap; finished on
// return, so the source may be written again.
void cuda_copy_into_gl_buffer(CudaGlBuffer& buffer, const uint8_t* device_source, std::size_t bytes);
// The same frame into host memory: the way to the texture where the buffer cannot be shared.
void cuda_copy_to_host(uint8_t* host_destination, const uint8_t* device_source, std::size_t bytes);

}  // namespace ms
