// video_mux.h: the finished segments into one MP4, and the soundtrack beside them.
//
// The segments' packets are copied into the MP4 as they are (no decoding, no re-encoding), each
// segment's timestamps moved by its first frame's place; the sample description carries the
// codec's global header once (every segment of a job has the same). The soundtrack, when given,
// is copied the same way (a stream copy: AAC, MP3, Opus, ALAC, FLAC... whatever MP4 holds),
// interleaved with the video by time and cut at the video's end. The file is written through
// AtomicFile and muxed with libavformat's bit-exact flag (no creation time, no library version
// strings), so the same segments always make the same bytes.
// The index (moov) goes first, into room kept for it after the file type (the MP4 muxer's
// moov_size), sized from the packet counts, which are known before the first packet: nothing is
// moved at the end, so the mux can follow the encoders segment by segment while a video renders
// and has only the last segment left when the encoders finish.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "compute/video/video_job.h"

namespace ms {

// "" where `audio` has an audio stream that MP4 holds without re-encoding, else one sentence.
std::string check_soundtrack(const std::filesystem::path& audio);

struct MuxSettings {
    VideoCodec codec = VideoCodec::H264;
    int width = 0, height = 0;
    int fps = 30;
    int64_t frames = 0;          // in all segments
    int64_t segment_frames = 0;  // frames per segment (the last may have fewer)
    std::filesystem::path audio;
};

// Waits until segment `segment` is in the parts folder; false: not every segment will come.
using SegmentReady = std::function<bool(int64_t segment)>;

// Writes `output` from the segments in `parts` (segment_path), each once `ready` says it is
// there (empty: all are). Returns false, leaving nothing at `output`, where `ready` gives up;
// throws std::runtime_error with a sentence (a full disk: nothing is left at `output`).
bool mux_segments(const std::filesystem::path& output, const std::filesystem::path& parts, const MuxSettings& settings,
                  const SegmentReady& ready = {});

}  // namespace ms
