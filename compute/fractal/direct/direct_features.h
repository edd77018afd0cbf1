// direct_features.h: the direct paths' orbit-feature variant (maths/orbit_features.h): mu plus
// the distance estimate, the stripe average and the period that the colouring layers need, on
// the CPU (reference and SIMD) and on CUDA.
#pragma once

#include <cstdint>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/maths/orbit_features.h"

namespace ms {

// mu plus the features; same rules and statistics as direct_cpu_reference.
FrameStats direct_features_cpu_reference(const View& view, Precision precision, const Shortcuts& shortcuts,
                                         PixelRect rect, float* mu_out, const OrbitFeatureOutputs& outputs);
FrameStats direct_features_cpu(const View& view, Precision precision, const Shortcuts& shortcuts, PixelRect rect,
                               float* mu_out, const OrbitFeatureOutputs& outputs, const CpuRenderControl& control = {});
// Device pointers (mu_device required, outputs' pointers device memory). Synchronous; throws
// std::runtime_error with a sentence on a CUDA error or without CUDA.
// persistent (default): the kernel whose lanes take the next pixel as soon as theirs is done;
// false: one thread per pixel (the simple kernel, a yardstick for tests and benchmarks).
FrameStats direct_features_cuda(const View& view, Precision precision, const Shortcuts& shortcuts, PixelRect rect,
                                float* mu_device, const OrbitFeatureOutputs& outputs_device, bool persistent = true);

struct ColourParams;  // pixel_colour.h

// The smooth kernels (direct_cuda: tile pass and survivors) with the distance estimate
// carried along, a compile-time variant of them: mu exactly as direct_cuda makes it, and the
// distance of every pixel (0 inside) as the features kernels finish it (finish_escaped_fast).
// Device pointers, each may be null: mu_device, distance_device, and rgba_device, coloured with
// colour_pixel() and *colour (its table in device memory; required with rgba_device), the
// colouring's own colour for a frame whose colour needs only mu and the distance. The statistics
// are direct_cuda's. Synchronous; throws as direct_features_cuda does.
FrameStats direct_distance_cuda(const View& view, Precision precision, const Shortcuts& shortcuts, PixelRect rect,
                                float* mu_device, float* distance_device, uint32_t* rgba_device = nullptr,
                                const ColourParams* colour = nullptr);

}  // namespace ms
