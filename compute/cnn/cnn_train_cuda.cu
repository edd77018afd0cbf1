// cnn_train_cuda.cu: training on the GPU, the same algorithm as cnn_train.cpp (same initial
// weights, same shuffling and augmentation, Adam with the same cosine schedule), with straightforward kernels:
// one thread (or warp, or block) per output element, every sum in a fixed order (loops over
// the batch, fixed shared-memory trees, no atomics), so a run is reproducible bit for bit.
// CPU reference: cnn_loss_and_gradient_cpu; tests/demos/test_cnn.cpp compares the gradients.
//
// Napkin: 6.6 MFLOP per image per step; a batch of 64 is 0.42 GFLOP, tiny for a GPU, so a
// step is bound by its ~14 launches, not by arithmetic.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "compute/cnn/cnn_cuda.h"
#include "compute/cnn/cnn_train.h"
#include "compute/cnn/cnn_train_loop.h"
#include "compute/system/cuda_check.h"

namespace ms {

// ---------------------------------------------------------------------------------------------
// GPU kernels (weights in the file's layout: conv [out][in][3][3], fc [out][in])

namespace {

constexpr int kP1 = kCnnPool1Side * kCnnPool1Side;  // 196
constexpr int kPool1 = kCnnConv1Channels * kP1;     // 3136
constexpr int kP2 = kCnnPool2Side * kCnnPool2Side;  // 49
constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) { return unsigned((n + kThreads - 1) / kThreads); }

}  // namespace

// conv1 + ReLU + pool, keeping the argmax: one thread per pooled output (b, c, py, px).
__global__ void cnn_train_conv1_kernel(const uint8_t* images, const uint8_t* augment, const int* order, int batch,
                                       const float* w, const float* bias, float* pool1, uint8_t* arg1) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= batch * kPool1) return;
    const int b = t / kPool1, c = t % kPool1 / kP1, pos = t % kP1;
    const int py = pos / kCnnPool1Side, px = pos % kCnnPool1Side;
    const uint8_t* img = images + size_t(order[b]) * kCnnPixels;
    const uint8_t code = augment[order[b]];
    float best = -INFINITY;
    int arg = 0;
    for (int q = 0; q < 4; ++q) {
        const int y = 2 * py + q / 2, x = 2 * px + q % 2;
        float s = bias[c];
        for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
                const int iy = y + ky - 1, ix = x + kx - 1;
                if (iy >= 0 && iy < kCnnSide && ix >= 0 && ix < kCnnSide)
                    s = fmaf(w[c * 9 + ky * 3 + kx], cnn_augmented_pixel(img, code, iy, ix), s);
            }
        if (s > best) {
            best = s;
            arg = q;
        }
    }
    pool1[t] = fmaxf(best, 0.0f);
    arg1[t] = uint8_t(arg);
}

// conv2 + ReLU + pool, keeping the argmax: one thread per pooled output (b, co, py, px).
__global__ void cnn_train_conv2_kernel(const float* pool1, int batch, const float* w, const float* bias, float* pool2,
                                       uint8_t* arg2) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= batch * kCnnFlat) return;
    const int b = t / kCnnFlat, co = t % kCnnFlat / kP2, pos = t % kP2;
    const int py = pos / kCnnPool2Side, px = pos % kCnnPool2Side;
    const float* in = pool1 + size_t(b) * kPool1;
    float best = -INFINITY;
    int arg = 0;
    for (int q = 0; q < 4; ++q) {
        const int y = 2 * py + q / 2, x = 2 * px + q % 2;
        float s = bias[co];
        for (int ci = 0; ci < kCnnConv1Channels; ++ci)
            for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx) {
                    const int iy = y + ky - 1, ix = x + kx - 1;
                    if (iy >= 0 && iy < kCnnPool1Side && ix >= 0 && ix < kCnnPool1Side)
                        s = fmaf(w[(co * kCnnConv1Channels + ci) * 9 + ky * 3 + kx],
                                 in[ci * kP1 + iy * kCnnPool1Side + ix], s);
                }
        if (s > best) {
            best = s;
            arg = q;
        }
    }
    pool2[t] = fmaxf(best, 0.0f);
    arg2[t] = uint8_t(arg);
}

