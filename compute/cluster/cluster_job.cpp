// cluster_job.cpp: cluster_job.h's coordinator (rank 0) and workers (the other ranks).
// Messages: a worker asks (kAsk) pieces_in_flight times at its start, and again with each piece's
// result (kResult: the piece, then its bytes), and rank 0 answers each with the next piece
// (kPiece) while there is one; so a worker holds up to pieces_in_flight pieces, and with two it
// computes the next while its last result is on its way. Once nothing is left, rank 0 sends
// kStop to a worker that holds no piece, when every unit is in (or after a failure); kFailed
// carries a worker's sentence for a piece.
#include "compute/cluster/cluster_job.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "compute/cluster/cluster.h"
#include "compute/scale/work_queue.h"

namespace ms {

namespace {

enum Tag { kAsk = 1, kResult = 2, kPiece = 3, kStop = 4, kFailed = 5 };

std::vector<uint8_t> piece_bytes(ClusterPiece piece) {
    std::vector<uint8_t> bytes(8);
    const int32_t values[2] = {piece.first, piece.count};
    std::memcpy(bytes.data(), values, 8);
    return bytes;
}

ClusterPiece read_piece(const std::vector<uint8_t>& bytes) {
    if (bytes.size() < 8) throw std::runtime_error("a message of the job is cut short");
    int32_t values[2];
    std::memcpy(values, bytes.data(), 8);
    return {values[0], values[1]};
}

// Guided self-scheduling over the unfinished units (compute/scale/work_queue.h), shared by rank
// 0's two threads.
class PieceQueue {
public:
    PieceQueue(const ClusterJob& job, int ranks)
        : finished_(job.units), queue_(desc(job, ranks), &mark(finished_, job.finished)) {}
    int units_left() { return int(queue_.remaining()); }
    bool next(ClusterPiece* piece) {
        const WorkPiece taken = queue_.take();
        if (taken.empty()) return false;
        *piece = {int(taken.first), int(taken.count)};
        return true;
    }
    void finish(ClusterPiece piece) { queue_.finish(WorkPiece{piece.first, piece.count}); }

private:
    static WorkQueueDesc desc(const ClusterJob& job, int ranks) {
        WorkQueueDesc d;
        d.items = job.units;
        d.workers = ranks;
        d.max_piece = job.max_piece_units;
        d.min_piece = std::max(1, job.min_piece_units);
        return d;
    }
    static const FinishedItems& mark(FinishedItems& items, const std::vector<ClusterPiece>& finished) {
        for (ClusterPiece piece : finished) items.mark(WorkPiece{piece.first, piece.count});
        return items;
    }
    FinishedItems finished_;
    WorkQueue queue_;
};

// Rank 0's own share, computed on a helper thread while the calling thread coordinates.
struct LocalWorker {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<std::pair<ClusterPiece, std::vector<uint8_t>>> results;
    std::string failure;
    bool done = false;
    bool stop = false;
    // The helper takes its first piece once every other rank has its first: the first pieces
    // then lie across the ranks, and a rank slow to start still gets its share.
    bool start = false;
};

void run_local_worker(const ClusterJob& job, PieceQueue& queue, LocalWorker& local) {
    ClusterPiece piece;
    {
        std::unique_lock<std::mutex> lock(local.mutex);
        local.changed.wait(lock, [&] { return local.start || local.stop; });
    }
    try {
        while (true) {
            {
                std::lock_guard<std::mutex> lock(local.mutex);
                if (local.stop) break;
            }
            if (!queue.next(&piece)) break;
            std::vector<uint8_t> bytes = job.compute(piece);
            std::lock_guard<std::mutex> lock(local.mutex);
            local.results.emplace_back(piece, std::move(bytes));
            local.changed.notify_all();
        }
    } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(local.mutex);
        local.failure = e.what();
    }
    std::lock_guard<std::mutex> lock(local.mutex);
    local.done = true;
    local.changed.notify_all();
}

ClusterJobStats coordinate(const ClusterJob& job) {
    const int ranks = cluster_size();
    ClusterJobStats stats;
    stats.pieces_by_rank.assign(size_t(ranks), 0);
    stats.units_by_rank.assign(size_t(ranks), 0);
    PieceQueue queue(job, ranks);
    int units_missing = queue.units_left();
    std::vector<int> held(size_t(ranks), 0);  // pieces a worker holds (handed out, no answer yet)
    std::vector<bool> asked(size_t(ranks), false);
    std::vector<bool> stopped(size_t(ranks), false);
    std::string failure;
    LocalWorker local;
    std::thread helper(run_local_worker, std::cref(job), std::ref(queue), std::ref(local));

    int first_asks = 0;  // workers that have asked
    auto start_local = [&] {
        std::lock_guard<std::mutex> lock(local.mutex);
        local.start = true;
        local.changed.notify_all();
    };
    if (ranks == 1) start_local();
    auto answer = [&](int rank) {
        ClusterPiece piece;
        if (failure.empty() && queue.next(&piece)) {
            cluster_send(rank, kPiece, piece_bytes(piece));
            held[size_t(rank)] += 1;
        } else if ((!failure.empty() || units_missing == 0) && held[size_t(rank)] == 0 && !stopped[size_t(rank)]) {
            cluster_send(rank, kStop, {uint8_t(failure.empty() ? 0 : 1)});
            stopped[size_t(rank)] = true;
        }  // else: its pieces' answers come first, or every unit is not in yet: stopped below
    };
    auto accept = [&](int rank, ClusterPiece piece, std::vector<uint8_t>&& bytes) {
        stats.pieces_by_rank[size_t(rank)] += 1;
        stats.units_by_rank[size_t(rank)] += piece.count;
        units_missing -= piece.count;
        queue.finish(piece);
        if (failure.empty()) {
            try {
                job.accept(piece, std::move(bytes));
            } catch (const std::exception& e) {
                failure = e.what();
            }
        }
    };
    auto all_workers_stopped = [&] {
        for (int r = 1; r < ranks; ++r)
            if (!stopped[size_t(r)]) return false;
        return true;
    };
    try {
        bool local_done = false;
        while (!(local_done && all_workers_stopped())) {
            bool any = false;
            ClusterMessage message;
            while (cluster_try_receive(&message)) {
                any = true;
                const int from = message.source;
                bool last_first_ask = false;
                if (message.tag == kAsk && !asked[size_t(from)]) {
                    asked[size_t(from)] = true;
                    last_first_ask = ++first_asks == ranks - 1;
                }
                if (message.tag == kResult) {
                    const ClusterPiece piece = read_piece(message.bytes);
                    held[size_t(from)] -= 1;
                    accept(from, piece, std::vector<uint8_t>(message.bytes.begin() + 8, message.bytes.end()));
                } else if (message.tag == kFailed) {
                    held[size_t(from)] -= 1;
                    if (failure.empty())
                        failure = "rank " + std::to_string(from) + ": " +
                                  std::string(message.bytes.begin(), message.bytes.end());
                }
                answer(from);
                if (last_first_ask) start_local();
            }
            std::unique_lock<std::mutex> lock(local.mutex);
            while (!local.results.empty()) {
                auto [piece, bytes] = std::move(local.results.front());
                local.results.pop_front();
                lock.unlock();
                accept(0, piece, std::move(bytes));
                any = true;
                lock.lock();
            }
            if (!local.failure.empty() && failure.empty()) failure = local.failure;
            if (!failure.empty()) {
                local.stop = true;
                local.changed.notify_all();
            }
            local_done = local.done && local.results.empty();
            // Idle workers are stopped once every unit is in (or the job failed).
            if (units_missing == 0 || !failure.empty()) {
                lock.unlock();
                for (int r = 1; r < ranks; ++r)
                    if (!stopped[size_t(r)] && held[size_t(r)] == 0) {
                        cluster_send(r, kStop, {uint8_t(failure.empty() ? 0 : 1)});
                        stopped[size_t(r)] = true;
                    }
                lock.lock();
            }
            if (!any && !(local_done && all_workers_stopped()))
                local.changed.wait_for(lock, std::chrono::microseconds(200));
        }
    } catch (...) {
        {
            std::lock_guard<std::mutex> lock(local.mutex);
            local.stop = true;
            local.changed.notify_all();
        }
        helper.join();
        throw;
    }
    helper.join();
    if (!failure.empty()) throw std::runtime_error(failure);
    return stats;
}

// A worker's pieces are computed on a helper thread, in the order they come, while this thread
// alone calls MPI: it sends each result as it is ready (the helper goes on with the next piece
// meanwhile) and takes the pieces and rank 0's stop.
struct WorkerPieces {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<ClusterPiece> todo;
    struct Done {
        ClusterPiece piece;
        std::vector<uint8_t> bytes;  // the piece, then its result
        std::string failure;
    };
    std::deque<Done> done;
    bool stop = false;
};

void compute_worker_pieces(const ClusterJob& job, WorkerPieces& w) {
    while (true) {
        ClusterPiece piece;
        {
            std::unique_lock<std::mutex> lock(w.mutex);
            w.changed.wait(lock, [&] { return w.stop || !w.todo.empty(); });
            if (w.stop) return;
            piece = w.todo.front();
        }
        WorkerPieces::Done done{piece, piece_bytes(piece), {}};
        try {
            std::vector<uint8_t> bytes = job.compute(piece);
            done.bytes.insert(done.bytes.end(), bytes.begin(), bytes.end());
        } catch (const std::exception& e) {
            done.failure = e.what();
        }
        std::lock_guard<std::mutex> lock(w.mutex);
        w.todo.pop_front();
        w.done.push_back(std::move(done));
        w.changed.notify_all();
    }
}

void work(const ClusterJob& job) {
    const int rank = cluster_rank();
    int sent = 0;
    WorkerPieces w;
    std::thread helper(compute_worker_pieces, std::cref(job), std::ref(w));
    auto stop_helper = [&] {
        {
            std::lock_guard<std::mutex> lock(w.mutex);
            w.stop = true;
            w.changed.notify_all();
        }
        helper.join();
    };
    try {
        for (int i = 0; i < std::max(1, job.pieces_in_flight); ++i) cluster_send(0, kAsk, {});
        while (true) {
            bool any = false;
            ClusterMessage message;
            while (cluster_try_receive(&message)) {
                any = true;
                if (message.tag == kStop) {  // sent once this rank holds no piece
                    stop_helper();
                    if (!message.bytes.empty() && message.bytes[0] != 0) throw ClusterJobStopped();
                    return;
                }
                const ClusterPiece piece = read_piece(message.bytes);
                cluster_fault_after_piece(rank, sent);
                std::lock_guard<std::mutex> lock(w.mutex);
                w.todo.push_back(piece);
                w.changed.notify_all();
            }
            std::unique_lock<std::mutex> lock(w.mutex);
            while (!w.done.empty()) {
                WorkerPieces::Done done = std::move(w.done.front());
                w.done.pop_front();
                lock.unlock();
                if (done.failure.empty()) {
                    cluster_send(0, kResult, done.bytes);
                    ++sent;
                } else {
                    cluster_send(0, kFailed, std::vector<uint8_t>(done.failure.begin(), done.failure.end()));
                }
                any = true;
                lock.lock();
            }
            if (!any) w.changed.wait_for(lock, std::chrono::microseconds(200));
        }
    } catch (...) {
        if (helper.joinable()) stop_helper();
        throw;
    }
}

}  // namespace

