// cnn_cuda.cu: the CUDA forward pass of the Fashion-MNIST network (FP32, our own kernels).
// CPU reference: cnn_forward_cpu_reference (cnn_cpu_reference.cpp); tests/demos/test_cnn.cpp compares
// every variant and tiling with it (1e-4 on the logits).
//
// Napkin math per image: conv1 0.23 MFLOP, conv2 1.81 MFLOP, fc1 0.20 MFLOP: 2.2 MFLOP, so
// 10,000 images are 22 GFLOP; at a realistic 30 TFLOP/s of FP32 FMA on an H100 that is 0.7 ms
// (14M images/s). Memory is no limit: 7.8 MB of input bytes in, 0.4 MB of logits out; the
// unfused variant adds 125 MB (pool1) written and read again.
//
// Layout on the device: one float array with the weights in the kCnnTensors order, except that
// conv1's weights are stored [tap][out] and conv2's [in][tap][out], so a thread reads the
// weights of several output channels of one tap with one float4 load (a broadcast: every
// thread of a warp reads the same address).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/cnn/cnn_cuda.h"
#include "compute/system/cuda_check.h"
#include "compute/system/cuda_info.h"

namespace ms {

// ---------------------------------------------------------------------------------------------
// GPU kernels

namespace {

constexpr int kPool1Plane = kCnnPool1Side * kCnnPool1Side;  // 196
constexpr int kPool1Size = kCnnConv1Channels * kPool1Plane;  // 3136
constexpr int kPool2Plane = kCnnPool2Side * kCnnPool2Side;  // 49
// conv2's input in shared memory: 16 planes of 16x16 (14x14 plus a zero ring for padding 1).
constexpr int kPadSide = 16;
constexpr int kPadPlane = kPadSide * kPadSide;
constexpr int kPadImage = kCnnConv1Channels * kPadPlane;     // 4096 floats = 16 KB
constexpr int kConv2Weights = kCnnConv2Channels * kCnnConv1Channels * 9;  // 4608
constexpr int kDenseRows = 64;       // images per cnn_fc1_partial_kernel block
constexpr int kDenseK = 32;          // its k-tile
constexpr int kDenseKTiles = kCnnFlat / kDenseK;  // 49
static_assert(kCnnFlat % kDenseK == 0);
// Blocks the fc1 split-K grid aims at: 4 per SM of an H100, so small batches spread fc1's
// 400 KB of weights over many SMs (one SM alone streams it slowly) and large ones fill the GPU.
constexpr int kDenseTargetBlocks = 528;

// The 16 pooled conv1 outputs at pooled pixel (py, px) of one image (28x28 floats in [0,1]):
// out[c] = max over the 2x2 window of ReLU(bias + 3x3 conv). `image` may be shared or global.
__device__ __forceinline__ void conv1_pooled_pixel(const float* image, int py, int px,
                                                   const float* w /* [9][16] */,
                                                   const float* b, float out[16]) {
    float p[4][4];
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const int iy = 2 * py - 1 + r, ix = 2 * px - 1 + c;
            p[r][c] = (iy >= 0 && iy < kCnnSide && ix >= 0 && ix < kCnnSide)
                          ? image[iy * kCnnSide + ix] : 0.0f;
        }
#pragma unroll
    for (int o = 0; o < kCnnConv1Channels; ++o) {
        float a00 = b[o], a01 = b[o], a10 = b[o], a11 = b[o];
#pragma unroll
        for (int ky = 0; ky < 3; ++ky)
#pragma unroll
            for (int kx = 0; kx < 3; ++kx) {
                const float wv = w[(ky * 3 + kx) * kCnnConv1Channels + o];
                a00 = fmaf(wv, p[ky][kx], a00);
                a01 = fmaf(wv, p[ky][kx + 1], a01);
                a10 = fmaf(wv, p[ky + 1][kx], a10);
                a11 = fmaf(wv, p[ky + 1][kx + 1], a11);
            }
        out[o] = fmaxf(fmaxf(fmaxf(a00, a01), fmaxf(a10, a11)), 0.0f);
    }
}

// conv2 + ReLU + pool for the images of one block, from shared memory:
//   in_s  IMGS x [16][16x16] padded planes, w_s [16 in][9 taps][32 out], b_s [32]
// Thread layout: CPT output channels ("channels per thread") x one pooled pixel x one image;
// each thread keeps CPT x 4 (the 2x2 window) accumulators and, per input channel, its 4x4
// input patch in registers. Threads past the work return (no barrier follows).
template <int IMGS, int CPT>
__device__ __forceinline__ void conv2_pooled_block(const float* in_s, const float* w_s,
                                                   const float* b_s, int first_image, int count,
                                                   float* pool2) {
    constexpr int kGroups = kCnnConv2Channels / CPT;
    constexpr int kPerGroup = kPool2Plane * IMGS;
    const int t = threadIdx.x;
    if (t >= kPerGroup * kGroups) return;
    const int group = t / kPerGroup, rest = t % kPerGroup;
    const int img = rest / kPool2Plane, pos = rest % kPool2Plane;
    if (first_image + img >= count) return;
    const int py = pos / kCnnPool2Side, px = pos % kCnnPool2Side;

    float acc[CPT][4];
#pragma unroll
    for (int c = 0; c < CPT; ++c) {
        const float bias = b_s[group * CPT + c];
        acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = bias;
    }
    // Padded row 2py..2py+3 is unpadded row 2py-1..2py+2: the 4x4 patch of the 2x2 window.
    const float* base = in_s + img * kPadImage + (2 * py) * kPadSide + 2 * px;
    const float* wbase = w_s + group * CPT;
#pragma unroll 1
    for (int ci = 0; ci < kCnnConv1Channels; ++ci) {
        float p[4][4];
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const float2 lo = *reinterpret_cast<const float2*>(base + ci * kPadPlane + r * kPadSide);
            const float2 hi = *reinterpret_cast<const float2*>(base + ci * kPadPlane + r * kPadSide + 2);
            p[r][0] = lo.x; p[r][1] = lo.y; p[r][2] = hi.x; p[r][3] = hi.y;
        }
        const float* wc = wbase + ci * 9 * kCnnConv2Channels;
#pragma unroll
        for (int ky = 0; ky < 3; ++ky)
#pragma unroll
            for (int kx = 0; kx < 3; ++kx)
#pragma unroll
                for (int c4 = 0; c4 < CPT / 4; ++c4) {
                    const float4 wv = *reinterpret_cast<const float4*>(
                        wc + (ky * 3 + kx) * kCnnConv2Channels + c4 * 4);
                    const float ws[4] = {wv.x, wv.y, wv.z, wv.w};
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        float* a = acc[c4 * 4 + j];
                        a[0] = fmaf(ws[j], p[ky][kx], a[0]);
                        a[1] = fmaf(ws[j], p[ky][kx + 1], a[1]);
                        a[2] = fmaf(ws[j], p[ky + 1][kx], a[2]);
                        a[3] = fmaf(ws[j], p[ky + 1][kx + 1], a[3]);
                    }
                }
    }
    float* out = pool2 + size_t(first_image + img) * kCnnFlat + pos;
