// test_video_segments.cpp: a segment file (video_segments.h) read back as it was written, and a
// file that is not a whole segment refused with a sentence:
//   - the header and every packet (timestamps, flags, bytes, an empty packet too) come back equal;
//   - a file cut anywhere inside a packet or its header, another file's bytes, an empty file and
//     a missing one each throw a sentence naming the file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

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
