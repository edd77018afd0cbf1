// cnn_train.cpp: CPU training. Forward and backward passes per chunk of kCnnTrainChunk images
// on one thread each (cnn_cpu_layers + cnn_gemm), chunk gradients summed in a fixed order, Adam.
//
// Backward pass of one chunk (n images, B = minibatch size, p = softmax):
//   dlogits = (p - onehot) / B
//   fc2:   dW = dlogits^T h      db = sum dlogits     dh = dlogits W2, gated by h > 0
//   fc1:   dW = dh^T pool2       db = sum dh          dpool2 = dh W1
//   per image: pool2 -> dout2 (argmax, ReLU gate); conv2: dW += dout2 col2^T, db += rows,
//   dcol2 = W2^T dout2 -> col2im -> dpool1 -> dout1; conv1: dW += dout1 col1^T, db += rows.
// Napkin: about 3x the forward's 2.2 MFLOP, 6.6 MFLOP per image, 400 GFLOP per epoch.
#include "compute/cnn/cnn_train.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "compute/cnn/cnn_cpu.h"
#include "compute/cnn/cnn_cpu_layers.h"
#include "compute/cnn/cnn_gemm.h"
#include "compute/cnn/cnn_train_loop.h"

namespace ms {

namespace {

using namespace cnn_detail;
using Clock = std::chrono::steady_clock;

constexpr int kN = kCnnTrainChunk;
constexpr int kPool2Plane = kCnnPool2Side * kCnnPool2Side;  // 49

// Everything one thread needs for one chunk; the activations of each image are kept for the
// backward pass (col1 and col2 are rebuilt instead: they are cheap and large).
struct TrainScratch {
    std::vector<float> image = std::vector<float>(kCnnPixels);
    std::vector<float> col1 = std::vector<float>(kCol1Rows * kConv1Spatial);
    std::vector<float> out1 = std::vector<float>(kCnnConv1Channels * kConv1Spatial);
    std::vector<float> col2 = std::vector<float>(kCol2Rows * kConv2Stride);
    std::vector<float> out2 = std::vector<float>(kCnnConv2Channels * kConv2Stride);
    std::vector<float> pool1 = std::vector<float>(kN * kPool1Size);
    std::vector<uint8_t> arg1 = std::vector<uint8_t>(kN * kPool1Size);
    std::vector<float> pool2 = std::vector<float>(kN * kCnnFlat);
    std::vector<uint8_t> arg2 = std::vector<uint8_t>(kN * kCnnFlat);
    std::vector<float> hidden = std::vector<float>(kN * kCnnHidden);
    std::vector<float> logits = std::vector<float>(kN * kCnnClasses);
    std::vector<float> dlogits = std::vector<float>(kN * kCnnClasses);
    std::vector<float> dhidden = std::vector<float>(kN * kCnnHidden);
    std::vector<float> dpool2 = std::vector<float>(kN * kCnnFlat);
    std::vector<float> dout2 = std::vector<float>(kCnnConv2Channels * kConv2Stride);
    std::vector<float> dcol2 = std::vector<float>(kCol2Rows * kConv2Stride);
    std::vector<float> dpool1 = std::vector<float>(kPool1Size);
    std::vector<float> dout1 = std::vector<float>(kCnnConv1Channels * kConv1Spatial);
};

void add_row_sums(const float* c, int rows, int cols, int ldc, float* out) {
    for (int r = 0; r < rows; ++r) {
        float s = 0.0f;
        for (int x = 0; x < cols; ++x) s += c[r * ldc + x];
        out[r] += s;
    }
}

// Loss (summed, not averaged) and gradient (overwritten, scaled by 1/batch) of one chunk.
// The network's input for training image `i`: scaled, and augmented when codes are given.
void training_image(const FashionMnist& data, int i, const uint8_t* augmentation, float* out) {
    if (!augmentation || augmentation[i] == kCnnAugmentIdentity) {
        normalize_image(data.image(i), out);
        return;
    }
    for (int y = 0; y < kCnnSide; ++y)
        for (int x = 0; x < kCnnSide; ++x)
            out[y * kCnnSide + x] = cnn_augmented_pixel(data.image(i), augmentation[i], y, x);
}

double chunk_loss_and_gradient(const CnnWeights& w, const FashionMnist& data, const int* idx,
                               const uint8_t* augmentation, int n, int batch, TrainScratch& s, CnnWeights& g,
                               int* correct) {
    // ---- forward, keeping what the backward pass needs
    for (int i = 0; i < n; ++i) {
        training_image(data, idx[i], augmentation, s.image.data());
        im2col_3x3(s.image.data(), 1, kCnnSide, s.col1.data(), kConv1Spatial);
        fill_rows_with_bias(s.out1.data(), kCnnConv1Channels, kConv1Spatial, kConv1Spatial, w.tensor(kConv1Bias));
        cnn_gemm_nn(kCnnConv1Channels, kConv1Spatial, kCol1Rows, w.tensor(kConv1Weight), kCol1Rows, 1, s.col1.data(),
                    kConv1Spatial, s.out1.data(), kConv1Spatial, true);
        relu_maxpool2(s.out1.data(), kCnnConv1Channels, kCnnSide, kConv1Spatial, &s.pool1[i * kPool1Size],
                      kConv2Spatial, &s.arg1[i * kPool1Size]);
        im2col_3x3(&s.pool1[i * kPool1Size], kCnnConv1Channels, kCnnPool1Side, s.col2.data(), kConv2Stride);
        fill_rows_with_bias(s.out2.data(), kCnnConv2Channels, kConv2Stride, kConv2Stride, w.tensor(kConv2Bias));
        cnn_gemm_nn(kCnnConv2Channels, kConv2Stride, kCol2Rows, w.tensor(kConv2Weight), kCol2Rows, 1, s.col2.data(),
                    kConv2Stride, s.out2.data(), kConv2Stride, true);
        relu_maxpool2(s.out2.data(), kCnnConv2Channels, kCnnPool1Side, kConv2Stride, &s.pool2[i * kCnnFlat],
                      kPool2Plane, &s.arg2[i * kCnnFlat]);
    }
    fill_cols_with_bias(s.hidden.data(), n, kCnnHidden, kCnnHidden, w.tensor(kFc1Bias));
    cnn_gemm_nt(n, kCnnHidden, kCnnFlat, s.pool2.data(), kCnnFlat, w.tensor(kFc1Weight), kCnnFlat, s.hidden.data(),
                kCnnHidden, true);
    for (int i = 0; i < n * kCnnHidden; ++i) s.hidden[i] = std::max(s.hidden[i], 0.0f);
    fill_cols_with_bias(s.logits.data(), n, kCnnClasses, kCnnClasses, w.tensor(kFc2Bias));
    cnn_gemm_nt(n, kCnnClasses, kCnnHidden, s.hidden.data(), kCnnHidden, w.tensor(kFc2Weight), kCnnHidden,
                s.logits.data(), kCnnClasses, true);

    // ---- loss and dlogits
    double loss = 0.0;
    cnn_softmax(s.logits.data(), n, s.dlogits.data());
    for (int i = 0; i < n; ++i) {
        float* d = &s.dlogits[i * kCnnClasses];
        const int label = data.labels[idx[i]];
        if (correct && cnn_argmax(&s.logits[i * kCnnClasses]) == label) ++*correct;
        loss -= std::log(std::max(double(d[label]), 1e-30));
        d[label] -= 1.0f;
        for (int c = 0; c < kCnnClasses; ++c) d[c] /= float(batch);
    }

    // ---- backward
    std::fill(g.values.begin(), g.values.end(), 0.0f);
    // fc2
    cnn_gemm_nn(kCnnClasses, kCnnHidden, n, s.dlogits.data(), 1, kCnnClasses, s.hidden.data(), kCnnHidden,
                g.tensor(kFc2Weight), kCnnHidden, true);
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < kCnnClasses; ++c) g.tensor(kFc2Bias)[c] += s.dlogits[i * kCnnClasses + c];
    cnn_gemm_nn(n, kCnnHidden, kCnnClasses, s.dlogits.data(), kCnnClasses, 1, w.tensor(kFc2Weight), kCnnHidden,
                s.dhidden.data(), kCnnHidden, false);
    for (int i = 0; i < n * kCnnHidden; ++i)
        if (!(s.hidden[i] > 0.0f)) s.dhidden[i] = 0.0f;
    // fc1
    cnn_gemm_nn(kCnnHidden, kCnnFlat, n, s.dhidden.data(), 1, kCnnHidden, s.pool2.data(), kCnnFlat,
                g.tensor(kFc1Weight), kCnnFlat, true);
    for (int i = 0; i < n; ++i)
        for (int o = 0; o < kCnnHidden; ++o) g.tensor(kFc1Bias)[o] += s.dhidden[i * kCnnHidden + o];
    cnn_gemm_nn(n, kCnnFlat, kCnnHidden, s.dhidden.data(), kCnnHidden, 1, w.tensor(kFc1Weight), kCnnFlat,
                s.dpool2.data(), kCnnFlat, false);
    // conv2 and conv1, one image at a time
    for (int i = 0; i < n; ++i) {
        relu_maxpool2_backward(&s.dpool2[i * kCnnFlat], &s.pool2[i * kCnnFlat], &s.arg2[i * kCnnFlat],
                               kCnnConv2Channels, kCnnPool1Side, kPool2Plane, s.dout2.data(), kConv2Stride);
        im2col_3x3(&s.pool1[i * kPool1Size], kCnnConv1Channels, kCnnPool1Side, s.col2.data(), kConv2Stride);
        cnn_gemm_nt(kCnnConv2Channels, kCol2Rows, kConv2Stride, s.dout2.data(), kConv2Stride, s.col2.data(),
                    kConv2Stride, g.tensor(kConv2Weight), kCol2Rows, true);
        add_row_sums(s.dout2.data(), kCnnConv2Channels, kConv2Spatial, kConv2Stride, g.tensor(kConv2Bias));
        cnn_gemm_nn(kCol2Rows, kConv2Stride, kCnnConv2Channels, w.tensor(kConv2Weight), 1, kCol2Rows, s.dout2.data(),
                    kConv2Stride, s.dcol2.data(), kConv2Stride, false);
        col2im_3x3(s.dcol2.data(), kCnnConv1Channels, kCnnPool1Side, kConv2Stride, s.dpool1.data());
        relu_maxpool2_backward(s.dpool1.data(), &s.pool1[i * kPool1Size], &s.arg1[i * kPool1Size], kCnnConv1Channels,
                               kCnnSide, kConv2Spatial, s.dout1.data(), kConv1Spatial);
        training_image(data, idx[i], augmentation, s.image.data());
        im2col_3x3(s.image.data(), 1, kCnnSide, s.col1.data(), kConv1Spatial);
        cnn_gemm_nt(kCnnConv1Channels, kCol1Rows, kConv1Spatial, s.dout1.data(), kConv1Spatial, s.col1.data(),
                    kConv1Spatial, g.tensor(kConv1Weight), kCol1Rows, true);
        add_row_sums(s.dout1.data(), kCnnConv1Channels, kConv1Spatial, kConv1Spatial, g.tensor(kConv1Bias));
    }
    return loss;
}

// Per-thread scratch and per-chunk gradients, kept across steps.
struct TrainWorkspace {
    int threads = 1;
    std::vector<TrainScratch> scratch;        // one per thread
    std::vector<CnnWeights> chunk_gradients;  // one per chunk of the largest batch
};

double batch_loss_and_gradient(const CnnWeights& w, const FashionMnist& data, const int* idx,
                               const uint8_t* augmentation, int count, TrainWorkspace& ws, CnnWeights& gradient,
                               int* correct_out) {
    const int chunks = (count + kN - 1) / kN;
    if (int(ws.chunk_gradients.size()) < chunks) ws.chunk_gradients.resize(chunks);
    std::vector<double> chunk_loss(chunks, 0.0);
    std::vector<int> chunk_correct(chunks, 0);
    const int threads = std::min(ws.threads, chunks);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int c = 0; c < chunks; ++c) {
        const int first = c * kN;
        const int n = std::min(kN, count - first);
        chunk_loss[c] = chunk_loss_and_gradient(w, data, idx + first, augmentation, n, count,
                                                ws.scratch[omp_get_thread_num()], ws.chunk_gradients[c],
                                                &chunk_correct[c]);
    }
    // Fixed-order sum over chunks (each parameter independently, so this may be parallel).
    float* out = gradient.values.data();
    const int64_t params = int64_t(kCnnParameterCount);
#pragma omp parallel for num_threads(ws.threads) schedule(static)
    for (int64_t p = 0; p < params; ++p) {
        float s = ws.chunk_gradients[0].values[p];
        for (int c = 1; c < chunks; ++c) s += ws.chunk_gradients[c].values[p];
        out[p] = s;
    }
    double loss = 0.0;
    int correct = 0;
    for (int c = 0; c < chunks; ++c) {
        loss += chunk_loss[c];
        correct += chunk_correct[c];
    }
    if (correct_out) *correct_out = correct;
    return loss / count;
}