#pragma unroll
    for (int c = 0; c < CPT; ++c)
        out[(group * CPT + c) * kPool2Plane] =
            fmaxf(fmaxf(fmaxf(acc[c][0], acc[c][1]), fmaxf(acc[c][2], acc[c][3])), 0.0f);
}

// Copies conv2's weights and bias into shared memory (float4 where aligned).
__device__ __forceinline__ void load_conv2_weights(const float* w2t, const float* b2, float* w_s,
                                                   float* b_s) {
    for (int i = threadIdx.x; i < kConv2Weights / 4; i += blockDim.x)
        reinterpret_cast<float4*>(w_s)[i] = reinterpret_cast<const float4*>(w2t)[i];
    for (int i = threadIdx.x; i < kCnnConv2Channels; i += blockDim.x) b_s[i] = b2[i];
}

template <int IMGS, int CPT>
constexpr int conv_threads() {
    return kPool2Plane * IMGS * (kCnnConv2Channels / CPT);
}

// Dynamic shared memory of the conv2-side kernels: padded input, weights, bias.
template <int IMGS>
constexpr size_t conv2_smem_bytes() {
    return sizeof(float) * (IMGS * kPadImage + kConv2Weights + kCnnConv2Channels);
}
template <int IMGS>
constexpr size_t conv12_smem_bytes() {
    return conv2_smem_bytes<IMGS>() +
           sizeof(float) * (IMGS * kCnnPixels + 9 * kCnnConv1Channels + kCnnConv1Channels);
}

}  // namespace

