// video_job.h: a whole video as one library call, for `mandelscope video` (app/modes/cmd_video.cpp)
// and the window's Video panel alike.
//
// run_video renders every frame of a plan (one View per frame: dive_plan.h, or a keyframed
// path) through a frame source (frame_source.h) and writes either
//   an MP4    H.264 (libx264) or H.265 (libx265) in yuv420p through FFmpeg's libraries, in
//             segments of a fixed number of frames, each its own closed-GOP encode, committed
//             atomically into a hidden parts folder beside the output (video_segments.h); once
//             every segment is there, their packets are muxed into the MP4 without re-encoding
//             (video_mux.h), with the soundtrack if one is given, and the parts are removed;
//   a PNG sequence  frame_000000.png ... in a folder, each with its view in its tEXt chunk;
//   an EXR sequence frame_000000.exr ... in a folder (job.exr): each frame's raw values in Kalles
//             Fraktaler's channels (compute/io/exr_write.h), from a direct frame source;
// and the manifest (manifest.h) beside it. Run again after an interruption (a kill, Ctrl+C,
// a full disk), the same job finds its finished segments or frames, renders only the rest and
// writes the same bytes as an uninterrupted run.
//
// The frames are rendered while encoder threads encode the frames before them: each segment is
// encoded by one encoder, single-threaded but for the video's last segments
// (video_encoder.h's segment_encoder_threads: a rule of the video, so that its output does not
// depend on the machine's core count), and as many segments are encoded side by side as the
// machine has cores, with a bounded number of frames waiting between the two sides. One
// renderer renders the segments in order on the calling thread. Several (job.devices: every
// visible GPU by default) each run on a thread of their own with a frame source of their own on
// their device, and share the segments out (segment_share.h): one by one in order where the
// sources share their work (the exponential map's strips, expmap_share.h), else in runs of
// consecutive ones; the dive's reference orbit is computed once for all. A segment is one
// renderer's from its first frame to its last, so the output has the same bytes whoever
// rendered it. A renderer whose device fails hands its segment (restarted from its first frame)
// and the rest of its run to the others; the video finishes and says so.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "compute/video/frame_source.h"

