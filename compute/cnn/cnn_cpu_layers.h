// cnn_cpu_layers.h: the per-image pieces the fast CPU forward pass and the CPU trainer share
// (internal to compute/cnn). Activations are channel-major planes; conv2's 14x14 = 196 columns
// are padded to kCnnConv2Stride = 208 (a multiple of 16) with zeros, so the vectorised matrix
// products of cnn_gemm.h need no tail handling.
//
//   conv1: col1 [9 x 784]    = im2col(image)      out1 [16 x 784] = W1 [16 x 9]   * col1 + b1
//   conv2: col2 [144 x 208]  = im2col(pool1)      out2 [32 x 208] = W2 [32 x 144] * col2 + b2
#pragma once

#include <cstdint>

#include "compute/cnn/cnn_model.h"

namespace ms::cnn_detail {

inline constexpr int kConv1Spatial = kCnnSide * kCnnSide;             // 784
inline constexpr int kConv2Spatial = kCnnPool1Side * kCnnPool1Side;   // 196
inline constexpr int kConv2Stride = 208;                              // 196 padded
inline constexpr int kPool1Size = kCnnConv1Channels * kConv2Spatial;  // 3136
inline constexpr int kCol1Rows = 9;
inline constexpr int kCol2Rows = kCnnConv1Channels * 9;  // 144

// float(pixel) / 255.0f for the 784 pixels (the model's whole input scaling).
void normalize_image(const uint8_t* pixels, float* image);

// 3x3, padding 1 patches: col[(c * 9 + ky * 3 + kx) * ld_col + y * side + x] =
// in[c][y + ky - 1][x + kx - 1] (0 outside). Columns side*side..ld_col-1 are set to zero.
void im2col_3x3(const float* in, int channels, int side, float* col, int ld_col);

// The adjoint of im2col_3x3: in_grad[c][y][x] = sum of the col entries that read it.
void col2im_3x3(const float* col, int channels, int side, int ld_col, float* in_grad);

// Every row r of C [rows x cols] (stride ldc) set to bias[r].
void fill_rows_with_bias(float* c, int rows, int cols, int ldc, const float* bias);

// Every row of C [rows x cols] set to the vector bias[0..cols).
void fill_cols_with_bias(float* c, int rows, int cols, int ldc, const float* bias);

// ReLU then 2x2 max-pool (stride 2) of `channels` planes of side x side (plane stride ld_in),
// into planes of (side/2)^2 at stride ld_out. argmax (optional) gets, per pooled value, the
// window position 0..3 (dy * 2 + dx) of the first maximum, for the backward pass.
void relu_maxpool2(const float* in, int channels, int side, int ld_in, float* out, int ld_out, uint8_t* argmax);

// Backward of relu_maxpool2: in_grad (planes of side x side, stride ld_in, padding columns
// zeroed) gets out_grad at each window's argmax where the pooled value was > 0, zero elsewhere.
void relu_maxpool2_backward(const float* out_grad, const float* pooled, const uint8_t* argmax, int channels, int side,
                            int ld_out, float* in_grad, int ld_in);

}  // namespace ms::cnn_detail
