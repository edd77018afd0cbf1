// frame_source.h: how a video's frames are made, behind one small interface, so that the video
// pipeline (video_job.h) neither knows nor cares which renderer draws them.
//
//   VideoFrameSource       render(k): frame k of the plan, as RGBA; render_raw(k): its raw
//                          values (escape counts, smooth values, distances) for an EXR sequence
//   FrameSourceSettings    what every source is made from: the plan (one View per frame,
//                          dive_plan.h), the precision asked for, CPU or CUDA, supersampling,
//                          the escape shortcuts and the palette's colours
//   make_frame_source      the source for --method (direct, expmap, auto)
//
// A source gives the same pixels for frame k whatever it rendered before, as long as the
// frames of one segment (settings.segment_frames of them, from a multiple of it) are asked
// for in order from the segment's first: a resumed video renders its remaining segments exactly
// as an uninterrupted run does (video_segments.h), and its file comes out byte for byte the same.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/maths/escape.h"
#include "compute/fractal/view/view.h"

namespace ms {

struct SharedOrbit;      // deep_reference.h
class ExpmapStripShare;  // expmap_share.h

// Where a source's time goes, summed over the frames it rendered (milliseconds).
struct FrameSourceTimes {
    double reference_ms = 0.0;    // the deep path's reference orbit (once for a straight dive)
    double bla_ms = 0.0;          // BLA tables
    double pixels_ms = 0.0;       // the per-pixel loops (direct kernels and perturbation)
    double colour_ms = 0.0;       // smooth values to colours, and supersampling's box filter
    double reconstruct_ms = 0.0;  // the exponential map's frames from its strips
    // The part of those the GPU was busy (kernels: pixels, BLA tables built there, colours, and
    // the copy of a frame's RGBA back); 0 on the CPU. Against the rendering's wall time it
    // gives the GPU's idle share (video_job.h's VideoStageTimes).
    double gpu_busy_ms = 0.0;
    int64_t direct_frames = 0;     // frames on the direct FP32/FP64 kernels
    int64_t deep_frames = 0;       // frames on the perturbation path
    int64_t expmap_frames = 0;     // frames reconstructed from the exponential map's strips
    int64_t strips = 0;            // the exponential map's strips rendered
    int64_t strips_taken = 0;      // strips copied from another renderer (expmap_share.h)
    double strips_taken_ms = 0.0;  // waiting for those and copying them
};

// A frame's raw values, one a pixel (no supersampling), for an EXR sequence (exr_write.h).
struct RawVideoFrame {
    int width = 0, height = 0;
    std::vector<int64_t> escape_count;  // row-major, top row first; -1 inside
    std::vector<double> mu;             // the smooth value (escape.h); -1 inside
    std::vector<float> distance;        // the distance estimate in pixels; 0 inside
};

class VideoFrameSource {
public:
    virtual ~VideoFrameSource() = default;
    // Renders frame k of the plan into rgba (plan[k].width * plan[k].height * 4 bytes, top row
    // first). Throws std::runtime_error with a sentence on a failure (a CUDA error, memory).
    virtual void render(int64_t k, uint8_t* rgba) = 0;
    // Frame k's raw values instead of its colours, under the same rule of order. Throws
    // std::runtime_error with a sentence for a source that keeps no raw values.
    virtual void render_raw(int64_t k, RawVideoFrame* out);
    // Where its time went so far (zeros for a source that does not keep count).
    virtual FrameSourceTimes times() const { return {}; }
    // Frames' worth of work the source renders before its first frame anywhere but just after
    // the last one it rendered (the exponential map's strips that a frame shows): what a renderer
    // pays to take over part of another's run of segments (segment_share.h).
    virtual double start_frames() const { return 0.0; }
    // Whether the renderers of one video best take its segments in order, one at a time each
    // (segment_share.h): where a source renders nothing again to go on after another one.
    virtual bool takes_segments_in_order() const { return false; }
};

struct FrameSourceSettings {
    std::vector<View> plan;                 // one view per frame (all of one size)
    Precision precision = Precision::Auto;  // Auto: each frame by its depth (view.h's resolve_precision)
    bool cuda = false;                      // CUDA kernels (the caller checked that a device is usable)
    int supersample = 1;                    // K: K x K samples per pixel, box-filtered (box_filter.h)
    Shortcuts shortcuts;                    // cardioid/bulb test and periodicity (the direct kernels)
    PaletteTable palette;                   // the colours (each view's offset and density apply)
    int64_t segment_frames = 0;             // frames per segment (see the header comment); 0: one segment
    // Several sources of one video (one a device, video_job.h): the dive's reference orbit,
    // computed once by the first source that needs it, and the exponential map's strips, each
    // rendered once by one of them (expmap_share.h). Null: each source computes its own.
    std::shared_ptr<SharedOrbit> shared_orbit;
    std::shared_ptr<ExpmapStripShare> expmap_strips;
};

enum class VideoMethod { Auto, Direct, Expmap };
const char* video_method_name(VideoMethod method);                       // "auto", "direct", "expmap"
bool video_method_from_name(const std::string& name, VideoMethod* out);  // false for an unknown name

// The source for `method` (Auto: the exponential map where expmap_suits, on the CPU or CUDA,
// else direct). Returns null with *problem set to one sentence where the method is not available.
std::unique_ptr<VideoFrameSource> make_frame_source(const FrameSourceSettings& settings, VideoMethod method,
                                                    std::string* problem);

}  // namespace ms
