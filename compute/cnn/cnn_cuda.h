// cnn_cuda.h: the network's forward pass on the GPU with our own CUDA kernels (FP32),
// behind a plain C++ header (cnn_cuda.cu; cnn_cuda_nocuda.cpp reports "built without CUDA").
//
// Kernels (cnn_cuda.cu), each checked against cnn_forward_cpu_reference by tests/demos/test_cnn.cpp:
//   cnn_conv1_kernel        conv1 + ReLU + pool, one thread per pooled pixel (16 channels)
//   cnn_conv2_kernel        conv2 + ReLU + pool, implicit GEMM from shared memory
//   cnn_conv12_kernel       both convolutions fused: conv1's pooled maps never leave shared
//                           memory (the default variant)
//   cnn_fc1_partial_kernel  fc1 split-K: 64 images x 64 hidden units x a slice of the 1568
//                           inputs per block, so even one image spreads over ~50 SMs
//   cnn_fc_finish_kernel    sum of the slices + bias + ReLU, then fc2
//
// Batches of up to 256 images run as a CUDA graph (captured once per batch size), which
// replaces ~10 API calls per batch by one launch: that is most of a batch-1 call's latency.
//
// A CnnCuda holds everything the forward pass needs on one device: the weights (uploaded once),
// buffers for `max_batch` images, pinned staging memory, a stream and timing events. Create one
// per set of weights; it is not thread-safe (one call at a time).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "compute/cnn/cnn_cpu.h"
#include "compute/cnn/cnn_model.h"

namespace ms {

// Is a CUDA device usable? On false, `reason` says why in words ("built without CUDA",
// "no CUDA device", "driver too old for this runtime", ...).
bool cnn_cuda_available(std::string* reason);

// Name and compute capability of the device in use ("NVIDIA H100 80GB HBM3, sm_90"), or why none.
std::string cnn_cuda_device_name();

enum class CnnCudaVariant {
    Fused,    // cnn_conv12_kernel + the two dense kernels (3 launches)
    Unfused,  // cnn_conv1_kernel + cnn_conv2_kernel + dense: per-layer timings
};
const char* cnn_cuda_variant_name(CnnCudaVariant variant);  // "cuda", "cuda-unfused"

struct CnnCuda;
struct CnnCudaDeleter {
    void operator()(CnnCuda* cuda) const;
};
using CnnCudaHandle = std::unique_ptr<CnnCuda, CnnCudaDeleter>;

// Uploads the weights and allocates buffers for up to `max_batch` images per launch.
// Throws std::runtime_error with a sentence on any CUDA error or without a device.
CnnCudaHandle cnn_cuda_create(const CnnWeights& weights, int max_batch);

// Replaces the weights (after training, or another file) without reallocating.
void cnn_cuda_set_weights(CnnCuda& cuda, const CnnWeights& weights);

// Forward pass of `count` host images into host logits (count x kCnnClasses). Counts above
// max_batch run as several launches. Synchronous. `stats` (optional) gets the wall time and,
// from CUDA events, "upload", each kernel stage and "download".
void cnn_cuda_forward(CnnCuda& cuda, const uint8_t* images, int count, float* logits, CnnForwardStats* stats = nullptr,
                      CnnCudaVariant variant = CnnCudaVariant::Fused);

// The same on device pointers (images_device: count x 784 bytes; logits_device: count x 10
// floats), without copies: for benchmarks with the data already on the GPU. Synchronous;
// `stats` gets the kernels' event times and total_ms = their sum.
void cnn_cuda_forward_device(CnnCuda& cuda, const uint8_t* images_device, int count, float* logits_device,
                             CnnForwardStats* stats = nullptr, CnnCudaVariant variant = CnnCudaVariant::Fused);

// Benchmarks and tests: force the conv kernels' tiling (images per block x output channels per
// thread; supported 1x4 1x8 2x8 2x16 4x8 4x16). 0 = choose by batch size (the default:
// 4x8 from 1024 images, else 1x4). Throws on an unsupported pair.
void cnn_cuda_set_conv_tiling(CnnCuda& cuda, int images_per_block, int channels_per_thread);

// Device memory helpers for cnn_cuda_forward_device's callers (benchmarks, tests).
uint8_t* cnn_cuda_upload_images(const uint8_t* images, int count);  // cudaMalloc + copy
float* cnn_cuda_alloc_logits(int count);
void cnn_cuda_download_logits(const float* logits_device, int count, float* logits);
void cnn_cuda_free(void* device_pointer);

}  // namespace ms
