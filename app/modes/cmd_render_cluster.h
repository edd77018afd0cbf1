// cmd_render_cluster.h: `mandelscope render` over many processes: under mpirun (every rank runs
// the same command; compute/cluster/), or one shard of a scheduler's job array (--shard=I/N,
// no MPI) and the command that joins the shards (--join). cmd_render_cluster.cpp holds the
// checks and the job, cmd_render_cluster_pieces.cpp what a piece of the image computes and how
// rank 0 writes the pieces.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "app/modes/cmd_render.h"
#include "compute/cluster/cluster.h"

namespace ms {

struct ClusterRenderOptions {
    std::string shard;  // --shard=I/N: render part I of N into OUTPUT.parts/ (no MPI)
    bool join = false;  // --join: write the output from the parts in OUTPUT.parts/
    // For tests of the protocol on the CPU: pieces a worker rank holds at once (0: the backend's
    // choice, 2 on CUDA and 1 on the CPU).
    int pieces_in_flight = 0;
};

void add_cluster_render_options(CLI::App& app, ClusterRenderOptions& o);

// Whether the render goes through render_cluster_command: mpirun started more than one
// process, or --shard or --join was given.
bool cluster_render_wanted(const ClusterRenderOptions& o);

// The render across ranks or shards. `problem`: the sentence the options gave ("" for none),
// which every rank agrees on before any work, so a bad command stops every rank with one
// sentence (rank 0's) and exit status 2. Returns the exit status.
int render_cluster_command(const RenderRequest& request, const ClusterRenderOptions& o, const std::string& problem);

// Shared with `video` across ranks (cmd_video_cluster.cpp):
// Local rank i takes the i-th GPU of CUDA_VISIBLE_DEVICES (or GPU i when it is unset), before
// anything starts CUDA: one GPU a rank. A host with fewer GPUs than ranks leaves the others none.
void choose_rank_gpu(const ClusterLaunch& launch);
// SIGTERM (mpirun ending the job when a rank died): rank 0 says "mandelscope MODE: the job was
// ended ...; the finished pieces are kept in PARTS" and removes its unfinished output; the other
// ranks end without a word.
void install_job_signals(int rank, const std::filesystem::path& parts, const char* mode);

}  // namespace ms
