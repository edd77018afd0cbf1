// test_video_dive.cpp: `mandelscope video`'s library end to end, on the CPU: a 64x36, 10 fps,
// 3 s dive to 1e50 (assets/locations/e50.kfr) is planned, rendered, encoded and muxed by
// run_video, then decoded here through libavformat/libavcodec:
//   - the MP4 holds 30 frames of 64x36, and the manifest names 30 views, frame k's being the
//     plan's k-th (zoom 1 at frame 0, the location's exact zoom at frame 29, log-spaced between);
//   - frames 0 (direct FP kernels) and 29 (perturbation) match the same views rendered on their
//     own as `render` renders them (coloured_frame.h; deep_cpu + colour_deep_frame), within the
//     loss of YUV 4:2:0. The metric is on the decoded RGB against the rendered frame passed
//     through the same RGB -> yuv420p (BT.709) -> RGB conversion: encoded losslessly (--crf=0)
//     they are equal, every byte; at --crf=20 the PSNR is at least 27 dB and the mean absolute
//     error at most 9 levels a channel (this 64x36 deep frame is pixel-sized detail, the hardest
//     case for an encoder: 31 dB and 5.6 levels here). 4:2:0 itself costs such a frame far more
//     (the test prints it: about 15 dB against the rendered RGB at 1e50, 34 dB at zoom 1);
//   - the MP4's index (moov) comes before its packets (mdat), as a player streaming it needs;
//   - cancelled mid-way (the window's way: a flag and a progress callback), a job leaves no MP4
//     and no half-muxed file, but its finished segments; run again, it writes the uninterrupted
//     run's bytes; a mux whose segments stop coming leaves nothing either;
//   - a parts folder made ready without rendering (prepare_video_parts, rank 0's first step
//     under mpirun) keeps the segments a share of the job renders, and the whole job finishes
//     from it with the uninterrupted run's bytes;
//   - the plan is exact at any depth: a dive to 1e1086 ends on the location's zoom itself.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>
}

#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/view/kfr.h"
#include "compute/io/assets.h"
#include "compute/video/dive_plan.h"
#include "compute/video/manifest.h"
#include "compute/video/video_job.h"
#include "compute/video/video_mux.h"
#include "tests/video/expmap_test_util.h"

