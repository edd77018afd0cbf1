// cmd_render_cluster.cpp: `mandelscope render` across processes (cmd_render_cluster.h).
//
//   mpirun -np N mandelscope render ...   every rank runs the same command. Each checks it as one
//                                         process would; the ranks agree before any work (one
//                                         sentence, rank 0's, and exit 2 on every rank when one
//                                         of them finds a problem, or when their commands
//                                         describe different images). Deep views: rank 0
//                                         computes the reference orbit once and broadcasts it.
//                                         Then the rows go out as pieces (compute/cluster/
//                                         cluster_job.h), and rank 0 writes the file.
//   render ... --shard=I/N                without MPI: part I of N (0-based) of the rows, into
//                                         OUTPUT.parts/ beside the output.
//   render ... --join                     the output from the parts, once every shard is done.
//
// Each rank computes with the cores of its host shared among the host's ranks, and on its own
// GPU where the host has them (local rank i takes the i-th of CUDA_VISIBLE_DEVICES, or GPU i).
// Finished pieces are kept in OUTPUT.parts/ until the output is complete: a job that stops (a
// rank that dies makes mpirun end the job) resumes from them when the same command runs again.
#include "app/modes/cmd_render_cluster.h"

#include <fcntl.h>
#include <omp.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "app/modes/cmd_render_cluster_pieces.h"
#include "app/modes/progress.h"
#include "app/modes/render_options.h"
#include "compute/cluster/cluster.h"
#include "compute/cluster/cluster_job.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/view/view_record.h"
#include "compute/scale/reference_pack.h"
#include "compute/system/cuda_start.h"

namespace ms {

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Rank 0's last words when mpirun ends the job (a rank died): where the finished pieces are,
// then the usual cleanup of the unfinished output (compute/io/image_io.h's handler).
char g_stopped_sentence[1024];
struct sigaction g_cleanup_action;

extern "C" void say_job_stopped(int signal_number) {
    (void)!::write(STDERR_FILENO, g_stopped_sentence, std::strlen(g_stopped_sentence));
    // The cleanup handler's own "interrupted" line would be a second sentence: it writes to
    // /dev/null, and removes the unfinished output all the same.
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDERR_FILENO);
    if (g_cleanup_action.sa_handler != SIG_DFL && g_cleanup_action.sa_handler != SIG_IGN)
        g_cleanup_action.sa_handler(signal_number);
    ::_exit(128 + signal_number);
}

extern "C" void exit_quietly(int signal_number) { ::_exit(128 + signal_number); }

}  // namespace

void install_job_signals(int rank, const std::filesystem::path& parts, const char* mode) {
    struct sigaction action {};
    sigemptyset(&action.sa_mask);
    if (rank == 0) {
        std::snprintf(g_stopped_sentence, sizeof g_stopped_sentence,
                      "mandelscope %s: the job was ended before the output was complete (a rank stopped); the "
                      "finished pieces are kept in %s, and the same command run again resumes from them.\n",
                      mode, parts.c_str());
        action.sa_handler = say_job_stopped;
        sigaction(SIGTERM, &action, &g_cleanup_action);
    } else {
        // The other ranks write nothing: they end without a word (rank 0 speaks).
        action.sa_handler = exit_quietly;
        sigaction(SIGTERM, &action, nullptr);
        sigaction(SIGINT, &action, nullptr);
    }
}

void choose_rank_gpu(const ClusterLaunch& launch) {
    if (launch.local_size <= 1) return;
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    std::vector<std::string> list;
    if (visible) {
        std::string item;
        for (const char* c = visible;; ++c) {
            if (*c == ',' || *c == '\0') {
                if (!item.empty()) list.push_back(item);
                item.clear();
                if (*c == '\0') break;
            } else {
                item += *c;
            }
        }
    }
    std::string mine = !visible                               ? std::to_string(launch.local_rank)
                       : launch.local_rank < int(list.size()) ? list[size_t(launch.local_rank)]
                                                              : std::string("-1");  // none left
    if (visible && list.size() == 1) return;  // one GPU named for this rank already (a wrapper's)
    setenv("CUDA_VISIBLE_DEVICES", mine.c_str(), 1);
}

