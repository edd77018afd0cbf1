// deep_device_frame.h: a deep frame kept in device memory, for callers that colour and show it
// there (the window's deep worker): deep_cuda leaves the frame's mu, distance estimate and atom
// periods here
// (DeepRenderOptions::device_frame) as well as in the host frame; colour_deep_frame_cuda
// (deep_colour.h) colours them into one of the two RGBA buffers, and the window copies that
// buffer into its OpenGL pixel buffer, device to device (render/frame/frame_renderer.cpp).
// Plain memory and sizes, no CUDA types: render/ builds without the CUDA headers. Without CUDA,
// reserve() throws with the reason and the destructor frees nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ms {

struct DeepDeviceFrame {
    DeepDeviceFrame() = default;
    ~DeepDeviceFrame();  // frees the device memory on its device (errors ignored: this also runs at exit)
    DeepDeviceFrame(const DeepDeviceFrame&) = delete;
    DeepDeviceFrame& operator=(const DeepDeviceFrame&) = delete;

    // Grows every buffer to `pixels` (their contents then undefined) and forgets the frame
    // (width = height = 0), on the current device, which must stay the one of its first call.
    // Throws std::runtime_error with a sentence on a CUDA error.
    void reserve(size_t pixels);

    // The frame deep_cuda left here: width x height (0: none), mu (double, < 0 interior) and,
    // where has_distance, the distance estimate; where has_atom, the atom periods.
    int width = 0;
    int height = 0;
    bool has_distance = false;
    bool has_atom = false;
    double* mu = nullptr;
    float* distance = nullptr;
    float* atom = nullptr;
    // Two RGBA8 frames (pixels x 4 bytes each): the worker colours into one while the window
    // copies from the other.
    uint8_t* rgba[2] = {nullptr, nullptr};

    // colour_deep_frame_cuda's own: mu relative to the frame's lowest escape (float), the palette
    // table (and the host copy it was uploaded from), the histogram, the lowest mu's bits.
    float* relative = nullptr;
    uint32_t* table = nullptr;
    std::vector<uint32_t> table_uploaded;
    float* cdf = nullptr;
    unsigned long long* counts = nullptr;
    unsigned long long* lowest_bits = nullptr;
    size_t capacity = 0;  // pixels the buffers hold
    int device = -1;      // the CUDA device the buffers are on (the current one at reserve); -1: none yet
};

}  // namespace ms
