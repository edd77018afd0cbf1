// cluster_job.h: one job's units of work spread over the ranks of an MPI job (or computed in
// this process alone: a shard), with rank 0 as the coordinator.
//
// The job is `units` units (rows of an image, or bands); a piece is a run of them. Rank 0 hands
// out pieces by guided self-scheduling (compute/scale/work_queue.h): pieces start large (few
// messages) and shrink near the end (no rank is left with a large piece while the others idle);
// a piece never crosses a finished one. Every rank computes (rank 0 on a thread of its own
// beside the coordinating one, which alone calls MPI, from when every other rank has its first
// piece), and each result goes to rank 0, which calls `accept` in the order the results arrive.
//
// Failure: a piece that throws on any rank ends the job on every rank: rank 0 collects the
// pieces still in flight, tells every rank to stop, and throws the first sentence; the other
// ranks throw ClusterJobStopped (they print nothing: rank 0 says what happened).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "compute/cluster/part_store.h"

namespace ms {

struct ClusterJob {
    int units = 0;
    int max_piece_units = 0;             // 0: no limit; 1: every piece is one unit
    int min_piece_units = 1;             // the smallest piece but the last (a GPU's: enough rows to fill it)
    // Pieces a worker rank holds at once: 2 computes the next while the last result is on its way
    // (a GPU's large results); 1 leaves no piece held at the end while another rank idles.
    int pieces_in_flight = 1;
    std::vector<ClusterPiece> finished;  // rank 0: pieces done before (the part store's), skipped
    // Every rank: the bytes of a piece. Called from a helper thread on rank 0.
    std::function<std::vector<uint8_t>(ClusterPiece)> compute;
    // Rank 0, on the calling thread, in the order the pieces arrive.
    std::function<void(ClusterPiece, std::vector<uint8_t>&&)> accept;
};

// What the job did, for the summary (rank 0).
struct ClusterJobStats {
    std::vector<int> pieces_by_rank;
    std::vector<int> units_by_rank;
};

// Thrown on the ranks other than 0 when rank 0 stops the job after a failure.
struct ClusterJobStopped : std::runtime_error {
    ClusterJobStopped() : std::runtime_error("the job was stopped") {}
};

// Every rank of an MPI job calls it with the same units; returns on every rank when all units
// are accepted. Throws on a failure (see the header comment).
ClusterJobStats cluster_run_job(const ClusterJob& job);

// The pieces to compute in this process alone: the units [first, first + count) less the
// finished ones, in runs of at most max_piece_units (0: whole runs).
std::vector<ClusterPiece> unfinished_pieces(int first, int count, const std::vector<ClusterPiece>& finished,
                                            int max_piece_units);

// A test's fault: MANDELSCOPE_CLUSTER_KILL=RANK:PIECES makes that rank kill itself (SIGKILL)
// when it is handed a piece after sending PIECES results, as a node that dies mid-piece would
// (builds with fault injection only).
void cluster_fault_after_piece(int rank, int pieces_sent);

}  // namespace ms
