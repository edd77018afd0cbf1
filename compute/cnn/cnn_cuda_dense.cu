// cnn_cuda_dense.cu: the CNN's dense layers on CUDA: fc1 as a split-K matrix product over
// 64-image row tiles, then fc1's bias + the partial sums + ReLU + fc2 in one kernel.
#include <algorithm>

#include "compute/cnn/cnn_cuda_kernels-inl.h"

namespace ms::cnn_cuda_detail {

namespace {

// fc1, split-K: block (x, y) multiplies images [64x, 64x + 64) by fc1's weights over k-tiles
// [y * tiles_per_split, ...) of 32 inputs: a 64x64 tile, 4x4 outputs per thread, through
// shared memory. Partial sums go to partial[y][image][hidden]; cnn_fc_finish_kernel adds them.
__global__ void __launch_bounds__(256)
    cnn_fc1_partial_kernel(const float* pool2, int count, const float* fc1_w, int tiles_per_split, float* partial) {
    __shared__ __align__(16) float a_s[kDenseK][kDenseRows + 4];  // [k][image]
    __shared__ __align__(16) float w_s[kDenseK][kCnnHidden + 4];  // [k][hidden]
    const int first = blockIdx.x * kDenseRows;
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;  // 4 hidden x 4 images each
    const int tile_begin = blockIdx.y * tiles_per_split;
    const int tile_end = min(kDenseKTiles, tile_begin + tiles_per_split);
    float acc[4][4] = {};
    for (int tile = tile_begin; tile < tile_end; ++tile) {
        const int k0 = tile * kDenseK;
#pragma unroll
        for (int i = 0; i < kDenseRows * kDenseK / 256; ++i) {
            const int idx = threadIdx.x + i * 256;
            const int row = idx / kDenseK, kk = idx % kDenseK;
            a_s[kk][row] = first + row < count ? pool2[size_t(first + row) * kCnnFlat + k0 + kk] : 0.0f;
            w_s[kk][row] = fc1_w[size_t(row) * kCnnFlat + k0 + kk];  // kCnnHidden == kDenseRows
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kDenseK; ++kk) {
            const float4 a = *reinterpret_cast<const float4*>(&a_s[kk][ty * 4]);
            const float4 w = *reinterpret_cast<const float4*>(&w_s[kk][tx * 4]);
            const float av[4] = {a.x, a.y, a.z, a.w}, wv[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], wv[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int row = first + ty * 4 + i;
        if (row >= count) continue;
        *reinterpret_cast<float4*>(&partial[(size_t(blockIdx.y) * count + row) * kCnnHidden + tx * 4]) = make_float4(
            acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    }
}

// fc1's bias + the split-K partial sums (in split order) + ReLU, then fc2, for 64 images per
// block.
__global__ void __launch_bounds__(256)
    cnn_fc_finish_kernel(const float* partial, int splits, int count, const float* fc1_b, const float* fc2_w,
                         const float* fc2_b, float* logits) {
    __shared__ float h_s[kDenseRows][kCnnHidden + 1];
    const int first = blockIdx.x * kDenseRows;
    for (int i = threadIdx.x; i < kDenseRows * kCnnHidden; i += blockDim.x) {
        const int row = i / kCnnHidden, h = i % kCnnHidden;
        if (first + row >= count) continue;
        float s = fc1_b[h];
        for (int sp = 0; sp < splits; ++sp) s += partial[(size_t(sp) * count + first + row) * kCnnHidden + h];
        h_s[row][h] = fmaxf(s, 0.0f);
    }
    __syncthreads();
    for (int o = threadIdx.x; o < kDenseRows * kCnnClasses; o += blockDim.x) {
        const int row = o / kCnnClasses, c = o % kCnnClasses;
        if (first + row >= count) continue;
        float s = fc2_b[c];
#pragma unroll 8
        for (int j = 0; j < kCnnHidden; ++j) s = fmaf(fc2_w[c * kCnnHidden + j], h_s[row][j], s);
        logits[size_t(first + row) * kCnnClasses + c] = s;
    }
}

}  // namespace

DenseSplit dense_split(int count) {
    DenseSplit d;
    d.row_tiles = (count + kDenseRows - 1) / kDenseRows;
    const int wanted = std::clamp((kDenseTargetBlocks + d.row_tiles - 1) / d.row_tiles, 1, kDenseKTiles);
    d.tiles_per_split = (kDenseKTiles + wanted - 1) / wanted;
    d.splits = (kDenseKTiles + d.tiles_per_split - 1) / d.tiles_per_split;
    return d;
}

size_t partial_floats(int max_batch) {
    size_t most = 0;
    for (int tiles = 1; tiles <= (max_batch + kDenseRows - 1) / kDenseRows; ++tiles) {
        const int count = std::min(max_batch, tiles * kDenseRows);
        most = std::max(most, size_t(dense_split(count).splits) * size_t(count));
    }
    return most * kCnnHidden;
}

void launch_dense(const float* pool2, int count, const DenseArgs& a, float* logits, cudaStream_t stream) {
    const DenseSplit split = dense_split(count);
    cnn_fc1_partial_kernel<<<dim3(unsigned(split.row_tiles), unsigned(split.splits)), 256, 0, stream>>>(
        pool2, count, a.fc1_weight, split.tiles_per_split, a.partial);
    CUDA_CHECK_LAUNCH();
    cnn_fc_finish_kernel<<<unsigned(split.row_tiles), 256, 0, stream>>>(a.partial, split.splits, count, a.fc1_bias,
                                                                        a.fc2_weight, a.fc2_bias, logits);
    CUDA_CHECK_LAUNCH();
}

}  // namespace ms::cnn_cuda_detail
