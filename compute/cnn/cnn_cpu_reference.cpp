// cnn_cpu_reference.cpp: the forward pass written straight from the definition in
// cnn_model.h, one image at a time, one thread, double accumulators. Slow on purpose: it is the
// yardstick that cnn_forward_cpu, the CUDA kernels and PyTorch are compared with.
#include <algorithm>
#include <vector>

#include "compute/cnn/cnn_cpu.h"

namespace ms {

namespace {

// 3x3 convolution, padding 1, then ReLU and 2x2 max-pool.
// in: cin planes of side x side; out: cout planes of (side/2)^2.
void conv3x3_relu_pool_reference(const float* in, int cin, int side, const float* weight, const float* bias, int cout,
                                 float* out) {
    std::vector<float> conv(size_t(side) * side);
    const int half = side / 2;
    for (int o = 0; o < cout; ++o) {
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) {
                double sum = bias[o];
                for (int i = 0; i < cin; ++i)
                    for (int ky = 0; ky < 3; ++ky)
                        for (int kx = 0; kx < 3; ++kx) {
                            int iy = y + ky - 1, ix = x + kx - 1;
                            if (iy < 0 || iy >= side || ix < 0 || ix >= side) continue;
                            sum += double(weight[((o * cin + i) * 3 + ky) * 3 + kx]) *
                                   double(in[(i * side + iy) * side + ix]);
                        }
                conv[y * side + x] = std::max(float(sum), 0.0f);  // ReLU
            }
        for (int py = 0; py < half; ++py)
            for (int px = 0; px < half; ++px) {
                const float* p = &conv[2 * py * side + 2 * px];
                out[(o * half + py) * half + px] = std::max(std::max(p[0], p[1]), std::max(p[side], p[side + 1]));
            }
    }
}

// y = W x + b (W is [outputs][inputs]), optionally followed by ReLU.
void dense_reference(const float* in, int inputs, const float* weight, const float* bias, int outputs, bool relu,
                     float* out) {
    for (int o = 0; o < outputs; ++o) {
        double sum = bias[o];
        for (int i = 0; i < inputs; ++i) sum += double(weight[o * inputs + i]) * double(in[i]);
        out[o] = relu ? std::max(float(sum), 0.0f) : float(sum);
    }
}

}  // namespace

void cnn_forward_cpu_reference(const CnnWeights& w, const uint8_t* images, int count, float* logits) {
    std::vector<float> image(kCnnPixels), pool1(kCnnConv1Channels * 14 * 14), pool2(kCnnFlat), hidden(kCnnHidden);
    for (int n = 0; n < count; ++n) {
        const uint8_t* pixels = images + size_t(n) * kCnnPixels;
        for (int i = 0; i < kCnnPixels; ++i) image[i] = float(pixels[i]) / 255.0f;
        conv3x3_relu_pool_reference(image.data(), 1, kCnnSide, w.tensor(kConv1Weight), w.tensor(kConv1Bias),
                                    kCnnConv1Channels, pool1.data());
        conv3x3_relu_pool_reference(pool1.data(), kCnnConv1Channels, kCnnPool1Side, w.tensor(kConv2Weight),
                                    w.tensor(kConv2Bias), kCnnConv2Channels, pool2.data());
        dense_reference(pool2.data(), kCnnFlat, w.tensor(kFc1Weight), w.tensor(kFc1Bias), kCnnHidden, true,
                        hidden.data());
        dense_reference(hidden.data(), kCnnHidden, w.tensor(kFc2Weight), w.tensor(kFc2Bias), kCnnClasses, false,
                        logits + size_t(n) * kCnnClasses);
    }
}

void cnn_conv1_feature_maps(const CnnWeights& w, const uint8_t* pixels, float* maps) {
    // One image, 16 x 784 x 9 multiply-adds: the plain loops are fast enough for a panel.
    const float* weight = w.tensor(kConv1Weight);
    const float* bias = w.tensor(kConv1Bias);
    for (int o = 0; o < kCnnConv1Channels; ++o)
        for (int y = 0; y < kCnnSide; ++y)
            for (int x = 0; x < kCnnSide; ++x) {
                float sum = bias[o];
                for (int ky = 0; ky < 3; ++ky)
                    for (int kx = 0; kx < 3; ++kx) {
                        int iy = y + ky - 1, ix = x + kx - 1;
                        if (iy < 0 || iy >= kCnnSide || ix < 0 || ix >= kCnnSide) continue;
                        sum += weight[o * 9 + ky * 3 + kx] * (float(pixels[iy * kCnnSide + ix]) / 255.0f);
                    }
                maps[(o * kCnnSide + y) * kCnnSide + x] = std::max(sum, 0.0f);
            }
}

}  // namespace ms
