// cnn_cpu.cpp: the fast CPU forward pass. OpenMP hands out chunks of 16 images; each thread
// runs a chunk through conv1 and conv2 one image at a time (im2col + cnn_gemm_nn, then ReLU and
// pooling while the output is still in cache), then the two dense layers for the whole chunk
// (cnn_gemm_nt), so fc1's 400 KB of weights are streamed once per 16 images.
//
// Napkin: 2.2 MFLOP per image (conv1 0.23, conv2 1.81, fc1 0.20, fc2 0.001).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "compute/cnn/cnn_cpu.h"
#include "compute/cnn/cnn_cpu_layers.h"
#include "compute/cnn/cnn_gemm.h"

namespace ms {

namespace {

using namespace cnn_detail;
using Clock = std::chrono::steady_clock;

constexpr int kChunkImages = 16;
enum Stage { kStageConv1, kStageConv2, kStageDense, kStageCount };
const char* const kStageNames[kStageCount] = {"conv1+relu+pool", "conv2+relu+pool", "fc1+relu+fc2"};

struct ForwardScratch {
    std::vector<float> image = std::vector<float>(kCnnPixels);
    std::vector<float> col1 = std::vector<float>(kCol1Rows * kConv1Spatial);
    std::vector<float> out1 = std::vector<float>(kCnnConv1Channels * kConv1Spatial);
    std::vector<float> pool1 = std::vector<float>(kPool1Size);
    std::vector<float> col2 = std::vector<float>(kCol2Rows * kConv2Stride);
    std::vector<float> out2 = std::vector<float>(kCnnConv2Channels * kConv2Stride);
    std::vector<float> pool2 = std::vector<float>(kChunkImages * kCnnFlat);
    std::vector<float> hidden = std::vector<float>(kChunkImages * kCnnHidden);
};

double seconds_since(Clock::time_point& t) {
    Clock::time_point now = Clock::now();
    double s = std::chrono::duration<double>(now - t).count();
    t = now;
    return s;
}

void forward_chunk(const CnnWeights& w, const uint8_t* images, int count, float* logits, ForwardScratch& s,
                   double* stage_seconds) {
    Clock::time_point t = Clock::now();
    for (int i = 0; i < count; ++i) {
        normalize_image(images + size_t(i) * kCnnPixels, s.image.data());
        im2col_3x3(s.image.data(), 1, kCnnSide, s.col1.data(), kConv1Spatial);
        fill_rows_with_bias(s.out1.data(), kCnnConv1Channels, kConv1Spatial, kConv1Spatial, w.tensor(kConv1Bias));
        cnn_gemm_nn(kCnnConv1Channels, kConv1Spatial, kCol1Rows, w.tensor(kConv1Weight), kCol1Rows, 1, s.col1.data(),
                    kConv1Spatial, s.out1.data(), kConv1Spatial, true);
        relu_maxpool2(s.out1.data(), kCnnConv1Channels, kCnnSide, kConv1Spatial, s.pool1.data(), kConv2Spatial,
                      nullptr);
        stage_seconds[kStageConv1] += seconds_since(t);

        im2col_3x3(s.pool1.data(), kCnnConv1Channels, kCnnPool1Side, s.col2.data(), kConv2Stride);
        fill_rows_with_bias(s.out2.data(), kCnnConv2Channels, kConv2Stride, kConv2Stride, w.tensor(kConv2Bias));
        cnn_gemm_nn(kCnnConv2Channels, kConv2Stride, kCol2Rows, w.tensor(kConv2Weight), kCol2Rows, 1, s.col2.data(),
                    kConv2Stride, s.out2.data(), kConv2Stride, true);
        relu_maxpool2(s.out2.data(), kCnnConv2Channels, kCnnPool1Side, kConv2Stride,
                      s.pool2.data() + size_t(i) * kCnnFlat, kCnnPool2Side * kCnnPool2Side, nullptr);
        stage_seconds[kStageConv2] += seconds_since(t);
    }
    fill_cols_with_bias(s.hidden.data(), count, kCnnHidden, kCnnHidden, w.tensor(kFc1Bias));
    cnn_gemm_nt(count, kCnnHidden, kCnnFlat, s.pool2.data(), kCnnFlat, w.tensor(kFc1Weight), kCnnFlat, s.hidden.data(),
                kCnnHidden, true);
    for (int i = 0; i < count * kCnnHidden; ++i) s.hidden[i] = std::max(s.hidden[i], 0.0f);
    fill_cols_with_bias(logits, count, kCnnClasses, kCnnClasses, w.tensor(kFc2Bias));
    cnn_gemm_nt(count, kCnnClasses, kCnnHidden, s.hidden.data(), kCnnHidden, w.tensor(kFc2Weight), kCnnHidden, logits,
                kCnnClasses, true);
    stage_seconds[kStageDense] += seconds_since(t);
}

}  // namespace

void cnn_forward_cpu(const CnnWeights& w, const uint8_t* images, int count, float* logits, CnnForwardStats* stats,
                     int threads) {
    Clock::time_point start = Clock::now();
    const int chunks = (count + kChunkImages - 1) / kChunkImages;
    if (threads <= 0) threads = omp_get_max_threads();
    threads = std::max(1, std::min(threads, chunks));
    double stage_seconds[kStageCount] = {};
#pragma omp parallel num_threads(threads)
    {
        ForwardScratch scratch;
        double mine[kStageCount] = {};
#pragma omp for schedule(dynamic, 1)
        for (int c = 0; c < chunks; ++c) {
            const int first = c * kChunkImages;
            const int n = std::min(kChunkImages, count - first);
            forward_chunk(w, images + size_t(first) * kCnnPixels, n, logits + size_t(first) * kCnnClasses, scratch,
                          mine);
        }
#pragma omp critical
        for (int s = 0; s < kStageCount; ++s) stage_seconds[s] += mine[s];
    }
    if (!stats) return;
    stats->total_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    stats->threads = threads;
    stats->layers.clear();
    double busy = 0.0;
    for (double s : stage_seconds) busy += s;
    for (int s = 0; s < kStageCount; ++s)
        stats->layers.push_back({kStageNames[s], busy > 0.0 ? stats->total_ms * stage_seconds[s] / busy : 0.0});
}

}  // namespace ms
