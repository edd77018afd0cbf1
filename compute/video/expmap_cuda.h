// expmap_cuda.h: the exponential map's reconstruction (expmap.h) on CUDA, the sibling of
// expmap.cpp's ExpmapRenderer::State::reconstruct (the CPU reference): every output pixel's
// K x K samples read the strips and the flat image, trilinearly by their footprint
// (expmap_mips.h), operation for operation as the CPU does, one thread a pixel; only the RGBA
// comes back to the host. The strips are coloured on the CPU; the device keeps a copy of each
// strip's levels (uploaded once, freed when the renderer drops the strip) and of the flat
// image's.
// Plain C++ (no CUDA types) so that expmap.cpp compiles without the CUDA headers. Without CUDA
// every call throws with the reason.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "compute/video/expmap_mips.h"

namespace ms {

// What one frame's reconstruction needs besides the images (expmap.cpp fills it).
struct ExpmapReconstruction {
    int width = 0, height = 0;  // output pixels
    int supersample = 1;        // K
    double log2_step = 0.0;     // log2 of the frame's pixel step (complex units)
    int columns = 0;            // the layout's W
    int rows_per_octave = 0;    // H
    int levels = 0;             // the strips' mip levels
    int octaves = 0;
    double log2_top_radius = 0.0;
    // The flat image: present or not, flat texels per output sample, the crossfade band (flat
    // texels), its size in samples, the deepest frame's size in pixels and the border.
    bool has_flat = false;
    double f_flat = 0.0;
    double band = 0.0;
    int flat_width = 0, flat_height = 0;
    int deep_width = 0, deep_height = 0;
    int flat_border_pixels = 0;
};

class ExpmapDevice {
public:
    ExpmapDevice();
    ~ExpmapDevice();
    ExpmapDevice(const ExpmapDevice&) = delete;
    ExpmapDevice& operator=(const ExpmapDevice&) = delete;

    // Frame k into rgba (host, width x height x 4 bytes) from the strips the renderer holds
    // (octave -> its levels; uploaded where new, dropped where gone) and the flat image (uploaded
    // once it exists). Throws std::runtime_error with a sentence on a CUDA error or without CUDA.
    void reconstruct(const ExpmapReconstruction& frame, const std::map<int, std::vector<MipLevel>>& strips,
                     const std::vector<MipLevel>& flat, uint8_t* rgba);

    struct State;

private:
    std::unique_ptr<State> state_;
};

}  // namespace ms
