// cmd_video.cpp: `mandelscope video`: a straight dive into a location, written as an MP4 (or a
// PNG or EXR sequence) with a manifest of every frame's view beside it.
//
// The command line is `render`'s view options (render_options.h: location, size, formula,
// palette, colouring, backend, precision, supersampling) plus the dive's length and the
// encoder's settings; the work is compute/video/'s run_video (video_job.h), which the window's
// Video panel calls too. Every bad input is one sentence and exit status 2 before any file is
// written. Run again after a kill or Ctrl+C, the same command continues from the segments
// already finished and writes the same bytes as an uninterrupted run.
#include <algorithm>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/commands.h"
#include "app/modes/cmd_render_steps.h"
#include "app/modes/cmd_video_cluster.h"
#include "app/modes/progress.h"
#include "app/modes/render_options.h"
#include "compute/video/dive_plan.h"
#include "compute/video/keyframes_plan.h"
#include "compute/video/video_job.h"

namespace ms {

namespace {

// A message as the user reads it: a sentence, capitalised and ended with a full stop. The
// library's messages are often clauses, composed into longer ones, so both are settled here,
// where the message is printed; one that opens with an option ("--fps must be ...") opens with
// "The option" instead.
std::string as_sentence(std::string text) {
    while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
    if (text.rfind("--", 0) == 0) text = "The option " + text;
    // A first word that is a file name or a path ("a.kfr: ...") keeps its letters.
    const std::string first_word = text.substr(0, text.find(' '));
    if (!text.empty() && text[0] >= 'a' && text[0] <= 'z' && first_word.find_first_of("./\\_") == std::string::npos)
        text[0] = char(text[0] - 'a' + 'A');
    return text + ".";
}

void print_sentence(const std::string& text) {
    std::fprintf(stderr, "mandelscope video: %s\n", as_sentence(text).c_str());
}

int bad_input(const std::string& text) {
    print_sentence(text);
    return 2;
}

struct VideoOptionTexts {
    int fps = 30;
    double seconds = 0.0, seconds_per_doubling = 0.0;
    std::string from_zoom = "1";
    std::string output, codec = "h264", method = "auto", audio;
    std::string format = "auto";  // auto: by -o (OUT.mp4 or FOLDER/); png, exr: a folder's files
    std::string keyframes;  // a keyframe file (docs/keyframes.md): the path instead of a straight dive
    VideoEncoding encoding;
    int64_t kill_after_frames = 0;  // tests: SIGKILL itself after rendering this many frames
};

void add_video_options(CLI::App& app, RenderRequest& request, RenderOptionTexts& view, VideoOptionTexts& o) {
    add_view_place_options(app, view);
    add_newton_zoom_options(app, view);
    app.add_option("--fps", o.fps, "Frames a second (1-240)")->capture_default_str();
    app.add_option("--seconds", o.seconds, "The video's length in seconds");
    app.add_option("--seconds-per-doubling", o.seconds_per_doubling,
                   "Instead of --seconds: seconds for each doubling of the zoom");
    app.add_option("--from-zoom", o.from_zoom, "The first frame's zoom (the last is the location's)")
        ->capture_default_str();
    app.add_option("--keyframes", o.keyframes,
                   "A keyframe file (docs/keyframes.md): the camera flies from keyframe to keyframe instead of a "
                   "straight dive, and the file's times set the length");
    app.add_option("-o,--output", o.output,
                   "OUT.mp4, or FOLDER/ for a PNG sequence (each frame's view in its tEXt) or an EXR sequence")
        ->required();
    app.add_option("--format", o.format,
                   "auto (by -o: MP4 or PNG sequence), mp4, png, or exr: a folder of EXR files with Kalles Fraktaler's "
                   "raw channels N, NF, DEX and DEY, without T "
                   "(--method=direct, no supersampling)")
        ->check(CLI::IsMember({"auto", "mp4", "png", "exr"}))
        ->capture_default_str();
    app.add_option("--codec", o.codec, "h264 (libx264) or h265 (libx265, where the FFmpeg libraries have it)")
        ->check(CLI::IsMember({"h264", "h265"}))
        ->capture_default_str();
    app.add_option("--crf", o.encoding.crf, "Quality: constant rate factor, 0 (lossless) to 51; lower is better")
        ->capture_default_str();
    app.add_option("--preset", o.encoding.preset, "Encoder preset, ultrafast to placebo (slower: smaller files)")
        ->capture_default_str();
    app.add_option("--audio", o.audio, "A soundtrack to mux in by stream copy (AAC, MP3, Opus, FLAC... as MP4 holds)");
    app.add_option("--method", o.method, "How frames are made: direct (each rendered in full), expmap (log-polar strips, docs/video.md#the-exponential-map) or auto (expmap on the CPU where it renders at least 2x fewer samples, else direct)")
        ->check(CLI::IsMember({"auto", "direct", "expmap"}))
        ->capture_default_str();
    app.add_option("--segment-frames", o.encoding.segment_frames,
                   "Frames per segment (one closed GOP each, the unit of resuming); 0: one second's");
    add_view_look_options(app, request, view);
    add_devices_option(app, view,
                       "CUDA devices whose renderers share the video's segments, comma-separated (0,1; a device may "
                       "repeat); default: every visible device");
    app.add_option("--encoder-threads", o.encoding.encoder_threads, "Segments encoded side by side (0: every core)")
        ->group("");
    app.add_option("--test-kill-after-frames", o.kill_after_frames, "Tests: SIGKILL after rendering N frames")
        ->group("");
}

// The options into a job: the target view and its palette, the dive's plan, the encoder.
std::string make_job(const CLI::App& app, const RenderOptionTexts& view_texts, const VideoOptionTexts& o,
                     RenderRequest* request, VideoJob* job, std::string* backend_text) {
    if (std::string problem = apply_view_options(app, view_texts, request); !problem.empty()) return problem;
    // The dive's target may be the minibrot nearest the location (Newton zoom).
    if (std::string problem = apply_newton_zoom(app, view_texts, request); !problem.empty()) return problem;
    const bool keyframed = app.count("--keyframes") > 0;
    if (keyframed && (app.count("--seconds") || app.count("--seconds-per-doubling") || app.count("--from-zoom")))
        return "--keyframes sets the path and its times: leave out --seconds, --seconds-per-doubling and --from-zoom";
    if (keyframed && o.method == "expmap")
        return "--method=expmap renders straight dives only; a keyframed path renders with --method=direct";
    if (!keyframed && app.count("--seconds") == 0 && app.count("--seconds-per-doubling") == 0)
        return "give the video's length: --seconds=S or --seconds-per-doubling=S";
    DiveSettings dive;
    dive.target = request->view;
    dive.fps = o.fps;
    dive.seconds = o.seconds;
    dive.seconds_per_doubling = o.seconds_per_doubling;
    if (app.count("--seconds") > 0 && !(o.seconds > 0.0)) return "--seconds must be a positive number of seconds";
    if (app.count("--seconds-per-doubling") > 0 && !(o.seconds_per_doubling > 0.0))
        return "--seconds-per-doubling must be a positive number of seconds";
    if (std::string problem = ViewZoom::parse(o.from_zoom, &dive.from_zoom); !problem.empty())
        return "the first frame's zoom (--from-zoom): " + problem;
    FrameSourceSettings& frames = job->frames;
    try {
        if (!request->palette_file.empty()) {
            frames.palette = make_palette_table(load_palette_file(request->palette_file));
            dive.target.palette = std::filesystem::path(request->palette_file).stem().string();
        } else {
            frames.palette = make_palette_table(load_palette(dive.target.palette));
        }
    } catch (const std::exception& e) {
        return e.what();
    }
    if (keyframed) {
        // The options give every frame's size and look; the keyframes its camera.
        std::vector<Keyframe> keyframes;
        if (std::string problem = read_keyframes(o.keyframes, &keyframes); !problem.empty()) return problem;
        KeyframePlan plan;
        if (std::string problem = make_keyframe_plan(keyframes, dive.target, o.fps, kFlightRho, &plan);
            !problem.empty())
            return problem;
        frames.plan = keyframe_plan_frames(plan);
    } else {
        if (std::string problem = check_dive(dive); !problem.empty()) return problem;
        frames.plan = plan_dive(dive);
    }
    RenderPlan backend;
    if (std::string problem = choose_backend(*request, &backend); !problem.empty()) return problem;
    if (std::string problem = apply_devices_option(app, view_texts, request); !problem.empty()) return problem;
    if (std::string problem = check_devices_visible(*request); !problem.empty()) return problem;
    job->devices = request->devices;
    *backend_text = backend.backend_text;
    frames.precision = request->precision;
    frames.cuda = backend.cuda;
    frames.supersample = request->supersample;
    frames.shortcuts = request->shortcuts;
    job->fps = o.fps;
    job->output = o.output;
    job->audio = o.audio;
    job->encoding = o.encoding;
    video_codec_from_name(o.codec, &job->encoding.codec);
    video_method_from_name(o.method, &job->method);
    if (keyframed) job->method = VideoMethod::Direct;  // auto's exponential map needs a fixed centre
    const bool folder = video_output_is_folder(job->output);
    if (o.format == "mp4" && folder) return "--format=mp4 writes a file: give -o OUT.mp4, not a folder";
    if ((o.format == "png" || o.format == "exr") && !folder)
        return "--format=" + o.format + " writes a folder of frames: give -o FOLDER/ (ending in /)";
    job->exr = o.format == "exr";
    // The exponential map keeps colours, not raw values: auto renders an EXR sequence directly.
    if (job->exr && job->method == VideoMethod::Auto) job->method = VideoMethod::Direct;
    return check_video_job(*job);
}

std::string clock_text(double seconds) {
    const long long s = std::llround(std::max(0.0, seconds));
    char text[32];
    if (s >= 3600) std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    else std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
    return text;
}

void print_summary(const VideoJob& job, const VideoResult& r, const std::string& backend_text, bool keyframed) {
    const int64_t n = int64_t(job.frames.plan.size());
    const View& last = job.frames.plan.back();
    const VideoStageTimes& t = r.times;
    std::printf("backend    %s\n", backend_text.c_str());
    const View& first = job.frames.plan.front();
    if (keyframed)
        std::printf("path       keyframed path from centre %s, %s  zoom %s to centre %s, %s  zoom %s  %dx%d",
                    first.center_re.c_str(), first.center_im.c_str(), first.zoom.text().c_str(),
                    last.center_re.c_str(), last.center_im.c_str(), last.zoom.text().c_str(), last.width, last.height);
    else
        std::printf("dive       centre %s, %s  zoom %s to %s  %dx%d", last.center_re.c_str(), last.center_im.c_str(),
                    first.zoom.text().c_str(), last.zoom.text().c_str(), last.width, last.height);
    if (job.frames.supersample > 1)
        std::printf(" (%dx%d supersampling)", job.frames.supersample, job.frames.supersample);
    std::printf("  %lld iterations\n", (long long)last.max_iterations);
    std::printf("frames     %lld at %d fps (%s of video): %lld rendered, %lld resumed; %lld direct, %lld deep, %lld from "
                "the exponential map\n",
                (long long)n, job.fps, clock_text(double(n) / job.fps).c_str(), (long long)r.frames_rendered,
                (long long)r.frames_resumed, (long long)t.render.direct_frames, (long long)t.render.deep_frames,
                (long long)t.render.expmap_frames);
    if (t.render.expmap_frames > 0) {
        std::printf("strips     %lld rendered", (long long)t.render.strips);
        if (t.renderers > 1)
            std::printf(", %lld copied from another renderer (%.1f ms waiting for them and copying)",
                        (long long)t.render.strips_taken, t.render.strips_taken_ms);
        std::printf("\n");
    }
    std::printf("time       %.1f ms reference, %.1f ms BLA, %.1f ms pixels, %.1f ms colouring", t.render.reference_ms,
                t.render.bla_ms, t.render.pixels_ms, t.render.colour_ms);
    if (t.render.expmap_frames > 0) std::printf(", %.1f ms reconstruction", t.render.reconstruct_ms);
    std::printf("; ");
    if (video_output_is_folder(job.output))  // a sequence's files are written on the rendering thread
        std::printf("%.1f ms writing the %s files; %.1f ms in all\n", t.encode_ms, job.exr ? "EXR" : "PNG", t.wall_ms);
    else
        std::printf("%.1f ms encoding (on the encoder threads, beside the rendering), %.1f ms waiting for them, %.1f ms "
                    "muxing, %.1f ms removing the parts; %.1f ms in all\n",
                    t.encode_ms, t.encode_wait_ms, t.mux_ms, t.parts_removal_ms, t.wall_ms);
    if (r.frames_rendered > 0 && !video_output_is_folder(job.output)) {
        // Each stage per rendered frame, and how the renderer and the encoders overlapped.
        const double n_rendered = double(r.frames_rendered);
        std::printf(
            "per frame  %.2f ms reference, %.2f ms BLA, %.2f ms pixels, %.2f ms colouring, %.2f ms "
            "reconstruction: %.2f ms rendering; %.2f ms encoding on one encoder thread\n",
            t.render.reference_ms / n_rendered, t.render.bla_ms / n_rendered, t.render.pixels_ms / n_rendered,
            t.render.colour_ms / n_rendered, t.render.reconstruct_ms / n_rendered, t.render_ms / n_rendered,
            t.encode_ms / n_rendered);
        std::printf(
            "overlap    rendering %.1f ms wall (%.1f ms in the frame source, %.1f ms waiting for a free buffer), "
            "then %.1f ms for the encoders to finish",
            t.rendering_wall_ms, t.render_ms, t.encode_wait_ms, t.encode_tail_ms);
        if (t.render.gpu_busy_ms > 0)
            std::printf("; GPU busy %.1f ms, idle %.0f%% of the rendering", t.render.gpu_busy_ms,
                        100.0 * gpu_idle_share(t));
        std::printf("\n");
    }
    const double seconds = t.wall_ms * 1e-3;
    if (r.frames_rendered > 0 && seconds > 0) {
        std::printf("speed      %.2f frames/s end to end (%.2fx real time)", double(r.frames_rendered) / seconds,
                    double(r.frames_rendered) / seconds / job.fps);
        if (t.render_ms > 0)  // the renderers side by side, each busy all the while
            std::printf("; rendering alone %.2f frames/s",
                        double(r.frames_rendered) * std::max(1, t.renderers) / (t.render_ms * 1e-3));
        std::printf("\n");
    }
    if (r.renderers.size() > 1) {
        // Each renderer's share: the segments it finished, in how many runs, and its busy time.
        std::printf("devices    %zu renderers:", r.renderers.size());
        for (size_t i = 0; i < r.renderers.size(); ++i) {
            const VideoRendererShare& s = r.renderers[i];
            std::printf("%s %s%s %lld segments (%lld frames, %lld run%s, %.1f s busy)%s", i ? ";" : "",
                        s.device >= 0 ? "device " : "renderer ",
                        std::to_string(s.device >= 0 ? s.device : int(i)).c_str(), (long long)s.segments,
                        (long long)s.frames, (long long)s.runs, s.runs == 1 ? "" : "s", s.busy_ms * 1e-3,
                        s.failure.empty() ? "" : ", failed");
        }
        std::printf("\n");
    }
    std::printf("output     %s\n", job.output.c_str());
    std::printf("manifest   %s\n", r.manifest.c_str());
}

}  // namespace

int run_video_command(int argc, char** argv) {
    CLI::App app{
        "Render a zoom video: a straight dive from zoom 1 (or --from-zoom) into a location, as an MP4 (H.264/H.265) "
        "or a PNG or EXR sequence, with a manifest of every frame's view beside it; run again after an interruption, it "
        "continues where it stopped",
        "video"};
    RenderRequest request;
    RenderOptionTexts view_texts;
    view_texts.size = "1280x720";
    VideoOptionTexts texts;
    add_video_options(app, request, view_texts, texts);
    if (int status = parse_command_line(app, argc, argv); status >= 0) return status;
    VideoJob job;
    std::string backend_text;
    const std::string problem = make_job(app, view_texts, texts, &request, &job, &backend_text);
    if (video_cluster_wanted()) return video_cluster_command(job, problem);  // under mpirun: cmd_video_cluster.cpp
    if (!problem.empty()) return bad_input(problem);

    ProgressBar bar("video");
    const int64_t kill_after = texts.kill_after_frames;
    auto progress = [&](const VideoProgressInfo& p) {
        if (kill_after > 0 && p.frame >= 0 && p.frames_done - p.frames_resumed >= kill_after) std::raise(SIGKILL);
        char status[160];
        std::snprintf(status, sizeof status, "%s: frame %lld of %lld, %.2f frames/s, ETA %s", p.stage,
                      (long long)p.frames_done, (long long)p.frames_total, p.frames_per_second,
                      clock_text(p.eta_s).c_str());
        bar.update(p.frames_total > 0 ? double(p.frames_done) / double(p.frames_total) : 0.0, status);
    };
    const VideoResult result = run_video(job, progress, nullptr);
    bar.finish();
    if (result.status != 0) {
        print_sentence(result.message);
        return result.status;
    }
    if (std::string failures = result.failure_text(); !failures.empty())
        std::fprintf(stderr, "mandelscope video: %s.\n", failures.c_str());
    print_summary(job, result, backend_text, app.count("--keyframes") > 0);
    return 0;
}

}  // namespace ms
