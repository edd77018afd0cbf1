// video_segments.h: an MP4's encoded segments on disk, and the parts folder that holds them
// until the final mux.
//
// A segment is a fixed run of frames (VideoEncoding::segment_frames, the last one shorter),
// encoded on its own as one closed GOP (video_encoder.h), so it can be made, lost or made again
// without touching its neighbours. Its file holds the codec's global header (the SPS/PPS of
// H.264: the same bytes for every segment of one job) and the packets in decoding order, each
// with its timestamps relative to the segment's first frame:
//     "MSVSEG1\n"  u32 header size, header bytes
//     per packet:  i64 pts, i64 dts, u32 flags (AV_PKT_FLAG_*), u32 size, bytes
// (little-endian, as the host writes them: the parts never leave the machine that made them).
// It is written through AtomicFile (a temporary name, fsync, rename), so a segment file that
// exists is complete, whatever killed the process before.
//
// The parts folder is hidden beside the output (.OUT.mp4.parts/); its file `job` names what the
// segments were made for (the manifest, the encoder's settings and the libraries' versions): a
// later run of another job removes the old parts instead of muxing them with its own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ms {

struct EncodedPacket {
    int64_t pts = 0;  // in frames from the segment's first
    int64_t dts = 0;
    uint32_t flags = 0;
    std::vector<uint8_t> data;
};

struct EncodedSegment {
    std::vector<uint8_t> header;  // the codec's extradata (global header)
    std::vector<EncodedPacket> packets;
};

// segment-000042.seg in the parts folder.
std::filesystem::path segment_path(const std::filesystem::path& parts, int64_t segment);
// Writes the segment atomically; throws std::runtime_error with a sentence (a full disk).
void write_segment(const std::filesystem::path& path, const EncodedSegment& segment);
// Throws std::runtime_error with a sentence on a file that is not a whole segment.
EncodedSegment read_segment(const std::filesystem::path& path);

// Makes the parts folder ready for `job_key`: creates it, or keeps the segments in it when its
// job file says the same key (else removes them and writes the key). Removes temporary files
// a killed run left. Returns which segments (0 .. segment_count-1) are already there.
// Throws std::runtime_error with a sentence.
std::vector<bool> prepare_parts(const std::filesystem::path& parts, const std::string& job_key, int64_t segment_count);

}  // namespace ms
