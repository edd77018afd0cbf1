// test_render_video_panel.cpp: the Video panel's logic without a window
// (render/ui/panel_video.h, render/frame/video_render_job.h): "Dive to here" makes a straight
// dive's keyframes, "Add keyframe" keeps them in time order, and the render job runs run_video on
// its thread with progress and the latest frame for the preview, and stops on Cancel.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "compute/fractal/colour/palette.h"
#include "compute/video/keyframes_plan.h"
#include "render/frame/video_render_job.h"
#include "render/ui/panel_video.h"

using namespace ms;

namespace {

View deep_enough_view() {
    View view;
    view.center_re = "-0.743643887037158704752191506114774";
    view.center_im = "0.131825904205311970493132056385139";
    view.zoom = ViewZoom(1e6);
    view.max_iterations = 2000;
    view.palette_offset = 0.25;
    view.width = 64;
    view.height = 36;
    return view;
}

// Waits for the job to end (at most a minute); returns its result.
VideoResult wait_for(VideoRenderJob& job) {
    VideoResult result;
    for (int i = 0; i < 6000 && !poll_video_render_job(job, &result); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return result;
}

VideoJob small_job(const std::vector<Keyframe>& keyframes, const std::filesystem::path& output) {
    KeyframePlan plan;
    EXPECT_EQ(make_keyframe_plan(keyframes, deep_enough_view(), 10, kFlightRho, &plan), "");
    VideoJob job;
    job.frames.plan = keyframe_plan_frames(plan);
    job.frames.palette = make_palette_table(load_palette("classic"));
    job.fps = 10;
    job.output = output;
    return job;
}

}  // namespace

TEST(VideoPanel, DiveToHereIsAStraightDiveToTheView) {
    const View view = deep_enough_view();
    const std::vector<Keyframe> k = dive_keyframes(view, 8.0);
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0].time_s, 0.0);
    EXPECT_EQ(k[1].time_s, 8.0);
    EXPECT_EQ(k[0].zoom.value(), 1.0);
    EXPECT_TRUE(k[1].zoom == view.zoom);
    for (const Keyframe& key : k) {
        EXPECT_EQ(key.center_re, view.center_re);
        EXPECT_EQ(key.center_im, view.center_im);
        EXPECT_EQ(key.max_iterations, view.max_iterations);
        EXPECT_EQ(key.palette_offset, view.palette_offset);
    }
    EXPECT_EQ(validate_keyframes(k), "");
}

TEST(VideoPanel, AddedKeyframesStayInTimeOrder) {
    std::vector<Keyframe> k;
    View view = deep_enough_view();
    for (double t : {5.0, 1.0, 3.0}) insert_keyframe(&k, keyframe_from_view(view, t));
    view.zoom = ViewZoom(42.0);
    insert_keyframe(&k, keyframe_from_view(view, 3.0));  // the same time: replaced
    ASSERT_EQ(k.size(), 3u);
    EXPECT_EQ(k[0].time_s, 1.0);
    EXPECT_EQ(k[1].time_s, 3.0);
    EXPECT_EQ(k[1].zoom.value(), 42.0);
    EXPECT_EQ(k[2].time_s, 5.0);
}

TEST(VideoPanel, TheRenderJobRunsOnItsThreadWithProgressAndTheLatestFrame) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "test_render_video_panel";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    VideoRenderJob job;
    ASSERT_TRUE(start_video_render_job(job, small_job(dive_keyframes(deep_enough_view(), 1.0), dir / "dive.mp4")));
    EXPECT_TRUE(job.running);
    const VideoResult result = wait_for(job);
    EXPECT_FALSE(job.running);
    EXPECT_EQ(result.status, 0) << result.message;
    EXPECT_EQ(result.frames_rendered, 10);
    EXPECT_TRUE(std::filesystem::exists(dir / "dive.mp4"));
    const VideoRenderProgress p = video_render_progress(job);
    EXPECT_EQ(p.frames_done, 10);
    EXPECT_EQ(p.frames_total, 10);
    // The last frame is always kept for the preview.
    uint64_t serial = 0;
    std::vector<uint8_t> rgba;
    int width = 0, height = 0;
    int64_t frame = -1;
    ASSERT_TRUE(take_latest_video_frame(job, &serial, &rgba, &width, &height, &frame));
    EXPECT_EQ(frame, 9);
    EXPECT_EQ(width, 64);
    EXPECT_EQ(height, 36);
    EXPECT_EQ(rgba.size(), size_t(64 * 36 * 4));
    EXPECT_FALSE(take_latest_video_frame(job, &serial, &rgba, &width, &height, &frame));  // nothing newer
    std::filesystem::remove_all(dir);
}

TEST(VideoPanel, CancelStopsTheJobAndWritesNoVideo) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "test_render_video_panel_cancel";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    VideoRenderJob job;
    // 60 s at 10 fps: far more than the time before the cancel.
    ASSERT_TRUE(start_video_render_job(job, small_job(dive_keyframes(deep_enough_view(), 60.0), dir / "long.mp4")));
    EXPECT_FALSE(start_video_render_job(job, VideoJob{}));  // one at a time
    cancel_video_render_job(job);
    const VideoResult result = wait_for(job);
    EXPECT_TRUE(result.cancelled) << result.message;
    EXPECT_LT(result.frames_rendered, 600);
    EXPECT_FALSE(std::filesystem::exists(dir / "long.mp4"));
    std::filesystem::remove_all(dir);
}