// conv1 + ReLU + pool, standalone: one thread per (image, pooled pixel), all 16 channels.
__global__ void __launch_bounds__(256) cnn_conv1_kernel(const uint8_t* images, int count,
                                                        const float* w1t, const float* b1,
                                                        float* pool1) {
    __shared__ float w_s[9 * kCnnConv1Channels], b_s[kCnnConv1Channels];
    for (int i = threadIdx.x; i < 9 * kCnnConv1Channels; i += blockDim.x) w_s[i] = w1t[i];
    for (int i = threadIdx.x; i < kCnnConv1Channels; i += blockDim.x) b_s[i] = b1[i];
    __syncthreads();
    const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= int64_t(count) * kPool1Plane) return;
    const int n = int(t / kPool1Plane), pos = int(t % kPool1Plane);
    const int py = pos / kCnnPool1Side, px = pos % kCnnPool1Side;
    // The 4x4 patch straight from global memory (bytes, cached), scaled like the CPU does.
    const uint8_t* img = images + size_t(n) * kCnnPixels;
    float p[4][4];
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const int iy = 2 * py - 1 + r, ix = 2 * px - 1 + c;
            p[r][c] = (iy >= 0 && iy < kCnnSide && ix >= 0 && ix < kCnnSide)
                          ? float(img[iy * kCnnSide + ix]) / 255.0f : 0.0f;
        }
    float* out = pool1 + size_t(n) * kPool1Size + pos;
#pragma unroll
    for (int o = 0; o < kCnnConv1Channels; ++o) {
        float a00 = b_s[o], a01 = b_s[o], a10 = b_s[o], a11 = b_s[o];
#pragma unroll
        for (int ky = 0; ky < 3; ++ky)
#pragma unroll
            for (int kx = 0; kx < 3; ++kx) {
                const float wv = w_s[(ky * 3 + kx) * kCnnConv1Channels + o];
                a00 = fmaf(wv, p[ky][kx], a00);
                a01 = fmaf(wv, p[ky][kx + 1], a01);
                a10 = fmaf(wv, p[ky + 1][kx], a10);
                a11 = fmaf(wv, p[ky + 1][kx + 1], a11);
            }
        out[o * kPool1Plane] = fmaxf(fmaxf(fmaxf(a00, a01), fmaxf(a10, a11)), 0.0f);
    }
}

// conv2 + ReLU + pool, standalone: IMGS images per block, input from pool1 in global memory.
template <int IMGS, int CPT>
__global__ void __launch_bounds__(conv_threads<IMGS, CPT>())
    cnn_conv2_kernel(const float* pool1, int count, const float* w2t, const float* b2,
                     float* pool2) {
    extern __shared__ float4 smem4[];
    float* in_s = reinterpret_cast<float*>(smem4);
    float* w_s = in_s + IMGS * kPadImage;
    float* b_s = w_s + kConv2Weights;
    const int first = blockIdx.x * IMGS;
    for (int i = threadIdx.x; i < IMGS * kPadImage; i += blockDim.x) {
        const int img = i / kPadImage, rest = i % kPadImage;
        const int ci = rest / kPadPlane, y = rest % kPadPlane / kPadSide, x = rest % kPadSide;
        float v = 0.0f;
        if (y >= 1 && y <= kCnnPool1Side && x >= 1 && x <= kCnnPool1Side && first + img < count)
            v = pool1[size_t(first + img) * kPool1Size + ci * kPool1Plane +
                      (y - 1) * kCnnPool1Side + (x - 1)];
        in_s[i] = v;
    }
    load_conv2_weights(w2t, b2, w_s, b_s);
    __syncthreads();
    conv2_pooled_block<IMGS, CPT>(in_s, w_s, b_s, first, count, pool2);
}

// Both convolutions fused: the block's images are scaled into shared memory, conv1 + ReLU +
// pool writes straight into conv2's padded input planes there, then conv2 + ReLU + pool.
template <int IMGS, int CPT>
__global__ void __launch_bounds__(conv_threads<IMGS, CPT>())
    cnn_conv12_kernel(const uint8_t* images, int count, const float* w1t, const float* b1,
                      const float* w2t, const float* b2, float* pool2) {
    extern __shared__ float4 smem4[];
    float* in_s = reinterpret_cast<float*>(smem4);
    float* w_s = in_s + IMGS * kPadImage;
    float* b_s = w_s + kConv2Weights;
    float* img_s = b_s + kCnnConv2Channels;
    float* w1_s = img_s + IMGS * kCnnPixels;
    float* b1_s = w1_s + 9 * kCnnConv1Channels;
    const int first = blockIdx.x * IMGS;
    const int valid = min(IMGS, count - first);
    for (int i = threadIdx.x; i < IMGS * kPadImage; i += blockDim.x) in_s[i] = 0.0f;
    for (int i = threadIdx.x; i < valid * kCnnPixels; i += blockDim.x)
        img_s[i] = float(images[size_t(first) * kCnnPixels + i]) / 255.0f;
    for (int i = threadIdx.x; i < 9 * kCnnConv1Channels; i += blockDim.x) w1_s[i] = w1t[i];
    for (int i = threadIdx.x; i < kCnnConv1Channels; i += blockDim.x) b1_s[i] = b1[i];
    load_conv2_weights(w2t, b2, w_s, b_s);
    __syncthreads();
    for (int task = threadIdx.x; task < valid * kPool1Plane; task += blockDim.x) {
        const int img = task / kPool1Plane, pos = task % kPool1Plane;
        const int py = pos / kCnnPool1Side, px = pos % kCnnPool1Side;
        float out[kCnnConv1Channels];
        conv1_pooled_pixel(img_s + img * kCnnPixels, py, px, w1_s, b1_s, out);
        float* dst = in_s + img * kPadImage + (py + 1) * kPadSide + (px + 1);
#pragma unroll
        for (int o = 0; o < kCnnConv1Channels; ++o) dst[o * kPadPlane] = out[o];
    }
    __syncthreads();
    conv2_pooled_block<IMGS, CPT>(in_s, w_s, b_s, first, count, pool2);
}

