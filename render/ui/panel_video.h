// panel_video.h: the Video panel, a tab of the right column: a zoom video of the current view.
//
//   Dive to here     two keyframes: the current centre at zoom 1, then the current view after
//                    `length` seconds (a straight dive: compute/video/keyframes_plan.h's pure zoom)
//   Add keyframe     the current view at the time given; the list shows each keyframe's time
//                    (editable), zoom and centre, and deletes; Even pace retimes them by the
//                    flight path's length (docs/keyframes.md)
//   Path preview     a slider over the video's time: the window shows the planned frame there
//   Output           size, frames a second, codec (H.264, H.265, or a PNG folder), file
//   Save, Load       the keyframe file (compute/video/keyframes.h), as `video --keyframes` reads it
//   Render           run_video on a thread (render/frame/video_render_job.h): progress bar, frames
//                    a second, ETA, the latest frame, Cancel
// Like every panel it edits its own state and raises requests; the main loop
// (app/explorer/explorer_video.h) carries out the ones that touch files, the view or the job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/fractal/view/view.h"
#include "compute/video/keyframes.h"

namespace ms {

inline constexpr const char* kVideoCodecNames[] = {"H.264 (.mp4)", "H.265 (.mp4)", "PNG frames (folder/)"};

struct VideoPanelState {
    bool open = false;
    bool raise = false;  // request: bring its tab of the right column to the front
    // Edited by the panel, kept between frames.
    std::vector<Keyframe> keyframes;
    double add_time_s = 0.0;  // where "Add keyframe" puts the current view
    double length_s = 10.0;   // Dive to here's and Even pace's length
    int width = 640;          // the video's pixels
    int height = 360;
    int fps = 30;
    int codec = 0;  // index into kVideoCodecNames
    std::string output_path = "mandelscope.mp4";
    std::string keyframes_path = "mandelscope.keyframes";
    float preview_s = 0.0f;  // the path preview slider's time
    // Filled by the main loop each frame.
    View view;                    // the window's view now
    std::string plan_problem;     // why the keyframes make no video ("" when they do)
    double plan_seconds = 0.0;    // the keyframes' span
    int64_t plan_frames = 0;
    bool running = false;
    int64_t frames_done = 0, frames_total = 0;
    double frames_per_second = 0.0;
    double eta_s = 0.0;
    std::string stage;
    unsigned preview_texture = 0;  // the latest frame rendered (GL texture name; 0: none yet)
    int preview_width = 0, preview_height = 0;
    int64_t preview_frame = -1;
    std::string result;  // the last save, load or render's sentence
    bool result_is_error = false;
    // Requests raised this frame.
    bool show_preview = false;  // the slider moved: the window shows the planned view at preview_s
    bool even_pace = false;     // retime the keyframes over length_s by the path's length
    bool save = false;
    bool load = false;
    bool render = false;
    bool cancel = false;
};

// "Dive to here": the keyframes of a straight dive to `view` over `seconds`.
std::vector<Keyframe> dive_keyframes(const View& view, double seconds);
// Inserts `keyframe` in time order; a keyframe already at that time is replaced.
void insert_keyframe(std::vector<Keyframe>* keyframes, const Keyframe& keyframe);

// The "Video" tab of the right column (when open and the column is drawn, panel_layout.h).
void draw_video_panel(VideoPanelState& state, bool in_column);

}  // namespace ms