namespace ms {
namespace {

struct Decoded {
    int width = 0, height = 0;
    std::vector<std::vector<uint8_t>> frames;  // RGBA
};

// BT.709 limited range, as the encoder writes it (video_encoder.cpp).
SwsContext* yuv_to_rgba(int w, int h) {
    SwsContext* s = sws_getContext(w, h, AV_PIX_FMT_YUV420P, w, h, AV_PIX_FMT_RGBA,
                                   SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nullptr, nullptr, nullptr);
    sws_setColorspaceDetails(s, sws_getCoefficients(SWS_CS_ITU709), 0, sws_getCoefficients(SWS_CS_ITU709), 1, 0,
                             1 << 16, 1 << 16);
    return s;
}

Decoded decode(const std::filesystem::path& path) {
    Decoded out;
    AVFormatContext* input = nullptr;
    EXPECT_EQ(avformat_open_input(&input, path.c_str(), nullptr, nullptr), 0);
    if (!input) return out;
    avformat_find_stream_info(input, nullptr);
    const int stream = av_find_best_stream(input, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    EXPECT_GE(stream, 0);
    const AVCodecParameters* par = input->streams[stream]->codecpar;
    const AVCodec* codec = avcodec_find_decoder(par->codec_id);
    AVCodecContext* c = avcodec_alloc_context3(codec);
    avcodec_parameters_to_context(c, par);
    c->thread_count = 1;
    EXPECT_EQ(avcodec_open2(c, codec, nullptr), 0);
    out.width = par->width;
    out.height = par->height;
    SwsContext* sws = yuv_to_rgba(out.width, out.height);
    AVPacket* packet = av_packet_alloc();
    AVFrame* frame = av_frame_alloc();
    auto drain = [&] {
        while (avcodec_receive_frame(c, frame) == 0) {
            std::vector<uint8_t> rgba(size_t(out.width) * out.height * 4);
            uint8_t* dst[1] = {rgba.data()};
            const int stride[1] = {out.width * 4};
            sws_scale(sws, frame->data, frame->linesize, 0, out.height, dst, stride);
            out.frames.push_back(std::move(rgba));
        }
    };
    while (av_read_frame(input, packet) >= 0) {
        if (packet->stream_index == stream) {
            avcodec_send_packet(c, packet);
            drain();
        }
        av_packet_unref(packet);
    }
    avcodec_send_packet(c, nullptr);
    drain();
    av_frame_free(&frame);
    av_packet_free(&packet);
    sws_freeContext(sws);
    avcodec_free_context(&c);
    avformat_close_input(&input);
    return out;
}

// The rendered frame through the encoder's conversion to yuv420p and the test's back to RGBA.
std::vector<uint8_t> through_yuv420(const std::vector<uint8_t>& rgba, int w, int h) {
    SwsContext* to = sws_getContext(w, h, AV_PIX_FMT_RGBA, w, h, AV_PIX_FMT_YUV420P,
                                    SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nullptr, nullptr, nullptr);
    sws_setColorspaceDetails(to, sws_getCoefficients(SWS_CS_ITU709), 1, sws_getCoefficients(SWS_CS_ITU709), 0, 0,
                             1 << 16, 1 << 16);
    AVFrame* yuv = av_frame_alloc();
    yuv->format = AV_PIX_FMT_YUV420P;
    yuv->width = w;
    yuv->height = h;
    av_frame_get_buffer(yuv, 0);
    const uint8_t* src[1] = {rgba.data()};
    const int src_stride[1] = {w * 4};
    sws_scale(to, src, src_stride, 0, h, yuv->data, yuv->linesize);
    SwsContext* back = yuv_to_rgba(w, h);
    std::vector<uint8_t> out(rgba.size());
    uint8_t* dst[1] = {out.data()};
    const int dst_stride[1] = {w * 4};
    sws_scale(back, yuv->data, yuv->linesize, 0, h, dst, dst_stride);
    sws_freeContext(to);
    sws_freeContext(back);
    av_frame_free(&yuv);
    return out;
}

// The view rendered on its own, as `render` renders it (CPU, no supersampling).
std::vector<uint8_t> render_view(const View& view, const PaletteTable& palette) {
    std::vector<uint8_t> rgba(size_t(view.width) * view.height * 4);
    const Precision precision = resolve_precision(view, Precision::Auto);
    if (!is_deep(precision)) {
        std::vector<float> mu(size_t(view.width) * view.height);
        render_coloured_cpu(view, precision, Shortcuts{}, palette, full_rect(view), 1.0, mu.data(), rgba.data());
    } else {
        DeepRenderOptions options;
        deep_options_for_colouring(view.colouring, &options);
        const DeepFrame frame = deep_cpu(deep_location(view), view.width, view.height, options);
        colour_deep_frame(frame, palette, view, 1.0, rgba.data());
    }
    return rgba;
}

struct Difference {
    int max_abs = 0;
    double mean_abs = 0.0;
    double psnr_db = 0.0;
};

Difference compare_rgb(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    Difference d;
    double sum = 0.0, squares = 0.0;
    size_t count = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (i % 4 == 3) continue;  // alpha
        const int diff = std::abs(int(a[i]) - int(b[i]));
        d.max_abs = std::max(d.max_abs, diff);
        sum += diff;
        squares += double(diff) * diff;
        ++count;
    }
    d.mean_abs = sum / double(count);
    const double mse = squares / double(count);
    d.psnr_db = mse > 0 ? 10.0 * std::log10(255.0 * 255.0 / mse) : 99.0;
    return d;
}

View location_view(const char* name, int width, int height) {
    DeepLocation location;
    EXPECT_EQ(read_kfr((find_data_dir("assets") / "locations" / name).string(), &location), "");
    View view;
    view.center_re = location.center_re;
    view.center_im = location.center_im;
    view.zoom = ViewZoom::from_deep(location.zoom);
    view.max_iterations = location.max_iterations;
    view.formula = location.formula;
    view.width = width;
    view.height = height;
    return view;
}

class VideoDive : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("mandelscope_video_test_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    VideoJob e50_job(const std::string& file, int crf) {
        DiveSettings dive;
        dive.target = location_view("e50.kfr", 64, 36);
        dive.fps = 10;
        dive.seconds = 3;
        EXPECT_EQ(check_dive(dive), "");
        VideoJob job;
        job.frames.plan = plan_dive(dive);
        job.frames.palette = make_palette_table(load_palette(dive.target.palette));
        job.fps = 10;
        job.output = dir_ / file;
        job.encoding.crf = crf;
        return job;
    }

