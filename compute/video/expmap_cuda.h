// expmap_cuda.h: the exponential map's reconstruction (expmap.h) on CUDA, the sibling of
// expmap.cpp's ExpmapRenderer::State::reconstruct (the CPU reference): every output pixel's
// K x K samples read the strips and the flat image, trilinearly by their footprint
// (expmap_mips.h), operation for operation as the CPU does, one thread a pixel; only the RGBA
// comes back to the host. The device keeps each strip's levels (freed when the renderer drops
// the strip) and the flat image's: coloured there from a deep frame left on the device
// (colour_levels), or uploaded from the host's levels.
// Plain C++ (no CUDA types) so that expmap.cpp compiles without the CUDA headers. Without CUDA
// every call throws with the reason.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/deep/deep_device_frame.h"
#include "compute/fractal/view/view.h"
#include "compute/video/expmap_mips.h"

namespace ms {

struct ExpmapDeviceStrip;  // a strip's levels in one device buffer (expmap_cuda.cu)

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
    // (octave -> its levels; dropped where gone; uploaded where new and not coloured here, so
    // a strip coloured here is listed with its levels' sizes only) and the flat image (the same).
    // Throws std::runtime_error with a sentence on a CUDA error or without CUDA.
    void reconstruct(const ExpmapReconstruction& frame, const std::map<int, std::vector<MipLevel>>& strips,
                     const std::vector<MipLevel>& flat, uint8_t* rgba);

    // The strip of `octave` (kFlat: the flat image) coloured here from the frame in `frame`
    // (deep_cuda's or deep_cuda_rings' device_frame, or upload_mu's), as expmap.cpp's
    // colour_levels does on the CPU: each sample through colour_deep_frame_cuda (deep_colour.h);
    // without the DE layer level 0 from those colours and each next level by 2x2 means, with it
    // every level coloured afresh with the distance in its own texels (pixel_scale 1 / (K 2^L)),
    // then its block means. The means are the CPU's operations (expmap_mips.cpp).
    static constexpr int kFlat = -1;
    void colour_levels(int octave, DeepDeviceFrame& frame, const PaletteTable& palette, const View& view,
                       int supersample, int levels);
    // mu (width x height, < 0 inside) into `frame` from the host, for colour_levels.
    static void upload_mu(DeepDeviceFrame& frame, const double* mu, int width, int height);

    // The strip of `octave` that colour_levels made here, for other renderers (expmap_share.h):
    // its buffer stays valid while they hold it, whatever this device drops.
    std::shared_ptr<const ExpmapDeviceStrip> share_strip(int octave) const;
    // Another renderer's strip as this device's `octave`: the same buffer where it lives on the
    // current device, else a copy device to device. Throws std::runtime_error on a CUDA error.
    void adopt_strip(int octave, const ExpmapDeviceStrip& strip);

    struct State;

private:
    std::unique_ptr<State> state_;
};

}  // namespace ms
