// test_video_segments.cpp: a segment file (video_segments.h) read back as it was written, a
// file that is not a whole segment refused with a sentence, and the segment encoder's threads:
//   - the header and every packet (timestamps, flags, bytes, an empty packet too) come back equal;
//   - a file cut anywhere inside a packet or its header, another file's bytes, an empty file and
//     a missing one each throw a sentence naming the file;
//   - an H.264 video's last segments go to x264's frame threads, which write the same bytes
//     every time, under the one-thread encode's header.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/video/video_encoder.h"
#include "compute/video/video_segments.h"
#include "tests/video/expmap_test_util.h"

using namespace ms;

namespace {

class VideoSegments : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() / ("ms_video_segments_" + std::to_string(::getpid()));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::filesystem::path dir_;
};

EncodedSegment sample_segment() {
    EncodedSegment segment;
    segment.header = {0x01, 0x64, 0x00, 0x28, 0xff};
    for (int k = 0; k < 5; ++k) {
        EncodedPacket p;
        p.pts = k + 1;
        p.dts = k - 1;
        p.flags = k == 0 ? 1u : 0u;
        p.data.resize(size_t(k == 3 ? 0 : 1000 * (k + 1)));
        for (size_t i = 0; i < p.data.size(); ++i) p.data[i] = uint8_t(i * 7 + size_t(k));
        segment.packets.push_back(std::move(p));
    }
    return segment;
}

void write_text(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary).write(text.data(), std::streamsize(text.size()));
}

// The sentence read_segment throws for `path`, or "" if it reads.
std::string read_problem(const std::filesystem::path& path) {
    try {
        read_segment(path);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_F(VideoSegments, ASegmentReadsBackAsItWasWritten) {
    const EncodedSegment written = sample_segment();
    const std::filesystem::path path = segment_path(dir_, 7);
    EXPECT_EQ(path.filename(), "segment-000007.seg");
    write_segment(path, written);
    const EncodedSegment read = read_segment(path);
    EXPECT_EQ(read.header, written.header);
    ASSERT_EQ(read.packets.size(), written.packets.size());
    for (size_t k = 0; k < read.packets.size(); ++k) {
        EXPECT_EQ(read.packets[k].pts, written.packets[k].pts) << k;
        EXPECT_EQ(read.packets[k].dts, written.packets[k].dts) << k;
        EXPECT_EQ(read.packets[k].flags, written.packets[k].flags) << k;
        EXPECT_EQ(read.packets[k].data, written.packets[k].data) << k;
    }
}

TEST_F(VideoSegments, AFileThatIsNotAWholeSegmentIsRefusedWithASentence) {
    const std::filesystem::path whole = dir_ / "whole.seg";
    write_segment(whole, sample_segment());
    const std::string bytes = test::file_bytes(whole);
    // Cut inside the magic, the header's size, the header, a packet's fields and its bytes.
    for (size_t cut : {size_t(4), size_t(10), size_t(14), size_t(20), size_t(40), bytes.size() / 2, bytes.size() - 1}) {
        const std::filesystem::path cut_path = dir_ / ("cut" + std::to_string(cut) + ".seg");
        write_text(cut_path, bytes.substr(0, cut));
        EXPECT_EQ(read_problem(cut_path), "the video part '" + cut_path.string() + "' is not a whole segment")
            << "cut at " << cut << " of " << bytes.size();
    }
    const std::filesystem::path other = dir_ / "other.seg";
    write_text(other, "\x89PNG\r\n\x1a\n and the rest of a picture");
    EXPECT_EQ(read_problem(other), "the video part '" + other.string() + "' is not a whole segment");
    const std::filesystem::path empty = dir_ / "empty.seg";
    write_text(empty, "");
    EXPECT_EQ(read_problem(empty), "the video part '" + empty.string() + "' is not a whole segment");
    const std::filesystem::path missing = dir_ / "missing.seg";
    EXPECT_EQ(read_problem(missing), "cannot read the video part '" + missing.string() + "'");
}

namespace {

// Thirty 320x180 frames that change from one to the next (moving gradients with noise), as one
// segment encoded with `threads`.
EncodedSegment encode_frames(int threads) {
    const int w = 320, h = 180, frames = 30;
    VideoEncoding encoding;
    encoding.preset = "ultrafast";
    SegmentEncoder encoder(encoding, w, h, 60, frames, threads);
    std::vector<uint8_t> rgba(size_t(w) * h * 4);
    uint32_t noise = 1;
    for (int k = 0; k < frames; ++k) {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                noise = noise * 1664525u + 1013904223u;
                uint8_t* p = &rgba[(size_t(y) * w + x) * 4];
                p[0] = uint8_t(x + 3 * k + (noise >> 29));
                p[1] = uint8_t(y * 2 + k);
                p[2] = uint8_t((x ^ y) + 5 * k);
                p[3] = 255;
            }
        encoder.encode(k, rgba.data());
    }
    return encoder.finish();
}

std::string packet_bytes(const EncodedSegment& segment) {
    std::string bytes;
    for (const EncodedPacket& p : segment.packets) bytes.append(p.data.begin(), p.data.end());
    return bytes;
}

}  // namespace

TEST(VideoEncoder, TheLastSegmentsTakeThreadsAndKeepTheirBytes) {
    // The rule: an H.264 video's last kTailSegments segments on kTailThreads threads; H.265 and
    // the earlier segments on one.
    VideoEncoding h264;
    EXPECT_EQ(segment_encoder_threads(h264, 0, 40), 1);
    EXPECT_EQ(segment_encoder_threads(h264, 40 - kTailSegments - 1, 40), 1);
    EXPECT_EQ(segment_encoder_threads(h264, 40 - kTailSegments, 40), kTailThreads);
    EXPECT_EQ(segment_encoder_threads(h264, 39, 40), kTailThreads);
    EXPECT_EQ(segment_encoder_threads(h264, 0, 3), kTailThreads);
    VideoEncoding h265 = h264;
    h265.codec = VideoCodec::H265;
    EXPECT_EQ(segment_encoder_threads(h265, 39, 40), 1);

    // x264 on its frame threads writes the same bytes every time, with the one-thread encode's
    // header, so that both kinds of segment go into one MP4.
    const EncodedSegment one = encode_frames(1);
    const EncodedSegment threaded = encode_frames(kTailThreads);
    ASSERT_EQ(threaded.packets.size(), one.packets.size());
    EXPECT_EQ(threaded.header, one.header);
    for (int run = 0; run < 3; ++run) {
        const EncodedSegment again = encode_frames(kTailThreads);
        EXPECT_EQ(packet_bytes(again), packet_bytes(threaded)) << "run " << run;
    }
}
