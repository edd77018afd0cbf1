// cnn_cpu_layers.cpp: im2col, its adjoint, bias fills and ReLU + max-pool (forward and
// backward) for the fast CPU network and the trainer. Plain loops the compiler vectorises;
// the matrix products, where the time goes, are in cnn_gemm.cpp.
#include "compute/cnn/cnn_cpu_layers.h"

#include <algorithm>
#include <cstring>

namespace ms::cnn_detail {

void normalize_image(const uint8_t* pixels, float* image) {
    for (int i = 0; i < kCnnPixels; ++i) image[i] = float(pixels[i]) / 255.0f;
}

void im2col_3x3(const float* in, int channels, int side, float* col, int ld_col) {
    const int plane = side * side;
    for (int c = 0; c < channels; ++c) {
        const float* src = in + c * plane;
        for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
                float* dst = col + (c * 9 + ky * 3 + kx) * ld_col;
                for (int y = 0; y < side; ++y) {
                    float* d = dst + y * side;
                    const int iy = y + ky - 1;
                    if (iy < 0 || iy >= side) {
                        std::memset(d, 0, sizeof(float) * side);
                        continue;
                    }
                    const float* s = src + iy * side;
                    if (kx == 0) {  // reads x - 1
                        d[0] = 0.0f;
                        std::memcpy(d + 1, s, sizeof(float) * (side - 1));
                    } else if (kx == 1) {
                        std::memcpy(d, s, sizeof(float) * side);
                    } else {  // reads x + 1
                        std::memcpy(d, s + 1, sizeof(float) * (side - 1));
                        d[side - 1] = 0.0f;
                    }
                }
                std::fill(dst + plane, dst + ld_col, 0.0f);
            }
    }
}

void col2im_3x3(const float* col, int channels, int side, int ld_col, float* in_grad) {
    const int plane = side * side;
    std::fill(in_grad, in_grad + channels * plane, 0.0f);
    for (int c = 0; c < channels; ++c) {
        float* dst = in_grad + c * plane;
        for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
                const float* src = col + (c * 9 + ky * 3 + kx) * ld_col;
                for (int y = 0; y < side; ++y) {
                    const int iy = y + ky - 1;
                    if (iy < 0 || iy >= side) continue;
                    const float* s = src + y * side;
                    float* d = dst + iy * side;
                    // col column x read in[iy][x + kx - 1]: add it back there.
                    const int x0 = kx == 0 ? 1 : 0, x1 = kx == 2 ? side - 1 : side;
                    for (int x = x0; x < x1; ++x) d[x + kx - 1] += s[x];
                }
            }
    }
}

void fill_rows_with_bias(float* c, int rows, int cols, int ldc, const float* bias) {
    for (int r = 0; r < rows; ++r) std::fill(c + r * ldc, c + r * ldc + cols, bias[r]);
}

void fill_cols_with_bias(float* c, int rows, int cols, int ldc, const float* bias) {
    for (int r = 0; r < rows; ++r) std::copy(bias, bias + cols, c + r * ldc);
}

void relu_maxpool2(const float* in, int channels, int side, int ld_in, float* out, int ld_out, uint8_t* argmax) {
    const int half = side / 2;
    if (!argmax) {  // inference: branch-free, so the compiler vectorises it
        for (int c = 0; c < channels; ++c)
            for (int py = 0; py < half; ++py) {
                const float* r0 = in + c * ld_in + 2 * py * side;
                const float* r1 = r0 + side;
                float* dst = out + c * ld_out + py * half;
                for (int px = 0; px < half; ++px)
                    dst[px] = std::max(
                        std::max(std::max(r0[2 * px], r0[2 * px + 1]), std::max(r1[2 * px], r1[2 * px + 1])), 0.0f);
            }
        return;
    }
    for (int c = 0; c < channels; ++c) {
        const float* src = in + c * ld_in;
        float* dst = out + c * ld_out;
        for (int py = 0; py < half; ++py)
            for (int px = 0; px < half; ++px) {
                const float* p = src + 2 * py * side + 2 * px;
                const float v[4] = {p[0], p[1], p[side], p[side + 1]};
                int best = 0;
                for (int q = 1; q < 4; ++q)
                    if (v[q] > v[best]) best = q;
                dst[py * half + px] = std::max(v[best], 0.0f);
                if (argmax) argmax[c * half * half + py * half + px] = uint8_t(best);
            }
    }
}

void relu_maxpool2_backward(const float* out_grad, const float* pooled, const uint8_t* argmax, int channels, int side,
                            int ld_out, float* in_grad, int ld_in) {
    const int half = side / 2;
    for (int c = 0; c < channels; ++c) {
        float* dst = in_grad + c * ld_in;
        std::fill(dst, dst + ld_in, 0.0f);
        for (int py = 0; py < half; ++py)
            for (int px = 0; px < half; ++px) {
                const int o = py * half + px;
                if (!(pooled[c * ld_out + o] > 0.0f)) continue;  // ReLU closed the gate
                const int q = argmax[c * half * half + o];
                dst[(2 * py + q / 2) * side + 2 * px + q % 2] = out_grad[c * ld_out + o];
            }
    }
}

}  // namespace ms::cnn_detail