namespace {

// "I/N" with 0 <= I < N.
bool parse_shard(const std::string& text, int* index, int* count) {
    int consumed = 0;
    if (std::sscanf(text.c_str(), "%d/%d%n", index, count, &consumed) != 2 || consumed != int(text.size()))
        return false;
    return *count >= 1 && *index >= 0 && *index < *count;
}

// Everything that decides the pieces' bytes and the file: the view's record, the path, the
// size of the work, and what each piece carries.
std::string job_key(const ClusterImageJob& job) {
    const RenderPlan& plan = job.plan;
    return view_to_json(ViewRecord{plan.view, plan.precision, plan.k}) + "|" + (job.deep ? "deep" : "direct") +
           "|units " + std::to_string(job.units) + (job.whole_frame ? "|whole frame" : "") +
           (plan.cuda ? "|CUDA" : "|CPU") + (job.request.raw_path.empty() ? "" : "|raw") +
           (job.request.shortcuts.cardioid_bulb ? "|cardioid" : "") +
           (job.request.shortcuts.periodicity ? "|periodicity" : "") + "|distance " +
           std::to_string(job.deep_options.distance) + "|atom " + std::to_string(job.deep_options.atom) +
           "|palette file " + job.request.palette_file.string() + (job.deep_coloured ? "|coloured" : "");
}

// The checks of one process's render (cmd_render.cpp's render_request), and the job's layout.
// writes: this process writes the output (rank 0, a shard, --join), so its disk is checked.
// prefetch_reference: a deep view's reference orbit starts on a thread of its own
// (job->reference_prefetch) before the checks that wait for the driver.
std::string plan_job(const RenderRequest& request, bool writes, bool prefetch_reference, ClusterImageJob* job) {
    job->request = request;
    RenderPlan& plan = job->plan;
    if (std::string problem = check_request(request, &plan); !problem.empty()) return problem;
    plan.precision = resolve_precision(plan.samples, request.precision);
    if (is_deep(plan.precision)) {
        job->deep_options.number_type = request.precision == Precision::DeepDouble     ? DeepNumberType::Double
                                        : request.precision == Precision::DeepFloatExp ? DeepNumberType::FloatExp
                                                                                       : DeepNumberType::Auto;
        deep_options_for_colouring(plan.view.colouring, &job->deep_options);
        // Rank 0's orbit starts now (share_reference waits for it): the backend's and the devices'
        // checks below wait for the CUDA driver's start, and the ranks' agreement for the others.
        if (prefetch_reference && deep_view_colouring_problem(plan.view).empty())
            job->reference_prefetch = std::make_shared<ReferencePrefetch>(job->cache.get(), deep_location(plan.samples),
                                                                          plan.samples.width, plan.samples.height,
                                                                          deep_reference_control(job->deep_options));
    }
    if (std::string problem = choose_backend(request, &plan); !problem.empty()) return problem;
    if (std::string problem = check_devices_visible(request); !problem.empty()) return problem;
    if (request.png_encoder == "cuda")
        return "--png-encoder=cuda encodes frames where they are coloured; across ranks rank 0 writes the image on "
               "the CPU";
    job->request.png_encoder = "cpu";
    const View& view = plan.view;
    if (is_deep(plan.precision)) {
        if (std::string problem = deep_view_colouring_problem(view); !problem.empty()) return problem;
        job->deep = true;
        job->deep_coloured = colouring_is_plain(view.colouring) && plan.k == 1 && request.raw_path.empty();
        const double sample_count = double(plan.samples.width) * plan.samples.height;
        if (sample_count > double(int64_t(1) << 30))
            return "a deep image can have at most 2^30 samples (got " + std::to_string(plan.samples.width) + "x" +
                   std::to_string(plan.samples.height) + "); use a smaller --size or --supersample";
        job->units = view.height;
        // Pieces of at most 64 MiB of counts and values; of colours where CUDA colours a piece on
        // its device and only the colours leave it.
        const double sample_bytes = job->deep_coloured && plan.cuda ? 4.0 : 24.0;
        const double row_bytes = double(plan.samples.width) * plan.k * sample_bytes;
        job->max_piece_units = int(std::clamp(64.0 * 1048576.0 / row_bytes, 1.0, double(view.height)));
    } else {
        if (std::string problem = check_direct_path(job->request, &plan); !problem.empty()) return problem;
        if (std::string problem = plan_memory(job->request, &plan); !problem.empty()) return problem;
        if (writes)
            if (std::string problem = check_disk(job->request, plan); !problem.empty()) return problem;
        job->whole_frame = view.colouring.base == ColourBase::Histogram || view.colouring.slopes;
        job->units = job->whole_frame ? 1 : view.height;
        job->max_piece_units = job->whole_frame ? 1 : plan.band_rows;
        job->view_json = view_to_json(ViewRecord{view, plan.precision, plan.k});
    }
    job->key = job_key(*job);
    return {};
}

// Rank 0 computes the deep reference orbit once, as the frame's own setup would
// (deep_frame_setup, into rank 0's cache, where the prefetch begun in plan_job has put it), and
// broadcasts it packed (compute/scale/reference_pack.h); every other rank puts the unpacked orbit
// in its cache, where its pieces' frames find it. Returns the packed size.
size_t share_reference(ClusterImageJob& job, int rank) {
    const RenderPlan& plan = job.plan;
    std::vector<uint8_t> packed;
    std::string problem;
    if (rank == 0) {
        try {
            if (job.reference_prefetch) job.reference_prefetch->wait();
            DeepRenderOptions options = job.deep_options;
            options.cache = job.cache.get();
            DeepFrame frame;
            const DeepFrameSetup setup = deep_frame_setup(deep_location(plan.samples), plan.samples.width,
                                                          plan.samples.height, options, &frame, false);
            if (setup.orbit) packed = pack_reference_orbit(*setup.orbit);
        } catch (const std::exception& e) {
            problem = e.what();
        }
    }
    int from_rank = 0;
    problem = cluster_first_text(problem, &from_rank);
    if (!problem.empty()) throw std::runtime_error(problem);
    cluster_broadcast(&packed, 0);
    if (rank != 0 && !packed.empty()) {
        auto orbit = std::make_shared<ReferenceOrbit>();
        if (std::string error = unpack_reference_orbit(packed.data(), packed.size(), orbit.get()); !error.empty())
            throw std::runtime_error("the reference orbit from rank 0 cannot be read: " + error);
        job.cache->insert(std::move(orbit));
    }
    return packed.size();
}

// Rank 0's clock through a job, from the command's start: where its time went (the summary's time
// line).
struct RankZeroTimes {
    using Clock = std::chrono::steady_clock;
    Clock::time_point start, reference_done, first_piece, last_piece, written;
    bool any_piece = false;
    void piece_arrived() {
        last_piece = Clock::now();
        if (!any_piece) first_piece = last_piece;
        any_piece = true;
    }
    static double ms(Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    }
};

void print_cluster_summary(const ClusterImageJob& job, const ClusterJobStats& stats, int ranks, const std::string& how,
                           const RankZeroTimes& t, double wall_ms) {
    const RenderPlan& plan = job.plan;
    const View& view = plan.view;
    std::printf("backend    %s\n", plan.backend_text.c_str());
    std::printf("view       centre %s, %s  zoom %s  %dx%d", view.center_re.c_str(), view.center_im.c_str(),
                view.zoom.text().c_str(), view.width, view.height);
    if (plan.k > 1) std::printf(" (%dx%d supersampling)", plan.k, plan.k);
    std::printf("  %lld iterations  palette %s\n", (long long)view.max_iterations, view.palette.c_str());
    std::printf("precision  %s\n", precision_name(plan.precision));
    std::printf("ranks      %s", how.c_str());
    if (ranks > 1 && !stats.units_by_rank.empty()) {
        std::printf(":");
        for (int r = 0; r < ranks; ++r)
            std::printf(" rank %d %d %s in %d piece%s%s", r, stats.units_by_rank[size_t(r)],
                        job.whole_frame ? "frames" : "rows", stats.pieces_by_rank[size_t(r)],
                        stats.pieces_by_rank[size_t(r)] == 1 ? "" : "s", r + 1 < ranks ? "," : "");
    }
    std::printf("\n");
    if (t.any_piece) {
        // From the command's start: the checks and (deep) the reference orbit and its broadcast;
        // then the first piece, the pieces' span, and the output's end after the last.
        std::printf(
            "time       %.1f ms checks%s, %.1f ms to the first piece, %.1f ms from the first piece to the "
            "last, %.1f ms writing after it, %.1f ms in all\n",
            RankZeroTimes::ms(t.start, t.reference_done), job.deep ? " and the reference orbit" : "",
            RankZeroTimes::ms(t.reference_done, t.first_piece), RankZeroTimes::ms(t.first_piece, t.last_piece),
            RankZeroTimes::ms(t.last_piece, t.written), wall_ms);
    } else {
        std::printf("time       %.1f ms in all\n", wall_ms);
    }
    std::printf("output     %s\n", job.request.png_path.c_str());
    if (!job.request.raw_path.empty()) std::printf("raw        %s\n", job.request.raw_path.c_str());
    if (!job.request.save_location.empty()) std::printf("location   %s\n", job.request.save_location.c_str());
}

struct Shard {
    int index = -1, count = 0;
};

// The checks on this rank (or process): the options' sentence, the shard, the job's plan, and
// rank 0's (or a shard's) part store and output.
std::string check_rank(const RenderRequest& request, const ClusterRenderOptions& o, const std::string& options_problem,
                       const ClusterLaunch& launch, Shard* shard, ClusterImageJob* job) {
    if (!options_problem.empty()) return options_problem;
    const bool mpi = launch.size > 1;
    if (mpi && (!o.shard.empty() || o.join))
        return "--shard and --join split a render among separate runs without MPI; under mpirun the ranks share it";
    if (!o.shard.empty() && o.join) return "--shard renders one part and --join joins them: give one of them";
    if (!o.shard.empty() && !parse_shard(o.shard, &shard->index, &shard->count))
        return "--shard=" + o.shard + " is not a part I of N (I from 0 to N-1, as --shard=0/4)";
    // Rank 0 of a job, or a shard: the deep reference orbit starts beside the checks (not for
    // --join, which computes nothing).
    const bool prefetch_reference = launch.rank == 0 && !o.join;
    if (std::string problem = plan_job(request, launch.rank == 0, prefetch_reference, job); !problem.empty())
        return problem;
    if (mpi && job->units < launch.size)
        return job->whole_frame
                   ? "the " + colouring_methods_text(job->plan.view.colouring) +
                         " colouring colours the image as one frame, which one rank computes: run it without mpirun"
                   : "the image has " + std::to_string(job->units) + " rows for " + std::to_string(launch.size) +
                         " ranks: use at most " + std::to_string(job->units) + " ranks (mpirun -np)";
    if (shard->count > job->units)
        return "--shard=" + o.shard + ": the image has only " + std::to_string(job->units) + " " +
               (job->whole_frame ? "frame" : "rows") + " to share among " + std::to_string(shard->count) + " shards";
    return {};
}

// Why this rank's job key differs from rank 0's: the backend (a host with fewer GPUs than ranks),
// or the image.
std::string key_difference(const std::string& rank0_key, const ClusterImageJob& job) {
    std::string other_backend = job.key;
    const std::string mine = job.plan.cuda ? "|CUDA" : "|CPU", theirs = job.plan.cuda ? "|CPU" : "|CUDA";
    if (const size_t at = other_backend.find(mine); at != std::string::npos)
        other_backend.replace(at, mine.size(), theirs);
    if (other_backend == rank0_key)
        return std::string("it renders on ") +
               (job.plan.cuda ? "CUDA and rank 0 on the CPU" : "the CPU and rank 0 on CUDA") +
               " (every rank needs a GPU of its own, or give --backend=cpu)";
    return "its command describes another image than rank 0's (each rank must have the same options and files)";
}

// What rank 0 (or a shard, or --join) opens before any work: the part store and the output.
struct RankOutputs {
    PartStore store;
    std::vector<ClusterPiece> finished;  // the store's pieces
    std::unique_ptr<ClusterImageWriter> writer;
    bool store_existed = true;  // false: a refused command removes the folder it made
};

std::string open_outputs(const ClusterImageJob& job, const ClusterRenderOptions& o, bool shard, RankOutputs* out) {
    try {
        const std::filesystem::path dir = part_store_dir_for(resolve_output_path(job.request.png_path));
        out->store_existed = std::filesystem::exists(dir);
        out->store = part_store_open(dir, job.key);
        out->finished = part_store_list(out->store);
        if (o.join) {
            int covered = 0;
            for (ClusterPiece piece : out->finished) covered += piece.count;
            if (covered < job.units)
                return "the parts in " + dir.string() + " cover " + std::to_string(covered) + " of the " +
                       std::to_string(job.units) + " " + (job.whole_frame ? "frames" : "rows") +
                       ": run the missing shards (--shard=I/N) with the same options first";
        }
        if (!shard) out->writer = std::make_unique<ClusterImageWriter>(job, out->store, out->finished);
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

// One shard: its rows, less those finished before, into the part store.
void render_shard(const ClusterImageJob& job, const ClusterRenderOptions& o, Shard shard, RankOutputs& out,
                  int threads) {
    const int first = int(int64_t(job.units) * shard.index / shard.count);
    const int end = int(int64_t(job.units) * (shard.index + 1) / shard.count);
    ProgressBar progress("render");
    if (job.reference_prefetch) job.reference_prefetch->wait();  // into the cache the pieces' frames read
    const std::vector<ClusterPiece> pieces = unfinished_pieces(first, end - first, out.finished, job.max_piece_units);
    for (size_t i = 0; i < pieces.size(); ++i) {
        progress.update(double(i) / pieces.size(), "shard " + o.shard);
        part_store_write(out.store, pieces[i], compute_cluster_piece(job, pieces[i], threads));
    }
    progress.finish();
    std::printf("shard      %d of %d: %s %d to %d of %d in %s; --join with the same options writes %s\n", shard.index,
                shard.count, job.whole_frame ? "frame" : "rows", first, end - 1, job.units, out.store.dir.c_str(),
                job.request.png_path.c_str());
}

// Every rank: the pieces across the ranks; rank 0 writes the output.
ClusterJobStats render_across_ranks(const ClusterImageJob& job, const ClusterRenderOptions& o,
                                    const ClusterLaunch& launch, RankOutputs& out, int threads, RankZeroTimes* times) {
    const int rank = launch.rank;
    if (rank == 0) install_job_signals(0, out.store.dir, "render");
    std::unique_ptr<ProgressBar> progress;  // rank 0's alone
    if (rank == 0) progress = std::make_unique<ProgressBar>("render");
    ClusterJob cluster_job;
    cluster_job.units = job.units;
    // Rows differ in cost by orders of magnitude (a minibrot's interior runs every iteration), so
    // no piece is more than an eighth of a rank's share: a large first piece over the costly
    // rows would keep its rank busy long after the others end.
    const int eighth = std::max(1, job.units / (8 * launch.size));
    cluster_job.max_piece_units = job.max_piece_units > 0 ? std::min(job.max_piece_units, eighth) : eighth;
    // A GPU's results are tens of MB: its next piece runs while one is on its way.
    cluster_job.pieces_in_flight = o.pieces_in_flight > 0 ? o.pieces_in_flight : job.plan.cuda ? 2 : 1;
    // A GPU renders a few rows no faster than many (its threads would idle, and each piece's
    // launch ends on its slowest pixels): on CUDA a deep job's pieces shrink near the end to no
    // fewer than 4M samples, which keep an H200's threads busy several times over. A direct
    // job's pieces stay one process's bands: their rows go to the PNG in those calls.
    if (job.plan.cuda) {
        const double unit_samples = double(job.plan.samples.width) * job.plan.k;
        cluster_job.min_piece_units = job.deep ? std::min(cluster_job.max_piece_units,
                                                          int(std::ceil(4.0 * 1048576.0 / unit_samples)))
                                               : cluster_job.max_piece_units;
    }
    cluster_job.finished = out.finished;
    cluster_job.compute = [&](ClusterPiece piece) { return compute_cluster_piece(job, piece, threads); };
    cluster_job.accept = [&](ClusterPiece piece, std::vector<uint8_t>&& bytes) {
        times->piece_arrived();
        out.writer->accept(piece, std::move(bytes));
        progress->update(double(out.writer->rows_done()) / job.plan.view.height);
    };
    const ClusterJobStats stats = cluster_run_job(cluster_job);
    if (rank == 0) {
        progress->update(1.0, "writing");
        out.writer->finish();
        times->written = RankZeroTimes::Clock::now();
        progress->finish();
    }
    return stats;
}

int run_job(const RenderRequest& request, const ClusterRenderOptions& o, const std::string& options_problem,
            const ClusterLaunch& launch) {
    const bool mpi = launch.size > 1;
    const int rank = launch.rank;
    const auto start = std::chrono::steady_clock::now();
    RankZeroTimes times;
    times.start = start;
    // The driver and the context start beside the checks and rank 0's reference orbit.
    if (request.backend != "cpu") cuda_start_in_background();
    // Only rank 0 writes: the other ranks check their plan against outputs in the temporary
    // folder, so that the output's folder need exist on rank 0's host alone.
    RenderRequest checked = request;
    if (mpi && rank != 0) {
        const std::filesystem::path scratch = std::filesystem::temp_directory_path();
        checked.png_path = scratch / "mandelscope-rank-output.png";
        if (!checked.raw_path.empty()) checked.raw_path = scratch / "mandelscope-rank-output.npy";
        checked.save_location.clear();
    }
    Shard shard;
    ClusterImageJob job;
    std::string problem = check_rank(checked, o, options_problem, launch, &shard, &job);
    // The ranks' commands must describe the same image.
    if (mpi) {
        std::vector<uint8_t> key(job.key.begin(), job.key.end());
        if (!problem.empty()) key.clear();
        cluster_broadcast(&key, 0);
        const std::string rank0_key(key.begin(), key.end());
        if (problem.empty() && !rank0_key.empty() && rank0_key != job.key) problem = key_difference(rank0_key, job);
    }
    RankOutputs out;
    if (problem.empty() && rank == 0) problem = open_outputs(job, o, shard.count > 0, &out);
    int from_rank = 0;
    if (mpi) problem = cluster_first_text(problem, &from_rank);
    if (!problem.empty()) {
        out.writer.reset();
        if (!out.store_existed) part_store_remove(out.store);  // no folder left behind by a refused command
        if (rank == 0) render_bad_input(from_rank > 0 ? "rank " + std::to_string(from_rank) + ": " + problem : problem);
        return 2;
    }

    const int threads = std::max(1, int(std::thread::hardware_concurrency()) / std::max(1, launch.local_size));
    ClusterJobStats stats;
    std::string how;
    try {
        if (shard.count > 0) {
            render_shard(job, o, shard, out, threads);
            return 0;
        }
        if (mpi) {
            const size_t reference_bytes = job.deep ? share_reference(job, rank) : 0;
            times.reference_done = RankZeroTimes::Clock::now();
            stats = render_across_ranks(job, o, launch, out, threads, &times);
            if (rank != 0) return 0;
            how = std::to_string(launch.size) + " ranks, " + std::to_string(threads) +
                  (threads == 1 ? " thread" : " threads") + " each";
            if (job.deep) how += ", the reference orbit broadcast in " + std::to_string(reference_bytes) + " bytes";
        } else {
            out.writer->finish();  // --join
            how = "joined from " + out.store.dir.string();
        }
        part_store_remove(out.store);
    } catch (const ClusterJobStopped&) {
        return 2;  // rank 0 says why
    } catch (const std::exception& e) {
        std::string what = dynamic_cast<const std::bad_alloc*>(&e) ? "ran out of memory while rendering" : e.what();
        if (!what.empty() && what.back() == '.') what.pop_back();
        if (rank == 0)
            std::fprintf(stderr,
                         "mandelscope render: %s; the finished pieces are kept in %s, and the same command resumes "
                         "from them.\n",
                         what.c_str(), out.store.dir.c_str());
        return 2;
    }
    print_cluster_summary(job, stats, launch.size, how, times, ms_since(start));
    return 0;
}

}  // namespace

void add_cluster_render_options(CLI::App& app, ClusterRenderOptions& o) {
    app.add_option("--shard", o.shard,
                   "Render part I of N (0-based, as --shard=3/16: a job array's task) into OUTPUT.parts/ beside the "
                   "output, without MPI; --join writes the output from the parts");
    app.add_flag("--join", o.join, "Write the output from the parts that --shard=I/N runs left in OUTPUT.parts/");
    app.add_option("--pieces-in-flight", o.pieces_in_flight, "Pieces a worker rank holds at once")
        ->check(CLI::Range(1, 2))
        ->group("");
}

bool cluster_render_wanted(const ClusterRenderOptions& o) {
    return cluster_launch_from_environment().size > 1 || !o.shard.empty() || o.join;
}

int render_cluster_command(const RenderRequest& request, const ClusterRenderOptions& o, const std::string& problem) {
    const ClusterLaunch launch = cluster_launch_from_environment();
    if (launch.size <= 1) return run_job(request, o, problem, launch);
    if (!cluster_built_with_mpi()) {
        if (launch.rank == 0)
            render_bad_input("mpirun started " + std::to_string(launch.size) +
                             " processes, but this mandelscope was built without MPI (install libopenmpi-dev and "
                             "build again)");
        return 2;
    }
    choose_rank_gpu(launch);
    if (launch.rank != 0) install_job_signals(launch.rank, {}, "render");
    try {
        cluster_start();
    } catch (const std::exception& e) {
        if (launch.rank == 0) render_bad_input(e.what());
        return 2;
    }
    int status = 2;
    try {
        status = run_job(request, o, problem, launch);
    } catch (const std::exception& e) {  // MPI's own failures
        if (launch.rank == 0) render_bad_input(e.what());
    }
    cluster_stop();
    return status;
}

}  // namespace ms