TrainWorkspace make_workspace(int threads) {
    TrainWorkspace ws;
    ws.threads = threads > 0 ? threads : omp_get_max_threads();
    ws.scratch.resize(ws.threads);
    return ws;
}

void check_options(const FashionMnist& train, const CnnTrainOptions& o) {
    if (o.epochs < 1) throw std::runtime_error("the number of epochs must be at least 1");
    if (o.batch < 1 || o.batch > 4096) throw std::runtime_error("the batch size must be between 1 and 4096");
    if (!(o.learning_rate > 0.0f) || o.learning_rate > 1.0f)
        throw std::runtime_error("the learning rate must be in (0, 1]");
    if (train.count < 1) throw std::runtime_error("no training images");
    if (o.max_shift < 0 || o.max_shift > 2) throw std::runtime_error("the augmentation shift must be 0, 1 or 2 pixels");
}

}  // namespace

uint8_t cnn_random_augmentation(CnnRng& rng, int max_shift) {
    const uint32_t span = uint32_t(2 * max_shift + 1);
    const uint32_t r = rng.next_below(2 * span * span);
    const uint32_t dx = r / 2 % span + 2 - max_shift, dy = r / (2 * span) + 2 - max_shift;
    return uint8_t((r % 2) | (dx << 1) | (dy << 4));
}