// fc1 + ReLU: one warp per (b, h), lanes stride over the 1568 inputs, fixed shuffle tree.
__global__ void cnn_train_fc1_kernel(const float* pool2, int batch, const float* w, const float* bias, float* hidden) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= batch * kCnnHidden) return;
    const int b = warp / kCnnHidden, h = warp % kCnnHidden;
    float s = 0.0f;
    for (int k = lane; k < kCnnFlat; k += 32) s = fmaf(pool2[size_t(b) * kCnnFlat + k], w[size_t(h) * kCnnFlat + k], s);
    for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xFFFFFFFFu, s, off);
    if (lane == 0) hidden[b * kCnnHidden + h] = fmaxf(s + bias[h], 0.0f);
}

// fc2, softmax, cross-entropy and dlogits = (p - onehot) / batch: one thread per image.
__global__ void cnn_train_fc2_loss_kernel(const float* hidden, const uint8_t* labels, const int* order, int batch,
                                          const float* w, const float* bias, float* dlogits, float* loss,
                                          int* correct) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    float z[kCnnClasses];
    for (int c = 0; c < kCnnClasses; ++c) {
        float s = bias[c];
        for (int j = 0; j < kCnnHidden; ++j) s = fmaf(w[c * kCnnHidden + j], hidden[b * kCnnHidden + j], s);
        z[c] = s;
    }
    const int label = labels[order[b]];
    int best = 0;
    for (int c = 1; c < kCnnClasses; ++c)
        if (z[c] > z[best]) best = c;
    const float max_z = z[best];
    float sum = 0.0f;
    for (int c = 0; c < kCnnClasses; ++c) sum += (z[c] = expf(z[c] - max_z));
    for (int c = 0; c < kCnnClasses; ++c) {
        const float p = z[c] / sum;
        if (c == label) loss[b] = -logf(fmaxf(p, 1e-30f));
        dlogits[b * kCnnClasses + c] = (p - (c == label ? 1.0f : 0.0f)) / float(batch);
    }
    correct[b] = best == label;
}

// fc2's gradients: dW[c][j] = sum_b dlogits[b][c] h[b][j] (640 threads), db[c] (10 threads).
__global__ void cnn_train_fc2_grad_kernel(const float* dlogits, const float* hidden, int batch, float* gw, float* gb) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int weights = kCnnClasses * kCnnHidden;
    if (t >= weights + kCnnClasses) return;
    float s = 0.0f;
    if (t < weights) {
        const int c = t / kCnnHidden, j = t % kCnnHidden;
        for (int b = 0; b < batch; ++b) s = fmaf(dlogits[b * kCnnClasses + c], hidden[b * kCnnHidden + j], s);
        gw[t] = s;
    } else {
        for (int b = 0; b < batch; ++b) s += dlogits[b * kCnnClasses + (t - weights)];
        gb[t - weights] = s;
    }
}

// dhidden[b][j] = sum_c dlogits[b][c] W2[c][j], gated by ReLU (hidden > 0).
__global__ void cnn_train_dhidden_kernel(const float* dlogits, const float* hidden, int batch, const float* w2,
                                         float* dhidden) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= batch * kCnnHidden) return;
    const int b = t / kCnnHidden, j = t % kCnnHidden;
    float s = 0.0f;
    for (int c = 0; c < kCnnClasses; ++c) s = fmaf(dlogits[b * kCnnClasses + c], w2[c * kCnnHidden + j], s);
    dhidden[t] = hidden[t] > 0.0f ? s : 0.0f;
}

// fc1's gradients: dW[h][k] = sum_b dh[b][h] pool2[b][k] (coalesced over k), db[h].
__global__ void cnn_train_fc1_grad_kernel(const float* dhidden, const float* pool2, int batch, float* gw, float* gb) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int weights = kCnnHidden * kCnnFlat;
    if (t >= weights + kCnnHidden) return;
    float s = 0.0f;
    if (t < weights) {
        const int h = t / kCnnFlat, k = t % kCnnFlat;
        for (int b = 0; b < batch; ++b) s = fmaf(dhidden[b * kCnnHidden + h], pool2[size_t(b) * kCnnFlat + k], s);
        gw[t] = s;
    } else {
        for (int b = 0; b < batch; ++b) s += dhidden[b * kCnnHidden + (t - weights)];
        gb[t - weights] = s;
    }
}

// dpool2[b][k] = sum_h dh[b][h] W1[h][k].
__global__ void cnn_train_dpool2_kernel(const float* dhidden, int batch, const float* w1, float* dpool2) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= batch * kCnnFlat) return;
    const int b = t / kCnnFlat, k = t % kCnnFlat;
    float s = 0.0f;
    for (int h = 0; h < kCnnHidden; ++h) s = fmaf(dhidden[b * kCnnHidden + h], w1[size_t(h) * kCnnFlat + k], s);
    dpool2[t] = s;
}

