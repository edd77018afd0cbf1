// frame_source_direct.h: every frame rendered in full, the way `render` renders one view.
//
// A frame whose sample grid the direct FP32/FP64 kernels resolve (view.h's resolve_precision)
// goes through them (coloured_frame.h, on the CPU or CUDA); a deeper one through perturbation
// (deep_cpu/deep_cuda, then deep_colour.h). A straight dive's centre is fixed, so the deep
// frames share one reference orbit: computed once at the deepest frame (the target), kept in
// the source's ReferenceCache, and found there by every shallower frame (its precision and
// iterations cover theirs). BLA tables are kept between the frames of a segment (a table
// serves frames down to 1/kBlaReuseSlack of the |dc| it was built for) and dropped at each
// segment's start, so that a segment's pixels do not depend on the segments before it
// (frame_source.h). Supersampled frames are box-filtered (box_filter.h), as render's.
// On CUDA a deep frame is coloured where deep_cuda leaves it (its DeepDeviceFrame,
// colour_deep_frame_cuda), and only the RGBA comes back to the host: the CPU colouring would
// hold the GPU idle for as long again.
// render_raw hands over a frame's raw values for an EXR sequence instead: a direct frame's
// through the feature kernels on the CPU (mu and the distance estimate), a deep frame's from
// DeepFrame's escape counts, smooth values and distances.
#pragma once

#include <memory>

#include "compute/video/frame_source.h"

namespace ms {

std::unique_ptr<VideoFrameSource> make_direct_frame_source(const FrameSourceSettings& settings);

}  // namespace ms
