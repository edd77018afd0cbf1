// video_render_job.cpp: run_video on a thread, its progress and latest frame for the window
// (see video_render_job.h).
#include "render/frame/video_render_job.h"

#include <chrono>

namespace ms {

namespace {

double seconds_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

VideoRenderJob::~VideoRenderJob() { stop_video_render_job(*this); }

bool start_video_render_job(VideoRenderJob& job, VideoJob video) {
    if (job.running) return false;
    if (job.thread.joinable()) job.thread.join();
    job.cancel = false;
    job.finished = false;
    {
        std::lock_guard<std::mutex> lock(job.mutex);
        job.progress = VideoRenderProgress{};
        job.progress.frames_total = int64_t(video.frames.plan.size());
        job.progress.stage = "starting";
        job.latest_frame = -1;
        job.latest_copy_s = -1.0;
    }
    job.running = true;
    job.thread = std::thread([&job, video = std::move(video)] {
        const VideoProgress on_progress = [&job](const VideoProgressInfo& info) {
            std::lock_guard<std::mutex> lock(job.mutex);
            job.progress.frames_done = info.frames_done;
            job.progress.frames_total = info.frames_total;
            job.progress.frames_per_second = info.frames_per_second;
            job.progress.eta_s = info.eta_s;
            job.progress.stage = info.stage ? info.stage : "";
            // The preview shows at most ten frames a second, and always the last one.
            const double now = seconds_now();
            const bool last = info.frames_done >= info.frames_total;
            if (info.rgba && info.frame >= 0 && (last || now - job.latest_copy_s >= 0.1)) {
                job.latest_rgba.assign(info.rgba, info.rgba + size_t(info.width) * size_t(info.height) * 4);
                job.latest_width = info.width;
                job.latest_height = info.height;
                job.latest_frame = info.frame;
                job.latest_copy_s = now;
                ++job.latest_serial;
            }
        };
        VideoResult result = run_video(video, on_progress, &job.cancel);
        {
            std::lock_guard<std::mutex> lock(job.mutex);
            job.result = std::move(result);
        }
        job.finished = true;
    });
    return true;
}

VideoRenderProgress video_render_progress(VideoRenderJob& job) {
    std::lock_guard<std::mutex> lock(job.mutex);
    return job.progress;
}

bool take_latest_video_frame(VideoRenderJob& job, uint64_t* serial, std::vector<uint8_t>* rgba, int* width,
                             int* height, int64_t* frame) {
    std::lock_guard<std::mutex> lock(job.mutex);
    if (job.latest_serial == *serial || job.latest_frame < 0) return false;
    *serial = job.latest_serial;
    *rgba = job.latest_rgba;
    *width = job.latest_width;
    *height = job.latest_height;
    *frame = job.latest_frame;
    return true;
}

bool poll_video_render_job(VideoRenderJob& job, VideoResult* result) {
    if (!job.running || !job.finished) return false;
    job.thread.join();
    job.running = false;
    std::lock_guard<std::mutex> lock(job.mutex);
    *result = job.result;
    return true;
}

void cancel_video_render_job(VideoRenderJob& job) { job.cancel = true; }

void stop_video_render_job(VideoRenderJob& job) {
    job.cancel = true;
    if (job.thread.joinable()) job.thread.join();
    job.running = false;
}

}  // namespace ms
