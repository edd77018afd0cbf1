// test_video_exr.cpp: `video --format=exr` (VideoJob::exr): a 32x18, 10 fps, 1 s dive to 1e50
// (assets/locations/e50.kfr) writes frame_000000.exr ... frame_000009.exr and the manifest; each
// file reads back (read_exr) at the frame's size with the manifest's iterations and the frame's
// location as its Kalles Fraktaler text, and its N and NF channels are the direct frame source's
// own raw values for that frame (escape counts exactly, NF = exr_smooth_fraction of its mu).
// Frame 0 (zoom 1, the direct kernels) also agrees with render --raw's smooth values (direct_cpu):
// the escape count each mu encodes is N for 99% of the pixels or more. A frame removed is
// written again, the same bytes, and the others are resumed. An EXR sequence with the
// exponential map, with supersampling, or into an MP4 file name is refused with a sentence.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/maths/escape.h"
#include "compute/fractal/view/kfr.h"
#include "compute/io/assets.h"
#include "compute/io/exr_write.h"
#include "compute/video/dive_plan.h"
#include "compute/video/frame_source.h"
#include "compute/video/manifest.h"
#include "compute/video/video_job.h"
#include "tests/video/expmap_test_util.h"

namespace ms {
namespace {

std::string file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class VideoExr : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("mandelscope_video_exr_test_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    VideoJob e50_exr_job() {
        const DiveSettings dive = test::e50_dive(32, 18, 10, 1);
        VideoJob job;
        job.frames.plan = plan_dive(dive);
        job.frames.palette = make_palette_table(load_palette(dive.target.palette));
        job.fps = 10;
        job.method = VideoMethod::Direct;
        job.exr = true;
        job.output = dir_ / "seq/";
        return job;
    }

    std::filesystem::path dir_;
};

TEST_F(VideoExr, DiveWritesReadableFramesWithTheSourcesRawValues) {
    const VideoJob job = e50_exr_job();
    const VideoResult result = run_video(job, nullptr, nullptr);
    ASSERT_EQ(result.status, 0) << result.message;
    EXPECT_EQ(result.frames_rendered, 10);
    EXPECT_GT(result.times.render.direct_frames, 0);
    EXPECT_GT(result.times.render.deep_frames, 0);
    const std::filesystem::path dir = dir_ / "seq";
    const std::vector<ViewRecord> records = read_manifest(dir / "manifest.jsonl");
    ASSERT_EQ(records.size(), 10u);

    // The frame source's own raw values, frame by frame in order, as run_video asks for them.
    FrameSourceSettings settings = job.frames;
    settings.segment_frames = job.fps;
    std::string problem;
    std::unique_ptr<VideoFrameSource> source = make_frame_source(settings, VideoMethod::Direct, &problem);
    ASSERT_TRUE(source);
    RawVideoFrame raw;
    for (int64_t k = 0; k < 10; ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "frame_%06lld.exr", (long long)k);
        ExrRawImage image;
        ASSERT_EQ(read_exr((dir / name).string(), &image), "") << name;
        const View& view = job.frames.plan[size_t(k)];
        EXPECT_EQ(image.width, 32);
        EXPECT_EQ(image.height, 18);
        EXPECT_EQ(image.max_iterations, records[size_t(k)].view.max_iterations) << name;
        EXPECT_EQ(image.kfr_text, format_kfr(deep_location(view))) << name;
        ASSERT_EQ(image.dex.size(), image.escape_count.size()) << name << " has no DEX channel";
        source->render_raw(k, &raw);
        ASSERT_EQ(raw.escape_count.size(), image.escape_count.size());
        int mismatches = 0, escaped = 0;
        for (size_t i = 0; i < raw.escape_count.size(); ++i) {
            escaped += raw.escape_count[i] >= 0;
            if (image.escape_count[i] != raw.escape_count[i] ||
                image.nf[i] != exr_smooth_fraction(raw.escape_count[i], raw.mu[i])) {
                if (++mismatches <= 5)
                    ADD_FAILURE() << name << " pixel " << i << ": N " << image.escape_count[i] << " NF " << image.nf[i]
                                  << ", the source's count " << raw.escape_count[i] << " mu " << raw.mu[i];
            }
        }
        EXPECT_EQ(mismatches, 0) << name;
        EXPECT_GT(escaped, 0) << name << " has no escaped pixel";
    }

    // Frame 0 against render --raw's smooth values (the direct smooth kernels).
    const View& first = job.frames.plan.front();
    std::vector<float> mu(size_t(first.width) * first.height);
    direct_cpu(first, resolve_precision(first, Precision::Auto), Shortcuts{}, full_rect(first), mu.data());
    ExrRawImage image;
    ASSERT_EQ(read_exr((dir / "frame_000000.exr").string(), &image), "");
    int agree = 0;
    for (size_t i = 0; i < mu.size(); ++i) agree += image.escape_count[i] == mandelbrot_escape_count(mu[i]);
    EXPECT_GE(agree, int(0.99 * double(mu.size()))) << agree << " of " << mu.size() << " pixels agree";
}

TEST_F(VideoExr, RerunWritesOnlyTheMissingFrameWithTheSameBytes) {
    const VideoJob job = e50_exr_job();
    ASSERT_EQ(run_video(job, nullptr, nullptr).status, 0);
    const std::filesystem::path frame = dir_ / "seq" / "frame_000006.exr";
    const std::string bytes = file_bytes(frame);
    ASSERT_FALSE(bytes.empty());
    std::filesystem::remove(frame);
    const VideoResult again = run_video(job, nullptr, nullptr);
    ASSERT_EQ(again.status, 0) << again.message;
    EXPECT_EQ(again.frames_rendered, 1);
    EXPECT_EQ(again.frames_resumed, 9);
    EXPECT_EQ(file_bytes(frame), bytes);
}

TEST_F(VideoExr, BadJobsAreRefusedWithASentence) {
    VideoJob job = e50_exr_job();
    job.method = VideoMethod::Expmap;
    EXPECT_NE(check_video_job(job).find("--method=direct"), std::string::npos) << check_video_job(job);
    job = e50_exr_job();
    job.frames.supersample = 2;
    EXPECT_NE(check_video_job(job).find("--supersample"), std::string::npos) << check_video_job(job);
    job = e50_exr_job();
    job.output = dir_ / "out.mp4";
    EXPECT_NE(check_video_job(job).find("folder"), std::string::npos) << check_video_job(job);
    const VideoResult result = run_video(job, nullptr, nullptr);
    EXPECT_EQ(result.status, 2);
    EXPECT_FALSE(std::filesystem::exists(dir_ / "out.mp4"));
    EXPECT_FALSE(std::filesystem::exists(dir_ / "out.manifest.jsonl"));
}

}  // namespace
}  // namespace ms
