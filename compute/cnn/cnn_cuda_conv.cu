// cnn_cuda_conv.cu: the CNN's convolutions on CUDA: conv1 + ReLU + pool, conv2 + ReLU + pool,
// and both fused through shared memory (the default). The layout of the weights and the napkin
// math are in cnn_cuda.cu; the tilings' launchers are at the end of this file.
#include <stdexcept>

#include "compute/cnn/cnn_cuda_kernels-inl.h"

namespace ms::cnn_cuda_detail {

namespace {

// The 16 pooled conv1 outputs at pooled pixel (py, px) of one image (28x28 floats in [0,1]):
// out[c] = max over the 2x2 window of ReLU(bias + 3x3 conv). `image` may be shared or global.
__device__ __forceinline__ void conv1_pooled_pixel(const float* image, int py, int px, const float* w /* [9][16] */,
                                                   const float* b, float out[16]) {
    float p[4][4];
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const int iy = 2 * py - 1 + r, ix = 2 * px - 1 + c;
            p[r][c] = (iy >= 0 && iy < kCnnSide && ix >= 0 && ix < kCnnSide) ? image[iy * kCnnSide + ix] : 0.0f;
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
__device__ __forceinline__ void conv2_pooled_block(const float* in_s, const float* w_s, const float* b_s,
                                                   int first_image, int count, float* pool2) {
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
            p[r][0] = lo.x;
            p[r][1] = lo.y;
            p[r][2] = hi.x;
            p[r][3] = hi.y;
        }
        const float* wc = wbase + ci * 9 * kCnnConv2Channels;
#pragma unroll
        for (int ky = 0; ky < 3; ++ky)
#pragma unroll
            for (int kx = 0; kx < 3; ++kx)
#pragma unroll
                for (int c4 = 0; c4 < CPT / 4; ++c4) {
                    const float4 wv = *reinterpret_cast<const float4*>(wc + (ky * 3 + kx) * kCnnConv2Channels + c4 * 4);
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
        out[(group * CPT + c) * kPool2Plane] = fmaxf(fmaxf(fmaxf(acc[c][0], acc[c][1]), fmaxf(acc[c][2], acc[c][3])),
                                                     0.0f);
}

// Copies conv2's weights and bias into shared memory (float4 where aligned).
__device__ __forceinline__ void load_conv2_weights(const float* w2t, const float* b2, float* w_s, float* b_s) {
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
    return conv2_smem_bytes<IMGS>() + sizeof(float) * (IMGS * kCnnPixels + 9 * kCnnConv1Channels + kCnnConv1Channels);
}

// conv1 + ReLU + pool, standalone: one thread per (image, pooled pixel), all 16 channels.
__global__ void __launch_bounds__(256)
    cnn_conv1_kernel(const uint8_t* images, int count, const float* w1t, const float* b1, float* pool1) {
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
            p[r][c] = (iy >= 0 && iy < kCnnSide && ix >= 0 && ix < kCnnSide) ? float(img[iy * kCnnSide + ix]) / 255.0f
                                                                             : 0.0f;
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
    cnn_conv2_kernel(const float* pool1, int count, const float* w2t, const float* b2, float* pool2) {
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
            v = pool1[size_t(first + img) * kPool1Size + ci * kPool1Plane + (y - 1) * kCnnPool1Side + (x - 1)];
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
    cnn_conv12_kernel(const uint8_t* images, int count, const float* w1t, const float* b1, const float* w2t,
                      const float* b2, float* pool2) {
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

// ---------------------------------------------------------------------------------------------
// Launchers

// Every (images per block, channels per thread) the launchers know. Large batches use 4x8
// (784 threads per block), small ones 1x4 (392 threads, short per-thread work: latency).
#define MS_CNN_TILINGS(X) X(1, 4) X(1, 8) X(2, 8) X(2, 16) X(4, 8) X(4, 16)

template <int IMGS, int CPT>
void set_conv_smem_limits_of() {
    CUDA_CHECK(cudaFuncSetAttribute(cnn_conv2_kernel<IMGS, CPT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(conv2_smem_bytes<IMGS>())));
    CUDA_CHECK(cudaFuncSetAttribute(cnn_conv12_kernel<IMGS, CPT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(conv12_smem_bytes<IMGS>())));
}

template <int IMGS, int CPT>
void launch_conv_tiled(const uint8_t* images, int count, bool fused, const ConvArgs& a, cudaStream_t stream) {
    const int blocks = (count + IMGS - 1) / IMGS;
    constexpr int threads = conv_threads<IMGS, CPT>();
    if (fused) {
        cnn_conv12_kernel<IMGS, CPT><<<blocks, threads, conv12_smem_bytes<IMGS>(), stream>>>(
            images, count, a.conv1_weight, a.conv1_bias, a.conv2_weight, a.conv2_bias, a.pool2);
    } else {
        cnn_conv2_kernel<IMGS, CPT><<<blocks, threads, conv2_smem_bytes<IMGS>(), stream>>>(
            a.pool1, count, a.conv2_weight, a.conv2_bias, a.pool2);
    }
    CUDA_CHECK_LAUNCH();
}

}  // namespace

bool conv_tiling_supported(ConvTiling t) {
#define MS_CNN_CHECK(I, C) \
    if (t.images_per_block == I && t.channels_per_thread == C) return true;
    MS_CNN_TILINGS(MS_CNN_CHECK)
#undef MS_CNN_CHECK
    return false;
}

void set_conv_smem_limits() {
#define MS_CNN_SMEM(I, C) set_conv_smem_limits_of<I, C>();
    MS_CNN_TILINGS(MS_CNN_SMEM)
#undef MS_CNN_SMEM
}

void launch_conv1(const uint8_t* images, int count, const ConvArgs& a, cudaStream_t stream) {
    const int threads = 256;
    const int64_t total = int64_t(count) * kPool1Plane;
    cnn_conv1_kernel<<<unsigned((total + threads - 1) / threads), threads, 0, stream>>>(images, count, a.conv1_weight,
                                                                                        a.conv1_bias, a.pool1);
    CUDA_CHECK_LAUNCH();
}

void launch_conv(ConvTiling t, const uint8_t* images, int count, bool fused, const ConvArgs& a, cudaStream_t stream) {
#define MS_CNN_LAUNCH(I, C)                                    \
    if (t.images_per_block == I && t.channels_per_thread == C) \
        return launch_conv_tiled<I, C>(images, count, fused, a, stream);
    MS_CNN_TILINGS(MS_CNN_LAUNCH)
#undef MS_CNN_LAUNCH
    throw std::runtime_error("unsupported conv tiling");
}

}  // namespace ms::cnn_cuda_detail
