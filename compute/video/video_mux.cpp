// video_mux.cpp: segments and soundtrack into one MP4 by stream copy (video_mux.h).
#include "compute/video/video_mux.h"

#include <stdexcept>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/mathematics.h>
}

#include "compute/io/image_io.h"
#include "compute/video/video_segments.h"

namespace ms {

namespace {

std::string av_error_text(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof text);
    return text;
}

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

// An opened soundtrack and its audio stream.
struct Soundtrack {
    AVFormatContext* input = nullptr;
    int stream = -1;
    ~Soundtrack() { avformat_close_input(&input); }
};

// "" with the soundtrack opened, else the sentence.
std::string open_soundtrack(const std::filesystem::path& path, Soundtrack* track) {
    const int opened = avformat_open_input(&track->input, path.c_str(), nullptr, nullptr);
    if (opened < 0) return "cannot read the soundtrack " + quoted(path) + ": " + av_error_text(opened);
    if (avformat_find_stream_info(track->input, nullptr) < 0)
        return "cannot read the soundtrack " + quoted(path) + ": its streams are not recognised";
    track->stream = av_find_best_stream(track->input, AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
    if (track->stream < 0) return "the soundtrack " + quoted(path) + " has no audio stream";
    const AVCodecID codec = track->input->streams[track->stream]->codecpar->codec_id;
    const AVOutputFormat* mp4 = av_guess_format("mp4", nullptr, nullptr);
    if (avformat_query_codec(mp4, codec, FF_COMPLIANCE_NORMAL) != 1)
        return std::string("the soundtrack's codec (") + avcodec_get_name(codec) +
               ") does not go into an MP4 without re-encoding; convert it first, e.g. ffmpeg -i " + path.string() +
               " -c:a aac soundtrack.m4a";
    return {};
}

// The muxer's state, freed on every path out.
struct Muxer {
    AVFormatContext* output = nullptr;
    ~Muxer() {
        if (output) {
            if (output->pb) avio_closep(&output->pb);
            avformat_free_context(output);
        }
    }
};

void check_write(int code, const std::filesystem::path& output) {
    if (code < 0) throw std::runtime_error("cannot write " + quoted(output) + ": " + av_error_text(code));
}

// Reads into `packet` the soundtrack's next packet that goes into a video of `frames` frames of
// `frame_time`: of its audio stream, with a time, before the video's end. False (and `packet`
// empty) past the last one.
bool read_sound_packet(Soundtrack& track, AVPacket* packet, int64_t frames, AVRational frame_time) {
    const AVRational time_base = track.input->streams[track.stream]->time_base;
    while (av_read_frame(track.input, packet) >= 0) {
        if (packet->stream_index == track.stream && packet->pts != AV_NOPTS_VALUE) {
            if (av_compare_ts(packet->pts, time_base, frames, frame_time) >= 0) break;
            return true;
        }
        av_packet_unref(packet);
    }
    av_packet_unref(packet);
    return false;
}

// How many packets of the soundtrack `audio` go into a video of `frames` frames of `frame_time`.
int64_t count_sound_packets(const std::filesystem::path& audio, int64_t frames, AVRational frame_time) {
    Soundtrack track;
    if (std::string problem = open_soundtrack(audio, &track); !problem.empty()) throw std::runtime_error(problem);
    AVPacket* packet = av_packet_alloc();
    if (!packet) throw std::bad_alloc();
    int64_t count = 0;
    for (; read_sound_packet(track, packet, frames, frame_time); av_packet_unref(packet)) ++count;
    av_packet_free(&packet);
    return count;
}

// Bytes kept at the front for the index of `packets` packets: at most 48 a packet in its tables
// (sizes 4, composition offsets 8, sync samples 4, chunk offsets 8, chunk runs 12, dependencies
// 1, with room to spare), the codecs' headers, and 4 KiB for the boxes around them (about 1 KiB a
// track). What the index does not fill stays a `free` box.
int64_t moov_room(int64_t packets, int64_t extradata_bytes) { return 4096 + extradata_bytes + 48 * packets; }

}  // namespace

std::string check_soundtrack(const std::filesystem::path& audio) {
    Soundtrack track;
    return open_soundtrack(audio, &track);
}

bool mux_segments(const std::filesystem::path& output, const std::filesystem::path& parts, const MuxSettings& settings,
                  const SegmentReady& ready) {
    Soundtrack track;
    int64_t sound_packets = 0;
    if (!settings.audio.empty()) {
        if (std::string problem = open_soundtrack(settings.audio, &track); !problem.empty())
            throw std::runtime_error(problem);
        sound_packets = count_sound_packets(settings.audio, settings.frames, AVRational{1, settings.fps});
    }
    const int64_t segments = (settings.frames + settings.segment_frames - 1) / settings.segment_frames;
    if (ready && !ready(0)) return false;
    EncodedSegment segment = read_segment(segment_path(parts, 0));

    AtomicFile file(output);
    Muxer mux;
    const std::string temp = file.temp_path().string();
    if (avformat_alloc_output_context2(&mux.output, nullptr, "mp4", temp.c_str()) < 0 || !mux.output)
        throw std::runtime_error("cannot start the MP4 muxer");
    mux.output->flags |= AVFMT_FLAG_BITEXACT;
    AVStream* video = avformat_new_stream(mux.output, nullptr);
    if (!video) throw std::runtime_error("cannot start the MP4 muxer");
    AVCodecParameters* v = video->codecpar;
    v->codec_type = AVMEDIA_TYPE_VIDEO;
    v->codec_id = settings.codec == VideoCodec::H265 ? AV_CODEC_ID_HEVC : AV_CODEC_ID_H264;
    if (settings.codec == VideoCodec::H265) v->codec_tag = MKTAG('h', 'v', 'c', '1');  // QuickTime plays hvc1
    v->width = settings.width;
    v->height = settings.height;
    v->format = AV_PIX_FMT_YUV420P;
    v->color_range = AVCOL_RANGE_MPEG;
    v->color_space = AVCOL_SPC_BT709;
    v->color_primaries = AVCOL_PRI_BT709;
    v->color_trc = AVCOL_TRC_BT709;
    v->extradata = static_cast<uint8_t*>(av_mallocz(segment.header.size() + AV_INPUT_BUFFER_PADDING_SIZE));
    if (!v->extradata) throw std::bad_alloc();
    std::copy(segment.header.begin(), segment.header.end(), v->extradata);
    v->extradata_size = int(segment.header.size());
    const AVRational frame_time{1, settings.fps};
    video->time_base = frame_time;
    video->avg_frame_rate = AVRational{settings.fps, 1};
    AVStream* audio = nullptr;
    AVStream* audio_in = nullptr;
    if (track.input) {
        audio_in = track.input->streams[track.stream];
        audio = avformat_new_stream(mux.output, nullptr);
        if (!audio || avcodec_parameters_copy(audio->codecpar, audio_in->codecpar) < 0)
            throw std::runtime_error("cannot start the MP4 muxer");
        audio->codecpar->codec_tag = 0;
        audio->time_base = audio_in->time_base;
    }
    check_write(avio_open(&mux.output->pb, temp.c_str(), AVIO_FLAG_WRITE), output);
    AVDictionary* options = nullptr;
    const int64_t extradata_bytes = int64_t(segment.header.size()) + (audio ? audio->codecpar->extradata_size : 0);
    av_dict_set_int(&options, "moov_size", moov_room(settings.frames + sound_packets, extradata_bytes), 0);
    const int header = avformat_write_header(mux.output, &options);
    av_dict_free(&options);
    check_write(header, output);

    AVPacket* packet = av_packet_alloc();
    AVPacket* sound = av_packet_alloc();
    if (!packet || !sound) throw std::bad_alloc();
    struct Packets {
        AVPacket *a, *b;
        ~Packets() {
            av_packet_free(&a);
            av_packet_free(&b);
        }
    } free_packets{packet, sound};
    // The soundtrack's next packet (if any), read ahead so it goes in before the first video
    // packet that follows it in time; cut at the video's end.
    bool sound_ready = false;
    const int64_t end_frames = settings.frames;
    auto next_sound = [&]() {
        sound_ready = track.input && read_sound_packet(track, sound, end_frames, frame_time);
    };
    auto write_sound_before = [&](int64_t frame_dts) {
        while (sound_ready &&
               (frame_dts == INT64_MAX || av_compare_ts(sound->dts == AV_NOPTS_VALUE ? sound->pts : sound->dts,
                                                        audio_in->time_base, frame_dts, frame_time) < 0)) {
            av_packet_rescale_ts(sound, audio_in->time_base, audio->time_base);
            sound->stream_index = audio->index;
            sound->pos = -1;
            check_write(av_interleaved_write_frame(mux.output, sound), output);
            next_sound();
        }
    };
    next_sound();
    for (int64_t s = 0; s < segments; ++s) {
        if (s > 0) {
            if (ready && !ready(s)) return false;
            segment = read_segment(segment_path(parts, s));
        }
        const int64_t first = s * settings.segment_frames;
        for (EncodedPacket& p : segment.packets) {
            write_sound_before(p.dts + first);
            av_packet_unref(packet);
            packet->data = p.data.data();
            packet->size = int(p.data.size());
            packet->pts = p.pts + first;
            packet->dts = p.dts + first;
            packet->duration = 1;
            packet->flags = int(p.flags);
            packet->stream_index = video->index;
            av_packet_rescale_ts(packet, frame_time, video->time_base);
            // The muxer copies a packet that does not own its buffer before keeping it.
            check_write(av_interleaved_write_frame(mux.output, packet), output);
        }
        // What the segment added starts for the disk now, so that commit's fsync waits for little.
        avio_flush(mux.output->pb);
        file.start_writeback();
    }
    write_sound_before(INT64_MAX);
    check_write(av_write_trailer(mux.output), output);
    check_write(avio_closep(&mux.output->pb), output);
    file.commit();
    return true;
}

}  // namespace ms