namespace ms {

enum class VideoCodec { H264, H265 };
const char* video_codec_name(VideoCodec codec);  // "h264", "h265"
bool video_codec_from_name(const std::string& name, VideoCodec* out);
// Whether the FFmpeg libraries linked have the codec's encoder (libx264, libx265).
bool video_codec_available(VideoCodec codec);

struct VideoEncoding {
    VideoCodec codec = VideoCodec::H264;
    int crf = 20;                 // constant rate factor: 0 (lossless) .. 51; lower is better
    // x264/x265 preset: ultrafast .. placebo. veryfast keeps a 1080p60 dive's encoders (one a
    // segment, on every core) ahead of the video's length on a 16-core host (docs/performance.md).
    std::string preset = "veryfast";
    int64_t segment_frames = 0;   // frames per segment (one GOP each); 0: one second of frames
    int encoder_threads = 0;      // segments encoded side by side; 0: the machine's cores
};

struct VideoJob {
    FrameSourceSettings frames;  // the plan and how to render it
    VideoMethod method = VideoMethod::Auto;
    int fps = 30;
    std::filesystem::path output;  // OUT.mp4, or a folder (a PNG sequence, or EXR with exr)
    bool exr = false;              // a folder of EXR files (raw values) instead of PNGs
    VideoEncoding encoding;        // MP4 only
    std::filesystem::path audio;   // optional soundtrack, muxed by stream copy (MP4 only)
    // MP4 only: segment_count > 0 renders only the segments [first_segment, first_segment +
    // segment_count) into the parts folder and muxes nothing (one rank's share of a video made
    // across processes, app/modes/cmd_video_cluster.cpp); 0: every segment, then the mux.
    int64_t first_segment = 0;
    int64_t segment_count = 0;
    // The CUDA devices whose renderers share the segments (frames.cuda; a device may repeat).
    // Empty: every visible device. On the CPU, one renderer an entry (the numbers unused),
    // sharing the cores: the tests' stand-in for devices; empty: one.
    std::vector<int> devices;
    // A test's stand-in for a device that fails mid-run (with several renderers,
    // fault_injection.h's device_fail makes it the last one): renderer fail_renderer's source
    // throws instead of rendering once it has rendered fail_after_frames frames. -1: none.
    int fail_renderer = -1;
    int64_t fail_after_frames = 1;
};

// The output is a PNG sequence: the path ends in '/' or names an existing folder.
bool video_output_is_folder(const std::filesystem::path& output);
// OUT.manifest.jsonl beside OUT.mp4; DIR/manifest.jsonl for a PNG sequence.
std::filesystem::path video_manifest_path(const std::filesystem::path& output);
// The hidden parts folder of an MP4: .OUT.mp4.parts beside it.
std::filesystem::path video_parts_path(const std::filesystem::path& output);

// Everything a job is checked for before any work: the plan's frames (one size, valid views,
// what the colouring needs: histogram colouring is refused), the size against yuv420p and the
// codec's limits, fps, the codec's presence, the output's folder and extension, the soundtrack's
// stream, and for an EXR sequence a folder output, --method=direct and no supersampling. "" or
// one sentence.
std::string check_video_job(const VideoJob& job);

struct VideoProgressInfo {
    int64_t frames_done = 0;  // rendered (resumed ones included)
    int64_t frames_total = 0;
    int64_t frames_resumed = 0;      // found finished on disk, not rendered again
    double frames_per_second = 0.0;  // rendered this run, over its wall time
    double eta_s = 0.0;
    int64_t frame = -1;             // the frame just rendered (-1: none yet)
    const uint8_t* rgba = nullptr;  // its pixels, valid during the call only (or null)
    int width = 0, height = 0;
    const char* stage = "";  // "rendering", "muxing", ...
};
// Called after each frame, on its renderer's thread, and at each stage's start; one call at a
// time. With several renderers, rgba is null for the frames of all but the first (a preview
// then follows one place in the video).
using VideoProgress = std::function<void(const VideoProgressInfo&)>;

struct VideoStageTimes {
    FrameSourceTimes render;         // reference, BLA, pixels, colour (the frame sources', summed)
    int renderers = 1;               // frame sources rendering side by side (VideoJob::devices)
    double render_ms = 0.0;          // the renderers inside their frame sources, summed
    double rendering_wall_ms = 0.0;  // from the first frame rendered to the last one queued
    double encode_ms = 0.0;          // the encoder threads' time, summed (conversion to YUV included)
    double encode_wait_ms = 0.0;     // the renderers waiting for room in the queue, summed
    double encode_tail_ms = 0.0;     // after the last frame, waiting for the encoders to finish
    double mux_ms = 0.0;             // after the encoders finish, waiting for the mux (which follows them)
    double parts_removal_ms = 0.0;   // then removing the parts folder (the disk frees the segments' blocks)
    double wall_ms = 0.0;
};

// The share of the rendering's wall time the GPUs were not busy (0 to 1; 0 without a GPU), over
// all renderers: the figure the renderers' overlap with the encoders aims to keep low.
double gpu_idle_share(const VideoStageTimes& times);

// One renderer's part of a video rendered by several (VideoResult::renderers).
struct VideoRendererShare {
    int device = -1;       // its CUDA device; -1: the CPU
    int64_t segments = 0;  // segments it finished
    int64_t frames = 0;    // frames it rendered (those of a segment it failed in included)
    int64_t runs = 0;      // runs of consecutive segments it began (segment_share.h)
    double busy_ms = 0.0;  // inside its frame source
    std::string failure;   // why it stopped taking segments; empty: it did not fail
};

struct VideoResult {
    int status = 0;               // 0 done; 1 a failure while working; 2 bad input or a full disk
    std::string message;          // the sentence, where status != 0
    bool cancelled = false;       // *cancel became true: the parts stay, no output file
    int64_t frames_rendered = 0;  // this run
    int64_t frames_resumed = 0;   // finished before it
    std::filesystem::path manifest;
    VideoStageTimes times;
    std::vector<VideoRendererShare> renderers;  // one a renderer, where there were several

    // "device 1 (renderer 2) failed: <sentence>; its segments went to the other renderers", one
    // line a failed renderer; empty when none failed.
    std::string failure_text() const;
};

// Runs the job (check_video_job first, and returns its sentence with status 2). cancel (may be
// null) is polled between frames. Never throws: failures come back as status and a sentence.
VideoResult run_video(const VideoJob& job, const VideoProgress& progress, const std::atomic<bool>* cancel);

// An MP4 job's start without its rendering: check_video_job, the manifest written and the parts
// folder made ready for the job, as run_video makes them. Returns which segments are already
// there (0 .. segments - 1); a later run_video of the same job keeps them. Throws
// std::runtime_error with a sentence (bad input, a full disk, an output that is a folder).
std::vector<bool> prepare_video_parts(const VideoJob& job);

}  // namespace ms