// fc1, split-K: block (x, y) multiplies images [64x, 64x + 64) by fc1's weights over k-tiles
// [y * tiles_per_split, ...) of 32 inputs: a 64x64 tile, 4x4 outputs per thread, through
// shared memory. Partial sums go to partial[y][image][hidden]; cnn_fc_finish_kernel adds them.
__global__ void __launch_bounds__(256) cnn_fc1_partial_kernel(const float* pool2, int count,
                                                              const float* fc1_w,
                                                              int tiles_per_split,
                                                              float* partial) {
    __shared__ __align__(16) float a_s[kDenseK][kDenseRows + 4];   // [k][image]
    __shared__ __align__(16) float w_s[kDenseK][kCnnHidden + 4];   // [k][hidden]
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
        *reinterpret_cast<float4*>(&partial[(size_t(blockIdx.y) * count + row) * kCnnHidden + tx * 4]) =
            make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    }
}

// fc1's bias + the split-K partial sums (in split order) + ReLU, then fc2, for 64 images per
// block.
__global__ void __launch_bounds__(256) cnn_fc_finish_kernel(const float* partial, int splits,
                                                            int count, const float* fc1_b,
                                                            const float* fc2_w,
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

// ---------------------------------------------------------------------------------------------
// Launchers

namespace {

constexpr int kEventCount = 6;
// Batches up to this size run as a captured CUDA graph (launch overhead dominates them).
constexpr int kGraphMaxImages = 256;
constexpr size_t kGraphCacheSize = 8;

struct ConvTiling {
    int images_per_block = 4;
    int channels_per_thread = 8;
    bool operator==(const ConvTiling&) const = default;
};

// One captured forward pass from pinned staging memory to pinned staging memory.
struct ForwardGraph {
    int count = 0;
    CnnCudaVariant variant = CnnCudaVariant::Fused;
    ConvTiling tiling;
    cudaGraphExec_t exec = nullptr;
    int stages = 0;
    const char* names[4] = {};
};

}  // namespace

struct CnnCuda {
    int max_batch = 0;
    float* params = nullptr;   // device weights, permuted layout (see the file comment)
    uint8_t* images = nullptr;
    float* pool1 = nullptr;    // unfused variant only
    float* pool2 = nullptr;
    float* partial = nullptr;  // fc1's split-K partial sums
    float* logits = nullptr;
    uint8_t* images_pinned = nullptr;
    float* logits_pinned = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t events[kEventCount] = {};
    ConvTiling forced_tiling;  // images_per_block 0 = choose by batch size
    bool tiling_forced = false;
    std::vector<ForwardGraph> graphs;  // small batches, captured on first use
    size_t next_graph = 0;             // the slot to replace when the cache is full

    const float* tensor(CnnTensor t) const { return params + kCnnTensors[t].offset; }
};

void CnnCudaDeleter::operator()(CnnCuda* c) const {
    if (!c) return;
    // No throwing from a deleter: errors here only mean the context is already gone.
    for (ForwardGraph& g : c->graphs) cudaGraphExecDestroy(g.exec);
    for (cudaEvent_t e : c->events)
        if (e) cudaEventDestroy(e);
    if (c->stream) cudaStreamDestroy(c->stream);
    cudaFree(c->params);
    cudaFree(c->images);
    cudaFree(c->pool1);
    cudaFree(c->pool2);
    cudaFree(c->partial);
    cudaFree(c->logits);
    cudaFreeHost(c->images_pinned);
    cudaFreeHost(c->logits_pinned);
    delete c;
}

bool cnn_cuda_available(std::string* reason) {
    // compute/cuda_info.h's words, the same in every mode.
    const std::string why = cuda_unavailable_reason();
    if (reason) *reason = why;
    return why.empty();
}

std::string cnn_cuda_device_name() {
    std::string reason;
    if (!cnn_cuda_available(&reason)) return reason;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return std::string(prop.name) + ", sm_" + std::to_string(prop.major * 10 + prop.minor) + ", " +
           std::to_string(prop.multiProcessorCount) + " SMs";
}

const char* cnn_cuda_variant_name(CnnCudaVariant variant) {
    return variant == CnnCudaVariant::Fused ? "cuda" : "cuda-unfused";
}

namespace {

// Every (images per block, channels per thread) the launchers know. Large batches use 4x8
// (784 threads per block), small ones 1x4 (392 threads, short per-thread work: latency).
template <int IMGS, int CPT>
void set_conv_smem_limits() {
    CUDA_CHECK(cudaFuncSetAttribute(cnn_conv2_kernel<IMGS, CPT>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(conv2_smem_bytes<IMGS>())));
    CUDA_CHECK(cudaFuncSetAttribute(cnn_conv12_kernel<IMGS, CPT>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(conv12_smem_bytes<IMGS>())));
}

template <int IMGS, int CPT>
void launch_conv_tiled(const CnnCuda& c, const uint8_t* images, int count, bool fused,
                       cudaStream_t stream) {
    const int blocks = (count + IMGS - 1) / IMGS;
    constexpr int threads = conv_threads<IMGS, CPT>();
    if (fused) {
        cnn_conv12_kernel<IMGS, CPT><<<blocks, threads, conv12_smem_bytes<IMGS>(), stream>>>(
            images, count, c.tensor(kConv1Weight), c.tensor(kConv1Bias), c.tensor(kConv2Weight),
            c.tensor(kConv2Bias), c.pool2);
    } else {
        cnn_conv2_kernel<IMGS, CPT><<<blocks, threads, conv2_smem_bytes<IMGS>(), stream>>>(
            c.pool1, count, c.tensor(kConv2Weight), c.tensor(kConv2Bias), c.pool2);
    }
    CUDA_CHECK_LAUNCH();
}

#define MS_CNN_TILINGS(X) X(1, 4) X(1, 8) X(2, 8) X(2, 16) X(4, 8) X(4, 16)

bool tiling_supported(ConvTiling t) {
#define MS_CNN_CHECK(I, C) if (t.images_per_block == I && t.channels_per_thread == C) return true;
    MS_CNN_TILINGS(MS_CNN_CHECK)
#undef MS_CNN_CHECK
    return false;
}

void launch_conv(const CnnCuda& c, ConvTiling t, const uint8_t* images, int count, bool fused,
                 cudaStream_t stream) {
#define MS_CNN_LAUNCH(I, C)                                             \
    if (t.images_per_block == I && t.channels_per_thread == C)          \
        return launch_conv_tiled<I, C>(c, images, count, fused, stream);
    MS_CNN_TILINGS(MS_CNN_LAUNCH)
#undef MS_CNN_LAUNCH
    throw std::runtime_error("unsupported conv tiling");
}

// How fc1 is cut: row tiles of 64 images times k-splits, about kDenseTargetBlocks blocks.
struct DenseSplit {
    int row_tiles = 1;
    int splits = 1;
    int tiles_per_split = kDenseKTiles;
};

DenseSplit dense_split(int count) {
    DenseSplit d;
    d.row_tiles = (count + kDenseRows - 1) / kDenseRows;
    const int wanted = std::clamp((kDenseTargetBlocks + d.row_tiles - 1) / d.row_tiles, 1, kDenseKTiles);
    d.tiles_per_split = (kDenseKTiles + wanted - 1) / wanted;
    d.splits = (kDenseKTiles + d.tiles_per_split - 1) / d.tiles_per_split;
    return d;
}

// Floats of partial sums the largest split of any batch up to max_batch needs.
size_t partial_floats(int max_batch) {
    size_t most = 0;
    for (int tiles = 1; tiles <= (max_batch + kDenseRows - 1) / kDenseRows; ++tiles) {
        const int count = std::min(max_batch, tiles * kDenseRows);
        most = std::max(most, size_t(dense_split(count).splits) * size_t(count));
    }
    return most * kCnnHidden;
}

ConvTiling choose_tiling(const CnnCuda& c, int count) {
    if (c.tiling_forced) return c.forced_tiling;
    return count >= 1024 ? ConvTiling{4, 8} : ConvTiling{1, 4};
}

// Launches the kernels of one slice (count <= max_batch) on c.stream, recording events
// `e0` (before), then one after each stage. Returns the stage names.
// cudaEventRecord inside a stream capture only marks a dependency; an event that must be
// recorded when the graph runs (for timing) needs cudaEventRecordExternal.
void record_event(cudaEvent_t event, cudaStream_t stream) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
    if (status == cudaStreamCaptureStatusActive)
        CUDA_CHECK(cudaEventRecordWithFlags(event, stream, cudaEventRecordExternal));
    else
        CUDA_CHECK(cudaEventRecord(event, stream));
}

int launch_forward(CnnCuda& c, const uint8_t* images, int count, float* logits,
                   CnnCudaVariant variant, int first_event, const char** names) {
    int stages = 0;
    const ConvTiling tiling = choose_tiling(c, count);
    auto mark = [&](const char* name) {
        names[stages++] = name;
        record_event(c.events[first_event + stages], c.stream);
    };
    if (variant == CnnCudaVariant::Fused) {
        launch_conv(c, tiling, images, count, true, c.stream);
        mark("conv1+conv2 fused");
    } else {
        const int threads = 256;
        const int64_t total = int64_t(count) * kPool1Plane;
        cnn_conv1_kernel<<<unsigned((total + threads - 1) / threads), threads, 0, c.stream>>>(
            images, count, c.tensor(kConv1Weight), c.tensor(kConv1Bias), c.pool1);
        CUDA_CHECK_LAUNCH();
        mark("conv1+relu+pool");
        launch_conv(c, tiling, images, count, false, c.stream);
        mark("conv2+relu+pool");
    }
    const DenseSplit split = dense_split(count);
    cnn_fc1_partial_kernel<<<dim3(unsigned(split.row_tiles), unsigned(split.splits)), 256, 0, c.stream>>>(
        c.pool2, count, c.tensor(kFc1Weight), split.tiles_per_split, c.partial);
    CUDA_CHECK_LAUNCH();
    cnn_fc_finish_kernel<<<unsigned(split.row_tiles), 256, 0, c.stream>>>(
        c.partial, split.splits, count, c.tensor(kFc1Bias), c.tensor(kFc2Weight),
        c.tensor(kFc2Bias), logits);
    CUDA_CHECK_LAUNCH();
    mark("fc1+relu+fc2");
    return stages;
}

void add_stage(CnnForwardStats& stats, const char* name, double ms) {
    for (CnnLayerTime& l : stats.layers)
        if (l.name == name) {
            l.ms += ms;
            return;
        }
    stats.layers.push_back({name, ms});
}

// Time between two recorded events; NaN (and the error cleared) where the runtime cannot say,
// so a timing problem shows in the figures instead of failing the forward pass.
float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        cudaGetLastError();
        return NAN;
    }
    return ms;
}