// Backward of ReLU + 2x2 max-pool: one thread per pooled value writes its 2x2 window
// (the gradient at the argmax where the pooled value was > 0, zero elsewhere).
__global__ void cnn_train_pool_backward_kernel(const float* dpool, const float* pooled, const uint8_t* arg, int planes,
                                               int side, float* dout) {
    const int half = side / 2;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= planes * half * half) return;
    const int plane = t / (half * half), pos = t % (half * half);
    const int py = pos / half, px = pos % half;
    const float g = pooled[t] > 0.0f ? dpool[t] : 0.0f;
    const int q = arg[t];
    float* o = dout + size_t(plane) * side * side;
    for (int qq = 0; qq < 4; ++qq) o[(2 * py + qq / 2) * side + 2 * px + qq % 2] = qq == q ? g : 0.0f;
}

// A convolution's weight and bias gradients, one block per output value:
//   dW[co][ci][ky][kx] = sum over b, y, x of dout[b][co][y][x] * in[b][ci][y+ky-1][x+kx-1]
//   db[co]             = sum over b, y, x of dout[b][co][y][x]       (blocks past the weights)
// Each thread sums a fixed stride of the terms, then a fixed shared-memory tree: deterministic.
// conv1 reads its input straight from the images (kFromImages), conv2 from pool1.
template <bool kFromImages>
__global__ void __launch_bounds__(kThreads)
    cnn_train_conv_grad_kernel(const float* dout, const float* in, const uint8_t* images, const uint8_t* augment,
                               const int* order, int batch, int cin, int cout, int side, float* gw, float* gb) {
    __shared__ float part[kThreads];
    const int o = blockIdx.x;
    const int plane = side * side;
    const int terms = batch * plane;
    const int weights = cout * cin * 9;
    float s = 0.0f;
    if (o < weights) {
        const int co = o / (cin * 9), ci = o / 9 % cin, ky = o % 9 / 3, kx = o % 3;
        for (int i = threadIdx.x; i < terms; i += kThreads) {
            const int b = i / plane, p = i % plane;
            const int iy = p / side + ky - 1, ix = p % side + kx - 1;
            if (iy < 0 || iy >= side || ix < 0 || ix >= side) continue;
            const float v = kFromImages
                                ? cnn_augmented_pixel(images + size_t(order[b]) * kCnnPixels, augment[order[b]], iy, ix)
                                : in[(size_t(b) * cin + ci) * plane + iy * side + ix];
            s = fmaf(dout[(size_t(b) * cout + co) * plane + p], v, s);
        }
    } else {
        const int co = o - weights;
        for (int i = threadIdx.x; i < terms; i += kThreads)
            s += dout[(size_t(i / plane) * cout + co) * plane + i % plane];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) part[threadIdx.x] += part[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) (o < weights ? gw[o] : gb[o - weights]) = part[0];
}

// conv2's input gradient (a transposed convolution): dpool1[b][ci][y][x] =
// sum over co, ky, kx of dout2[b][co][y-ky+1][x-kx+1] * W2[co][ci][ky][kx].
__global__ void cnn_train_conv2_input_grad_kernel(const float* dout2, int batch, const float* w2, float* dpool1) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= batch * kPool1) return;
    const int b = t / kPool1, ci = t % kPool1 / kP1, y = t % kP1 / kCnnPool1Side, x = t % kCnnPool1Side;
    float s = 0.0f;
    for (int co = 0; co < kCnnConv2Channels; ++co)
        for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
                const int oy = y - ky + 1, ox = x - kx + 1;
                if (oy < 0 || oy >= kCnnPool1Side || ox < 0 || ox >= kCnnPool1Side) continue;
                s = fmaf(dout2[(size_t(b) * kCnnConv2Channels + co) * kP1 + oy * kCnnPool1Side + ox],
                         w2[(co * kCnnConv1Channels + ci) * 9 + ky * 3 + kx], s);
            }
    dpool1[t] = s;
}

// Adam, element-wise (same formula as cnn_adam_step).
__global__ void cnn_train_adam_kernel(float* w, const float* g, float* m, float* v, int count, float step_size,
                                      float inv_sqrt_c2) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    constexpr float kBeta1 = 0.9f, kBeta2 = 0.999f, kEpsilon = 1e-8f;
    m[i] = kBeta1 * m[i] + (1.0f - kBeta1) * g[i];
    v[i] = kBeta2 * v[i] + (1.0f - kBeta2) * g[i] * g[i];
    w[i] -= step_size * m[i] / (sqrtf(v[i]) * inv_sqrt_c2 + kEpsilon);
}