    std::filesystem::path dir_;
};

// The MP4's top-level boxes, in order ("ftyp", "moov", ...).
std::vector<std::string> top_level_boxes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<std::string> boxes;
    for (unsigned char head[8]; in.read(reinterpret_cast<char*>(head), 8);) {
        const uint64_t size = uint64_t(head[0]) << 24 | uint64_t(head[1]) << 16 | uint64_t(head[2]) << 8 | head[3];
        boxes.emplace_back(reinterpret_cast<const char*>(head + 4), 4);
        if (size < 8) break;  // 64-bit and to-the-end sizes do not occur in these small files
        in.seekg(std::streamoff(size - 8), std::ios::cur);
    }
    return boxes;
}

TEST_F(VideoDive, E50DiveDecodesToItsPlanAndMatchesRender) {
    for (int crf : {0, 20}) {
        const VideoJob job = e50_job("dive" + std::to_string(crf) + ".mp4", crf);
        const VideoResult result = run_video(job, nullptr, nullptr);
        ASSERT_EQ(result.status, 0) << result.message;
        EXPECT_GT(result.times.render.direct_frames, 0);
        EXPECT_GT(result.times.render.deep_frames, 0);
        EXPECT_FALSE(std::filesystem::exists(video_parts_path(job.output))) << "the parts folder stays after the mux";
        const std::vector<std::string> boxes = top_level_boxes(job.output);
        ASSERT_GE(boxes.size(), 3u);
        EXPECT_EQ(boxes[0], "ftyp");
        EXPECT_EQ(boxes[1], "moov");
        EXPECT_EQ(boxes.back(), "mdat");

        // The manifest names the plan's views, frame by frame.
        const std::vector<ViewRecord> records = read_manifest(result.manifest);
        ASSERT_EQ(records.size(), 30u);
        for (size_t k = 0; k < records.size(); ++k)
            EXPECT_EQ(view_to_json({records[k].view, Precision::Fp64, 1}),
                      view_to_json({job.frames.plan[k], Precision::Fp64, 1}))
                << "frame " << k;
        EXPECT_EQ(records.front().view.zoom.text(), ViewZoom(1.0).text());
        EXPECT_TRUE(records.back().view.zoom == job.frames.plan.back().zoom);
        EXPECT_EQ(records.back().view.zoom.text(), location_view("e50.kfr", 64, 36).zoom.text());

        const Decoded video = decode(job.output);
        ASSERT_EQ(video.frames.size(), 30u);
        ASSERT_EQ(video.width, 64);
        ASSERT_EQ(video.height, 36);
        for (size_t k : {size_t(0), size_t(29)}) {
            const std::vector<uint8_t> rendered = render_view(records[k].view, job.frames.palette);
            const Difference to_rgb = compare_rgb(video.frames[k], rendered);
            std::printf("crf %d, frame %zu (%s): against the rendered RGB: max %d, mean %.2f levels, PSNR %.1f dB\n",
                        crf, k, precision_name(records[k].precision), to_rgb.max_abs, to_rgb.mean_abs, to_rgb.psnr_db);
            const Difference to_yuv = compare_rgb(video.frames[k], through_yuv420(rendered, 64, 36));
            std::printf(
                "crf %d, frame %zu: against the rendered frame through yuv420p: max %d, mean %.2f levels, "
                "PSNR %.1f dB\n",
                crf, k, to_yuv.max_abs, to_yuv.mean_abs, to_yuv.psnr_db);
            if (crf == 0) {
                EXPECT_LE(to_yuv.max_abs, 0) << "frame " << k;
            } else {
                EXPECT_GE(to_yuv.psnr_db, 27.0) << "frame " << k;
                EXPECT_LE(to_yuv.mean_abs, 9.0) << "frame " << k;
            }
        }
    }
}

// A 32x18, 10 fps, 4 s dive to 1e6 near the seahorse valley: 40 frames, 4 segments.
VideoJob seahorse_dive() {
    DiveSettings dive;
    dive.target.center_re = "-0.743643887037151";
    dive.target.center_im = "0.131825904205330";
    dive.target.zoom = 1e6;
    dive.target.width = 32;
    dive.target.height = 18;
    dive.fps = 10;
    dive.seconds = 4;
    EXPECT_EQ(check_dive(dive), "");
    VideoJob job;
    job.frames.plan = plan_dive(dive);
    job.frames.palette = make_palette_table(load_palette(dive.target.palette));
    job.fps = 10;
    return job;
}