// Large copies go straight from pageable memory (the driver pipelines them); small ones
// through pinned staging memory, which cuts the latency of batch-1 calls.
constexpr int kPinnedBelowImages = 1024;

// The weights as the kernels read them: conv weights permuted for float4 loads over output
// channels (see the file comment), everything else as in the file.
std::vector<float> device_layout(const CnnWeights& weights) {
    std::vector<float> host(weights.values);
    const float* w1 = weights.tensor(kConv1Weight);
    float* w1t = host.data() + kCnnTensors[kConv1Weight].offset;
    for (int o = 0; o < kCnnConv1Channels; ++o)
        for (int tap = 0; tap < 9; ++tap) w1t[tap * kCnnConv1Channels + o] = w1[o * 9 + tap];
    const float* w2 = weights.tensor(kConv2Weight);
    float* w2t = host.data() + kCnnTensors[kConv2Weight].offset;
    for (int o = 0; o < kCnnConv2Channels; ++o)
        for (int i = 0; i < kCnnConv1Channels; ++i)
            for (int tap = 0; tap < 9; ++tap)
                w2t[(i * 9 + tap) * kCnnConv2Channels + o] = w2[(o * kCnnConv1Channels + i) * 9 + tap];
    return host;
}

}  // namespace

CnnCudaHandle cnn_cuda_create(const CnnWeights& weights, int max_batch) {
    std::string reason;
    if (!cnn_cuda_available(&reason)) throw std::runtime_error("cannot use CUDA: " + reason);
    if (max_batch < 1) throw std::runtime_error("max_batch must be at least 1");
    CnnCudaHandle c(new CnnCuda);
    c->max_batch = max_batch;

    const std::vector<float> host = device_layout(weights);
    const size_t n = size_t(max_batch);
    CUDA_CHECK(cudaMalloc(&c->params, sizeof(float) * kCnnParameterCount));
    CUDA_CHECK(cudaMemcpy(c->params, host.data(), sizeof(float) * kCnnParameterCount,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc(&c->images, n * kCnnPixels));
    CUDA_CHECK(cudaMalloc(&c->pool1, sizeof(float) * n * kPool1Size));
    CUDA_CHECK(cudaMalloc(&c->pool2, sizeof(float) * n * kCnnFlat));
    CUDA_CHECK(cudaMalloc(&c->partial, sizeof(float) * partial_floats(max_batch)));
    CUDA_CHECK(cudaMalloc(&c->logits, sizeof(float) * n * kCnnClasses));
    const size_t pinned = std::min(n, size_t(kPinnedBelowImages));
    CUDA_CHECK(cudaMallocHost(&c->images_pinned, pinned * kCnnPixels));
    CUDA_CHECK(cudaMallocHost(&c->logits_pinned, sizeof(float) * pinned * kCnnClasses));
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    for (cudaEvent_t& e : c->events) CUDA_CHECK(cudaEventCreate(&e));
#define MS_CNN_SMEM(I, C) set_conv_smem_limits<I, C>();
    MS_CNN_TILINGS(MS_CNN_SMEM)
#undef MS_CNN_SMEM
    return c;
}

void cnn_cuda_set_weights(CnnCuda& c, const CnnWeights& weights) {
    const std::vector<float> host = device_layout(weights);
    CUDA_CHECK(cudaMemcpy(c.params, host.data(), sizeof(float) * kCnnParameterCount,
                          cudaMemcpyHostToDevice));
}

void cnn_cuda_set_conv_tiling(CnnCuda& c, int images_per_block, int channels_per_thread) {
    if (images_per_block == 0) {
        c.tiling_forced = false;
        return;
    }
    ConvTiling t{images_per_block, channels_per_thread};
    if (!tiling_supported(t))
        throw std::runtime_error("unsupported conv tiling " + std::to_string(images_per_block) +
                                 "x" + std::to_string(channels_per_thread) +
                                 " (supported: 1x4 1x8 2x8 2x16 4x8 4x16)");
    c.forced_tiling = t;
    c.tiling_forced = true;
}

namespace {

// Upload from pinned staging memory, kernels, download to pinned staging memory, recording
// events[0] before and one event after each step. Returns the number of kernel stages.
int enqueue_pinned_forward(CnnCuda& c, int n, CnnCudaVariant variant, const char** names) {
    record_event(c.events[0], c.stream);
    CUDA_CHECK(cudaMemcpyAsync(c.images, c.images_pinned, size_t(n) * kCnnPixels,
                               cudaMemcpyHostToDevice, c.stream));
    record_event(c.events[1], c.stream);
    const int stages = launch_forward(c, c.images, n, c.logits, variant, 1, names);
    CUDA_CHECK(cudaMemcpyAsync(c.logits_pinned, c.logits, sizeof(float) * n * kCnnClasses,
                               cudaMemcpyDeviceToHost, c.stream));
    record_event(c.events[stages + 2], c.stream);
    return stages;
}

// The captured graph of enqueue_pinned_forward for this batch size, variant and tiling.
const ForwardGraph& forward_graph(CnnCuda& c, int n, CnnCudaVariant variant) {
    const ConvTiling tiling = choose_tiling(c, n);
    for (const ForwardGraph& g : c.graphs)
        if (g.count == n && g.variant == variant && g.tiling == tiling) return g;
    ForwardGraph g;
    g.count = n;
    g.variant = variant;
    g.tiling = tiling;
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(c.stream, cudaStreamCaptureModeThreadLocal));
    try {
        g.stages = enqueue_pinned_forward(c, n, variant, g.names);
    } catch (...) {
        cudaStreamEndCapture(c.stream, &graph);
        if (graph) cudaGraphDestroy(graph);
        throw;
    }
    CUDA_CHECK(cudaStreamEndCapture(c.stream, &graph));
    const cudaError_t err = cudaGraphInstantiate(&g.exec, graph, 0);
    cudaGraphDestroy(graph);
    CUDA_CHECK(err);
    if (c.graphs.size() < kGraphCacheSize) {
        c.graphs.push_back(g);
        return c.graphs.back();
    }
    ForwardGraph& slot = c.graphs[c.next_graph++ % kGraphCacheSize];
    CUDA_CHECK(cudaGraphExecDestroy(slot.exec));
    slot = g;
    return slot;
}

}  // namespace