// ---------------------------------------------------------------------------------------------
// Launchers

namespace {

// Device state of one training run: the whole data set, the weights, gradients, Adam's
// moments, and the activations of one minibatch.
struct CudaTrainer {
    int max_batch = 0;
    cudaStream_t stream = nullptr;
    uint8_t* images = nullptr;
    uint8_t* labels = nullptr;
    uint8_t* augment = nullptr;  // one code per image (cnn_random_augmentation)
    int* order = nullptr;
    float *params = nullptr, *grads = nullptr, *adam_m = nullptr, *adam_v = nullptr;
    float *pool1 = nullptr, *pool2 = nullptr, *hidden = nullptr, *dlogits = nullptr;
    float *dhidden = nullptr, *dpool2 = nullptr, *dout2 = nullptr, *dpool1 = nullptr;
    float *dout1 = nullptr, *loss = nullptr;
    uint8_t *arg1 = nullptr, *arg2 = nullptr;
    int* correct = nullptr;
    std::vector<float> host_loss;
    std::vector<int> host_correct;

    CudaTrainer() = default;
    // Separate from the constructor so the destructor frees what a failed allocation left.
    void allocate(const FashionMnist& data, int batch) {
        max_batch = batch;
        const size_t n = size_t(batch);
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        CUDA_CHECK(cuda_malloc(&images, data.images.size()));
        CUDA_CHECK(cudaMemcpy(images, data.images.data(), data.images.size(), cudaMemcpyHostToDevice));
        CUDA_CHECK(cuda_malloc(&labels, data.labels.size()));
        CUDA_CHECK(cudaMemcpy(labels, data.labels.data(), data.labels.size(), cudaMemcpyHostToDevice));
        CUDA_CHECK(cuda_malloc(&order, sizeof(int) * std::max(data.count, 1)));
        CUDA_CHECK(cuda_malloc(&augment, std::max(data.count, 1)));
        CUDA_CHECK(cudaMemset(augment, kCnnAugmentIdentity, std::max(data.count, 1)));
        for (float** p : {&params, &grads, &adam_m, &adam_v})
            CUDA_CHECK(cuda_malloc(p, sizeof(float) * kCnnParameterCount));
        CUDA_CHECK(cudaMemset(adam_m, 0, sizeof(float) * kCnnParameterCount));
        CUDA_CHECK(cudaMemset(adam_v, 0, sizeof(float) * kCnnParameterCount));
        CUDA_CHECK(cuda_malloc(&pool1, sizeof(float) * n * kPool1));
        CUDA_CHECK(cuda_malloc(&pool2, sizeof(float) * n * kCnnFlat));
        CUDA_CHECK(cuda_malloc(&hidden, sizeof(float) * n * kCnnHidden));
        CUDA_CHECK(cuda_malloc(&dlogits, sizeof(float) * n * kCnnClasses));
        CUDA_CHECK(cuda_malloc(&dhidden, sizeof(float) * n * kCnnHidden));
        CUDA_CHECK(cuda_malloc(&dpool2, sizeof(float) * n * kCnnFlat));
        CUDA_CHECK(cuda_malloc(&dout2, sizeof(float) * n * kCnnConv2Channels * kP1));
        CUDA_CHECK(cuda_malloc(&dpool1, sizeof(float) * n * kPool1));
        CUDA_CHECK(cuda_malloc(&dout1, sizeof(float) * n * kCnnConv1Channels * kCnnPixels));
        CUDA_CHECK(cuda_malloc(&loss, sizeof(float) * n));
        CUDA_CHECK(cuda_malloc(&arg1, n * kPool1));
        CUDA_CHECK(cuda_malloc(&arg2, n * kCnnFlat));
        CUDA_CHECK(cuda_malloc(&correct, sizeof(int) * n));
        host_loss.resize(n);
        host_correct.resize(n);
    }
    ~CudaTrainer() {
        for (void* p : std::initializer_list<void*>{images, labels, augment, order,  params,  grads,   adam_m,
                                                    adam_v, pool1,  pool2,   hidden, dlogits, dhidden, dpool2,
                                                    dout2,  dpool1, dout1,   loss,   arg1,    arg2,    correct})
            cudaFree(p);
        if (stream) cudaStreamDestroy(stream);
    }
    CudaTrainer(const CudaTrainer&) = delete;
    CudaTrainer& operator=(const CudaTrainer&) = delete;

