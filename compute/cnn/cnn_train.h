// cnn_train.h: training the network with our own forward and backward passes: softmax
// cross-entropy, Adam (beta1 0.9, beta2 0.999, eps 1e-8) with a cosine learning-rate decay,
// shuffled minibatches.
//
// Reproducible on the CPU: each minibatch is cut into fixed chunks of kCnnTrainChunk images;
// each chunk's gradient is computed by one thread in a fixed order, and the chunk gradients are
// summed in chunk order. The result depends on the seed (initial weights and shuffling) and the
// SIMD target (AVX-512 and AVX2 round differently), never on the number of threads or their
// timing.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compute/cnn/cnn_model.h"
#include "compute/cnn/fashion_mnist.h"

namespace ms {

inline constexpr int kCnnTrainChunk = 16;

// Reported after every step, on the calling thread.
struct CnnTrainProgress {
    int epoch = 0;  // 1-based
    int epochs = 0;
    int step = 0;  // 1-based, within the epoch
    int steps = 0;
    double loss = 0.0;      // running mean over the epoch so far
    double accuracy = 0.0;  // running training accuracy over the epoch so far, 0..1
};

struct CnnEpochStats {
    int epoch = 0;
    double train_loss = 0.0;
    double train_accuracy = 0.0;
    double test_accuracy = -1.0;  // -1 when no test set was given
    double learning_rate = 0.0;   // at the epoch's last step
    double seconds = 0.0;         // training time of the epoch (without the test pass)
};

struct CnnTrainOptions {
    CnnBackend backend = CnnBackend::Cpu;  // Cpu, or Cuda where built and present
    int epochs = 15;
    int batch = 64;
    float learning_rate = 1e-3f;                // Adam's step size at the start; cosine decay to 0 at the end
    uint64_t seed = 1;                          // initial weights, the shuffling and the augmentation
    bool augment = true;                        // random horizontal flips (and shifts, see max_shift)
    int max_shift = 0;                          // augmentation shifts of up to this many pixels (0..2)
    int threads = 0;                            // CPU threads, 0 = all cores
    const std::atomic<bool>* cancel = nullptr;  // polled between steps
    std::function<void(const CnnTrainProgress&)> on_step;  // optional
    std::function<void(const CnnEpochStats&)> on_epoch;    // optional
};

struct CnnTrainResult {
    CnnWeights weights;
    std::vector<CnnEpochStats> epochs;
    double seconds = 0.0;  // whole run, test passes included
    bool cancelled = false;
};

// Trains from cnn_init_weights(options.seed). `test` (optional) is evaluated after each epoch.
// Throws std::runtime_error for bad options or when the Cuda backend is unavailable.
CnnTrainResult cnn_train(const FashionMnist& train, const FashionMnist* test, const CnnTrainOptions& options);

// --- building blocks (used by cnn_train and by the tests) ---------------------------------

// Training-time augmentation of one image, one byte per image and epoch: bit 0 flips
// horizontally, bits 1-3 hold dx + 2 and bits 4-6 dy + 2 (a shift of -2..2 pixels, the
// uncovered border black). Applied as: flip, then shift.
inline constexpr uint8_t kCnnAugmentIdentity = (2 << 1) | (2 << 4);
uint8_t cnn_random_augmentation(CnnRng& rng, int max_shift = 2);
// Pixel (y, x) of the augmented image, scaled to [0, 1] (0 outside the source image).
#ifdef __CUDACC__
#define MS_CNN_HOST_DEVICE __host__ __device__
#else
#define MS_CNN_HOST_DEVICE
#endif
MS_CNN_HOST_DEVICE inline float cnn_augmented_pixel(const uint8_t* image, uint8_t code, int y, int x) {
    const int dx = ((code >> 1) & 7) - 2, dy = ((code >> 4) & 7) - 2;
    int sx = x - dx;
    const int sy = y - dy;
    if (code & 1) sx = kCnnSide - 1 - sx;
    if (sx < 0 || sx >= kCnnSide || sy < 0 || sy >= kCnnSide) return 0.0f;
    return float(image[sy * kCnnSide + sx]) / 255.0f;
}

// Mean softmax cross-entropy over images[indices[0..count)] and its gradient (into `gradient`,
// overwritten). `correct` (optional) gets how many were classified right. Deterministic as
// described above.
// `augmentation` (optional) holds one code per image of `data` (indexed like data.images).
double cnn_loss_and_gradient_cpu(const CnnWeights& weights, const FashionMnist& data, const int* indices, int count,
                                 CnnWeights* gradient, int* correct = nullptr, int threads = 0,
                                 const uint8_t* augmentation = nullptr);

// Mean loss and accuracy (0..1) of the first `count` images of `data` (fast CPU forward pass).
double cnn_mean_loss_cpu(const CnnWeights& weights, const FashionMnist& data, int count, double* accuracy = nullptr);

struct CnnAdamState {
    CnnWeights m, v;  // first and second moment estimates (start at zero)
    int64_t step = 0;
};

// One Adam step with bias correction.
void cnn_adam_step(CnnWeights& weights, const CnnWeights& gradient, CnnAdamState& state, float learning_rate);

// CUDA training (cnn_train_cuda.cu; the _nocuda build throws "built without CUDA"): the same
// algorithm, initial weights and shuffling as the CPU, reproducible bit for bit on one GPU.
double cnn_loss_and_gradient_cuda(const CnnWeights& weights, const FashionMnist& data, const int* indices, int count,
                                  CnnWeights* gradient, int* correct = nullptr, const uint8_t* augmentation = nullptr);
CnnTrainResult cnn_train_cuda(const FashionMnist& train, const FashionMnist* test, const CnnTrainOptions& options);

}  // namespace ms
