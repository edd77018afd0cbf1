// video_render_job.h: a zoom video rendered from the window: compute/video/video_job.h's
// run_video on a thread of its own, with what the Video panel shows while it runs (frames done,
// frames a second, ETA, the stage) and a copy of the latest frame for its preview. The window
// keeps drawing and navigating meanwhile; Cancel stops the job between frames (run_video keeps
// the finished segments, and the same job run again continues from them).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compute/video/video_job.h"

namespace ms {

// What the job has done so far (a copy: the UI thread reads it without holding the lock).
struct VideoRenderProgress {
    int64_t frames_done = 0;
    int64_t frames_total = 0;
    double frames_per_second = 0.0;
    double eta_s = 0.0;
    std::string stage;
};

struct VideoRenderJob {
    ~VideoRenderJob();  // stop_video_render_job: the thread never outlives the job it writes into
    std::thread thread;
    std::atomic<bool> cancel{false};
    std::atomic<bool> finished{false};
    std::mutex mutex;  // guards progress and the latest frame below
    VideoRenderProgress progress;
    std::vector<uint8_t> latest_rgba;  // the latest frame copied (at most ten a second)
    int latest_width = 0, latest_height = 0;
    int64_t latest_frame = -1;
    uint64_t latest_serial = 0;  // grows with each copy
    double latest_copy_s = -1.0;
    VideoResult result;    // written by the thread before `finished`
    bool running = false;  // UI thread only
};

// Starts rendering `job` on the job's thread (one at a time: returns false while one runs).
bool start_video_render_job(VideoRenderJob& job, VideoJob video);
VideoRenderProgress video_render_progress(VideoRenderJob& job);
// Copies the latest frame when it is newer than *serial: returns true and updates *serial.
bool take_latest_video_frame(VideoRenderJob& job, uint64_t* serial, std::vector<uint8_t>* rgba, int* width,
                             int* height, int64_t* frame);
// When the job has ended: joins its thread, sets *result and returns true.
bool poll_video_render_job(VideoRenderJob& job, VideoResult* result);
void cancel_video_render_job(VideoRenderJob& job);  // asks; poll reports the cancel when done
void stop_video_render_job(VideoRenderJob& job);    // cancels and waits (shutdown)

}  // namespace ms