    float* param(CnnTensor t) const { return params + kCnnTensors[t].offset; }
    float* grad(CnnTensor t) const { return grads + kCnnTensors[t].offset; }

    void set_weights(const CnnWeights& w) {
        CUDA_CHECK(cudaMemcpy(params, w.values.data(), sizeof(float) * kCnnParameterCount, cudaMemcpyHostToDevice));
    }
    CnnWeights weights() const {
        CnnWeights w;
        CUDA_CHECK(cudaMemcpy(w.values.data(), params, sizeof(float) * kCnnParameterCount, cudaMemcpyDeviceToHost));
        return w;
    }
    CnnWeights gradient() const {
        CnnWeights g;
        CUDA_CHECK(cudaMemcpy(g.values.data(), grads, sizeof(float) * kCnnParameterCount, cudaMemcpyDeviceToHost));
        return g;
    }

    // Forward and backward of images order[first .. first+n) into `grads`; returns the summed
    // loss (host, fixed order) and the number classified right.
    double loss_and_gradient(int first, int n, int* correct_out) {
        const int* ord = order + first;
        cnn_train_conv1_kernel<<<blocks_for(int64_t(n) * kPool1), kThreads, 0, stream>>>(
            images, augment, ord, n, param(kConv1Weight), param(kConv1Bias), pool1, arg1);
        CUDA_CHECK_LAUNCH();
        cnn_train_conv2_kernel<<<blocks_for(int64_t(n) * kCnnFlat), kThreads, 0, stream>>>(
            pool1, n, param(kConv2Weight), param(kConv2Bias), pool2, arg2);
        CUDA_CHECK_LAUNCH();
        cnn_train_fc1_kernel<<<blocks_for(int64_t(n) * kCnnHidden * 32), kThreads, 0, stream>>>(
            pool2, n, param(kFc1Weight), param(kFc1Bias), hidden);
        CUDA_CHECK_LAUNCH();
        cnn_train_fc2_loss_kernel<<<blocks_for(n), kThreads, 0, stream>>>(hidden, labels, ord, n, param(kFc2Weight),
                                                                          param(kFc2Bias), dlogits, loss, correct);
        CUDA_CHECK_LAUNCH();
        cnn_train_fc2_grad_kernel<<<blocks_for(kCnnClasses * (kCnnHidden + 1)), kThreads, 0, stream>>>(
            dlogits, hidden, n, grad(kFc2Weight), grad(kFc2Bias));
        CUDA_CHECK_LAUNCH();
        cnn_train_dhidden_kernel<<<blocks_for(int64_t(n) * kCnnHidden), kThreads, 0, stream>>>(
            dlogits, hidden, n, param(kFc2Weight), dhidden);
        CUDA_CHECK_LAUNCH();
        cnn_train_fc1_grad_kernel<<<blocks_for(kCnnHidden * (kCnnFlat + 1)), kThreads, 0, stream>>>(
            dhidden, pool2, n, grad(kFc1Weight), grad(kFc1Bias));
        CUDA_CHECK_LAUNCH();
        cnn_train_dpool2_kernel<<<blocks_for(int64_t(n) * kCnnFlat), kThreads, 0, stream>>>(dhidden, n,
                                                                                            param(kFc1Weight), dpool2);
        CUDA_CHECK_LAUNCH();
        cnn_train_pool_backward_kernel<<<blocks_for(int64_t(n) * kCnnFlat), kThreads, 0, stream>>>(
            dpool2, pool2, arg2, n * kCnnConv2Channels, kCnnPool1Side, dout2);
        CUDA_CHECK_LAUNCH();
        cnn_train_conv_grad_kernel<false><<<kCnnConv2Channels*(kCnnConv1Channels * 9 + 1), kThreads, 0, stream>>>(
            dout2, pool1, nullptr, nullptr, nullptr, n, kCnnConv1Channels, kCnnConv2Channels, kCnnPool1Side,
            grad(kConv2Weight), grad(kConv2Bias));
        CUDA_CHECK_LAUNCH();
        cnn_train_conv2_input_grad_kernel<<<blocks_for(int64_t(n) * kPool1), kThreads, 0, stream>>>(
            dout2, n, param(kConv2Weight), dpool1);
        CUDA_CHECK_LAUNCH();
        cnn_train_pool_backward_kernel<<<blocks_for(int64_t(n) * kPool1), kThreads, 0, stream>>>(
            dpool1, pool1, arg1, n * kCnnConv1Channels, kCnnSide, dout1);
        CUDA_CHECK_LAUNCH();
        cnn_train_conv_grad_kernel<true><<<kCnnConv1Channels*(9 + 1), kThreads, 0, stream>>>(
            dout1, nullptr, images, augment, ord, n, 1, kCnnConv1Channels, kCnnSide, grad(kConv1Weight),
            grad(kConv1Bias));
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaMemcpyAsync(host_loss.data(), loss, sizeof(float) * n, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaMemcpyAsync(host_correct.data(), correct, sizeof(int) * n, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        double sum = 0.0;
        int right = 0;
        for (int i = 0; i < n; ++i) {
            sum += host_loss[i];
            right += host_correct[i];
        }
        if (correct_out) *correct_out = right;
        return sum;
    }

    void adam_step(int64_t step, float learning_rate) {
        const float correction1 = 1.0f - std::pow(0.9f, float(step));
        const float correction2 = 1.0f - std::pow(0.999f, float(step));
        cnn_train_adam_kernel<<<blocks_for(int64_t(kCnnParameterCount)), kThreads, 0, stream>>>(
            params, grads, adam_m, adam_v, int(kCnnParameterCount), learning_rate / correction1,
            1.0f / std::sqrt(correction2));
        CUDA_CHECK_LAUNCH();
    }
};

}  // namespace

double cnn_loss_and_gradient_cuda(const CnnWeights& weights, const FashionMnist& data, const int* indices, int count,
                                  CnnWeights* gradient, int* correct, const uint8_t* augmentation) {
    std::string reason;
    if (!cnn_cuda_available(&reason)) throw std::runtime_error("cannot use CUDA: " + reason);
    CudaTrainer t;
    t.allocate(data, count);
    t.set_weights(weights);
    CUDA_CHECK(cudaMemcpy(t.order, indices, sizeof(int) * count, cudaMemcpyHostToDevice));
    if (augmentation) CUDA_CHECK(cudaMemcpy(t.augment, augmentation, data.count, cudaMemcpyHostToDevice));
    const double loss = t.loss_and_gradient(0, count, correct);
    *gradient = t.gradient();
    return loss / count;
}

CnnTrainResult cnn_train_cuda(const FashionMnist& train, const FashionMnist* test, const CnnTrainOptions& options) {
    using Clock = std::chrono::steady_clock;
    std::string reason;
    if (!cnn_cuda_available(&reason)) throw std::runtime_error("cannot use CUDA: " + reason);
    const Clock::time_point start = Clock::now();
    CnnTrainResult result;
    const int batch = std::min(options.batch, train.count);
    CudaTrainer t;
    t.allocate(train, batch);
    t.set_weights(cnn_init_weights(options.seed));
    CnnCudaHandle eval;
    if (test && test->count > 0) eval = cnn_cuda_create(t.weights(), std::min(test->count, 10000));
    std::vector<float> test_logits(test ? size_t(test->count) * kCnnClasses : 0);

    // The same shuffling, augmentation and schedule as the CPU trainer (cnn_train_loop.h).
    CnnTrainSteps steps;
    steps.start_epoch = [&](const std::vector<int>& order, const std::vector<uint8_t>& augmentation) {
        CUDA_CHECK(cudaMemcpy(t.order, order.data(), sizeof(int) * train.count, cudaMemcpyHostToDevice));
        if (options.augment)
            CUDA_CHECK(cudaMemcpy(t.augment, augmentation.data(), train.count, cudaMemcpyHostToDevice));
    };
    steps.train_batch = [&](int first, int n, float lr, int64_t step, int* correct) {
        const double loss_sum = t.loss_and_gradient(first, n, correct);
        t.adam_step(step, lr);
        return loss_sum;
    };
    steps.finish_epoch = [&] { CUDA_CHECK(cudaStreamSynchronize(t.stream)); };
    if (eval)
        steps.test_accuracy = [&] {
            cnn_cuda_set_weights(*eval, t.weights());
            cnn_cuda_forward(*eval, test->images.data(), test->count, test_logits.data());
            int right = 0;
            for (int i = 0; i < test->count; ++i)
                right += cnn_argmax(&test_logits[size_t(i) * kCnnClasses]) == test->labels[i];
            return double(right) / test->count;
        };
    cnn_run_training(train.count, options, steps, start, &result);
    CUDA_CHECK(cudaStreamSynchronize(t.stream));
    result.weights = t.weights();
    return result;
}

}  // namespace ms
