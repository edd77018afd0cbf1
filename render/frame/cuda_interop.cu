// cuda_interop.cu: CUDA-GL buffer sharing with the CUDA runtime (see cuda_interop.h).
// Host code only; it lives in a .cu so that it is compiled only in CUDA builds.
#include "render/frame/cuda_interop.h"

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include "compute/system/cuda_check.h"

namespace ms {

CudaGlBuffer cuda_register_gl_buffer(unsigned int gl_buffer) {
    cudaGraphicsResource_t resource = nullptr;
    // WriteDiscard: CUDA overwrites the whole buffer each frame and never reads it.
    cudaError_t err = cudaGraphicsGLRegisterBuffer(&resource, gl_buffer, cudaGraphicsRegisterFlagsWriteDiscard);
    if (err != cudaSuccess) {
        cudaGetLastError();  // not sticky, but clear it so the copy path starts clean
        cuda_fail(err, "cudaGraphicsGLRegisterBuffer", __FILE__, __LINE__);
    }
    return CudaGlBuffer{resource};
}

void cuda_unregister_gl_buffer(CudaGlBuffer& buffer) {
    if (!buffer.resource) return;
    // Called on teardown and on resize; an error here has nowhere useful to go.
    cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(buffer.resource));
    cudaGetLastError();
    buffer.resource = nullptr;
}

uint8_t* cuda_map_gl_buffer(CudaGlBuffer& buffer, std::size_t* bytes) {
    auto resource = static_cast<cudaGraphicsResource_t>(buffer.resource);
    // (A test can make the mapping fail: compute/system/fault_injection.h.)
    CUDA_CHECK(fault_injected(Fault::MapResources) ? cudaErrorMapBufferObjectFailed
                                                   : cudaGraphicsMapResources(1, &resource, 0));
    void* pointer = nullptr;
    std::size_t size = 0;
    CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&pointer, &size, resource));
    if (bytes) *bytes = size;
    return static_cast<uint8_t*>(pointer);
}

void cuda_unmap_gl_buffer(CudaGlBuffer& buffer) {
    auto resource = static_cast<cudaGraphicsResource_t>(buffer.resource);
    CUDA_CHECK(cudaGraphicsUnmapResources(1, &resource, 0));
}

void cuda_copy_into_gl_buffer(CudaGlBuffer& buffer, const uint8_t* device_source, std::size_t bytes) {
    std::size_t size = 0;
    uint8_t* destination = cuda_map_gl_buffer(buffer, &size);
    cudaError_t err = bytes <= size ? cudaMemcpyAsync(destination, device_source, bytes, cudaMemcpyDeviceToDevice, 0)
                                    : cudaErrorInvalidValue;
    // Unmapped whatever happened; the unmap is ordered after the copy on the same stream, and
    // the wait makes the source free for the caller.
    cuda_unmap_gl_buffer(buffer);
    if (err == cudaSuccess) err = cudaStreamSynchronize(0);
    CUDA_CHECK(err);
}

void cuda_copy_to_host(uint8_t* host_destination, const uint8_t* device_source, std::size_t bytes) {
    CUDA_CHECK(cudaMemcpy(host_destination, device_source, bytes, cudaMemcpyDeviceToHost));
}

}  // namespace ms
