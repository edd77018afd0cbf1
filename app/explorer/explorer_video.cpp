// explorer_video.cpp: the Video panel's facts and requests (see explorer_video.h).
#include "app/explorer/explorer_video.h"

#include <glad/gl.h>
// glad must come before GLFW, which then includes no GL header of its own.
#include <GLFW/glfw3.h>

#include <cstdio>

#include "app/explorer/explorer_frame.h"
#include "compute/system/text_format.h"
#include "compute/video/keyframes_plan.h"
#include "render/platform/gl_check.h"

namespace ms {

namespace {

// The video's frames share the window's view but for the size (the panel's).
View video_base_view(const VideoPanelState& panel, const View& view) {
    View base = view;
    base.width = panel.width;
    base.height = panel.height;
    return base;
}

void upload_latest_frame(ExplorerVideo& video, VideoPanelState& panel) {
    int width = 0, height = 0;
    int64_t frame = -1;
    if (!take_latest_video_frame(video.job, &video.serial, &video.rgba, &width, &height, &frame)) return;
    if (video.texture == 0) {
        GL_CHECK(glGenTextures(1, &video.texture));
        GL_CHECK(glBindTexture(GL_TEXTURE_2D, video.texture));
        GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR));
        // A small video's frames are shown enlarged: nearest keeps its pixels square.
        GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST));
        GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE));
        GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE));
    }
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, video.texture));
    GL_CHECK(glPixelStorei(GL_UNPACK_ALIGNMENT, 4));
    GL_CHECK(glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, video.rgba.data()));
    panel.preview_texture = video.texture;
    panel.preview_width = width;
    panel.preview_height = height;
    panel.preview_frame = frame;
}

std::string finished_sentence(const VideoPanelState& panel, const VideoResult& r) {
    if (r.cancelled)
        return printf_text("Cancelled after %lld frames; Render continues from the finished segments.",
                           (long long)(r.frames_rendered + r.frames_resumed));
    if (r.status != 0) return r.message;
    return printf_text("Wrote %s: %lld frames (%lld rendered, %lld resumed) in %s.", panel.output_path.c_str(),
                       (long long)(r.frames_rendered + r.frames_resumed), (long long)r.frames_rendered,
                       (long long)r.frames_resumed, format_duration_ms(r.times.wall_ms).c_str());
}

void start_render(VideoPanelState& panel, ExplorerVideo& video, const View& view, const PaletteTable& palette,
                  Precision precision, bool cuda) {
    KeyframePlan plan;
    panel.result = make_keyframe_plan(panel.keyframes, video_base_view(panel, view), panel.fps, kFlightRho, &plan);
    VideoJob job;
    if (panel.result.empty()) {
        job.frames.plan = keyframe_plan_frames(plan);
        job.frames.precision = precision;
        job.frames.cuda = cuda;
        job.frames.palette = palette;
        job.fps = panel.fps;
        job.output = panel.output_path;
        job.encoding.codec = panel.codec == 1 ? VideoCodec::H265 : VideoCodec::H264;
        if (cuda) job.devices = video.devices;
        // A path that pans renders every frame in full: the exponential map needs a fixed centre.
        for (const Keyframe& k : panel.keyframes)
            if (k.center_re != panel.keyframes[0].center_re || k.center_im != panel.keyframes[0].center_im)
                job.method = VideoMethod::Direct;
        panel.result = check_video_job(job);
    }
    panel.result_is_error = !panel.result.empty();
    if (panel.result_is_error) return;
    panel.preview_texture = 0;
    panel.preview_frame = -1;
    start_video_render_job(video.job, std::move(job));
}

// --video-render: the first frame raises the panel's requests as a user would click them.
void step_video_script(VideoPanelState& panel, ExplorerVideo& video) {
    VideoScript& script = video.script;
    if (script.output.empty() || script.started) return;
    script.started = true;
    panel.open = panel.raise = true;
    panel.width = script.width;
    panel.height = script.height;
    panel.fps = script.fps;
    panel.length_s = script.seconds;
    panel.output_path = script.output;
    panel.codec = !script.output.empty() && script.output.back() == '/' ? 2 : 0;
    panel.keyframes = dive_keyframes(panel.view, script.seconds);
    panel.add_time_s = script.seconds + 2.0;
    panel.render = true;
}

}  // namespace

