// cmd_video_cluster.cpp: a video's segments across the ranks of an MPI job (cmd_video_cluster.h).
//
// A segment (compute/video/video_segments.h) is a closed GOP encoded by one single-threaded
// encoder, so its bytes are the same wherever it is made. Rank 0 first makes the parts folder
// ready for the job (prepare_video_parts: the folder's key is the video library's, and its
// finished segments from an earlier run stay); every other segment goes out as pieces
// (compute/cluster/cluster_job.h). A rank renders a piece's segments with run_video into a
// scratch folder of its own (VideoJob::first_segment, segment_count), and sends their files;
// rank 0 puts each in the parts folder as it arrives. Once every segment is there, run_video
// on rank 0 finds them all and only muxes: the MP4 of one process, byte for byte. A job that
// stops leaves the finished segments in the parts folder, and the same command resumes.
#include "app/modes/cmd_video_cluster.h"

#include <fcntl.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

#include "app/modes/cmd_render_cluster.h"
#include "app/modes/progress.h"
#include "compute/cluster/cluster.h"
#include "compute/cluster/cluster_job.h"
#include "compute/fractal/view/view_record.h"
#include "compute/io/image_io.h"
#include "compute/video/video_segments.h"

namespace ms {

namespace {

int64_t segment_frames_of(const VideoJob& job) {
    return job.encoding.segment_frames > 0 ? job.encoding.segment_frames : int64_t(job.fps);
}

void say(const std::string& sentence) {
    std::string text = sentence;
    while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
    std::fprintf(stderr, "mandelscope video: %s.\n", text.c_str());
}

// Everything the ranks' jobs must share for their segments to be one video's.
std::string video_key(const VideoJob& job) {
    const FrameSourceSettings& f = job.frames;
    std::string key = std::to_string(f.plan.size()) + " frames|" + std::to_string(job.fps) + " fps|" +
                      std::to_string(segment_frames_of(job)) + " a segment|" + video_codec_name(job.encoding.codec) +
                      "|crf " + std::to_string(job.encoding.crf) + "|" + job.encoding.preset + "|" +
                      video_method_name(job.method) + (f.cuda ? "|CUDA" : "|CPU") + "|k " +
                      std::to_string(f.supersample) + "|" + precision_name(f.precision);
    if (!f.plan.empty())
        key += "|" + view_to_json(ViewRecord{f.plan.front(), f.precision, f.supersample}) + "|" +
               view_to_json(ViewRecord{f.plan.back(), f.precision, f.supersample});
    return key;
}

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the segment " + path.string());
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A temporary name (a dot file: prepare_parts removes a killed run's), fsync, rename.
void write_file_atomically(const std::filesystem::path& path, const uint8_t* data, size_t size) {
    const std::filesystem::path temporary = path.parent_path() / ("." + path.filename().string() + ".tmp-rank");
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    for (size_t at = 0; ok && at < size;) {
        const ssize_t n = ::write(fd, data + at, size - at);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;
        if (ok) at += size_t(n);
    }
    ok = ok && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
        ::unlink(temporary.c_str());
        throw std::runtime_error("cannot write the segment " + path.string() + ": " + std::strerror(errno));
    }
}

// One rank's scratch output: its own folder in the system's temporary folder.
std::filesystem::path scratch_output(const VideoJob& job, int rank) {
    return std::filesystem::temp_directory_path() /
           ("mandelscope-video-" + std::to_string(::getpid()) + "-rank" + std::to_string(rank)) / job.output.filename();
}

// A piece's segments rendered into the scratch folder: each as its size (8 bytes) and its file.
std::vector<uint8_t> render_segments(const VideoJob& job, ClusterPiece piece, int rank, int threads) {
    omp_set_num_threads(std::max(1, threads));
    VideoJob share = job;
    share.output = scratch_output(job, rank);
    share.first_segment = piece.first;
    share.segment_count = piece.count;
    share.encoding.encoder_threads = std::max(1, threads);
    std::error_code error;
    std::filesystem::create_directories(share.output.parent_path(), error);
    const VideoResult result = run_video(share, {}, nullptr);
    if (result.status != 0) throw std::runtime_error(result.message);
    std::vector<uint8_t> bytes;
    const std::filesystem::path parts = video_parts_path(share.output);
    for (int s = piece.first; s < piece.first + piece.count; ++s) {
        const std::vector<uint8_t> file = read_file(segment_path(parts, s));
        const uint64_t size = file.size();
        const size_t at = bytes.size();
        bytes.resize(at + 8 + file.size());
        std::memcpy(bytes.data() + at, &size, 8);
        std::memcpy(bytes.data() + at + 8, file.data(), file.size());
        std::filesystem::remove(segment_path(parts, s), error);
    }
    return bytes;
}

void keep_segments(const std::filesystem::path& parts, ClusterPiece piece, const std::vector<uint8_t>& bytes) {
    size_t at = 0;
    for (int s = piece.first; s < piece.first + piece.count; ++s) {
        uint64_t size = 0;
        if (at + 8 > bytes.size()) throw std::runtime_error("a rank's segments came cut short");
        std::memcpy(&size, bytes.data() + at, 8);
        if (at + 8 + size > bytes.size()) throw std::runtime_error("a rank's segments came cut short");
        write_file_atomically(segment_path(parts, s), bytes.data() + at + 8, size_t(size));
        at += 8 + size_t(size);
    }
}

int run(const VideoJob& job, const std::string& options_problem, const ClusterLaunch& launch) {
    const auto start = std::chrono::steady_clock::now();
    const int rank = launch.rank;
    const int64_t frames = int64_t(job.frames.plan.size());
    const int64_t segments = frames > 0 ? (frames + segment_frames_of(job) - 1) / segment_frames_of(job) : 0;
    std::string problem = options_problem;
    if (problem.empty() && video_output_is_folder(job.output))
        problem = "across ranks the video is an MP4 made of segments: give -o OUT.mp4 (a PNG or EXR sequence is "
                  "written by one process)";
    if (problem.empty() && segments < launch.size)
        problem = "the video has " + std::to_string(segments) + " segments for " + std::to_string(launch.size) +
                  " ranks: use at most " + std::to_string(segments) + " ranks, or shorter segments (--segment-frames)";
    const std::string key = problem.empty() ? video_key(job) : std::string();
    std::vector<uint8_t> rank0_key(key.begin(), key.end());
    cluster_broadcast(&rank0_key, 0);
    if (problem.empty() && !rank0_key.empty() && std::string(rank0_key.begin(), rank0_key.end()) != key)
        problem = "its command describes another video than rank 0's (each rank must have the same options and files)";
    int from_rank = 0;
    problem = cluster_first_text(problem, &from_rank);
    if (!problem.empty()) {
        if (rank == 0) say(from_rank > 0 ? "rank " + std::to_string(from_rank) + ": " + problem : problem);
        return 2;
    }

    // Rank 0 makes the parts folder ready and finds what is finished; the other ranks wait for
    // it (a moment: nothing renders here).
    const std::filesystem::path parts = video_parts_path(job.output);
    std::vector<ClusterPiece> finished;
    if (rank == 0) {
        install_job_signals(0, parts, "video");
        try {
            const std::vector<bool> done = prepare_video_parts(job);
            for (int64_t s = 0; s < segments; ++s)
                if (done[size_t(s)]) finished.push_back({int(s), 1});
        } catch (const std::exception& e) {
            problem = e.what();
        }
    }
    problem = cluster_first_text(problem, &from_rank);
    if (!problem.empty()) {
        if (rank == 0) say(problem);
        return 2;
    }

    const int threads = std::max(1, int(std::thread::hardware_concurrency()) / std::max(1, launch.local_size));
    std::unique_ptr<ProgressBar> progress;  // rank 0's alone
    if (rank == 0) progress = std::make_unique<ProgressBar>("video");
    int segments_in = int(finished.size());
    ClusterJob cluster_job;
    cluster_job.units = int(segments);
    cluster_job.finished = finished;
    cluster_job.compute = [&](ClusterPiece piece) { return render_segments(job, piece, rank, threads); };
    cluster_job.accept = [&](ClusterPiece piece, std::vector<uint8_t>&& bytes) {
        keep_segments(parts, piece, bytes);
        segments_in += piece.count;
        progress->update(double(segments_in) / double(segments), "segments");
    };
    ClusterJobStats stats;
    std::error_code error;
    try {
        stats = cluster_run_job(cluster_job);
    } catch (const ClusterJobStopped&) {
        std::filesystem::remove_all(scratch_output(job, rank).parent_path(), error);
        return 2;
    } catch (const std::exception& e) {
        std::filesystem::remove_all(scratch_output(job, rank).parent_path(), error);
        if (rank == 0) say(std::string(e.what()) + "; the finished segments stay in " + parts.string());
        return 2;
    }
    std::filesystem::remove_all(scratch_output(job, rank).parent_path(), error);
    if (rank != 0) return 0;
    progress->update(1.0, "muxing");
    const VideoResult result = run_video(job, {}, nullptr);  // every segment is there: the mux alone
    progress->finish();
    if (result.status != 0) {
        say(result.message);
        return result.status;
    }
    const double wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("frames     %lld in %lld segments\n", (long long)frames, (long long)segments);
    std::printf("ranks      %d ranks, %d thread%s each:", launch.size, threads, threads == 1 ? "" : "s");
    for (int r = 0; r < launch.size; ++r)
        std::printf(" rank %d %d segment%s%s", r, stats.units_by_rank[size_t(r)],
                    stats.units_by_rank[size_t(r)] == 1 ? "" : "s", r + 1 < launch.size ? "," : "");
    std::printf("; %lld segment%s found finished\n", (long long)finished.size(), finished.size() == 1 ? "" : "s");
    std::printf("time       %.1f ms in all (%.1f ms muxing)\n", wall_ms, result.times.mux_ms);
    std::printf("output     %s\n", job.output.c_str());
    std::printf("manifest   %s\n", result.manifest.c_str());
    return 0;
}

}  // namespace

bool video_cluster_wanted() { return cluster_launch_from_environment().size > 1; }

int video_cluster_command(const VideoJob& job, const std::string& problem) {
    const ClusterLaunch launch = cluster_launch_from_environment();
    if (!cluster_built_with_mpi()) {
        if (launch.rank == 0)
            say("mpirun started " + std::to_string(launch.size) +
                " processes, but this mandelscope was built without MPI (install libopenmpi-dev and build again)");
        return 2;
    }
    choose_rank_gpu(launch);
    if (launch.rank != 0) install_job_signals(launch.rank, {}, "video");
    try {
        cluster_start();
    } catch (const std::exception& e) {
        if (launch.rank == 0) say(e.what());
        return 2;
    }
    int status = 2;
    try {
        status = run(job, problem, launch);
    } catch (const std::exception& e) {  // MPI's own failures
        if (launch.rank == 0) say(e.what());
    }
    cluster_stop();
    return status;
}

}  // namespace ms