std::vector<ClusterPiece> unfinished_pieces(int first, int count, const std::vector<ClusterPiece>& finished,
                                            int max_piece_units) {
    std::vector<bool> done(size_t(count), false);
    for (ClusterPiece piece : finished)
        for (int u = std::max(piece.first, first); u < std::min(piece.first + piece.count, first + count); ++u)
            done[size_t(u - first)] = true;
    std::vector<ClusterPiece> pieces;
    for (int u = 0; u < count;) {
        if (done[size_t(u)]) {
            ++u;
            continue;
        }
        int end = u;
        while (end < count && !done[size_t(end)] && (max_piece_units <= 0 || end - u < max_piece_units)) ++end;
        pieces.push_back({first + u, end - u});
        u = end;
    }
    return pieces;
}

ClusterJobStats cluster_run_job(const ClusterJob& job) {
    if (cluster_rank() == 0) return coordinate(job);
    work(job);
    return {};
}

void cluster_fault_after_piece(int rank, int pieces_sent) {
#if MANDELSCOPE_FAULT_INJECTION
    const char* text = std::getenv("MANDELSCOPE_CLUSTER_KILL");
    if (!text) return;
    int kill_rank = -1, after = -1;
    if (std::sscanf(text, "%d:%d", &kill_rank, &after) == 2 && kill_rank == rank && after == pieces_sent)
        ::kill(::getpid(), SIGKILL);
#else
    (void)rank;
    (void)pieces_sent;
#endif
}

}  // namespace ms
