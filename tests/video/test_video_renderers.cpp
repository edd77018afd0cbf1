// test_video_renderers.cpp: a video's segments shared out over several renderers
// (compute/video/segment_share.h, run_video's VideoJob::devices), on the CPU, where each entry
// of devices is a renderer of its own: the tests' stand-in for GPUs (test_video_cuda.cpp runs
// the same on devices).
//   - SegmentShare: each renderer starts on a run of equal length; one whose run is done takes
//     the later part of the longest run left, sized by the start cost, and none where the owner
//     ends sooner alone; a failed renderer's segment and the rest of its run go to another;
//     one by one, each renderer takes the first segment left, a failed one's first; threads
//     taking segments at random speeds get every segment exactly once either way;
//   - run_video with two and three renderers writes the bytes one renderer writes: an MP4 of a
//     dive to 1e50 by the direct method and by the exponential map, and a PNG sequence;
//   - a renderer that fails mid-segment (the device_fail stand-in) hands its segment and the rest
//     of its run to the other, by the direct method and by the exponential map (whose renderers
//     share their strips), the video finishes with the same bytes and says which renderer
//     failed; when every renderer fails, the video fails with the sentence.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "compute/video/dive_plan.h"
#include "compute/video/segment_share.h"
#include "compute/video/video_job.h"
#include "tests/video/expmap_test_util.h"

