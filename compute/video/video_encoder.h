// video_encoder.h: one segment's encode, RGBA frames in, H.264 or H.265 packets out, through
// libavcodec (libx264, libx265) and libswscale (RGBA to yuv420p, BT.709, limited range).
//
// Each segment is encoded by its own encoder, with a GOP as long as the segment: it starts with
// an IDR frame and refers to no frame outside it (closed GOP), and its bytes depend only on its
// frames, the settings and the encoder's thread count (x264's and x265's output changes with
// it). So the thread count is the segment's, by segment_encoder_threads: one thread, as
// video_job.h encodes segments side by side, but for an H.264 video's last segments, whose
// encodes are what the video's end waits for (one thread takes a one-second 1080p60 segment
// 2.4 s at ultrafast after its last frame), and which x264 therefore encodes with its frame
// threads; x264 with a given thread count writes the same bytes every time. The global header
// (SPS/PPS) goes to EncodedSegment::header, the same bytes for every segment of one size and
// settings, which the MP4's sample description carries once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "compute/video/video_job.h"
#include "compute/video/video_segments.h"

namespace ms {

// The last kTailSegments segments of an H.264 video are encoded with kTailThreads threads each.
inline constexpr int64_t kTailSegments = 16;
inline constexpr int kTailThreads = 4;
// The encoder threads of segment `segment` of a video of `segments` (a rule of the video alone,
// not of the machine, so that a segment's bytes are the same wherever it is encoded).
int segment_encoder_threads(const VideoEncoding& encoding, int64_t segment, int64_t segments);

class SegmentEncoder {
public:
    // Throws std::runtime_error with a sentence where the encoder cannot be opened (a codec
    // missing from the libraries, a size it refuses, an unknown preset).
    SegmentEncoder(const VideoEncoding& encoding, int width, int height, int fps, int64_t gop_frames, int threads = 1);
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
