// expmap.h: a straight dive's frames from the exponential map (log-polar strips), the
// `--method=expmap` of the video command. docs/video.md#the-exponential-map explains the method.
//
// A straight dive keeps its centre and only zooms, so each ring of the picture around the
// centre is seen by many frames at many sizes. The exponential map renders each ring once:
// strip sample (u, v) lies at centre + R * 2^(-(v + 0.5)/H) * e^(2 pi i (u + 0.5)/W), H rows a
// doubling of the radius (an octave: one strip) and W samples a turn (square samples: W ~
// 2 pi H / ln 2). Each sample is coloured once, the strips get mip levels (2x2 means), and
// frame k is reconstructed by sampling the strips at its own sample positions, each lookup
// prefiltered by the sample's footprint there (trilinear between mip levels). The centre
// below the deepest strip comes from a final flat image, the plan's deepest view rendered as a
// plain frame, itself mip-mapped and sampled the same way, with a crossfade between the two
// over a band of two output pixels.
//
// Colours: the plain colouring and the DE layer (colouring.h), each sample through the deep
// colour pass (colour_pass.h); the DE layer's band is in output pixels, so each mip level is
// coloured with the distance scaled to its footprint. Histogram, slopes, stripes and period
// interior depend on the frame (or on iterations the deep path skips): expmap_plan_problem
// refuses them.
//
// Strips are rendered lazily, as the frames in order first need them, and the ones above the
// current frame are dropped: a dive in frame order keeps about one octave of full-resolution
// samples and the coarse levels of the octaves below it. Renderers of one dive that share a
// strip share (ExpmapOptions::strip_share) render each strip once between them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/deep/deep_reference.h"
#include "compute/fractal/view/view.h"

namespace ms {

class ExpmapStripShare;  // expmap_share.h

struct ExpmapOptions {
    int supersample = 1;  // K: each output pixel is K x K samples, as `render --supersample`
    int threads = 0;      // 0: all cores
    // Render the strips and the flat image on CUDA (direct_cuda_rings for the shallow strips,
    // deep_cuda_rings for the deep ones, deep_cuda) and reconstruct the frames there
    // (expmap_cuda.h), where the caller checked that a device is usable. The strips are
    // coloured and mip-mapped there too (ExpmapDevice::colour_levels); each frame's RGBA alone
    // comes back.
    bool cuda = false;
    // With cuda: the strips and the flat image rendered and coloured on the CPU all the same,
    // only the reconstruction on the device (its test against the CPU reconstruction from the
    // same images).
    bool pixels_on_cpu = false;
    const std::atomic<bool>* cancel = nullptr;
    // Several renderers of one dive (one a device): the dive's reference orbit, computed once,
    // and its strips, each rendered once (expmap_share.h).
    std::shared_ptr<SharedOrbit> shared_orbit;
    std::shared_ptr<ExpmapStripShare> strip_share;
};

// The strips' geometry for a plan (expmap_layout): chosen so that at every radius that any
// frame shows, the strips hold at least one sample per output sample (K per pixel) in both
// directions, matched at the first frame's corners where a frame's samples are sparsest
// relative to the ring.
struct ExpmapLayout {
    int columns = 0;               // W: samples a turn
    int rows_per_octave = 0;       // H: rows a doubling of the radius
    int levels = 0;                // mip levels (level L: W >> L by H >> L an octave)
    int octaves = 0;               // strips from the top radius down to the flat image
    double log2_top_radius = 0.0;  // log2 of R, the radius of row v = 0's upper edge (complex units)
    double log2_bottom_radius = 0.0;
};

// "" or one sentence for a plan the exponential map cannot render (views that differ other
// than in zoom, an unsupported colouring, an empty plan).
std::string expmap_plan_problem(const std::vector<View>& plan);

ExpmapLayout expmap_layout(const std::vector<View>& plan, int supersample);

// Frames' worth of strips a renderer starting in the middle of the plan renders before its first
// frame: a frame reads the octaves from its corners' radius down to a sample's (about 11 at
// 1080p) and a renderer going on in order renders one new strip every frames / octaves frames,
// so a newcomer renders (strips a frame reads - 1) x (frames a strip) frames' worth at once.
double expmap_start_frames(const std::vector<View>& plan, int supersample);

// Samples the direct method renders for the plan over those the exponential map renders (its
// strips and flat image): how many times fewer samples the expmap takes. --method=auto may take
// the expmap where this is well above 1 and expmap_plan_problem is "".
double expmap_sample_ratio(const std::vector<View>& plan, int supersample);

// Where the time and the samples went, summed over the frames rendered so far.
struct ExpmapStats {
    int64_t strip_samples = 0;     // rendered strip samples (W x H per octave)
    int64_t flat_samples = 0;      // the flat image's samples
    int strips = 0;                // octaves rendered
    int strips_taken = 0;          // octaves taken from other renderers (ExpmapOptions::strip_share)
    double strips_taken_ms = 0.0;  // waiting for them and copying them
    double reference_ms = 0.0;     // the dive's reference orbit (once)
    double strips_ms = 0.0;        // strip samples
    double bla_ms = 0.0;           // the deep strips' and the flat image's BLA tables
    double flat_ms = 0.0;          // the flat image
    double colour_ms = 0.0;        // colouring and mip levels, strips and flat
    double reconstruct_ms = 0.0;
    double gpu_ms = 0.0;  // with options.cuda: the strips' and flat image's kernels and the reconstruction
    int64_t frames = 0;
};

class ExpmapRenderer {
public:
    // Throws std::invalid_argument with expmap_plan_problem's sentence.
    ExpmapRenderer(const std::vector<View>& plan, const PaletteTable& palette, const ExpmapOptions& options = {});
    ~ExpmapRenderer();
    ExpmapRenderer(const ExpmapRenderer&) = delete;
    ExpmapRenderer& operator=(const ExpmapRenderer&) = delete;

    // Frame k of the plan, RGBA8, top row first (width x height x 4 bytes). Frames may come in
    // any order; in order, each strip is rendered once. Throws std::runtime_error when cancelled.
    void render(int64_t k, uint8_t* rgba);

    const ExpmapLayout& layout() const;
    const ExpmapStats& stats() const;

    struct State;

private:
    std::unique_ptr<State> state_;
};

}  // namespace ms
