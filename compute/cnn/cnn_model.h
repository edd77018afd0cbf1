// cnn_model.h: the small convolutional network that classifies Fashion-MNIST, its shapes and
// its parameters, shared by every implementation (CPU reference, CPU fast, CUDA, training).
//
//   input  1x28x28 bytes, scaled to [0, 1] as float(pixel) / 255.0f (nothing else)
//   conv1  3x3, 1->16, padding 1, + ReLU, 2x2 max-pool   -> 16x14x14
//   conv2  3x3, 16->32, padding 1, + ReLU, 2x2 max-pool  -> 32x7x7 = 1568 (flattened C,H,W)
//   fc1    1568->64 + ReLU
//   fc2    64->10 (logits; softmax gives the class probabilities)
//
// 105,866 parameters, stored as one flat float vector in PyTorch's state_dict order and layout
// (conv weights [out][in][ky][kx], fc weights [out][in]), so the weights file maps 1:1 onto a
// torch.nn.Sequential of the same layers (tests/demos/cnn_pytorch_compare.py does exactly that).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ms {

inline constexpr int kCnnSide = 28;  // input image side
inline constexpr int kCnnPixels = kCnnSide * kCnnSide;
inline constexpr int kCnnConv1Channels = 16;
inline constexpr int kCnnPool1Side = 14;
inline constexpr int kCnnConv2Channels = 32;
inline constexpr int kCnnPool2Side = 7;
inline constexpr int kCnnFlat = kCnnConv2Channels * kCnnPool2Side * kCnnPool2Side;  // 1568
inline constexpr int kCnnHidden = 64;
inline constexpr int kCnnClasses = 10;

// One parameter tensor: name as in PyTorch's state_dict of the Sequential, shape, and where it
// starts in the flat vector.
struct CnnTensorInfo {
    const char* name;
    int rank;
    std::array<int, 4> dims;
    size_t count;
    size_t offset;
};

inline constexpr std::array<CnnTensorInfo, 8> kCnnTensors = {{
    {"conv1.weight", 4, {16, 1, 3, 3}, 144, 0},
    {"conv1.bias", 1, {16, 1, 1, 1}, 16, 144},
    {"conv2.weight", 4, {32, 16, 3, 3}, 4608, 160},
    {"conv2.bias", 1, {32, 1, 1, 1}, 32, 4768},
    {"fc1.weight", 2, {64, 1568, 1, 1}, 100352, 4800},
    {"fc1.bias", 1, {64, 1, 1, 1}, 64, 105152},
    {"fc2.weight", 2, {10, 64, 1, 1}, 640, 105216},
    {"fc2.bias", 1, {10, 1, 1, 1}, 10, 105856},
}};
inline constexpr size_t kCnnParameterCount = 105866;
static_assert(kCnnTensors[7].offset + kCnnTensors[7].count == kCnnParameterCount);

enum CnnTensor : int { kConv1Weight, kConv1Bias, kConv2Weight, kConv2Bias, kFc1Weight, kFc1Bias, kFc2Weight, kFc2Bias };

// All parameters of one model. Also used for gradients and optimiser state (same layout).
struct CnnWeights {
    std::vector<float> values = std::vector<float>(kCnnParameterCount, 0.0f);

    float* tensor(CnnTensor t) { return values.data() + kCnnTensors[t].offset; }
    const float* tensor(CnnTensor t) const { return values.data() + kCnnTensors[t].offset; }
};

// Where the network runs. CpuReference is the slow yardstick (inference only).
enum class CnnBackend { CpuReference, Cpu, Cuda };
const char* cnn_backend_name(CnnBackend backend);  // "cpu-reference", "cpu", "cuda"

// A small seeded generator (splitmix64) so initialisation and shuffling are the same on every
// compiler and standard library (std::*_distribution are not).
struct CnnRng {
    uint64_t state = 0;
    uint64_t next_u64();
    float next_uniform();             // [0, 1)
    uint32_t next_below(uint32_t n);  // [0, n)
};

// He-uniform weights (bound sqrt(6 / fan_in)) for the ReLU layers, 1/sqrt(fan_in) for the
// last layer, zero biases. Deterministic for a given seed.
CnnWeights cnn_init_weights(uint64_t seed);

// Softmax of `count` rows of kCnnClasses logits (numerically stable: subtracts the row max).
void cnn_softmax(const float* logits, int count, float* probabilities);

// Index of the largest logit of each row (the first one on ties).
int cnn_argmax(const float* logits_row);

}  // namespace ms