void cnn_cuda_forward(CnnCuda& c, const uint8_t* images, int count, float* logits,
                      CnnForwardStats* stats, CnnCudaVariant variant) {
    const auto wall_start = std::chrono::steady_clock::now();
    if (stats) *stats = CnnForwardStats{};
    for (int first = 0; first < count; first += c.max_batch) {
        const int n = std::min(c.max_batch, count - first);
        const uint8_t* src = images + size_t(first) * kCnnPixels;
        float* dst = logits + size_t(first) * kCnnClasses;
        const bool pinned = n <= kPinnedBelowImages;
        const char* names[4] = {};
        int stages = 0;
        if (pinned) {
            std::memcpy(c.images_pinned, src, size_t(n) * kCnnPixels);
            if (n <= kGraphMaxImages) {
                const ForwardGraph& g = forward_graph(c, n, variant);
                CUDA_CHECK(cudaGraphLaunch(g.exec, c.stream));
                stages = g.stages;
                std::copy(g.names, g.names + 4, names);
            } else {
                stages = enqueue_pinned_forward(c, n, variant, names);
            }
        } else {
            CUDA_CHECK(cudaEventRecord(c.events[0], c.stream));
            CUDA_CHECK(cudaMemcpyAsync(c.images, src, size_t(n) * kCnnPixels,
                                       cudaMemcpyHostToDevice, c.stream));
            CUDA_CHECK(cudaEventRecord(c.events[1], c.stream));
            stages = launch_forward(c, c.images, n, c.logits, variant, 1, names);
            CUDA_CHECK(cudaMemcpyAsync(dst, c.logits, sizeof(float) * n * kCnnClasses,
                                       cudaMemcpyDeviceToHost, c.stream));
            CUDA_CHECK(cudaEventRecord(c.events[stages + 2], c.stream));
        }
        // The whole stream, not only the last event: completion must not depend on how events
        // inside a graph behave.
        CUDA_CHECK(cudaStreamSynchronize(c.stream));
        if (pinned) std::memcpy(dst, c.logits_pinned, sizeof(float) * n * kCnnClasses);
        if (stats) {
            add_stage(*stats, "upload", elapsed_ms(c.events[0], c.events[1]));
            for (int s = 0; s < stages; ++s)
                add_stage(*stats, names[s], elapsed_ms(c.events[s + 1], c.events[s + 2]));
            add_stage(*stats, "download", elapsed_ms(c.events[stages + 1], c.events[stages + 2]));
        }
    }
    if (stats)
        stats->total_ms = std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - wall_start).count();
}

