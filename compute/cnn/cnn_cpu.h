// cnn_cpu.h: the network's forward pass on the CPU, two siblings computing the same logits:
//   cnn_forward_cpu_reference  one thread, plain loops straight from the definition, double
//                              accumulators (the yardstick every other path is checked against)
//   cnn_forward_cpu            all cores (OpenMP over chunks of images), im2col + Highway
//                              matrix products, FP32
// and the first layer's feature maps for display.
//
// Input: `count` images of kCnnPixels bytes each (row-major 28x28, as in the data set).
// Output: count x kCnnClasses logits (cnn_softmax in cnn_model.h turns them into probabilities).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/cnn/cnn_model.h"

namespace ms {

// Time spent in one stage of a forward pass.
struct CnnLayerTime {
    std::string name;  // "conv1+relu+pool", "fc1+relu+fc2", "upload", ...
    double ms = 0.0;
};

struct CnnForwardStats {
    double total_ms = 0.0;             // wall time of the whole call
    std::vector<CnnLayerTime> layers;  // per stage; CPU: thread time scaled to the wall time
    int threads = 1;
};

void cnn_forward_cpu_reference(const CnnWeights& weights, const uint8_t* images, int count, float* logits);

// `threads` 0 = all cores (OpenMP's default).
void cnn_forward_cpu(const CnnWeights& weights, const uint8_t* images, int count, float* logits,
                     CnnForwardStats* stats = nullptr, int threads = 0);

// The first layer's output for one image: 16 maps of 28x28 after ReLU, before pooling
// (kCnnConv1Channels * kCnnPixels floats, map-major).
void cnn_conv1_feature_maps(const CnnWeights& weights, const uint8_t* image, float* maps);

}  // namespace ms