void fill_video_panel(VideoPanelState& panel, ExplorerVideo& video, const View& view) {
    panel.view = view;
    KeyframePlan plan;
    panel.plan_problem = panel.keyframes.empty() ? ""
                                                 : make_keyframe_plan(panel.keyframes, video_base_view(panel, view),
                                                                      panel.fps, kFlightRho, &plan);
    panel.plan_seconds = panel.plan_problem.empty() && !panel.keyframes.empty() ? keyframe_plan_seconds(plan) : 0.0;
    panel.plan_frames = panel.plan_problem.empty() ? plan.frame_count : 0;
    panel.running = video.job.running;
    if (panel.running) {
        const VideoRenderProgress p = video_render_progress(video.job);
        panel.frames_done = p.frames_done;
        panel.frames_total = p.frames_total;
        panel.frames_per_second = p.frames_per_second;
        panel.eta_s = p.eta_s;
        panel.stage = p.stage;
    }
    upload_latest_frame(video, panel);
}

void carry_out_video_panel(VideoPanelState& panel, ExplorerVideo& video, View* view, bool* view_moved,
                           const PaletteTable& palette, Precision precision, bool cuda, StatusLineState& status,
                           GLFWwindow* window, int* exit_code) {
    step_video_script(panel, video);
    if (panel.show_preview && !panel.keyframes.empty()) {
        KeyframePlan plan;
        if (make_keyframe_plan(panel.keyframes, video_base_view(panel, *view), panel.fps, kFlightRho, &plan).empty()) {
            View shown = keyframe_plan_view_at(plan, plan.keyframes.front().time_s + double(panel.preview_s));
            shown.width = view->width;
            shown.height = view->height;
            *view = shown;
            *view_moved = true;
        }
    }
    if (panel.even_pace) {
        std::vector<Keyframe> retimed = panel.keyframes;
        panel.result = keyframe_times_by_length(&retimed, video_base_view(panel, *view), panel.length_s, kFlightRho);
        panel.result_is_error = !panel.result.empty();
        if (panel.result.empty()) panel.keyframes = retimed;
    }
    if (panel.save) {
        panel.result = write_keyframes(panel.keyframes_path, panel.keyframes);
        panel.result_is_error = !panel.result.empty();
        if (panel.result.empty()) panel.result = "Saved " + panel.keyframes_path + ".";
    }
    if (panel.load) {
        std::vector<Keyframe> loaded;
        panel.result = read_keyframes(panel.keyframes_path, &loaded);
        panel.result_is_error = !panel.result.empty();
        if (panel.result.empty()) {
            panel.keyframes = loaded;
            panel.result = printf_text("Loaded %zu keyframes from %s.", loaded.size(), panel.keyframes_path.c_str());
        }
    }
    if (panel.render && !video.job.running) start_render(panel, video, *view, palette, precision, cuda);
    if (panel.cancel) cancel_video_render_job(video.job);
    bool ended = false;
    if (VideoResult result; poll_video_render_job(video.job, &result)) {
        ended = true;
        panel.result = finished_sentence(panel, result);
        panel.result_is_error = result.status != 0 && !result.cancelled;
        show_message(status, panel.result, panel.result_is_error);
    }
    // A scripted run ends with its render (or with the sentence that refused to start it).
    if (!video.script.output.empty() && video.script.started && !video.job.running && (ended || panel.result_is_error)) {
        std::printf("video: %s\n", panel.result.c_str());
        std::fflush(stdout);
        *exit_code = panel.result_is_error ? 1 : 0;
        glfwSetWindowShouldClose(window, GLFW_TRUE);
    }
}

bool video_busy(const ExplorerVideo& video) { return video.job.running; }

void stop_explorer_video(ExplorerVideo& video) {
    stop_video_render_job(video.job);
    if (video.texture) glDeleteTextures(1, &video.texture);
    video.texture = 0;
}

}  // namespace ms
