// video_encoder.cpp: one segment through libavcodec (video_encoder.h).
#include "compute/video/video_encoder.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/opt.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
}

namespace ms {

namespace {

std::string av_error_text(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof text);
    return text;
}

const char* encoder_name(VideoCodec codec) { return codec == VideoCodec::H265 ? "libx265" : "libx264"; }

// libx264's instruction sets, as its `asm` parameter names them, on a CPU with AVX-512: every
// one it would detect there but AVX512 (empty elsewhere: x264 detects them itself). With its
// AVX-512 routines, libx264 (0.164) encodes the same frames into other bytes now and then when
// many encoders have run in the process before: what it reads depends on memory earlier encoders
// freed (a run with MALLOC_PERTURB_ set, which fills fresh memory with a fixed byte, never
// differs). Its other routines give the same bytes as those (x264's assembly is bit-exact with
// its C), and without AVX-512 the bytes never changed, so a resumed video is again the
// uninterrupted one's. Valgrind, which runs no AVX-512, takes the other routines.
std::string x264_asm_without_avx512() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") ||
        !__builtin_cpu_supports("bmi") || !__builtin_cpu_supports("bmi2"))
        return {};
    // Every AVX2 CPU has the rest (LZCNT included), with fast SSE2 and 64-byte cache lines.
    return "MMX2,SSE,SSE2,SSE2Fast,SSE3,SSSE3,SSE4.1,SSE4.2,LZCNT,AVX,FMA3,BMI1,BMI2,AVX2,Cache64";
#else
    return {};
#endif
}

}  // namespace

struct SegmentEncoder::State {
    AVCodecContext* context = nullptr;
    SwsContext* scale = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* packet = nullptr;
    // The RGBA rows swscale reads, copied to av_malloc's alignment: swscale takes its SIMD path
    // only for aligned rows, and the two paths round differently, so a caller's buffer that is
    // aligned one time and not the next would change the video's bytes.
    uint8_t* rgba = nullptr;
    EncodedSegment segment;

    ~State() {
        av_free(rgba);
        avcodec_free_context(&context);
        sws_freeContext(scale);
        av_frame_free(&frame);
        av_packet_free(&packet);
    }

    void drain() {
        for (;;) {
            const int got = avcodec_receive_packet(context, packet);
            if (got == AVERROR(EAGAIN) || got == AVERROR_EOF) return;
            if (got < 0) throw std::runtime_error("the video encoder failed: " + av_error_text(got));
            EncodedPacket p;
            p.pts = packet->pts;
            p.dts = packet->dts;
            p.flags = uint32_t(packet->flags & AV_PKT_FLAG_KEY);
            p.data.assign(packet->data, packet->data + packet->size);
            segment.packets.push_back(std::move(p));
            av_packet_unref(packet);
        }
    }
};

int segment_encoder_threads(const VideoEncoding& encoding, int64_t segment, int64_t segments) {
    return encoding.codec == VideoCodec::H264 && segment >= segments - kTailSegments ? kTailThreads : 1;
}