void cnn_cuda_forward_device(CnnCuda& c, const uint8_t* images_device, int count,
                             float* logits_device, CnnForwardStats* stats,
                             CnnCudaVariant variant) {
    if (stats) *stats = CnnForwardStats{};
    for (int first = 0; first < count; first += c.max_batch) {
        const int n = std::min(c.max_batch, count - first);
        CUDA_CHECK(cudaEventRecord(c.events[0], c.stream));
        const char* names[4];
        const int stages = launch_forward(c, images_device + size_t(first) * kCnnPixels, n,
                                          logits_device + size_t(first) * kCnnClasses, variant,
                                          0, names);
        CUDA_CHECK(cudaEventSynchronize(c.events[stages]));
        if (stats)
            for (int s = 0; s < stages; ++s) {
                const double ms = elapsed_ms(c.events[s], c.events[s + 1]);
                add_stage(*stats, names[s], ms);
                stats->total_ms += ms;
            }
    }
}

uint8_t* cnn_cuda_upload_images(const uint8_t* images, int count) {
    uint8_t* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, size_t(count) * kCnnPixels));
    CUDA_CHECK(cudaMemcpy(d, images, size_t(count) * kCnnPixels, cudaMemcpyHostToDevice));
    return d;
}

float* cnn_cuda_alloc_logits(int count) {
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, sizeof(float) * size_t(count) * kCnnClasses));
    return d;
}

void cnn_cuda_download_logits(const float* logits_device, int count, float* logits) {
    CUDA_CHECK(cudaMemcpy(logits, logits_device, sizeof(float) * size_t(count) * kCnnClasses,
                          cudaMemcpyDeviceToHost));
}

void cnn_cuda_free(void* device_pointer) { CUDA_CHECK(cudaFree(device_pointer)); }

}  // namespace ms
