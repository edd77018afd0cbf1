// video_device.h: the device calls compute/video/ makes itself, behind a plain C++ header so
// that it compiles without the CUDA headers:
//   copy_device_to_host   a frame coloured on the GPU (deep_colour.h's colour_deep_frame_cuda)
//                         comes back to the host as RGBA alone, the bytes the encoders take,
//                         while the smooth values it was coloured from stay on the device;
//   VideoDeviceScope      a renderer's thread works on its own device (video_job.h).
// Without CUDA the copy throws with the reason (the sources never make it then).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ms {

// Copies `bytes` of device memory to host memory on `stream` (a cudaStream_t; null: the default
// stream) and waits for the copy. Throws std::runtime_error with a sentence on a CUDA error.
void copy_device_to_host(uint8_t* host, const uint8_t* device, size_t bytes, void* stream);

// Makes `device` the calling thread's current CUDA device for the scope, and gives the thread
// back the one it had. -1: nothing changes. Throws std::runtime_error with a sentence when the
// device cannot be made current (without CUDA: for any device but -1).
class VideoDeviceScope {
public:
    explicit VideoDeviceScope(int device);
    ~VideoDeviceScope();
    VideoDeviceScope(const VideoDeviceScope&) = delete;
    VideoDeviceScope& operator=(const VideoDeviceScope&) = delete;

private:
    [[maybe_unused]] int previous_ = -1;  // the device to give back; the CPU-only build has none
};

}  // namespace ms
