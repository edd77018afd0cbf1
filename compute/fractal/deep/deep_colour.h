// deep_colour.h: a deep frame (deep_cpu.h) to RGBA with the view's colouring, the one call the
// deep path's users make (`render`, export, the window's deep worker):
//   a plain colouring   colourize_deep, in double all the way (counts past 2^24 keep their
//                       fraction)
//   layers              colouring.h's colour_frame_deep: the histogram base, the slopes from
//                       mu's differences, the DE layer from the frame's distance estimate, the
//                       atom layer from its atom periods, each pixel through colour_pixel, the
//                       pass the direct path uses
// The stripe base and the period interior are not here (colouring.h's deep_colouring_problem
// says why); callers refuse or drop them first.
#pragma once

#include <cstdint>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_device_frame.h"
#include "compute/fractal/view/view.h"

namespace ms {

// What deep_cpu/deep_cuda must compute for the view's colouring (options.distance, options.atom).
void deep_options_for_colouring(const Colouring& colouring, DeepRenderOptions* options);

// rgba_out: frame.width x frame.height x 4 bytes. pixel_scale: image pixels per pixel of the
// frame (1/K when it is a K-times supersampled sample grid), as colour_frame's.
void colour_deep_frame(const DeepFrame& frame, const PaletteTable& palette, const View& view, double pixel_scale,
                       uint8_t* rgba_out);

// The same colours on the device, from the frame deep_cuda left in `frame` (its options'
// device_frame), into rgba_device (frame.width x frame.height x 4 bytes of device memory, e.g.
// frame.rgba[k]), on `stream` (a cudaStream_t; null: the default stream), finished on return.
// A frame with the DE layer needs the distance, with the atom layer the atom periods
// (deep_options_for_colouring asked for them).
// Throws std::runtime_error when the device holds no frame, on a CUDA error, and without CUDA.
void colour_deep_frame_cuda(DeepDeviceFrame& frame, const PaletteTable& palette, const View& view, double pixel_scale,
                            uint8_t* rgba_device, void* stream);

// colour_deep_frame_cuda into the frame's rgba[0] on its own device (frame.device, whichever is
// current), then the colours copied into rgba_host (frame.width x frame.height x 4 bytes of host
// memory), finished on return: a band of a frame spread over devices (deep_multi_gpu.h), of
// which only the colours cross the bus. Throws as colour_deep_frame_cuda does.
void colour_deep_frame_cuda_to_host(DeepDeviceFrame& frame, const PaletteTable& palette, const View& view,
                                    double pixel_scale, uint8_t* rgba_host, void* stream);

}  // namespace ms