double cnn_loss_and_gradient_cpu(const CnnWeights& w, const FashionMnist& data, const int* indices, int count,
                                 CnnWeights* gradient, int* correct, int threads, const uint8_t* augmentation) {
    TrainWorkspace ws = make_workspace(threads);
    return batch_loss_and_gradient(w, data, indices, augmentation, count, ws, *gradient, correct);
}

double cnn_mean_loss_cpu(const CnnWeights& w, const FashionMnist& data, int count, double* accuracy) {
    count = std::min(count, data.count);
    std::vector<float> logits(size_t(count) * kCnnClasses), p(kCnnClasses);
    cnn_forward_cpu(w, data.images.data(), count, logits.data());
    double loss = 0.0;
    int correct = 0;
    for (int i = 0; i < count; ++i) {
        cnn_softmax(&logits[i * kCnnClasses], 1, p.data());
        loss -= std::log(std::max(double(p[data.labels[i]]), 1e-30));
        correct += cnn_argmax(&logits[i * kCnnClasses]) == data.labels[i];
    }
    if (accuracy) *accuracy = count ? double(correct) / count : 0.0;
    return count ? loss / count : 0.0;
}

void cnn_adam_step(CnnWeights& weights, const CnnWeights& gradient, CnnAdamState& state, float learning_rate) {
    constexpr float kBeta1 = 0.9f, kBeta2 = 0.999f, kEpsilon = 1e-8f;
    ++state.step;
    const float correction1 = 1.0f - std::pow(kBeta1, float(state.step));
    const float correction2 = 1.0f - std::pow(kBeta2, float(state.step));
    const float step_size = learning_rate / correction1;
    const float inv_sqrt_c2 = 1.0f / std::sqrt(correction2);
    float* w = weights.values.data();
    const float* g = gradient.values.data();
    float* m = state.m.values.data();
    float* v = state.v.values.data();
    for (size_t i = 0; i < kCnnParameterCount; ++i) {
        m[i] = kBeta1 * m[i] + (1.0f - kBeta1) * g[i];
        v[i] = kBeta2 * v[i] + (1.0f - kBeta2) * g[i] * g[i];
        w[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_c2 + kEpsilon);
    }
}

