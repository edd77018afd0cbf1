// frame_source.cpp: the --method names and the choice of frame source (frame_source.h).
#include "compute/video/frame_source.h"

#include <stdexcept>

#include "compute/video/expmap_source.h"
#include "compute/video/frame_source_direct.h"

namespace ms {

void VideoFrameSource::render_raw(int64_t, RawVideoFrame*) {
    throw std::runtime_error("this frame source keeps colours, not raw values: use --method=direct");
}

const char* video_method_name(VideoMethod method) {
    switch (method) {
    case VideoMethod::Direct: return "direct";
    case VideoMethod::Expmap: return "expmap";
    default: return "auto";
    }
}

bool video_method_from_name(const std::string& name, VideoMethod* out) {
    for (VideoMethod m : {VideoMethod::Auto, VideoMethod::Direct, VideoMethod::Expmap})
        if (name == video_method_name(m)) {
            *out = m;
            return true;
        }
    return false;
}

std::unique_ptr<VideoFrameSource> make_frame_source(const FrameSourceSettings& settings, VideoMethod method,
                                                    std::string* problem) {
    if (method == VideoMethod::Expmap) return make_expmap_frame_source(settings, problem);
    // Auto: the exponential map where it renders several times fewer samples than the frames
    // (expmap_source.h).
    if (method == VideoMethod::Auto && expmap_suits(settings)) return make_expmap_frame_source(settings, problem);
    return make_direct_frame_source(settings);
}

}  // namespace ms
