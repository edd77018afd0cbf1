// cnn_model.cpp: the seeded generator, weight initialisation, softmax and argmax of
// cnn_model.h.
#include "compute/cnn/cnn_model.h"

#include <cmath>

namespace ms {

const char* cnn_backend_name(CnnBackend backend) {
    switch (backend) {
    case CnnBackend::CpuReference: return "cpu-reference";
    case CnnBackend::Cpu: return "cpu";
    case CnnBackend::Cuda: return "cuda";
    }
    return "?";
}

uint64_t CnnRng::next_u64() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float CnnRng::next_uniform() { return float(next_u64() >> 40) * (1.0f / 16777216.0f); }

uint32_t CnnRng::next_below(uint32_t n) {
    // Lemire's multiply-shift; the tiny bias (< n / 2^32) does not matter for shuffling.
    return uint32_t(((next_u64() >> 32) * uint64_t(n)) >> 32);
}

CnnWeights cnn_init_weights(uint64_t seed) {
    CnnWeights w;
    CnnRng rng{seed};
    auto fill = [&](CnnTensor t, int fan_in, bool relu_follows) {
        float bound = relu_follows ? std::sqrt(6.0f / float(fan_in)) : 1.0f / std::sqrt(float(fan_in));
        float* p = w.tensor(t);
        for (size_t i = 0; i < kCnnTensors[t].count; ++i) p[i] = (2.0f * rng.next_uniform() - 1.0f) * bound;
    };
    fill(kConv1Weight, 1 * 9, true);
    fill(kConv2Weight, kCnnConv1Channels * 9, true);
    fill(kFc1Weight, kCnnFlat, true);
    fill(kFc2Weight, kCnnHidden, false);
    return w;  // biases stay zero
}

void cnn_softmax(const float* logits, int count, float* probabilities) {
    for (int n = 0; n < count; ++n) {
        const float* z = logits + size_t(n) * kCnnClasses;
        float* p = probabilities + size_t(n) * kCnnClasses;
        float max_z = z[0];
        for (int c = 1; c < kCnnClasses; ++c) max_z = std::fmax(max_z, z[c]);
        float sum = 0.0f;
        for (int c = 0; c < kCnnClasses; ++c) sum += (p[c] = std::exp(z[c] - max_z));
        for (int c = 0; c < kCnnClasses; ++c) p[c] /= sum;
    }
}

int cnn_argmax(const float* z) {
    int best = 0;
    for (int c = 1; c < kCnnClasses; ++c)
        if (z[c] > z[best]) best = c;
    return best;
}

}  // namespace ms
