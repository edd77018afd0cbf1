// cnn_cuda_kernels-inl.h: what the CNN's CUDA files share (included by compute/cnn/*.cu only):
// the kernels' sizes and tilings, and the host functions that launch each stage beside its
// kernels. Split by concept:
//   cnn_cuda_conv.cu   conv1 and conv2 (+ ReLU + pool), standalone and fused
//   cnn_cuda_dense.cu  fc1 (split-K) and fc1's bias + ReLU + fc2
//   cnn_cuda.cu        the launcher: device state, graphs for small batches, the public API
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "compute/cnn/cnn_cuda.h"
#include "compute/system/cuda_check.h"

namespace ms::cnn_cuda_detail {

constexpr int kPool1Plane = kCnnPool1Side * kCnnPool1Side;   // 196
constexpr int kPool1Size = kCnnConv1Channels * kPool1Plane;  // 3136
constexpr int kPool2Plane = kCnnPool2Side * kCnnPool2Side;   // 49
// conv2's input in shared memory: 16 planes of 16x16 (14x14 plus a zero ring for padding 1).
constexpr int kPadSide = 16;
constexpr int kPadPlane = kPadSide * kPadSide;
constexpr int kPadImage = kCnnConv1Channels * kPadPlane;                  // 4096 floats = 16 KB
constexpr int kConv2Weights = kCnnConv2Channels * kCnnConv1Channels * 9;  // 4608
constexpr int kDenseRows = 64;                                            // images per cnn_fc1_partial_kernel block
constexpr int kDenseK = 32;                                               // its k-tile
constexpr int kDenseKTiles = kCnnFlat / kDenseK;                          // 49
static_assert(kCnnFlat % kDenseK == 0);
// Blocks the fc1 split-K grid aims at: 4 per SM of a 132-SM GPU, so small batches spread fc1's
// 400 KB of weights over many SMs (one SM alone streams it slowly) and large ones fill the GPU.
constexpr int kDenseTargetBlocks = 528;

// ---------------------------------------------------------------------------------------------
// Convolutions (cnn_cuda_conv.cu)

// Images per block and output channels per thread of the conv2-side kernels.
struct ConvTiling {
    int images_per_block = 4;
    int channels_per_thread = 8;
    bool operator==(const ConvTiling&) const = default;
};

// The device tensors the convolutions read and the buffers they write.
struct ConvArgs {
    const float* conv1_weight = nullptr;  // permuted [tap][out] (see cnn_cuda.cu)
    const float* conv1_bias = nullptr;
    const float* conv2_weight = nullptr;  // permuted [in][tap][out]
    const float* conv2_bias = nullptr;
    float* pool1 = nullptr;  // the unfused variant's intermediate
    float* pool2 = nullptr;
};

bool conv_tiling_supported(ConvTiling t);
// Raises every tiling's dynamic shared memory limit (once per device state).
void set_conv_smem_limits();
// conv1 + ReLU + pool into a.pool1 (the unfused variant).
void launch_conv1(const uint8_t* images, int count, const ConvArgs& a, cudaStream_t stream);
// conv2 + ReLU + pool from a.pool1, or both convolutions fused from the images, into a.pool2.
void launch_conv(ConvTiling t, const uint8_t* images, int count, bool fused, const ConvArgs& a, cudaStream_t stream);

// ---------------------------------------------------------------------------------------------
// Dense layers (cnn_cuda_dense.cu)

// How fc1 is cut: row tiles of 64 images times k-splits, about kDenseTargetBlocks blocks.
struct DenseSplit {
    int row_tiles = 1;
    int splits = 1;
    int tiles_per_split = kDenseKTiles;
};
DenseSplit dense_split(int count);
// Floats of partial sums the largest split of any batch up to max_batch needs.
size_t partial_floats(int max_batch);

struct DenseArgs {
    const float* fc1_weight = nullptr;
    const float* fc1_bias = nullptr;
    const float* fc2_weight = nullptr;
    const float* fc2_bias = nullptr;
    float* partial = nullptr;  // partial_floats(max_batch) floats
};
// fc1 + ReLU + fc2 from pool2 into logits.
void launch_dense(const float* pool2, int count, const DenseArgs& a, float* logits, cudaStream_t stream);

}  // namespace ms::cnn_cuda_detail
