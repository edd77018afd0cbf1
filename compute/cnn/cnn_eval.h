// cnn_eval.h: "classify all of a data set" on any backend, with accuracy, confusion matrix,
// throughput, latency and time per layer; progress callback and cancel flag for long runs.
// Used by `mandelscope cnn eval` and meant for the panel's "Classify all 10,000" button
// (run it on a worker thread; on_progress is called from that thread).
//
// Timing: one untimed warm-up batch, then `passes` timed passes over all images; figures are
// the median pass (and the median batch for latency). The first pass also gives the accuracy.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "compute/cnn/cnn_cpu.h"
#include "compute/cnn/cnn_cuda.h"
#include "compute/cnn/cnn_model.h"
#include "compute/cnn/fashion_mnist.h"

namespace ms {

struct CnnEvalOptions {
    CnnBackend backend = CnnBackend::Cpu;
    CnnCudaVariant cuda_variant = CnnCudaVariant::Fused;
    int batch = 1000;                                      // images per forward call (1 = latency, 10,000 = throughput)
    int passes = 1;                                        // timed passes over the data
    int threads = 0;                                       // CPU: 0 = all cores
    CnnCuda* cuda = nullptr;                               // Cuda: the context to use; null = one made for this call
    bool keep_logits = false;                              // fill CnnEvalResult::logits (first pass)
    const std::atomic<bool>* cancel = nullptr;             // polled between batches
    std::function<void(int done, int total)> on_progress;  // images done over all passes
};

struct CnnEvalResult {
    std::string backend;  // "cpu-reference", "cpu", "cuda", "cuda-unfused"
    std::string device;   // "AVX3 x 2 threads", "NVIDIA H100 ..., sm_90"
    int images = 0;
    int correct = 0;
    double accuracy = 0.0;                                              // 0..1
    std::array<std::array<int, kCnnClasses>, kCnnClasses> confusion{};  // [true][predicted]
    int batch = 0;
    double wall_ms = 0.0;            // one pass, host memory in and out (median pass)
    double images_per_second = 0.0;  // images / wall
    double compute_ms = 0.0;         // CUDA: the kernels alone (events); CPU: = wall_ms
    double compute_images_per_second = 0.0;
    double batch_latency_ms = 0.0;     // median wall time of one call of `batch` images
    std::vector<CnnLayerTime> layers;  // per stage, one pass (median pass)
    std::vector<float> logits;         // images x kCnnClasses when keep_logits
    bool cancelled = false;
};

// Throws std::runtime_error for bad options or when the backend cannot run (for Cuda check
// cnn_cuda_available first to show the reason).
CnnEvalResult cnn_evaluate(const CnnWeights& weights, const FashionMnist& data, const CnnEvalOptions& options);

// Forward pass of any backend for a few images (the panel's "classify a batch"): logits and,
// when `probabilities` is not null, softmax probabilities. `cuda` is used for the Cuda backend.
void cnn_classify(const CnnWeights& weights, CnnBackend backend, CnnCuda* cuda, const uint8_t* images, int count,
                  float* logits, float* probabilities);

}  // namespace ms
