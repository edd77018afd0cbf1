// video_encoder.h: one segment's encode, RGBA frames in, H.264 or H.265 packets out, through
// libavcodec (libx264, libx265) and libswscale (RGBA to yuv420p, BT.709, limited range).
//
// Each segment is encoded by its own encoder, single-threaded, with a GOP as long as the
// segment: it starts with an IDR frame and refers to no frame outside it (closed GOP), and its
// bytes depend only on its frames and the settings (x264's and x265's output changes with their
// thread count, so none of their threads run; video_job.h encodes segments side by side
// instead). The global header (SPS/PPS) goes to EncodedSegment::header, the same bytes for
// every segment of one size and settings, which the MP4's sample description carries once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "compute/video/video_job.h"
#include "compute/video/video_segments.h"

namespace ms {

class SegmentEncoder {
public:
    // Throws std::runtime_error with a sentence where the encoder cannot be opened (a codec
    // missing from the libraries, a size it refuses, an unknown preset).
    SegmentEncoder(const VideoEncoding& encoding, int width, int height, int fps, int64_t gop_frames);
    ~SegmentEncoder();
    SegmentEncoder(const SegmentEncoder&) = delete;
    SegmentEncoder& operator=(const SegmentEncoder&) = delete;

    // Frame index (from the segment's first) and its RGBA pixels, top row first.
    void encode(int64_t index, const uint8_t* rgba);
    // Drains the encoder; the segment is complete after it.
    EncodedSegment finish();

private:
    struct State;
    std::unique_ptr<State> state_;
};

// The encoder's settings and the libraries' versions as text (the job key's part that is not the
// frames): a change in any of them changes the bytes.
std::string encoder_identity(const VideoEncoding& encoding);

}  // namespace ms