// The window's way: run_video on its own thread with a cancel flag and a progress callback that
// sees each frame. Cancelled mid-way, it leaves no MP4 and keeps the finished segments; run
// again, it renders only the rest and the file is the uninterrupted run's, byte for byte.
TEST_F(VideoDive, CancelKeepsThePartsAndTheRerunGivesTheSameBytes) {
    VideoJob job = seahorse_dive();
    job.output = dir_ / "whole.mp4";
    ASSERT_EQ(run_video(job, nullptr, nullptr).status, 0);

    job.output = dir_ / "cancelled.mp4";
    std::atomic<bool> cancel{false};
    int64_t seen = 0;
    auto progress = [&](const VideoProgressInfo& p) {
        if (p.frame < 0) return;
        EXPECT_EQ(p.width, 32);
        EXPECT_NE(p.rgba, nullptr);
        EXPECT_EQ(p.frames_total, 40);
        if (++seen == 25) {
            // Segment 0 encodes beside the renderer, which may be far ahead of it on a machine
            // with many cores: the cancel comes once that segment is committed, on any machine.
            const std::filesystem::path first = video_parts_path(job.output) / "segment-000000.seg";
            for (int i = 0; i < 2000 && !std::filesystem::exists(first); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            cancel = true;
        }
    };
    const VideoResult stopped = run_video(job, progress, &cancel);
    EXPECT_EQ(stopped.status, 0) << stopped.message;
    EXPECT_TRUE(stopped.cancelled);
    EXPECT_FALSE(std::filesystem::exists(job.output));
    EXPECT_TRUE(std::filesystem::exists(video_parts_path(job.output) / "segment-000000.seg"));
    // The mux, which had begun on segment 0, left no temporary file beside the output.
    for (const auto& entry : std::filesystem::directory_iterator(dir_))
        EXPECT_EQ(entry.path().filename().string().rfind(".cancelled.mp4.tmp", 0), std::string::npos)
            << entry.path();

    // A mux told that segment 1 will not come stops and leaves nothing.
    MuxSettings settings;
    settings.width = 32;
    settings.height = 18;
    settings.fps = 10;
    settings.frames = 40;
    settings.segment_frames = 10;
    const std::filesystem::path lone = dir_ / "lone.mp4";
    EXPECT_FALSE(mux_segments(lone, video_parts_path(job.output), settings, [](int64_t s) { return s == 0; }));
    EXPECT_FALSE(std::filesystem::exists(lone));
    for (const auto& entry : std::filesystem::directory_iterator(dir_))
        EXPECT_EQ(entry.path().filename().string().rfind(".lone.mp4.tmp", 0), std::string::npos) << entry.path();

    const VideoResult resumed = run_video(job, nullptr, nullptr);
    ASSERT_EQ(resumed.status, 0) << resumed.message;
    EXPECT_FALSE(resumed.cancelled);
    EXPECT_GE(resumed.frames_resumed, 10);
    EXPECT_EQ(resumed.frames_resumed + resumed.frames_rendered, 40);
    const std::string whole = test::file_bytes(dir_ / "whole.mp4"), again = test::file_bytes(job.output);
    EXPECT_FALSE(whole.empty());
    EXPECT_TRUE(whole == again) << "the cancelled and resumed MP4 differs from the uninterrupted one";
}

// What rank 0 does under mpirun before it hands out a video's segments (cmd_video_cluster.cpp):
// prepare_video_parts writes the manifest and readies the parts folder without rendering, and
// says which segments are there; a share of the job (first_segment, segment_count) renders into
// it, and the whole job then renders only the rest: the uninterrupted run's bytes.
TEST_F(VideoDive, PreparedPartsKeepAShareAndTheWholeJobFinishesIt) {
    VideoJob job = seahorse_dive();  // 4 segments of 10 frames
    job.output = dir_ / "whole.mp4";
    ASSERT_EQ(run_video(job, nullptr, nullptr).status, 0);

    job.output = dir_ / "shared.mp4";
    EXPECT_EQ(prepare_video_parts(job), std::vector<bool>(4, false));
    EXPECT_TRUE(std::filesystem::is_directory(video_parts_path(job.output)));
    EXPECT_TRUE(std::filesystem::is_regular_file(video_manifest_path(job.output)));
    EXPECT_FALSE(std::filesystem::exists(job.output));

    VideoJob share = job;
    share.first_segment = 2;
    share.segment_count = 1;
    const VideoResult part = run_video(share, nullptr, nullptr);
    ASSERT_EQ(part.status, 0) << part.message;
    EXPECT_EQ(part.frames_rendered, 10);
    EXPECT_FALSE(std::filesystem::exists(job.output));
    EXPECT_EQ(prepare_video_parts(job), (std::vector<bool>{false, false, true, false}));

    const VideoResult rest = run_video(job, nullptr, nullptr);
    ASSERT_EQ(rest.status, 0) << rest.message;
    EXPECT_EQ(rest.frames_resumed, 10);
    EXPECT_EQ(rest.frames_rendered, 30);
    const std::string whole = test::file_bytes(dir_ / "whole.mp4"), shared = test::file_bytes(job.output);
    EXPECT_FALSE(whole.empty());
    EXPECT_TRUE(whole == shared) << "the MP4 finished from a prepared folder differs from the uninterrupted one";

    // A folder output (a PNG sequence) has no parts folder, and a bad job is its check's sentence.
    VideoJob sequence = job;
    sequence.output = dir_ / "frames/";
    EXPECT_THROW(prepare_video_parts(sequence), std::runtime_error);
    VideoJob bad = job;
    bad.fps = 0;
    try {
        prepare_video_parts(bad);
        ADD_FAILURE() << "a job with fps 0 was prepared";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), check_video_job(bad));
    }
}