CnnTrainResult cnn_train(const FashionMnist& train, const FashionMnist* test, const CnnTrainOptions& options) {
    check_options(train, options);
    if (options.backend == CnnBackend::Cuda) return cnn_train_cuda(train, test, options);
    if (options.backend != CnnBackend::Cpu)
        throw std::runtime_error(std::string("cannot train on the ") + cnn_backend_name(options.backend) + " backend");

    const Clock::time_point start = Clock::now();
    CnnTrainResult result;
    result.weights = cnn_init_weights(options.seed);
    CnnAdamState adam;
    CnnWeights gradient;
    TrainWorkspace ws = make_workspace(options.threads);
    const std::vector<int>* order = nullptr;
    const std::vector<uint8_t>* augmentation = nullptr;
    CnnTrainSteps steps;
    steps.start_epoch = [&](const std::vector<int>& o, const std::vector<uint8_t>& a) {
        order = &o;
        augmentation = &a;
    };
    steps.train_batch = [&](int first, int n, float lr, int64_t, int* correct) {
        const double loss = batch_loss_and_gradient(result.weights, train, order->data() + first, augmentation->data(),
                                                    n, ws, gradient, correct);
        cnn_adam_step(result.weights, gradient, adam, lr);
        return loss * n;
    };
    if (test && test->count > 0)
        steps.test_accuracy = [&] {
            double accuracy = -1.0;
            cnn_mean_loss_cpu(result.weights, *test, test->count, &accuracy);
            return accuracy;
        };
    cnn_run_training(train.count, options, steps, start, &result);
    return result;
}

}  // namespace ms
