// video_device.h: the one device call the video's frame sources make themselves, behind a plain
// C++ header so that compute/video/ compiles without the CUDA headers: a frame coloured on the
// GPU (deep_colour.h's colour_deep_frame_cuda) comes back to the host as RGBA alone, the bytes
// the encoders take, while the smooth values it was coloured from stay on the device.
// Without CUDA the call throws with the reason (the sources never make it then).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ms {

// Copies `bytes` of device memory to host memory on `stream` (a cudaStream_t; null: the default
// stream) and waits for the copy. Throws std::runtime_error with a sentence on a CUDA error.
void copy_device_to_host(uint8_t* host, const uint8_t* device, size_t bytes, void* stream);

}  // namespace ms