TEST(VideoPlan, DiveIsExactAtAnyDepth) {
    DiveSettings dive;
    dive.target = location_view("e1086.kfr", 64, 36);
    dive.fps = 60;
    dive.seconds_per_doubling = 1.0;
    ASSERT_EQ(check_dive(dive), "");
    const std::vector<View> plan = plan_dive(dive);
    // 1086 decades are 3,607.6 doublings: an hour and a minute at one second each.
    EXPECT_NEAR(double(plan.size()), 60.0 * 1086.0 / std::log10(2.0), 2.0);
    EXPECT_TRUE(plan.front().zoom == ViewZoom(1.0));
    EXPECT_TRUE(plan.back().zoom == dive.target.zoom);
    // Log-spaced: each frame zooms by the same factor, about 2^(1/60) here.
    const double step = plan.back().zoom.log10() / double(plan.size() - 1);
    EXPECT_NEAR(step, std::log10(2.0) / 60.0, 1e-6);
    for (size_t k : {size_t(1), plan.size() / 2, plan.size() - 1})
        EXPECT_NEAR(plan[k].zoom.log10() - plan[k - 1].zoom.log10(), step, 1e-9) << "frame " << k;
    for (size_t k = 1; k < plan.size(); ++k) ASSERT_LT(plan[k - 1].zoom.log10(), plan[k].zoom.log10()) << k;
    // The texts read back to the same zoom (the manifest's round trip).
    for (size_t k : {size_t(0), size_t(1), plan.size() / 3, plan.size() - 2, plan.size() - 1}) {
        ViewZoom back;
        ASSERT_EQ(ViewZoom::parse(plan[k].zoom.text(), &back), "");
        EXPECT_TRUE(back == plan[k].zoom) << plan[k].zoom.text();
    }
}

TEST(VideoPlan, BadDivesAreRefusedWithASentence) {
    DiveSettings dive;
    dive.target = location_view("e50.kfr", 64, 36);
    dive.seconds = 3;
    dive.fps = 0;
    EXPECT_NE(check_dive(dive), "");
    dive.fps = 241;
    EXPECT_NE(check_dive(dive), "");
    dive.fps = 30;
    dive.seconds = -1;
    EXPECT_NE(check_dive(dive), "");
    dive.seconds = 0;
    EXPECT_NE(check_dive(dive), "");
    dive.seconds = 3;
    dive.from_zoom = ViewZoom::from_deep(DeepZoom{1.0, 60});
    EXPECT_NE(check_dive(dive), "") << "a dive that starts deeper than it ends";
}

}  // namespace
}  // namespace ms