SegmentEncoder::SegmentEncoder(const VideoEncoding& encoding, int width, int height, int fps, int64_t gop_frames,
                               int threads)
    : state_(std::make_unique<State>()) {
    const AVCodec* codec = avcodec_find_encoder_by_name(encoder_name(encoding.codec));
    if (!codec)
        throw std::runtime_error(std::string("the FFmpeg libraries here have no ") + encoder_name(encoding.codec) +
                                 " encoder");
    State& s = *state_;
    s.context = avcodec_alloc_context3(codec);
    s.frame = av_frame_alloc();
    s.packet = av_packet_alloc();
    if (!s.context || !s.frame || !s.packet) throw std::runtime_error("out of memory opening the video encoder");
    AVCodecContext* c = s.context;
    c->width = width;
    c->height = height;
    c->pix_fmt = AV_PIX_FMT_YUV420P;
    c->time_base = AVRational{1, fps};
    c->framerate = AVRational{fps, 1};
    c->gop_size = int(gop_frames);
    c->keyint_min = int(gop_frames);
    c->color_range = AVCOL_RANGE_MPEG;
    c->colorspace = AVCOL_SPC_BT709;
    c->color_primaries = AVCOL_PRI_BT709;
    c->color_trc = AVCOL_TRC_BT709;
    // Its bytes follow the thread count (see the header comment); x264's threads are frame threads.
    c->thread_count = encoding.codec == VideoCodec::H264 ? std::max(1, threads) : 1;
    c->thread_type = FF_THREAD_FRAME;
    c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary* options = nullptr;
    av_dict_set(&options, "preset", encoding.preset.c_str(), 0);
    av_dict_set(&options, "crf", std::to_string(encoding.crf).c_str(), 0);
    if (encoding.codec == VideoCodec::H264)
        if (const std::string sets = x264_asm_without_avx512(); !sets.empty())
            av_dict_set(&options, "x264-params", ("asm=" + sets).c_str(), 0);
    if (encoding.codec == VideoCodec::H265)
        av_dict_set(&options, "x265-params", "pools=none:frame-threads=1:log-level=error", 0);
    const int opened = avcodec_open2(c, codec, &options);
    av_dict_free(&options);
    if (opened < 0)
        throw std::runtime_error(std::string("cannot open the ") + encoder_name(encoding.codec) + " encoder for " +
                                 std::to_string(width) + "x" + std::to_string(height) + " (preset '" + encoding.preset +
                                 "'): " + av_error_text(opened));
    if (c->extradata && c->extradata_size > 0) s.segment.header.assign(c->extradata, c->extradata + c->extradata_size);
    s.frame->format = AV_PIX_FMT_YUV420P;
    s.frame->width = width;
    s.frame->height = height;
    if (av_frame_get_buffer(s.frame, 0) < 0) throw std::runtime_error("out of memory for a video frame");
    s.scale = sws_getContext(width, height, AV_PIX_FMT_RGBA, width, height, AV_PIX_FMT_YUV420P,
                             SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nullptr, nullptr, nullptr);
    if (!s.scale) throw std::runtime_error("cannot convert RGBA to yuv420p at this size");
    s.rgba = static_cast<uint8_t*>(av_malloc(size_t(width) * size_t(height) * 4));
    if (!s.rgba) throw std::runtime_error("out of memory for a video frame");
    // RGB (full range) in, BT.709 limited-range YUV out, as the stream's colour tags say.
    sws_setColorspaceDetails(s.scale, sws_getCoefficients(SWS_CS_ITU709), 1, sws_getCoefficients(SWS_CS_ITU709), 0, 0,
                             1 << 16, 1 << 16);
}

SegmentEncoder::~SegmentEncoder() = default;

void SegmentEncoder::encode(int64_t index, const uint8_t* rgba) {
    State& s = *state_;
    if (av_frame_make_writable(s.frame) < 0) throw std::runtime_error("out of memory for a video frame");
    const size_t bytes = size_t(s.context->width) * size_t(s.context->height) * 4;
    std::memcpy(s.rgba, rgba, bytes);
    const uint8_t* source[1] = {s.rgba};
    const int stride[1] = {s.context->width * 4};
    sws_scale(s.scale, source, stride, 0, s.context->height, s.frame->data, s.frame->linesize);
    s.frame->pts = index;
    const int sent = avcodec_send_frame(s.context, s.frame);
    if (sent < 0) throw std::runtime_error("the video encoder failed: " + av_error_text(sent));
    s.drain();
}

EncodedSegment SegmentEncoder::finish() {
    State& s = *state_;
    const int sent = avcodec_send_frame(s.context, nullptr);
    if (sent < 0) throw std::runtime_error("the video encoder failed: " + av_error_text(sent));
    s.drain();
    return std::move(s.segment);
}

std::string encoder_identity(const VideoEncoding& encoding) {
    std::string identity = std::string(encoder_name(encoding.codec)) + " crf " + std::to_string(encoding.crf) +
                           " preset " + encoding.preset + " yuv420p bt709, libavcodec " +
                           std::to_string(avcodec_version()) + ", libswscale " + std::to_string(swscale_version());
    // The instruction sets and the threads change x264's bytes: parts made with others are not
    // mixed in.
    if (encoding.codec == VideoCodec::H264) {
        if (const std::string sets = x264_asm_without_avx512(); !sets.empty()) identity += ", x264 asm " + sets;
        identity += ", the last " + std::to_string(kTailSegments) + " segments on " + std::to_string(kTailThreads) +
                    " threads";
    }
    return identity;
}

}  // namespace ms