namespace ms {
namespace {

std::vector<int64_t> range(int64_t n) {
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = i;
    return out;
}

TEST(SegmentShare, RunsOfEqualLengthThenTheLaterPartOfTheLongest) {
    SegmentShare share(range(20), 2, 4.0);
    EXPECT_EQ(share.next(1), 10);  // renderer 1 starts its run, and keeps working on segment 10
    for (int64_t s = 0; s < 10; ++s) EXPECT_EQ(share.next(0), s);
    // Renderer 1 has 11..19 left (9): renderer 0 takes (9 - 4) / 2 = 2 from its end.
    EXPECT_EQ(share.next(0), 18);
    EXPECT_EQ(share.next(0), 19);
    EXPECT_EQ(share.runs_started(0), 2);
    // 11..17 left (7): one more, from the end.
    EXPECT_EQ(share.next(0), 17);
    EXPECT_EQ(share.runs_started(0), 3);
    // 11..16 left (6): (6 - 4) / 2 = 1, the newcomer and the owner ending together.
    EXPECT_EQ(share.next(0), 16);
    EXPECT_EQ(share.remaining(), 5);  // 11..15: a newcomer would end after the owner
    // Renderer 0 now waits: renderer 1 ends sooner alone, but it might still fail.
    std::atomic<int64_t> waited{-2};
    std::thread waiter([&] { waited = share.next(0); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(waited.load(), -2) << "renderer 0 should wait while renderer 1 works";
    for (int64_t s = 11; s <= 15; ++s) EXPECT_EQ(share.next(1), s);
    EXPECT_EQ(share.next(1), -1);
    waiter.join();
    EXPECT_EQ(waited.load(), -1);
    EXPECT_EQ(share.runs_started(1), 1);
}

TEST(SegmentShare, AFailedRenderersSegmentAndRunGoToAnother) {
    SegmentShare share(range(8), 2, 100.0);  // a start cost no steal repays
    EXPECT_EQ(share.next(1), 4);
    EXPECT_EQ(share.next(1), 5);
    share.fail(1, 5);  // segment 5 was not finished
    EXPECT_EQ(share.next(1), -1) << "a failed renderer takes no more";
    for (int64_t s : {0, 1, 2, 3, 5, 6, 7}) EXPECT_EQ(share.next(0), s);
    EXPECT_EQ(share.next(0), -1);
    EXPECT_EQ(share.runs_started(0), 2);
}

TEST(SegmentShare, OneByOneHandsOutTheFirstSegmentLeft) {
    SegmentShare share(range(6), 2, 0.0, SegmentShare::Order::OneByOne);
    EXPECT_EQ(share.next(0), 0);
    EXPECT_EQ(share.next(1), 1);
    EXPECT_EQ(share.next(1), 2);  // renderer 1 is quicker: the next one in order, whoever asks
    EXPECT_EQ(share.next(0), 3);
    share.fail(0, 3);  // segment 3 was not finished: it goes back to the front
    EXPECT_EQ(share.next(0), -1) << "a failed renderer takes no more";
    EXPECT_EQ(share.next(1), 3);
    EXPECT_EQ(share.next(1), 4);
    EXPECT_EQ(share.next(1), 5);
    EXPECT_EQ(share.next(1), -1);
    EXPECT_EQ(share.remaining(), 0);
    // Runs of consecutive segments each began: renderer 0's 0, then 3; renderer 1's 1 to 5.
    EXPECT_EQ(share.runs_started(0), 2);
    EXPECT_EQ(share.runs_started(1), 1);
}

TEST(SegmentShare, StopEndsEveryRenderer) {
    SegmentShare share(range(6), 3, 0.0);
    EXPECT_EQ(share.next(0), 0);
    share.stop();
    EXPECT_EQ(share.next(0), -1);
    EXPECT_EQ(share.next(2), -1);
}

TEST(SegmentShare, ThreadsAtRandomSpeedsGetEverySegmentOnce) {
    for (double cost : {-1.0, 0.0, 3.0}) {  // -1: one by one
        const int64_t n = 200;
        std::vector<int64_t> segments;
        for (int64_t s = 0; s < n; ++s) segments.push_back(3 * s + 1);  // gaps, as a resumed run leaves
        SegmentShare share(segments, 4, std::max(cost, 0.0),
                           cost < 0.0 ? SegmentShare::Order::OneByOne : SegmentShare::Order::Runs);
        std::mutex mutex;
        std::vector<int> seen(size_t(3 * n + 1), 0);
        std::vector<std::thread> threads;
        for (int r = 0; r < 4; ++r)
            threads.emplace_back([&, r] {
                std::mt19937 rng(unsigned(r + 1));
                int64_t done = 0;
                for (int64_t s = share.next(r); s >= 0; s = share.next(r)) {
                    // Renderer 3 fails after 10 segments; renderer 0 is four times slower.
                    if (r == 3 && ++done > 10) {
                        share.fail(r, s);
                        break;
                    }
                    std::this_thread::sleep_for(std::chrono::microseconds((r == 0 ? 400 : 100) + rng() % 100));
                    std::lock_guard<std::mutex> lock(mutex);
                    ++seen[size_t(s)];
                }
            });
        for (std::thread& t : threads) t.join();
        for (int64_t s = 0; s < 3 * n + 1; ++s) EXPECT_EQ(seen[size_t(s)], s % 3 == 1 ? 1 : 0) << "segment " << s;
        EXPECT_EQ(share.remaining(), 0);
    }
}

class VideoRenderers : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("mandelscope_video_renderers_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    // A 3-second dive to 1e50 at 64x36, 10 fps, in segments of 5 frames: 6 segments, the first
    // on the direct kernels, the last on perturbation.
    VideoJob e50_job(const std::string& output, VideoMethod method) {
        const DiveSettings dive = test::e50_dive(64, 36, 10, 3);
        VideoJob job;
        job.frames.plan = plan_dive(dive);
        job.frames.palette = make_palette_table(load_palette(dive.target.palette));
        job.fps = 10;
        job.method = method;
        job.output = dir_ / output;
        job.encoding.segment_frames = 5;
        job.encoding.preset = "ultrafast";
        return job;
    }

    std::filesystem::path dir_;
};

TEST_F(VideoRenderers, SeveralRenderersWriteTheBytesOfOne) {
    for (VideoMethod method : {VideoMethod::Direct, VideoMethod::Expmap}) {
        SCOPED_TRACE(video_method_name(method));
        VideoJob one = e50_job(std::string("one_") + video_method_name(method) + ".mp4", method);
        const VideoResult alone = run_video(one, nullptr, nullptr);
        ASSERT_EQ(alone.status, 0) << alone.message;
        EXPECT_TRUE(alone.renderers.empty());
        // Two and three renderers (the exponential map's take the segments one by one and
        // share their strips).
        for (int count = 2; count <= 3; ++count) {
            VideoJob many = e50_job(std::string("many_") + video_method_name(method) + std::to_string(count) + ".mp4",
                                    method);
            many.devices.assign(size_t(count), 0);
            int64_t reports = 0, previews = 0;
            auto progress = [&](const VideoProgressInfo& p) {
                if (p.frame < 0) return;
                ++reports;
                if (p.rgba) ++previews;
            };
            const VideoResult shared = run_video(many, progress, nullptr);
            ASSERT_EQ(shared.status, 0) << shared.message;
            EXPECT_EQ(shared.frames_rendered, 30);
            EXPECT_EQ(reports, 30);
            EXPECT_GT(previews, 0);
            EXPECT_LT(previews, 30) << "only the first renderer's frames carry a preview";
            ASSERT_EQ(shared.renderers.size(), size_t(count));
            int64_t segments = 0, frames = 0;
            for (const VideoRendererShare& s : shared.renderers) {
                EXPECT_EQ(s.device, -1);
                EXPECT_GE(s.runs, 1);
                EXPECT_TRUE(s.failure.empty()) << s.failure;
                segments += s.segments;
                frames += s.frames;
            }
            EXPECT_EQ(segments, 6);
            EXPECT_EQ(frames, 30);
            EXPECT_EQ(shared.failure_text(), "");
            EXPECT_EQ(shared.times.renderers, count);
            EXPECT_EQ(test::file_bytes(many.output), test::file_bytes(one.output))
                << count << " renderers' MP4 differs from one renderer's";
        }
    }
}

TEST_F(VideoRenderers, AFailedRenderersSegmentsGoToTheOthers) {
    VideoJob one = e50_job("one.mp4", VideoMethod::Direct);
    ASSERT_EQ(run_video(one, nullptr, nullptr).status, 0);
    VideoJob job = e50_job("failing.mp4", VideoMethod::Direct);
    job.devices = {0, 0};
    job.fail_renderer = 1;
    job.fail_after_frames = 2;  // inside its first segment (segment 3, frames 15-19)
    int64_t most_done = 0;
    auto progress = [&](const VideoProgressInfo& p) { most_done = std::max(most_done, p.frames_done); };
    const VideoResult result = run_video(job, progress, nullptr);
    ASSERT_EQ(result.status, 0) << result.message;
    ASSERT_EQ(result.renderers.size(), 2u);
    EXPECT_EQ(result.renderers[0].segments, 6);
    EXPECT_EQ(result.renderers[1].segments, 0);
    EXPECT_EQ(result.renderers[1].frames, 2);
    EXPECT_NE(result.renderers[1].failure.find("device_fail"), std::string::npos) << result.renderers[1].failure;
    EXPECT_EQ(result.frames_rendered, 30) << "the failed segment's frames count once";
    EXPECT_LE(most_done, 30);
    EXPECT_NE(result.failure_text().find("renderer 1 failed"), std::string::npos) << result.failure_text();
    EXPECT_EQ(test::file_bytes(job.output), test::file_bytes(one.output));

    // Every renderer failing fails the video with the first one's sentence, and keeps no MP4.
    VideoJob doomed = e50_job("doomed.mp4", VideoMethod::Direct);
    doomed.devices = {0};
    doomed.fail_renderer = 0;
    doomed.fail_after_frames = 7;
    const VideoResult failed = run_video(doomed, nullptr, nullptr);
    EXPECT_EQ(failed.status, 2);
    EXPECT_NE(failed.message.find("device stopped responding"), std::string::npos) << failed.message;
    EXPECT_FALSE(std::filesystem::exists(doomed.output));
}

TEST_F(VideoRenderers, AFailedExpmapRenderersSegmentGoesToTheOther) {
    // The exponential map's renderers take the segments one by one and share their strips: the
    // one that fails in its second segment hands that segment back, and the other renders it
    // and the rest, from the strips both rendered.
    VideoJob one = e50_job("one.mp4", VideoMethod::Expmap);
    ASSERT_EQ(run_video(one, nullptr, nullptr).status, 0);
    VideoJob job = e50_job("failing.mp4", VideoMethod::Expmap);
    job.devices = {0, 0};
    job.fail_renderer = 1;
    job.fail_after_frames = 7;
    const VideoResult result = run_video(job, nullptr, nullptr);
    ASSERT_EQ(result.status, 0) << result.message;
    ASSERT_EQ(result.renderers.size(), 2u);
    EXPECT_EQ(result.renderers[0].segments + result.renderers[1].segments, 6);
    EXPECT_EQ(result.renderers[1].segments, 1);
    EXPECT_EQ(result.renderers[1].frames, 7);
    EXPECT_NE(result.failure_text().find("renderer 1 failed"), std::string::npos) << result.failure_text();
    EXPECT_EQ(result.frames_rendered, 30);
    EXPECT_EQ(test::file_bytes(job.output), test::file_bytes(one.output));
}

TEST_F(VideoRenderers, APngSequenceFromTwoRenderersIsOnesFiles) {
    VideoJob one = e50_job("one/", VideoMethod::Direct);
    ASSERT_EQ(run_video(one, nullptr, nullptr).status, 0);
    VideoJob two = e50_job("two/", VideoMethod::Direct);
    two.devices = {0, 0};
    two.fail_renderer = 0;  // fails part-way through its second segment: frames 5-9
    two.fail_after_frames = 7;
    const VideoResult result = run_video(two, nullptr, nullptr);
    ASSERT_EQ(result.status, 0) << result.message;
    EXPECT_EQ(result.frames_rendered + result.frames_resumed, 30);
    for (int k = 0; k < 30; ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "frame_%06d.png", k);
        EXPECT_EQ(test::file_bytes(two.output / name), test::file_bytes(one.output / name)) << name;
    }
}

}  // namespace
}  // namespace ms
